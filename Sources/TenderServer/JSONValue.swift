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
        var out = ""
        out.reserveCapacity(512)
        writeCompact(to: &out)
        return out
    }

    private func writeCompact(to out: inout String) {
        switch self {
        case .string(let text): out += JSONValue.quote(text)
        case .number(let value): out += String(value)
        case .unsigned(let value): out += String(value)
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.writeCompact(to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out += "," }
                out += JSONValue.quote(key)
                out += ":"
                value.writeCompact(to: &out)
            }
            out += "}"
        }
    }

    static func quote(_ text: String) -> String {
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
