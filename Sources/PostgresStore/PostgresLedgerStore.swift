import Crypto
import Foundation
import Ledger
import Store
import NIOCore
import PostgresNIO
import StellarBase
import Synchronization

/// The ledger's entries, headers and history in PostgreSQL: the same tables and answers as
/// ``SQLiteLedgerStore`` (the same checks run on both). Each ledger commits in one PostgreSQL
/// transaction and ``commit(_:)`` returns once it has committed (`synchronous_commit` stays on).
public final class PostgresLedgerStore: LedgerStore, LedgerReader {
    let database: PostgresDatabase
    /// A cluster leader's fence: every commit checks, in its transaction, that this node still
    /// leads with its epoch (nil: no check, for a store nothing else writes).
    let fence: LeaderFence?

    /// The most transaction hashes a generation of `transaction_hashes` holds (``HashGenerations``).
    let hashGenerationSize: Int
    /// Where the next hash goes, as this store's last commit left it: read from the table at the
    /// first commit with transactions (its newest generation and that generation's count), then
    /// kept here, so a commit sends no statement for it but the hashes' own. Only this store
    /// writes while it lives: a cluster's leader makes a store of its own for each term, fenced.
    private let placement = Mutex<HashGenerations?>(nil)
    /// Filters of the frozen generations of `transaction_hashes`, built when a lookup first
    /// needs them.
    let hashFilters = HashFilters()

    /// - Parameters:
    ///   - migrate: false for a read-only hot standby (its primary is migrated).
    ///   - hashGenerationSize: the most transaction hashes a generation of `transaction_hashes`
    ///     holds (``HashGenerations``; ``HashGenerations/defaultSize``).
    public init(
        _ database: PostgresDatabase, fence: LeaderFence? = nil, migrate: Bool = true, hashGenerationSize: Int = HashGenerations.defaultSize
    ) async throws {
        precondition(hashGenerationSize > 0, "a generation of transaction hashes holds at least one")
        self.database = database
        self.fence = fence
        self.hashGenerationSize = hashGenerationSize
        if migrate {
            try await PostgresMigrations.migrate(database, Self.migrations)
            try await PostgresCluster.migrate(database)
        }
    }

