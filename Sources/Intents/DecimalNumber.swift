/// An exact decimal number, `significand × 10^-scale`, with its sign: what an utterance said,
/// before it is a currency amount. Arithmetic is checked; nothing is rounded.
public struct DecimalNumber: Hashable, Sendable, CustomStringConvertible {
    public var significand: UInt64
    public var scale: Int
    public var isNegative: Bool

    public init(significand: UInt64, scale: Int = 0, isNegative: Bool = false) {
        self.significand = significand
        self.scale = scale
        self.isNegative = isNegative
    }

    /// The most decimals kept (more is refused, not rounded).
    static let maxScale = 18

    /// Without trailing zeros after the point: 20.0 is 20, 12.50 is 12.5.
    var normalized: DecimalNumber {
        var copy = self
        while copy.scale > 0, copy.significand % 10 == 0 {
            copy.significand /= 10
            copy.scale -= 1
        }
        if copy.significand == 0 { copy.isNegative = false }
        return copy
    }

    /// "12.5", "-3", "0.05": the shortest exact form.
    public var description: String {
        let value = normalized
        var digits = String(value.significand)
        if value.scale > 0 {
            if digits.count <= value.scale { digits = String(repeating: "0", count: value.scale - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -value.scale))
        }
        return (value.isNegative ? "-" : "") + digits
    }

    /// `self × 10^power`, nil on overflow.
    func shifted(by power: Int) -> DecimalNumber? {
        var copy = self
        var power = power
        while power > 0, copy.scale > 0 {
            copy.scale -= 1
            power -= 1
        }
        for _ in 0..<max(0, power) {
            let (product, overflow) = copy.significand.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            copy.significand = product
        }
        return copy
    }

    /// The same value with `scale` decimals (more decimals only), nil on overflow.
    func rescaled(to scale: Int) -> DecimalNumber? {
        guard scale >= self.scale else { return nil }
        var copy = self
        for _ in self.scale..<scale {
            let (product, overflow) = copy.significand.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            copy.significand = product
        }
        copy.scale = scale
        return copy
    }

    /// The sum of two non-negative numbers, nil on overflow.
    func adding(_ other: DecimalNumber) -> DecimalNumber? {
        let scale = max(self.scale, other.scale)
        guard let left = rescaled(to: scale), let right = other.rescaled(to: scale) else { return nil }
        let (sum, overflow) = left.significand.addingReportingOverflow(right.significand)
        return overflow ? nil : DecimalNumber(significand: sum, scale: scale, isNegative: isNegative)
    }

    /// Whole minor units for `exponent` decimals; nil when it has more decimals than that or
    /// does not fit an Int64.
    public func minorUnits(exponent: Int) -> Int64? {
        let value = normalized
        guard value.scale <= exponent, let scaled = value.rescaled(to: exponent), scaled.significand <= UInt64(Int64.max) else { return nil }
        return value.isNegative ? -Int64(scaled.significand) : Int64(scaled.significand)
    }

    /// A number written in digits, read by the locale's marks: "1,234.56" in English and
    /// "1.234,56" in Dutch. Groups must have three digits, so "12,50" is not a number in English
    /// (nil: the caller reports it instead of guessing).
    static func parse(digits text: String, locale: IntentLocale) -> DecimalNumber? {
        let decimalMark = locale.decimalSeparator
        let groupMark = locale.groupingSeparator
        var parts = text.split(separator: decimalMark, omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        let fraction = parts.count == 2 ? parts.removeLast() : nil
        let groups = parts[0].split(separator: groupMark, omittingEmptySubsequences: false)
        guard let first = groups.first, !first.isEmpty else { return nil }
        if groups.count > 1 {
            guard first.count <= 3, groups.dropFirst().allSatisfy({ $0.count == 3 }) else { return nil }
        }
        if let fraction, fraction.isEmpty || fraction.contains(groupMark) { return nil }
        var number = DecimalNumber(significand: 0)
        for character in groups.joined() + (fraction ?? "") {
            guard let digit = character.wholeNumberValue, character.isASCII else { return nil }
            let (times, overflow) = number.significand.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(digit))
            if overflow || overflow2 { return nil }
            number.significand = sum
        }
        number.scale = fraction?.count ?? 0
        guard number.scale <= maxScale else { return nil }
        return number
    }
}

