/// A transaction memo.
public enum Memo: Hashable, Sendable {
    case none
    /// Up to 28 bytes; usually UTF-8 text, but the protocol allows any bytes.
    case text([UInt8])
    case id(UInt64)
    case hash(Bytes32)
    case `return`(Bytes32)

    /// The largest text memo, in bytes.
    public static let maxTextBytes = 28

    /// A text memo.
    /// - Throws: ``MemoError`` when the UTF-8 text is longer than 28 bytes.
    public static func text(_ string: String) throws(MemoError) -> Memo {
        let bytes = Array(string.utf8)
        guard bytes.count <= maxTextBytes else {
            throw MemoError("a text memo holds at most 28 bytes; this one has \(bytes.count)")
        }
        return .text(bytes)
    }

    /// Horizon's `memo_type`: none, text, id, hash or return.
    public var typeName: String {
        switch self {
        case .none: "none"
        case .text: "text"
        case .id: "id"
        case .hash: "hash"
        case .return: "return"
        }
    }
}

/// Why a memo could not be made.
public struct MemoError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Memo: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("memo type")
        switch type {
        case 0: self = .none
        case 1: self = .text(try reader.readVariableOpaque(maxLength: Memo.maxTextBytes, "text memo"))
        case 2: self = .id(try reader.readUInt64("id memo"))
        case 3: self = .hash(try reader.readBytes32("hash memo"))
        case 4: self = .return(try reader.readBytes32("return memo"))
        default: throw .unknown("MemoType", Int64(type))
        }
    }

    public func encode(to writer: inout XDRWriter) {
        switch self {
        case .none: writer.write(Int32(0))
        case .text(let bytes): writer.write(Int32(1)); writer.writeVariableOpaque(bytes)
        case .id(let id): writer.write(Int32(2)); writer.write(id)
        case .hash(let hash): writer.write(Int32(3)); writer.write(hash)
        case .return(let hash): writer.write(Int32(4)); writer.write(hash)
        }
    }
}
