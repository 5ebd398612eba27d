import Foundation

/// Standard base64 (RFC 4648, with padding), as Stellar uses for XDR.
public enum Base64 {
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        Data(bytes).base64EncodedString()
    }

    /// The decoded bytes, or nil when the text is not canonical padded base64.
    /// Surrounding whitespace is ignored, since XDR is often pasted from a terminal.
    public static func decode(_ text: String) -> [UInt8]? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let data = Data(base64Encoded: trimmed) else { return nil }
        return [UInt8](data)
    }
}
