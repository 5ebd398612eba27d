/// How a language says numbers in words: its words and their values, its word for hundred,
/// its scales, the word that joins parts ("and", "en", "und", "et", "y"), and its ways.
struct NumberLexicon: Sendable {
    /// Words and their values: the atoms and, where numbers are written as one word (Dutch,
    /// German, Spanish), every compound below a thousand ("tweeenveertig", "zweiundzwanzig").
    var words: [String: UInt64]
    /// Multiplies what comes before it by a hundred: "hundred", "honderd", "hundert", "cent".
    var hundred: Set<String>
    /// "thousand", "million", "lakh", "crore", "dozen"...
    var scales: [String: UInt64]
    /// Joins parts: "a hundred and five", "vingt et un", "treinta y dos", "vier und zwanzig".
    var joiners: Set<String>
    /// Units before tens ("vierundzwanzig", "tweeënveertig").
    var unitBeforeTens = false
    /// French counting: "quatre-vingts" is 80, "soixante-dix" 70, "dix-sept" 17.
    var french = false
    /// The scales that may stand inside one word ("tweeduizend"), longest first, as bytes.
    let compoundScales: [([UInt8], UInt64)]

    init(words: [String: UInt64], hundred: Set<String>, scales: [String: UInt64], joiners: Set<String>, unitBeforeTens: Bool = false, french: Bool = false) {
        self.words = words
        self.hundred = hundred
        self.scales = scales
        self.joiners = joiners
        self.unitBeforeTens = unitBeforeTens
        self.french = french
        compoundScales = scales.filter { $0.key.utf8.count > 2 }.map { (Array($0.key.utf8), $0.value) }.sorted { $0.0.count > $1.0.count }
    }

