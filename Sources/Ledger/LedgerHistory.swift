import StellarBase
import TenderJSON

/// What a closed ledger adds to the history every store keeps, row by row: its applied
/// transactions, their operations, and who took part in each (an account takes part in a
/// transaction when it is the source, a fee-bump's fee source or a participant of any of its
/// operations). The SQLite and PostgreSQL stores write these same rows.
public struct LedgerHistory: Sendable {
    public struct TransactionRow: Sendable {
        /// Horizon's TOID.
        public let id: Int64
        public let hash: Bytes32
        public let order: Int
        public let source: AccountID
        public let successful: Bool
        public let feeCharged: Int64
        public let operationCount: Int
        public let envelope: [UInt8]
        public let result: [UInt8]
    }

    public struct OperationRow: Sendable {
        public let id: Int64
        public let transactionID: Int64
        public let source: AccountID
        public let type: Int32
        public let isPayment: Bool
        public let successful: Bool
    }

    /// An account taking part in an operation (`id` its TOID), or in a transaction through none
    /// of its operations (`id` the transaction's TOID, whose low 12 bits are 0).
    public struct Participation: Sendable {
        public let account: AccountID
        public let id: Int64
        public let isPayment: Bool
    }

    public let ledger: UInt32
    public let closeTime: UInt64
    public private(set) var transactions: [TransactionRow] = []
    public private(set) var operations: [OperationRow] = []
    /// Who took part in what, one index for both of an account's lists: a row per account and
    /// operation it took part in, and a row per account and transaction it took part in through
    /// none of the operations (a fee-bump's fee source; a source every operation of which names
    /// another source). An account's operations are its rows whose ids are operations'; its
    /// transactions are the distinct transaction ids of all its rows (``TOID/transaction(of:)``),
    /// a transaction's rows lying together in id order. One row a side for a payment where two
    /// lists took two each: fewer random pages to write on a grown network.
    public private(set) var participations: [Participation] = []
    /// The effects of the successful transactions' operations, in operation order, but those of
    /// ``OperationEffects/derivedTypes`` (derived when read).
    public private(set) var effects: [EffectRecord] = []
    /// The trades of the successful transactions' operations, in operation then claim order.
    public private(set) var trades: [TradeRecord] = []
    /// The memo of each transaction that has one, as Horizon writes it (`/payments?memo=`).
    public private(set) var memos: [(memo: String, transaction: Int64)] = []
    /// The assets each payment moved, sent or delivered (`/payments?asset=`).
    public private(set) var paymentAssets: [(asset: Asset, operation: Int64)] = []
    /// The claimable balances each successful operation created, claimed or clawed back.
    public private(set) var balanceOperations: [(balance: ClaimableBalanceID, operation: Int64, transaction: Int64)] = []
    /// The liquidity pools each successful operation changed.
    public private(set) var poolOperations: [(pool: Bytes32, operation: Int64, transaction: Int64)] = []
    /// What each successful deposit or withdrawal moved.
    public private(set) var poolAmounts: [(operation: Int64, amounts: PoolAmounts)] = []

