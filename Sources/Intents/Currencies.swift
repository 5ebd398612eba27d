/// A currency the parser knows: its code, its decimals, and how people write and say it.
public struct Currency: Hashable, Sendable {
    public let code: String
    /// Decimals of the minor unit.
    public let exponent: Int
    /// Symbols written before or after the number ("€", "US$"), as folded text.
    let symbols: [String]
    /// Names said after the number ("euro", "euros", "kuwaiti dinar"), folded.
    let names: [String]
    /// Names of the minor unit ("cent", "pence"), folded.
    let minorNames: [String]
}

/// A currency that the words leave open: "$" and "dollars" are several currencies.
public enum AmbiguousCurrency: String, Hashable, Sendable {
    case dollar, dinar, riyal, rial
    /// "¥": the yen or the yuan, as the locale says.
    case yen
    /// The money of where one is, said in slang: "a grand", "a tenner", "een tientje", "3 balles".
    case local
}

/// The currency an amount is in, as far as the words say.
public enum MoneyUnit: Hashable, Sendable {
    case currency(String)
    case ambiguous(AmbiguousCurrency)
    /// A number alone: the currency is not said at all.
    case unspecified
}

enum CurrencyTable {
    static let all: [Currency] = [
        Currency(code: "USD", exponent: 2, symbols: ["usd", "us$", "us $"], names: ["us dollar", "us dollars", "american dollar", "american dollars", "us-dollar", "amerikaanse dollar", "dolar estadounidense", "dolares estadounidenses", "dollar americain", "dollars americains"], minorNames: []),
        Currency(code: "EUR", exponent: 2, symbols: ["eur", "€", "€ur"], names: ["euro", "euros", "euro's"], minorNames: ["eurocent", "eurocents", "centime", "centimes", "centimo", "centimos", "euro-cent"]),
        Currency(code: "GBP", exponent: 2, symbols: ["gbp", "£"], names: ["pound", "pounds", "pound sterling", "pounds sterling", "quid", "pond", "ponden", "britse pond", "pfund", "britische pfund", "livre", "livres", "livre sterling", "livres sterling", "libra", "libras", "libra esterlina", "libras esterlinas"], minorNames: ["pence"]),
        Currency(code: "CAD", exponent: 2, symbols: ["cad", "ca$", "ca $", "c$"], names: ["canadian dollar", "canadian dollars"], minorNames: []),
        Currency(code: "AUD", exponent: 2, symbols: ["aud", "a$", "au$"], names: ["australian dollar", "australian dollars"], minorNames: []),
        Currency(code: "JPY", exponent: 0, symbols: ["jpy", "円"], names: ["yen", "yenes", "japanese yen", "japanse yen", "japanische yen"], minorNames: []),
        Currency(code: "CNY", exponent: 2, symbols: ["cny", "rmb", "元"], names: ["yuan", "yuans", "yuanes", "renminbi", "chinese yuan", "yuan renminbi"], minorNames: ["fen", "jiao"]),
        Currency(code: "CHF", exponent: 2, symbols: ["chf"], names: ["swiss franc", "swiss francs", "franc", "francs", "zwitserse frank", "zwitserse franken", "franken", "schweizer franken", "franc suisse", "francs suisses", "franco suizo", "francos suizos", "franco", "francos"], minorNames: ["rappen"]),
        Currency(code: "INR", exponent: 2, symbols: ["inr", "₹", "rs", "rs."], names: ["rupee", "rupees", "roepie", "roepies", "rupie", "rupien", "roupie", "roupies", "rupia", "rupias"], minorNames: ["paisa", "paise"]),
        Currency(code: "KWD", exponent: 3, symbols: ["kwd"], names: ["kuwaiti dinar", "kuwaiti dinars"], minorNames: ["fils"]),
        Currency(code: "LBP", exponent: 2, symbols: ["lbp"], names: ["lebanese pound", "lebanese pounds"], minorNames: ["piastre", "piastres"]),
        Currency(code: "EGP", exponent: 2, symbols: ["egp"], names: ["egyptian pound", "egyptian pounds", "egyptianpound", "egyptianpounds"], minorNames: ["piastre", "piastres"]),
        Currency(code: "QAR", exponent: 2, symbols: ["qar"], names: ["qatari riyal", "qatari riyals"], minorNames: ["dirham", "dirhams"]),
        Currency(code: "SAR", exponent: 2, symbols: ["sar"], names: ["saudi riyal", "saudi riyals", "saudiriyal", "saudiriyals"], minorNames: ["halala", "halalas"]),
        Currency(code: "BGN", exponent: 2, symbols: ["bgn"], names: ["lev", "leva"], minorNames: ["stotinki"]),
        Currency(code: "MYR", exponent: 2, symbols: ["myr", "rm"], names: ["ringgit", "ringgits", "malaysia ringgit", "malaysia ringgits", "malaysian ringgit", "malaysian ringgits"], minorNames: ["sen", "sens"]),
        Currency(code: "ILS", exponent: 2, symbols: ["ils", "₪"], names: ["shekel", "shekels", "new shekel", "new shekels"], minorNames: ["agora", "agorot"]),
        Currency(code: "XLM", exponent: 7, symbols: ["xlm"], names: ["lumen", "lumens"], minorNames: ["stroop", "stroops"]),
    ]

    static let byCode: [String: Currency] = Dictionary(uniqueKeysWithValues: all.map { ($0.code, $0) })

