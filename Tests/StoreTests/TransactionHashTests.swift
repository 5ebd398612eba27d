import Foundation
import GRDB
import Ledger
import StellarBase
import TenderTesting
import Synchronization
import Testing
@testable import Store

/// Transactions are found by hash through `transaction_hashes`, generation by generation
/// (issue 30: one index of every hash took each new one at a random leaf, and at ten million
/// transactions that was the largest cost of a payment found).
@Suite("Transaction hashes")
struct TransactionHashTests {
    let temporary = TemporaryDirectory("transaction-hashes")

    init() { TenderVFS.install() }

    @Test func aGenerationTakesItsSizeThenTheNextBegins() {
        var generations = HashGenerations(size: 3, newest: 0, held: 0)
        #expect((0..<7).map { _ in generations.place() } == [0, 0, 0, 1, 1, 1, 2])
        #expect(generations == HashGenerations(size: 3, newest: 2, held: 1))
        // An older database's hashes, all in generation 0, may be more than a generation holds.
        var migrated = HashGenerations(size: 3, newest: 0, held: 10)
        #expect((0..<4).map { _ in migrated.place() } == [1, 1, 1, 2])
        var one = HashGenerations(size: 1, newest: 5, held: 0)
        #expect((0..<3).map { _ in one.place() } == [5, 6, 7])
    }

    /// A frozen generation's filter answers "maybe" for every hash it was given and refuses
    /// about 99% of the others (about 10 bits a hash).
    @Test func aFilterNeverRefusesAHashItHoldsAndRefusesMostOthers() {
        var random = SplitMix64(seed: 30)
        func hash() -> Bytes32 { Bytes32(w0: random.next(), w1: random.next(), w2: random.next(), w3: random.next()) }
        let held = (0..<HashGenerations.defaultSize).map { _ in hash() }
        var filter = GenerationFilter(capacity: held.count)
        for hash in held { filter.insert(hash) }
        #expect(held.allSatisfy(filter.mayContain))
        let passed = (0..<100_000).map { _ in hash() }.filter(filter.mayContain).count
        #expect(passed > 0 && passed < 2_000, "\(passed) of 100,000 hashes not held passed the filter")
        #expect(filter.byteCount == HashGenerations.defaultSize * 10 / 8)
        // A stored hash's bytes, read in place, place it as its Bytes32 does.
        var fromBytes = GenerationFilter(capacity: held.count)
        for hash in held { hash.bytes.withUnsafeBytes { fromBytes.insert(firstBytesOf: $0) } }
        #expect(fromBytes == filter)
        // The smallest filter is one block.
        var tiny = GenerationFilter(capacity: 0)
        tiny.insert(held[0])
        #expect(tiny.mayContain(held[0]) && tiny.byteCount == 64)
    }

    @Test func filtersLeaveTheGenerationsThatMayHoldAHash() async throws {
        var random = SplitMix64(seed: 31)
        let hashes = (0..<5).map { _ in Bytes32(w0: random.next(), w1: random.next(), w2: random.next(), w3: random.next()) }
        /// Generation `g` holds `hashes[g]`.
        let holding: @Sendable (Int64) async throws -> GenerationFilter = { generation in
            var filter = GenerationFilter(capacity: 1)
            filter.insert(hashes[Int(generation)])
            return filter
        }
        let filters = HashFilters()
        // Without filters every older generation is searched, newest first.
        #expect(filters.generations(toSearchFor: hashes[0], below: 3) == [2, 1, 0])
        #expect(filters.generations(toSearchFor: hashes[0], below: 0) == [])
        #expect(filters.beginBuilding(below: 0, filter: holding) == nil)
        try await filters.build(below: 3, filter: holding)
        #expect(filters.filtered == [0, 1, 2] && filters.byteCount == 3 * 64)
        #expect(filters.generations(toSearchFor: hashes[1], below: 3) == [1])
        #expect(filters.generations(toSearchFor: hashes[4], below: 3) == [])
        #expect(filters.generations(refusing: hashes[1]) == [0, 2])
        // The build covers them: none is begun again.
        #expect(filters.beginBuilding(below: 3, filter: { _ in Issue.record("built twice"); return GenerationFilter(capacity: 1) }) != nil)
        // A generation frozen since is searched until its filter is built, then only where it may hold the hash.
        #expect(filters.generations(toSearchFor: hashes[3], below: 4) == [3])
        #expect(filters.generations(toSearchFor: hashes[4], below: 4) == [3])
        try await filters.build(below: 4, filter: { generation in
            #expect(generation == 3)
            return try await holding(generation)
        })
        #expect(filters.generations(toSearchFor: hashes[3], below: 4) == [3])
        #expect(filters.generations(toSearchFor: hashes[4], below: 4) == [])
    }

