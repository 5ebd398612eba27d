/// An amount an utterance names, exactly as said: its number and the currency the words give.
public struct ParsedAmount: Hashable, Sendable {
    /// How exact the words are.
    public enum Exactness: Hashable, Sendable {
        case exact
        /// "about 20 dollars", "ongeveer 20 euro", "unos 20 euros".
        case approximate
        /// "under 20 dollars", "hooguit 20 euro"; "at least 20 dollars", "mindestens 20 Euro".
        case atMost, atLeast
        /// "between 10 and 20 dollars": `value` is the low end, this the high one.
        case range(DecimalNumber)
    }

    public var value: DecimalNumber
    public var unit: MoneyUnit
    /// The words it came from ("twenty five euros").
    public var text: String
    public var exactness: Exactness = .exact

    public init(value: DecimalNumber, unit: MoneyUnit, text: String, exactness: Exactness = .exact) {
        self.value = value
        self.unit = unit
        self.text = text
        self.exactness = exactness
    }
}

/// Something the parser did not understand, instead of a guess.
public struct ParseProblem: Hashable, Sendable {
    /// Stable: `too_long`, `unreadable_number`, `unreadable_amount`, `amount_too_large`,
    /// `several_amounts`, `approximate_amount`, `amount_range`, `amount_bound`, `empty`,
    /// `language_unsupported`.
    public var code: String
    /// In English, for logs and `--parse`; ``Phrasebook/problem(_:)`` says it in any language.
    public var detail: String
    /// The words it is about ("12.50", "50 20 dollars"), or "" when none.
    public var words: String = ""

    /// Whether it leaves no amount to pay as it stands (it is asked for again): digits or words
    /// not read exactly, several amounts, too large.
    public var leavesNoAmount: Bool {
        ["unreadable_number", "unreadable_amount", "several_amounts", "amount_too_large"].contains(code)
    }
}

/// What an utterance asks for, parameter by parameter, before anything is resolved.
public struct ParsedUtterance: Hashable, Sendable {
    public enum Intent: String, Sendable {
        case send, request, balance, unknown
    }

    public var intent: Intent
    /// The person to pay (send) or to ask (request), as said: a name, or a handle (see
    /// ``PayeeHandle``).
    public var payee: String?
    public var amount: ParsedAmount?
    public var note: String?
    /// The app named with "with ..."/"using ...", dropped from the rest.
    public var app: String?
    public var locale: IntentLocale
    public var problems: [ParseProblem] = []
    /// Words that had no part in the parse.
    public var unrecognized: [String] = []

    /// The amount's ISO code, or nil when the words leave it open (a "$" outside the US, "bucks"
    /// in Britain, no currency at all).
    public var currency: String? {
        switch amount?.unit {
        case .currency(let code): code
        case .ambiguous(.dollar): locale.dollar
        case .ambiguous(.yen): locale.yen
        case .ambiguous(.local): locale.localCurrency
        default: nil
        }
    }
}

/// Reads payments asked for in words, in English, Dutch, German, French and Spanish: "Send $50
/// to Jane for dinner", "Stuur Jan 12,50 euro voor de lunch", "Überweise Lukas 20 Euro für das
/// Abendessen", "Envoie 20 euros à Marie pour le dîner", "Envía 20 euros a Juan para la cena",
/// "what's my balance". Written by hand: Foundation on Linux reads "12,50" as 12 and "twenty
/// five" as 2005. An amount it cannot read exactly is reported, never guessed.
public struct UtteranceParser: Sendable {
    public var locale: IntentLocale {
        didSet {
            shared = Lexicon.of(locale.language)
            tokenizerOptions = Self.tokenizerOptions(locale, lexicon, extraCodes)
        }
    }
    /// Names to recognise whole (contacts' names and aliases), as INVocabulary registers them:
    /// a registered name may hold words that would otherwise end a name ("Ben and Jerry").
    public var vocabulary: [String] {
        didSet { vocabularyWords = Self.folded(vocabulary) }
    }
    /// Apps that "with <app>" names (always dropped after "using").
    public var appNames: [String] {
        didSet { appWords = Self.folded(appNames) }
    }
    /// Codes of other currencies the app pays (ledger assets such as "SRT"), read as ISO codes are.
    public var currencyCodes: [String] {
        didSet {
            extraCodes = Self.codes(currencyCodes)
            tokenizerOptions = Self.tokenizerOptions(locale, lexicon, extraCodes)
        }
    }
    private(set) var vocabularyWords: [[String]]
    private(set) var appWords: [[String]]
    private(set) var extraCodes: [String: String]
    private(set) var shared: Lexicon.Shared
    var lexicon: Lexicon { shared.lexicon }

    /// How this parser's text splits (made again when the locale or the codes change).
    private(set) var tokenizerOptions: TokenizerOptions

    /// Words stay apart from digits after them only when they are a currency ("RM42", "SRT5";
    /// "Kiran1" is one word).
    private static func tokenizerOptions(_ locale: IntentLocale, _ lexicon: Lexicon, _ extraCodes: [String: String]) -> TokenizerOptions {
        TokenizerOptions(
            splitsBeforeDigits: { word in
                CurrencyTable.symbolKeys[word] != nil || CurrencyTable.nameKeys[word] != nil || CurrencyTable.minorNameKeys[word] != nil
                    || extraCodes[word] != nil
            },
            elisions: lexicon.elisions, spaceGroupsDigits: locale.groupingSeparator == " ")
    }

    /// Longer text is refused (`too_long`) rather than read.
    public static let maxLength = 2_000

    public init(locale: IntentLocale = .enUS, vocabulary: [String] = [], appNames: [String] = ["Tender"], currencyCodes: [String] = []) {
        self.locale = locale
        self.vocabulary = vocabulary
        self.appNames = appNames
        self.currencyCodes = currencyCodes
        vocabularyWords = Self.folded(vocabulary)
        appWords = Self.folded(appNames)
        extraCodes = Self.codes(currencyCodes)
        shared = Lexicon.of(locale.language)
        tokenizerOptions = Self.tokenizerOptions(locale, shared.lexicon, extraCodes)
    }