    /// Symbols and ISO codes written next to the number, longest first when matching.
    static let symbols: [String: MoneyUnit] = {
        var table: [String: MoneyUnit] = ["$": .ambiguous(.dollar), "¥": .ambiguous(.yen), "\u{FFE5}": .ambiguous(.yen)]
        for currency in all { for symbol in currency.symbols { table[symbol] = .currency(currency.code) } }
        return table
    }()

    /// Names said after the number.
    static let names: [String: MoneyUnit] = {
        var table: [String: MoneyUnit] = [
            "dollar": .ambiguous(.dollar), "dollars": .ambiguous(.dollar), "dolar": .ambiguous(.dollar), "dolares": .ambiguous(.dollar),
            "buck": .ambiguous(.dollar), "bucks": .ambiguous(.dollar),
            "dinar": .ambiguous(.dinar), "dinars": .ambiguous(.dinar),
            "riyal": .ambiguous(.riyal), "riyals": .ambiguous(.riyal),
            "rial": .ambiguous(.rial), "rials": .ambiguous(.rial),
        ]
        for currency in all { for name in currency.names { table[name] = .currency(currency.code) } }
        return table
    }()

    /// Minor-unit names: what a hundredth (or thousandth) of which currency they are.
    static let minorNames: [String: MoneyUnit] = {
        // A penny is a cent outside Britain (the parser makes it GBP in en_GB).
        var table: [String: MoneyUnit] = [
            "cent": .ambiguous(.dollar), "cents": .ambiguous(.dollar), "c": .ambiguous(.dollar), "¢": .ambiguous(.dollar),
            "penny": .ambiguous(.dollar), "pennies": .ambiguous(.dollar), "p": .currency("GBP"),
            "centavo": .ambiguous(.dollar), "centavos": .ambiguous(.dollar),
        ]
        for currency in all { for name in currency.minorNames { table[name] = .currency(currency.code) } }
        return table
    }()

    /// A phrase as the parser sees it: its tokens' folded text joined by spaces ("US$" is "us $").
    static func key(_ phrase: String) -> String {
        Tokenizer.tokens(Array(phrase.unicodeScalars)).map(\.folded).joined(separator: " ")
    }

    private static func keyed(_ table: [String: MoneyUnit]) -> [String: MoneyUnit] {
        Dictionary(table.map { (key($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The phrases of more than one token of a table, by their first token, longest first.
    static func phrases(_ table: [String: MoneyUnit]) -> [String: [([String], MoneyUnit)]] {
        var phrases: [String: [([String], MoneyUnit)]] = [:]
        for (key, unit) in table {
            let words = key.split(separator: " ").map(String.init)
            if words.count > 1 { phrases[words[0], default: []].append((words, unit)) }
        }
        return phrases.mapValues { $0.sorted { $0.0.count > $1.0.count } }
    }

    static let symbolPhrases = phrases(symbolKeys)
    static let namePhrases = phrases(nameKeys)
    static let minorNamePhrases = phrases(minorNameKeys)

    static let symbolKeys = keyed(symbols)
    static let nameKeys = keyed(names)
    static let minorNameKeys = keyed(minorNames)
}

/// The locales the parser knows: they decide the language, the decimal mark, and what a bare
/// "$" or "¥" means.
public enum IntentLocale: String, Hashable, Sendable, CaseIterable {
    case enUS = "en_US", enGB = "en_GB", nlNL = "nl_NL", deDE = "de_DE", frFR = "fr_FR", esES = "es_ES"

    public var language: IntentLanguage {
        switch self {
        case .enUS, .enGB: .en
        case .nlNL: .nl
        case .deDE: .de
        case .frFR: .fr
        case .esES: .es
        }
    }

    /// The locale for a language tag ("nl", "de-DE", "fr_FR", "en-GB"), or nil.
    public init?(tag: String) {
        let parts = tag.replacing("-", with: "_").split(separator: "_").map(String.init)
        guard let first = parts.first?.lowercased() else { return nil }
        if parts.count >= 2, let exact = IntentLocale(rawValue: first + "_" + parts[1].uppercased()) {
            self = exact
            return
        }
        switch first {
        case "en": self = parts.count >= 2 && ["GB", "UK", "IE"].contains(parts[1].uppercased()) ? .enGB : .enUS
        case "nl": self = .nlNL
        case "de": self = .deDE
        case "fr": self = .frFR
        case "es": self = .esES
        default: return nil
        }
    }

    /// The decimal mark: "12.50" in English, "12,50" elsewhere.
    public var decimalSeparator: Character { language == .en ? "." : "," }
    /// The thousands separator: "1,234" in English, "1.234" in Dutch, German and Spanish, a
    /// space in French ("1 234", where "1.234" is read too).
    public var groupingSeparator: Character { language == .en ? "," : language == .fr ? " " : "." }

    /// The currency a bare "$" or "dollars" means here, or nil when the user must be asked.
    public var dollar: String? { self == .enUS ? "USD" : nil }

    /// The currency "¥" means here: the yen in these locales (a Chinese locale would say the yuan).
    public var yen: String? { "JPY" }

    /// The money of this place: what slang ("a grand", "een tientje") and a number said alone mean.
    public var localCurrency: String {
        switch self {
        case .enUS: "USD"
        case .enGB: "GBP"
        default: "EUR"
        }
    }

    /// The dollars to choose from when the locale leaves a "$" open.
    public static let dollars = ["USD", "CAD", "AUD"]
}