    static let english: NumberLexicon = {
        var words: [String: UInt64] = [:]
        for (index, word) in "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(separator: " ").enumerated() {
            words[String(word)] = UInt64(index)
        }
        for (index, word) in "twenty thirty forty fifty sixty seventy eighty ninety".split(separator: " ").enumerated() { words[String(word)] = UInt64(20 + index * 10) }
        return NumberLexicon(
            words: words, hundred: ["hundred", "hundreds"],
            scales: ["thousand": 1_000, "thousands": 1_000, "million": 1_000_000, "millions": 1_000_000, "billion": 1_000_000_000,
                     "trillion": 1_000_000_000_000, "lakh": 100_000, "lakhs": 100_000, "lac": 100_000, "lacs": 100_000,
                     "crore": 10_000_000, "crores": 10_000_000, "dozen": 12, "k": 1_000, "m": 1_000_000, "bn": 1_000_000_000],
            joiners: ["and"])
    }()

    /// Every number below a thousand spelled as one word, from the language's pieces.
    static func compounds(units: [String: [String]], teens: [String], tens: [String], hundred: String, and: String,
                          hundredAlone: [String], restAfterHundred: (Int) -> [String]) -> [String: UInt64] {
        var spelled: [Int: [String]] = [:]
        for value in 1...9 { spelled[value] = units["\(value)"] }
        for (index, word) in teens.enumerated() { spelled[10 + index] = [word] }
        for (index, word) in tens.enumerated() { spelled[20 + index * 10] = [word] }
        for value in 21...99 where value % 10 != 0 {
            let unit = units["\(value % 10)c"] ?? units["\(value % 10)"]!
            spelled[value] = unit.flatMap { u in spelled[value - value % 10]!.map { u + and + $0 } }
        }
        for value in 100...999 {
            let heads = value / 100 == 1 ? hundredAlone : (units["\(value / 100)c"] ?? units["\(value / 100)"]!).map { $0 + hundred }
            let rests = value % 100 == 0 ? [""] : restAfterHundred(value % 100).isEmpty ? spelled[value % 100]! : restAfterHundred(value % 100)
            spelled[value] = heads.flatMap { head in rests.map { head + $0 } }
        }
        var words: [String: UInt64] = [:]
        for (value, forms) in spelled { for form in forms { words[form] = UInt64(value) } }
        return words
    }

    static let dutch: NumberLexicon = {
        let units = ["1": ["een"], "2": ["twee"], "3": ["drie"], "4": ["vier"], "5": ["vijf"], "6": ["zes"], "7": ["zeven"], "8": ["acht"], "9": ["negen"]]
        var words = compounds(
            units: units,
            teens: ["tien", "elf", "twaalf", "dertien", "veertien", "vijftien", "zestien", "zeventien", "achttien", "negentien"],
            tens: ["twintig", "dertig", "veertig", "vijftig", "zestig", "zeventig", "tachtig", "negentig"],
            hundred: "honderd", and: "en", hundredAlone: ["honderd", "eenhonderd"], restAfterHundred: { _ in [] })
        words["nul"] = 0
        return NumberLexicon(
            words: words, hundred: ["honderd"],
            scales: ["duizend": 1_000, "miljoen": 1_000_000, "miljoenen": 1_000_000, "miljard": 1_000_000_000, "k": 1_000],
            joiners: ["en"], unitBeforeTens: true)
    }()

    static let german: NumberLexicon = {
        let units = ["1": ["eins", "ein"], "1c": ["ein"], "2": ["zwei", "zwo"], "2c": ["zwei"], "3": ["drei"], "4": ["vier"], "5": ["funf"],
                     "6": ["sechs"], "7": ["sieben"], "8": ["acht"], "9": ["neun"]]
        var words = compounds(
            units: units,
            teens: ["zehn", "elf", "zwolf", "dreizehn", "vierzehn", "funfzehn", "sechzehn", "siebzehn", "achtzehn", "neunzehn"],
            tens: ["zwanzig", "dreissig", "vierzig", "funfzig", "sechzig", "siebzig", "achtzig", "neunzig"],
            hundred: "hundert", and: "und", hundredAlone: ["hundert", "einhundert"],
            restAfterHundred: { $0 == 1 ? ["eins", "ein", "undeins"] : [] })
        words["null"] = 0
        for form in ["eine", "einen", "einem"] { words[form] = 1 }
        // "fünf" and "zwölf" typed without the umlaut ("fuenf", "zwoelf").
        for (word, value) in words where word.contains("funf") || word.contains("zwolf") {
            words[word.replacing("funf", with: "fuenf").replacing("zwolf", with: "zwoelf")] = value
        }
        return NumberLexicon(
            words: words, hundred: ["hundert"],
            scales: ["tausend": 1_000, "million": 1_000_000, "millionen": 1_000_000, "milliarde": 1_000_000_000, "milliarden": 1_000_000_000,
                     "mio": 1_000_000, "mrd": 1_000_000_000, "k": 1_000, "tsd": 1_000],
            joiners: ["und"], unitBeforeTens: true)
    }()

    static let french: NumberLexicon = {
        var words: [String: UInt64] = [:]
        for (index, word) in "zero un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize".split(separator: " ").enumerated() {
            words[String(word)] = UInt64(index)
        }
        words["une"] = 1
        for (word, value) in ["vingt": 20, "vingts": 20, "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60, "septante": 70,
                              "huitante": 80, "octante": 80, "nonante": 90] as [String: UInt64] { words[word] = value }
        return NumberLexicon(
            words: words, hundred: ["cent", "cents"],
            scales: ["mille": 1_000, "mil": 1_000, "million": 1_000_000, "millions": 1_000_000, "milliard": 1_000_000_000, "milliards": 1_000_000_000, "k": 1_000],
            joiners: ["et"], french: true)
    }()

    static let spanish: NumberLexicon = {
        var words: [String: UInt64] = [:]
        for (index, word) in "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciseis diecisiete dieciocho diecinueve veinte".split(separator: " ").enumerated() {
            words[String(word)] = UInt64(index)
        }
        for (word, value) in ["un": 1, "una": 1, "veintiun": 21, "veintiuno": 21, "veintiuna": 21, "veintidos": 22, "veintitres": 23, "veinticuatro": 24,
                              "veinticinco": 25, "veintiseis": 26, "veintisiete": 27, "veintiocho": 28, "veintinueve": 29, "treinta": 30,
                              "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70, "ochenta": 80, "noventa": 90,
                              "cien": 100, "ciento": 100, "quinientos": 500, "quinientas": 500, "setecientos": 700, "setecientas": 700,
                              "novecientos": 900, "novecientas": 900] as [String: UInt64] {
            words[word] = value
        }
        for (prefix, value) in ["dos": 200, "tres": 300, "cuatro": 400, "seis": 600, "ocho": 800] as [String: UInt64] {
            words[prefix + "cientos"] = value
            words[prefix + "cientas"] = value
        }
        return NumberLexicon(
            words: words, hundred: [],
            scales: ["mil": 1_000, "millon": 1_000_000, "millones": 1_000_000, "billon": 1_000_000_000_000, "billones": 1_000_000_000_000, "k": 1_000],
            joiners: ["y"])
    }()

    /// One word as the pieces of a number, or nil when it is not one. Hyphenated words are read
    /// part by part ("twenty-five", "quatre-vingt-dix", "twee-en-veertig"); one-word compounds
    /// with a scale inside ("tweeduizendvijf", "dreitausend") are split at the scale.
    func pieces(_ word: String) -> [NumberPiece]? {
        if let value = words[word] { return [.value(value)] }
        if hundred.contains(word) { return [.hundred] }
        if let scale = scales[word] { return [.scale(scale)] }
        if joiners.contains(word) { return [.join] }
        if word.utf8.contains(UInt8(ascii: "-")) {
            var all: [NumberPiece] = []
            for part in word.split(separator: "-") {
                guard let pieces = pieces(String(part)) else { return nil }
                all += pieces
            }
            return all.isEmpty || all.first == .join || all.last == .join ? nil : all
        }
        guard unitBeforeTens, word.utf8.count > 4 else { return nil }
        let bytes = Array(word.utf8)
        for (scaleBytes, scale) in compoundScales {
            guard let at = Self.find(scaleBytes, in: bytes) else { continue }
            let before = String(decoding: bytes[..<at], as: UTF8.self), after = String(decoding: bytes[(at + scaleBytes.count)...], as: UTF8.self)
            var result: [NumberPiece] = []
            if !before.isEmpty {
                guard let value = words[before] else { continue }
                result.append(.value(value))
            }
            result.append(.scale(scale))
            if !after.isEmpty {
                guard let rest = pieces(after) else { continue }
                result += rest
            }
            return result
        }
        return nil
    }


    /// Where `needle` first stands in `haystack`.
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count, let first = needle.first else { return nil }
        var index = 0
        while index + needle.count <= haystack.count {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    func isNumberWord(_ word: String) -> Bool {
        words[word] != nil || hundred.contains(word) || scales[word] != nil && word.utf8.count > 2 || (word.utf8.contains(UInt8(ascii: "-")) && pieces(word) != nil)
    }
}