    /// Folded code → code, for codes of 3 to 12 letters and digits the tables do not know.
    private static func codes(_ codes: [String]) -> [String: String] {
        var table: [String: String] = [:]
        for code in codes where (3...12).contains(code.count) && code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            let key = code.lowercased()
            if CurrencyTable.symbolKeys[key] == nil, CurrencyTable.nameKeys[key] == nil { table[key] = code.uppercased() }
        }
        return table
    }

    /// The decimals of a currency the parser knows (2 for USD, 0 for JPY, 7 for XLM), or nil.
    public static func exponent(of code: String) -> Int? { CurrencyTable.byCode[code]?.exponent }

    private static func folded(_ phrases: [String]) -> [[String]] {
        phrases.map(Tokenizer.foldedWords).filter { !$0.isEmpty }.sorted { $0.count > $1.count }
    }

    /// Reads an utterance in the language of a tag ("nl", "de-DE", "fr_FR"): the library's way to
    /// say each utterance's language.
    public func parse(_ text: String, languageTag: String) -> ParsedUtterance {
        guard let locale = IntentLocale(tag: languageTag) else {
            var result = ParsedUtterance(intent: .unknown, locale: locale)
            result.problems.append(ParseProblem(code: "language_unsupported", detail: "\"\(languageTag)\" is not a language I read (en, nl, de, fr, es)"))
            return result
        }
        var parser = self
        parser.locale = locale
        return parser.parse(text)
    }

    public func parse(_ text: String) -> ParsedUtterance {
        var result = ParsedUtterance(intent: .unknown, locale: locale)
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(min(text.unicodeScalars.count, Self.maxLength + 1))
        for scalar in text.unicodeScalars {
            scalars.append(scalar)
            if scalars.count > Self.maxLength {
                result.problems.append(ParseProblem(code: "too_long", detail: "the text has more than \(Self.maxLength) characters"))
                return result
            }
        }
        let tokens = Tokenizer.tokens(scalars, options: tokenizerOptions)
        guard !tokens.isEmpty else {
            result.problems.append(ParseProblem(code: "empty", detail: "there is nothing to read"))
            return result
        }
        var reading = Reading(tokens: tokens, scalarCount: scalars.count, text: text, parser: self)
        reading.run(into: &result)
        return result
    }
}

/// One parse's working state.
private struct Reading {
    var tokens: [Token]
    let parser: UtteranceParser
    let shared: Lexicon.Shared
    var lex: Lexicon { shared.lexicon }
    var numbers: NumberReader { shared.numbers }
    var words: [String]
    /// Which tokens some part of the parse has taken.
    var taken: [Bool]

    /// The text's UTF-8, and where each scalar starts in it: the words said are cut from it.
    let utf8: [UInt8]
    let offsets: [Int]

