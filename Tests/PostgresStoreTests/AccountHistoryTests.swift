import Foundation
import GRDB
import Ledger
import Logging
import Synchronization
@testable import PostgresStore
import StellarBase
import Store
import TenderTesting
import Testing

/// An account's transactions and operations, read from one index of who took part in what
/// (`account_history`), against what taking part means, worked out here from the transactions
/// themselves: every page both ways from every cursor near every transaction, on both stores,
/// and again after an older database's two indexes are migrated into the one.
@Suite("An account's history, on SQLite and on PostgreSQL")
struct AccountHistoryTests {
    let temporary = TemporaryDirectory("account-history")

    /// Tender's VFS and page cache before this suite opens SQLite itself (SQLite takes a page
    /// cache only before anything in the process has used it).
    init() { TenderVFS.install() }

    /// Root creates four accounts in one transaction (four rows of root's for it); alice pays bob
    /// with carol paying the fee (carol takes part through no operation); dave's transaction
    /// holds alice's payment only (nor does dave); alice pays three in one transaction; bob's
    /// payment of an asset carol does not trust fails; several transactions share a ledger.
    static func ledgers() throws -> (ledgers: [ClosedLedger], accounts: [AccountID]) {
        var (state, first) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        var ledgers = [first]
        let root = LedgerState.rootKeyPair(network: .standalone)
        let (alice, bob, carol, dave) = try (
            KeyPair(seed: Array(repeating: 21, count: 32)), KeyPair(seed: Array(repeating: 22, count: 32)),
            KeyPair(seed: Array(repeating: 23, count: 32)), KeyPair(seed: Array(repeating: 24, count: 32)))
        var sequences: [AccountID: Int64] = [:]
        func transaction(_ source: KeyPair, _ ops: [StellarBase.Operation]) -> Transaction {
            let next = (sequences[source.accountID] ?? state.account(source.accountID)!.sequenceNumber) + 1
            sequences[source.accountID] = next
            return Transaction(sourceAccount: .ed25519(source.accountID), fee: UInt32(100 * ops.count), sequenceNumber: next, operations: ops)
        }
        func prepared(_ envelope: TransactionEnvelope) -> PreparedTransaction { PreparedTransaction.prepare(envelope, network: .standalone) }
        func close(_ transactions: [PreparedTransaction]) throws {
            ledgers.append(try state.closeLedger(transactions, closeTime: state.header.closeTime + 1))
            sequences = [:]
        }
        let xlm = Amount.stroopsPerUnit
        func pay(_ to: KeyPair, _ amount: Int64 = Amount.stroopsPerUnit, asset: Asset = .native, from: KeyPair? = nil) -> StellarBase.Operation {
            StellarBase.Operation(sourceAccount: from.map { .ed25519($0.accountID) }, .payment(PaymentOperation(destination: .ed25519(to.accountID), asset: asset, amount: amount)))
        }
        try close([prepared(transaction(root, [alice, bob, carol, dave].map {
            StellarBase.Operation(.createAccount(CreateAccountOperation(destination: $0.accountID, startingBalance: 100 * xlm)))
        }).signed(by: [root], on: .standalone))])
        let inner = transaction(alice, [pay(bob)])
        var bump = TransactionEnvelope.feeBump(
            FeeBumpTransaction(feeSource: .ed25519(carol.accountID), fee: 400, innerTransaction: inner, innerSignatures: inner.signed(by: [alice], on: .standalone).signatures),
            signatures: [])
        bump.sign(with: carol, on: .standalone)
        try close([
            prepared(bump),
            prepared(transaction(dave, [pay(bob, from: alice)]).signed(by: [dave, alice], on: .standalone)),
            prepared(transaction(root, [pay(dave)]).signed(by: [root], on: .standalone)),
        ])
        try close([prepared(transaction(alice, [pay(bob), pay(carol), pay(dave)]).signed(by: [alice], on: .standalone))])
        let usd = try Asset(code: "USD", issuer: root.accountID)
        try close([
            prepared(transaction(bob, [pay(carol, asset: usd)]).signed(by: [bob], on: .standalone)),
            prepared(transaction(carol, [pay(alice), pay(alice, from: dave)]).signed(by: [carol, dave], on: .standalone)),
        ])
        try close([prepared(transaction(bob, [pay(alice)]).signed(by: [bob], on: .standalone))])
        return (ledgers, [root, alice, bob, carol, dave].map(\.accountID))
    }

