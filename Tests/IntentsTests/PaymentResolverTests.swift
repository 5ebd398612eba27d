import Intents
import Testing

@Suite("Payment resolution")
struct PaymentResolverTests {
    static let jane = Person(displayName: "Jane Doe", handle: "GJANE", aliases: ["Janey"])
    static let janeSmith = Person(displayName: "Jane Smith", handle: "GJANESMITH")
    static let jose = Person(displayName: "José Núñez", handle: "GJOSE", aliases: ["Pepe"])
    static let nohandle = Person(displayName: "Carol", handle: "")
    static let rules = [
        CurrencyRule(code: "USD", exponent: 2, minimum: 1, maximum: 1_000_000),
        CurrencyRule(code: "EUR", exponent: 2, minimum: 50, maximum: 500_000),
        CurrencyRule(code: "XLM", exponent: 7, minimum: 1, maximum: Int64.max),
    ]

    func resolver(contacts: [Person] = [jane, jose, nohandle], last: PaymentRecord? = nil, locale: IntentLocale = .enUS, currencies: [CurrencyRule] = rules) -> PaymentResolver {
        PaymentResolver(contacts: contacts, lastPayment: last, currencies: currencies, locale: locale)
    }

    func amount(_ text: String, locale: IntentLocale = .enUS) -> ParsedAmount? {
        UtteranceParser(locale: locale).parse(text).amount
    }

    static let lastPayment = PaymentRecord(payee: jose, payer: nil, amount: CurrencyAmount(minorUnits: 1_250, currency: "EUR", exponent: 2), note: "taxi", status: .completed)

    @Test func payees() {
        let resolver = resolver()
        #expect(resolver.resolvePayee("Jane") == .success(Self.jane))
        #expect(resolver.resolvePayee("jane doe") == .success(Self.jane))
        #expect(resolver.resolvePayee("JANEY") == .success(Self.jane))
        #expect(resolver.resolvePayee("Jose") == .success(Self.jose), "accents are ignored")
        #expect(resolver.resolvePayee("jose nunez") == .success(Self.jose))
        #expect(resolver.resolvePayee("Pepe") == .success(Self.jose), "nicknames")
        #expect(resolver.resolvePayee("GJANE") == .success(Self.jane), "handles")
        #expect(resolver.resolvePayee("Dave") == .unsupported(.noAccount))
        #expect(resolver.resolvePayee("Carol") == .unsupported(.noValidHandle))
        #expect(self.resolver(contacts: [Self.jane, Self.janeSmith]).resolvePayee("Jane") == .disambiguation([Self.jane, Self.janeSmith]))
        #expect(self.resolver(contacts: [Self.jane, Self.janeSmith]).resolvePayee("Jane Smith") == .success(Self.janeSmith))
        // Missing: the last payee to confirm, or ask.
        #expect(resolver.resolvePayee(nil) == .needsValue)
        #expect(resolver.resolvePayee("  ") == .needsValue)
        #expect(self.resolver(last: Self.lastPayment).resolvePayee(nil) == .confirmationRequired(Self.jose))
    }

