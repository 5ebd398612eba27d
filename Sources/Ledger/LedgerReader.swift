import StellarBase

/// Which slice of a collection to read: Horizon's `cursor`, `limit` and `order`.
///
/// Its values are bounded by construction: a cursor is a non-negative paging token and a limit
/// is within ``limits``, so no store has to check them again (the server refuses anything else
/// with a 400 before building one).
public struct PageRequest: Sendable, Equatable {
    /// The page sizes a client may ask for.
    public static let limits = 1...200

    /// Records strictly after this paging token in the page's order; nil: from the start
    /// (ascending) or the end (descending).
    public var cursor: Int64? {
        didSet { precondition((cursor ?? 0) >= 0, "a paging token is never negative") }
    }
    public var limit: Int {
        didSet { precondition(Self.limits.contains(limit), "a page holds 1 to 200 records") }
    }
    public var descending: Bool

    public init(cursor: Int64? = nil, limit: Int = 10, descending: Bool = false) {
        precondition((cursor ?? 0) >= 0, "a paging token is never negative")
        precondition(Self.limits.contains(limit), "a page holds 1 to 200 records")
        self.cursor = cursor
        self.limit = limit
        self.descending = descending
    }
}

/// A page of a collection ordered by a key that is not a number (an account, an asset):
/// the records strictly after `after` in the page's order.
public struct KeyedPage<Key: Sendable & Equatable>: Sendable, Equatable {
    public var after: Key?
    public var limit: Int {
        didSet { precondition(PageRequest.limits.contains(limit), "a page holds 1 to 200 records") }
    }
    public var descending: Bool

    public init(after: Key? = nil, limit: Int = 10, descending: Bool = false) {
        precondition(PageRequest.limits.contains(limit), "a page holds 1 to 200 records")
        self.after = after
        self.limit = limit
        self.descending = descending
    }
}

/// An issued asset's statistics as the store keeps them, for `/assets`: ordered by code, then
/// issuer (Horizon's order and paging token).
public struct AssetStats: Sendable, Equatable {
    public var asset: Asset
    public var tally: AssetTally

    public init(asset: Asset, tally: AssetTally) {
        self.asset = asset
        self.tally = tally
    }

    /// Horizon's paging token: `CODE_ISSUER_TYPE`.
    public var pagingToken: String { "\(asset.code?.text ?? "")_\(asset.issuer?.strKey ?? "")_\(asset.typeName)" }
}

/// Where an `/assets` page starts: after this code and issuer.
public struct AssetCursor: Sendable, Equatable {
    public var code: String
    public var issuer: String

    public init(code: String, issuer: String) {
        self.code = code
        self.issuer = issuer
    }
}

/// An account with its trustlines and data entries, as `GET /accounts/{id}` shows it.
public struct AccountRecord: Sendable {
    public var account: AccountEntry
    public var trustLines: [TrustLineEntry]
    public var data: [DataEntry]
    /// Its trustlines to pools' shares, with each pool.
    public var poolShares: [(line: PoolShareLine, pool: LiquidityPoolEntry?)]

    public init(account: AccountEntry, trustLines: [TrustLineEntry], data: [DataEntry], poolShares: [(line: PoolShareLine, pool: LiquidityPoolEntry?)] = []) {
        self.account = account
        self.trustLines = trustLines
        self.data = data
        self.poolShares = poolShares
    }
}

/// Which liquidity pools to list: those holding every one of `reserves`, those `account` holds
/// shares of, or all.
public struct LiquidityPoolFilter: Sendable, Equatable {
    public var reserves: [Asset]
    public var account: AccountID?

    public init(reserves: [Asset] = [], account: AccountID? = nil) {
        self.reserves = reserves
        self.account = account
    }
}

/// A closed ledger as history keeps it.
public struct LedgerRecord: Sendable {
    public var header: LedgerHeader
    /// SHA-256 of the stored header.
    public var hash: Bytes32
    public var previousHash: Bytes32?
    public var transactionCount: Int
    public var successfulTransactionCount: Int
    public var operationCount: Int

    public init(header: LedgerHeader, hash: Bytes32, previousHash: Bytes32?, transactionCount: Int, successfulTransactionCount: Int, operationCount: Int) {
        self.header = header
        self.hash = hash
        self.previousHash = previousHash
        self.transactionCount = transactionCount
        self.successfulTransactionCount = successfulTransactionCount
        self.operationCount = operationCount
    }