    static let migrations: [PostgresMigrations.Migration] = [
        .init(number: 101, name: "ledger", statements: [
            """
            CREATE TABLE ledger_headers (
                sequence BIGINT PRIMARY KEY, close_time BIGINT NOT NULL, header BYTEA NOT NULL,
                transaction_count BIGINT NOT NULL, successful_transaction_count BIGINT NOT NULL, operation_count BIGINT NOT NULL)
            """,
            "CREATE TABLE accounts (account_id BYTEA PRIMARY KEY, entry BYTEA NOT NULL)",
            "CREATE TABLE trust_lines (account_id BYTEA NOT NULL, asset BYTEA NOT NULL, entry BYTEA NOT NULL, PRIMARY KEY (account_id, asset))",
            "CREATE TABLE offers (offer_id BIGINT PRIMARY KEY, seller_id BYTEA NOT NULL, selling BYTEA NOT NULL, buying BYTEA NOT NULL, entry BYTEA NOT NULL)",
            "CREATE INDEX offers_by_seller ON offers (seller_id)",
            "CREATE INDEX offers_by_market ON offers (selling, buying)",
            "CREATE TABLE account_data (account_id BYTEA NOT NULL, name BYTEA NOT NULL, entry BYTEA NOT NULL, PRIMARY KEY (account_id, name))",
            """
            CREATE TABLE transactions (
                id BIGINT PRIMARY KEY, hash BYTEA NOT NULL UNIQUE, ledger BIGINT NOT NULL, application_order BIGINT NOT NULL,
                source_account BYTEA NOT NULL, successful BOOLEAN NOT NULL, fee_charged BIGINT NOT NULL, operation_count BIGINT NOT NULL,
                close_time BIGINT NOT NULL, envelope BYTEA NOT NULL, result BYTEA NOT NULL)
            """,
            "CREATE INDEX transactions_by_ledger ON transactions (ledger)",
            """
            CREATE TABLE operations (
                id BIGINT PRIMARY KEY, transaction_id BIGINT NOT NULL, ledger BIGINT NOT NULL, source_account BYTEA NOT NULL,
                type BIGINT NOT NULL, is_payment BOOLEAN NOT NULL, successful BOOLEAN NOT NULL)
            """,
            "CREATE TABLE account_transactions (account_id BYTEA NOT NULL, transaction_id BIGINT NOT NULL, PRIMARY KEY (account_id, transaction_id))",
            "CREATE TABLE account_operations (account_id BYTEA NOT NULL, operation_id BIGINT NOT NULL, is_payment BOOLEAN NOT NULL, PRIMARY KEY (account_id, operation_id))",
        ]),
        .init(number: 102, name: "asset statistics", statements: [
            "CREATE INDEX trust_lines_by_asset ON trust_lines (asset, account_id)",
            """
            CREATE TABLE asset_stats (
                asset BYTEA PRIMARY KEY, code TEXT COLLATE "C" NOT NULL, issuer TEXT COLLATE "C" NOT NULL,
                accounts_authorized BIGINT NOT NULL, accounts_maintain BIGINT NOT NULL, accounts_unauthorized BIGINT NOT NULL,
                balance_authorized TEXT NOT NULL, balance_maintain TEXT NOT NULL, balance_unauthorized TEXT NOT NULL)
            """,
            "CREATE INDEX asset_stats_by_code ON asset_stats (code, issuer)",
        ], backfill: { transaction in
            // A database from before this version: count the trustlines it holds.
            var tallies: [Asset: AssetTally] = [:]
            for line in try await transaction.rows("SELECT entry FROM trust_lines", bytes).map({ try TrustLineEntry(xdrBytes: $0) }) {
                tallies[line.asset, default: AssetTally()].count(line, sign: 1)
            }
            // This version's columns only (later versions add theirs with their defaults).
            for (asset, tally) in tallies {
                guard let code = asset.code, let issuer = asset.issuer, tally.totalAccounts != 0 else { continue }
                let (a, m, u) = (tally.accounts[0], tally.accounts[1], tally.accounts[2])
                let (ba, bm, bu) = (String(tally.balances[0]), String(tally.balances[1]), String(tally.balances[2]))
                try await transaction.execute("INSERT INTO asset_stats VALUES (\(asset.storageKey), \(code.text), \(issuer.strKey), \(a), \(m), \(u), \(ba), \(bm), \(bu))")
            }
        }),
        .init(number: 103, name: "account signers", statements: [
            "CREATE TABLE account_signers (signer BYTEA NOT NULL, account_id BYTEA NOT NULL, PRIMARY KEY (signer, account_id))",
            "CREATE INDEX account_signers_by_account ON account_signers (account_id)",
        ], backfill: { transaction in
            // A database from before this version: every account's signing keys.
            var changes: [AccountID: Set<AccountID>] = [:]
            for entry in try await transaction.rows("SELECT entry FROM accounts", bytes).map({ try AccountEntry(xdrBytes: $0) }) {
                changes[entry.accountID] = AccountSigners.keys(entry)
            }
            try await writeSigners(changes, transaction)
        }),
        // An older database's ledgers have no effects: they begin with this version.
        .init(number: 104, name: "effects", statements: [
            """
            CREATE TABLE effects (
                operation_id BIGINT NOT NULL, effect_order BIGINT NOT NULL, account_id BYTEA NOT NULL, muxed_id BIGINT,
                type BIGINT NOT NULL, details TEXT NOT NULL, close_time BIGINT NOT NULL, PRIMARY KEY (operation_id, effect_order))
            """,
            "CREATE INDEX effects_by_account ON effects (account_id, operation_id, effect_order)",
        ]),
        // An older database's ledgers have no trades: they begin with this version.
        .init(number: 105, name: "trades", statements: [
            """
            CREATE TABLE trades (
                operation_id BIGINT NOT NULL, trade_order BIGINT NOT NULL, close_time BIGINT NOT NULL, kind BIGINT NOT NULL,
                base_asset BYTEA NOT NULL, base_amount BIGINT NOT NULL, base_account BYTEA, base_offer_id BIGINT,
                counter_asset BYTEA NOT NULL, counter_amount BIGINT NOT NULL, counter_account BYTEA, counter_offer_id BIGINT,
                base_is_seller BOOLEAN NOT NULL, price_n BIGINT NOT NULL, price_d BIGINT NOT NULL, PRIMARY KEY (operation_id, trade_order))
            """,
            "CREATE INDEX trades_by_base_account ON trades (base_account, operation_id, trade_order)",
            "CREATE INDEX trades_by_counter_account ON trades (counter_account, operation_id, trade_order)",
            "CREATE INDEX trades_by_base_offer ON trades (base_offer_id)",
            "CREATE INDEX trades_by_counter_offer ON trades (counter_offer_id)",
            "CREATE INDEX trades_by_pair ON trades (base_asset, counter_asset, operation_id, trade_order)",
        ]),
        .init(number: 106, name: "claimable balances", statements: [
            """
            CREATE TABLE claimable_balances (
                balance_id BYTEA PRIMARY KEY, asset BYTEA NOT NULL, sponsor BYTEA NOT NULL, last_modified_ledger BIGINT NOT NULL, entry BYTEA NOT NULL)
            """,
            "CREATE INDEX claimable_balances_by_ledger ON claimable_balances (last_modified_ledger, balance_id)",
            "CREATE INDEX claimable_balances_by_asset ON claimable_balances (asset)",
            "CREATE INDEX claimable_balances_by_sponsor ON claimable_balances (sponsor)",
            "CREATE TABLE claimable_balance_claimants (claimant BYTEA NOT NULL, balance_id BYTEA NOT NULL, PRIMARY KEY (claimant, balance_id))",
            """
            CREATE TABLE claimable_balance_operations (
                balance_id BYTEA NOT NULL, operation_id BIGINT NOT NULL, transaction_id BIGINT NOT NULL, PRIMARY KEY (balance_id, operation_id))
            """,
            "ALTER TABLE asset_stats ADD COLUMN claimable_balances BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE asset_stats ADD COLUMN claimable_amount TEXT NOT NULL DEFAULT '0'",
        ]),
        // An older database's transactions are not indexed by memo or asset: they begin with this version.
        .init(number: 107, name: "memos and payment assets", statements: [
            "CREATE TABLE transaction_memos (memo TEXT NOT NULL, transaction_id BIGINT NOT NULL, PRIMARY KEY (memo, transaction_id))",
            "CREATE TABLE payment_assets (asset BYTEA NOT NULL, operation_id BIGINT NOT NULL, PRIMARY KEY (asset, operation_id))",
        ]),
        // Nothing could be sponsored before this version but claimable balances, which have their own column.
        .init(number: 108, name: "sponsorships", statements: [
            "CREATE TABLE account_sponsors (sponsor BYTEA NOT NULL, account_id BYTEA NOT NULL, entries BIGINT NOT NULL, PRIMARY KEY (sponsor, account_id))",
            "ALTER TABLE offers ADD COLUMN sponsor BYTEA",
            "CREATE INDEX offers_by_sponsor ON offers (sponsor) WHERE sponsor IS NOT NULL",
        ]),
        // No pool could exist before this version.
        .init(number: 109, name: "liquidity pools", statements: [
            "CREATE TABLE liquidity_pools (pool_id BYTEA PRIMARY KEY, asset_a BYTEA NOT NULL, asset_b BYTEA NOT NULL, entry BYTEA NOT NULL)",
            "CREATE INDEX liquidity_pools_by_asset_a ON liquidity_pools (asset_a)",
            "CREATE INDEX liquidity_pools_by_asset_b ON liquidity_pools (asset_b)",
            "CREATE TABLE pool_share_lines (account_id BYTEA NOT NULL, pool_id BYTEA NOT NULL, entry BYTEA NOT NULL, PRIMARY KEY (account_id, pool_id))",
            "CREATE INDEX pool_share_lines_by_pool ON pool_share_lines (pool_id, account_id)",
            "CREATE TABLE liquidity_pool_operations (pool_id BYTEA NOT NULL, operation_id BIGINT NOT NULL, transaction_id BIGINT NOT NULL, PRIMARY KEY (pool_id, operation_id))",
            """
            CREATE TABLE pool_amounts (
                operation_id BIGINT PRIMARY KEY, asset_a BYTEA NOT NULL, asset_b BYTEA NOT NULL, reserve_a BIGINT NOT NULL, reserve_b BIGINT NOT NULL, shares BIGINT NOT NULL)
            """,
            "ALTER TABLE trades ADD COLUMN base_pool BYTEA",
            "ALTER TABLE trades ADD COLUMN counter_pool BYTEA",
            "CREATE INDEX trades_by_base_pool ON trades (base_pool) WHERE base_pool IS NOT NULL",
            "CREATE INDEX trades_by_counter_pool ON trades (counter_pool) WHERE counter_pool IS NOT NULL",
        ]),
        .init(number: 110, name: "pools in asset statistics", statements: [
            "ALTER TABLE asset_stats ADD COLUMN liquidity_pools BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE asset_stats ADD COLUMN liquidity_pools_amount TEXT NOT NULL DEFAULT '0'",
        ]),
        // One index of who took part in what (`LedgerHistory.participations`) for the two an
        // older database kept: its operations' rows, and a transaction's row for an account no
        // operation of it names.
        .init(number: 111, name: "account history", statements: [
            "CREATE TABLE account_history (account_id BYTEA NOT NULL, toid BIGINT NOT NULL, is_payment BOOLEAN NOT NULL, PRIMARY KEY (account_id, toid))",
            "INSERT INTO account_history (account_id, toid, is_payment) SELECT account_id, operation_id, is_payment FROM account_operations",
            """
            INSERT INTO account_history (account_id, toid, is_payment)
            SELECT a.account_id, a.transaction_id, FALSE FROM account_transactions a WHERE NOT EXISTS (
                SELECT 1 FROM account_operations o
                WHERE o.account_id = a.account_id AND o.operation_id > a.transaction_id AND o.operation_id < a.transaction_id + 4096)
            """,
            "DROP TABLE account_operations",
            "DROP TABLE account_transactions",
        ]),
        // An account's master key signs for it while its weight is above 0, which its entry
        // tells: no row per account for it.
        .init(number: 112, name: "master keys not stored as signers", statements: [
            "DELETE FROM account_signers WHERE signer = account_id",
        ]),
        // A payment rewrites its accounts' entries. PostgreSQL keeps an entry's new version on
        // its page, with no new entry in the key's index (a HOT update), only when the page has
        // room for it; pages filled to the brim sent each rewritten account to another page and
        // its key into the index again: on a grown network, where a page's accounts are rarely
        // rewritten close together, another page and an index leaf written for each account a
        // payment rewrites (each logged whole after a checkpoint). About a seventh of each page
        // is left for new versions.
        // Pages written before this keep their rows until rewritten (`VACUUM FULL accounts`).
        .init(number: 113, name: "room on a page for an entry's next version", statements: [
            "ALTER TABLE accounts SET (fillfactor = \(entryFillFactor))",
            "ALTER TABLE trust_lines SET (fillfactor = \(entryFillFactor))",
        ]),
        // The hashes' index leaves `transactions` for a table keyed by generation first
        // (``HashGenerations``): one index of every hash took each payment's at a random leaf,
        // logged whole after each checkpoint; the newest generation's leaves are few and hot.
        // An older database's hashes are generation 0, copied in hash order; PostgreSQL drops the
        // `UNIQUE` constraint's index without rewriting the table.
        .init(number: 114, name: "transaction hashes by generation", statements: [
            "CREATE TABLE transaction_hashes (generation BIGINT NOT NULL, hash BYTEA NOT NULL, id BIGINT NOT NULL, PRIMARY KEY (generation, hash))",
            "INSERT INTO transaction_hashes (generation, hash, id) SELECT 0, hash, id FROM transactions ORDER BY hash",
            "ALTER TABLE transactions DROP CONSTRAINT transactions_hash_key",
        ]),
        // An account's payments are read from its rows of `account_history` alone (its key and
        // whether each is a payment) and the transactions they name. With the payment flag in
        // the key's index, PostgreSQL answers the account's rows from the index's leaf (an
        // index-only scan) rather than a leaf and, for each row, a page of the table's, at
        // random on a grown network.
        .init(number: 115, name: "payment flag in the account history's key", statements: [
            "ALTER TABLE account_history DROP CONSTRAINT account_history_pkey, ADD PRIMARY KEY (account_id, toid) INCLUDE (is_payment)",
        ]),
        // Each history row keeps where its transaction's row was written (`tx`, the row's
        // `ctid`, in the key's index with the payment flag), so a payment found reads the
        // transaction's page straight away, not first a leaf of the transactions' key: on a grown
        // network two random pages a payment became one. The place is a hint, checked against
        // the transaction's id when read; where it is unknown or no longer holds (a row copied
        // by `tender migrate` before its places are set, a table rewritten by `VACUUM FULL`) the
        // key finds the row as before (``historyTransaction``). The table is written anew with
        // its rows' places (an `UPDATE` would leave a dead version of every row and key).
        .init(number: 116, name: "a history row's transaction found by its place", statements: [
            "CREATE TABLE account_history_placed (account_id BYTEA NOT NULL, toid BIGINT NOT NULL, is_payment BOOLEAN NOT NULL, tx TID)",
            """
            INSERT INTO account_history_placed (account_id, toid, is_payment, tx)
            SELECT a.account_id, a.toid, a.is_payment, t.ctid FROM account_history a LEFT JOIN transactions t ON t.id = a.toid - (a.toid & 4095)
            """,
            "DROP TABLE account_history",
            "ALTER TABLE account_history_placed RENAME TO account_history",
            "ALTER TABLE account_history ADD CONSTRAINT account_history_pkey PRIMARY KEY (account_id, toid) INCLUDE (is_payment, tx)",
        ]),
    ]

    /// Keeps with each history row that has none the place of its transaction's row (rows
    /// copied by `tender migrate`, whose source has no places); see migration 116.
    public static func placeHistoryRows(_ transaction: PostgresDatabase.Transaction) async throws {
        try await transaction.execute("""
            UPDATE account_history a SET tx = t.ctid FROM transactions t WHERE a.tx IS NULL AND t.id = a.toid - (a.toid & 4095)
            """)
    }

    /// How full (percent) PostgreSQL fills the pages of the tables of entries rewritten in place.
    static let entryFillFactor = 85

    /// Adds to each sponsor's count of an account's entries, forgetting the pairs that reach 0.
    static func writeSponsorships(_ changes: [SponsoredAccount: Int], _ transaction: PostgresDatabase.Transaction) async throws {
        for (pair, delta) in changes {
            let (sponsor, account) = (pair.sponsor.storageKey, pair.account.storageKey)
            try await transaction.execute("""
                INSERT INTO account_sponsors (sponsor, account_id, entries) VALUES (\(sponsor), \(account), \(Int64(delta)))
                ON CONFLICT (sponsor, account_id) DO UPDATE SET entries = account_sponsors.entries + EXCLUDED.entries
                """)
            if delta < 0 { try await transaction.execute("DELETE FROM account_sponsors WHERE sponsor = \(sponsor) AND account_id = \(account) AND entries <= 0") }
        }
    }

