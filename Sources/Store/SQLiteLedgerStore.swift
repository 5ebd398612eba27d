import Foundation
import GRDB
import GRDBSQLite
import Ledger
import StellarBase

/// Keeps ledgers in one SQLite file through GRDB: WAL mode, `synchronous=FULL`, one database
/// transaction per ledger, so a ledger is either wholly on disk or not at all.
public final class SQLiteLedgerStore: LedgerStore {
    let database: DatabasePool
    /// A connection of its own that copies the WAL back into the database file, so commits
    /// never wait for a checkpoint (a passive checkpoint does not block the writer).
    private let checkpointer: DatabaseQueue
    private let checkpointQueue = DispatchQueue(label: "tender.store.checkpoint")
    private let commitsSinceCheckpoint = Counter()

    /// The writer's `PRAGMA synchronous` (2 is FULL).
    public func writerSynchronousMode() throws -> Int {
        try database.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// ``init(path:walRestartFrames:writerCacheMebibytes:hashGenerationSize:willUpgrade:)`` on a thread of its own
    /// (GCD's), the caller suspending meanwhile: opening reads the schema and may migrate it,
    /// minutes on a large network, which must not hold a thread of Swift's cooperative pool.
    public static func opening(
        path: String, walRestartFrames: Int = SQLiteLedgerStore.defaultWALRestartFrames,
        writerCacheMebibytes: Int = SQLiteLedgerStore.defaultWriterCacheMebibytes, hashGenerationSize: Int = SQLiteLedgerStore.defaultHashGenerationSize,
        willUpgrade: @escaping @Sendable ([String]) -> Void = { _ in }
    ) async throws -> SQLiteLedgerStore {
        try await offThePool {
            try SQLiteLedgerStore(
                path: path, walRestartFrames: walRestartFrames, writerCacheMebibytes: writerCacheMebibytes, hashGenerationSize: hashGenerationSize,
                willUpgrade: willUpgrade)
        }
    }

    /// Opens (or creates) the database at `path` and brings its schema up to date.
    /// - Throws: when the file cannot be opened or migrated.
    /// - Parameters:
    ///   - walRestartFrames: how many pages the WAL may hold before a checkpoint rewinds it
    ///     (``defaultWALRestartFrames``); its file is cut back to twice that after a rewind.
    ///   - writerCacheMebibytes: the most page cache the writer's connection keeps (readers keep
    ///     ``readerCacheMebibytes`` each). SQLite fills it only as the database grows.
    ///   - hashGenerationSize: the most transaction hashes a generation of `transaction_hashes`
    ///     holds (``HashGenerations``; ``defaultHashGenerationSize``).
    ///   - willUpgrade: told the migrations an existing database is about to run, before they
    ///     run (some rewrite tables: minutes on a large network); not called for a new database
    ///     or one already up to date.
    public init(
        path: String, walRestartFrames: Int = SQLiteLedgerStore.defaultWALRestartFrames, writerCacheMebibytes: Int = SQLiteLedgerStore.defaultWriterCacheMebibytes,
        hashGenerationSize: Int = SQLiteLedgerStore.defaultHashGenerationSize, willUpgrade: ([String]) -> Void = { _ in }
    ) throws {
        precondition(writerCacheMebibytes > 0, "the writer's page cache is at least 1 MiB")
        precondition(hashGenerationSize > 0, "a generation of transaction hashes holds at least one")
        self.hashGenerationSize = hashGenerationSize
        // Each commit's WAL frames reach the file in a few large writes, not two calls a page.
        TenderVFS.install()
        self.walRestartFrames = walRestartFrames
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Small pages for a new database (an existing one keeps its own): a ledger updates
            // rows at random places in the account and index B-trees, and the WAL takes whole
            // pages, so each commit writes and syncs a quarter of the bytes 4 KiB pages would.
            try db.execute(sql: "PRAGMA page_size = 1024")
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Checkpoints run on their own connection, off the commit path.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            // 64 MiB of page cache per reader (the default is 2 MiB): queries touch pages all
            // over the account and history indexes, and re-reading them cost system calls.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.readerCacheMebibytes * 1024)")
        }
        // A connection that meets another's lock (a reader ending, a checkpoint's lock) waits
        // for it (milliseconds) instead of failing.
        configuration.busyMode = .timeout(10)
        database = try DatabasePool(path: path, configuration: configuration)
        walSizeLimit = try database.writeWithoutTransaction { db in
            // GRDB turns a pool's writer to synchronous=NORMAL after prepareDatabase ran (safe
            // when the process dies, not when the machine does): a ledger answered as committed
            // must survive a power cut, so the WAL is synced at every commit.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA cache_size = -\(writerCacheMebibytes * 1024)")
            // The WAL file keeps the size of its largest burst unless limited: a rewound WAL is
            // written from its start again, but its file stays as long as the longest it has
            // been (7 to 14 GB after growing a network in ledgers of 10,000 accounts), holding
            // disk and the kernel's page cache. With a limit, the first commit after a rewind
            // cuts it back.
            let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4_096
            // Twice the frames a RESTART waits for (a frame is a page and its 24-byte header);
            // a threshold too large to count in bytes (tests turn rewinds off so) sets no limit.
            let (frames, overflow) = walRestartFrames.multipliedReportingOverflow(by: 2 * (pageSize + 24))
            let limit = overflow || frames > Int.max - 32 ? -1 : 32 + frames
            try db.execute(sql: "PRAGMA journal_size_limit = \(limit)")
            return limit
        }
        let migrator = Self.migrator
        let applied = try database.read { try migrator.appliedIdentifiers($0) }
        let pending = migrator.migrations.filter { !applied.contains($0) }
        if !applied.isEmpty, !pending.isEmpty { willUpgrade(pending) }
        try migrator.migrate(database)
        if !pending.isEmpty {
            // A migration that rewrote a table leaves it all in the WAL (gigabytes on a grown
            // network), and a reader looks each page up through every WAL index block, newest
            // first: loading the state through a 4 GB WAL had not finished after six minutes.
            // Copy it into the database file and empty the WAL before anything reads.
            try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        // The passive checkpoints wait for nothing; 5 s covers the locks they take briefly.
        var checkpointing = configuration
        checkpointing.busyMode = .timeout(5)
        checkpointer = try DatabaseQueue(path: path, configuration: checkpointing)
    }

    /// Each reader connection's page cache.
    public static let readerCacheMebibytes = 64
    /// `tender serve`'s default for the writer's page cache.
    public static let defaultWriterCacheMebibytes = 64
    /// `tender serve`'s default for the WAL frames past which a checkpoint rewinds the WAL
    /// (256 Ki: 270 MB with 1 KiB pages).
    public static let defaultWALRestartFrames = 262_144

    /// The writer's and a reader's `PRAGMA cache_size`, in KiB.
    public func pageCacheKibibytes() async throws -> (writer: Int, reader: Int) {
        let sql = "PRAGMA cache_size"
        let writer = try await database.writeWithoutTransaction { try Int.fetchOne($0, sql: sql) ?? 0 }
        let reader = try await database.read { try Int.fetchOne($0, sql: sql) ?? 0 }
        return (-writer, -reader)
    }

    /// WAL frames (pages) past which a checkpoint also rewinds the WAL.
    let walRestartFrames: Int
    /// The most hashes a generation of `transaction_hashes` holds.
    let hashGenerationSize: Int
    /// Filters of the frozen generations of `transaction_hashes`, built when first needed.
    let hashFilters = HashFilters()
    /// The bytes the WAL file is cut back to after a rewind (`PRAGMA journal_size_limit`; -1: none).
    let walSizeLimit: Int
    /// The most frames a RESTART checkpoint may be left to copy and sync while commits wait.
    static let restartBacklog = 2_048

    /// Copies committed WAL frames into the database file, in the background, every 32 commits.
    ///
    /// Under steady commits a passive checkpoint never catches up with the writer, and SQLite
    /// rewinds the WAL only after one has: the WAL grew without end (2 GB after 150,000
    /// transactions) and each commit slowed as it grew. So once the WAL holds more than
    /// ``walRestartFrames``, a RESTART checkpoint follows, on the writer's own connection
    /// between two commits: it copies the few frames the passive ones left, and the next commit
    /// writes the WAL from its start again (over the same file: overwriting is cheaper than
    /// growing it). Run from the checkpointing connection instead, the RESTART polled for the
    /// write lock and lost it to commits coming back to back: the WAL then went unrewound for
    /// hundreds of frames past the threshold, and once it held the lock a commit could wait past
    /// its busy timeout. Before it, the checkpointing connection syncs the database file
    /// (``WALRewind``), so the RESTART's own sync is short.
    private func checkpointSoon() {
        guard commitsSinceCheckpoint.increment() % 32 == 0 else { return }
        checkpointQueue.async { [checkpointer, database, walRestartFrames] in
            try? Self.checkpoint(checkpointer: checkpointer, writer: database, restartingPast: walRestartFrames)
        }
    }

    /// Runs a checkpoint now, after those asked for so far, rewinding the WAL past `threshold` frames.
    func checkpoint(restartingPast threshold: Int) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            checkpointQueue.async { [checkpointer, database] in
                continuation.resume(with: Result { try Self.checkpoint(checkpointer: checkpointer, writer: database, restartingPast: threshold) })
            }
        }
    }

    private static func checkpoint(checkpointer: DatabaseQueue, writer: DatabasePool, restartingPast threshold: Int) throws {
        var rewind = WALRewind(threshold: threshold, backlog: restartBacklog, maxPasses: 8)
        while true {
            let (frames, copied) = try checkpointer.inDatabase { try passiveCheckpoint($0) }
            switch rewind.next(frames: frames, backfilled: copied) {
            case .stop:
                return
            case .syncThenCopy:
                try checkpointer.inDatabase { try syncDatabaseFile($0) }
            case .restart:
                try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(RESTART)") }
                return
            }
        }
    }

    /// Writes the database file's dirty pages to disk through its VFS, as a checkpoint's own
    /// sync does (and timed with them while a benchmark records syncs).
    private static func syncDatabaseFile(_ db: Database) throws {
        var file: UnsafeMutablePointer<sqlite3_file>?
        let found = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_FILE_POINTER, &file)
        guard found == SQLITE_OK, let file, let sync = file.pointee.pMethods?.pointee.xSync else {
            throw DatabaseError(resultCode: ResultCode(rawValue: found), message: "no database file to sync")
        }
        let synced = sync(file, SQLITE_SYNC_NORMAL)
        guard synced == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: synced), message: "syncing the database file") }
    }

    /// Copies what it can without waiting; answers the frames in the WAL and those copied.
    private static func passiveCheckpoint(_ db: Database) throws -> (frames: Int, copied: Int) {
        // The result row: busy, frames in the WAL, frames copied.
        let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
        return (row.flatMap { $0[1] as Int? } ?? 0, row.flatMap { $0[2] as Int? } ?? 0)
    }

    /// Waits for the checkpoints asked for so far, then closes the store's connections: the last
    /// one to close copies the WAL into the database file and removes the WAL and its index, so
    /// the database is then one file, safe to copy. Until then a checkpoint scheduled by the
    /// last commits keeps connections open and ends with that removal, which a copy made
    /// meanwhile races (`bench scale` copies its new network before each measure). Nothing may
    /// use the store after.
    public func close() async throws {
        _ = await checkpointsFinished()
        try await offThePool { [checkpointer, database] in
            try checkpointer.close()
            try database.close()
        }
    }

    /// Returns when the checkpoints asked for so far have run, with the frames in the WAL then.
    func checkpointsFinished() async -> Int {
        await withCheckedContinuation { continuation in
            checkpointQueue.async { [checkpointer] in
                let frames = try? checkpointer.inDatabase { try Self.passiveCheckpoint($0).frames }
                continuation.resume(returning: frames ?? -1)
            }
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("ledger-v1") { db in
            try db.execute(sql: """
                CREATE TABLE ledger_headers (
                    sequence INTEGER PRIMARY KEY,
                    close_time INTEGER NOT NULL,
                    header BLOB NOT NULL,
                    transaction_count INTEGER NOT NULL,
                    successful_transaction_count INTEGER NOT NULL,
                    operation_count INTEGER NOT NULL
                );
                CREATE TABLE accounts (account_id BLOB PRIMARY KEY, entry BLOB NOT NULL) WITHOUT ROWID;
                CREATE TABLE trust_lines (
                    account_id BLOB NOT NULL, asset BLOB NOT NULL, entry BLOB NOT NULL,
                    PRIMARY KEY (account_id, asset)
                ) WITHOUT ROWID;
                CREATE TABLE offers (
                    offer_id INTEGER PRIMARY KEY, seller_id BLOB NOT NULL, selling BLOB NOT NULL, buying BLOB NOT NULL,
                    entry BLOB NOT NULL
                );
                CREATE INDEX offers_by_seller ON offers (seller_id);
                CREATE INDEX offers_by_market ON offers (selling, buying);
                CREATE TABLE account_data (
                    account_id BLOB NOT NULL, name BLOB NOT NULL, entry BLOB NOT NULL,
                    PRIMARY KEY (account_id, name)
                ) WITHOUT ROWID;
                CREATE TABLE transactions (
                    id INTEGER PRIMARY KEY,
                    hash BLOB NOT NULL UNIQUE,
                    ledger INTEGER NOT NULL,
                    application_order INTEGER NOT NULL,
                    source_account BLOB NOT NULL,
                    successful INTEGER NOT NULL,
                    fee_charged INTEGER NOT NULL,
                    operation_count INTEGER NOT NULL,
                    close_time INTEGER NOT NULL,
                    envelope BLOB NOT NULL,
                    result BLOB NOT NULL
                );
                CREATE TABLE operations (
                    id INTEGER PRIMARY KEY,
                    transaction_id INTEGER NOT NULL,
                    ledger INTEGER NOT NULL,
                    source_account BLOB NOT NULL,
                    type INTEGER NOT NULL,
                    is_payment INTEGER NOT NULL,
                    successful INTEGER NOT NULL
                );
                CREATE TABLE account_transactions (
                    account_id BLOB NOT NULL, transaction_id INTEGER NOT NULL,
                    PRIMARY KEY (account_id, transaction_id)
                ) WITHOUT ROWID;
                CREATE TABLE account_operations (
                    account_id BLOB NOT NULL, operation_id INTEGER NOT NULL, is_payment INTEGER NOT NULL,
                    PRIMARY KEY (account_id, operation_id)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("ledger-v2-assets") { db in
            try db.execute(sql: """
                CREATE INDEX trust_lines_by_asset ON trust_lines (asset);
                CREATE TABLE asset_stats (
                    asset BLOB PRIMARY KEY, code TEXT NOT NULL, issuer TEXT NOT NULL,
                    accounts_authorized INTEGER NOT NULL, accounts_maintain INTEGER NOT NULL, accounts_unauthorized INTEGER NOT NULL,
                    balance_authorized TEXT NOT NULL, balance_maintain TEXT NOT NULL, balance_unauthorized TEXT NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX asset_stats_by_code ON asset_stats (code, issuer);
                """)
            // A database from before this version: count the trustlines it holds.
            var tallies: [Asset: AssetTally] = [:]
            let lines = try Data.fetchCursor(db, sql: "SELECT entry FROM trust_lines")
            while let blob = try lines.next() {
                let line = try TrustLineEntry(xdrBytes: [UInt8](blob))
                tallies[line.asset, default: AssetTally()].count(line, sign: 1)
            }
            // This version's columns only (later versions add theirs with their defaults).
            for (asset, tally) in tallies {
                guard let code = asset.code, let issuer = asset.issuer, tally.totalAccounts != 0 else { continue }
                try db.execute(sql: "INSERT INTO asset_stats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments: [
                    asset.storageKey, code.text, issuer.strKey, tally.accounts[0], tally.accounts[1], tally.accounts[2],
                    String(tally.balances[0]), String(tally.balances[1]), String(tally.balances[2]),
                ])
            }
        }
        migrator.registerMigration("ledger-v3-signers") { db in
            try db.execute(sql: """
                CREATE TABLE account_signers (signer BLOB NOT NULL, account_id BLOB NOT NULL, PRIMARY KEY (signer, account_id)) WITHOUT ROWID;
                CREATE INDEX account_signers_by_account ON account_signers (account_id);
                """)
            // A database from before this version: every account's signing keys.
            var changes: [AccountID: Set<AccountID>] = [:]
            let accounts = try Data.fetchCursor(db, sql: "SELECT entry FROM accounts")
            while let blob = try accounts.next() {
                let entry = try AccountEntry(xdrBytes: [UInt8](blob))
                changes[entry.accountID] = AccountSigners.keys(entry)
            }
            try writeSigners(changes, db)
        }
        migrator.registerMigration("ledger-v4-effects") { db in
            // An older database's ledgers have no effects: they begin with this version.
            try db.execute(sql: """
                CREATE TABLE effects (
                    operation_id INTEGER NOT NULL, effect_order INTEGER NOT NULL, account_id BLOB NOT NULL, muxed_id INTEGER,
                    type INTEGER NOT NULL, details TEXT NOT NULL, close_time INTEGER NOT NULL,
                    PRIMARY KEY (operation_id, effect_order)
                ) WITHOUT ROWID;
                CREATE INDEX effects_by_account ON effects (account_id, operation_id, effect_order);
                """)
        }
        migrator.registerMigration("ledger-v5-trades") { db in
            // An older database's ledgers have no trades: they begin with this version.
            try db.execute(sql: """
                CREATE TABLE trades (
                    operation_id INTEGER NOT NULL, trade_order INTEGER NOT NULL, close_time INTEGER NOT NULL, kind INTEGER NOT NULL,
                    base_asset BLOB NOT NULL, base_amount INTEGER NOT NULL, base_account BLOB, base_offer_id INTEGER,
                    counter_asset BLOB NOT NULL, counter_amount INTEGER NOT NULL, counter_account BLOB, counter_offer_id INTEGER,
                    base_is_seller INTEGER NOT NULL, price_n INTEGER NOT NULL, price_d INTEGER NOT NULL,
                    PRIMARY KEY (operation_id, trade_order)
                ) WITHOUT ROWID;
                CREATE INDEX trades_by_base_account ON trades (base_account, operation_id, trade_order);
                CREATE INDEX trades_by_counter_account ON trades (counter_account, operation_id, trade_order);
                CREATE INDEX trades_by_base_offer ON trades (base_offer_id);
                CREATE INDEX trades_by_counter_offer ON trades (counter_offer_id);
                CREATE INDEX trades_by_pair ON trades (base_asset, counter_asset, operation_id, trade_order);
                """)
        }
        migrator.registerMigration("ledger-v6-claimable-balances") { db in
            try db.execute(sql: """
                CREATE TABLE claimable_balances (
                    balance_id BLOB PRIMARY KEY, asset BLOB NOT NULL, sponsor BLOB NOT NULL, last_modified_ledger INTEGER NOT NULL, entry BLOB NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX claimable_balances_by_ledger ON claimable_balances (last_modified_ledger, balance_id);
                CREATE INDEX claimable_balances_by_asset ON claimable_balances (asset);
                CREATE INDEX claimable_balances_by_sponsor ON claimable_balances (sponsor);
                CREATE TABLE claimable_balance_claimants (claimant BLOB NOT NULL, balance_id BLOB NOT NULL, PRIMARY KEY (claimant, balance_id)) WITHOUT ROWID;
                CREATE TABLE claimable_balance_operations (
                    balance_id BLOB NOT NULL, operation_id INTEGER NOT NULL, transaction_id INTEGER NOT NULL, PRIMARY KEY (balance_id, operation_id)
                ) WITHOUT ROWID;
                ALTER TABLE asset_stats ADD COLUMN claimable_balances INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE asset_stats ADD COLUMN claimable_amount TEXT NOT NULL DEFAULT '0';
                """)
        }
        migrator.registerMigration("ledger-v7-memos-and-payment-assets") { db in
            // An older database's transactions are not indexed by memo or asset: they begin with this version.
            try db.execute(sql: """
                CREATE TABLE transaction_memos (memo TEXT NOT NULL, transaction_id INTEGER NOT NULL, PRIMARY KEY (memo, transaction_id)) WITHOUT ROWID;
                CREATE TABLE payment_assets (asset BLOB NOT NULL, operation_id INTEGER NOT NULL, PRIMARY KEY (asset, operation_id)) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("ledger-v8-sponsorships") { db in
            // Nothing could be sponsored before this version but claimable balances, which have their own column.
            try db.execute(sql: """
                CREATE TABLE account_sponsors (
                    sponsor BLOB NOT NULL, account_id BLOB NOT NULL, entries INTEGER NOT NULL, PRIMARY KEY (sponsor, account_id)
                ) WITHOUT ROWID;
                ALTER TABLE offers ADD COLUMN sponsor BLOB;
                CREATE INDEX offers_by_sponsor ON offers (sponsor) WHERE sponsor IS NOT NULL;
                """)
        }
        migrator.registerMigration("ledger-v9-liquidity-pools") { db in
            // No pool could exist before this version.
            try db.execute(sql: """
                CREATE TABLE liquidity_pools (pool_id BLOB PRIMARY KEY, asset_a BLOB NOT NULL, asset_b BLOB NOT NULL, entry BLOB NOT NULL) WITHOUT ROWID;
                CREATE INDEX liquidity_pools_by_asset_a ON liquidity_pools (asset_a);
                CREATE INDEX liquidity_pools_by_asset_b ON liquidity_pools (asset_b);
                CREATE TABLE pool_share_lines (account_id BLOB NOT NULL, pool_id BLOB NOT NULL, entry BLOB NOT NULL, PRIMARY KEY (account_id, pool_id)) WITHOUT ROWID;
                CREATE INDEX pool_share_lines_by_pool ON pool_share_lines (pool_id, account_id);
                CREATE TABLE liquidity_pool_operations (
                    pool_id BLOB NOT NULL, operation_id INTEGER NOT NULL, transaction_id INTEGER NOT NULL, PRIMARY KEY (pool_id, operation_id)
                ) WITHOUT ROWID;
                CREATE TABLE pool_amounts (
                    operation_id INTEGER PRIMARY KEY, asset_a BLOB NOT NULL, asset_b BLOB NOT NULL, reserve_a INTEGER NOT NULL, reserve_b INTEGER NOT NULL, shares INTEGER NOT NULL
                );
                ALTER TABLE trades ADD COLUMN base_pool BLOB;
                ALTER TABLE trades ADD COLUMN counter_pool BLOB;
                CREATE INDEX trades_by_base_pool ON trades (base_pool) WHERE base_pool IS NOT NULL;
                CREATE INDEX trades_by_counter_pool ON trades (counter_pool) WHERE counter_pool IS NOT NULL;
                """)
        }
        migrator.registerMigration("ledger-v10-pool-asset-stats") { db in
            try db.execute(sql: """
                ALTER TABLE asset_stats ADD COLUMN liquidity_pools INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE asset_stats ADD COLUMN liquidity_pools_amount TEXT NOT NULL DEFAULT '0';
                """)
        }
        migrator.registerMigration("ledger-v11-account-history") { db in
            // One index of who took part in what (`LedgerHistory.participations`) for the two
            // an older database kept: its operations' rows, and a transaction's row for an
            // account no operation of it names.
            try db.execute(sql: """
                CREATE TABLE account_history (
                    account_id BLOB NOT NULL, toid INTEGER NOT NULL, is_payment INTEGER NOT NULL,
                    PRIMARY KEY (account_id, toid)
                ) WITHOUT ROWID;
                INSERT INTO account_history (account_id, toid, is_payment) SELECT account_id, operation_id, is_payment FROM account_operations;
                INSERT INTO account_history (account_id, toid, is_payment)
                    SELECT a.account_id, a.transaction_id, 0 FROM account_transactions a WHERE NOT EXISTS (
                        SELECT 1 FROM account_operations o
                        WHERE o.account_id = a.account_id AND o.operation_id > a.transaction_id AND o.operation_id < a.transaction_id + 4096);
                DROP TABLE account_operations;
                DROP TABLE account_transactions;
                """)
        }
        migrator.registerMigration("ledger-v12-master-signers") { db in
            // An account's master key signs for it while its weight is above 0, which its entry
            // tells: no row per account for it.
            try db.execute(sql: "DELETE FROM account_signers WHERE signer = account_id")
        }
        migrator.registerMigration("ledger-v13-account-rows") { db in
            // An account's entry and its history in one B-tree (``entryRow``), the entry after
            // its newest row: a payment then rewrites one leaf for each of its two accounts, not two.
            try db.execute(sql: """
                CREATE TABLE account_rows (
                    account_id BLOB NOT NULL, toid INTEGER NOT NULL, is_payment INTEGER NOT NULL, entry BLOB,
                    PRIMARY KEY (account_id, toid)
                ) WITHOUT ROWID;
                INSERT INTO account_rows (account_id, toid, is_payment, entry) SELECT account_id, toid, is_payment, NULL FROM account_history;
                INSERT INTO account_rows (account_id, toid, is_payment, entry) SELECT account_id, \(entryRow), 0, entry FROM accounts;
                CREATE TABLE store_counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO store_counts (name, n) SELECT 'accounts', COUNT(*) FROM accounts;
                DROP TABLE account_history;
                DROP TABLE accounts;
                CREATE VIEW accounts AS SELECT account_id, entry FROM account_rows WHERE toid = \(entryRow);
                CREATE VIEW account_history AS SELECT account_id, toid, is_payment FROM account_rows WHERE toid < \(entryRow);
                CREATE TRIGGER accounts_insert INSTEAD OF INSERT ON accounts BEGIN
                    UPDATE store_counts SET n = n + 1 WHERE name = 'accounts'
                        AND NOT EXISTS (SELECT 1 FROM account_rows WHERE account_id = NEW.account_id AND toid = \(entryRow));
                    INSERT OR REPLACE INTO account_rows (account_id, toid, is_payment, entry) VALUES (NEW.account_id, \(entryRow), 0, NEW.entry);
                END;
                CREATE TRIGGER accounts_delete INSTEAD OF DELETE ON accounts BEGIN
                    UPDATE store_counts SET n = n - 1 WHERE name = 'accounts';
                    DELETE FROM account_rows WHERE account_id = OLD.account_id AND toid = \(entryRow);
                END;
                CREATE TRIGGER account_history_insert INSTEAD OF INSERT ON account_history BEGIN
                    INSERT OR IGNORE INTO account_rows (account_id, toid, is_payment, entry) VALUES (NEW.account_id, NEW.toid, NEW.is_payment, NULL);
                END;
                """)
        }
        migrator.registerMigration("ledger-v14-transaction-hashes") { db in
            // The hashes leave `transactions` for a table keyed by generation first
            // (``HashGenerations``). An older database's are generation 0, copied in hash order
            // (appended, not inserted at random), and `transactions` is made again without its
            // `UNIQUE` (SQLite drops a constraint's index only with its table).
            let held = try Int.fetchOne(db, sql: "SELECT count(*) FROM transactions") ?? 0
            try db.execute(sql: """
                CREATE TABLE transaction_hashes (
                    generation INTEGER NOT NULL, hash BLOB NOT NULL, id INTEGER NOT NULL,
                    PRIMARY KEY (generation, hash)
                ) WITHOUT ROWID;
                INSERT INTO transaction_hashes (generation, hash, id) SELECT 0, hash, id FROM transactions ORDER BY hash;
                CREATE TABLE transactions_v14 (
                    id INTEGER PRIMARY KEY,
                    hash BLOB NOT NULL,
                    ledger INTEGER NOT NULL,
                    application_order INTEGER NOT NULL,
                    source_account BLOB NOT NULL,
                    successful INTEGER NOT NULL,
                    fee_charged INTEGER NOT NULL,
                    operation_count INTEGER NOT NULL,
                    close_time INTEGER NOT NULL,
                    envelope BLOB NOT NULL,
                    result BLOB NOT NULL
                );
                INSERT INTO transactions_v14 SELECT * FROM transactions;
                DROP TABLE transactions;
                ALTER TABLE transactions_v14 RENAME TO transactions;
                """)
            try db.execute(sql: "INSERT INTO store_counts (name, n) VALUES ('hash_generation', 0), ('hashes_in_generation', ?)", arguments: [held])
        }
        return migrator
    }

    /// The `toid` of an account's entry row in `account_rows`, after every TOID of its history.
    ///
    /// `account_rows` holds, for each account, its rows of `account_history` (a TOID each, the
    /// entry NULL) and then its entry (this `toid`). A payment rewrites its accounts' entries and
    /// adds a row to each one's history: on a grown network every such write lands on a leaf
    /// no other payment of the ledger touches, and a leaf costs its read, its WAL frame and its
    /// checkpoint; with the entry beside the newest row, one leaf an account instead of two.
    /// The views `accounts` (`account_id`, `entry`) and `account_history` (`account_id`, `toid`,
    /// `is_payment`) read and write it as the two tables they were (``StoreTables``), and
    /// `store_counts` keeps the number of entry rows (the size the loaded state is reserved to).
    static let entryRow = Int64.max

    /// Writes an account's entry over its entry row (two parameters: the entry's XDR, the
    /// account's key), changing 1 row or, for an account with no entry row yet, none.
    ///
    /// The `toid` is matched by a range only the entry row meets (no `toid` is above
    /// ``entryRow``), not by `=`: on the whole key SQLite plans a one-row update, whose write
    /// searches the B-tree again for the row its search just found (`IdxInsert` without the
    /// saved position); on a range it plans a one-pass update of several rows, which writes at
    /// the cursor (`OPFLAG_SAVEPOSITION`). One search of the tree, not two: at a million
    /// accounts, 8.2 pages fetched a statement instead of 14.8 (SQLite's shell, `.stats on`).
    static let updateEntrySQL = "UPDATE account_rows SET entry = ? WHERE account_id = ? AND toid >= \(entryRow)"

    /// Writes a trustline's entry over its row (four parameters: the entry's XDR, the account's
    /// key, the asset's XDR twice), changing 1 row or, for a new trustline, none.
    ///
    /// The asset is matched by a range of one value, for the one search ``updateEntrySQL`` makes;
    /// and an update leaves `trust_lines_by_asset` alone, where `INSERT OR REPLACE` deleted the
    /// row and its index entry and inserted both again: 9.3 pages fetched a statement instead
    /// of 28.9 (SQLite's shell, `.stats on`, 300 trustlines of a million-account network).
    static let updateTrustLineSQL = "UPDATE trust_lines SET entry = ? WHERE account_id = ? AND asset >= ? AND asset <= ?"

    /// Replaces the signing keys of each account whose keys changed.
    static func writeSigners(_ changes: [AccountID: Set<AccountID>], _ db: Database) throws {
        guard !changes.isEmpty else { return }
        let clear = try db.cachedStatement(sql: "DELETE FROM account_signers WHERE account_id = ? AND signer = ?")
        let add = try db.cachedStatement(sql: "INSERT OR IGNORE INTO account_signers (signer, account_id) VALUES (?, ?)")
        let current = try db.cachedStatement(sql: "SELECT signer FROM account_signers WHERE account_id = ?")
        for (account, keys) in changes {
            let key = account.storageKey
            let known = try Data.fetchAll(current, arguments: [key]).map { AccountID(publicKey: Bytes32([UInt8]($0))) }
            for old in known where !keys.contains(old) { try clear.execute(arguments: [key, old.storageKey]) }
            for new in keys { try add.execute(arguments: [new.storageKey, key]) }
        }
    }

    /// Adds to each sponsor's count of an account's entries, forgetting the pairs that reach 0.
    static func writeSponsorships(_ changes: [SponsoredAccount: Int], _ db: Database) throws {
        guard !changes.isEmpty else { return }
        let add = try db.cachedStatement(sql: """
            INSERT INTO account_sponsors (sponsor, account_id, entries) VALUES (?, ?, ?)
            ON CONFLICT (sponsor, account_id) DO UPDATE SET entries = entries + excluded.entries
            """)
        let clear = try db.cachedStatement(sql: "DELETE FROM account_sponsors WHERE sponsor = ? AND account_id = ? AND entries <= 0")
        for (pair, delta) in changes {
            try add.execute(arguments: [pair.sponsor.storageKey, pair.account.storageKey, delta])
            if delta < 0 { try clear.execute(arguments: [pair.sponsor.storageKey, pair.account.storageKey]) }
        }
    }

    /// Adds each asset's change to the totals the store keeps, removing an asset no trustline
    /// holds any more (as Horizon's asset statistics do).
    static func writeAssetTallies(_ changes: [Asset: AssetTally], _ db: Database) throws {
        guard !changes.isEmpty else { return }
        let read = try db.cachedStatement(sql: "SELECT \(AssetTally.columns) FROM asset_stats WHERE asset = ?")
        let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO asset_stats (asset, code, issuer, \(AssetTally.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        let delete = try db.cachedStatement(sql: "DELETE FROM asset_stats WHERE asset = ?")
        for (asset, change) in changes {
            guard let code = asset.code, let issuer = asset.issuer else { continue }
            let key = asset.storageKey
            let old = try Row.fetchOne(read, arguments: [key]).map(AssetTally.init(row:)) ?? AssetTally()
            let new = old + change
            if !new.isHeld {
                try delete.execute(arguments: [key])
            } else {
                try upsert.execute(arguments: [
                    key, code.text, issuer.strKey, new.accounts[0], new.accounts[1], new.accounts[2],
                    String(new.balances[0]), String(new.balances[1]), String(new.balances[2]), new.claimableBalances, String(new.claimableAmount),
                    new.liquidityPools, String(new.liquidityPoolsAmount),
                ])
            }
        }
    }

    public func loadState() async throws -> LedgerState? {
        let path = database.path
        return try await database.read { db in
            // Every entry's page and the trustlines' count, so nearly the whole file: read in the
            // kernel's wide reads.
            try DatabaseFileMap.readingWhole(path) { try Self.loadState(db) }
        }
    }

    private static func loadState(_ db: Database) throws -> LedgerState? {
        guard let headerBlob = try Data.fetchOne(db, sql: "SELECT header FROM ledger_headers ORDER BY sequence DESC LIMIT 1") else {
            return nil
        }
        var state = LedgerState(header: try LedgerHeader(xdrBytes: [UInt8](headerBlob)))
        // Rows stream into the state one at a time: at ten million accounts, holding every
        // row first would cost as much memory again as the state itself.
        state.reserveCapacity(
            // Kept by each commit: counting the entry rows would read every history row too.
            accounts: try Int.fetchOne(db, sql: "SELECT n FROM store_counts WHERE name = 'accounts'") ?? 0,
            trustLines: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM trust_lines") ?? 0)
        // This thread reads; another decodes and files (``StateBuilder``).
        let builder = StateBuilder(consume state)
        try db.execute(sql: "PRAGMA mmap_size = 2147418112")
        defer { try? db.execute(sql: "PRAGMA mmap_size = 0") }
        do {
            for kind in StoredEntryKind.allCases {
                try eachBlob(db, sql: "SELECT entry FROM \(kind.table)") { try builder.add(kind, $0) }
            }
        } catch {
            builder.abandon()
            throw error
        }
        return try builder.finish()
    }

    /// Calls `body` with the first column of each row of `sql`, a blob, stepping SQLite's own
    /// statement: at millions of rows, GRDB's row cursor costs as much as SQLite's reading.
    private static func eachBlob(_ db: Database, sql: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let statement = try db.makeStatement(sql: sql)
        let handle = statement.sqliteStatement
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
            let count = Int(sqlite3_column_bytes(handle, 0))
            // SQLite's own bytes, valid until the next step: copied straight into the batch.
            try body(UnsafeRawBufferPointer(start: count == 0 ? nil : sqlite3_column_blob(handle, 0), count: count))
        }
    }

    public func commit(_ ledger: ClosedLedger) async throws {
        // The write runs on the pool's writer queue while this task suspends. It is GRDB's
        // completion-based write, not its async one: that one gives up when the calling task is
        // cancelled (a graceful shutdown cancels the writer's service), and a ledger already
        // answered to nobody but applied in memory must still reach the disk.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            database.asyncWrite({ [hashGenerationSize] db in
                let history = LedgerHistory(ledger)
                try db.execute(
                    sql: "INSERT INTO ledger_headers (sequence, close_time, header, transaction_count, successful_transaction_count, operation_count) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [
                        ledger.header.sequence, Int64(ledger.header.closeTime), Data(ledger.header.xdrBytes), history.transactions.count,
                        history.transactions.filter(\.successful).count, history.operations.count,
                    ])
                try Self.writeChanges(ledger.changes, db)
                try Self.writeAssetTallies(ledger.changes.assets, db)
                try Self.writeSigners(ledger.changes.signers, db)
                try Self.writeSponsorships(ledger.changes.sponsorships, db)
                try Self.writeHistory(history, hashGenerationSize: hashGenerationSize, db)
            }, completion: { _, result in
                continuation.resume(with: result)
            })
        }
        checkpointSoon()
    }

    private static func writeChanges(_ changes: LedgerChanges, _ db: Database) throws {
        // The rows every payment writes go through SQLite's API directly (``DirectStatement``).
        var updateAccount = try DirectStatement(db, sql: updateEntrySQL)
        var insertAccount = try DirectStatement(
            db, sql: "INSERT INTO account_rows (account_id, toid, is_payment, entry) VALUES (?, \(entryRow), 0, ?)")
        var deleteAccount = try DirectStatement(db, sql: "DELETE FROM account_rows WHERE account_id = ? AND toid = \(entryRow)")
        // Accounts made less those removed, for the count the state is sized by when loaded.
        var made = 0
        for (id, entry) in changes.accounts {
            if let entry {
                let bytes = entry.xdrBytes
                updateAccount.blob(bytes)
                updateAccount.blob(id)
                if try updateAccount.run() == 0 {
                    insertAccount.blob(id)
                    insertAccount.blob(bytes)
                    try insertAccount.run()
                    made += 1
                }
            } else {
                deleteAccount.blob(id)
                made -= try deleteAccount.run()
            }
        }
        if made != 0 { try db.execute(sql: "UPDATE store_counts SET n = n + ? WHERE name = 'accounts'", arguments: [made]) }
        var updateLine = try DirectStatement(db, sql: updateTrustLineSQL)
        var insertLine = try DirectStatement(db, sql: "INSERT INTO trust_lines (account_id, asset, entry) VALUES (?, ?, ?)")
        var deleteLine = try DirectStatement(db, sql: "DELETE FROM trust_lines WHERE account_id = ? AND asset = ?")
        for (key, entry) in changes.trustLines {
            if let entry {
                let asset = key.asset.xdrBytes, bytes = entry.xdrBytes
                updateLine.blob(bytes)
                updateLine.blob(key.accountID)
                updateLine.blob(asset)
                updateLine.blob(asset)
                if try updateLine.run() == 0 {
                    insertLine.blob(key.accountID)
                    insertLine.blob(asset)
                    insertLine.blob(bytes)
                    try insertLine.run()
                }
            } else {
                deleteLine.blob(key.accountID)
                deleteLine.blob(key.asset.xdrBytes)
                try deleteLine.run()
            }
        }
        let upsertOffer = try db.cachedStatement(sql: "INSERT OR REPLACE INTO offers (offer_id, seller_id, selling, buying, entry, sponsor) VALUES (?, ?, ?, ?, ?, ?)")
        let deleteOffer = try db.cachedStatement(sql: "DELETE FROM offers WHERE offer_id = ?")
        for (id, offer) in changes.offers {
            if let offer {
                let entry = offer.entry
                try upsertOffer.execute(arguments: [
                    id, entry.sellerID.storageKey, entry.selling.storageKey, entry.buying.storageKey, Data(offer.xdrBytes), offer.sponsor?.storageKey,
                ])
            } else {
                try deleteOffer.execute(arguments: [id])
            }
        }
        if !changes.liquidityPools.isEmpty {
            let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO liquidity_pools (pool_id, asset_a, asset_b, entry) VALUES (?, ?, ?, ?)")
            let delete = try db.cachedStatement(sql: "DELETE FROM liquidity_pools WHERE pool_id = ?")
            for (id, entry) in changes.liquidityPools {
                if let entry {
                    try upsert.execute(arguments: [Data(id.bytes), entry.parameters.assetA.storageKey, entry.parameters.assetB.storageKey, Data(entry.xdrBytes)])
                } else {
                    try delete.execute(arguments: [Data(id.bytes)])
                }
            }
        }
        if !changes.poolShares.isEmpty {
            let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO pool_share_lines (account_id, pool_id, entry) VALUES (?, ?, ?)")
            let delete = try db.cachedStatement(sql: "DELETE FROM pool_share_lines WHERE account_id = ? AND pool_id = ?")
            for (key, entry) in changes.poolShares {
                if let entry {
                    try upsert.execute(arguments: [key.accountID.storageKey, Data(key.poolID.bytes), Data(entry.xdrBytes)])
                } else {
                    try delete.execute(arguments: [key.accountID.storageKey, Data(key.poolID.bytes)])
                }
            }
        }
        if !changes.claimableBalances.isEmpty {
            let clearClaimants = try db.cachedStatement(sql: "DELETE FROM claimable_balance_claimants WHERE balance_id = ?")
            let upsertBalance = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO claimable_balances (balance_id, asset, sponsor, last_modified_ledger, entry) VALUES (?, ?, ?, ?, ?)")
            let addClaimant = try db.cachedStatement(sql: "INSERT INTO claimable_balance_claimants (claimant, balance_id) VALUES (?, ?)")
            let deleteBalance = try db.cachedStatement(sql: "DELETE FROM claimable_balances WHERE balance_id = ?")
            for (id, entry) in changes.claimableBalances {
                let key = Data(id.hash.bytes)
                try clearClaimants.execute(arguments: [key])
                if let entry {
                    try upsertBalance.execute(arguments: [key, entry.asset.storageKey, entry.sponsor.storageKey, entry.lastModifiedLedger, Data(entry.xdrBytes)])
                    for claimant in entry.claimants { try addClaimant.execute(arguments: [claimant.destination.storageKey, key]) }
                } else {
                    try deleteBalance.execute(arguments: [key])
                }
            }
        }
        let upsertData = try db.cachedStatement(sql: "INSERT OR REPLACE INTO account_data (account_id, name, entry) VALUES (?, ?, ?)")
        let deleteData = try db.cachedStatement(sql: "DELETE FROM account_data WHERE account_id = ? AND name = ?")
        for (key, entry) in changes.data {
            if let entry {
                try upsertData.execute(arguments: [key.accountID.storageKey, Data(key.name), Data(entry.xdrBytes)])
            } else {
                try deleteData.execute(arguments: [key.accountID.storageKey, Data(key.name)])
            }
        }
    }

    private static func writeHistory(_ history: LedgerHistory, hashGenerationSize: Int, _ db: Database) throws {
        // The rows every payment writes go through SQLite's API directly (``DirectStatement``).
        var insertTransaction = try DirectStatement(db, sql: """
            INSERT INTO transactions (id, hash, ledger, application_order, source_account, successful, fee_charged, operation_count, close_time, envelope, result)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var insertHash = try DirectStatement(db, sql: "INSERT INTO transaction_hashes (generation, hash, id) VALUES (?, ?, ?)")
        var generations = try hashGenerations(size: hashGenerationSize, db)
        var insertOperation = try DirectStatement(db, sql: """
            INSERT INTO operations (id, transaction_id, ledger, source_account, type, is_payment, successful) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        var insertParticipation = try DirectStatement(
            db, sql: "INSERT OR IGNORE INTO account_rows (account_id, toid, is_payment, entry) VALUES (?, ?, ?, NULL)")
        let closeTime = Int64(history.closeTime)
        for row in history.transactions {
            insertTransaction.integer(row.id)
            insertTransaction.blob(row.hash)
            insertTransaction.integer(history.ledger)
            insertTransaction.integer(row.order)
            insertTransaction.blob(row.source)
            insertTransaction.integer(row.successful)
            insertTransaction.integer(row.feeCharged)
            insertTransaction.integer(row.operationCount)
            insertTransaction.integer(closeTime)
            insertTransaction.blob(row.envelope)
            insertTransaction.blob(row.result)
            try insertTransaction.run()
            insertHash.integer(generations.place())
            insertHash.blob(row.hash)
            insertHash.integer(row.id)
            try insertHash.run()
        }
        if !history.transactions.isEmpty { try save(generations, db) }
        for row in history.operations {
            insertOperation.integer(row.id)
            insertOperation.integer(row.transactionID)
            insertOperation.integer(history.ledger)
            insertOperation.blob(row.source)
            insertOperation.integer(row.type)
            insertOperation.integer(row.isPayment)
            insertOperation.integer(row.successful)
            try insertOperation.run()
        }
        for row in history.participations {
            insertParticipation.blob(row.account)
            insertParticipation.integer(row.id)
            insertParticipation.integer(row.isPayment)
            try insertParticipation.run()
        }
        var insertEffect = try DirectStatement(db, sql: """
            INSERT INTO effects (operation_id, effect_order, account_id, muxed_id, type, details, close_time) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for effect in history.effects {
            insertEffect.integer(effect.operationID)
            insertEffect.integer(effect.order)
            insertEffect.blob(effect.account)
            insertEffect.integer(effect.muxedID.map { Int64(bitPattern: $0) })
            insertEffect.integer(effect.type.rawValue)
            insertEffect.text(utf8: effect.details)
            insertEffect.integer(Int64(effect.closeTime))
            try insertEffect.run()
        }
        var insertMemo = try DirectStatement(db, sql: "INSERT OR IGNORE INTO transaction_memos (memo, transaction_id) VALUES (?, ?)")
        for row in history.memos {
            insertMemo.text(row.memo)
            insertMemo.integer(row.transaction)
            try insertMemo.run()
        }
        var insertAsset = try DirectStatement(db, sql: "INSERT OR IGNORE INTO payment_assets (asset, operation_id) VALUES (?, ?)")
        for row in history.paymentAssets {
            insertAsset.blob(row.asset.xdrBytes)
            insertAsset.integer(row.operation)
            try insertAsset.run()
        }
        let insertBalanceOperation = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO claimable_balance_operations (balance_id, operation_id, transaction_id) VALUES (?, ?, ?)")
        for row in history.balanceOperations { try insertBalanceOperation.execute(arguments: [Data(row.balance.hash.bytes), row.operation, row.transaction]) }
        if !history.poolOperations.isEmpty {
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO liquidity_pool_operations (pool_id, operation_id, transaction_id) VALUES (?, ?, ?)")
            for row in history.poolOperations { try insert.execute(arguments: [Data(row.pool.bytes), row.operation, row.transaction]) }
            let amounts = try db.cachedStatement(sql: "INSERT INTO pool_amounts (operation_id, asset_a, asset_b, reserve_a, reserve_b, shares) VALUES (?, ?, ?, ?, ?, ?)")
            for row in history.poolAmounts {
                try amounts.execute(arguments: [
                    row.operation, row.amounts.assetA.storageKey, row.amounts.assetB.storageKey, row.amounts.reserveA, row.amounts.reserveB, row.amounts.shares,
                ])
            }
        }
        guard !history.trades.isEmpty else { return }
        let insertTrade = try db.cachedStatement(sql: "INSERT INTO trades VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for trade in history.trades {
            try insertTrade.execute(arguments: [
                trade.operationID, trade.order, Int64(trade.closeTime), trade.kind.rawValue,
                trade.base.asset.storageKey, trade.base.amount, trade.base.account?.storageKey, trade.base.offerID,
                trade.counter.asset.storageKey, trade.counter.amount, trade.counter.account?.storageKey, trade.counter.offerID,
                trade.baseIsSeller, trade.priceN, trade.priceD, trade.base.liquidityPool.map { Data($0.bytes) }, trade.counter.liquidityPool.map { Data($0.bytes) },
            ])
        }
    }

    public func transaction(hash: Bytes32) async throws -> StoredTransaction? {
        try await database.read { db in
            guard let id = try self.transactionID(hash: hash, db),
                  let row = try db.cachedRow(sql: "SELECT ledger, application_order, close_time, envelope, result FROM transactions WHERE id = ?", arguments: [id])
            else { return nil }
            let envelope: Data = row["envelope"]
            let result: Data = row["result"]
            return StoredTransaction(
                hash: hash, ledger: row["ledger"], applicationOrder: row["application_order"],
                envelope: try TransactionEnvelope(xdrBytes: [UInt8](envelope)), result: try TransactionResult(xdrBytes: [UInt8](result)),
                closeTime: UInt64(row["close_time"] as Int64))
        }
    }

    /// The sequence of the last committed ledger, or nil.
    public func latestLedgerSequence() async throws -> UInt32? {
        try await database.read { db in try db.cachedValue(UInt32.self, sql: "SELECT MAX(sequence) FROM ledger_headers") }
    }

    /// Successful payment operations in history (a benchmark's count of what a network holds).
    public func paymentCount() async throws -> Int {
        try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operations WHERE is_payment = 1 AND successful = 1") ?? 0 }
    }
}

extension AccountID {
    /// The 32 raw key bytes, as stored.
    var storageKey: Data { Data(publicKey.bytes) }
}

extension Asset {
    /// The asset's XDR, as stored.
    var storageKey: Data { Data(xdrBytes) }
}

/// A thread-safe counter.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
