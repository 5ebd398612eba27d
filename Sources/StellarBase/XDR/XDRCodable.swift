/// A value with a canonical XDR encoding and a strict decoder.
public protocol XDRCodable: Sendable {
    /// Reads one value from `reader`, advancing it past the value.
    /// - Throws: ``XDRError`` when the bytes are not a valid encoding.
    init(xdr reader: inout XDRReader) throws(XDRError)
    /// Appends the canonical encoding of the value to `writer`.
    func encode(to writer: inout XDRWriter)
}

extension XDRCodable {
    /// Decodes a whole byte buffer; bytes left over are an error.
    /// - Throws: ``XDRError``.
    public init(xdrBytes bytes: [UInt8]) throws(XDRError) {
        try self.init(xdrBytes: bytes, in: 0..<bytes.count)
    }

    /// Decodes the value in `range` of `bytes`; bytes of the range left over are an error.
    /// - Throws: ``XDRError``.
    public init(xdrBytes bytes: [UInt8], in range: Range<Int>) throws(XDRError) {
        var reader = XDRReader(bytes, in: range)
        self = try Self(xdr: &reader)
        try reader.finish()
    }

    /// Decodes a whole base64 text; bytes left over are an error.
    /// - Throws: ``XDRError`` (``XDRError/Code/invalidBase64`` when the text is not base64).
    public init(xdrBase64 text: String) throws(XDRError) {
        guard let bytes = Base64.decode(text) else {
            throw XDRError(.invalidBase64, "the text is not valid base64")
        }
        try self.init(xdrBytes: bytes)
    }

    /// The canonical XDR encoding.
    public var xdrBytes: [UInt8] {
        var writer = XDRWriter()
        encode(to: &writer)
        return writer.bytes
    }

    /// The canonical XDR encoding in base64.
    public var xdrBase64: String { Base64.encode(xdrBytes) }
}