    /// Horizon's paging token for a ledger: its sequence in the high 32 bits.
    public var pagingToken: Int64 { Int64(header.sequence) << 32 }
}

/// One operation of an applied transaction.
public struct OperationRecord: Sendable {
    /// The operation's TOID.
    public var id: Int64
    public var transaction: StoredTransaction
    /// 0-based position in the transaction.
    public var index: Int
    /// For a successful LiquidityPoolDeposit or LiquidityPoolWithdraw: how the pool's reserves
    /// and shares moved (its result does not say).
    public var poolAmounts: PoolAmounts?

    public init(id: Int64, transaction: StoredTransaction, index: Int, poolAmounts: PoolAmounts? = nil) {
        self.id = id
        self.transaction = transaction
        self.index = index
        self.poolAmounts = poolAmounts
    }

    public var operation: StellarBase.Operation { transaction.envelope.transaction.operations[index] }
    /// The operation's result, when the transaction got as far as operation results.
    public var result: OperationResult? { transaction.result.outcome.operationResults?[safe: index] }
}

/// How a deposit or withdrawal moved a pool's reserves and shares (positive: into the pool).
public struct PoolAmounts: Sendable, Equatable {
    public var assetA: Asset
    public var assetB: Asset
    public var reserveA: Int64
    public var reserveB: Int64
    public var shares: Int64

    public init(assetA: Asset, assetB: Asset, reserveA: Int64, reserveB: Int64, shares: Int64) {
        self.assetA = assetA
        self.assetB = assetB
        self.reserveA = reserveA
        self.reserveB = reserveB
        self.shares = shares
    }
}

/// Which transactions to list: any combination of an account (source or participant), a memo
/// (as Horizon writes it: text, id, or base64 of a hash) and an asset a payment in it moved.
public struct TransactionFilter: Sendable, Equatable {
    public var account: AccountID?
    public var memo: String?
    public var asset: Asset?
    public var includeFailed: Bool

    public init(account: AccountID? = nil, memo: String? = nil, asset: Asset? = nil, includeFailed: Bool = false) {
        self.account = account
        self.memo = memo
        self.asset = asset
        self.includeFailed = includeFailed
    }
}

extension LedgerReader {
    /// A page of effects, in operation then effect order: those the store keeps merged with those
    /// derived from the operations of ``OperationEffects/derivedTypes`` in the filter's scope.
    /// - Throws: when the storage cannot be read.
    public func effects(_ page: KeyedPage<EffectCursor>, filter: EffectFilter) async throws -> [EffectRecord] {
        let stored = try await storedEffects(page, filter: filter)
        // No operation whose effects are derived changes a pool.
        if case .liquidityPool = filter { return stored }
        // Every derived operation gives each of its participants at least one effect, so the
        // `limit` operations after the cursor's own give at least `limit` effects in scope; the
        // cursor's own operation may have more after the cursor.
        var operations = OperationFilter()
        operations.types = Set(OperationEffects.derivedTypes.map(\.rawValue))
        var request = PageRequest(cursor: page.after?.operationID, limit: page.limit, descending: page.descending)
        var range: Range<Int64>?
        switch filter {
        case .all, .liquidityPool: break
        case .account(let id): operations.account = id
        case .operations(let bounds):
            range = bounds
            request.cursor = page.descending ? min(request.cursor ?? bounds.upperBound, bounds.upperBound) : max(request.cursor ?? 0, bounds.lowerBound - 1)
        }
        var candidates: [OperationRecord] = []
        if let after = page.after, let own = try await operation(after.operationID), OperationEffects.derivedTypes.contains(own.operation.body.type) {
            candidates.append(own)
        }
        candidates += try await self.operations(request, filter: operations)
        var derived: [EffectRecord] = []
        for record in candidates where range?.contains(record.id) ?? true {
            for effect in OperationEffects.records(of: record) {
                if case .account(let id) = filter, effect.account != id { continue }
                if let after = page.after, page.descending ? effect.cursor >= after : effect.cursor <= after { continue }
                derived.append(effect)
            }
        }
        let merged = (stored + derived).sorted { page.descending ? $0.cursor > $1.cursor : $0.cursor < $1.cursor }
        return Array(merged.prefix(page.limit))
    }

