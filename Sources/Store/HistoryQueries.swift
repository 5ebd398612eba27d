import Crypto
import Foundation
import GRDB
import Ledger
import StellarBase

extension PageRequest {
    /// The SQL condition on `column` and the order clause.
    /// The cursor's condition and the order and limit clause, with their arguments in order (the
    /// limit is one, so a query's text, and its cached statement, stays the same from page to page).
    func clauses(_ column: String) -> (condition: String, arguments: [Int64], order: String) {
        let order = "ORDER BY \(column) \(descending ? "DESC" : "ASC") LIMIT ?"
        guard let cursor else { return ("1", [Int64(limit)], order) }
        return ("\(column) \(descending ? "<" : ">") ?", [cursor, Int64(limit)], order)
    }
}

// Reads for the Horizon API, through GRDB's async API: each suspends while a reader connection
// of the pool does the work on its own thread. Every read sees whole committed ledgers only.
extension SQLiteLedgerStore: LedgerReader {
    public func account(_ id: AccountID) async throws -> AccountRecord? {
        try await database.read { db in try Self.account(key: id.storageKey, db) }
    }

    /// An account with its trustlines and data entries, read in `db`.
    static func account(key: Data, _ db: Database) throws -> AccountRecord? {
        guard let blob = try db.cachedValue(Data.self, sql: "SELECT entry FROM accounts WHERE account_id = ?", arguments: [key]) else { return nil }
        let account = try AccountEntry(xdrBytes: [UInt8](blob))
        var lines: [TrustLineEntry] = []
        var data: [DataEntry] = []
        var shares: [(line: PoolShareLine, pool: LiquidityPoolEntry?)] = []
        if account.numSubEntries > 0 {
            lines = try db.cachedValues(Data.self, sql: "SELECT entry FROM trust_lines WHERE account_id = ?", arguments: [key])
                .map { try TrustLineEntry(xdrBytes: [UInt8]($0)) }
            data = try db.cachedValues(Data.self, sql: "SELECT entry FROM account_data WHERE account_id = ? ORDER BY name", arguments: [key])
                .map { try DataEntry(xdrBytes: [UInt8]($0)) }
            shares = try db.cachedRows(sql: """
                SELECT s.entry, p.entry FROM pool_share_lines s LEFT JOIN liquidity_pools p ON p.pool_id = s.pool_id WHERE s.account_id = ? ORDER BY s.pool_id
                """, arguments: [key]).map { row in
                (try PoolShareLine(xdrBytes: [UInt8](row[0] as Data)), try (row[1] as Data?).map { try LiquidityPoolEntry(xdrBytes: [UInt8]($0)) })
            }
        }
        return AccountRecord(account: account, trustLines: lines, data: data, poolShares: shares)
    }

    /// Whether the account exists.
    public func accountExists(_ id: AccountID) async throws -> Bool {
        try await database.read { db in
            try db.cachedValue(Bool.self, sql: "SELECT 1 FROM accounts WHERE account_id = ?", arguments: [id.storageKey]) ?? false
        }
    }

    public func ledgers(_ page: PageRequest) async throws -> [LedgerRecord] {
        try await database.read { db in
            // Ledger paging tokens are sequence << 32; compare on the sequence. Descending, a
            // cursor inside ledger N's token range still includes N (its token is below the
            // cursor); the sum cannot overflow: a non-negative Int64 shifted right by 32 is
            // below 2^31.
            var sequencePage = page
            sequencePage.cursor = page.cursor.map { cursor in
                page.descending ? (cursor >> 32) + (cursor & 0xFFFF_FFFF == 0 ? 0 : 1) : cursor >> 32
            }
            let (condition, arguments, order) = sequencePage.clauses("sequence")
            return try db.cachedRows(sql: "SELECT * FROM ledger_headers WHERE \(condition) \(order)", arguments: StatementArguments(arguments))
                .map { try Self.ledgerRecord($0, db) }
        }
    }

    public func ledger(_ sequence: UInt32) async throws -> LedgerRecord? {
        try await database.read { db in
            try db.cachedRow(sql: "SELECT * FROM ledger_headers WHERE sequence = ?", arguments: [sequence]).map { try Self.ledgerRecord($0, db) }
        }
    }

