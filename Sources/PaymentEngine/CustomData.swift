/// Paylike's `custom` data: any JSON the merchant wants back with the transaction. Numbers are
/// integers only (no floating point anywhere near money).
public indirect enum CustomData: Sendable, Equatable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case null
    case array([CustomData])
    case object([String: CustomData])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([CustomData].self) { self = .array(value) }
        else { self = .object(try container.decode([String: CustomData].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// What `beforePayment` may change: the text shown on the merchant's dashboard and the custom
/// data sent with the payment.
public struct PaymentExtras: Sendable, Equatable {
    public var text: String?
    public var custom: CustomData?

    public init(text: String? = nil, custom: CustomData? = nil) {
        self.text = text
        self.custom = custom
    }
}
