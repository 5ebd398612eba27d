/// An unsigned 128-bit product of two non-negative 64-bit integers, for the exact price
/// arithmetic of offer crossing (stellar-core's `uint128_t`). Portable to every platform Swift
/// runs on, unlike the standard library's `UInt128`.
struct U128: Comparable, Sendable {
    var high: UInt64
    var low: UInt64

    /// `a × b` for non-negative `a` and `b`.
    init(_ a: Int64, _ b: Int64) {
        precondition(a >= 0 && b >= 0, "U128 multiplies non-negative numbers only")
        (high, low) = UInt64(a).multipliedFullWidth(by: UInt64(b))
    }

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    static func < (lhs: U128, rhs: U128) -> Bool {
        lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
    }

    static func - (lhs: U128, rhs: U128) -> U128 {
        let (low, borrow) = lhs.low.subtractingReportingOverflow(rhs.low)
        return U128(high: lhs.high - rhs.high - (borrow ? 1 : 0), low: low)
    }

    /// `self / divisor`, rounded as asked; nil when the quotient does not fit in an `Int64`.
    func divided(by divisor: Int64, roundingUp: Bool) -> Int64? {
        precondition(divisor > 0, "division by a non-positive number")
        let d = UInt64(divisor)
        guard high < d else { return nil }
        var (quotient, remainder) = d.dividingFullWidth((high, low))
        if roundingUp && remainder != 0 {
            guard quotient < UInt64.max else { return nil }
            quotient += 1
            remainder = 0
        }
        guard quotient <= UInt64(Int64.max) else { return nil }
        return Int64(quotient)
    }
}

enum Rounding {
    case down, up
}

/// `a × b / c` with the given rounding (stellar-core's `bigDivide`); nil when the result does not
/// fit in an `Int64`. All arguments are non-negative and `c` positive.
func bigDivide(_ a: Int64, _ b: Int64, _ c: Int64, _ rounding: Rounding) -> Int64? {
    U128(a, b).divided(by: c, roundingUp: rounding == .up)
}

/// Like ``bigDivide(_:_:_:_:)``, for callers whose arguments guarantee the result fits;
/// a failure there is a bug in the exchange arithmetic, not bad input.
func bigDivideOrTrap(_ a: Int64, _ b: Int64, _ c: Int64, _ rounding: Rounding) -> Int64 {
    guard let result = bigDivide(a, b, c, rounding) else { preconditionFailure("bigDivide overflow: \(a) × \(b) / \(c)") }
    return result
}

func bigDivideOrTrap(_ value: U128, _ c: Int64, _ rounding: Rounding) -> Int64 {
    guard let result = value.divided(by: c, roundingUp: rounding == .up) else { preconditionFailure("bigDivide overflow") }
    return result
}