    private static func ledgerRecord(_ row: Row, _ db: Database) throws -> LedgerRecord {
        let headerBytes = [UInt8](row["header"] as Data)
        let header = try LedgerHeader(xdrBytes: headerBytes)
        let previous = try db.cachedValue(Data.self, sql: "SELECT header FROM ledger_headers WHERE sequence = ?", arguments: [header.sequence - 1])
        return LedgerRecord(
            header: header, hash: Self.hash(headerBytes), previousHash: previous.map { Self.hash([UInt8]($0)) },
            transactionCount: row["transaction_count"], successfulTransactionCount: row["successful_transaction_count"],
            operationCount: row["operation_count"])
    }

    private static func hash(_ bytes: [UInt8]) -> Bytes32 {
        SHA256.hash(data: bytes).withUnsafeBytes { Bytes32($0) }
    }

    /// Applied transactions, all or one account's (as source, fee-bump fee source or participant
    /// of any operation), by memo and by an asset their payments moved.
    public func transactions(_ page: PageRequest, filter: TransactionFilter) async throws -> [StoredTransaction] {
        try await database.read { db in
            var conditions: [String] = []
            var arguments: [any DatabaseValueConvertible] = []
            let from: String, idColumn: String
            if let account = filter.account {
                // An account's rows in `account_history`, a transaction's together; the pager
                // takes each transaction once.
                (from, idColumn) = ("account_history a JOIN transactions t ON t.id = a.toid - (a.toid & 4095)", "a.toid")
                conditions.append("a.account_id = ?")
                arguments.append(account.storageKey)
            } else if let memo = filter.memo {
                (from, idColumn) = ("transaction_memos m JOIN transactions t ON t.id = m.transaction_id", "m.transaction_id")
                conditions.append("m.memo = ?")
                arguments.append(memo)
            } else {
                (from, idColumn) = ("transactions t", "t.id")
            }
            if let memo = filter.memo, filter.account != nil {
                conditions.append("EXISTS (SELECT 1 FROM transaction_memos m WHERE m.memo = ? AND m.transaction_id = t.id)")
                arguments.append(memo)
            }
            if let asset = filter.asset {
                // A transaction's operations' ids follow its own (TOIDs): a range of the index.
                conditions.append("EXISTS (SELECT 1 FROM payment_assets p WHERE p.asset = ? AND p.operation_id > t.id AND p.operation_id < t.id + 4096)")
                arguments.append(asset.storageKey)
            }
            if !filter.includeFailed { conditions.append("t.successful = 1") }
            let read = { (page: PageRequest) in
                let (condition, cursor, order) = page.clauses(idColumn)
                return try db.cachedRows(sql: """
                    SELECT \(idColumn) AS row_id, t.hash, t.ledger, t.application_order, t.close_time, t.envelope, t.result FROM \(from)
                    WHERE \((conditions + [condition]).joined(separator: " AND ")) \(order)
                    """, arguments: StatementArguments(arguments + cursor.map { $0 as any DatabaseValueConvertible }))
            }
            guard filter.account != nil else { return try read(page).map(Self.storedTransaction) }
            var pager = AccountTransactionPager<Row>(page)
            while let request = pager.next { pager.take(try read(request).map { ($0["row_id"], $0) }) }
            return try pager.rows.map(Self.storedTransaction)
        }
    }

    static func storedTransaction(_ row: Row) throws -> StoredTransaction {
        StoredTransaction(
            hash: Bytes32([UInt8](row["hash"] as Data)), ledger: row["ledger"], applicationOrder: row["application_order"],
            envelope: try TransactionEnvelope(xdrBytes: [UInt8](row["envelope"] as Data)),
            result: try TransactionResult(xdrBytes: [UInt8](row["result"] as Data)),
            closeTime: UInt64(row["close_time"] as Int64))
    }

