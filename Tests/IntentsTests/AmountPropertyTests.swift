import Intents
import PropertyBased
import Testing

/// For random exact amounts, written in every form the parser reads (digits in the locale's
/// marks, grouped or not, a leading decimal mark, symbols before and after, codes, names, words
/// in each language, cents said apart, scale words, coins), inside a sentence of that language:
/// the parsed amount is the one written, exactly.
@Suite("Amounts written every way read back exactly")
struct AmountPropertyTests {
    /// SplitMix64: a seeded source for one case.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: UInt64) -> UInt64 { next() % bound }
        mutating func chance() -> Bool { next() & 1 == 0 }
        mutating func pick<T>(_ items: [T]) -> T { items[Int(below(UInt64(items.count)))] }
    }

    static let sentences: [IntentLocale: String] = [
        .enUS: "Send {} to Jane for dinner", .enGB: "Pay Jane {}", .nlNL: "Stuur {} naar Jan voor de lunch",
        .deDE: "Überweise Lukas {} für das Essen", .frFR: "Envoie {} à Marie pour le dîner", .esES: "Envía {} a Juan para la cena",
    ]

    /// Digits the locale's way: "1,234.56", "1.234,56", "1 234,56", ungrouped, ".5".
    static func digits(_ whole: UInt64, _ cents: UInt64?, _ locale: IntentLocale, grouped: Bool) -> String {
        var text = String(whole)
        if grouped, whole >= 1000 {
            var groups: [String] = []
            var rest = text
            while rest.count > 3 {
                groups.insert(String(rest.suffix(3)), at: 0)
                rest = String(rest.dropLast(3))
            }
            groups.insert(rest, at: 0)
            text = groups.joined(separator: String(locale.groupingSeparator))
        }
        guard let cents else { return text }
        let fraction = cents < 10 ? "0\(cents)" : "\(cents)"
        if whole == 0, grouped { return String(locale.decimalSeparator) + fraction }  // ".05": a leading mark
        return text + String(locale.decimalSeparator) + fraction
    }

    // MARK: Numbers spelled in each language

    static func english(_ n: UInt64) -> String {
        let small = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(separator: " ").map(String.init)
        let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
        func below1000(_ n: UInt64) -> String {
            var parts: [String] = []
            if n >= 100 { parts.append(small[Int(n / 100)] + " hundred") }
            let rest = n % 100
            if rest > 0 {
                if n >= 100 { parts.append("and") }
                parts.append(rest < 20 ? small[Int(rest)] : tens[Int(rest / 10)] + (rest % 10 > 0 ? "-" + small[Int(rest % 10)] : ""))
            }
            return parts.joined(separator: " ")
        }
        if n == 0 { return "zero" }
        var parts: [String] = []
        for (scale, word) in [(UInt64(1_000_000_000), "billion"), (1_000_000, "million"), (1_000, "thousand")] where n / scale % 1000 > 0 {
            parts.append(below1000(n / scale % 1000) + " " + word)
        }
        if n % 1000 > 0 { parts.append(below1000(n % 1000)) }
        return parts.joined(separator: " ")
    }

    static func dutch(_ n: UInt64) -> String {
        let small = "nul een twee drie vier vijf zes zeven acht negen tien elf twaalf dertien veertien vijftien zestien zeventien achttien negentien".split(separator: " ").map(String.init)
        let tens = ["", "", "twintig", "dertig", "veertig", "vijftig", "zestig", "zeventig", "tachtig", "negentig"]
        func below100(_ n: UInt64) -> String {
            if n < 20 { return small[Int(n)] }
            guard n % 10 > 0 else { return tens[Int(n / 10)] }
            let unit = small[Int(n % 10)]
            return unit + (unit.hasSuffix("e") ? "ën" : "en") + tens[Int(n / 10)]
        }
        func below1000(_ n: UInt64) -> String {
            (n >= 100 ? (n / 100 == 1 ? "" : small[Int(n / 100)]) + "honderd" : "") + (n % 100 > 0 ? below100(n % 100) : "")
        }
        func belowMillion(_ n: UInt64) -> String {
            (n >= 1000 ? (n / 1000 == 1 ? "" : below1000(n / 1000)) + "duizend" : "") + (n % 1000 > 0 ? below1000(n % 1000) : "")
        }
        if n == 0 { return "nul" }
        let millions = n / 1_000_000
        return ([millions > 0 ? below1000(millions) + " miljoen" : nil, n % 1_000_000 > 0 ? belowMillion(n % 1_000_000) : nil] as [String?]).compactMap { $0 }.joined(separator: " ")
    }

    static func german(_ n: UInt64) -> String {
        let small = "null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn".split(separator: " ").map(String.init)
        let tens = ["", "", "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig", "neunzig"]
        func unit(_ n: UInt64) -> String { n == 1 ? "ein" : small[Int(n)] }
        func below100(_ n: UInt64) -> String {
            if n < 20 { return small[Int(n)] }
            return (n % 10 > 0 ? unit(n % 10) + "und" : "") + tens[Int(n / 10)]
        }
        func below1000(_ n: UInt64, alone: Bool = true) -> String {
            let rest = n % 100
            let last = rest == 1 && !alone ? "ein" : below100(rest)
            return (n >= 100 ? unit(n / 100) + "hundert" : "") + (rest > 0 ? last : "")
        }
        func belowMillion(_ n: UInt64) -> String {
            (n >= 1000 ? below1000(n / 1000, alone: false) + "tausend" : "") + (n % 1000 > 0 ? below1000(n % 1000) : "")
        }
        if n == 0 { return "null" }
        let millions = n / 1_000_000
        let head = millions == 1 ? "eine Million" : millions > 0 ? below1000(millions) + " Millionen" : nil
        return ([head, n % 1_000_000 > 0 ? belowMillion(n % 1_000_000) : nil] as [String?]).compactMap { $0 }.joined(separator: " ")
    }

    static func french(_ n: UInt64) -> String {
        let small = "zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize dix-sept dix-huit dix-neuf".split(separator: " ").map(String.init)
        let tens = ["", "", "vingt", "trente", "quarante", "cinquante", "soixante"]
        func below100(_ n: UInt64) -> String {
            switch n {
            case ..<20: return small[Int(n)]
            case 20..<70: return tens[Int(n / 10)] + (n % 10 == 1 ? " et un" : n % 10 > 0 ? "-" + small[Int(n % 10)] : "")
            case 70..<80: return "soixante" + (n == 71 ? " et onze" : "-" + small[Int(n - 60)])
            case 80: return "quatre-vingts"
            default: return "quatre-vingt-" + small[Int(n - 80)]
            }
        }
        func below1000(_ n: UInt64, multiplier: Bool = false) -> String {
            let hundreds = n / 100, rest = n % 100
            var text = hundreds == 0 ? "" : hundreds == 1 ? "cent" : small[Int(hundreds)] + " cent" + (rest == 0 && !multiplier ? "s" : "")
            if rest > 0 {
                var last = below100(rest)
                if multiplier, last.hasSuffix("vingts") { last.removeLast() }
                text += (text.isEmpty ? "" : " ") + last
            }
            return text
        }
        if n == 0 { return "zéro" }
        var parts: [String] = []
        let millions = n / 1_000_000, thousands = n / 1000 % 1000
        if millions > 0 { parts.append(below1000(millions) + (millions == 1 ? " million" : " millions")) }
        if thousands > 0 { parts.append(thousands == 1 ? "mille" : below1000(thousands, multiplier: true) + " mille") }
        if n % 1000 > 0 { parts.append(below1000(n % 1000)) }
        return parts.joined(separator: " ")
    }

    static func spanish(_ n: UInt64) -> String {
        let small = "cero un dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis diecisiete dieciocho diecinueve veinte veintiún veintidós veintitrés veinticuatro veinticinco veintiséis veintisiete veintiocho veintinueve".split(separator: " ").map(String.init)
        let tens = ["", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa"]
        let hundreds = ["", "ciento", "doscientos", "trescientos", "cuatrocientos", "quinientos", "seiscientos", "setecientos", "ochocientos", "novecientos"]
        func below100(_ n: UInt64) -> String {
            n < 30 ? small[Int(n)] : tens[Int(n / 10)] + (n % 10 > 0 ? " y " + small[Int(n % 10)] : "")
        }
        func below1000(_ n: UInt64) -> String {
            if n == 100 { return "cien" }
            let head = hundreds[Int(n / 100)]
            return [head, n % 100 > 0 ? below100(n % 100) : ""].filter { !$0.isEmpty }.joined(separator: " ")
        }
        if n == 0 { return "cero" }
        var parts: [String] = []
        let millions = n / 1_000_000, thousands = n / 1000 % 1000
        if millions > 0 { parts.append(millions == 1 ? "un millón" : below1000(millions) + " millones") }
        if thousands > 0 { parts.append(thousands == 1 ? "mil" : below1000(thousands) + " mil") }
        if n % 1000 > 0 { parts.append(below1000(n % 1000)) }
        return parts.joined(separator: " ")
    }

    static func spelled(_ n: UInt64, _ language: IntentLanguage) -> String {
        switch language {
        case .en: english(n)
        case .nl: dutch(n)
        case .de: german(n)
        case .fr: french(n)
        case .es: spanish(n)
        }
    }

    /// The currency's name after a number in each language, and its code, symbol and cents.
    static let euroName: [IntentLanguage: String] = [.en: "euros", .nl: "euro", .de: "Euro", .fr: "euros", .es: "euros"]
    static let centName: [IntentLanguage: String] = [.en: "cents", .nl: "cent", .de: "Cent", .fr: "centimes", .es: "céntimos"]
    static let and: [IntentLanguage: String] = [.en: "and", .nl: "en", .de: "und", .fr: "et", .es: "y"]
    static let million: [IntentLanguage: String] = [.en: "million", .nl: "miljoen", .de: "Millionen", .fr: "millions", .es: "millones"]

    /// One random amount in one random form: the text and the exact amount it says.
    static func example(_ random: inout Random) -> (locale: IntentLocale, text: String, amount: String, currency: String) {
        let locale = random.pick(IntentLocale.allCases)
        let language = locale.language
        let (euro, name) = locale == .enUS ? ("USD", "dollars") : locale == .enGB ? ("GBP", "pounds") : ("EUR", euroName[language]!)
        let symbol = euro == "USD" ? "$" : euro == "GBP" ? "£" : "€"
        let whole = random.pick([random.below(100), random.below(10_000), random.below(1_000_000_000_000)])
        let cents: UInt64? = random.chance() ? random.below(100) : nil
        let exact = "\(whole)" + (cents.map { $0 < 10 ? ".0\($0)" : ".\($0)" } ?? "")
        func normalized(_ text: String) -> String {
            guard text.contains(".") else { return text }
            var trimmed = text
            while trimmed.hasSuffix("0") { trimmed.removeLast() }
            if trimmed.hasSuffix(".") { trimmed.removeLast() }
            return trimmed
        }
        let number = digits(whole, cents, locale, grouped: random.chance())
        let spoken = whole < 1_000_000_000 ? spelled(whole, language) : nil
        switch random.below(8) {
        case 0: return (locale, symbol + number, normalized(exact), euro)
        case 1: return (locale, number + " " + symbol, normalized(exact), euro)
        case 2: return (locale, euro + " " + number, normalized(exact), euro)
        case 3: return (locale, number + " " + name, normalized(exact), euro)
        case 4 where spoken != nil:
            // Words, and the cents said apart: "twenty dollars and five cents", "vingt euros cinquante".
            guard let cents, cents > 0 else { return (locale, spoken! + " " + name, "\(whole)", euro) }
            let centsSaid = random.chance() ? spelled(cents, language) : "\(cents)"
            let text = random.chance() ? "\(spoken!) \(name) \(and[language]!) \(centsSaid) \(euro == "EUR" ? centName[language]! : "cents")" : "\(spoken!) \(name) \(centsSaid)"
            return (locale, text, normalized(exact), euro)
        case 5:
            // A scale word after digits: "4,7 miljoen euro", "2.25 million dollars".
            let tenths = random.below(1000)
            let value = digits(tenths / 100, tenths % 100, locale, grouped: false)
            let exactValue = UInt64(tenths) * 10_000
            return (locale, "\(value) \(million[language]!) \(name)", "\(exactValue)", euro)
        case 6 where language == .en && locale == .enUS:
            // Coins: "seven quarters", "12 dimes".
            let count = random.below(500) + 1
            let (coin, cents) = random.pick([("quarters", UInt64(25)), ("dimes", 10), ("nickels", 5), ("pennies", 1)])
            let total = count * cents
            let said = random.chance() ? english(count) : "\(count)"
            return (locale, "\(said) \(coin)", normalized("\(total / 100).\(total % 100 < 10 ? "0" : "")\(total % 100)"), euro)
        default:
            return (locale, number + " " + euro, normalized(exact), euro)
        }
    }

    @Test func everyFormReadsBackExactly() async {
        await propertyCheck(count: 3000, input: Gen.uint64()) { seed in
            var random = Random(state: seed)
            let (locale, text, amount, currency) = Self.example(&random)
            let sentence = Self.sentences[locale]!.replacing("{}", with: text)
            let parsed = UtteranceParser(locale: locale).parse(sentence)
            #expect(parsed.amount.map { "\($0.value)" } == amount && parsed.currency == currency && parsed.amount?.exactness == .exact && parsed.problems.isEmpty,
                    "[\(locale.rawValue)] \"\(sentence)\": expected \(amount) \(currency), got \(parsed.amount.map { "\($0.value) \($0.exactness)" } ?? "nothing") \(parsed.currency ?? "-") \(parsed.problems.map(\.code))")
        }
    }

    /// The spellers themselves, against numbers everyone knows.
    @Test func theSpellersSpellAsPeopleWrite() {
        #expect(Self.english(2345) == "two thousand three hundred and forty-five")
        #expect(Self.dutch(42) == "tweeënveertig" && Self.dutch(2_350) == "tweeduizenddriehonderdvijftig" && Self.dutch(1_000_001) == "een miljoen een")
        #expect(Self.german(22) == "zweiundzwanzig" && Self.german(1_001) == "eintausendeins" && Self.german(2_000_000) == "zwei Millionen")
        #expect(Self.french(71) == "soixante et onze" && Self.french(99) == "quatre-vingt-dix-neuf" && Self.french(80_000) == "quatre-vingt mille" && Self.french(200) == "deux cents")
        #expect(Self.spanish(21) == "veintiún" && Self.spanish(105) == "ciento cinco" && Self.spanish(1_500) == "mil quinientos" && Self.spanish(2_000_000) == "dos millones")
    }
}
