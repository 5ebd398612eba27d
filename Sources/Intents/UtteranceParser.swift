/// An amount an utterance names, exactly as said: its number and the currency the words give.
public struct ParsedAmount: Hashable, Sendable {
    public var value: DecimalNumber
    public var unit: MoneyUnit
    /// The words it came from ("twenty five euros").
    public var text: String
}

/// Something the parser did not understand, instead of a guess.
public struct ParseProblem: Hashable, Sendable {
    /// Stable: `too_long`, `unreadable_number`, `amount_too_large`, `several_amounts`, `empty`.
    public var code: String
    public var detail: String
}

/// What an utterance asks for, parameter by parameter, before anything is resolved.
public struct ParsedUtterance: Hashable, Sendable {
    public enum Intent: String, Sendable {
        case send, request, balance, unknown
    }

    public var intent: Intent
    /// The person to pay (send) or to ask (request), as said.
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
        default: nil
        }
    }
}

/// Reads payments asked for in words: "Send $50 to Jane for dinner", "pay Jean-Luc twenty five
/// euros", "ask Bob for 12,50 € for the taxi" (nl_NL), "what's my balance". Written by hand:
/// Foundation on Linux reads "12,50" as 12 and "twenty five" as 2005.
public struct UtteranceParser: Sendable {
    public var locale: IntentLocale
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
        didSet { extraCodes = Self.codes(currencyCodes) }
    }
    private(set) var vocabularyWords: [[String]]
    private(set) var appWords: [[String]]
    private(set) var extraCodes: [String: String]

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
        let tokens = Tokenizer.tokens(scalars)
        guard !tokens.isEmpty else {
            result.problems.append(ParseProblem(code: "empty", detail: "there is nothing to read"))
            return result
        }
        var reading = Reading(tokens: tokens, scalars: scalars, parser: self)
        reading.run(into: &result)
        return result
    }

    // MARK: Words with a part to play

    static let sendVerbs: Set<String> = ["send", "pay", "transfer", "give", "wire", "tip", "remit"]
    static let requestVerbs: Set<String> = ["request", "ask", "charge", "bill", "invoice", "collect"]
    static let balanceWords: Set<String> = ["balance", "balances"]
    /// Words that end a name.
    static let nameStops: Set<String> = [
        "for", "to", "from", "with", "using", "via", "and", "please", "now", "today", "tomorrow", "tonight", "asap",
        "back", "me", "money", "cash", "some", "the", "a", "an", "it", "them", "this", "that", "right", "away",
        "as", "on", "in", "at", "by", "because", "so", "but", "or", "i", "you", "my", "your", "our", "is", "was",
    ]
    /// Words that make up requests without meaning anything to the payment.
    static let fillers: Set<String> = [
        "please", "can", "could", "would", "will", "you", "i", "i'd", "i'm", "want", "wanna", "need", "like", "to",
        "hey", "siri", "ok", "okay", "just", "some", "money", "cash", "the", "a", "an", "me", "kindly", "go", "ahead",
        "now", "quickly", "right", "away", "let's", "lets", "let", "us", "do", "what", "what's", "whats", "is", "my",
        "how", "much", "have", "show", "tell", "check", "in", "account", "accounts", "there", "back", "funds", "payment",
        "of", "thanks", "thank", "today", "tomorrow", "tonight", "asap", "also", "again", "for", "from", "with", "using",
        "via", "and", "on", "it", "over",
    ]
}

/// One parse's working state.
private struct Reading {
    let tokens: [Token]
    let scalars: [Unicode.Scalar]
    let parser: UtteranceParser
    var words: [String]
    /// Which tokens some part of the parse has taken.
    var taken: [Bool]

    init(tokens: [Token], scalars: [Unicode.Scalar], parser: UtteranceParser) {
        self.tokens = tokens
        self.scalars = scalars
        self.parser = parser
        words = tokens.map(\.folded)
        taken = Array(repeating: false, count: tokens.count)
    }

    func original(_ range: Range<Int>) -> String {
        guard !range.isEmpty else { return "" }
        return String(String.UnicodeScalarView(scalars[tokens[range.lowerBound].start..<tokens[range.upperBound - 1].end]))
    }