    /// Replaces the signing keys of each account whose keys changed.
    static func writeSigners(_ changes: [AccountID: Set<AccountID>], _ transaction: PostgresDatabase.Transaction) async throws {
        for (account, keys) in changes {
            let key = account.storageKey
            try await transaction.execute("DELETE FROM account_signers WHERE account_id = \(key)")
            for signer in keys {
                try await transaction.execute("INSERT INTO account_signers (signer, account_id) VALUES (\(signer.storageKey), \(key)) ON CONFLICT DO NOTHING")
            }
        }
    }

    /// Adds each asset's change to the totals the store keeps, removing an asset no trustline
    /// holds any more (as Horizon's asset statistics do).
    static func writeAssetTallies(_ changes: [Asset: AssetTally], _ transaction: PostgresDatabase.Transaction) async throws {
        for (asset, change) in changes {
            guard let code = asset.code, let issuer = asset.issuer else { continue }
            let key = asset.storageKey
            let old = try await transaction.rows(PostgresQuery(unsafeSQL: "SELECT \(tallyColumns), asset FROM asset_stats WHERE asset = $1 FOR UPDATE", binds: {
                var binds = PostgresBindings()
                binds.append(key)
                return binds
            }()), tally).first ?? AssetTally()
            let new = old + change
            if !new.isHeld {
                try await transaction.execute("DELETE FROM asset_stats WHERE asset = \(key)")
            } else {
                let (a, m, u) = (new.accounts[0], new.accounts[1], new.accounts[2])
                let (ba, bm, bu) = (String(new.balances[0]), String(new.balances[1]), String(new.balances[2]))
                let (cb, ca) = (new.claimableBalances, String(new.claimableAmount))
                let (lp, la) = (new.liquidityPools, String(new.liquidityPoolsAmount))
                try await transaction.execute("""
                    INSERT INTO asset_stats (asset, code, issuer, accounts_authorized, accounts_maintain, accounts_unauthorized,
                        balance_authorized, balance_maintain, balance_unauthorized, claimable_balances, claimable_amount, liquidity_pools, liquidity_pools_amount)
                    VALUES (\(key), \(code.text), \(issuer.strKey), \(a), \(m), \(u), \(ba), \(bm), \(bu), \(cb), \(ca), \(lp), \(la))
                    ON CONFLICT (asset) DO UPDATE SET accounts_authorized = EXCLUDED.accounts_authorized,
                        accounts_maintain = EXCLUDED.accounts_maintain, accounts_unauthorized = EXCLUDED.accounts_unauthorized,
                        balance_authorized = EXCLUDED.balance_authorized, balance_maintain = EXCLUDED.balance_maintain,
                        balance_unauthorized = EXCLUDED.balance_unauthorized, claimable_balances = EXCLUDED.claimable_balances,
                        claimable_amount = EXCLUDED.claimable_amount, liquidity_pools = EXCLUDED.liquidity_pools,
                        liquidity_pools_amount = EXCLUDED.liquidity_pools_amount
                    """)
            }
        }
    }

    /// The columns of `asset_stats` a tally is read from, in order (``tally``).
    static let tallyColumns = """
        accounts_authorized, accounts_maintain, accounts_unauthorized, balance_authorized, balance_maintain, balance_unauthorized, \
        claimable_balances, claimable_amount, liquidity_pools, liquidity_pools_amount
        """

    /// Three counts, three balances, the claimable balances and their amount (balances as
    /// decimal text), as `asset_stats` keeps them, from a row of ``tallyColumns`` and the asset.
    static let tally: @Sendable (PostgresRow) throws -> AssetTally = { row in
        let (a, m, u, ba, bm, bu, cb, ca, lp, la, _) = try row.decode((Int64, Int64, Int64, String, String, String, Int64, String, Int64, String, ByteBuffer?).self)
        let balances = [ba, bm, bu, ca, la].compactMap { Int128($0) }
        guard balances.count == 5 else { throw BadStoredValue(description: "asset_stats holds a balance that is not a number") }
        return AssetTally(
            accounts: [a, m, u], balances: Array(balances.prefix(3)), claimableBalances: cb, claimableAmount: balances[3], liquidityPools: lp,
            liquidityPoolsAmount: balances[4])
    }

    // MARK: The write side

    public func loadState() async throws -> LedgerState? {
        // One snapshot for the header and every table, so that the state is one ledger's even
        // while a leader commits (a follower's load, a standby's).
        try await database.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { transaction in
            guard let header = try await transaction.rows("SELECT header FROM ledger_headers ORDER BY sequence DESC LIMIT 1", Self.bytes).first else {
                return nil
            }
            // The chunks' statement costs more than JIT compiling saves.
            try await transaction.execute("SET LOCAL jit = off")
            var state = LedgerState(header: try LedgerHeader(xdrBytes: header))
            let count: @Sendable (PostgresRow) throws -> Int = { Int(try $0.decode(Int64.self)) }
            state.reserveCapacity(
                accounts: try await transaction.rows("SELECT COUNT(*) FROM accounts", count).first ?? 0,
                trustLines: try await transaction.rows("SELECT COUNT(*) FROM trust_lines", count).first ?? 0)
            // Entries stream into the state as SQLite's do: this task reads chunks of a table's
            // pages (`EntryChunks`), a thread of the ``StateBuilder`` decodes and files them (the
            // task suspends, never blocks, when the thread is behind).
            let builder = StateBuilder(consume state)
            do {
                for kind in StoredEntryKind.allCases {
                    try await EntryChunks.read(kind.table, in: transaction) { bytes, ends in
                        try await builder.handOver(kind, rows: bytes, ends: ends)
                    }
                }
            } catch {
                builder.abandon()
                throw error
            }
            return try await builder.finished()
        }
    }

    /// One column of bytes.
    static let bytes: @Sendable (PostgresRow) throws -> [UInt8] = { Array(buffer: try $0.decode(ByteBuffer.self)) }

    public func commit(_ ledger: ClosedLedger) async throws {
        let history = LedgerHistory(ledger)
        let header = ledger.header
        let (fence, hashGenerationSize) = (self.fence, self.hashGenerationSize)
        if let fence, fence.isLost { throw LeadershipLost(reason: "its lock's session ended") }
        let known = placement.withLock { $0 }
        let placed = try await database.transaction { transaction -> HashGenerations? in
            if let fence {
                // Shares the row that a new leader updates when it takes over: that update waits
                // for this commit, and a commit after it sees the new epoch and stops.
                let epoch = try await transaction.rows("SELECT epoch FROM tender_leader WHERE id = 1 FOR SHARE") { try $0.decode(Int64.self) }.first
                guard epoch == fence.epoch, !fence.isLost else {
                    fence.lose()
                    throw LeadershipLost(reason: "another node took the lead (epoch \(epoch ?? 0), ours \(fence.epoch))")
                }
            }
            try await transaction.execute("""
                INSERT INTO ledger_headers (sequence, close_time, header, transaction_count, successful_transaction_count, operation_count)
                VALUES (\(Int64(header.sequence)), \(Int64(header.closeTime)), \(ByteBuffer(bytes: header.xdrBytes)), \(Int64(history.transactions.count)),
                        \(Int64(history.transactions.filter(\.successful).count)), \(Int64(history.operations.count)))
                """)
            try await Self.writeChanges(ledger.changes, transaction)
            try await Self.writeAssetTallies(ledger.changes.assets, transaction)
            try await Self.writeSigners(ledger.changes.signers, transaction)
            try await Self.writeSponsorships(ledger.changes.sponsorships, transaction)
            var generations = known
            if generations == nil, !history.transactions.isEmpty {
                generations = try await Self.hashGenerations(size: hashGenerationSize, transaction)
            }
            try await Self.writeHistory(history, generations: &generations, transaction)
            // Delivered to the followers when the transaction commits, never before.
            try await transaction.execute("SELECT pg_notify(\(PostgresCluster.ledgerChannel), \(String(header.sequence)))")
            return generations
        }
        // Committed: the next commit places its hashes after these (a failed one left them).
        placement.withLock { $0 = placed }
    }

