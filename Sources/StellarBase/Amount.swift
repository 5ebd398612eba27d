/// Stellar amounts: `Int64` stroops, written as decimals with up to 7 places (1 unit = 10^7 stroops).
public enum Amount {
    /// Stroops in one unit.
    public static let stroopsPerUnit: Int64 = 10_000_000
    /// The largest amount: 922337203685.4775807.
    public static let max = Int64.max

    /// Parses a non-negative decimal such as "10", "10.5" or "0.0000001" into stroops.
    ///
    /// Only digits and one optional point are accepted: no sign, exponent, spaces or separators.
    /// As in the Stellar SDKs, "5." and ".5" are read as 5 and 0.5.
    /// - Throws: ``AmountError`` naming what is wrong.
    public static func parse(_ text: String) throws(AmountError) -> Int64 {
        let utf8 = Array(text.utf8)
        guard !utf8.isEmpty else { throw AmountError(.empty, "the amount is empty") }
        guard utf8.count <= 40 else { throw AmountError(.overflow, "the amount \"\(text.prefix(40))...\" is too long") }
        var whole: Int64 = 0
        var fraction: Int64 = 0
        var fractionDigits = 0
        var wholeDigits = 0
        var seenPoint = false
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = Int64(byte - UInt8(ascii: "0"))
                if seenPoint {
                    fractionDigits += 1
                    guard fractionDigits <= 7 else {
                        throw AmountError(.tooManyDecimals, "\"\(text)\" has more than 7 decimal places")
                    }
                    fraction = fraction * 10 + digit
                } else {
                    wholeDigits += 1
                    let (times10, overflow1) = whole.multipliedReportingOverflow(by: 10)
                    let (next, overflow2) = times10.addingReportingOverflow(digit)
                    guard !overflow1, !overflow2 else { throw AmountError(.overflow, "\"\(text)\" is larger than 922337203685.4775807") }
                    whole = next
                }
            case UInt8(ascii: "."):
                guard !seenPoint else { throw AmountError(.invalidCharacter, "\"\(text)\" has more than one decimal point") }
                seenPoint = true
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                throw AmountError(.signed, "\"\(text)\" has a sign; amounts are written without one")
            default:
                throw AmountError(.invalidCharacter, "\"\(text)\" is not a decimal number")
            }
        }
        guard wholeDigits > 0 || fractionDigits > 0 else { throw AmountError(.invalidCharacter, "\"\(text)\" has no digits") }
        for _ in fractionDigits..<7 { fraction *= 10 }
        let (scaled, overflow1) = whole.multipliedReportingOverflow(by: stroopsPerUnit)
        let (total, overflow2) = scaled.addingReportingOverflow(fraction)
        guard !overflow1, !overflow2 else { throw AmountError(.overflow, "\"\(text)\" is larger than 922337203685.4775807") }
        return total
    }

    /// Formats stroops with exactly 7 decimals, as Horizon does: 105000000 → "10.5000000".
    ///
    /// Written digit by digit from the end into a buffer on the stack, then made a string once:
    /// every amount Horizon's resources show passes here (an account's answer has at least three).
    public static func format(_ stroops: Int64) -> String {
        // Int64.min: a sign, 12 whole digits, the point and 7 decimals.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { buffer in
            var magnitude = stroops.magnitude
            var start = buffer.count
            func put(_ byte: UInt8) {
                start -= 1
                buffer[start] = byte
            }
            for _ in 0..<7 {
                put(UInt8(ascii: "0") + UInt8(magnitude % 10))
                magnitude /= 10
            }
            put(UInt8(ascii: "."))
            repeat {
                put(UInt8(ascii: "0") + UInt8(magnitude % 10))
                magnitude /= 10
            } while magnitude > 0
            if stroops < 0 { put(UInt8(ascii: "-")) }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[start...]), as: UTF8.self)
        }
    }
}

/// Why an amount could not be parsed.
public struct AmountError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let empty = Code("amount_empty")
        public static let invalidCharacter = Code("amount_invalid")
        public static let signed = Code("amount_signed")
        public static let tooManyDecimals = Code("amount_too_many_decimals")
        public static let overflow = Code("amount_overflow")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