    @Test func aFailedBuildKeepsWhatItFinishedAndTheNextGoesOn() async throws {
        struct Unreadable: Error {}
        let filters = HashFilters()
        await #expect(throws: Unreadable.self) {
            try await filters.build(below: 3) { generation in
                guard generation == 2 else { throw Unreadable() }
                return GenerationFilter(capacity: 1)
            }
        }
        #expect(filters.filtered == [2])
        try await filters.build(below: 3) { generation in
            #expect(generation != 2)
            return GenerationFilter(capacity: 1)
        }
        #expect(filters.filtered == [0, 1, 2])
    }

    /// A build asked for while one is under way waits for it rather than reading the
    /// generations again.
    @Test func aBuildUnderWayIsJoined() async throws {
        let filters = HashFilters()
        let (started, starting) = AsyncStream<Void>.makeStream()
        let (gate, opening) = AsyncStream<Void>.makeStream()
        final class Reads: Sendable { let count = Mutex(0) }
        let reads = Reads()
        let first = filters.beginBuilding(below: 1) { _ in
            reads.count.withLock { $0 += 1 }
            starting.yield()
            for await _ in gate { break }
            return GenerationFilter(capacity: 1)
        }
        for await _ in started { break }
        let joined = Task { try await filters.build(below: 1) { _ in reads.count.withLock { $0 += 1 }; return GenerationFilter(capacity: 1) } }
        opening.yield()
        try await first?.value
        try await joined.value
        #expect(reads.count.withLock { $0 } == 1 && filters.filtered == [0])
    }

    /// `ledgers` ledgers of `perLedger` transactions from root, each creating an account, and
    /// a failed one in each (a payment to an account that does not exist): its hash is kept too.
    static func ledgers(_ count: Int, perLedger: Int) throws -> [ClosedLedger] {
        var (state, first) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        var ledgers = [first]
        let root = LedgerState.rootKeyPair(network: .standalone)
        var made: UInt8 = 0
        for _ in 0..<count {
            var sequence = state.account(root.accountID)!.sequenceNumber
            var transactions: [PreparedTransaction] = []
            for index in 0...perLedger {
                made += 1
                let destination = try KeyPair(seed: [made] + Array(repeating: 7, count: 31))
                sequence += 1
                let operation: OperationBody = index == perLedger
                    ? .payment(PaymentOperation(destination: .ed25519(try KeyPair(seed: Array(repeating: 250, count: 32)).accountID), asset: .native, amount: 1))
                    : .createAccount(CreateAccountOperation(destination: destination.accountID, startingBalance: 10 * Amount.stroopsPerUnit))
                let transaction = Transaction(sourceAccount: .ed25519(root.accountID), fee: 100, sequenceNumber: sequence, operations: [StellarBase.Operation(operation)])
                transactions.append(PreparedTransaction.prepare(transaction.signed(by: [root], on: .standalone), network: .standalone))
            }
            ledgers.append(try state.closeLedger(transactions, closeTime: state.header.closeTime + 1))
        }
        return ledgers
    }

    /// Every transaction of `ledgers` is found by its hash, with its ledger, order and envelope,
    /// and its operations by its hash; a hash no transaction has finds nothing.
    static func expectEachFound(_ store: SQLiteLedgerStore, _ ledgers: [ClosedLedger]) async throws {
        for ledger in ledgers {
            for (index, applied) in ledger.transactions.enumerated() {
                let stored = try #require(try await store.transaction(hash: applied.prepared.hash))
                #expect(stored.ledger == ledger.header.sequence && stored.applicationOrder == index + 1)
                #expect(stored.envelope == applied.prepared.envelope)
                let operations = try await store.operations(
                    PageRequest(limit: 10), filter: OperationFilter(transactionHash: applied.prepared.hash, includeFailed: true))
                #expect(operations.map(\.transaction.hash) == [applied.prepared.hash])
            }
        }
        let unknown = Bytes32(w0: 1, w1: 2, w2: 3, w3: 4)
        #expect(try await store.transaction(hash: unknown) == nil)
        #expect(try await store.operations(PageRequest(limit: 10), filter: OperationFilter(transactionHash: unknown, includeFailed: true)).isEmpty)
    }

    /// Each generation's hashes, oldest first, and `transactions`' indexes.
    static func layout(_ path: String) async throws -> (generations: [Int], indexes: [String]) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try await queue.read { db in
            (try Int.fetchAll(db, sql: "SELECT count(*) FROM transaction_hashes GROUP BY generation ORDER BY generation"),
             try String.fetchAll(db, sql: "SELECT name FROM pragma_index_list('transactions')"))
        }
    }

    @Test func eachHashIsFoundInItsGenerationAcrossARestart() async throws {
        let path = temporary.file("\(UUID().uuidString).sqlite")
        let ledgers = try Self.ledgers(6, perLedger: 3)
        // Genesis has no transaction; each other ledger 4 (3 applied, 1 failed).
        let store = try SQLiteLedgerStore(path: path, hashGenerationSize: 5)
        for ledger in ledgers.prefix(4) { try await store.commit(ledger) }
        try await Self.expectEachFound(store, Array(ledgers.prefix(4)))
        try await store.close()
        #expect(try await Self.layout(path) == ([5, 5, 2], []))
        // Opened again, it goes on filling the generation it left.
        let reopened = try SQLiteLedgerStore(path: path, hashGenerationSize: 5)
        for ledger in ledgers.dropFirst(4) { try await reopened.commit(ledger) }
        try await Self.expectEachFound(reopened, ledgers)
        try await reopened.close()
        #expect(try await Self.layout(path) == ([5, 5, 5, 5, 4], []))
    }

    /// With its filters built, a store searches a frozen generation only when its filter may
    /// hold the hash: a hash put into one behind the store's back is not found by it, and is by
    /// a store without filters, which begins building them.
    @Test func aFrozenGenerationIsSearchedOnlyWhenItsFilterMayHoldTheHash() async throws {
        let path = temporary.file("\(UUID().uuidString).sqlite")
        let ledgers = try Self.ledgers(6, perLedger: 3)
        let store = try SQLiteLedgerStore(path: path, hashGenerationSize: 5)
        for ledger in ledgers { try await store.commit(ledger) }
        #expect(store.hashFilters.filtered.isEmpty)
        try await store.buildHashFilters()
        #expect(store.hashFilters.filtered == [0, 1, 2, 3])
        try await Self.expectEachFound(store, ledgers)
        let hidden = Bytes32(w0: 5, w1: 6, w2: 7, w3: 8)
        try await store.database.write { db in
            try db.execute(sql: "INSERT INTO transaction_hashes SELECT 1, ?, id FROM transaction_hashes WHERE generation = 1 LIMIT 1", arguments: [Data(hidden.bytes)])
        }
        #expect(try await store.transaction(hash: hidden) == nil)
        #expect(try await store.operations(PageRequest(limit: 10), filter: OperationFilter(transactionHash: hidden, includeFailed: true)).isEmpty)
        try await store.close()
        let reopened = try SQLiteLedgerStore(path: path, hashGenerationSize: 5)
        #expect(try await reopened.transaction(hash: hidden) != nil)
        try await reopened.buildHashFilters()
        #expect(reopened.hashFilters.filtered == [0, 1, 2, 3])
        #expect(try await reopened.transaction(hash: hidden) != nil)
        try await Self.expectEachFound(reopened, ledgers)
        try await reopened.close()
    }

    /// A database from before `transaction_hashes`: its hashes become generation 0, in hash
    /// order, and `transactions` loses its `UNIQUE` index (made again without it).
    @Test func anOlderDatabasesHashesBecomeGenerationZero() async throws {
        let path = temporary.file("\(UUID().uuidString).sqlite")
        let ledgers = try Self.ledgers(4, perLedger: 2)
        let store = try SQLiteLedgerStore(path: path, hashGenerationSize: 4)
        for ledger in ledgers.prefix(4) { try await store.commit(ledger) }
        try await store.close()
        let older = try DatabaseQueue(path: path)
        try await older.write { db in
            try db.execute(sql: """
                CREATE TABLE transactions_v13 (
                    id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, ledger INTEGER NOT NULL, application_order INTEGER NOT NULL,
                    source_account BLOB NOT NULL, successful INTEGER NOT NULL, fee_charged INTEGER NOT NULL, operation_count INTEGER NOT NULL,
                    close_time INTEGER NOT NULL, envelope BLOB NOT NULL, result BLOB NOT NULL
                );
                INSERT INTO transactions_v13 SELECT * FROM transactions;
                DROP TABLE transactions;
                ALTER TABLE transactions_v13 RENAME TO transactions;
                DROP TABLE transaction_hashes;
                DELETE FROM store_counts WHERE name IN ('hash_generation', 'hashes_in_generation');
                DELETE FROM grdb_migrations WHERE identifier = 'ledger-v14-transaction-hashes';
                """)
        }
        let olderIndexes = try await older.read { try String.fetchAll($0, sql: "SELECT name FROM pragma_index_list('transactions')") }
        try older.close()
        #expect(olderIndexes == ["sqlite_autoindex_transactions_1"])
        let told = Mutex<[[String]]>([])
        let migrated = try await SQLiteLedgerStore.opening(path: path, hashGenerationSize: 4) { pending in told.withLock { $0.append(pending) } }
        #expect(told.withLock { $0 } == [["ledger-v14-transaction-hashes"]])
        // 9 transactions before (3 a ledger), all in generation 0, more than it holds: the next ledger's 3 begin generation 1.
        try await migrated.commit(ledgers[4])
        try await Self.expectEachFound(migrated, ledgers)
        try await migrated.close()
        #expect(try await Self.layout(path) == ([9, 3], []))
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        let (integrity, transactions) = try await queue.read { db in
            (try String.fetchAll(db, sql: "PRAGMA integrity_check"), try Int.fetchOne(db, sql: "SELECT count(*) FROM transactions"))
        }
        #expect(integrity == ["ok"] && transactions == 12)
    }
}