    /// What each account took part in, from the transactions: (TOID, hash, successful) of each
    /// transaction and (TOID, successful) of each operation, in order.
    static func expected(_ ledgers: [ClosedLedger], _ account: AccountID)
        -> (transactions: [(id: Int64, hash: Bytes32, successful: Bool)], operations: [(id: Int64, successful: Bool)]) {
        var transactions: [(id: Int64, hash: Bytes32, successful: Bool)] = [], operations: [(id: Int64, successful: Bool)] = []
        for ledger in ledgers {
            for (index, applied) in ledger.transactions.filter(\.application.isApplied).enumerated() {
                let tx = applied.prepared.transaction, source = tx.sourceAccount.accountID
                let id = TOID.make(ledger: ledger.header.sequence, transactionOrder: index + 1, operationIndex: 0)
                let successful = applied.application.result.isSuccess
                var takesPart = source == account
                if case .feeBump(let bump, _) = applied.prepared.envelope, bump.feeSource.accountID == account { takesPart = true }
                for (opIndex, op) in tx.operations.enumerated() where op.participants(transactionSource: source).contains(account) {
                    operations.append((id + Int64(opIndex) + 1, successful))
                    takesPart = true
                }
                if takesPart { transactions.append((id, applied.prepared.hash, successful)) }
            }
        }
        return (transactions, operations)
    }

    /// Every page of every account's transactions and operations is the expected one.
    static func check(_ store: any LedgerReader, _ ledgers: [ClosedLedger], _ accounts: [AccountID]) async throws -> Int {
        var pages = 0
        for account in accounts {
            let (transactions, operations) = expected(ledgers, account)
            var cursors: [Int64?] = [nil, 0, Int64.max]
            // Around each transaction's paging token, and each operation's (as a cursor can be).
            for id in transactions.map(\.id) { cursors += [id - 1, id, id + 1, id + 0xFFF] }
            cursors += operations.map(\.id)
            for includeFailed in [false, true] {
                let kept = transactions.filter { includeFailed || $0.successful }
                let keptOperations = operations.filter { includeFailed || $0.successful }
                for descending in [false, true] {
                    for limit in [1, 2, 200] {
                        for cursor in cursors {
                            let page = PageRequest(cursor: cursor, limit: limit, descending: descending)
                            let after = { (id: Int64) in cursor.map { descending ? id < $0 : id > $0 } ?? true }
                            let want = Array((descending ? kept.reversed() : kept).filter { after($0.id) }.prefix(limit))
                            let got = try await store.transactions(page, account: account, includeFailed: includeFailed)
                            #expect(got.map(\.hash) == want.map(\.hash), "transactions of \(account.strKey) \(page) failed: \(includeFailed)")
                            let wantOperations = Array((descending ? keptOperations.reversed() : keptOperations).filter { after($0.id) }.prefix(limit)).map(\.id)
                            for types in [nil, [OperationType.payment.rawValue, OperationType.createAccount.rawValue]] as [Set<Int32>?] {
                                let filter = OperationFilter(account: account, types: types, includeFailed: includeFailed)
                                #expect(try await store.operations(page, filter: filter).map(\.id) == wantOperations, "operations of \(account.strKey) \(page) \(filter)")
                            }
                            pages += 1
                        }
                    }
                }
            }
        }
        return pages
    }

