/// A failure to decode XDR bytes into a Stellar value.
///
/// Every way the strict decoder can refuse input has its own stable ``Code``; the message says
/// where and why in words a person can act on. The decoder never traps on bad input.
public struct XDRError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The input ended before the value was complete.
        public static let truncated = Code("xdr_truncated")
        /// Bytes remained after the value was complete.
        public static let trailingBytes = Code("xdr_trailing_bytes")
        /// A union discriminant or enum value that the type does not define.
        public static let unknownDiscriminant = Code("xdr_unknown_discriminant")
        /// A variable-length array, string or opaque was longer than its bound.
        public static let lengthOutOfBounds = Code("xdr_length_out_of_bounds")
        /// Padding bytes were not zero, or an optional flag was neither 0 nor 1.
        public static let nonCanonical = Code("xdr_non_canonical")
        /// A well-formed value of a kind Tender does not support (for example a Soroban operation).
        public static let unsupported = Code("xdr_unsupported")
        /// The text was not valid base64.
        public static let invalidBase64 = Code("xdr_invalid_base64")
    }

    public let code: Code
    public let message: String
    /// For ``Code/unsupported``: the name of the unsupported operation or feature, as Stellar names it.
    public let unsupportedName: String?

    public init(_ code: Code, _ message: String, unsupportedName: String? = nil) {
        self.code = code
        self.message = message
        self.unsupportedName = unsupportedName
    }

    public var description: String { "\(code): \(message)" }

    static func truncated(_ what: String) -> XDRError {
        XDRError(.truncated, "input ended while reading \(what)")
    }

    static func unknown(_ what: String, _ value: Int64) -> XDRError {
        XDRError(.unknownDiscriminant, "unknown \(what) discriminant \(value)")
    }

    static func tooLong(_ what: String, _ length: UInt32, max: Int) -> XDRError {
        XDRError(.lengthOutOfBounds, "\(what) has length \(length), more than the allowed \(max)")
    }

    static func unsupported(_ name: String, _ detail: String) -> XDRError {
        XDRError(.unsupported, detail, unsupportedName: name)
    }
}