/// Numbers said in words: "twenty five" is 25 (not 2005), "a hundred and five" 105,
/// "two thousand three hundred" 2,300.
enum NumberWords {
    static let units: [String: UInt64] = [
        "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
        "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
        "seventeen": 17, "eighteen": 18, "nineteen": 19,
    ]
    static let tens: [String: UInt64] = [
        "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    ]
    static let scales: [String: UInt64] = ["thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000]

    static func isNumberWord(_ word: String) -> Bool {
        if units[word] != nil || tens[word] != nil || word == "hundred" || scales[word] != nil { return true }
        guard word.utf8.contains(UInt8(ascii: "-")) else { return false }
        let parts = word.split(separator: "-")
        return parts.count == 2 && parts.allSatisfy { isNumberWord(String($0)) }
    }

    /// Reads number words from `words[start...]`: the value and how many words it took, or nil
    /// when none is there. "a"/"an" count as one before "hundred", "thousand" or `oneBefore`
    /// words (currency names: "a dollar").
    static func read(_ words: [String], from start: Int, oneBefore: (String) -> Bool) -> (UInt64, Int)? {
        var pieces: [String] = []
        var positions: [Int] = []
        var index = start
        while index < words.count, pieces.count < 32 {
            let word = words[index]
            let split = word.utf8.contains(UInt8(ascii: "-")) ? word.split(separator: "-").map(String.init) : []
            if split.count == 2, split.allSatisfy({ units[$0] != nil || tens[$0] != nil }) {
                pieces += split
                positions += [index, index]
            } else if isNumberWord(word) {
                pieces.append(word)
                positions.append(index)
            } else if (word == "a" || word == "an"), pieces.isEmpty, index + 1 < words.count,
                      words[index + 1] == "hundred" || scales[words[index + 1]] != nil || oneBefore(words[index + 1]) {
                pieces.append("one")
                positions.append(index)
            } else if word == "and", !pieces.isEmpty, index + 1 < words.count, pieces.last == "hundred" || scales[pieces.last!] != nil,
                      units[words[index + 1]] != nil || tens[words[index + 1]] != nil || isNumberWord(words[index + 1]) {
                // "a hundred and five"
            } else {
                break
            }
            index += 1
        }
        guard !pieces.isEmpty else { return nil }
        // Read the longest well-formed prefix.
        var total: UInt64 = 0
        var current: UInt64 = 0
        var last: String = ""  // "unit", "teen", "tens", "hundred", "scale"
        var usedPieces = 0
        for piece in pieces {
            if let value = units[piece] {
                let kind = value < 10 ? "unit" : "teen"
                if last == "unit" || last == "teen" || (last == "tens" && kind == "teen") { break }
                current += value
                last = kind
            } else if let value = tens[piece] {
                if last == "unit" || last == "teen" || last == "tens" { break }
                current += value
                last = "tens"
            } else if piece == "hundred" {
                if last == "hundred" || current >= 100 { break }
                current = (current == 0 ? 1 : current) * 100
                last = "hundred"
            } else if let scale = scales[piece] {
                if last == "scale" { break }
                let (product, overflow) = (current == 0 ? 1 : current).multipliedReportingOverflow(by: scale)
                guard !overflow else { return nil }
                total += product
                current = 0
                last = "scale"
            }
            usedPieces += 1
        }
        guard usedPieces > 0 else { return nil }
        let lastPosition = positions[usedPieces - 1]
        return (total + current, lastPosition - start + 1)
    }
}