    @Test func amounts() {
        let resolver = resolver()
        #expect(resolver.resolveAmount(amount("$50")) == .success(CurrencyAmount(minorUnits: 5_000, currency: "USD", exponent: 2)))
        #expect(resolver.resolveAmount(amount("$0.50")) == .success(CurrencyAmount(minorUnits: 50, currency: "USD", exponent: 2)), "$0.50 is fine (the sample truncated it)")
        #expect(resolver.resolveAmount(amount("twenty five euros")) == .success(CurrencyAmount(minorUnits: 2_500, currency: "EUR", exponent: 2)))
        #expect(resolver.resolveAmount(amount("2.5 XLM")) == .success(CurrencyAmount(minorUnits: 25_000_000, currency: "XLM", exponent: 7)))
        #expect(resolver.resolveAmount(amount("50")) == .success(CurrencyAmount(minorUnits: 5_000, currency: "USD", exponent: 2)), "no currency: the locale's")
        #expect(resolver.resolveAmount(amount("$0")) == .unsupported(.amountNotPositive))
        #expect(resolver.resolveAmount(amount("-$5")) == .unsupported(.amountNotPositive))
        #expect(resolver.resolveAmount(amount("£10")) == .unsupported(.currencyUnsupported))
        #expect(resolver.resolveAmount(amount("10 dinars")) == .unsupported(.currencyUnsupported))
        #expect(resolver.resolveAmount(amount("$12.345")) == .unsupported(.tooManyDecimals))
        #expect(resolver.resolveAmount(amount("€0.49")) == .unsupported(.amountBelowMinimum))
        #expect(resolver.resolveAmount(amount("€0.50")) == .success(CurrencyAmount(minorUnits: 50, currency: "EUR", exponent: 2)))
        #expect(resolver.resolveAmount(amount("€5,000.00")) == .success(CurrencyAmount(minorUnits: 500_000, currency: "EUR", exponent: 2)))
        #expect(resolver.resolveAmount(amount("€5,000.01")) == .unsupported(.amountAboveMaximum))
        #expect(resolver.resolveAmount(amount("99999999999999999 XLM")) == .unsupported(.amountAboveMaximum), "beyond Int64 stroops")
        // A "$" outside the US: the dollars accepted to choose from, or the only one to confirm.
        let dutch = self.resolver(locale: .nlNL, currencies: Self.rules + [CurrencyRule(code: "CAD", exponent: 2, minimum: 1, maximum: 100_000)])
        #expect(dutch.resolveAmount(amount("$20", locale: .nlNL)) == .disambiguation([
            CurrencyAmount(minorUnits: 2_000, currency: "USD", exponent: 2), CurrencyAmount(minorUnits: 2_000, currency: "CAD", exponent: 2),
        ]))
        #expect(self.resolver(locale: .nlNL).resolveAmount(amount("$20", locale: .nlNL)) == .confirmationRequired(CurrencyAmount(minorUnits: 2_000, currency: "USD", exponent: 2)))
        #expect(self.resolver(locale: .nlNL, currencies: [Self.rules[1]]).resolveAmount(amount("$20", locale: .nlNL)) == .unsupported(.currencyUnsupported))
        #expect(self.resolver(locale: .nlNL).resolveAmount(amount("20", locale: .nlNL)) == .success(CurrencyAmount(minorUnits: 2_000, currency: "EUR", exponent: 2)))
        // Missing: the last amount to confirm, or ask.
        #expect(resolver.resolveAmount(nil) == .needsValue)
        #expect(self.resolver(last: Self.lastPayment).resolveAmount(nil) == .confirmationRequired(Self.lastPayment.amount))
    }

    @Test func notes() {
        #expect(resolver().resolveNote("dinner") == .success("dinner"))
        #expect(resolver().resolveNote(nil) == .notRequired)
        #expect(resolver().resolveNote(" ") == .notRequired)
    }

    /// Amounts not said exactly are never paid as said: an approximate one is offered to confirm
    /// exactly, a range or a limit is asked for.
    @Test func inexactAmounts() {
        let resolver = resolver()
        let twenty = CurrencyAmount(minorUnits: 2_000, currency: "USD", exponent: 2)
        #expect(resolver.resolveAmount(amount("about $20")) == .confirmationRequired(twenty))
        #expect(resolver.resolveAmount(amount("20ish dollars")) == .confirmationRequired(twenty))
        #expect(resolver.resolveAmount(amount("between 10 and 20 dollars")) == .needsValue)
        #expect(resolver.resolveAmount(amount("$10-$20")) == .needsValue)
        #expect(resolver.resolveAmount(amount("under $20")) == .needsValue)
        #expect(resolver.resolveAmount(amount("at least $20")) == .needsValue)
        #expect(self.resolver(last: Self.lastPayment).resolveAmount(amount("between 10 and 20 dollars")) == .needsValue, "not the last amount")
        #expect(resolver.resolveAmount(amount("about $0")) == .unsupported(.amountNotPositive), "approximately nothing is still nothing")
        #expect(self.resolver(locale: .deDE).resolveAmount(amount("etwa 20 Euro", locale: .deDE)) == .confirmationRequired(CurrencyAmount(minorUnits: 2_000, currency: "EUR", exponent: 2)))
    }

    /// An amount refused says which limit it broke, in the currency it was said in.
    @Test func amountRefusals() {
        let resolver = resolver()
        let below = amount("€0.49")
        #expect(resolver.resolveAmount(below) == .unsupported(.amountBelowMinimum))
        #expect(resolver.refusal(amount: below, reason: .amountBelowMinimum) == .amountBelowMinimum(CurrencyAmount(minorUnits: 50, currency: "EUR", exponent: 2)))
        #expect(resolver.refusal(amount: amount("€5,000.01"), reason: .amountAboveMaximum) == .amountAboveMaximum(CurrencyAmount(minorUnits: 500_000, currency: "EUR", exponent: 2)))
        #expect(resolver.refusal(amount: amount("£10"), reason: .currencyUnsupported) == .currencyUnsupported(code: "GBP"))
        #expect(resolver.refusal(amount: amount("10 dinars"), reason: .currencyUnsupported) == .currencyUnsupported(code: "10 dinars"))
        #expect(resolver.refusal(amount: amount("$0"), reason: .amountNotPositive) == .amountNotPositive(said: "$0"))
        #expect(resolver.refusal(amount: amount("$12.345"), reason: .tooManyDecimals) == .tooManyDecimals(said: "$12.345"))
    }

    /// The place's money ("a grand", "een tientje"), the yen sign, and the yuan.
    @Test func moneyOfThePlace() {
        let euros = CurrencyRule(code: "EUR", exponent: 2, minimum: 1, maximum: 10_000_000)
        let pounds = CurrencyRule(code: "GBP", exponent: 2, minimum: 1, maximum: 10_000_000)
        let yen = CurrencyRule(code: "JPY", exponent: 0, minimum: 1, maximum: 10_000_000)
        let yuan = CurrencyRule(code: "CNY", exponent: 2, minimum: 1, maximum: 10_000_000)
        let rules = Self.rules + [pounds, yen, yuan]
        #expect(resolver(currencies: rules).resolveAmount(amount("a grand")) == .success(CurrencyAmount(minorUnits: 100_000, currency: "USD", exponent: 2)))
        #expect(resolver(locale: .enGB, currencies: rules).resolveAmount(amount("a tenner", locale: .enGB)) == .success(CurrencyAmount(minorUnits: 1_000, currency: "GBP", exponent: 2)))
        #expect(resolver(locale: .nlNL, currencies: [euros]).resolveAmount(amount("een tientje", locale: .nlNL)) == .success(CurrencyAmount(minorUnits: 1_000, currency: "EUR", exponent: 2)))
        #expect(resolver(currencies: rules).resolveAmount(amount("¥500")) == .success(CurrencyAmount(minorUnits: 500, currency: "JPY", exponent: 0)))
        #expect(resolver(currencies: rules).resolveAmount(amount("3 yuan")) == .success(CurrencyAmount(minorUnits: 300, currency: "CNY", exponent: 2)))
        #expect(resolver(currencies: rules).resolveAmount(amount("$.50")) == .success(CurrencyAmount(minorUnits: 50, currency: "USD", exponent: 2)), "not 50 dollars")
    }

    /// Handles resolve like contacts: against a contact's address and aliases, a phone in any
    /// spacing; a Stellar account is payable as it is; the refusal names what was said.
    @Test func handles() {
        let account = "GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H"
        let kiran = Person(displayName: "Kiran Rao", handle: "GKIRAN", aliases: ["+31 6 1234 5678", "kiran@example.com", "@kiran", "Kiran1"])
        let resolver = resolver(contacts: [Self.jane, kiran])
        #expect(resolver.resolvePayee("+31612345678") == .success(kiran))
        #expect(resolver.resolvePayee("+31 6 12345678") == .success(kiran))
        #expect(resolver.resolvePayee("KIRAN@example.com") == .success(kiran))
        #expect(resolver.resolvePayee("@Kiran") == .success(kiran))
        #expect(resolver.resolvePayee("Kiran1") == .success(kiran))
        #expect(resolver.resolvePayee(account) == .success(Person(displayName: account, handle: account)))
        #expect(resolver.resolvePayee("555-123-4567") == .unsupported(.noAccount))
        #expect(resolver.refusal(payee: "555-123-4567", reason: .noAccount) == .noContactWithHandle(.phone("5551234567")))
        #expect(resolver.refusal(payee: "Bobby", reason: .noAccount) == .noContact(name: "Bobby"))
        #expect(resolver.refusal(payee: "Carol", reason: .noValidHandle) == .noAddress(payee: "Carol"))
        #expect(resolver.resolvePayee("jane*example.com") == .unsupported(.noAccount), "a federation address is looked up by the app first")
        var federated = resolver
        federated.federated["jane*example.com"] = Self.jane
        #expect(federated.resolvePayee("Jane*Example.com") == .success(Self.jane))
        #expect(PayeeHandle.parse("+1 (415) 555-0100") == .phone("+14155550100"))
        #expect(PayeeHandle.parse("jane*localhost:8000") == .federation(name: "jane", domain: "localhost:8000"))
        #expect(PayeeHandle.parse("Jane Doe") == nil && PayeeHandle.parse("12") == nil)
    }

    /// Every sentence exists in every language, and yes is understood in each.
    @Test func thePhrasebook() {
        let failures: [IntentFailure] = [
            .noContact(name: "Bobby"), .noContactWithHandle(.phone("+31612345678")), .noAddress(payee: "Carol"), .federationNotFound(address: "a*b.c"),
            .federationUnavailable(domain: "b.c"), .currencyUnsupported(code: "GBP"), .amountNotPositive(said: "$0"), .tooManyDecimals(said: "$1.234"),
            .amountBelowMinimum(CurrencyAmount(minorUnits: 1, currency: "EUR", exponent: 2)), .amountAboveMaximum(CurrencyAmount(minorUnits: 1, currency: "EUR", exponent: 2)),
            .noAccount, .holdsNone(asset: "USDC"), .insufficientFunds(maximum: "1.5000000", asset: "USDC"), .recipientNotFound(payee: "Bob"),
            .recipientCannotReceive(payee: "Bob", asset: "USDC"), .recipientLimit(payee: "Bob", asset: "USDC"), .pinIncorrect,
        ]
        for language in IntentLanguage.allCases {
            let phrases = Phrasebook(language)
            let sentences = failures.map(phrases.sentence)
            #expect(Set(sentences).count == failures.count, "\(language): each refusal is its own sentence")
            if language != .en { #expect(zip(sentences, failures.map(Phrasebook(.en).sentence)).allSatisfy { $0 != $1 || $0.contains("@") }, "\(language) is not English") }
            #expect(phrases.isYes("y") && phrases.isYes("Yes") && !phrases.isYes("n") && !phrases.isYes(""))
        }
        #expect(Phrasebook(.nl).isYes("ja") && Phrasebook(.de).isYes("J") && Phrasebook(.fr).isYes("oui") && Phrasebook(.es).isYes("sí") && !Phrasebook(.en).isYes("ja"))
        #expect(Phrasebook(.de).amount(CurrencyAmount(minorUnits: 1_250, currency: "EUR", exponent: 2)) == "12,50 EUR")
        #expect(Phrasebook(.en).sentence(.holdsNone(asset: "USDC")) == "you hold no USDC: add it with `tender wallet trust add USDC`")
        #expect(Phrasebook(.en).sentence(.recipientCannotReceive(payee: "Bob", asset: "USDC")) == "Bob cannot receive USDC: they must trust it first")
        #expect(Phrasebook(.en).sentence(.noContact(name: "Bobby")).hasPrefix("no contact named Bobby"))
    }

    @Test func appleRawValues() {
        #expect(SendPaymentResponseCode.failureInsufficientFunds.rawValue == 10)
        #expect(SendPaymentResponseCode.failureTermsAndConditionsAcceptanceRequired.rawValue == 13)
        #expect(RequestPaymentResponseCode.failureNoBankAccount.rawValue == 10)
        #expect(PayeeUnsupportedReason.noValidHandle.rawValue == 4)
        #expect(AmountUnsupportedReason.currencyUnsupported.rawValue == 3)
        #expect(PaymentStatus.unpaid.rawValue == 5)
        #expect(CurrencyAmount(minorUnits: 5, currency: "XLM", exponent: 7).decimalString == "0.0000005")
        #expect(CurrencyAmount(minorUnits: -1_250, currency: "EUR", exponent: 2).description == "-12.50 EUR")
        #expect(CurrencyAmount(minorUnits: 7, currency: "JPY", exponent: 0).decimalString == "7")
    }
}