    /// Every changed entry: the upserts of each kind in one statement (a few, for thousands of
    /// rows), the rare deletions one by one.
    private static func writeChanges(_ changes: LedgerChanges, _ transaction: PostgresDatabase.Transaction) async throws {
        var accounts = Batch("INSERT INTO accounts (account_id, entry)", width: 2, "ON CONFLICT (account_id) DO UPDATE SET entry = EXCLUDED.entry")
        for (id, entry) in changes.accounts {
            if let entry {
                accounts.row { $0.append(id.storageKey); $0.append(ByteBuffer(bytes: entry.xdrBytes)) }
            } else {
                try await transaction.execute("DELETE FROM accounts WHERE account_id = \(id.storageKey)")
            }
        }
        try await accounts.execute(transaction)
        var lines = Batch("INSERT INTO trust_lines (account_id, asset, entry)", width: 3, "ON CONFLICT (account_id, asset) DO UPDATE SET entry = EXCLUDED.entry")
        for (key, entry) in changes.trustLines {
            if let entry {
                lines.row { $0.append(key.accountID.storageKey); $0.append(key.asset.storageKey); $0.append(ByteBuffer(bytes: entry.xdrBytes)) }
            } else {
                try await transaction.execute("DELETE FROM trust_lines WHERE account_id = \(key.accountID.storageKey) AND asset = \(key.asset.storageKey)")
            }
        }
        try await lines.execute(transaction)
        var offers = Batch(
            "INSERT INTO offers (offer_id, seller_id, selling, buying, entry, sponsor)", width: 6,
            "ON CONFLICT (offer_id) DO UPDATE SET seller_id = EXCLUDED.seller_id, selling = EXCLUDED.selling, buying = EXCLUDED.buying, entry = EXCLUDED.entry, sponsor = EXCLUDED.sponsor")
        for (id, offer) in changes.offers {
            if let offer {
                let entry = offer.entry
                offers.row {
                    $0.append(id); $0.append(entry.sellerID.storageKey); $0.append(entry.selling.storageKey); $0.append(entry.buying.storageKey)
                    $0.append(ByteBuffer(bytes: offer.xdrBytes)); $0.append(offer.sponsor?.storageKey)
                }
            } else {
                try await transaction.execute("DELETE FROM offers WHERE offer_id = \(id)")
            }
        }
        try await offers.execute(transaction)
        for (id, entry) in changes.liquidityPools {
            let key = ByteBuffer(bytes: id.bytes)
            if let entry {
                try await transaction.execute("""
                    INSERT INTO liquidity_pools (pool_id, asset_a, asset_b, entry)
                    VALUES (\(key), \(entry.parameters.assetA.storageKey), \(entry.parameters.assetB.storageKey), \(ByteBuffer(bytes: entry.xdrBytes)))
                    ON CONFLICT (pool_id) DO UPDATE SET entry = EXCLUDED.entry
                    """)
            } else {
                try await transaction.execute("DELETE FROM liquidity_pools WHERE pool_id = \(key)")
            }
        }
        for (key, entry) in changes.poolShares {
            let (account, pool) = (key.accountID.storageKey, ByteBuffer(bytes: key.poolID.bytes))
            if let entry {
                try await transaction.execute("""
                    INSERT INTO pool_share_lines (account_id, pool_id, entry) VALUES (\(account), \(pool), \(ByteBuffer(bytes: entry.xdrBytes)))
                    ON CONFLICT (account_id, pool_id) DO UPDATE SET entry = EXCLUDED.entry
                    """)
            } else {
                try await transaction.execute("DELETE FROM pool_share_lines WHERE account_id = \(account) AND pool_id = \(pool)")
            }
        }
        for (id, entry) in changes.claimableBalances {
            let key = ByteBuffer(bytes: id.hash.bytes)
            try await transaction.execute("DELETE FROM claimable_balance_claimants WHERE balance_id = \(key)")
            if let entry {
                try await transaction.execute("""
                    INSERT INTO claimable_balances (balance_id, asset, sponsor, last_modified_ledger, entry)
                    VALUES (\(key), \(entry.asset.storageKey), \(entry.sponsor.storageKey), \(Int64(entry.lastModifiedLedger)), \(ByteBuffer(bytes: entry.xdrBytes)))
                    ON CONFLICT (balance_id) DO UPDATE SET asset = EXCLUDED.asset, sponsor = EXCLUDED.sponsor,
                        last_modified_ledger = EXCLUDED.last_modified_ledger, entry = EXCLUDED.entry
                    """)
                for claimant in entry.claimants {
                    try await transaction.execute("INSERT INTO claimable_balance_claimants (claimant, balance_id) VALUES (\(claimant.destination.storageKey), \(key))")
                }
            } else {
                try await transaction.execute("DELETE FROM claimable_balances WHERE balance_id = \(key)")
            }
        }
        var data = Batch("INSERT INTO account_data (account_id, name, entry)", width: 3, "ON CONFLICT (account_id, name) DO UPDATE SET entry = EXCLUDED.entry")
        for (key, entry) in changes.data {
            if let entry {
                data.row { $0.append(key.accountID.storageKey); $0.append(ByteBuffer(bytes: key.name)); $0.append(ByteBuffer(bytes: entry.xdrBytes)) }
            } else {
                try await transaction.execute("DELETE FROM account_data WHERE account_id = \(key.accountID.storageKey) AND name = \(ByteBuffer(bytes: key.name))")
            }
        }
        try await data.execute(transaction)
    }

    /// The ledger's history rows, each table's in one statement (or a few).
    /// - Parameter generations: where the ledger's transaction hashes go (read before when the
    ///   ledger has transactions), left where the next go.
    private static func writeHistory(
        _ history: LedgerHistory, generations: inout HashGenerations?, _ transaction: PostgresDatabase.Transaction
    ) async throws {
        let ledger = Int64(history.ledger)
        var transactions = Batch(
            "INSERT INTO transactions (id, hash, ledger, application_order, source_account, successful, fee_charged, operation_count, close_time, envelope, result)",
            width: 11, "RETURNING id, ctid")
        for row in history.transactions {
            transactions.row {
                $0.append(row.id); $0.append(ByteBuffer(bytes: row.hash.bytes)); $0.append(ledger); $0.append(Int64(row.order))
                $0.append(row.source.storageKey); $0.append(row.successful); $0.append(row.feeCharged); $0.append(Int64(row.operationCount))
                $0.append(Int64(history.closeTime)); $0.append(ByteBuffer(bytes: row.envelope)); $0.append(ByteBuffer(bytes: row.result))
            }
        }
        // Where each transaction's row went, kept with its accounts' history rows.
        var places: [Int64: RowPlace] = [:]
        places.reserveCapacity(history.transactions.count)
        for (id, place) in try await transactions.rows(transaction, { try $0.decode((Int64, RowPlace).self) }) { places[id] = place }
        if var placing = generations, !history.transactions.isEmpty {
            var hashes = Batch("INSERT INTO transaction_hashes (generation, hash, id)", width: 3, "")
            for row in history.transactions {
                hashes.row { $0.append(placing.place()); $0.append(ByteBuffer(bytes: row.hash.bytes)); $0.append(row.id) }
            }
            try await hashes.execute(transaction)
            generations = placing
        }
        var operations = Batch("INSERT INTO operations (id, transaction_id, ledger, source_account, type, is_payment, successful)", width: 7, "")
        for row in history.operations {
            operations.row {
                $0.append(row.id); $0.append(row.transactionID); $0.append(ledger); $0.append(row.source.storageKey); $0.append(Int64(row.type))
                $0.append(row.isPayment); $0.append(row.successful)
            }
        }
        try await operations.execute(transaction)
        var participations = Batch("INSERT INTO account_history (account_id, toid, is_payment, tx)", width: 4, "ON CONFLICT DO NOTHING")
        for row in history.participations {
            participations.row {
                $0.append(row.account.storageKey); $0.append(row.id); $0.append(row.isPayment); $0.append(places[row.id - (row.id & 0xFFF)])
            }
        }
        try await participations.execute(transaction)
        var effects = Batch("INSERT INTO effects (operation_id, effect_order, account_id, muxed_id, type, details, close_time)", width: 7, "")
        for effect in history.effects {
            effects.row {
                $0.append(effect.operationID); $0.append(effect.order); $0.append(effect.account.storageKey)
                $0.append(effect.muxedID.map { Int64(bitPattern: $0) }); $0.append(Int64(effect.type.rawValue))
                $0.append(String(decoding: effect.details, as: UTF8.self)); $0.append(Int64(effect.closeTime))
            }
        }
        try await effects.execute(transaction)
        var memos = Batch("INSERT INTO transaction_memos (memo, transaction_id)", width: 2, "ON CONFLICT DO NOTHING")
        for row in history.memos { memos.row { $0.append(row.memo); $0.append(row.transaction) } }
        try await memos.execute(transaction)
        var assets = Batch("INSERT INTO payment_assets (asset, operation_id)", width: 2, "ON CONFLICT DO NOTHING")
        for row in history.paymentAssets { assets.row { $0.append(row.asset.storageKey); $0.append(row.operation) } }
        try await assets.execute(transaction)
        var balances = Batch("INSERT INTO claimable_balance_operations (balance_id, operation_id, transaction_id)", width: 3, "ON CONFLICT DO NOTHING")
        for row in history.balanceOperations {
            balances.row { $0.append(ByteBuffer(bytes: row.balance.hash.bytes)); $0.append(row.operation); $0.append(row.transaction) }
        }
        try await balances.execute(transaction)
        var pools = Batch("INSERT INTO liquidity_pool_operations (pool_id, operation_id, transaction_id)", width: 3, "ON CONFLICT DO NOTHING")
        for row in history.poolOperations {
            pools.row { $0.append(ByteBuffer(bytes: row.pool.bytes)); $0.append(row.operation); $0.append(row.transaction) }
        }
        try await pools.execute(transaction)
        var amounts = Batch("INSERT INTO pool_amounts (operation_id, asset_a, asset_b, reserve_a, reserve_b, shares)", width: 6, "")
        for row in history.poolAmounts {
            amounts.row {
                $0.append(row.operation); $0.append(row.amounts.assetA.storageKey); $0.append(row.amounts.assetB.storageKey)
                $0.append(row.amounts.reserveA); $0.append(row.amounts.reserveB); $0.append(row.amounts.shares)
            }
        }
        try await amounts.execute(transaction)
        var trades = Batch("INSERT INTO trades", width: 17, "")
        for trade in history.trades {
            trades.row {
                $0.append(trade.operationID); $0.append(trade.order); $0.append(Int64(trade.closeTime)); $0.append(Int64(trade.kind.rawValue))
                for side in [trade.base, trade.counter] {
                    $0.append(side.asset.storageKey); $0.append(side.amount); $0.append(side.account?.storageKey); $0.append(side.offerID)
                }
                $0.append(trade.baseIsSeller); $0.append(trade.priceN); $0.append(trade.priceD)
                $0.append(trade.base.liquidityPool.map { ByteBuffer(bytes: $0.bytes) }); $0.append(trade.counter.liquidityPool.map { ByteBuffer(bytes: $0.bytes) })
            }
        }
        try await trades.execute(transaction)
    }

