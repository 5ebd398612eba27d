import Foundation

/// Standard base64 (RFC 4648, with padding), as Stellar uses for XDR.
public enum Base64 {
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        Data(bytes).base64EncodedString()
    }

    /// The decoded bytes, or nil when the text is not canonical padded base64.
    /// Surrounding whitespace is ignored, since XDR is often pasted from a terminal.
    public static func decode(_ text: String) -> [UInt8]? {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        let utf8 = text.utf8
        let needsTrim = utf8.first.map(isSpace) == true || utf8.last.map(isSpace) == true
        let trimmed = needsTrim ? text.trimmingCharacters(in: .whitespacesAndNewlines) : text
        guard let data = Data(base64Encoded: trimmed) else { return nil }
        return [UInt8](data)
    }
}