    public func operations(_ page: PageRequest, filter: OperationFilter) async throws -> [OperationRecord] {
        try await database.read { db in
            var conditions: [String] = []
            var arguments: [any DatabaseValueConvertible] = []
            // `id`: the operation's id column; `isPayment` its payment flag.
            var from: String, id = "o.id", isPayment = "o.is_payment"
            if let account = filter.account {
                // The account's rows of operations (a transaction's row has index 0).
                from = "account_history a"
                if filter.types == nil {
                    // An operation's transaction is its id with the operation's index (the low 12
                    // bits of a TOID) cleared, and its success is the transaction's: an account's
                    // operations need not read the operations table, one random page fewer a row
                    // on a grown network.
                    (id, isPayment) = ("a.toid", "a.is_payment")
                } else {
                    from += " JOIN operations o ON o.id = a.toid"
                }
                conditions.append("a.account_id = ?")
                arguments.append(account.storageKey)
                conditions.append("(a.toid & 4095) != 0")
            } else if let balance = filter.claimableBalance {
                from = "claimable_balance_operations c JOIN operations o ON o.id = c.operation_id"
                conditions.append("c.balance_id = ?")
                arguments.append(Data(balance.hash.bytes))
            } else if let pool = filter.liquidityPool {
                from = "liquidity_pool_operations lpo JOIN operations o ON o.id = lpo.operation_id"
                conditions.append("lpo.pool_id = ?")
                arguments.append(Data(pool.bytes))
            } else if let asset = filter.asset {
                from = "payment_assets pa JOIN operations o ON o.id = pa.operation_id"
                conditions.append("pa.asset = ?")
                arguments.append(asset.storageKey)
            } else {
                from = "operations o"
            }
            let transactionID = id == "o.id" ? "o.transaction_id" : "\(id) - (\(id) & 4095)"
            from += " JOIN transactions t ON t.id = \(transactionID) LEFT JOIN pool_amounts pa2 ON pa2.operation_id = \(id)"
            if let asset = filter.asset, filter.account != nil || filter.claimableBalance != nil || filter.liquidityPool != nil {
                conditions.append("EXISTS (SELECT 1 FROM payment_assets pa WHERE pa.asset = ? AND pa.operation_id = \(id))")
                arguments.append(asset.storageKey)
            }
            if let memo = filter.memo {
                conditions.append("EXISTS (SELECT 1 FROM transaction_memos m WHERE m.memo = ? AND m.transaction_id = t.id)")
                arguments.append(memo)
            }
            if let hash = filter.transactionHash {
                guard let transaction = try self.transactionID(hash: hash, db) else { return [] }
                // Its operations' IDs follow its own (a TOID's low 12 bits number them).
                conditions.append("t.id = ? AND \(id) BETWEEN ? AND ?")
                arguments += [transaction, transaction + 1, transaction | 4095]
            }
            if filter.paymentsOnly { conditions.append("\(isPayment) = 1") }
            if let types = filter.types { conditions.append("o.type IN (\(types.sorted().map(String.init).joined(separator: ", ")))") }
            if !filter.includeFailed { conditions.append("t.successful = 1") }
            let (condition, cursor, order) = page.clauses(id)
            conditions.append(condition)
            arguments += cursor.map { $0 as any DatabaseValueConvertible }
            let rows = try db.cachedRows(sql: """
                SELECT \(id) AS operation_id, t.hash, t.ledger, t.application_order, t.close_time, t.envelope, t.result,
                       pa2.asset_a, pa2.asset_b, pa2.reserve_a, pa2.reserve_b, pa2.shares
                FROM \(from) WHERE \(conditions.joined(separator: " AND ")) \(order)
                """, arguments: StatementArguments(arguments))
            return try rows.map { row in
                let id: Int64 = row["operation_id"]
                var amounts: PoolAmounts?
                if let a = row["asset_a"] as Data?, let b = row["asset_b"] as Data? {
                    amounts = PoolAmounts(
                        assetA: try Asset(xdrBytes: [UInt8](a)), assetB: try Asset(xdrBytes: [UInt8](b)),
                        reserveA: row["reserve_a"], reserveB: row["reserve_b"], shares: row["shares"])
                }
                return OperationRecord(id: id, transaction: try Self.storedTransaction(row), index: Int(id & 0xFFF) - 1, poolAmounts: amounts)
            }
        }
    }

    public func operation(_ id: Int64) async throws -> OperationRecord? {
        // `id` is positive (the route refuses anything else), so `id - 1` cannot overflow.
        guard id > 0 else { return nil }
        return try await operations(PageRequest(cursor: id - 1, limit: 1), filter: OperationFilter(includeFailed: true)).first { $0.id == id }
    }

