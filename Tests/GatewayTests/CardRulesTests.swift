import Gateway
import TenderTesting
import Testing

@Suite("Card rules")
struct CardRulesTests {
    static let today = YearMonth(year: 2026, month: 11)

    @Test(arguments: [
        ("4242424242424242", CardBrand.visa), ("4222222222222", .visa), ("4000000000000000006", .visa),
        ("5555555555554444", .mastercard), ("2223003122003222", .mastercard), ("2720990000000007", .mastercard),
        ("378282246310005", .amex), ("371449635398431", .amex),
        ("6759649826438453", .maestro), ("5018000000000009", .maestro), ("501800000009", .maestro),
        ("3566002020360505", .unknown),
    ])
    func validNumbersAndTheirBrands(_ number: String, _ brand: CardBrand) throws {
        let checked = try CardRules.checkNumber(number)
        #expect(checked.brand == brand)
        #expect(checked.digits == number)
    }

    @Test func brandIsDetectedWhileTyping() {
        #expect(CardBrand(digits: "") == .unknown)
        #expect(CardBrand(digits: "4") == .visa)
        #expect(CardBrand(digits: "3") == .unknown)
        #expect(CardBrand(digits: "34") == .amex)
        #expect(CardBrand(digits: "37") == .amex)
        #expect(CardBrand(digits: "36") == .unknown)
        #expect(CardBrand(digits: "51") == .mastercard)
        #expect(CardBrand(digits: "56") == .maestro)
        #expect(CardBrand(digits: "222") == .unknown)
        #expect(CardBrand(digits: "2221") == .mastercard)
        #expect(CardBrand(digits: "2720") == .mastercard)
        #expect(CardBrand(digits: "2721") == .unknown)
        #expect(CardBrand(digits: "2220") == .unknown)
        #expect(CardBrand(digits: "50") == .maestro)
        #expect(CardBrand(digits: "69") == .maestro)
        #expect(CardBrand(digits: "70") == .unknown)
    }

