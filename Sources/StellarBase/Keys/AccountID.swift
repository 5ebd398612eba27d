/// A Stellar account: an ed25519 public key (`PublicKey` of type `PUBLIC_KEY_TYPE_ED25519` in XDR).
public struct AccountID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let publicKey: Bytes32

    public init(publicKey: Bytes32) { self.publicKey = publicKey }

    /// Parses a `G...` account id.
    /// - Throws: ``StrKeyError`` when the text is not a valid account id.
    public init(_ strKey: String) throws(StrKeyError) {
        if let key = StrKey.accountKey(strKey) {
            self.init(publicKey: key)
        } else {
            // Not a valid account id: the general decoder says why.
            self.init(publicKey: Bytes32(try StrKey.decode(.accountID, strKey)))
        }
    }

    /// The `G...` text.
    public var strKey: String { StrKey.encode(.accountID, publicKey.bytes) }
    public var description: String { strKey }

    public static func < (lhs: AccountID, rhs: AccountID) -> Bool { lhs.publicKey < rhs.publicKey }

    public func hash(into hasher: inout Hasher) { publicKey.hash(into: &hasher) }

    /// The public key's fast hash (see ``Bytes32/_rawHashValue(seed:)``): accounts are the keys
    /// the ledger looks up most.
    public func _rawHashValue(seed: Int) -> Int { publicKey._rawHashValue(seed: seed) }
}

extension AccountID: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("public key type")
        guard type == 0 else { throw .unknown("PublicKeyType", Int64(type)) }
        publicKey = try reader.readBytes32("ed25519 public key")
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(Int32(0))
        writer.write(publicKey)
    }
}

/// An account, optionally with a 64-bit sub-account id (SEP-23 muxed account, `M...`).
public enum MuxedAccount: Hashable, Sendable, CustomStringConvertible {
    case ed25519(AccountID)
    case muxed(id: UInt64, AccountID)

    /// Parses a `G...` or `M...` address.
    /// - Throws: ``StrKeyError`` when the text is neither.
    public init(_ strKey: String) throws(StrKeyError) {
        let (kind, payload) = try StrKey.decodeAny(strKey)
        switch kind {
        case .accountID:
            self = .ed25519(AccountID(publicKey: Bytes32(payload)))
        case .muxedAccount:
            var id: UInt64 = 0
            for byte in payload[32..<40] { id = id << 8 | UInt64(byte) }
            self = .muxed(id: id, AccountID(publicKey: Bytes32(payload[0..<32])))
        default:
            throw StrKeyError(.wrongKind, "expected an account id (G...) or muxed account (M...), got a \(kind) (\(kind.prefix)...)")
        }
    }

    /// The underlying account, without the muxed id.
    public var accountID: AccountID {
        switch self {
        case .ed25519(let account), .muxed(_, let account): account
        }
    }

    /// The muxed id, if any.
    public var muxedID: UInt64? {
        if case .muxed(let id, _) = self { return id }
        return nil
    }

    /// `G...` for a plain account, `M...` for a muxed one.
    public var strKey: String {
        switch self {
        case .ed25519(let account):
            return account.strKey
        case .muxed(let id, let account):
            var payload = account.publicKey.bytes
            for shift in stride(from: 56, through: 0, by: -8) { payload.append(UInt8(truncatingIfNeeded: id >> UInt64(shift))) }
            return StrKey.encode(.muxedAccount, payload)
        }
    }

    public var description: String { strKey }
}

extension MuxedAccount: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("muxed account type")
        switch type {
        case 0:
            self = .ed25519(AccountID(publicKey: try reader.readBytes32("ed25519 key")))
        case 0x100:
            let id = try reader.readUInt64("muxed id")
            self = .muxed(id: id, AccountID(publicKey: try reader.readBytes32("ed25519 key")))
        default:
            throw .unknown("CryptoKeyType of MuxedAccount", Int64(type))
        }
    }

    public func encode(to writer: inout XDRWriter) {
        switch self {
        case .ed25519(let account):
            writer.write(Int32(0))
            writer.write(account.publicKey)
        case .muxed(let id, let account):
            writer.write(Int32(0x100))
            writer.write(id)
            writer.write(account.publicKey)
        }
    }
}