    /// Open offers, filtered by seller and by the assets traded, in offer id order.
    public func offers(_ page: PageRequest, seller: AccountID?, selling: Asset?, buying: Asset?, sponsor: AccountID?) async throws -> [LedgerOffer] {
        try await database.read { db in
            var conditions: [String] = []
            var arguments: [any DatabaseValueConvertible] = []
            if let seller {
                conditions.append("seller_id = ?")
                arguments.append(seller.storageKey)
            }
            if let sponsor {
                conditions.append("sponsor = ?")
                arguments.append(sponsor.storageKey)
            }
            if let selling {
                conditions.append("selling = ?")
                arguments.append(selling.storageKey)
            }
            if let buying {
                conditions.append("buying = ?")
                arguments.append(buying.storageKey)
            }
            let (condition, cursor, order) = page.clauses("offer_id")
            conditions.append(condition)
            arguments += cursor.map { $0 as any DatabaseValueConvertible }
            return try db.cachedValues(Data.self, sql: "SELECT entry FROM offers WHERE \(conditions.joined(separator: " AND ")) \(order)", arguments: StatementArguments(arguments))
                .map { try LedgerOffer(xdrBytes: [UInt8]($0)) }
        }
    }

    public func assets(_ page: KeyedPage<AssetCursor>, code: String?, issuer: AccountID?) async throws -> [AssetStats] {
        try await database.read { db in
            var conditions = ["1"]
            var arguments: [any DatabaseValueConvertible] = []
            if let code {
                conditions.append("code = ?")
                arguments.append(code)
            }
            if let issuer {
                conditions.append("issuer = ?")
                arguments.append(issuer.strKey)
            }
            if let after = page.after {
                conditions.append("(code, issuer) \(page.descending ? "<" : ">") (?, ?)")
                arguments += [after.code, after.issuer]
            }
            let order = page.descending ? "DESC" : "ASC"
            return try db.cachedRows(sql: """
                SELECT \(AssetTally.columns), asset
                FROM asset_stats WHERE \(conditions.joined(separator: " AND ")) ORDER BY code \(order), issuer \(order) LIMIT ?
                """, arguments: StatementArguments(arguments + [page.limit])).map { row in
                AssetStats(asset: try Asset(xdrBytes: [UInt8](row[10] as Data)), tally: try AssetTally(row: row))
            }
        }
    }

    public func accounts(holding asset: Asset, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        try await accounts(in: "trust_lines", where: "asset", is: asset.storageKey, page)
    }

    public func accounts(signedBy signer: AccountID, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        // Its own account is not stored among those it signs for (``AccountSigners``).
        try await database.read { db in
            AccountSigners.page(
                stored: try Self.accounts(in: "account_signers", where: "signer", is: signer.storageKey, page, db),
                own: try Self.account(key: signer.storageKey, db), page)
        }
    }

    public func accounts(sponsoredBy sponsor: AccountID, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        try await accounts(in: "account_sponsors", where: "sponsor", is: sponsor.storageKey, page)
    }

    /// A page of the accounts in `table`'s `account_id` column whose `column` is `value`, by
    /// account key, read in one snapshot.
    private func accounts(in table: String, where column: String, is value: Data, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        try await database.read { try Self.accounts(in: table, where: column, is: value, page, $0) }
    }

    private static func accounts(in table: String, where column: String, is value: Data, _ page: KeyedPage<AccountID>, _ db: Database) throws -> [AccountRecord] {
        var sql = "SELECT account_id FROM \(table) WHERE \(column) = ?"
        var arguments: [any DatabaseValueConvertible] = [value]
        if let after = page.after {
            sql += " AND account_id \(page.descending ? "<" : ">") ?"
            arguments.append(after.storageKey)
        }
        sql += " ORDER BY account_id \(page.descending ? "DESC" : "ASC") LIMIT ?"
        return try db.cachedValues(Data.self, sql: sql, arguments: StatementArguments(arguments + [page.limit])).compactMap { try account(key: $0, db) }
    }

    public func offer(_ id: Int64) async throws -> LedgerOffer? {
        try await database.read { db in
            try db.cachedValue(Data.self, sql: "SELECT entry FROM offers WHERE offer_id = ?", arguments: [id]).map { try LedgerOffer(xdrBytes: [UInt8]($0)) }
        }
    }

