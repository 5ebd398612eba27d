import Crypto

/// A Stellar network, identified by its passphrase.
public struct Network: Hashable, Sendable {
    public let passphrase: String
    /// SHA-256 of the passphrase.
    public let networkID: Bytes32

    public init(passphrase: String) {
        self.passphrase = passphrase
        self.networkID = sha256(Array(passphrase.utf8))
    }

    /// "Standalone Network ; February 2017": a local network, and Tender's default.
    public static let standalone = Network(passphrase: "Standalone Network ; February 2017")
    /// "Test SDF Network ; September 2015".
    public static let testnet = Network(passphrase: "Test SDF Network ; September 2015")
    /// "Public Global Stellar Network ; September 2015".
    public static let publicNetwork = Network(passphrase: "Public Global Stellar Network ; September 2015")
}

/// Bounds every transaction respects.
public enum TransactionLimits {
    public static let maxOperations = 100
    public static let maxSignatures = 20
}

/// A transaction (the body of a V1 envelope).
public struct Transaction: Hashable, Sendable {
    public var sourceAccount: MuxedAccount
    /// The most the source pays, in stroops, for all operations.
    public var fee: UInt32
    public var sequenceNumber: Int64
    public var preconditions: Preconditions
    public var memo: Memo
    /// 1-100 operations (0 decodes, and the ledger answers tx_missing_operation).
    public var operations: [Operation]

    public init(
        sourceAccount: MuxedAccount, fee: UInt32, sequenceNumber: Int64,
        preconditions: Preconditions = .none, memo: Memo = .none, operations: [Operation]
    ) {
        self.sourceAccount = sourceAccount
        self.fee = fee
        self.sequenceNumber = sequenceNumber
        self.preconditions = preconditions
        self.memo = memo
        self.operations = operations
    }

    /// The hash that signers sign on `network`.
    public func hash(on network: Network) -> Bytes32 {
        var writer = XDRWriter(capacity: 512)
        writer.write(network.networkID)
        writer.write(Int32(EnvelopeType.tx.rawValue))
        encode(to: &writer)
        return sha256(writer.bytes)
    }
}

extension Transaction: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        sourceAccount = try MuxedAccount(xdr: &reader)
        fee = try reader.readUInt32("fee")
        sequenceNumber = try reader.readInt64("seqNum")
        preconditions = try Preconditions(xdr: &reader)
        memo = try Memo(xdr: &reader)
        operations = try reader.readArray(Operation.self, maxCount: TransactionLimits.maxOperations, minElementSize: 8, "operations")
        let ext = try reader.readInt32("transaction ext")
        switch ext {
        case 0: break
        case 1: throw .unsupported("soroban", "Soroban transaction data is not supported by Tender")
        default: throw .unknown("Transaction ext", Int64(ext))
        }
    }

    public func encode(to writer: inout XDRWriter) {
        sourceAccount.encode(to: &writer)
        writer.write(fee)
        writer.write(sequenceNumber)
        preconditions.encode(to: &writer)
        memo.encode(to: &writer)
        writer.writeArray(operations)
        writer.write(Int32(0))
    }
}

/// A transaction in the pre-protocol-13 form: an ed25519 source and optional time bounds.
public struct TransactionV0: Hashable, Sendable {
    public var sourceAccountEd25519: Bytes32
    public var fee: UInt32
    public var sequenceNumber: Int64
    public var timeBounds: TimeBounds?
    public var memo: Memo
    public var operations: [Operation]

    public init(sourceAccountEd25519: Bytes32, fee: UInt32, sequenceNumber: Int64, timeBounds: TimeBounds?, memo: Memo, operations: [Operation]) {
        self.sourceAccountEd25519 = sourceAccountEd25519
        self.fee = fee
        self.sequenceNumber = sequenceNumber
        self.timeBounds = timeBounds
        self.memo = memo
        self.operations = operations
    }

    /// The same transaction in the V1 form, which is also what its hash covers.
    public var asTransaction: Transaction {
        Transaction(
            sourceAccount: .ed25519(AccountID(publicKey: sourceAccountEd25519)), fee: fee, sequenceNumber: sequenceNumber,
            preconditions: timeBounds.map { .time($0) } ?? .none, memo: memo, operations: operations)
    }
}

extension TransactionV0: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        sourceAccountEd25519 = try reader.readBytes32("source account")
        fee = try reader.readUInt32("fee")
        sequenceNumber = try reader.readInt64("seqNum")
        timeBounds = try reader.readOptional(TimeBounds.self, "timeBounds flag")
        memo = try Memo(xdr: &reader)
        operations = try reader.readArray(Operation.self, maxCount: TransactionLimits.maxOperations, minElementSize: 8, "operations")
        let ext = try reader.readInt32("transaction ext")
        guard ext == 0 else { throw .unknown("TransactionV0 ext", Int64(ext)) }
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(sourceAccountEd25519)
        writer.write(fee)
        writer.write(sequenceNumber)
        writer.writeOptional(timeBounds)
        memo.encode(to: &writer)
        writer.writeArray(operations)
        writer.write(Int32(0))
    }
}

/// A transaction whose fee another account pays (CAP-15).
public struct FeeBumpTransaction: Hashable, Sendable {
    public var feeSource: MuxedAccount
    /// The most the fee source pays, in stroops.
    public var fee: Int64
    /// The inner V1 transaction and its signatures.
    public var innerTransaction: Transaction
    public var innerSignatures: [DecoratedSignature]

    public init(feeSource: MuxedAccount, fee: Int64, innerTransaction: Transaction, innerSignatures: [DecoratedSignature]) {
        self.feeSource = feeSource
        self.fee = fee
        self.innerTransaction = innerTransaction
        self.innerSignatures = innerSignatures
    }