    // MARK: Amounts

    /// The table entry that `tokens[index...]` starts with, longest first, and its length.
    func match(_ table: [String: MoneyUnit], at index: Int) -> (MoneyUnit, Int)? {
        guard index < tokens.count else { return nil }
        guard CurrencyTable.phraseStarts.contains(words[index]) else { return table[words[index]].map { ($0, 1) } }
        for length in stride(from: CurrencyTable.longestPhrase, through: 1, by: -1) where index + length <= tokens.count {
            let key = words[index..<index + length].joined(separator: " ")
            if let unit = table[key] { return (unit, length) }
        }
        return nil
    }

    /// A symbol, an ISO code, or one of the app's own currency codes at `index`.
    func symbol(at index: Int) -> (MoneyUnit, Int)? {
        if index < tokens.count, let code = parser.extraCodes[words[index]] { return (.currency(code), 1) }
        return match(CurrencyTable.symbolKeys, at: index)
    }

    func minorName(at index: Int) -> (MoneyUnit, Int)? {
        guard index < tokens.count else { return nil }
        if parser.locale == .enGB, words[index] == "penny" || words[index] == "pennies" { return (.currency("GBP"), 1) }
        return match(CurrencyTable.minorNameKeys, at: index)
    }

    static func exponent(_ unit: MoneyUnit) -> Int {
        if case .currency(let code) = unit { return CurrencyTable.byCode[code]?.exponent ?? 2 }
        return 2
    }

    /// A number at `index`: digits (read by the locale) or words. Problems for digits that
    /// cannot be read.
    func number(at index: Int, problems: inout [ParseProblem], oneBefore: (String) -> Bool) -> (DecimalNumber, Int)? {
        guard index < tokens.count else { return nil }
        if tokens[index].kind == .number {
            guard let value = DecimalNumber.parse(digits: words[index], locale: parser.locale) else {
                problems.append(ParseProblem(code: "unreadable_number", detail: "\"\(words[index])\" is not a number written the \(parser.locale.rawValue) way"))
                return nil
            }
            return (value, 1)
        }
        guard tokens[index].kind == .word, let (value, length) = NumberWords.read(words, from: index, oneBefore: oneBefore) else { return nil }
        return (DecimalNumber(significand: value), length)
    }