    /// A multi-row INSERT: rows bound in order, sent as one statement per 30,000 parameters
    /// (PostgreSQL allows 65,535 in one).
    struct Batch {
        let head: String
        let width: Int
        let tail: String
        private var bindings = PostgresBindings()
        private var rows = 0
        private var statements: [PostgresQuery] = []
        static let parameterLimit = 30_000

        init(_ head: String, width: Int, _ tail: String) {
            self.head = head
            self.width = width
            self.tail = tail
        }

        mutating func row(_ bind: (inout PostgresBindings) -> Void) {
            bind(&bindings)
            rows += 1
            if (rows + 1) * width > Self.parameterLimit { flush() }
        }

        private mutating func flush() {
            guard rows > 0 else { return }
            var sql = head + " VALUES "
            sql.reserveCapacity(head.count + tail.count + rows * width * 8)
            var parameter = 0
            for row in 0..<rows {
                sql += row == 0 ? "(" : ", ("
                for column in 0..<width {
                    parameter += 1
                    sql += column == 0 ? "$\(parameter)" : ", $\(parameter)"
                }
                sql += ")"
            }
            if !tail.isEmpty { sql += " " + tail }
            statements.append(PostgresQuery(unsafeSQL: sql, binds: bindings))
            bindings = PostgresBindings()
            rows = 0
        }

        mutating func execute(_ transaction: PostgresDatabase.Transaction) async throws {
            flush()
            for statement in statements { try await transaction.execute(statement) }
            statements = []
        }

        /// ``execute(_:)``, with the rows its statements answer (its tail's `RETURNING`), each
        /// made into a `T`.
        mutating func rows<T: Sendable>(
            _ transaction: PostgresDatabase.Transaction, _ transform: @escaping @Sendable (PostgresRow) throws -> T
        ) async throws -> [T] {
            flush()
            var rows: [T] = []
            for statement in statements { rows += try await transaction.rows(statement, transform) }
            statements = []
            return rows
        }
    }

    // MARK: The read side (Horizon's queries)

    private static let transactionColumns = "t.hash, t.ledger, t.application_order, t.close_time, t.envelope, t.result"

    /// The transaction (`t`) of an account's history row (`a`): first at the place the row
    /// keeps, which must hold the transaction's id (one page, PostgreSQL's `Tid Scan`), and only
    /// when it does not (no place kept, or the table rewritten since) through the transactions'
    /// key. `UNION ALL` under `LIMIT 1` runs its second branch only when the first found nothing.
    static let historyTransaction = """
        JOIN LATERAL (
            SELECT * FROM transactions x WHERE x.ctid = a.tx AND x.id = a.toid - (a.toid & 4095)
            UNION ALL SELECT * FROM transactions x WHERE x.id = a.toid - (a.toid & 4095) LIMIT 1) t ON TRUE
        """

    private static func storedTransaction(_ row: PostgresRow) throws -> StoredTransaction {
        try storedTransaction(row.decode((ByteBuffer, Int64, Int64, Int64, ByteBuffer, ByteBuffer).self))
    }

    /// A transaction's `transactionColumns`, as read.
    private typealias TransactionColumns = (hash: ByteBuffer, ledger: Int64, order: Int64, closeTime: Int64, envelope: ByteBuffer, result: ByteBuffer)

    /// A transaction from its `transactionColumns`, decoded.
    private static func storedTransaction(_ columns: TransactionColumns) throws -> StoredTransaction {
        let (hash, ledger, order, closeTime, envelope, result) = columns
        return StoredTransaction(
            hash: Bytes32(Array(buffer: hash)), ledger: UInt32(ledger), applicationOrder: Int(order),
            envelope: try TransactionEnvelope(xdrBytes: Array(buffer: envelope)), result: try TransactionResult(xdrBytes: Array(buffer: result)),
            closeTime: UInt64(closeTime))
    }

    public func transaction(hash: Bytes32) async throws -> StoredTransaction? {
        // One row always: the newest generation, and the transaction's columns (null when no
        // transaction has the hash).
        let rows = try await database.rows(
            PostgresQuery(unsafeSQL: """
                SELECT m.newest, \(Self.transactionColumns) FROM (SELECT MAX(generation) AS newest FROM transaction_hashes) m
                LEFT JOIN transactions t ON t.id = (\(Self.transactionIDByHash))
                """, binds: hashBindings(hash))
        ) { row -> (Int64?, TransactionColumns?) in
            let (newest, hash, ledger, order, closeTime, envelope, result) = try row.decode(
                (Int64?, ByteBuffer?, Int64?, Int64?, Int64?, ByteBuffer?, ByteBuffer?).self)
            guard let hash, let ledger, let order, let closeTime, let envelope, let result else { return (newest, nil) }
            return (newest, (hash, ledger, order, closeTime, envelope, result))
        }
        guard let (newest, columns) = rows.first else { return nil }
        buildHashFiltersIfNeeded(newest: newest)
        return try columns.map { try Self.storedTransaction($0) }
    }

    /// The ID of the transaction with `hash` (``transactionIDByHash``).
    private func transactionID(hash: Bytes32) async throws -> Int64? {
        let rows = try await database.rows(
            PostgresQuery(unsafeSQL: "SELECT (SELECT MAX(generation) FROM transaction_hashes), (\(Self.transactionIDByHash))", binds: hashBindings(hash))
        ) { try $0.decode((Int64?, Int64?).self) }
        guard let (newest, id) = rows.first else { return nil }
        buildHashFiltersIfNeeded(newest: newest)
        return id
    }

