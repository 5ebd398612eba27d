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

    /// `self × factor`, nil on overflow.
    func multiplied(by factor: UInt64) -> DecimalNumber? {
        let (product, overflow) = significand.multipliedReportingOverflow(by: factor)
        return overflow ? nil : DecimalNumber(significand: product, scale: scale, isNegative: isNegative)
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
        let decimalMark = UInt8(ascii: locale.decimalSeparator == "," ? "," : ".")
        var groupMark = UInt8(ascii: locale.groupingSeparator == "," ? "," : locale.groupingSeparator == " " ? " " : ".")
        let bytes = text.utf8
        // A space groups digits in French ("1 234,56"); so does "." there ("1.234,56").
        if groupMark == UInt8(ascii: " "), !bytes.contains(UInt8(ascii: " ")) { groupMark = UInt8(ascii: ".") }
        var number = DecimalNumber(significand: 0)
        var digitsInGroup = 0
        var groups = 0
        var inFraction = false
        var fractionDigits = 0
        var sawDigit = false
        // ".50" is half: a leading decimal mark is part of the number.
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let (times, overflow) = number.significand.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                if overflow || overflow2 { return nil }
                number.significand = sum
                sawDigit = true
                if inFraction { fractionDigits += 1 } else { digitsInGroup += 1 }
            case groupMark where !inFraction:
                // Groups after the first have exactly three digits; the first one to three.
                if groups == 0 {
                    guard digitsInGroup >= 1, digitsInGroup <= 3 else { return nil }
                } else {
                    guard digitsInGroup == 3 else { return nil }
                }
                groups += 1
                digitsInGroup = 0
            case decimalMark where !inFraction:
                if groups > 0 { guard digitsInGroup == 3 else { return nil } }
                inFraction = true
            default:
                return nil
            }
        }
        guard sawDigit, !inFraction || fractionDigits > 0 else { return nil }
        if !inFraction, groups > 0, digitsInGroup != 3 { return nil }
        if !inFraction, groups == 0, digitsInGroup == 0 { return nil }
        number.scale = fractionDigits
        guard number.scale <= maxScale else { return nil }
        return number
    }
}