    /// An amount starting at `index`: [sign] [symbol or code] number [k/thousand] [symbol, code or
    /// name] [and N cents], or N cents. `strong` when a currency is said.
    func amount(at start: Int, problems: inout [ParseProblem]) -> (ParsedAmount, end: Int, strong: Bool)? {
        var index = start
        var negative = false
        if index < tokens.count, ["-", "\u{2212}"].contains(words[index]) || words[index] == "minus" || words[index] == "negative" {
            negative = true
            index += 1
        }
        var unit: MoneyUnit?
        if let (prefix, length) = symbol(at: index)
            ?? match(CurrencyTable.nameKeys, at: index).flatMap({ index + $0.1 < tokens.count && tokens[index + $0.1].kind == .number ? $0 : nil }) {
            // "€20", "EUR 20", "ringgit 42"
            unit = prefix
            index += length
            if index < tokens.count, ["-", "\u{2212}"].contains(words[index]) {
                negative = true
                index += 1
            }
        }
        let isCurrencyName = { (word: String) in CurrencyTable.nameKeys[word] != nil || CurrencyTable.symbolKeys[word] != nil }
        guard let (said, numberLength) = number(at: index, problems: &problems, oneBefore: isCurrencyName) else { return nil }
        let numberWasDigits = tokens[index].kind == .number
        var value = said
        index += numberLength
        // 10k, 10 thousand, 2 million
        if index < tokens.count, numberWasDigits {
            var power = 0
            if words[index] == "k" { power = 3 } else if words[index] == "thousand" { power = 3 } else if words[index] == "million" { power = 6 }
            if power > 0 {
                guard let shifted = value.shifted(by: power) else {
                    problems.append(ParseProblem(code: "amount_too_large", detail: "the amount is too large"))
                    return nil
                }
                value = shifted
                index += 1
            }
        }
        if unit == nil {
            if let (suffix, length) = symbol(at: index) ?? match(CurrencyTable.nameKeys, at: index) {
                unit = suffix
                index += length
            } else if let (minor, length) = minorName(at: index) {
                // 10 cents, 50p
                let cents = DecimalNumber(significand: value.significand, scale: value.scale + Self.exponent(minor), isNegative: negative)
                return (ParsedAmount(value: cents, unit: minor, text: original(start..<index + length)), index + length, true)
            }
        } else if let (suffix, length) = match(CurrencyTable.nameKeys, at: index), suffix == unit {
            // "$10 dollars"
            index += length
        }
        if let unit {
            // "20 dollars and 43 cents", "$20 and 43c", "$20 43", "3 GBP 1 pence"
            var next = index
            if next < tokens.count, words[next] == "and" { next += 1 }
            var noProblems: [ParseProblem] = []
            if next < tokens.count, !(tokens[next].kind == .number && (words[next].contains(".") || words[next].contains(","))),
               let (minor, length) = number(at: next, problems: &noProblems, oneBefore: { _ in false }), minor.scale == 0 {
                let exponent = Self.exponent(unit)
                var limit: UInt64 = 1
                for _ in 0..<exponent { limit *= 10 }
                let after = next + length
                let minorUnit = minorName(at: after)
                let ends = after >= tokens.count || tokens[after].kind == .symbol || UtteranceParser.nameStops.contains(words[after])
                if minor.significand < limit, minorUnit.map({ $0.0 == unit || $0.0 == MoneyUnit.ambiguous(.dollar) }) ?? ends,
                   let sum = value.adding(DecimalNumber(significand: minor.significand, scale: exponent)) {
                    value = sum
                    index = after + (minorUnit?.1 ?? 0)
                }
            }
        }
        value.isNegative = negative
        let strong = unit != nil
        if !strong, !numberWasDigits, words[start] == "a" || words[start] == "an" { return nil }
        return (ParsedAmount(value: value, unit: unit ?? .unspecified, text: original(start..<index)), index, strong)
    }

    // MARK: The whole utterance