    public func storedEffects(_ page: KeyedPage<EffectCursor>, filter: EffectFilter) async throws -> [EffectRecord] {
        try await database.read { db in
            var conditions = ["1"]
            var arguments: [any DatabaseValueConvertible] = []
            switch filter {
            case .all: break
            case .account(let id):
                conditions.append("account_id = ?")
                arguments.append(id.storageKey)
            case .operations(let range):
                conditions.append("operation_id >= ? AND operation_id < ?")
                arguments += [range.lowerBound, range.upperBound]
            case .liquidityPool(let pool):
                conditions.append("operation_id IN (SELECT operation_id FROM liquidity_pool_operations WHERE pool_id = ?)")
                arguments.append(Data(pool.bytes))
            }
            let order = page.cursorClause("effect_order", &conditions, &arguments)
            return try db.cachedRows(sql: """
                SELECT operation_id, effect_order, account_id, muxed_id, type, details, close_time FROM effects
                WHERE \(conditions.joined(separator: " AND ")) \(order)
                """, arguments: StatementArguments(arguments)).map { row in
                let typeCode: Int32 = row[4]
                guard let type = EffectType(rawValue: typeCode) else { throw DatabaseError(message: "effects holds an unknown type \(typeCode)") }
                let details: String = row[5]
                return EffectRecord(
                    operationID: row[0], order: row[1], account: AccountID(publicKey: Bytes32([UInt8](row[2] as Data))),
                    muxedID: (row[3] as Int64?).map { UInt64(bitPattern: $0) }, type: type, details: Array(details.utf8),
                    closeTime: UInt64(row[6] as Int64))
            }
        }
    }

    public func claimableBalances(_ page: KeyedPage<ClaimableBalanceCursor>, filter: ClaimableBalanceFilter) async throws -> [ClaimableBalanceEntry] {
        try await database.read { db in
            var from = "claimable_balances b"
            var conditions = ["1"]
            var arguments: [any DatabaseValueConvertible] = []
            if let claimant = filter.claimant {
                from += " JOIN claimable_balance_claimants c ON c.balance_id = b.balance_id"
                conditions.append("c.claimant = ?")
                arguments.append(claimant.storageKey)
            }
            if let asset = filter.asset {
                conditions.append("b.asset = ?")
                arguments.append(asset.storageKey)
            }
            if let sponsor = filter.sponsor {
                conditions.append("b.sponsor = ?")
                arguments.append(sponsor.storageKey)
            }
            if let after = page.after {
                conditions.append("(b.last_modified_ledger, b.balance_id) \(page.descending ? "<" : ">") (?, ?)")
                arguments += [after.lastModifiedLedger, Data(after.id.hash.bytes)]
            }
            let order = page.descending ? "DESC" : "ASC"
            return try db.cachedValues(Data.self, sql: """
                SELECT b.entry FROM \(from) WHERE \(conditions.joined(separator: " AND "))
                ORDER BY b.last_modified_ledger \(order), b.balance_id \(order) LIMIT ?
                """, arguments: StatementArguments(arguments + [page.limit])).map { try ClaimableBalanceEntry(xdrBytes: [UInt8]($0)) }
        }
    }

    public func claimableBalance(_ id: ClaimableBalanceID) async throws -> ClaimableBalanceEntry? {
        try await database.read { db in
            try db.cachedValue(Data.self, sql: "SELECT entry FROM claimable_balances WHERE balance_id = ?", arguments: [Data(id.hash.bytes)])
                .map { try ClaimableBalanceEntry(xdrBytes: [UInt8]($0)) }
        }
    }

    public func transactions(_ page: PageRequest, claimableBalance: ClaimableBalanceID) async throws -> [StoredTransaction] {
        try await database.read { db in
            let (condition, arguments, order) = page.clauses("t.id")
            return try db.cachedRows(sql: """
                SELECT t.hash, t.ledger, t.application_order, t.close_time, t.envelope, t.result FROM transactions t
                WHERE t.id IN (SELECT transaction_id FROM claimable_balance_operations WHERE balance_id = ?) AND \(condition) \(order)
                """, arguments: StatementArguments([Data(claimableBalance.hash.bytes) as any DatabaseValueConvertible] + arguments.map { $0 as any DatabaseValueConvertible }))
                .map(Self.storedTransaction)
        }
    }