@Suite("Utterance parser, what it does not understand")
struct UtteranceProblemTests {
    @Test func problemsAreReportedNotGuessed() {
        let english = UtteranceParser(locale: .enUS)
        #expect(english.parse("Send $12,50 to Jane").problems.map(\.code) == ["unreadable_number"])
        #expect(english.parse("Send $12,50 to Jane").amount == nil)
        #expect(UtteranceParser(locale: .nlNL).parse("Send €12.50 to Jan").problems.map(\.code) == ["unreadable_number"])
        #expect(english.parse("Send $20 to Jane and $30 to Bob").problems.map(\.code) == ["several_amounts"])
        #expect(english.parse("Send $20 to Jane and $30 to Bob").amount == nil)
        #expect(english.parse("Send $20 or 20 dollars to Jane").problems.isEmpty, "the same amount twice is one amount")
        #expect(english.parse("").problems.map(\.code) == ["empty"])
        #expect(english.parse("Send 99999999999999999999 dollars to Jane").problems.map(\.code) == ["unreadable_number"])
        #expect(english.parse("Send 99999999999999999k dollars to Jane").problems.map(\.code) == ["amount_too_large"])
        #expect(english.parse("Send $5 to Jane blorp").payee == "Jane blorp", "a name is what follows 'to'")
        #expect(english.parse("Send $5 to Jane, zork").unrecognized == ["zork"])
    }

