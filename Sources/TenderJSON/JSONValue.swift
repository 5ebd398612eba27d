/// A JSON value whose objects keep their keys in the order given: pretty for people, compact
/// for the API.
public enum JSONValue: Sendable {
    case string(String)
    case number(Int64)
    case unsigned(UInt64)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// JSON already written (compact), spliced in as it is: a stored event, say. The caller
    /// vouches that the bytes are one valid JSON value.
    case raw([UInt8])

    /// Pretty-printed with two-space indentation.
    public func rendered() -> String {
        var out = ""
        write(to: &out, indent: 0)
        return out
    }

    private func write(to out: inout String, indent: Int) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closing = String(repeating: "  ", count: indent)
        switch self {
        case .string(let text): out += JSONValue.quote(text)
        case .number(let value): out += String(value)
        case .unsigned(let value): out += String(value)
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        case .raw(let bytes): out += String(decoding: bytes, as: UTF8.self)
        case .array(let values):
            guard !values.isEmpty else { out += "[]"; return }
            out += "[\n"
            for (index, value) in values.enumerated() {
                out += pad
                value.write(to: &out, indent: indent + 1)
                out += index == values.count - 1 ? "\n" : ",\n"
            }
            out += closing + "]"
        case .object(let fields):
            guard !fields.isEmpty else { out += "{}"; return }
            out += "{\n"
            for (index, (key, value)) in fields.enumerated() {
                out += pad + JSONValue.quote(key) + ": "
                value.write(to: &out, indent: indent + 1)
                out += index == fields.count - 1 ? "\n" : ",\n"
            }
            out += closing + "}"
        }
    }

    /// Compact, as the API sends it.
    public func compact() -> String {
        String(decoding: compactBytes(), as: UTF8.self)
    }

    /// Compact UTF-8 bytes, written straight into one buffer (the API's hot path).
    public func compactBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        writeCompact(to: &out)
        return out
    }

    func writeCompact(to out: inout [UInt8]) {
        switch self {
        case .string(let text): JSONValue.appendQuoted(text, to: &out)
        case .number(let value): JSONValue.appendDecimal(value, to: &out)
        case .unsigned(let value): out.append(contentsOf: String(value).utf8)
        case .bool(let value): out.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
        case .null: out.append(contentsOf: Self.nullBytes)
        case .raw(let bytes): out.append(contentsOf: bytes)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.writeCompact(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.appendQuoted(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.writeCompact(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8), nullBytes = Array("null".utf8)

    static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        out.append(contentsOf: String(value).utf8)
    }

    /// Appends `head`, `middle` and `tail` as one JSON string.
    static func appendQuoted(_ head: String, _ middle: String, _ tail: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(head, to: &out)
        appendEscaped(middle, to: &out)
        appendEscaped(tail, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `text` as a JSON string; text without quotes, backslashes or control characters
    /// (nearly all of it) is copied in one go.
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(text, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `text` escaped as inside a JSON string, without its quotes.
    public static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendEscaped(bytes: $0, to: &out) }
    }

    /// Appends the UTF-8 `bytes` escaped as inside a JSON string, without quotes.
    static func appendEscaped(bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if !needsEscaping(bytes) {
            out.append(contentsOf: bytes)
            return
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
    }

    /// Whether `bytes` hold a quote, a backslash or a control character: eight bytes at a time
    /// (a byte is one of them when a word tests zero in its place), the rest one by one. The
    /// word test can flag a byte that is none of them (only above one that is), never miss
    /// one; a flagged word sends the caller to the byte-by-byte escaping, which is exact.
    static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        func hasZeroByte(_ word: UInt64) -> Bool {
            (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0
        }
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + 8 <= raw.count {
            let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            if hasZeroByte(word & 0xE0E0_E0E0_E0E0_E0E0) || hasZeroByte(word ^ 0x2222_2222_2222_2222) || hasZeroByte(word ^ 0x5C5C_5C5C_5C5C_5C5C) {
                return true
            }
            offset += 8
        }
        return bytes[offset...].contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }

    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}
