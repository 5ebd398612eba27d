/// A key that can sign for an account.
public enum SignerKey: Hashable, Sendable, CustomStringConvertible {
    case ed25519(Bytes32)
    case preAuthTx(Bytes32)
    case hashX(Bytes32)
    /// An ed25519 key that signs `payload` (1-64 bytes), CAP-40.
    case ed25519SignedPayload(Bytes32, payload: [UInt8])

    /// The StrKey text: `G...`, `T...`, `X...` or `P...`.
    public var strKey: String {
        switch self {
        case .ed25519(let key): return StrKey.encode(.accountID, key.bytes)
        case .preAuthTx(let hash): return StrKey.encode(.preAuthTx, hash.bytes)
        case .hashX(let hash): return StrKey.encode(.hashX, hash.bytes)
        case .ed25519SignedPayload(let key, let payload):
            var writer = XDRWriter()
            writer.write(key)
            writer.writeVariableOpaque(payload)
            return StrKey.encode(.signedPayload, writer.bytes)
        }
    }

    /// Horizon's signer `type`.
    public var typeName: String {
        switch self {
        case .ed25519: "ed25519_public_key"
        case .preAuthTx: "preauth_tx"
        case .hashX: "sha256_hash"
        case .ed25519SignedPayload: "ed25519_signed_payload"
        }
    }

    public var description: String { strKey }
}

extension SignerKey: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("signer key type")
        switch type {
        case 0: self = .ed25519(try reader.readBytes32("ed25519 signer"))
        case 1: self = .preAuthTx(try reader.readBytes32("pre-auth tx signer"))
        case 2: self = .hashX(try reader.readBytes32("hash-x signer"))
        case 3:
            let key = try reader.readBytes32("signed payload key")
            self = .ed25519SignedPayload(key, payload: try reader.readVariableOpaque(maxLength: 64, "signed payload"))
        default: throw .unknown("SignerKeyType", Int64(type))
        }
    }

    public func encode(to writer: inout XDRWriter) {
        switch self {
        case .ed25519(let key): writer.write(Int32(0)); writer.write(key)
        case .preAuthTx(let hash): writer.write(Int32(1)); writer.write(hash)
        case .hashX(let hash): writer.write(Int32(2)); writer.write(hash)
        case .ed25519SignedPayload(let key, let payload):
            writer.write(Int32(3)); writer.write(key); writer.writeVariableOpaque(payload)
        }
    }
}

/// A signer of an account and its weight (0 removes it).
public struct Signer: Hashable, Sendable {
    public var key: SignerKey
    public var weight: UInt32

    public init(key: SignerKey, weight: UInt32) {
        self.key = key
        self.weight = weight
    }
}

extension Signer: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        key = try SignerKey(xdr: &reader)
        weight = try reader.readUInt32("signer weight")
    }

    public func encode(to writer: inout XDRWriter) {
        key.encode(to: &writer)
        writer.write(weight)
    }
}

/// A signature with the hint (last four bytes of the signing key) that finds its signer.
public struct DecoratedSignature: Hashable, Sendable {
    public var hint: UInt32
    /// At most 64 bytes.
    public var signature: [UInt8]

    public init(hint: UInt32, signature: [UInt8]) {
        self.hint = hint
        self.signature = signature
    }

    public var hintBytes: [UInt8] {
        [UInt8(truncatingIfNeeded: hint >> 24), UInt8(truncatingIfNeeded: hint >> 16), UInt8(truncatingIfNeeded: hint >> 8), UInt8(truncatingIfNeeded: hint)]
    }
}

extension DecoratedSignature: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        hint = try reader.readUInt32("signature hint")
        signature = try reader.readVariableOpaque(maxLength: 64, "signature")
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(hint)
        writer.writeVariableOpaque(signature)
    }
}
