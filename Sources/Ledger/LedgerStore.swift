import StellarBase

/// An applied transaction as history keeps it.
public struct StoredTransaction: Sendable, Equatable {
    public var hash: Bytes32
    public var ledger: UInt32
    /// 1-based position in its ledger.
    public var applicationOrder: Int
    public var envelope: TransactionEnvelope
    public var result: TransactionResult
    /// Seconds since 1970.
    public var closeTime: UInt64

    public init(hash: Bytes32, ledger: UInt32, applicationOrder: Int, envelope: TransactionEnvelope, result: TransactionResult, closeTime: UInt64) {
        self.hash = hash
        self.ledger = ledger
        self.applicationOrder = applicationOrder
        self.envelope = envelope
        self.result = result
        self.closeTime = closeTime
    }

    /// Horizon's id for the transaction (a TOID: ledger, order, operation 0).
    public var id: Int64 { TOID.make(ledger: ledger, transactionOrder: applicationOrder, operationIndex: 0) }
}

/// Horizon's total order ids: ledger in the high 32 bits, transaction order in 20 bits,
/// operation index (1-based; 0 for the transaction itself) in 12.
public enum TOID {
    public static func make(ledger: UInt32, transactionOrder: Int, operationIndex: Int) -> Int64 {
        Int64(ledger) << 32 | Int64(transactionOrder) << 12 | Int64(operationIndex)
    }

    /// The transaction an id belongs to: an operation's id with its index (the low 12 bits)
    /// cleared; a transaction's own id unchanged.
    public static func transaction(of id: Int64) -> Int64 { id & ~0xFFF }

    /// Whether an id is an operation's (its index is not 0) rather than a transaction's.
    public static func isOperation(_ id: Int64) -> Bool { id & 0xFFF != 0 }
}

/// Where closed ledgers are kept: the write side of a store, used by the ledger writer alone.
/// Domain code depends on this; Store implements it. Every method suspends instead of blocking
/// a thread of Swift's cooperative pool.
public protocol LedgerStore: Sendable {
    /// The state as of the last committed ledger, or nil when nothing was ever committed.
    /// - Throws: when the storage cannot be read.
    func loadState() async throws -> LedgerState?
    /// Commits a closed ledger atomically: its header, every changed entry and the history of
    /// its applied transactions. When this returns, the ledger survives a crash.
    /// - Throws: when the storage cannot be written; nothing of the ledger is kept then.
    func commit(_ ledger: ClosedLedger) async throws
    /// An applied transaction by hash.
    /// - Throws: when the storage cannot be read.
    func transaction(hash: Bytes32) async throws -> StoredTransaction?
}

extension Operation {
    /// The accounts an operation involves: its source and whoever it pays, creates or merges into.
    public func participants(transactionSource: AccountID) -> [AccountID] {
        let source = sourceAccount?.accountID ?? transactionSource
        switch body {
        case .createAccount(let op): return [source, op.destination]
        case .payment(let op): return [source, op.destination.accountID]
        case .pathPaymentStrictReceive(let op): return [source, op.destination.accountID]
        case .pathPaymentStrictSend(let op): return [source, op.destination.accountID]
        case .accountMerge(let destination): return [source, destination.accountID]
        case .allowTrust(let op): return [source, op.trustor]
        case .setTrustLineFlags(let op): return [source, op.trustor]
        case .clawback(let op): return [source, op.from.accountID]
        case .createClaimableBalance(let op): return [source] + op.claimants.map(\.destination)
        default: return [source]
        }
    }

    /// The assets a payment moves, sent then delivered (once when the same); none for other operations.
    public var paymentAssets: [Asset] {
        switch body {
        case .createAccount, .accountMerge: return [.native]
        case .payment(let op): return [op.asset]
        case .pathPaymentStrictReceive(let op): return op.sendAsset == op.destAsset ? [op.sendAsset] : [op.sendAsset, op.destAsset]
        case .pathPaymentStrictSend(let op): return op.sendAsset == op.destAsset ? [op.sendAsset] : [op.sendAsset, op.destAsset]
        default: return []
        }
    }

    /// Whether Horizon lists the operation among payments.
    public var isPayment: Bool {
        switch body {
        case .createAccount, .payment, .pathPaymentStrictReceive, .pathPaymentStrictSend, .accountMerge: true
        default: false
        }
    }
}

extension Memo {
    /// The memo as Horizon's `memo` field writes it: the text, the id in decimal, a hash in
    /// base64; nil without a memo.
    public var horizonText: String? {
        switch self {
        case .none: nil
        case .text(let bytes): String(decoding: bytes, as: UTF8.self)
        case .id(let id): String(id)
        case .hash(let hash), .return(let hash): Base64.encode(hash.bytes)
        }
    }
}