    @Test func longInputIsRefusedInBoundedTime() {
        let parser = UtteranceParser()
        let long = String(repeating: "send $5 to Jane for dinner ", count: 4_000)  // 108 KB
        let parsed = parser.parse(long)
        #expect(parsed.problems.map(\.code) == ["too_long"])
        #expect(parsed.intent == .unknown)
        // At the limit it is read.
        let limit = String(repeating: "a", count: UtteranceParser.maxLength - 13) + " send $5 to X"
        #expect(parser.parse(limit).amount?.value.description == "5")
    }

    @Test func vocabularyNamesAreTakenWhole() {
        let plain = UtteranceParser()
        #expect(plain.parse("Send $5 to Ben and Jerry for ice cream").payee == "Ben")
        let registered = UtteranceParser(vocabulary: ["Ben and Jerry", "Anne-Marie van der Berg"])
        #expect(registered.parse("Send $5 to Ben and Jerry for ice cream").payee == "Ben and Jerry")
        #expect(registered.parse("Send $5 to ben AND jerry").payee == "ben AND jerry")
        #expect(registered.parse("Pay Anne-Marie van der Berg €20 for the flowers").payee == "Anne-Marie van der Berg")
        #expect(registered.parse("Pay Anne-Marie van der Berg €20 for the flowers").note == "the flowers")
    }