    /// `transactionIDByHash`'s parameters: the hash, and the generations whose filter refuses it.
    private func hashBindings(_ hash: Bytes32) -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(ByteBuffer(bytes: hash.bytes))
        bindings.append(hashFilters.generations(refusing: hash))
        return bindings
    }

    /// Begins building, in the background, a filter for each generation below `newest` that has
    /// none (``HashFilters``).
    private func buildHashFiltersIfNeeded(newest: Int64?) {
        guard let newest, newest > 0 else { return }
        hashFilters.beginBuilding(below: newest, filter: generationFilter)
    }

    /// Builds a filter for each frozen generation of `transaction_hashes` that has none, or waits
    /// for the build under way (a lookup begins one in the background when it first needs them).
    public func buildHashFilters() async throws {
        let newest = try await database.rows("SELECT MAX(generation) FROM transaction_hashes") { try $0.decode(Int64?.self) }.first ?? nil
        try await hashFilters.build(below: newest ?? 0, filter: generationFilter)
    }

    /// Reads generation `generation`'s hashes into a filter.
    private var generationFilter: @Sendable (Int64) async throws -> GenerationFilter {
        let database = self.database
        return { generation in
            let count = try await database.rows("SELECT COUNT(*) FROM transaction_hashes WHERE generation = \(generation)") {
                try $0.decode(Int64.self)
            }.first ?? 0
            var filter = GenerationFilter(capacity: Int(count))
            // Each hash's first two words, read from its bytes (no Bytes32 a row).
            let words = try await database.rows("SELECT hash FROM transaction_hashes WHERE generation = \(generation)") { row -> (UInt64, UInt64) in
                let hash = try row.decode(ByteBuffer.self)
                guard hash.readableBytes == 32, let w0 = hash.getInteger(at: hash.readerIndex, as: UInt64.self),
                      let w1 = hash.getInteger(at: hash.readerIndex + 8, as: UInt64.self)
                else { throw BadStoredValue(description: "transaction_hashes holds a hash of \(hash.readableBytes) bytes") }
                return (w0, w1)
            }
            for (w0, w1) in words { filter.insert(w0: w0, w1: w1) }
            return filter
        }
    }

    /// The newest generation of `transaction_hashes` and the hashes it holds (generation 0,
    /// empty, when the table is).
    private static func hashGenerations(size: Int, _ transaction: PostgresDatabase.Transaction) async throws -> HashGenerations {
        let newest = try await transaction.rows("""
            SELECT generation, COUNT(*) FROM transaction_hashes WHERE generation = (SELECT MAX(generation) FROM transaction_hashes) GROUP BY generation
            """) { try $0.decode((Int64, Int64).self) }.first
        return HashGenerations(size: Int64(size), newest: newest?.0 ?? 0, held: newest?.1 ?? 0)
    }

    /// A statement's subquery for the ID of the transaction whose hash is its parameter `$1`:
    /// one descent of `transaction_hashes`' key a generation, newest first (a transaction just
    /// applied is there), stopping at the first found, but for the generations in `$2` (those
    /// whose filter refuses the hash, ``HashFilters``); the newest generation's number (the
    /// key's last) read in the same snapshot.
    static let transactionIDByHash = """
        SELECT h.id FROM transaction_hashes h WHERE h.hash = $1 AND h.generation = ANY(ARRAY(
            SELECT g FROM generate_series((SELECT MAX(generation) FROM transaction_hashes), 0, -1) g WHERE g <> ALL($2::bigint[])
        )) ORDER BY h.generation DESC LIMIT 1
        """

    public func latestLedgerSequence() async throws -> UInt32? {
        try await database.rows("SELECT MAX(sequence) FROM ledger_headers") { try $0.decode(Int64?.self) }.first.flatMap { $0 }.map(UInt32.init)
    }

    /// Successful payment operations in history (a benchmark's count of what a network holds).
    public func paymentCount() async throws -> Int {
        try await database.rows("SELECT COUNT(*) FROM operations WHERE is_payment AND successful") { Int(try $0.decode(Int64.self)) }.first ?? 0
    }

    public func account(_ id: AccountID) async throws -> AccountRecord? {
        // One snapshot for the account and its sub-entries.
        try await database.transaction { transaction in
            try await transaction.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            guard let blob = try await transaction.rows("SELECT entry FROM accounts WHERE account_id = \(id.storageKey)", Self.bytes).first else { return nil }
            let account = try AccountEntry(xdrBytes: blob)
            var lines: [TrustLineEntry] = []
            var data: [DataEntry] = []
            var shares: [(line: PoolShareLine, pool: LiquidityPoolEntry?)] = []
            if account.numSubEntries > 0 {
                lines = try await transaction.rows("SELECT entry FROM trust_lines WHERE account_id = \(id.storageKey) ORDER BY asset", Self.bytes)
                    .map { try TrustLineEntry(xdrBytes: $0) }
                data = try await transaction.rows("SELECT entry FROM account_data WHERE account_id = \(id.storageKey) ORDER BY name", Self.bytes)
                    .map { try DataEntry(xdrBytes: $0) }
                shares = try await transaction.rows("""
                    SELECT s.entry, p.entry FROM pool_share_lines s LEFT JOIN liquidity_pools p ON p.pool_id = s.pool_id
                    WHERE s.account_id = \(id.storageKey) ORDER BY s.pool_id
                    """) { row in try row.decode((ByteBuffer, ByteBuffer?).self) }.map { line, pool in
                    (try PoolShareLine(xdrBytes: Array(buffer: line)), try pool.map { try LiquidityPoolEntry(xdrBytes: Array(buffer: $0)) })
                }
            }
            return AccountRecord(account: account, trustLines: lines, data: data, poolShares: shares)
        }
    }

    public func accountExists(_ id: AccountID) async throws -> Bool {
        try await !database.rows("SELECT 1 FROM accounts WHERE account_id = \(id.storageKey)") { _ in true }.isEmpty
    }

    /// A page's condition on `column` (with its cursor bound) and its order clause.
    private static func clauses(_ page: PageRequest, _ column: String, _ bindings: inout PostgresBindings) throws -> (condition: String, order: String) {
        let order = "ORDER BY \(column) \(page.descending ? "DESC" : "ASC") LIMIT \(page.limit)"
        guard let cursor = page.cursor else { return ("TRUE", order) }
        try bindings.append(cursor)
        return ("\(column) \(page.descending ? "<" : ">") $\(bindings.count)", order)
    }

    public func ledgers(_ page: PageRequest) async throws -> [LedgerRecord] {
        // As SQLite's: paging tokens are sequence << 32, compared on the sequence.
        var sequencePage = page
        sequencePage.cursor = page.cursor.map { cursor in
            page.descending ? (cursor >> 32) + (cursor & 0xFFFF_FFFF == 0 ? 0 : 1) : cursor >> 32
        }
        var bindings = PostgresBindings()
        let (condition, order) = try Self.clauses(sequencePage, "h.sequence", &bindings)
        return try await database.rows(PostgresQuery(unsafeSQL: """
            SELECT h.header, h.transaction_count, h.successful_transaction_count, h.operation_count, p.header
            FROM ledger_headers h LEFT JOIN ledger_headers p ON p.sequence = h.sequence - 1 WHERE \(condition) \(order)
            """, binds: bindings), Self.ledgerRecord)
    }

    public func ledger(_ sequence: UInt32) async throws -> LedgerRecord? {
        try await database.rows("""
            SELECT h.header, h.transaction_count, h.successful_transaction_count, h.operation_count, p.header
            FROM ledger_headers h LEFT JOIN ledger_headers p ON p.sequence = h.sequence - 1 WHERE h.sequence = \(Int64(sequence))
            """, Self.ledgerRecord).first
    }

    private static func ledgerRecord(_ row: PostgresRow) throws -> LedgerRecord {
        let (headerBytes, transactions, successful, operations, previous) = try row.decode((ByteBuffer, Int64, Int64, Int64, ByteBuffer?).self)
        let bytes = Array(buffer: headerBytes)
        return LedgerRecord(
            header: try LedgerHeader(xdrBytes: bytes), hash: hash(bytes), previousHash: previous.map { hash(Array(buffer: $0)) },
            transactionCount: Int(transactions), successfulTransactionCount: Int(successful), operationCount: Int(operations))
    }

    private static func hash(_ bytes: [UInt8]) -> Bytes32 {
        SHA256.hash(data: bytes).withUnsafeBytes { Bytes32($0) }
    }

    public func transactions(_ page: PageRequest, filter: TransactionFilter) async throws -> [StoredTransaction] {
        var bindings = PostgresBindings()
        var conditions: [String] = []
        let from: String, idColumn: String
        if let account = filter.account {
            // An account's rows in `account_history`, a transaction's together; the pager takes
            // each transaction once.
            (from, idColumn) = ("account_history a \(Self.historyTransaction)", "a.toid")
            bindings.append(account.storageKey)
            conditions.append("a.account_id = $\(bindings.count)")
        } else if let memo = filter.memo {
            (from, idColumn) = ("transaction_memos m JOIN transactions t ON t.id = m.transaction_id", "m.transaction_id")
            bindings.append(memo)
            conditions.append("m.memo = $\(bindings.count)")
        } else {
            (from, idColumn) = ("transactions t", "t.id")
        }
        if let memo = filter.memo, filter.account != nil {
            bindings.append(memo)
            conditions.append("EXISTS (SELECT 1 FROM transaction_memos m WHERE m.memo = $\(bindings.count) AND m.transaction_id = t.id)")
        }
        if let asset = filter.asset {
            bindings.append(asset.storageKey)
            conditions.append("EXISTS (SELECT 1 FROM payment_assets p WHERE p.asset = $\(bindings.count) AND p.operation_id > t.id AND p.operation_id < t.id + 4096)")
        }
        if !filter.includeFailed { conditions.append("t.successful") }
        let read = { [database, conditions, bindings] (page: PageRequest) in
            var bindings = bindings
            let (condition, order) = try Self.clauses(page, idColumn, &bindings)
            return try await database.rows(PostgresQuery(unsafeSQL: """
                SELECT \(idColumn), \(Self.transactionColumns) FROM \(from) WHERE \((conditions + [condition]).joined(separator: " AND ")) \(order)
                """, binds: bindings)) { row in
                // Decoded once a row is kept (the pager passes over a transaction's further rows).
                let (id, hash, ledger, order, closeTime, envelope, result) = try row.decode((Int64, ByteBuffer, Int64, Int64, Int64, ByteBuffer, ByteBuffer).self)
                return (id: id, row: TransactionColumns(hash: hash, ledger: ledger, order: order, closeTime: closeTime, envelope: envelope, result: result))
            }
        }
        guard filter.account != nil else { return try await read(page).map { try Self.storedTransaction($0.row) } }
        var pager = AccountTransactionPager<TransactionColumns>(page)
        while let request = pager.next { pager.take(try await read(request)) }
        return try pager.rows.map(Self.storedTransaction)
    }

    public func operations(_ page: PageRequest, filter: OperationFilter) async throws -> [OperationRecord] {
        var bindings = PostgresBindings()
        var conditions: [String] = []
        // The operation's id, its payment flag and its success: the operations table's columns,
        // or those an account's history rows give; and how its transaction is found (an
        // account's history row keeps its place).
        var from: String
        var (id, isPayment, successful) = ("o.id", "o.is_payment", "o.successful")
        var transactionJoin = "JOIN transactions t ON t.id = o.transaction_id"
        if let account = filter.account {
            // The account's rows of operations (a transaction's row has index 0).
            from = "account_history a"
            transactionJoin = Self.historyTransaction
            if filter.types == nil {
                // As SQLite's: an operation's transaction is its id with the operation's index
                // (the low 12 bits of a TOID) cleared, and its success is the transaction's, so an
                // account's operations need not read the operations table: its key's leaf and its
                // row's page, two random pages fewer a row on a grown network.
                (id, isPayment, successful) = ("a.toid", "a.is_payment", "t.successful")
            } else {
                from += " JOIN operations o ON o.id = a.toid"
            }
            try bindings.append(account.storageKey)
            conditions.append("a.account_id = $\(bindings.count)")
            conditions.append("(a.toid & 4095) != 0")
        } else if let balance = filter.claimableBalance {
            from = "claimable_balance_operations c JOIN operations o ON o.id = c.operation_id"
            bindings.append(ByteBuffer(bytes: balance.hash.bytes))
            conditions.append("c.balance_id = $\(bindings.count)")
        } else if let pool = filter.liquidityPool {
            from = "liquidity_pool_operations lpo JOIN operations o ON o.id = lpo.operation_id"
            bindings.append(ByteBuffer(bytes: pool.bytes))
            conditions.append("lpo.pool_id = $\(bindings.count)")
        } else if let asset = filter.asset {
            from = "payment_assets pa JOIN operations o ON o.id = pa.operation_id"
            bindings.append(asset.storageKey)
            conditions.append("pa.asset = $\(bindings.count)")
        } else {
            from = "operations o"
        }
        if let asset = filter.asset, filter.account != nil || filter.claimableBalance != nil || filter.liquidityPool != nil {
            bindings.append(asset.storageKey)
            conditions.append("EXISTS (SELECT 1 FROM payment_assets pa WHERE pa.asset = $\(bindings.count) AND pa.operation_id = \(id))")
        }
        if let memo = filter.memo {
            bindings.append(memo)
            conditions.append("EXISTS (SELECT 1 FROM transaction_memos m WHERE m.memo = $\(bindings.count) AND m.transaction_id = t.id)")
        }
        if let hash = filter.transactionHash {
            guard let transaction = try await transactionID(hash: hash) else { return [] }
            // Its operations' IDs follow its own (a TOID's low 12 bits number them).
            bindings.append(transaction)
            bindings.append(transaction + 1)
            bindings.append(transaction | 4095)
            conditions.append("t.id = $\(bindings.count - 2) AND \(id) BETWEEN $\(bindings.count - 1) AND $\(bindings.count)")
        }
        if filter.paymentsOnly { conditions.append(isPayment) }
        if let types = filter.types { conditions.append("o.type IN (\(types.sorted().map(String.init).joined(separator: ", ")))") }
        if !filter.includeFailed { conditions.append(successful) }
        let (condition, order) = try Self.clauses(page, id, &bindings)
        conditions.append(condition)
        let sql = """
            SELECT \(id), \(Self.transactionColumns), pa2.asset_a, pa2.asset_b, pa2.reserve_a, pa2.reserve_b, pa2.shares
            FROM \(from) \(transactionJoin) LEFT JOIN pool_amounts pa2 ON pa2.operation_id = \(id)
            WHERE \(conditions.joined(separator: " AND ")) \(order)
            """
        return try await database.rows(PostgresQuery(unsafeSQL: sql, binds: bindings)) { row in
            let (id, hash, ledger, order, closeTime, envelope, result, assetA, assetB, reserveA, reserveB, shares) = try row.decode(
                (Int64, ByteBuffer, Int64, Int64, Int64, ByteBuffer, ByteBuffer, ByteBuffer?, ByteBuffer?, Int64?, Int64?, Int64?).self)
            let transaction = try Self.storedTransaction((hash, ledger, order, closeTime, envelope, result))
            var amounts: PoolAmounts?
            if let assetA, let assetB, let reserveA, let reserveB, let shares {
                amounts = PoolAmounts(
                    assetA: try Asset(xdrBytes: Array(buffer: assetA)), assetB: try Asset(xdrBytes: Array(buffer: assetB)), reserveA: reserveA, reserveB: reserveB, shares: shares)
            }
            return OperationRecord(id: id, transaction: transaction, index: Int(id & 0xFFF) - 1, poolAmounts: amounts)
        }
    }

    public func operation(_ id: Int64) async throws -> OperationRecord? {
        guard id > 0 else { return nil }
        return try await operations(PageRequest(cursor: id - 1, limit: 1), filter: OperationFilter(includeFailed: true)).first { $0.id == id }
    }

    public func offers(_ page: PageRequest, seller: AccountID?, selling: Asset?, buying: Asset?, sponsor: AccountID?) async throws -> [LedgerOffer] {
        var bindings = PostgresBindings()
        var conditions: [String] = []
        for (column, value) in [
            ("seller_id", seller?.storageKey), ("selling", selling?.storageKey), ("buying", buying?.storageKey), ("sponsor", sponsor?.storageKey),
        ] {
            guard let value else { continue }
            try bindings.append(value)
            conditions.append("\(column) = $\(bindings.count)")
        }
        let (condition, order) = try Self.clauses(page, "offer_id", &bindings)
        conditions.append(condition)
        return try await database.rows(
            PostgresQuery(unsafeSQL: "SELECT entry FROM offers WHERE \(conditions.joined(separator: " AND ")) \(order)", binds: bindings), Self.bytes
        ).map { try LedgerOffer(xdrBytes: $0) }
    }

    public func assets(_ page: KeyedPage<AssetCursor>, code: String?, issuer: AccountID?) async throws -> [AssetStats] {
        var bindings = PostgresBindings()
        var conditions = ["TRUE"]
        if let code {
            bindings.append(code)
            conditions.append("code = $\(bindings.count)")
        }
        if let issuer {
            bindings.append(issuer.strKey)
            conditions.append("issuer = $\(bindings.count)")
        }
        if let after = page.after {
            bindings.append(after.code)
            bindings.append(after.issuer)
            conditions.append("(code, issuer) \(page.descending ? "<" : ">") ($\(bindings.count - 1), $\(bindings.count))")
        }
        let order = page.descending ? "DESC" : "ASC"
        let rows = try await database.rows(PostgresQuery(unsafeSQL: """
            SELECT \(Self.tallyColumns), asset
            FROM asset_stats WHERE \(conditions.joined(separator: " AND ")) ORDER BY code \(order), issuer \(order) LIMIT \(page.limit)
            """, binds: bindings)) { row in
            (try Self.tally(row), Array(buffer: try row.decode((Int64, Int64, Int64, String, String, String, Int64, String, Int64, String, ByteBuffer).self).10))
        }
        return try rows.map { AssetStats(asset: try Asset(xdrBytes: $0.1), tally: $0.0) }
    }

    public func accounts(holding asset: Asset, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        try await accounts(in: "trust_lines", where: "asset", is: asset.storageKey, page)
    }

    public func accounts(signedBy signer: AccountID, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        // Its own account is not stored among those it signs for (``AccountSigners``).
        AccountSigners.page(stored: try await accounts(in: "account_signers", where: "signer", is: signer.storageKey, page), own: try await account(signer), page)
    }

    public func accounts(sponsoredBy sponsor: AccountID, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        try await accounts(in: "account_sponsors", where: "sponsor", is: sponsor.storageKey, page)
    }

    /// A page of the accounts in `table`'s `account_id` column whose `column` is `value`, by account key.
    private func accounts(in table: String, where column: String, is value: ByteBuffer, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        var bindings = PostgresBindings()
        bindings.append(value)
        var sql = "SELECT account_id FROM \(table) WHERE \(column) = $1"
        if let after = page.after {
            bindings.append(after.storageKey)
            sql += " AND account_id \(page.descending ? "<" : ">") $2"
        }
        sql += " ORDER BY account_id \(page.descending ? "DESC" : "ASC") LIMIT \(page.limit)"
        var records: [AccountRecord] = []
        for key in try await database.rows(PostgresQuery(unsafeSQL: sql, binds: bindings), Self.bytes) {
            if let record = try await account(AccountID(publicKey: Bytes32(key))) { records.append(record) }
        }
        return records
    }

    public func offer(_ id: Int64) async throws -> LedgerOffer? {
        try await database.rows("SELECT entry FROM offers WHERE offer_id = \(id)", Self.bytes).first.map { try LedgerOffer(xdrBytes: $0) }
    }

    public func storedEffects(_ page: KeyedPage<EffectCursor>, filter: EffectFilter) async throws -> [EffectRecord] {
        var bindings = PostgresBindings()
        var conditions = ["TRUE"]
        switch filter {
        case .all: break
        case .account(let id):
            bindings.append(id.storageKey)
            conditions.append("account_id = $\(bindings.count)")
        case .operations(let range):
            bindings.append(range.lowerBound)
            bindings.append(range.upperBound)
            conditions.append("operation_id >= $\(bindings.count - 1) AND operation_id < $\(bindings.count)")
        case .liquidityPool(let pool):
            bindings.append(ByteBuffer(bytes: pool.bytes))
            conditions.append("operation_id IN (SELECT operation_id FROM liquidity_pool_operations WHERE pool_id = $\(bindings.count))")
        }
        let order = page.cursorClause("effect_order", &conditions, &bindings)
        return try await database.rows(PostgresQuery(unsafeSQL: """
            SELECT operation_id, effect_order, account_id, muxed_id, type, details, close_time FROM effects
            WHERE \(conditions.joined(separator: " AND ")) \(order)
            """, binds: bindings)) { row in
            let (operation, index, account, muxed, typeCode, details, closeTime) = try row.decode((Int64, Int64, ByteBuffer, Int64?, Int64, String, Int64).self)
            guard let type = EffectType(rawValue: Int32(truncatingIfNeeded: typeCode)) else { throw BadStoredValue(description: "effects holds an unknown type \(typeCode)") }
            return EffectRecord(
                operationID: operation, order: index, account: AccountID(publicKey: Bytes32(Array(buffer: account))),
                muxedID: muxed.map { UInt64(bitPattern: $0) }, type: type, details: Array(details.utf8), closeTime: UInt64(closeTime))
        }
    }

    public func claimableBalances(_ page: KeyedPage<ClaimableBalanceCursor>, filter: ClaimableBalanceFilter) async throws -> [ClaimableBalanceEntry] {
        var bindings = PostgresBindings()
        var from = "claimable_balances b"
        var conditions = ["TRUE"]
        if let claimant = filter.claimant {
            from += " JOIN claimable_balance_claimants c ON c.balance_id = b.balance_id"
            bindings.append(claimant.storageKey)
            conditions.append("c.claimant = $\(bindings.count)")
        }
        if let asset = filter.asset {
            bindings.append(asset.storageKey)
            conditions.append("b.asset = $\(bindings.count)")
        }
        if let sponsor = filter.sponsor {
            bindings.append(sponsor.storageKey)
            conditions.append("b.sponsor = $\(bindings.count)")
        }
        if let after = page.after {
            bindings.append(Int64(after.lastModifiedLedger))
            bindings.append(ByteBuffer(bytes: after.id.hash.bytes))
            conditions.append("(b.last_modified_ledger, b.balance_id) \(page.descending ? "<" : ">") ($\(bindings.count - 1), $\(bindings.count))")
        }
        let order = page.descending ? "DESC" : "ASC"
        return try await database.rows(PostgresQuery(unsafeSQL: """
            SELECT b.entry FROM \(from) WHERE \(conditions.joined(separator: " AND "))
            ORDER BY b.last_modified_ledger \(order), b.balance_id \(order) LIMIT \(page.limit)
            """, binds: bindings), Self.bytes).map { try ClaimableBalanceEntry(xdrBytes: $0) }
    }

    public func claimableBalance(_ id: ClaimableBalanceID) async throws -> ClaimableBalanceEntry? {
        try await database.rows("SELECT entry FROM claimable_balances WHERE balance_id = \(ByteBuffer(bytes: id.hash.bytes))", Self.bytes)
            .first.map { try ClaimableBalanceEntry(xdrBytes: $0) }
    }

    public func transactions(_ page: PageRequest, claimableBalance: ClaimableBalanceID) async throws -> [StoredTransaction] {
        var bindings = PostgresBindings()
        bindings.append(ByteBuffer(bytes: claimableBalance.hash.bytes))
        let (condition, order) = try Self.clauses(page, "t.id", &bindings)
        return try await database.rows(PostgresQuery(unsafeSQL: """
            SELECT \(Self.transactionColumns) FROM transactions t
            WHERE t.id IN (SELECT transaction_id FROM claimable_balance_operations WHERE balance_id = $1) AND \(condition) \(order)
            """, binds: bindings), Self.storedTransaction)
    }

    public func transactions(_ page: PageRequest, liquidityPool: Bytes32) async throws -> [StoredTransaction] {
        var bindings = PostgresBindings()
        bindings.append(ByteBuffer(bytes: liquidityPool.bytes))
        let (condition, order) = try Self.clauses(page, "t.id", &bindings)
        return try await database.rows(PostgresQuery(unsafeSQL: """
            SELECT \(Self.transactionColumns) FROM transactions t
            WHERE t.id IN (SELECT transaction_id FROM liquidity_pool_operations WHERE pool_id = $1) AND \(condition) \(order)
            """, binds: bindings), Self.storedTransaction)
    }

    public func liquidityPools(_ page: KeyedPage<Bytes32>, filter: LiquidityPoolFilter) async throws -> [LiquidityPoolEntry] {
        var bindings = PostgresBindings()
        var conditions = ["TRUE"]
        for asset in filter.reserves {
            bindings.append(asset.storageKey)
            conditions.append("(asset_a = $\(bindings.count) OR asset_b = $\(bindings.count))")
        }
        if let account = filter.account {
            bindings.append(account.storageKey)
            conditions.append("pool_id IN (SELECT pool_id FROM pool_share_lines WHERE account_id = $\(bindings.count))")
        }
        if let after = page.after {
            bindings.append(ByteBuffer(bytes: after.bytes))
            conditions.append("pool_id \(page.descending ? "<" : ">") $\(bindings.count)")
        }
        return try await database.rows(PostgresQuery(unsafeSQL: """
            SELECT entry FROM liquidity_pools WHERE \(conditions.joined(separator: " AND ")) ORDER BY pool_id \(page.descending ? "DESC" : "ASC") LIMIT \(page.limit)
            """, binds: bindings), Self.bytes).map { try LiquidityPoolEntry(xdrBytes: $0) }
    }

    public func liquidityPool(_ id: Bytes32) async throws -> LiquidityPoolEntry? {
        try await database.rows("SELECT entry FROM liquidity_pools WHERE pool_id = \(ByteBuffer(bytes: id.bytes))", Self.bytes).first.map { try LiquidityPoolEntry(xdrBytes: $0) }
    }

    public func accounts(inPool pool: Bytes32, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        try await accounts(in: "pool_share_lines", where: "pool_id", is: ByteBuffer(bytes: pool.bytes), page)
    }

    public func trades(_ page: KeyedPage<EffectCursor>, filter: TradeFilter) async throws -> [TradeRecord] {
        var bindings = PostgresBindings()
        var conditions = ["TRUE"]
        if let pool = filter.liquidityPool {
            bindings.append(ByteBuffer(bytes: pool.bytes))
            conditions.append("(base_pool = $\(bindings.count) OR counter_pool = $\(bindings.count))")
        }
        if let account = filter.account {
            bindings.append(account.storageKey)
            conditions.append("(base_account = $\(bindings.count) OR counter_account = $\(bindings.count))")
        }
        if let offer = filter.offerID {
            bindings.append(offer)
            conditions.append("(base_offer_id = $\(bindings.count) OR counter_offer_id = $\(bindings.count))")
        }
        let pair = filter.storedPair
        if let pair {
            bindings.append(pair.base.storageKey)
            bindings.append(pair.counter.storageKey)
            conditions.append("base_asset = $\(bindings.count - 1) AND counter_asset = $\(bindings.count)")
        }
        if let kind = filter.kind {
            bindings.append(Int64(kind.rawValue))
            conditions.append("kind = $\(bindings.count)")
        }
        if let closed = filter.closed {
            bindings.append(Int64(clamping: closed.lowerBound))
            bindings.append(Int64(clamping: closed.upperBound))
            conditions.append("close_time >= $\(bindings.count - 1) AND close_time < $\(bindings.count)")
        }
        let order = page.cursorClause("trade_order", &conditions, &bindings)
        return try await database.rows(PostgresQuery(unsafeSQL: """
            SELECT operation_id, trade_order, close_time, kind, base_asset, base_amount, base_account, base_offer_id,
                   counter_asset, counter_amount, counter_account, counter_offer_id, base_is_seller, price_n, price_d, base_pool, counter_pool
            FROM trades WHERE \(conditions.joined(separator: " AND ")) \(order)
            """, binds: bindings)) { row in
            let (operation, index, closeTime, kindCode, baseAsset, baseAmount, baseAccount, baseOffer,
                 counterAsset, counterAmount, counterAccount, counterOffer, baseIsSeller, priceN, priceD, basePool, counterPool) =
                try row.decode((Int64, Int64, Int64, Int64, ByteBuffer, Int64, ByteBuffer?, Int64?, ByteBuffer, Int64, ByteBuffer?, Int64?, Bool, Int64, Int64, ByteBuffer?, ByteBuffer?).self)
            guard let kind = TradeRecord.Kind(rawValue: Int32(truncatingIfNeeded: kindCode)) else { throw BadStoredValue(description: "trades holds an unknown kind \(kindCode)") }
            func side(_ asset: ByteBuffer, _ amount: Int64, _ account: ByteBuffer?, _ offer: Int64?, _ pool: ByteBuffer?) throws -> TradeSide {
                TradeSide(
                    asset: try Asset(xdrBytes: Array(buffer: asset)), amount: amount, account: account.map { AccountID(publicKey: Bytes32(Array(buffer: $0))) },
                    offerID: offer, liquidityPool: pool.map { Bytes32(Array(buffer: $0)) })
            }
            let trade = TradeRecord(
                operationID: operation, order: index, closeTime: UInt64(closeTime), kind: kind,
                base: try side(baseAsset, baseAmount, baseAccount, baseOffer, basePool),
                counter: try side(counterAsset, counterAmount, counterAccount, counterOffer, counterPool),
                baseIsSeller: baseIsSeller, priceN: priceN, priceD: priceD)
            return pair?.reversed == true ? trade.reversed : trade
        }
    }

    public func recentFees(ledgers: Int) async throws -> (charged: [Int64], offered: [Int64]) {
        let latest = Int64(try await latestLedgerSequence() ?? 0)
        let rows = try await database.rows("SELECT fee_charged, operation_count, envelope FROM transactions WHERE ledger > \(latest - Int64(ledgers)) ORDER BY id") { row in
            try row.decode((Int64, Int64, ByteBuffer).self)
        }
        var charged: [Int64] = []
        var offered: [Int64] = []
        for (fee, operationCount, envelope) in rows {
            let operations = max(1, operationCount)
            charged.append(fee / operations)
            offered.append(Int64(try TransactionEnvelope(xdrBytes: Array(buffer: envelope)).transaction.fee) / operations)
        }
        return (charged, offered)
    }
}

extension KeyedPage<EffectCursor> {
    /// Adds the cursor's condition on `operation_id` and `orderColumn` and answers the order and
    /// limit clause.
    func cursorClause(_ orderColumn: String, _ conditions: inout [String], _ bindings: inout PostgresBindings) -> String {
        if let after {
            bindings.append(after.operationID)
            bindings.append(after.order)
            conditions.append("(operation_id, \(orderColumn)) \(descending ? "<" : ">") ($\(bindings.count - 1), $\(bindings.count))")
        }
        let order = descending ? "DESC" : "ASC"
        return "ORDER BY operation_id \(order), \(orderColumn) \(order) LIMIT \(limit)"
    }
}

/// A value in a table that this version cannot read.
struct BadStoredValue: Error, CustomStringConvertible {
    let description: String
}

extension AccountID {
    /// The 32 raw key bytes, as stored.
    var storageKey: ByteBuffer { ByteBuffer(bytes: publicKey.bytes) }
}

extension Asset {
    /// The asset's XDR, as stored.
    var storageKey: ByteBuffer { ByteBuffer(bytes: xdrBytes) }
}