    /// The hash that the fee source signs on `network`.
    public func hash(on network: Network) -> Bytes32 {
        var writer = XDRWriter(capacity: 512)
        writer.write(network.networkID)
        writer.write(Int32(EnvelopeType.feeBump.rawValue))
        encode(to: &writer)
        return sha256(writer.bytes)
    }
}

extension FeeBumpTransaction: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        feeSource = try MuxedAccount(xdr: &reader)
        fee = try reader.readInt64("fee")
        let innerType = try reader.readInt32("inner transaction type")
        guard innerType == EnvelopeType.tx.rawValue else { throw .unknown("fee bump inner EnvelopeType", Int64(innerType)) }
        innerTransaction = try Transaction(xdr: &reader)
        innerSignatures = try reader.readArray(DecoratedSignature.self, maxCount: TransactionLimits.maxSignatures, minElementSize: 8, "signatures")
        let ext = try reader.readInt32("fee bump ext")
        guard ext == 0 else { throw .unknown("FeeBumpTransaction ext", Int64(ext)) }
    }

    public func encode(to writer: inout XDRWriter) {
        feeSource.encode(to: &writer)
        writer.write(fee)
        writer.write(Int32(EnvelopeType.tx.rawValue))
        innerTransaction.encode(to: &writer)
        writer.writeArray(innerSignatures)
        writer.write(Int32(0))
    }
}

/// The envelope types this codec reads.
public enum EnvelopeType: Int32, Sendable {
    case txV0 = 0
    case tx = 2
    case feeBump = 5
}

/// A signed transaction, as submitted to the network.
public enum TransactionEnvelope: Hashable, Sendable {
    case v0(TransactionV0, signatures: [DecoratedSignature])
    case v1(Transaction, signatures: [DecoratedSignature])
    case feeBump(FeeBumpTransaction, signatures: [DecoratedSignature])

    /// The hash that identifies the envelope on `network`: for a fee bump, the outer hash.
    public func hash(on network: Network) -> Bytes32 {
        switch self {
        case .v0(let tx, _): tx.asTransaction.hash(on: network)
        case .v1(let tx, _): tx.hash(on: network)
        case .feeBump(let tx, _): tx.hash(on: network)
        }
    }

    /// The transaction whose operations run (the inner one of a fee bump), in V1 form.
    public var transaction: Transaction {
        switch self {
        case .v0(let tx, _): tx.asTransaction
        case .v1(let tx, _): tx
        case .feeBump(let tx, _): tx.innerTransaction
        }
    }

    /// The signatures of the envelope (the outer ones of a fee bump).
    public var signatures: [DecoratedSignature] {
        get {
            switch self {
            case .v0(_, let signatures), .v1(_, let signatures), .feeBump(_, let signatures): signatures
            }
        }
        set {
            switch self {
            case .v0(let tx, _): self = .v0(tx, signatures: newValue)
            case .v1(let tx, _): self = .v1(tx, signatures: newValue)
            case .feeBump(let tx, _): self = .feeBump(tx, signatures: newValue)
            }
        }
    }

    /// Adds `keyPair`'s signature of the envelope's hash on `network`.
    /// Precondition: at most 20 signatures; the key pair can sign.
    public mutating func sign(with keyPair: KeyPair, on network: Network) {
        precondition(signatures.count < TransactionLimits.maxSignatures, "an envelope holds at most 20 signatures")
        signatures.append(keyPair.signDecorated(hash(on: network)))
    }

    /// Whether `signature` is a valid signature of the envelope's hash on `network` by `signer`.
    public func isSignature(_ signature: DecoratedSignature, validFor signer: KeyPair, on network: Network) -> Bool {
        signature.hint == signer.hint && signer.verify(signature.signature, for: hash(on: network).bytes)
    }
}

extension TransactionEnvelope: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("envelope type")
        switch EnvelopeType(rawValue: type) {
        case .txV0:
            let tx = try TransactionV0(xdr: &reader)
            self = .v0(tx, signatures: try reader.readArray(DecoratedSignature.self, maxCount: TransactionLimits.maxSignatures, minElementSize: 8, "signatures"))
        case .tx:
            let tx = try Transaction(xdr: &reader)
            self = .v1(tx, signatures: try reader.readArray(DecoratedSignature.self, maxCount: TransactionLimits.maxSignatures, minElementSize: 8, "signatures"))
        case .feeBump:
            let tx = try FeeBumpTransaction(xdr: &reader)
            self = .feeBump(tx, signatures: try reader.readArray(DecoratedSignature.self, maxCount: TransactionLimits.maxSignatures, minElementSize: 8, "signatures"))
        case nil:
            throw .unknown("EnvelopeType", Int64(type))
        }
    }

    public func encode(to writer: inout XDRWriter) {
        switch self {
        case .v0(let tx, let signatures):
            writer.write(EnvelopeType.txV0.rawValue)
            tx.encode(to: &writer)
            writer.writeArray(signatures)
        case .v1(let tx, let signatures):
            writer.write(EnvelopeType.tx.rawValue)
            tx.encode(to: &writer)
            writer.writeArray(signatures)
        case .feeBump(let tx, let signatures):
            writer.write(EnvelopeType.feeBump.rawValue)
            tx.encode(to: &writer)
            writer.writeArray(signatures)
        }
    }
}

@inline(__always)
func sha256(_ bytes: [UInt8]) -> Bytes32 {
    SHA256.hash(data: bytes).withUnsafeBytes { Bytes32($0) }
}