    @Test(arguments: [
        // Length wrong for the brand.
        ("424242424242424", CardCheckError.Code.invalidNumber), ("42424242424242", .invalidNumber),
        ("55555555555544", .invalidNumber), ("3782822463100051", .invalidNumber), ("50180000009", .invalidNumber),
        // Not digits, empty, too long.
        ("", .invalidNumber), ("4242 4242 4242 424x", .invalidNumber), ("４２４２４２４２４２４２４２４２", .invalidNumber),
        (String(repeating: "4", count: 65), .invalidNumber), ("4242_4242_4242_4242", .invalidNumber),
        // The Luhn check.
        ("4242424242424241", .incorrectNumber), ("5555555555554445", .incorrectNumber), ("378282246310006", .incorrectNumber),
    ])
    func invalidNumbers(_ number: String, _ code: CardCheckError.Code) {
        #expect(throws: CardCheckError.self) { try CardRules.checkNumber(number) }
        do { _ = try CardRules.checkNumber(number) } catch { #expect(error.code == code); #expect(error.parameter == "number") }
    }

    @Test func spacesAndDashesAreDropped() throws {
        #expect(try CardRules.checkNumber("4242 4242-4242 4242").digits == "4242424242424242")
        #expect(CardRules.sanitise("4242 -") == "4242")
        #expect(CardRules.sanitise("42.42") == nil)
        #expect(CardRules.grouped("4242424242424242") == "4242 4242 4242 4242")
        #expect(CardRules.grouped("378282246310005") == "3782 822463 10005")
        #expect(CardRules.grouped("42424") == "4242 4")
        #expect(CardRules.grouped("4000000000000000006") == "4000 0000 0000 0000 006")
    }

    @Test func luhn() {
        #expect(CardRules.passesLuhn("79927398713"))
        #expect(!CardRules.passesLuhn("79927398710"))
        #expect(!CardRules.passesLuhn(""))
        #expect(CardRules.passesLuhn("0"))
    }

    @Test func expiryIsValidThroughTheEndOfItsMonth() throws {
        #expect(try CardRules.checkExpiry(month: 11, year: 2026, today: Self.today) == YearMonth(year: 2026, month: 11))
        #expect(try CardRules.checkExpiry(month: 11, year: 26, today: Self.today) == YearMonth(year: 2026, month: 11))
        #expect(try CardRules.checkExpiry(month: 1, year: 2076, today: Self.today) == YearMonth(year: 2076, month: 1))
        let cases: [(Int, Int, CardCheckError.Code)] = [
            (10, 2026, .invalidExpiryMonth), (0, 2030, .invalidExpiryMonth), (13, 2030, .invalidExpiryMonth),
            (-1, 2030, .invalidExpiryMonth), (Int.max, 2030, .invalidExpiryMonth), (Int.min, 2030, .invalidExpiryMonth),
            (12, 2025, .invalidExpiryYear), (12, 25, .invalidExpiryYear), (12, 2077, .invalidExpiryYear), (12, 100, .invalidExpiryYear),
            (12, -1, .invalidExpiryYear), (12, Int.max, .invalidExpiryYear), (12, 10000, .invalidExpiryYear),
        ]
        for (month, year, code) in cases {
            do {
                _ = try CardRules.checkExpiry(month: month, year: year, today: Self.today)
                Issue.record("\(month)/\(year) was accepted")
            } catch {
                #expect(error.code == code, "\(month)/\(year)")
            }
        }
    }

    @Test func securityCodeLengthByBrand() throws {
        try CardRules.checkSecurityCode("123", brand: .visa)
        try CardRules.checkSecurityCode("1234", brand: .amex)
        try CardRules.checkSecurityCode("000", brand: .unknown)
        for (code, brand) in [("1234", CardBrand.visa), ("123", .amex), ("12", .mastercard), ("", .visa), ("12a", .visa), ("١٢٣", .visa)] {
            do {
                try CardRules.checkSecurityCode(code, brand: brand)
                Issue.record("\(code) was accepted for \(brand)")
            } catch {
                #expect(error.code == .invalidCVC)
                #expect(error.parameter == "cvc")
            }
        }
    }
}

@Suite("Money: fiat on the ledger, fees")
struct MoneyTests {
    @Test func minorUnitsMapToStroopsExactly() throws {
        #expect(try FiatConversion.stroops(minorUnits: 1099, exponent: 2) == 109_900_000)
        #expect(try FiatConversion.stroops(minorUnits: 1, exponent: 2) == 100_000)
        #expect(try FiatConversion.stroops(minorUnits: 5, exponent: 0) == 50_000_000)
        #expect(try FiatConversion.stroops(minorUnits: 0, exponent: 7) == 0)
        #expect(try FiatConversion.stroops(minorUnits: Int64.max / 100_000, exponent: 2) == (Int64.max / 100_000) * 100_000)
        #expect(throws: MoneyError.self) { try FiatConversion.stroops(minorUnits: Int64.max / 100_000 + 1, exponent: 2) }
        #expect(throws: MoneyError.self) { try FiatConversion.stroops(minorUnits: Int64.min, exponent: 2) }
        #expect(FiatConversion.minorUnits(stroops: 109_900_000, exponent: 2) == Int64(1099))
        #expect(FiatConversion.minorUnits(stroops: 109_900_001, exponent: 2) == nil)
        // Round trip over the whole range a payment may have.
        var random = SplitMix64(seed: 11)
        for _ in 0..<10_000 {
            let minor = Int64(random.next() % UInt64(FiatConversion.maxPaymentMinorUnits + 1))
            #expect(FiatConversion.minorUnits(stroops: try FiatConversion.stroops(minorUnits: minor, exponent: 2), exponent: 2) == minor)
        }
    }