enum NumberPiece: Equatable, Sendable {
    case value(UInt64), hundred, scale(UInt64), join
}

/// Reads number words into a value: "twenty five" is 25 (not 2005), "a hundred and five" 105,
/// "two thousand three hundred" 2,300, "quatre-vingt-dix-neuf" 99, "tweeënveertig" 42,
/// "treinta y dos" 32, "cinq cents" 500, "mil millones" a billion. Each word must fit what came
/// before; the longest reading that fits, ending at a whole word, is taken.
struct NumberReader {
    let lexicon: NumberLexicon

    private enum Kind { case none, unit, teen, tens, compound, hundred, scale, join }

    private struct State {
        var total: UInt64 = 0
        var group: UInt64 = 0
        var last: Kind = .none
        var lastValue: UInt64 = 0
        var beforeJoin: Kind = .none
        var groupHasHundred = false
        var largestScale: UInt64 = 0
        var value: UInt64 { total + group }
    }

    /// Reads from `words[start...]`: the value and how many words it took. `one` turns the
    /// articles before a unit into one ("a hundred", "a dollar"), `nil` on overflow or none.
    func read(_ words: [String], from start: Int, isOne: (Int) -> Bool) -> (value: UInt64, length: Int, lastScale: UInt64?)? {
        var state = State()
        var best: (UInt64, Int, UInt64?)?
        var index = start
        while index < words.count, index - start < 32 {
            let pieces: [NumberPiece]
            if index == start, lexicon.scales[words[index]] != nil, words[index].utf8.count <= 2 {
                break  // "k", "m": only after digits
            } else if let found = lexicon.pieces(words[index]) {
                pieces = found
            } else if isOne(index), index == start {
                pieces = [.value(1)]
            } else {
                break
            }
            var next = state
            var fits = true
            for piece in pieces {
                guard let moved = step(next, piece) else {
                    fits = false
                    break
                }
                next = moved
            }
            guard fits else { break }
            state = next
            index += 1
            if state.last != .join, state.last != .none { best = (state.value, index - start, state.last == .scale && state.group == 0 ? state.largestScale : nil) }
        }
        return best
    }