    public init(_ closed: ClosedLedger) {
        ledger = closed.header.sequence
        closeTime = closed.header.closeTime
        for (index, transaction) in closed.transactions.filter(\.application.isApplied).enumerated() {
            let order = index + 1
            let tx = transaction.prepared.transaction
            let result = transaction.application.result
            let transactionID = TOID.make(ledger: ledger, transactionOrder: order, operationIndex: 0)
            let source = tx.sourceAccount.accountID
            transactions.append(TransactionRow(
                id: transactionID, hash: transaction.prepared.hash, order: order, source: source, successful: result.isSuccess,
                feeCharged: result.feeCharged, operationCount: tx.operations.count, envelope: transaction.prepared.envelope.xdrBytes,
                result: result.xdrBytes))
            if let memo = tx.memo.horizonText { memos.append((memo, transactionID)) }
            var participants: Set<AccountID> = [source]
            // A fee-bump's fee source takes part in the transaction too (Horizon's
            // `ParticipantsForTransaction`): it is among the fee payer's transactions.
            if case .feeBump(let feeBump, _) = transaction.prepared.envelope { participants.insert(feeBump.feeSource.accountID) }
            // Those named by an operation are listed with it (and so with the transaction).
            var named: Set<AccountID> = []
            for (opIndex, op) in tx.operations.enumerated() {
                let operationID = TOID.make(ledger: ledger, transactionOrder: order, operationIndex: opIndex + 1)
                operations.append(OperationRow(
                    id: operationID, transactionID: transactionID, source: op.sourceAccount?.accountID ?? source, type: op.body.type.rawValue,
                    isPayment: op.isPayment, successful: result.isSuccess))
                for asset in op.paymentAssets { paymentAssets.append((asset, operationID)) }
                // An account twice in one operation (paying itself) is listed once.
                var seen: Set<AccountID> = []
                for account in op.participants(transactionSource: source) where seen.insert(account).inserted {
                    named.insert(account)
                    participations.append(Participation(account: account, id: operationID, isPayment: op.isPayment))
                }
                if result.isSuccess {
                    let opSource = op.sourceAccount ?? tx.sourceAccount, opResult = result.outcome.operationResults?[safe: opIndex]
                    var stored: [Effect] = [], first = 1
                    if OperationEffects.derivedTypes.contains(op.body.type) {
                        // Those derived when read come first; only the sponsorships' are stored, after them.
                        if case .sponsorships(_, let changes)? = transaction.meta[opIndex] {
                            stored = OperationEffects.sponsorshipEffects(changes, source: opSource)
                            first += OperationEffects.of(op.body, source: opSource, result: opResult, meta: nil).count
                        }
                    } else {
                        stored = OperationEffects.of(op.body, source: opSource, result: opResult, meta: transaction.meta[opIndex])
                    }
                    for (index, effect) in stored.enumerated() {
                        effects.append(EffectRecord(
                            operationID: operationID, order: Int64(first + index), account: effect.account, muxedID: effect.muxedID, type: effect.type,
                            details: JSONValue.object(effect.details).compactBytes(), closeTime: closeTime))
                    }
                }
                if result.isSuccess {
                    switch (op.body, result.outcome.operationResults?[safe: opIndex]) {
                    case (.claimClaimableBalance(let id), _), (.clawbackClaimableBalance(let id), _),
                         (.createClaimableBalance, .inner(.createClaimableBalance(.success, let id?))?):
                        balanceOperations.append((id, operationID, transactionID))
                    default: break
                    }
                    let (own, pools) = Self.unwrap(transaction.meta[opIndex])
                    if let claimed = result.outcome.operationResults?[safe: opIndex]?.claims, !claimed.claims.isEmpty {
                        var prices: [Int64: Price] = [:]
                        if case .offerPrices(let crossed)? = own { prices = crossed }
                        trades += TradeRecord.from(
                            claimed.claims, operationID: operationID, closeTime: closeTime, taker: (op.sourceAccount ?? tx.sourceAccount).accountID,
                            takerOffer: claimed.offerLeft, prices: prices)
                    }
                    for change in pools.sorted(by: { $0.id.bytes.lexicographicallyPrecedes($1.id.bytes) }) {
                        poolOperations.append((change.id, operationID, transactionID))
                        switch op.body {
                        case .liquidityPoolDeposit, .liquidityPoolWithdraw:
                            let (a, b, shares) = change.delta
                            poolAmounts.append((operationID, PoolAmounts(
                                assetA: change.pool.parameters.assetA, assetB: change.pool.parameters.assetB, reserveA: a, reserveB: b, shares: shares)))
                        default: break
                        }
                    }
                }
            }
            for account in participants where !named.contains(account) {
                participations.append(Participation(account: account, id: transactionID, isPayment: false))
            }
        }
    }

    /// An operation's own meta and the pools it changed, the sponsorships aside.
    static func unwrap(_ meta: OperationMeta?) -> (OperationMeta?, [PoolChange]) {
        var core = meta
        if case .sponsorships(let inner, _)? = core { core = inner }
        if case .pools(let inner, let changes, _)? = core { return (inner, changes) }
        return (core, [])
    }
}