    /// Ledger assets the app pays in are codes too; unknown to the parser they are reported, not
    /// taken for the locale's currency.
    @Test func theAppsOwnCurrencyCodes() {
        let plain = UtteranceParser().parse("Send 5 SRT to Jane")
        #expect(plain.amount?.unit == .unspecified && plain.unrecognized == ["SRT"])
        let parser = UtteranceParser(currencyCodes: ["SRT", "USDC", "x", "TOOLONGCODE123"])
        let srt = parser.parse("Send 5 SRT to Jane")
        #expect(srt.amount?.unit == .currency("SRT") && srt.currency == "SRT" && srt.payee == "Jane" && srt.unrecognized.isEmpty)
        #expect(parser.parse("Pay Jane 2.5 usdc").currency == "USDC")
        #expect(parser.parse("Pay Jane SRT 7").amount?.value.description == "7")
        #expect(parser.parse("Pay Jane 5 EUR").currency == "EUR", "ISO codes keep their meaning")
        #expect(UtteranceParser.exponent(of: "JPY") == 0 && UtteranceParser.exponent(of: "SRT") == nil)
        let resolver = PaymentResolver(contacts: [], currencies: [CurrencyRule(code: "SRT", exponent: 7, minimum: 1, maximum: .max)])
        #expect(resolver.resolveAmount(srt.amount) == .success(CurrencyAmount(minorUnits: 50_000_000, currency: "SRT", exponent: 7)))
    }