    @Test func decimalAmounts() {
        #expect(FiatConversion.minorUnits(parsing: "10.99", exponent: 2) == Int64(1099))
        #expect(FiatConversion.minorUnits(parsing: "10", exponent: 2) == Int64(1000))
        #expect(FiatConversion.minorUnits(parsing: "0.5", exponent: 2) == Int64(50))
        #expect(FiatConversion.minorUnits(parsing: "999999.99", exponent: 2) == Int64(99_999_999))
        for text in ["", ".5", "10.", "10.999", "-1", "+1", "1e3", "1,00", "1 000", "1000000.00", "99999999999999999999", "١٠", "0x10", "10.9.9"] {
            #expect(FiatConversion.minorUnits(parsing: text, exponent: 2) == nil, "\(text)")
        }
        #expect(FiatConversion.format(minorUnits: 1099, exponent: 2) == "10.99")
        #expect(FiatConversion.format(minorUnits: 5, exponent: 2) == "0.05")
        #expect(FiatConversion.format(minorUnits: 5, exponent: 0) == "5")
    }

    @Test func currencies() {
        #expect(GatewayCurrency.named("EUR")?.assetCode == "EUR")
        #expect(GatewayCurrency.named("usd")?.assetCode == "USDC")
        #expect(GatewayCurrency.named("gbp") == nil)
        #expect(GatewayCurrency.named("") == nil)
    }

    @Test func feesRoundHalfUpAndNeverExceedTheAmount() {
        let fees = FeeSchedule()
        #expect(fees.fee(on: 1000, method: .card) == 15 + 25)
        #expect(fees.fee(on: 1010, method: .card) == 15 + 25)  // 15.15
        #expect(fees.fee(on: 1030, method: .card) == 15 + 25)  // 15.45
        #expect(fees.fee(on: 1070, method: .card) == 16 + 25)  // 16.05
        #expect(fees.fee(on: 1100, method: .card) == 17 + 25)  // 16.5 rounds up
        #expect(fees.fee(on: 50, method: .card) == 26)  // 0.75 rounds to 1
        #expect(fees.fee(on: 20, method: .card) == 20)  // capped at the amount
        #expect(fees.fee(on: 0, method: .card) == 0)
        #expect(fees.fee(on: FiatConversion.maxPaymentMinorUnits, method: .card) == 1_500_000 + 25)
        #expect(fees.fee(on: 1000, method: .ideal) == 29)
        #expect(fees.fee(on: 1000, method: .bancontact) == 39)
        #expect(fees.fee(on: 2, method: .bancontact) == 2)
        #expect(PaymentMethodType.bancontact.minimumMinorUnits == 2)
        #expect(PaymentMethodType.card.minimumMinorUnits == 50)
    }

    @Test func testAcquirerOutcomes() {
        #expect(TestAcquirer.outcome(forCardDigits: "4242424242424242") == .approved)
        #expect(TestAcquirer.outcome(forCardDigits: "5555555555554444") == .approved)
        #expect(TestAcquirer.outcome(forCardDigits: "378282246310005") == .approved)
        #expect(TestAcquirer.outcome(forCardDigits: "4000000000009995") == .declined(.insufficientFunds))
        #expect(TestAcquirer.outcome(forCardDigits: "4000000000003220") == .requiresAuthentication(challenge: true, afterwards: .approved))
        #expect(TestAcquirer.outcome(forCardDigits: "4000008260003178") == .requiresAuthentication(challenge: true, afterwards: .insufficientFunds))
        #expect(TestAcquirer.outcome(forCardDigits: "4000000000000408") == .noAnswer)
        // Asked again, the silent acquirer still says nothing once, then gives its approval.
        #expect(TestAcquirer.inquiry(.noAnswer, attempt: 1) == .noAnswer)
        #expect(TestAcquirer.inquiry(.noAnswer, attempt: 2) == .approved)
        #expect(TestAcquirer.inquiry(.declined(.lostCard), attempt: 1) == .declined(.lostCard))
        // Every magic number is itself a valid card number.
        for number in TestAcquirer.magicNumbers.keys {
            #expect((try? CardRules.checkNumber(number)) != nil, "\(number)")
        }
    }
}