    public func transactions(_ page: PageRequest, liquidityPool: Bytes32) async throws -> [StoredTransaction] {
        try await database.read { db in
            let (condition, arguments, order) = page.clauses("t.id")
            return try db.cachedRows(sql: """
                SELECT t.hash, t.ledger, t.application_order, t.close_time, t.envelope, t.result FROM transactions t
                WHERE t.id IN (SELECT transaction_id FROM liquidity_pool_operations WHERE pool_id = ?) AND \(condition) \(order)
                """, arguments: StatementArguments([Data(liquidityPool.bytes) as any DatabaseValueConvertible] + arguments.map { $0 as any DatabaseValueConvertible }))
                .map(Self.storedTransaction)
        }
    }

    public func liquidityPools(_ page: KeyedPage<Bytes32>, filter: LiquidityPoolFilter) async throws -> [LiquidityPoolEntry] {
        try await database.read { db in
            var conditions = ["1"]
            var arguments: [any DatabaseValueConvertible] = []
            for asset in filter.reserves {
                conditions.append("(asset_a = ? OR asset_b = ?)")
                arguments += [asset.storageKey, asset.storageKey]
            }
            if let account = filter.account {
                conditions.append("pool_id IN (SELECT pool_id FROM pool_share_lines WHERE account_id = ?)")
                arguments.append(account.storageKey)
            }
            if let after = page.after {
                conditions.append("pool_id \(page.descending ? "<" : ">") ?")
                arguments.append(Data(after.bytes))
            }
            return try db.cachedValues(Data.self, sql: """
                SELECT entry FROM liquidity_pools WHERE \(conditions.joined(separator: " AND ")) ORDER BY pool_id \(page.descending ? "DESC" : "ASC") LIMIT ?
                """, arguments: StatementArguments(arguments + [page.limit])).map { try LiquidityPoolEntry(xdrBytes: [UInt8]($0)) }
        }
    }

    public func liquidityPool(_ id: Bytes32) async throws -> LiquidityPoolEntry? {
        try await database.read { db in
            try db.cachedValue(Data.self, sql: "SELECT entry FROM liquidity_pools WHERE pool_id = ?", arguments: [Data(id.bytes)]).map { try LiquidityPoolEntry(xdrBytes: [UInt8]($0)) }
        }
    }

    public func accounts(inPool pool: Bytes32, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        try await accounts(in: "pool_share_lines", where: "pool_id", is: Data(pool.bytes), page)
    }

    public func trades(_ page: KeyedPage<EffectCursor>, filter: TradeFilter) async throws -> [TradeRecord] {
        try await database.read { db in
            var conditions = ["1"]
            var arguments: [any DatabaseValueConvertible] = []
            if let pool = filter.liquidityPool {
                conditions.append("(base_pool = ? OR counter_pool = ?)")
                arguments += [Data(pool.bytes), Data(pool.bytes)]
            }
            if let account = filter.account {
                conditions.append("(base_account = ? OR counter_account = ?)")
                arguments += [account.storageKey, account.storageKey]
            }
            if let offer = filter.offerID {
                conditions.append("(base_offer_id = ? OR counter_offer_id = ?)")
                arguments += [offer, offer]
            }
            let pair = filter.storedPair
            if let pair {
                conditions.append("base_asset = ? AND counter_asset = ?")
                arguments += [pair.base.storageKey, pair.counter.storageKey]
            }
            if let kind = filter.kind {
                conditions.append("kind = ?")
                arguments.append(kind.rawValue)
            }
            if let closed = filter.closed {
                conditions.append("close_time >= ? AND close_time < ?")
                arguments += [Int64(clamping: closed.lowerBound), Int64(clamping: closed.upperBound)]
            }
            let order = page.cursorClause("trade_order", &conditions, &arguments)
            return try db.cachedRows(sql: "SELECT * FROM trades WHERE \(conditions.joined(separator: " AND ")) \(order)", arguments: StatementArguments(arguments)).map { row in
                func side(_ prefix: String) throws -> TradeSide {
                    TradeSide(
                        asset: try Asset(xdrBytes: [UInt8](row[prefix + "_asset"] as Data)), amount: row[prefix + "_amount"],
                        account: (row[prefix + "_account"] as Data?).map { AccountID(publicKey: Bytes32([UInt8]($0))) }, offerID: row[prefix + "_offer_id"],
                        liquidityPool: (row[prefix + "_pool"] as Data?).map { Bytes32([UInt8]($0)) })
                }
                let kindCode: Int32 = row["kind"]
                guard let kind = TradeRecord.Kind(rawValue: kindCode) else { throw DatabaseError(message: "trades holds an unknown kind \(kindCode)") }
                let trade = TradeRecord(
                    operationID: row["operation_id"], order: row["trade_order"], closeTime: UInt64(row["close_time"] as Int64), kind: kind,
                    base: try side("base"), counter: try side("counter"), baseIsSeller: row["base_is_seller"], priceN: row["price_n"], priceD: row["price_d"])
                return pair?.reversed == true ? trade.reversed : trade
            }
        }
    }