    init(tokens: [Token], scalarCount: Int, text: String, parser: UtteranceParser) {
        self.tokens = tokens
        utf8 = Array(text.utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(scalarCount + 1)
        var offset = 0
        for scalar in text.unicodeScalars {
            offsets.append(offset)
            offset += UTF8.width(scalar)
        }
        offsets.append(offset)
        self.offsets = offsets
        self.parser = parser
        shared = parser.shared
        words = []
        taken = []
        joinPhones()
        if parser.locale.groupingSeparator == " " { joinSpaceGroups() }
        dropAbbreviationDots()
        words = self.tokens.map(\.folded)
        taken = Array(repeating: false, count: self.tokens.count)
    }

    func original(_ range: Range<Int>) -> String {
        guard !range.isEmpty else { return "" }
        return String(decoding: utf8[offsets[tokens[range.lowerBound].start]..<offsets[tokens[range.upperBound - 1].end]], as: UTF8.self)
    }

    // MARK: Handles and digit groups

    func isDigitsOnly(_ index: Int) -> Bool {
        index < tokens.count && tokens[index].kind == .number && tokens[index].folded.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    /// Whether a currency said after a number stands at `index`: "10$", "20 euros", "42MYR".
    func unitFollows(_ index: Int) -> Bool {
        guard index < tokens.count else { return false }
        let word = tokens[index].folded
        if CurrencyTable.nameKeys[word] != nil || CurrencyTable.minorNameKeys[word] != nil || parser.extraCodes[word] != nil { return true }
        guard CurrencyTable.symbolKeys[word] != nil else { return false }
        // A symbol before the next number is that number's ("555-1234 $20").
        return !tokens[index].spaced || !(index + 1 < tokens.count && tokens[index + 1].kind == .number)
    }

    /// Phone numbers become one handle: "+31 6 1234 5678", "555-123-4567", "(555) 123-4567",
    /// "555.123.4567". Groups after a "+" or "(" may be spaced; others need "-" or "." between
    /// them. At least 7 digits, at most 15; a group followed by a currency is an amount.
    mutating func joinPhones() {
        var joined: [Token] = []
        var index = 0
        while index < tokens.count {
            if let (end, digits) = phone(at: index) {
                let text = (tokens[index].folded == "+" ? "+" : "") + digits
                joined.append(Token(kind: .handle, folded: text, start: tokens[index].start, end: tokens[end - 1].end, spaced: tokens[index].spaced))
                index = end
            } else {
                joined.append(tokens[index])
                index += 1
            }
        }
        tokens = joined
    }

    func phone(at start: Int) -> (end: Int, digits: String)? {
        var index = start
        var open = false
        if tokens[index].folded == "+", isDigitsOnly(index + 1), !tokens[index + 1].spaced {
            open = true
            index += 1
        } else if tokens[index].folded == "(", isDigitsOnly(index + 1), index + 2 < tokens.count, tokens[index + 2].folded == ")" {
            open = true
            index += 1
        }
        guard index < tokens.count, tokens[index].kind == .number else { return nil }
        // One token: 555.123.4567
        let first = tokens[index].folded
        if !isDigitsOnly(index) {
            let parts = first.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts.map(\.count) == [3, 3, 4], !unitFollows(index + 1) else { return nil }
            return (index + 1, parts.joined())
        }
        var digits = first
        var groups = 1
        var separated = open
        var end = index + 1
        if unitFollows(end) { return nil }
        while end < tokens.count {
            var next = end
            if ["-", ".", ")"].contains(tokens[next].folded), !tokens[next].spaced || tokens[next].folded == ")" {
                next += 1
                separated = true
            } else if !open {
                break
            }
            guard isDigitsOnly(next), next == end || !tokens[next].spaced || tokens[next - 1].folded == ")",
                  next != end || tokens[next].spaced else { break }
            if unitFollows(next + 1) || digits.count + tokens[next].folded.count > 15 { break }
            digits += tokens[next].folded
            groups += 1
            end = next + 1
        }
        guard separated, digits.count >= 7, groups >= 2 || (open && digits.count >= 8) else { return nil }
        return (end, digits)
    }

    /// Abbreviations keep their dot out of the way: "ca. 40 Euro", "2 Mio. Euro", "10 Tsd. €".
    static let abbreviations: Set<String> = ["ca", "approx", "mio", "mrd", "tsd", "max", "min", "bzw", "env", "aprox", "ong", "st"]

    mutating func dropAbbreviationDots() {
        var kept: [Token] = []
        for token in tokens {
            if token.folded == ".", !token.spaced, let last = kept.last, last.kind == .word, Self.abbreviations.contains(last.folded) { continue }
            kept.append(token)
        }
        tokens = kept
    }

    /// French groups digits with spaces: "20 000 euros", "1 234,56 €".
    mutating func joinSpaceGroups() {
        var joined: [Token] = []
        for token in tokens {
            if token.kind == .number, token.spaced, let last = joined.last, last.kind == .number,
               last.folded.utf8.count <= 3 || last.folded.contains(" "), !last.folded.contains(","),
               token.folded.split(separator: ",").first?.count == 3, token.folded.first != "," {
                joined[joined.count - 1].folded += " " + token.folded
                joined[joined.count - 1].end = token.end
            } else {
                joined.append(token)
            }
        }
        tokens = joined
    }

    // MARK: Amounts

    /// The table entry that `tokens[index...]` starts with, longest first, and its length.
    func match(_ table: [String: MoneyUnit], _ phrases: [String: [([String], MoneyUnit)]], at index: Int) -> (MoneyUnit, Int)? {
        guard index < tokens.count, tokens[index].kind != .handle else { return nil }
        if let candidates = phrases[words[index]] {
            for (phrase, unit) in candidates where index + phrase.count <= tokens.count {
                if (1..<phrase.count).allSatisfy({ words[index + $0] == phrase[$0] }) { return (unit, phrase.count) }
            }
        }
        return table[words[index]].map { ($0, 1) }
    }

    /// A symbol, an ISO code, or one of the app's own currency codes at `index`.
    func symbol(at index: Int) -> (MoneyUnit, Int)? {
        if index < tokens.count, let code = parser.extraCodes[words[index]] { return (.currency(code), 1) }
        return match(CurrencyTable.symbolKeys, CurrencyTable.symbolPhrases, at: index)
    }

    /// A currency's name at `index`, with the language's slang for its own money ("3 balles").
    func name(at index: Int) -> (MoneyUnit, Int)? {
        if index < tokens.count, lex.slangUnits.contains(words[index]) { return (.ambiguous(.local), 1) }
        return match(CurrencyTable.nameKeys, CurrencyTable.namePhrases, at: index)
    }

    func minorName(at index: Int) -> (MoneyUnit, Int)? {
        guard index < tokens.count else { return nil }
        let word = words[index]
        if parser.locale == .enGB, word == "penny" || word == "pennies" { return (.currency("GBP"), 1) }
        // A cent is a euro's outside English.
        if parser.locale.language != .en, word == "cent" || word == "cents" || word == "ct" { return (.currency("EUR"), 1) }
        return match(CurrencyTable.minorNameKeys, CurrencyTable.minorNamePhrases, at: index)
    }

    static func exponent(_ unit: MoneyUnit) -> Int {
        if case .currency(let code) = unit { return CurrencyTable.byCode[code]?.exponent ?? 2 }
        return 2
    }

    /// Whether the words at `index` name money a number can be counted in (after "a": "a dollar").
    func isMoneyWord(_ index: Int) -> Bool {
        guard index < tokens.count else { return false }
        let word = words[index]
        return name(at: index) != nil || symbol(at: index) != nil || minorName(at: index) != nil || lex.coins[word] != nil
            || lex.slangAmounts[word] != nil || lex.slangScales[word] != nil || lex.half.contains(word)
    }

    /// "a"/"an" (and the articles of other languages that are not numbers themselves) count as
    /// one before "hundred", a scale or money: "a hundred", "a dollar".
    func isOne(_ index: Int) -> Bool {
        guard lex.articles.contains(words[index]), index + 1 < tokens.count else { return false }
        let next = words[index + 1]
        if lex.numbers.hundred.contains(next) || (lex.numbers.scales[next] != nil && next.utf8.count > 2) { return true }
        guard isMoneyWord(index + 1) else { return false }
        // "a dollar" is one; "a US$4.7 billion" is not: there the number follows the symbol.
        let length = (symbol(at: index + 1) ?? name(at: index + 1))?.1 ?? 1
        let after = index + 1 + length
        return !(after < tokens.count && (tokens[after].kind == .number || lex.numbers.isNumberWord(words[after])))
    }

    /// A number at `index`: digits (read by the locale), words, or halves ("half a million",
    /// "anderhalf", "one and a half"), how many tokens it took, and the scale the words ended on
    /// ("un millón": a million, so that "y medio" after it is half of that). Problems for digits
    /// that cannot be read.
    func number(at index: Int, problems: inout [ParseProblem]) -> (value: DecimalNumber, length: Int, lastScale: UInt64?)? {
        guard index < tokens.count else { return nil }
        let token = tokens[index]
        if token.kind == .number {
            guard let value = DecimalNumber.parse(digits: words[index], locale: parser.locale) else {
                problems.append(ParseProblem(code: "unreadable_number", detail: "\"\(original(index..<index + 1))\" is not a number written the \(parser.locale.rawValue) way", words: original(index..<index + 1)))
                return nil
            }
            // "1 point 25": the digits after a decimal point said.
            if value.scale == 0, index + 2 < tokens.count, lex.decimalPoints.contains(words[index + 1]), isDigitsOnly(index + 2),
               let fraction = DecimalNumber.parse(digits: "0" + String(parser.locale.decimalSeparator) + words[index + 2], locale: parser.locale),
               let sum = value.adding(fraction) {
                return (sum, 3, nil)
            }
            return (value, 1, nil)
        }
        guard token.kind == .word else { return nil }
        if let (half, length) = half(at: index) { return (half, length, nil) }
        if lex.oneAndAHalf.contains(words[index]) { return (DecimalNumber(significand: 15, scale: 1), 1, nil) }
        // "zweieinhalb": a number and a half in one word.
        if parser.locale.language == .de, words[index].hasSuffix("einhalb"), let whole = lex.numbers.words[String(words[index].dropLast(7))] {
            return (DecimalNumber(significand: whole * 10 + 5, scale: 1), 1, nil)
        }
        guard let (value, length, scale) = numbers.read(words, from: index, isOne: isOne) else { return nil }
        // "one point five": a decimal point said, then its digits one word at a time.
        let end = index + length
        if scale == nil, end + 1 < tokens.count, lex.decimalPoints.contains(words[end]) {
            var fraction = DecimalNumber(significand: value)
            var next = end + 1
            while next < tokens.count, let digit = lex.numbers.words[words[next]], digit < 10, fraction.scale < DecimalNumber.maxScale {
                guard let shifted = fraction.rescaled(to: fraction.scale + 1), let sum = shifted.adding(DecimalNumber(significand: digit, scale: fraction.scale + 1)) else { break }
                fraction = sum
                next += 1
            }
            if next > end + 1 { return (fraction, next - index, nil) }
        }
        return (DecimalNumber(significand: value), length, scale)
    }

    /// "half a million", "een half miljoen", "eine halbe Million", "un demi-million", "medio
    /// millón", "half a dollar": a half of a scale, or of one unit (then the unit follows).
    func half(at start: Int) -> (DecimalNumber, Int)? {
        var index = start
        if lex.articles.contains(words[index]) || (parser.locale.language == .en && words[index] == "one") { index += 1 }
        guard index < tokens.count else { return nil }
        let halfValue = DecimalNumber(significand: 5, scale: 1)
        // "demi-million"
        if words[index].hasPrefix("demi-"), let scale = lex.numbers.scales[String(words[index].dropFirst(5))] {
            return halfValue.multiplied(by: scale).map { ($0, index + 1 - start) }
        }
        guard lex.half.contains(words[index]) else { return nil }
        index += 1
        if index < tokens.count, lex.articles.contains(words[index]) { index += 1 }
        guard index < tokens.count else { return nil }
        if let scale = lex.numbers.scales[words[index]], words[index].utf8.count > 2 {
            return halfValue.multiplied(by: scale).map { ($0, index + 1 - start) }
        }
        if name(at: index) != nil || symbol(at: index) != nil { return (halfValue, index - start) }
        return nil
    }

    /// "and a half" after a number: "two and a half million", "deux et demi", "un millón y medio".
    func andAHalf(at index: Int) -> Int? {
        guard index + 1 < tokens.count, lex.and.contains(words[index]) else { return nil }
        var next = index + 1
        if lex.articles.contains(words[next]) { next += 1 }
        guard next < tokens.count, lex.half.contains(words[next]) else { return nil }
        return next + 1 - index
    }

    /// The factor a word after digits multiplies them by: "10k", "4.7 billion", "5 lakh",
    /// "2 Millionen", "10 mil", "10 grand" (then money of the place).
    func scale(at index: Int) -> (UInt64, local: Bool)? {
        guard index < tokens.count else { return nil }
        if let scale = lex.numbers.scales[words[index]] { return (scale, false) }
        if lex.numbers.hundred.contains(words[index]) { return (100, false) }
        if let scale = lex.slangScales[words[index]] { return (scale, true) }
        return nil
    }

    /// An amount starting at `index`: [sign] [symbol or code] number [scale] [symbol, code or
    /// name] [and N cents], N cents, coins ("four quarters"), or slang ("a tenner", "10 grand").
    /// `strong` when money is said.
    /// Whether an amount may start at `index`: most words cannot, and are passed over at once.
    func mayStartAmount(_ index: Int) -> Bool {
        let token = tokens[index]
        switch token.kind {
        case .number: return true
        case .handle: return false
        case .symbol: return token.folded == "-" || token.folded == "\u{2212}" || CurrencyTable.symbolKeys[token.folded] != nil
        case .word:
            let word = token.folded
            if shared.amountStarts.contains(word) || parser.extraCodes[word] != nil { return true }
            if CurrencyTable.symbolPhrases[word] != nil || CurrencyTable.namePhrases[word] != nil, symbol(at: index) != nil || name(at: index) != nil { return true }
            // Hyphenated ("twenty-five", "demi-million") and one-word compounds ("tweeduizend",
            // "zweieinhalb") are looked at whole.
            return word.utf8.contains(UInt8(ascii: "-")) || (lex.numbers.unitBeforeTens && word.utf8.count > 4 && lex.numbers.pieces(word) != nil)
                || (parser.locale.language == .de && word.hasSuffix("einhalb"))
        }
    }

    func amount(at start: Int, problems: inout [ParseProblem]) -> (ParsedAmount, end: Int, strong: Bool)? {
        var index = start
        guard mayStartAmount(index) else { return nil }
        var negative = false
        if ["-", "\u{2212}"].contains(words[index]) || (parser.locale.language == .en && (words[index] == "minus" || words[index] == "negative")) {
            negative = true
            index += 1
        }
        var unit: MoneyUnit?
        if let (prefix, length) = symbol(at: index)
            ?? match(CurrencyTable.nameKeys, CurrencyTable.namePhrases, at: index).flatMap({ index + $0.1 < tokens.count && tokens[index + $0.1].kind == .number ? $0 : nil }) {
            // "€20", "EUR 20", "ringgit 42"
            unit = prefix
            index += length
            if index < tokens.count, ["-", "\u{2212}"].contains(words[index]) {
                negative = true
                index += 1
            }
        }
        guard index < tokens.count else { return nil }
        // Slang and coins counted whole: "a tenner", "een tientje", "a quarter", "ten dimes".
        if unit == nil, let (counted, moneyUnit, end) = counted(at: index) {
            var value = counted
            value.isNegative = negative
            return (ParsedAmount(value: value, unit: moneyUnit, text: original(start..<end)), end, true)
        }
        var exactness = ParsedAmount.Exactness.exact
        var halfOf: UInt64 = 1
        let said: DecimalNumber, numberLength: Int
        if let (count, length) = approximateCount(at: index) {
            // "une vingtaine d'euros"
            (said, numberLength) = (count, length)
            exactness = .approximate
        } else {
            guard let (read, length, lastScale) = number(at: index, problems: &problems) else { return nil }
            (said, numberLength) = (read, length)
            halfOf = lastScale ?? 1
        }
        // "two fivers", "ten dimes", "200000 nickels"
        if unit == nil, let (counted, moneyUnit, end) = counted(said, at: index + numberLength) {
            var value = counted
            value.isNegative = negative
            return (ParsedAmount(value: value, unit: moneyUnit, text: original(start..<end)), end, true)
        }
        let numberWasDigits = tokens[index].kind == .number
        // Digits and halves take a scale after them: "2 million", "anderhalf miljoen".
        let takesScale = numberWasDigits || said.scale > 0
        var value = said
        index += numberLength
        var local = false
        // "20ish dollars"
        if index < tokens.count, words[index] == "ish", !tokens[index].spaced {
            exactness = .approximate
            index += 1
        }
        // 10k, 10 thousand, 4.7 billion, 5 lakh, 10 grand
        if index < tokens.count, takesScale, let (factor, isLocal) = scale(at: index), tokens[index].spaced || factor == 1_000 || factor == 1_000_000 {
            guard let scaled = value.multiplied(by: factor) else {
                problems.append(ParseProblem(code: "amount_too_large", detail: "the amount is too large"))
                return nil
            }
            value = scaled
            local = isLocal
            halfOf = factor
            index += 1
        } else if index < tokens.count, !numberWasDigits, let factor = lex.slangScales[words[index]] {
            guard let scaled = value.multiplied(by: factor) else { return nil }
            value = scaled
            local = true
            halfOf = factor
            index += 1
        }
        // "two and a half million", "one and a half dollars", "un millón y medio" (half of the
        // scale said last)
        if let length = andAHalf(at: index), let half = DecimalNumber(significand: 5, scale: 1).multiplied(by: halfOf), let withHalf = value.adding(half) {
            value = withHalf
            index += length
            if halfOf == 1, let (factor, _) = scale(at: index), let scaled = value.multiplied(by: factor) {
                value = scaled
                index += 1
            }
        }
        // "un million d'euros", "dos millones de dólares"
        if index + 1 < tokens.count, lex.of.contains(words[index]), name(at: index + 1) != nil || symbol(at: index + 1) != nil { index += 1 }
        if unit == nil {
            if let (suffix, length) = symbol(at: index) ?? name(at: index) {
                unit = suffix
                index += length
            } else if let (minor, length) = minorName(at: index) {
                // 10 cents, 50p
                let cents = DecimalNumber(significand: value.significand, scale: value.scale + Self.exponent(minor), isNegative: negative)
                return (ParsedAmount(value: cents, unit: minor, text: original(start..<index + length)), index + length, true)
            }
        } else if let (suffix, length) = name(at: index), suffix == unit {
            // "$10 dollars"
            index += length
        }
        if unit == nil, local { unit = .ambiguous(.local) }
        if let unit {
            // "deux euros et demi", "un euro y medio"
            if let length = andAHalf(at: index), value.scale == 0, let withHalf = value.adding(DecimalNumber(significand: 5, scale: 1)) {
                value = withHalf
                index += length
            } else if let (sum, end) = minorPart(after: index, value: value, unit: unit) {
                value = sum
                index = end
            }
        }
        value.isNegative = negative
        let strong = unit != nil
        // "a", "een", "ein", "un" alone are articles, not amounts.
        if !strong, !numberWasDigits, index - start == 1, lex.articles.contains(words[start]) { return nil }
        return (ParsedAmount(value: value, unit: unit ?? .unspecified, text: original(start..<index), exactness: exactness), index, strong)
    }

    /// "une vingtaine", "una veintena", "een twintigtal": about that many.
    func approximateCount(at start: Int) -> (DecimalNumber, Int)? {
        var index = start
        if lex.articles.contains(words[index]) { index += 1 }
        guard index < tokens.count, let count = lex.approximateCounts[words[index]] else { return nil }
        return (DecimalNumber(significand: count), index + 1 - start)
    }

    /// Cents after a whole amount: "20 dollars and 43 cents", "$20 and 43c", "$20 43", "3 GBP 1
    /// pence", "3 pounds and a penny", "five euros fifty", "12 euro en 50 cent".
    func minorPart(after index: Int, value: DecimalNumber, unit: MoneyUnit) -> (DecimalNumber, Int)? {
        var next = index
        // "12 euro en 50 cent", "doce euros con cincuenta"
        if next < tokens.count, lex.and.contains(words[next]) || lex.minorJoiners.contains(words[next]) { next += 1 }
        guard next < tokens.count, !(tokens[next].kind == .number && (words[next].contains(".") || words[next].contains(","))) else { return nil }
        var minor: DecimalNumber
        var length: Int
        var ignored: [ParseProblem] = []
        if lex.articles.contains(words[next]), next + 1 < tokens.count, minorName(at: next + 1) != nil {
            (minor, length) = (DecimalNumber(significand: 1), 1)
        } else if let (said, saidLength, _) = number(at: next, problems: &ignored), said.scale == 0 {
            (minor, length) = (said, saidLength)
        } else {
            return nil
        }
        let exponent = Self.exponent(unit)
        var limit: UInt64 = 1
        for _ in 0..<exponent { limit *= 10 }
        let after = next + length
        let minorUnit = minorName(at: after)
        let ends = after >= tokens.count || tokens[after].kind == .symbol || lex.nameStops.contains(words[after])
            || lex.noteMarkers.contains(words[after]) || lex.payeeMarkers.contains(words[after]) || lex.payerMarkers.contains(words[after])
        let fits = minorUnit.map { said in
            said.0 == unit || said.0 == .ambiguous(.dollar) || ["cent", "cents", "c", "ct", "¢", "centime", "centimes", "centavo", "centavos", "centimo", "centimos"].contains(words[after])
                || (unit == .currency("GBP") && ["penny", "pennies", "pence", "p"].contains(words[after]))
        } ?? ends
        minor.scale = exponent
        guard minor.significand < limit, fits, let sum = value.adding(minor) else { return nil }
        return (sum, after + (minorUnit?.1 ?? 0))
    }

    /// Money counted in slang or coins: "a tenner", "two fivers", "een tientje", "ein Zehner",
    /// "a quarter", "four quarters", "ten dimes": the value, its unit and where it ends.
    func counted(at start: Int) -> (DecimalNumber, MoneyUnit, Int)? {
        guard lex.articles.contains(words[start]), start + 1 < tokens.count else { return nil }
        return counted(DecimalNumber(significand: 1), at: start + 1)
    }

    /// `count` of the slang or coin at `index` ("two fivers", "ten dimes"), or nil.
    func counted(_ count: DecimalNumber, at index: Int) -> (DecimalNumber, MoneyUnit, Int)? {
        guard index < tokens.count, count.scale == 0 else { return nil }
        let word = words[index]
        if let each = lex.slangAmounts[word] {
            return count.multiplied(by: each).map { ($0, .ambiguous(.local), index + 1) }
        }
        if let cents = lex.coins[word] {
            guard let total = count.multiplied(by: cents) else { return nil }
            return (DecimalNumber(significand: total.significand, scale: 2), parser.locale == .enGB && cents == 1 ? .currency("GBP") : .ambiguous(.dollar), index + 1)
        }
        return nil
    }

    /// A phrase of `phrases` that ends just before `index`, on words no part has taken: its start.
    func phrase(_ phrases: [[String]], endingBefore index: Int) -> Int? {
        for phrase in phrases where phrase.count <= index {
            let start = index - phrase.count
            if (0..<phrase.count).allSatisfy({ words[start + $0] == phrase[$0] && !taken[start + $0] }) { return start }
        }
        return nil
    }


    /// Every amount said, with how exact it is: ranges joined ("between 10 and 20 dollars",
    /// "10-20 dollars", "van 10 tot 20 euro"), approximations and bounds taken with them.
    mutating func amounts(problems: inout [ParseProblem]) -> [(ParsedAmount, Range<Int>, strong: Bool)] {
        var found: [(ParsedAmount, Range<Int>, strong: Bool)] = []
        var index = 0
        while index < tokens.count {
            guard var (said, end, strong) = amount(at: index, problems: &problems), end > index else {
                index += 1
                continue
            }
            var start = index
            var rangeStart: Int?
            if let before = phrase(lex.rangeStarts, endingBefore: start) { rangeStart = before }
            // A second amount after a joiner: a range when a range was announced, or joined by a
            // dash, or by "to"/"tot"/"bis" with money said.
            if end + 1 < tokens.count, lex.rangeJoiners.contains(words[end]),
               let (second, secondEnd, secondStrong) = amount(at: end + 1, problems: &problems),
               said.unit == .unspecified || second.unit == .unspecified || said.unit == second.unit,
               rangeStart != nil || words[end] == "-" || words[end] == "\u{2013}" || (!lex.and.contains(words[end]) && secondStrong && !strong) {
                let unit = said.unit == .unspecified ? second.unit : said.unit
                said = ParsedAmount(value: said.value, unit: unit, text: original(start..<secondEnd), exactness: .range(second.value))
                end = secondEnd
                strong = strong || secondStrong
                if let rangeStart {
                    start = rangeStart
                    said.text = original(start..<end)
                }
            }
            if case .range = said.exactness {} else if said.exactness != .exact {
                // already approximate ("20ish", "une vingtaine")
            } else if let (before, exactness) = [(lex.approximations, ParsedAmount.Exactness.approximate), (lex.atMost, .atMost), (lex.atLeast, .atLeast)]
                .compactMap({ phrases, exactness in phrase(phrases, endingBefore: start).map { ($0, exactness) } }).min(by: { $0.0 < $1.0 }) {
                // The longest said: "no less than" is at least, not "less than".
                said.exactness = exactness
                start = before
            } else if start > 0, words[start - 1] == "~" {
                said.exactness = .approximate
                start -= 1
            }
            if let length = phrase(lex.approximationsAfter, at: end) {
                if said.exactness == .exact { said.exactness = .approximate }
                end += length
            }
            if said.exactness != .exact { said.text = original(start..<end) }
            found.append((said, start..<end, strong))
            index = end
        }
        return found
    }

    // MARK: The whole utterance

    mutating func run(into result: inout ParsedUtterance) {
        // Polite phrases first: "por favor" holds a note marker.
        if !lex.politePhrases.isEmpty {
            for start in words.indices { if let length = phrase(lex.politePhrases, at: start) { mark(start..<start + length) } }
        }
        // Amounts first: said with a currency beats a bare number.
        let candidates = amounts(problems: &result.problems)
        let strong = candidates.filter(\.strong)
        let weak = candidates.filter { !$0.strong }
        // An unreadable number is met once from its symbol and once on its own: say it once.
        var seen = Set<ParseProblem>()
        result.problems = result.problems.filter { seen.insert($0).inserted }
        var chosen: (ParsedAmount, Range<Int>)?
        if strong.count > 1 {
            let distinct = Set(strong.map { "\($0.0.value.normalized) \($0.0.unit)" })
            if distinct.count > 1 {
                result.problems.append(ParseProblem(code: "several_amounts", detail: "the text names several amounts: \(strong.map(\.0.text).joined(separator: ", "))", words: strong.map(\.0.text).joined(separator: ", ")))
                for (_, range, _) in strong { mark(range) }
            } else {
                chosen = (strong[0].0, strong[0].1)
            }
        } else if let first = strong.first ?? weak.first {
            chosen = (first.0, first.1)
        }
        if let chosen {
            result.amount = chosen.0
            mark(chosen.1)
            reportExactness(chosen.0, into: &result)
            reportUnread(around: chosen.1, into: &result)
        }

        // The verb says which intent.
        var verb: Int?
        for (position, word) in words.enumerated() where !taken[position] {
            if lex.sendVerbs.contains(word) {
                result.intent = .send
            } else if lex.requestVerbs.contains(word) {
                result.intent = .request
            } else if let marker = lex.conditionalRequestVerbs[word], words[(position + 1)...].contains(marker) {
                result.intent = .request
            } else {
                continue
            }
            verb = position
            taken[position] = true
            break
        }
        if verb == nil || result.intent == .unknown {
            if words.contains(where: { lex.balanceWords.contains($0) }) || lex.balanceQuestions.contains(where: { $0.allSatisfy(words.contains) }) {
                result.intent = .balance
                for (position, word) in words.enumerated() where lex.balanceWords.contains(word) { taken[position] = true }
                collectUnrecognized(into: &result)
                return
            }
        }
        if verb == nil, result.amount != nil, words.contains(where: lex.payeeMarkers.contains) { result.intent = .send }

        // "with <app>" (a registered app) and "using <app>" are dropped.
        for position in words.indices where !taken[position] && lex.appMarkers.contains(words[position]) {
            if let length = phrase(parser.appWords, at: position + 1) {
                result.app = original(position + 1..<position + 1 + length)
                mark(position..<position + 1 + length)
            } else if lex.appMarkersAlways.contains(words[position]) {
                var end = position + 1
                while end < tokens.count, end < position + 3, tokens[end].kind == .word, !taken[end], !lex.nameStops.contains(words[end]) { end += 1 }
                if end > position + 1 {
                    result.app = original(position + 1..<end)
                    mark(position..<end)
                }
            }
        }
        // "maak 50 euro over", "fordere 20 Euro von Lukas an": a separable verb's particle, last.
        if let last = words.indices.last(where: { tokens[$0].kind != .symbol }), !taken[last], lex.particles.contains(words[last]), verb != nil {
            taken[last] = true
        }
        // "om 20 euro", "um 20 Euro": the amount's marker.
        if let range = chosen?.1, range.lowerBound > 0, lex.amountMarkers.contains(words[range.lowerBound - 1]) { taken[range.lowerBound - 1] = true }

        // The note: "for" and what follows, unless an amount follows ("ask Jane for $20").
        let personMarkers = result.intent == .request ? lex.payerMarkers : lex.payeeMarkers
        // The verb said last ("... für die Karten überweisen") leaves the note before it.
        let verbLast = verb != nil && verb == words.indices.last(where: { tokens[$0].kind != .symbol })
        if let start = words.indices.first(where: { !taken[$0] && lex.noteMarkers.contains(words[$0]) && $0 + 1 < tokens.count && !taken[$0 + 1] && ($0 > (verb ?? -1) || verbLast) }) {
            var end = start + 1
            while end < tokens.count, !taken[end] { end += 1 }
            // "... for the tickets to Jane": a person named at the very end is the payee.
            if result.payee == nil, !hasPersonBefore(start, verb: verb, markers: personMarkers) {
                if let marker = (start + 2..<max(start + 2, end)).last(where: { personMarkers.contains(words[$0]) }),
                   let length = nameLength(at: skippingMy(marker + 1)), skippingMy(marker + 1) + length == end {
                    end = marker
                }
            }
            var trimmed = end
            while trimmed > start + 1, tokens[trimmed - 1].kind == .symbol, [".", "!", "?", ","].contains(words[trimmed - 1]) { trimmed -= 1 }
            if trimmed > start + 1 {
                result.note = original(start + 1..<trimmed)
                mark(start..<end)
            }
        }

        // The person: after "to"/"from", or right after the verb ("pay Jane", "ask Bob for").
        if let verb {
            var candidate: Int?
            if let marker = words.indices.first(where: { !taken[$0] && personMarkers.contains(words[$0]) && ($0 > verb || verbLast) && nameLength(at: skippingMy($0 + 1)) != nil }) {
                let start = skippingMy(marker + 1)
                candidate = start
                mark(marker..<start)
            } else {
                let next = wordAfterVerb(verb)
                if next < tokens.count, !taken[next], nameLength(at: next) != nil { candidate = next }
            }
            if candidate == nil, let range = chosen?.1 {
                // The verb last ("Kannst du Lukas 20 Euro überweisen?"): the name before the amount.
                var first = range.lowerBound
                while first > 0, first - 1 != verb, range.lowerBound - first < 4,
                      tokens[first - 1].kind == .word || tokens[first - 1].kind == .handle, !taken[first - 1],
                      !lex.nameStops.contains(words[first - 1]), !lex.fillers.contains(words[first - 1]) {
                    first -= 1
                }
                if first < range.lowerBound, nameLength(at: first) != nil { candidate = first }
            }
            if let candidate, let length = nameLength(at: candidate) {
                result.payee = original(candidate..<candidate + length)
                mark(candidate..<candidate + length)
            }
        } else if let marker = words.indices.first(where: { !taken[$0] && personMarkers.contains(words[$0]) && nameLength(at: skippingMy($0 + 1)) != nil }) {
            let start = skippingMy(marker + 1)
            if let length = nameLength(at: start) {
                result.payee = original(start..<start + length)
                mark(marker..<start + length)
            }
        }
        collectUnrecognized(into: &result)
    }

    /// An amount that is not exact is said so, in the problems: the resolver asks about it.
    func reportExactness(_ amount: ParsedAmount, into result: inout ParsedUtterance) {
        switch amount.exactness {
        case .exact: break
        case .approximate:
            result.problems.append(ParseProblem(code: "approximate_amount", detail: "\"\(amount.text)\" is not an exact amount", words: amount.text))
        case .atMost, .atLeast:
            result.problems.append(ParseProblem(code: "amount_bound", detail: "\"\(amount.text)\" is a limit, not an amount", words: amount.text))
        case .range:
            result.problems.append(ParseProblem(code: "amount_range", detail: "\"\(amount.text)\" is a range, not one amount", words: amount.text))
        }
    }

    /// Number words or halves right next to the amount that no part took ("half" of "half a
    /// dollar" where it could not be read, "50 20 dollars"): reported, never dropped.
    func reportUnread(around range: Range<Int>, into result: inout ParsedUtterance) {
        for position in [range.lowerBound - 1, range.upperBound] where position >= 0 && position < tokens.count && !taken[position] {
            let word = words[position]
            if position == range.upperBound, tokens[position].kind == .word, !tokens[position].spaced {
                // "1e6 dollars": letters stuck to the number.
                result.problems.append(ParseProblem(code: "unreadable_amount", detail: "\"\(original(range.lowerBound..<position + 1))\" is not an amount I can read exactly", words: original(range.lowerBound..<position + 1)))
                return
            }
            let numeric = tokens[position].kind == .number || lex.numbers.isNumberWord(word) && !lex.articles.contains(word)
                || lex.half.contains(word) || lex.oneAndAHalf.contains(word)
            if numeric, !(position == range.upperBound && lex.noteMarkers.contains(word)) {
                result.problems.append(ParseProblem(code: "unreadable_amount", detail: "\"\(original(position..<position + 1))\" next to \"\(result.amount.map { $0.text } ?? "")\" is not understood as part of the amount",
                                                    words: original(min(position, range.lowerBound)..<max(position + 1, range.upperBound))))
                return
            }
        }
    }

    /// "my mom" is "mom".
    func skippingMy(_ index: Int) -> Int {
        index < tokens.count && lex.possessives.contains(words[index]) && !taken[index] ? index + 1 : index
    }

    /// Whether a person is named before `index`: after the marker, or right after the verb.
    func hasPersonBefore(_ index: Int, verb: Int?, markers: Set<String>) -> Bool {
        if (0..<index).contains(where: { markers.contains(words[$0]) && nameLength(at: skippingMy($0 + 1)) != nil }) { return true }
        guard let verb else { return false }
        let next = wordAfterVerb(verb)
        return next < index && !taken[next] && nameLength(at: next) != nil
    }

    /// Where a person named right after the verb starts: "pay back my Jane".
    func wordAfterVerb(_ verb: Int) -> Int {
        var next = verb + 1
        while next < tokens.count, words[next] == "back" || words[next] == "terug" || lex.possessives.contains(words[next]) { next += 1 }
        return next
    }

    /// How many words of a name start at `index`: a handle, a registered name (longest first),
    /// or up to four words that are not stop words.
    func nameLength(at index: Int) -> Int? {
        guard index < tokens.count, !taken[index] else { return nil }
        if tokens[index].kind == .handle { return 1 }
        guard tokens[index].kind == .word else { return nil }
        if let length = phrase(parser.vocabularyWords, at: index) { return length }
        var end = index
        while end < tokens.count, end - index < 4, tokens[end].kind == .word, !taken[end],
              !lex.nameStops.contains(words[end]), !lex.noteMarkers.contains(words[end]), !lex.numbers.isNumberWord(words[end]) || end > index {
            end += 1
        }
        return end > index ? end - index : nil
    }

    /// The length of the first phrase of `phrases` that the words at `index` spell.
    func phrase(_ phrases: [[String]], at index: Int) -> Int? {
        for phrase in phrases where index + phrase.count <= tokens.count {
            var matches = true
            for (offset, word) in phrase.enumerated() where words[index + offset] != word || taken[index + offset] {
                matches = false
                break
            }
            if matches { return phrase.count }
        }
        return nil
    }

    mutating func mark(_ range: Range<Int>) {
        for position in range { taken[position] = true }
    }

    func collectUnrecognized(into result: inout ParsedUtterance) {
        for position in tokens.indices where !taken[position] && tokens[position].kind != .symbol && !lex.fillers.contains(words[position]) {
            result.unrecognized.append(original(position..<position + 1))
        }
    }
}