    /// Applied transactions, all or one account's.
    /// - Throws: when the storage cannot be read.
    public func transactions(_ page: PageRequest, account: AccountID?, includeFailed: Bool) async throws -> [StoredTransaction] {
        try await transactions(page, filter: TransactionFilter(account: account, includeFailed: includeFailed))
    }
}

/// Which operations to list.
public struct OperationFilter: Sendable {
    public var account: AccountID?
    public var transactionHash: Bytes32?
    /// Only the operations of transactions with this memo (as Horizon writes it).
    public var memo: String?
    /// Only payments that moved this asset (sent or delivered).
    public var asset: Asset?
    /// Only operations of these types (raw values).
    public var types: Set<Int32>?
    /// The operations that created, claimed or clawed back this balance.
    public var claimableBalance: ClaimableBalanceID?
    /// The successful operations that changed this pool.
    public var liquidityPool: Bytes32?
    public var paymentsOnly: Bool
    public var includeFailed: Bool

    public init(
        account: AccountID? = nil, transactionHash: Bytes32? = nil, claimableBalance: ClaimableBalanceID? = nil, liquidityPool: Bytes32? = nil,
        memo: String? = nil, asset: Asset? = nil, types: Set<Int32>? = nil, paymentsOnly: Bool = false, includeFailed: Bool = false
    ) {
        self.liquidityPool = liquidityPool
        self.types = types
        self.account = account
        self.transactionHash = transactionHash
        self.memo = memo
        self.asset = asset
        self.claimableBalance = claimableBalance
        self.paymentsOnly = paymentsOnly
        self.includeFailed = includeFailed
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// The read model behind Horizon's API: committed ledgers only, never what is not yet durable.
/// The server depends on this protocol, not on a database; each store (SQLite, PostgreSQL)
/// implements it. Every method suspends instead of blocking a thread of Swift's cooperative pool.
public protocol LedgerReader: Sendable {
    /// An account with its trustlines and data entries; nil when it does not exist.
    /// - Throws: when the storage cannot be read.
    func account(_ id: AccountID) async throws -> AccountRecord?
    /// Whether the account exists.
    /// - Throws: when the storage cannot be read.
    func accountExists(_ id: AccountID) async throws -> Bool
    /// A page of closed ledgers.
    /// - Throws: when the storage cannot be read.
    func ledgers(_ page: PageRequest) async throws -> [LedgerRecord]
    /// One closed ledger; nil when it has not closed.
    /// - Throws: when the storage cannot be read.
    func ledger(_ sequence: UInt32) async throws -> LedgerRecord?
    /// The sequence of the last committed ledger; nil before genesis.
    /// - Throws: when the storage cannot be read.
    func latestLedgerSequence() async throws -> UInt32?
    /// Applied transactions, all or one account's (as source or participant of any operation),
    /// by memo, by an asset their payments moved.
    /// - Throws: when the storage cannot be read.
    func transactions(_ page: PageRequest, filter: TransactionFilter) async throws -> [StoredTransaction]
    /// An applied transaction by hash.
    /// - Throws: when the storage cannot be read.
    func transaction(hash: Bytes32) async throws -> StoredTransaction?
    /// A page of operations.
    /// - Throws: when the storage cannot be read.
    func operations(_ page: PageRequest, filter: OperationFilter) async throws -> [OperationRecord]
    /// One operation by its TOID.
    /// - Throws: when the storage cannot be read.
    func operation(_ id: Int64) async throws -> OperationRecord?
    /// Open offers, filtered by seller, by the assets traded and by sponsor, in offer id order.
    /// - Throws: when the storage cannot be read.
    func offers(_ page: PageRequest, seller: AccountID?, selling: Asset?, buying: Asset?, sponsor: AccountID?) async throws -> [LedgerOffer]
    /// One open offer.
    /// - Throws: when the storage cannot be read.
    func offer(_ id: Int64) async throws -> LedgerOffer?
    /// Issued assets with their holders and balances, by code then issuer; only those with a
    /// trustline. `code` and `issuer` filter.
    /// - Throws: when the storage cannot be read.
    func assets(_ page: KeyedPage<AssetCursor>, code: String?, issuer: AccountID?) async throws -> [AssetStats]
    /// The accounts holding a trustline to `asset`, by account key.
    /// - Throws: when the storage cannot be read.
    func accounts(holding asset: Asset, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord]
    /// The accounts `signer` can sign for (its own included), by account key.
    /// - Throws: when the storage cannot be read.
    func accounts(signedBy signer: AccountID, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord]
    /// Liquidity pools by id, filtered.
    /// - Throws: when the storage cannot be read.
    func liquidityPools(_ page: KeyedPage<Bytes32>, filter: LiquidityPoolFilter) async throws -> [LiquidityPoolEntry]
    /// One liquidity pool.
    /// - Throws: when the storage cannot be read.
    func liquidityPool(_ id: Bytes32) async throws -> LiquidityPoolEntry?
    /// The accounts holding a trustline to a pool's shares, by account key.
    /// - Throws: when the storage cannot be read.
    func accounts(inPool pool: Bytes32, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord]
    /// The transactions whose successful operations changed a pool.
    /// - Throws: when the storage cannot be read.
    func transactions(_ page: PageRequest, liquidityPool: Bytes32) async throws -> [StoredTransaction]
    /// The accounts whose entry, signers, trustlines or data entries `sponsor` pays the reserve
    /// of (Horizon's `/accounts?sponsor=`), by account key.
    /// - Throws: when the storage cannot be read.
    func accounts(sponsoredBy sponsor: AccountID, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord]
    /// A page of the effects the store keeps (all but those of ``OperationEffects/derivedTypes``),
    /// in operation then effect order; ``effects(_:filter:)`` adds the derived ones.
    /// - Throws: when the storage cannot be read.
    func storedEffects(_ page: KeyedPage<EffectCursor>, filter: EffectFilter) async throws -> [EffectRecord]
    /// Claimable balances by the ledger that last changed them, then id.
    /// - Throws: when the storage cannot be read.
    func claimableBalances(_ page: KeyedPage<ClaimableBalanceCursor>, filter: ClaimableBalanceFilter) async throws -> [ClaimableBalanceEntry]
    /// One claimable balance; nil when there is none (never was, or claimed).
    /// - Throws: when the storage cannot be read.
    func claimableBalance(_ id: ClaimableBalanceID) async throws -> ClaimableBalanceEntry?
    /// The transactions of the operations that created, claimed or clawed back a balance.
    /// - Throws: when the storage cannot be read.
    func transactions(_ page: PageRequest, claimableBalance: ClaimableBalanceID) async throws -> [StoredTransaction]
    /// A page of trades, in operation then claim order.
    /// - Throws: when the storage cannot be read.
    func trades(_ page: KeyedPage<EffectCursor>, filter: TradeFilter) async throws -> [TradeRecord]
    /// The fees charged per operation by the transactions of the last `ledgers` ledgers, and the
    /// most they offered.
    /// - Throws: when the storage cannot be read.
    func recentFees(ledgers: Int) async throws -> (charged: [Int64], offered: [Int64])
}


/// Where a `/claimable_balances` page starts: Horizon's paging token, `LEDGER-ID` (the ledger that
/// last changed the balance, then its id).
public struct ClaimableBalanceCursor: Sendable, Equatable {
    public var lastModifiedLedger: UInt32
    public var id: ClaimableBalanceID

    public init(lastModifiedLedger: UInt32, id: ClaimableBalanceID) {
        self.lastModifiedLedger = lastModifiedLedger
        self.id = id
    }

    /// `LEDGER-ID`; nil for anything else.
    public init?(token: String) {
        let parts = token.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let ledger = UInt32(parts[0]), let id = ClaimableBalanceID(hex: String(parts[1])) else { return nil }
        self.init(lastModifiedLedger: ledger, id: id)
    }

    public var token: String { "\(lastModifiedLedger)-\(id.hex)" }
}

extension ClaimableBalanceEntry {
    public var cursor: ClaimableBalanceCursor { ClaimableBalanceCursor(lastModifiedLedger: lastModifiedLedger, id: id) }
}

/// Which claimable balances to list: by asset, sponsor and claimant (any combination).
public struct ClaimableBalanceFilter: Sendable, Equatable {
    public var asset: Asset?
    public var sponsor: AccountID?
    public var claimant: AccountID?

    public init(asset: Asset? = nil, sponsor: AccountID? = nil, claimant: AccountID? = nil) {
        self.asset = asset
        self.sponsor = sponsor
        self.claimant = claimant
    }
}
