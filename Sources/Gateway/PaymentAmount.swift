/// An amount as Paylike's protocol writes it, `{currency, value, exponent}`: `value × 10^-exponent`
/// of `currency`. Integers only; two amounts are equal when they are the same money, whatever
/// their exponents ("10.00" and "10" EUR).
public struct PaymentAmount: Sendable, Codable, CustomStringConvertible {
    public let currency: String
    public let value: Int64
    public let exponent: Int

    /// The most decimals an amount may have.
    public static let maxExponent = 18

    public enum AmountError: Error, Equatable, Sendable {
        case invalidCurrency, invalidExponent, tooLarge
    }

    /// - Throws: ``AmountError`` for a currency that is not three letters, an exponent outside
    ///   0...18.
    public init(currency: String, value: Int64, exponent: Int) throws(AmountError) {
        guard currency.utf8.count == 3, currency.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else { throw .invalidCurrency }
        guard (0...Self.maxExponent).contains(exponent) else { throw .invalidExponent }
        self.currency = currency
        self.value = value
        self.exponent = exponent
    }

    /// The same money with no trailing zeros after the point.
    var normalized: (value: Int64, exponent: Int) {
        var (value, exponent) = (self.value, self.exponent)
        while exponent > 0, value % 10 == 0 {
            value /= 10
            exponent -= 1
        }
        return (value, exponent)
    }

    /// The value with `exponent` decimals, or nil when it has more decimals than that or the
    /// result does not fit an Int64.
    public func value(atExponent target: Int) -> Int64? {
        let (value, exponent) = normalized
        guard target >= exponent, target <= Self.maxExponent else { return nil }
        var result = value
        for _ in exponent..<target {
            let (product, overflow) = result.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            result = product
        }
        return result
    }

    /// Orders two amounts of the same currency exactly (-1, 0, 1); nil for different currencies.
    public func compare(to other: PaymentAmount) -> Int? {
        guard currency == other.currency else { return nil }
        let (a, b) = (normalized, other.normalized)
        let common = max(a.exponent, b.exponent)
        // At most 10^18 × Int64.max: it fits 128 bits.
        func widened(_ value: Int64, _ exponent: Int) -> Int128 {
            var wide = Int128(value)
            for _ in exponent..<common { wide *= 10 }
            return wide
        }
        let (left, right) = (widened(a.value, a.exponent), widened(b.value, b.exponent))
        return left < right ? -1 : left > right ? 1 : 0
    }

    public var description: String {
        let (value, exponent) = normalized
        var digits = String(value.magnitude)
        if exponent > 0 {
            if digits.count <= exponent { digits = String(repeating: "0", count: exponent - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -exponent))
        }
        return (value < 0 ? "-" : "") + digits + " " + currency
    }
}

extension PaymentAmount: Hashable {
    public static func == (a: PaymentAmount, b: PaymentAmount) -> Bool { a.compare(to: b) == 0 }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(currency)
        let (value, exponent) = normalized
        hasher.combine(value)
        hasher.combine(exponent)
    }
}