    /// The fees charged by the transactions of the last `ledgers` ledgers, and the most they offered.
    public func recentFees(ledgers: Int) async throws -> (charged: [Int64], offered: [Int64]) {
        try await database.read { db in
            let latest = try db.cachedValue(Int64.self, sql: "SELECT MAX(sequence) FROM ledger_headers") ?? 0
            let rows = try db.cachedRows(sql: "SELECT fee_charged, operation_count, envelope FROM transactions WHERE ledger > ?", arguments: [latest - Int64(ledgers)])
            var charged: [Int64] = []
            var offered: [Int64] = []
            for row in rows {
                let operations = max(1, row["operation_count"] as Int64)
                charged.append((row["fee_charged"] as Int64) / operations)
                let envelope = try TransactionEnvelope(xdrBytes: [UInt8](row["envelope"] as Data))
                offered.append(Int64(envelope.transaction.fee) / operations)
            }
            return (charged, offered)
        }
    }
}


extension KeyedPage<EffectCursor> {
    /// Adds the cursor's condition on `operation_id` and `orderColumn` (written out, not as a row
    /// value, so that an index's range serves it) and answers the order and limit clause (the
    /// limit an argument too, added last).
    func cursorClause(_ orderColumn: String, _ conditions: inout [String], _ arguments: inout [any DatabaseValueConvertible]) -> String {
        if let after {
            let beyond = descending ? "<" : ">"
            conditions.append("operation_id \(beyond)= ? AND (operation_id \(beyond) ? OR (operation_id = ? AND \(orderColumn) \(beyond) ?))")
            arguments += [after.operationID, after.operationID, after.operationID, after.order]
        }
        let order = descending ? "DESC" : "ASC"
        arguments.append(limit)
        return "ORDER BY operation_id \(order), \(orderColumn) \(order) LIMIT ?"
    }
}

extension AssetTally {
    /// The columns of `asset_stats` a tally is read from, in order.
    static let columns = """
        accounts_authorized, accounts_maintain, accounts_unauthorized, balance_authorized, balance_maintain, balance_unauthorized, \
        claimable_balances, claimable_amount, liquidity_pools, liquidity_pools_amount
        """

    /// Counts and balances from a row of `asset_stats` whose first columns are ``columns``
    /// (balances as decimal text).
    init(row: Row) throws {
        var balances: [Int128] = []
        for index in [3, 4, 5, 7, 9] {
            let text: String = row[index]
            guard let value = Int128(text) else { throw DatabaseError(message: "asset_stats holds \"\(text)\" as a balance") }
            balances.append(value)
        }
        self.init(
            accounts: [row[0], row[1], row[2]], balances: Array(balances.prefix(3)), claimableBalances: row[6], claimableAmount: balances[3],
            liquidityPools: row[8], liquidityPoolsAmount: balances[4])
    }
}

extension Database {
    // Horizon's reads go through each connection's cached statements: preparing one (parsing, and
    // GRDB's authorizer recording the tables it reads) took longer than most of these reads.

    func cachedRows(sql: String, arguments: StatementArguments = StatementArguments()) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: sql), arguments: arguments)
    }

    func cachedRow(sql: String, arguments: StatementArguments = StatementArguments()) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }

    func cachedValues<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Value] {
        try Value.fetchAll(cachedStatement(sql: sql), arguments: arguments)
    }

    func cachedValue<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Value? {
        try Value.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }
}