    mutating func run(into result: inout ParsedUtterance) {
        // Amounts first: said with a currency beats a bare number.
        var strong: [(ParsedAmount, Range<Int>)] = []
        var weak: [(ParsedAmount, Range<Int>)] = []
        var index = 0
        while index < tokens.count {
            if let (amount, end, isStrong) = amount(at: index, problems: &result.problems), end > index {
                if isStrong { strong.append((amount, index..<end)) } else { weak.append((amount, index..<end)) }
                index = end
            } else {
                index += 1
            }
        }
        // An unreadable number is met once from its symbol and once on its own: say it once.
        var seen = Set<ParseProblem>()
        result.problems = result.problems.filter { seen.insert($0).inserted }
        let chosen: (ParsedAmount, Range<Int>)?
        if strong.count > 1 {
            let distinct = Set(strong.map { "\($0.0.value.normalized) \($0.0.unit)" })
            if distinct.count > 1 {
                result.problems.append(ParseProblem(code: "several_amounts", detail: "the text names several amounts: \(strong.map(\.0.text).joined(separator: ", "))"))
            }
            chosen = distinct.count == 1 ? strong[0] : nil
            if chosen == nil { for (_, range) in strong { mark(range) } }
        } else {
            chosen = strong.first ?? weak.first
        }
        if let chosen {
            result.amount = chosen.0
            mark(chosen.1)
        }

        // The verb says which intent.
        var verb: Int?
        for (position, word) in words.enumerated() where !taken[position] {
            if UtteranceParser.sendVerbs.contains(word) {
                result.intent = .send
            } else if UtteranceParser.requestVerbs.contains(word) {
                result.intent = .request
            } else {
                continue
            }
            verb = position
            taken[position] = true
            break
        }
        if verb == nil || result.intent == .unknown {
            if words.contains(where: { UtteranceParser.balanceWords.contains($0) })
                || words.firstRange(of: ["how", "much"]) != nil && (words.contains("have") || words.contains("got")) {
                result.intent = .balance
                for (position, word) in words.enumerated() where UtteranceParser.balanceWords.contains(word) { taken[position] = true }
                collectUnrecognized(into: &result)
                return
            }
        }
        if verb == nil, result.amount != nil, words.contains("to") { result.intent = .send }

        // "with <app>" (a registered app) and "using <app>" are dropped.
        for position in words.indices where !taken[position] && (words[position] == "with" || words[position] == "using" || words[position] == "via") {
            if let length = phrase(parser.appWords, at: position + 1) {
                result.app = original(position + 1..<position + 1 + length)
                mark(position..<position + 1 + length)
            } else if words[position] == "using" {
                var end = position + 1
                while end < tokens.count, end < position + 3, tokens[end].kind == .word, !taken[end], !UtteranceParser.nameStops.contains(words[end]) { end += 1 }
                if end > position + 1 {
                    result.app = original(position + 1..<end)
                    mark(position..<end)
                }
            }
        }

        // The note: "for" and what follows, unless an amount follows ("ask Jane for $20").
        let personMarker = result.intent == .request ? "from" : "to"
        if let start = words.indices.first(where: { !taken[$0] && words[$0] == "for" && $0 + 1 < tokens.count && !taken[$0 + 1] && $0 > (verb ?? -1) }) {
            var end = start + 1
            while end < tokens.count, !taken[end] { end += 1 }
            // "... for the tickets to Jane": a person named at the very end is the payee.
            if result.payee == nil, !hasPersonBefore(start, verb: verb, marker: personMarker) {
                if let marker = (start + 2..<end).last(where: { words[$0] == personMarker }), let length = nameLength(at: skippingMy(marker + 1)), skippingMy(marker + 1) + length == end {
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
            if let marker = words.indices.first(where: { !taken[$0] && words[$0] == personMarker && $0 > verb && nameLength(at: skippingMy($0 + 1)) != nil }) {
                let start = skippingMy(marker + 1)
                candidate = start
                mark(marker..<start)
            } else {
                let next = wordAfterVerb(verb)
                if next < tokens.count, !taken[next], nameLength(at: next) != nil { candidate = next }
            }
            if let candidate, let length = nameLength(at: candidate) {
                result.payee = original(candidate..<candidate + length)
                mark(candidate..<candidate + length)
            }
        } else if let marker = words.indices.first(where: { !taken[$0] && words[$0] == personMarker && nameLength(at: skippingMy($0 + 1)) != nil }) {
            let start = skippingMy(marker + 1)
            if let length = nameLength(at: start) {
                result.payee = original(start..<start + length)
                mark(marker..<start + length)
            }
        }
        collectUnrecognized(into: &result)
    }

    /// "my mom" is "mom".
    func skippingMy(_ index: Int) -> Int {
        index < tokens.count && words[index] == "my" && !taken[index] ? index + 1 : index
    }

    /// Whether a person is named before `index`: after the marker, or right after the verb.
    func hasPersonBefore(_ index: Int, verb: Int?, marker: String) -> Bool {
        if (0..<index).contains(where: { words[$0] == marker && nameLength(at: skippingMy($0 + 1)) != nil }) { return true }
        guard let verb else { return false }
        let next = wordAfterVerb(verb)
        return next < index && !taken[next] && nameLength(at: next) != nil
    }

    /// Where a person named right after the verb starts: "pay back my Jane".
    func wordAfterVerb(_ verb: Int) -> Int {
        var next = verb + 1
        while next < tokens.count, words[next] == "back" || words[next] == "my" { next += 1 }
        return next
    }

    /// How many words of a name start at `index`: a registered name (longest first), or up to
    /// four words that are not stop words.
    func nameLength(at index: Int) -> Int? {
        guard index < tokens.count, !taken[index], tokens[index].kind == .word else { return nil }
        if let length = phrase(parser.vocabularyWords, at: index) { return length }
        var end = index
        while end < tokens.count, end - index < 4, tokens[end].kind == .word, !taken[end],
              !UtteranceParser.nameStops.contains(words[end]), !NumberWords.isNumberWord(words[end]) || end > index {
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
        for position in tokens.indices where !taken[position] && tokens[position].kind != .symbol && !UtteranceParser.fillers.contains(words[position]) {
            result.unrecognized.append(original(position..<position + 1))
        }
    }
}