    @Test func appsAreDroppedOnlyWhenTheyAreApps() {
        let parser = UtteranceParser(appNames: ["Tender", "Cash Pal"])
        #expect(parser.parse("Send $5 to Jane with Cash Pal").app == "Cash Pal")
        #expect(parser.parse("Send $5 to Jane with Cash Pal").payee == "Jane")
        #expect(parser.parse("Send $5 to Jane for lunch with Tender").note == "lunch")
        #expect(parser.parse("Send $5 to Jane for lunch with Bob").note == "lunch with Bob")
        #expect(parser.parse("Send $5 to Jane using Venmo").app == "Venmo")
    }

    /// Random text, random bytes and the boundary values of numbers never crash the parser and
    /// always come back with an intent.
    @Test func randomInputNeverCrashes() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["send", "pay", "to", "for", "from", "$", "€", "£", "and", "cents", "a", "hundred", "k", "-", ".", ",", "1",
                      "9223372036854775807", "9223372036854775808", "18446744073709551615", "0.000000000000000001", "1e9",
                      "١٢", "１２", "twenty-five", "Jane", "José", "with", "using", "", " ", "\u{301}", "\u{0}", "'", "¢", "%",
                      // The other languages and the newer forms: handles, ranges, halves, slang, scales.
                      "stuur", "aan", "voor", "tweeënveertig", "twee-en-veertig", "überweise", "für", "zweiundzwanzig", "zweieinhalb",
                      "envoie", "à", "pour", "quatre-vingt-dix-neuf", "soixante", "et", "demi-million", "d'", "envía", "para", "y", "medio",
                      "millón", "mil", "+", "(", ")", "*", "@", "jane*example.com", "a@b.co", "@x", "555-123-4567", "+31", "half", "about",
                      "~", "ish", "between", "entre", "tussen", "zwischen", "bis", "grand", "quarters", "lakh", "point", "komma", "Mio",
                      "ca", "vingtaine", "1 234", "\u{A0}", "\u{202F}", ",50", ".5", "1.234,56", "10k", "Kiran1",
                      "GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H"]
        let parsers = IntentLocale.allCases.map { UtteranceParser(locale: $0) }
        for round in 0..<5_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                if round % 3 == 0 {
                    text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: 0...0x2FF, using: &generator)) ?? " ")
                } else {
                    text += pieces.randomElement(using: &generator)! + (Bool.random(using: &generator) ? " " : "")
                }
            }
            for parser in parsers {
                let parsed = parser.parse(text)
                if let amount = parsed.amount {
                    #expect(!amount.text.isEmpty)
                    // Never an inexact amount that the problems keep quiet about.
                    #expect(amount.exactness == .exact || !parsed.problems.isEmpty, "\(parser.locale.rawValue): \(text)")
                }
            }
        }
    }
}