    private func kind(of value: UInt64) -> Kind {
        value < 10 ? .unit : value < 20 ? .teen : value < 100 ? (value % 10 == 0 ? .tens : .compound) : .hundred
    }

    private func step(_ state: State, _ piece: NumberPiece) -> State? {
        var state = state
        let afterJoin = state.last == .join ? state.beforeJoin : nil
        let fresh = state.last == .none || state.last == .scale || state.last == .hundred
        switch piece {
        case .join:
            guard state.last != .none, state.last != .join else { return nil }
            state.beforeJoin = state.last
            state.last = .join
        case .hundred:
            guard afterJoin == nil else { return nil }
            if state.group == 0, state.last == .none || state.last == .scale {
                state.group = 100
            } else if [.unit, .teen, .compound, .tens].contains(state.last), !state.groupHasHundred, state.group < 100, state.group > 0 {
                state.group *= 100
            } else {
                return nil
            }
            state.groupHasHundred = true
            state.last = .hundred
        case .scale(let scale):
            guard afterJoin == nil, state.last != .scale || scale > state.largestScale else { return nil }
            let multiplier = state.group == 0 ? 1 : state.group
            if state.total > 0, scale > state.largestScale {
                // "mil millones", "two thousand three hundred million"
                let (sum, o1) = state.total.addingReportingOverflow(state.group)
                let (product, o2) = sum.multipliedReportingOverflow(by: scale)
                guard !o1, !o2 else { return nil }
                state.total = product
            } else {
                let (product, o1) = multiplier.multipliedReportingOverflow(by: scale)
                let (sum, o2) = state.total.addingReportingOverflow(product)
                guard !o1, !o2 else { return nil }
                state.total = sum
            }
            state.largestScale = max(state.largestScale, scale)
            state.group = 0
            state.groupHasHundred = false
            state.last = .scale
        case .value(let value):
            let kind = kind(of: value)
            var fits = false
            switch kind {
            case .unit:
                fits = fresh && state.group % 100 == 0
                    || state.last == .tens && state.lastValue >= 20
                    || afterJoin == .tens && !lexicon.unitBeforeTens
                    || (afterJoin == .hundred || afterJoin == .scale) && state.group % 100 == 0
                    || lexicon.french && state.last == .teen && state.lastValue == 10
            case .teen:
                fits = fresh && state.group % 100 == 0
                    || (afterJoin == .hundred || afterJoin == .scale) && state.group % 100 == 0
                    || lexicon.french && (state.last == .tens || afterJoin == .tens) && (state.lastValue == 60 || state.lastValue == 80)
            case .tens:
                if lexicon.french, state.last == .unit, state.lastValue == 4, value == 20 {
                    // quatre-vingts
                    state.group += 76
                    state.last = .tens
                    state.lastValue = 80
                    return state
                }
                fits = fresh && state.group % 100 == 0
                    || (afterJoin == .hundred || afterJoin == .scale) && state.group % 100 == 0
                    || lexicon.unitBeforeTens && afterJoin == .unit
            case .compound:
                fits = fresh && state.group % 100 == 0 || (afterJoin == .hundred || afterJoin == .scale) && state.group % 100 == 0
            case .hundred:
                // One word for hundreds: "tweehonderdvijftig", "doscientos", "ciento".
                fits = (state.last == .none || state.last == .scale) && state.group == 0
                if fits {
                    state.groupHasHundred = true
                    state.group = value
                    state.last = value % 100 == 0 ? .hundred : .compound
                    state.lastValue = value
                    return state
                }
            default:
                fits = false
            }
            guard fits else { return nil }
            if afterJoin == .unit, kind == .tens {
                state.group += value
                state.last = .compound
            } else {
                state.group += value
                state.last = kind
            }
            state.lastValue = value
        }
        return state
    }
}