    @Test(arguments: TestDatabase.allCases) func anAccountsHistoryIsWhatItTookPartIn(database: TestDatabase) async throws {
        let (ledgers, accounts) = try Self.ledgers()
        // One row a side of each operation, and one for carol's fee and dave's transaction.
        let participations = ledgers.map { LedgerHistory($0).participations }
        let rows = participations.map(\.count).reduce(0, +)
        // Every transaction applied, bob's failed payment among them.
        #expect(ledgers.dropFirst().map { $0.transactions.filter(\.application.isApplied).count } == [1, 3, 1, 2, 1])
        #expect(ledgers.flatMap(\.transactions).filter { !$0.application.result.isSuccess }.count == 1)
        #expect(participations.joined().filter { !TOID.isOperation($0.id) }.map(\.account) == [accounts[3], accounts[4]])
        // Root: the creations and a payment; carol: her creation, the fee, alice's three, the
        // failed payment, her own; dave: his creation and transaction, root's payment, alice's
        // three, carol's (his payment in it).
        #expect(accounts.map { Self.expected(ledgers, $0).transactions.count } == [2, 6, 6, 5, 5])
        try await database.with { url in
            let path = temporary.file("ledger-\(UUID().uuidString).sqlite")
            let firstNotices = RecordingLogHandler()
            let postgres = try url.map { try PostgresDatabase(url: $0, logger: Logger(label: "test") { _ in firstNotices }) }
            defer { postgres?.shutdown() }
            let open: () async throws -> any LedgerStore & LedgerReader = {
                if let postgres { return try await PostgresLedgerStore(postgres) }
                return try SQLiteLedgerStore(path: path)
            }
            let store = try await open()
            for ledger in ledgers { try await store.commit(ledger) }
            #expect(try await Self.check(store, ledgers, accounts) > 500)
            var entries: [AccountEntry?] = []
            for account in accounts { entries.append(try await store.account(account)?.account) }
            #expect(entries.allSatisfy { $0 != nil })
            #expect(try await Self.rowCount(postgres, path) == rows)
            #expect(firstNotices.upgrades == [], "a new database is made, not upgraded")

            // A database from before the one index: its two (every participant of a transaction;
            // every participant of an operation) are made from this one, and the migration
            // makes them one again, keeping a transaction's row only where no operation names
            // the account. On SQLite, also from before an account's entry and history shared one
            // B-tree (`account_rows`, whose views read as the two tables): the accounts table
            // made again from its view, which the migrations then fold back in.
            let older = [
                "CREATE TABLE account_transactions (account_id \(postgres == nil ? "BLOB" : "BYTEA") NOT NULL, transaction_id BIGINT NOT NULL, PRIMARY KEY (account_id, transaction_id))",
                "CREATE TABLE account_operations (account_id \(postgres == nil ? "BLOB" : "BYTEA") NOT NULL, operation_id BIGINT NOT NULL, is_payment BOOLEAN NOT NULL, PRIMARY KEY (account_id, operation_id))",
                "INSERT INTO account_operations SELECT account_id, toid, is_payment FROM account_history WHERE (toid & 4095) != 0",
                "INSERT INTO account_transactions SELECT DISTINCT account_id, toid - (toid & 4095) FROM account_history",
            ] + (postgres == nil ? [
                "CREATE TABLE accounts_v12 (account_id BLOB PRIMARY KEY, entry BLOB NOT NULL) WITHOUT ROWID",
                "INSERT INTO accounts_v12 SELECT account_id, entry FROM accounts",
                "DROP VIEW accounts",
                "DROP VIEW account_history",
                "DROP TABLE account_rows",
                "DROP TABLE store_counts",
                "ALTER TABLE accounts_v12 RENAME TO accounts",
                "DELETE FROM grdb_migrations WHERE identifier IN ('ledger-v11-account-history', 'ledger-v13-account-rows')",
            ] : [
                "DROP TABLE account_history",
                "DELETE FROM tender_migration WHERE number IN (111, 115, 116)",
            ])
            try await Self.execute(older, postgres, path)
            // The server is told before the migration runs (a notice in PostgreSQL's log; SQLite's
            // store tells its caller, `tender serve` logs it).
            let notices = RecordingLogHandler()
            let migrated: any LedgerReader
            let logged = try url.map { try PostgresDatabase(url: $0, logger: Logger(label: "test") { _ in notices }) }
            defer { logged?.shutdown() }
            if let logged {
                migrated = try await PostgresLedgerStore(logged)
                #expect(notices.upgrades == [
                    "upgrading the database (on a large network this can take minutes) migration=111 account history",
                    "upgrading the database (on a large network this can take minutes) migration=115 payment flag in the account history's key",
                    "upgrading the database (on a large network this can take minutes) migration=116 a history row's transaction found by its place",
                ])
                // Migration 116 kept each row's transaction's place.
                #expect(try await Self.placed(logged) == (rows, rows))
            } else {
                // Opened as `tender serve` does, off the cooperative pool.
                let told = Mutex<[[String]]>([])
                migrated = try await SQLiteLedgerStore.opening(path: path) { pending in told.withLock { $0.append(pending) } }
                #expect(told.withLock { $0 } == [["ledger-v11-account-history", "ledger-v13-account-rows"]])
            }
            #expect(try await Self.rowCount(postgres, path) == rows)
            #expect(try await Self.check(migrated, ledgers, accounts) > 500)
            var migratedEntries: [AccountEntry?] = []
            for account in accounts { migratedEntries.append(try await migrated.account(account)?.account) }
            #expect(migratedEntries == entries)
        }
    }

    /// On PostgreSQL each history row keeps its transaction's place, and an account's history
    /// reads the transaction there without the transactions' key; a place that no longer holds
    /// it (none kept, another row's, a page past the table's end) is passed over for the key, and
    /// every answer stays the same.
    @Test(.enabled(if: !TestSpeed.fastOnly)) func aHistoryRowsTransactionIsReadAtItsPlace() async throws {
        let (ledgers, accounts) = try Self.ledgers()
        let rows = ledgers.map { LedgerHistory($0).participations.count }.reduce(0, +)
        let server = try await TemporaryPostgres.start()
        do {
            let database = try PostgresDatabase(url: server.url)
            defer { database.shutdown() }
            let store = try await PostgresLedgerStore(database)
            for ledger in ledgers { try await store.commit(ledger) }
            #expect(try await Self.placed(database) == (rows, rows))
            // Alice's rows (every one's transaction is in the table): each transaction read at its
            // place, the key's branch never run.
            let alice = accounts[1]
            var plan = try await Self.historyPlan(database, alice)
            #expect(plan.contains { $0.contains("Tid Scan on transactions") && !$0.contains("never executed") }, "\(plan)")
            #expect(plan.contains { $0.contains("Index Scan using transactions_pkey") && $0.contains("never executed") }, "\(plan)")
            #expect(try await Self.check(store, ledgers, accounts) > 500)

            // Places that do not hold the row's transaction: none, the first row of the table
            // (another transaction's but one), and a page the table does not have.
            try await database.execute("""
                UPDATE account_history SET tx = CASE toid % 3 WHEN 0 THEN NULL WHEN 1 THEN '(0,1)'::tid ELSE '(4000000,1)'::tid END
                """)
            #expect(try await Self.placed(database).holding < rows / 2)
            plan = try await Self.historyPlan(database, alice)
            #expect(plan.contains { $0.contains("Index Scan using transactions_pkey") && !$0.contains("never executed") }, "\(plan)")
            #expect(try await Self.check(store, ledgers, accounts) > 500)
            // Set again, as `tender migrate` does after its copy.
            try await database.execute("UPDATE account_history SET tx = NULL")
            try await database.transaction { try await PostgresLedgerStore.placeHistoryRows($0) }
            #expect(try await Self.placed(database) == (rows, rows))
            #expect(try await Self.check(store, ledgers, accounts) > 500)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// How many history rows keep a place, and how many of those hold their transaction.
    static func placed(_ database: PostgresDatabase) async throws -> (kept: Int, holding: Int) {
        try await database.rows("""
            SELECT count(a.tx), count(t.id) FROM account_history a
            LEFT JOIN transactions t ON t.ctid = a.tx AND t.id = a.toid - (a.toid & 4095)
            """) { row in
            let (kept, holding) = try row.decode((Int64, Int64).self)
            return (Int(kept), Int(holding))
        }.first ?? (-1, -1)
    }

    /// The plan PostgreSQL ran for an account's history rows and their transactions, read as
    /// the store reads them, line by line.
    static func historyPlan(_ database: PostgresDatabase, _ account: AccountID) async throws -> [String] {
        try await database.rows("""
            EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
            SELECT a.toid, t.hash FROM account_history a \(unescaped: PostgresLedgerStore.historyTransaction)
            WHERE a.account_id = \(account.storageKey) ORDER BY a.toid DESC
            """) { try $0.decode(String.self) }
    }

    static func execute(_ statements: [String], _ postgres: PostgresDatabase?, _ path: String) async throws {
        if let postgres {
            for statement in statements { try await postgres.execute("\(unescaped: statement)") }
            return
        }
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in for statement in statements { try db.execute(sql: statement) } }
        try queue.close()
    }

    static func rowCount(_ postgres: PostgresDatabase?, _ path: String) async throws -> Int {
        if let postgres { return try await postgres.rows("SELECT count(*) FROM account_history") { Int(try $0.decode(Int64.self)) }.first ?? -1 }
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try await queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM account_history") ?? -1 }
    }
}

/// Keeps what is logged at notice level and above, with its metadata.
final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [String] = []
    private var keptMetadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .notice

    /// The metadata, under the lock: one handler may serve several loggers, whose metadata
    /// postgres-nio sets from any thread.
    var metadata: Logger.Metadata {
        get { lock.withLock { keptMetadata } }
        set { lock.withLock { keptMetadata = newValue } }
    }

    /// The notices of migrations run on an existing database.
    var upgrades: [String] { lock.withLock { kept.filter { $0.hasPrefix("upgrading") } } }

    /// Every message kept (notices and above), in order.
    var messages: [String] { lock.withLock { kept } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { lock.withLock { keptMetadata[key] } }
        set { lock.withLock { keptMetadata[key] = newValue } }
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        lock.withLock { kept.append(([event.message.description] + fields).joined(separator: " ")) }
    }
}
