import Foundation
import Ledger
import NIOCore
import PostgresNIO
@testable import PostgresStore
import StellarBase
import Store
import TenderTesting
import Testing

/// Transactions are found by hash through `transaction_hashes` on PostgreSQL too, generation by
/// generation (issue 30: one index of every hash took each payment's at a random leaf, logged
/// whole after each checkpoint), and an older database's hashes become generation 0.
@Suite("Transaction hashes by generation, on PostgreSQL")
struct PostgresTransactionHashTests {
    /// Every transaction of `ledgers` is found by its hash with its ledger, order and envelope,
    /// and its operations by its hash (IDs in its range, as many as it has); a hash no
    /// transaction has finds nothing.
    static func expectEachFound(_ store: PostgresLedgerStore, _ ledgers: [ClosedLedger]) async throws {
        for ledger in ledgers {
            for (index, applied) in ledger.transactions.enumerated() {
                let stored = try #require(try await store.transaction(hash: applied.prepared.hash))
                #expect(stored.ledger == ledger.header.sequence && stored.applicationOrder == index + 1)
                #expect(stored.envelope == applied.prepared.envelope)
                let operations = try await store.operations(
                    PageRequest(limit: 20), filter: OperationFilter(transactionHash: applied.prepared.hash, includeFailed: true))
                #expect(operations.count == applied.prepared.envelope.transaction.operations.count)
                #expect(operations.allSatisfy { $0.transaction.hash == applied.prepared.hash })
            }
        }
        let unknown = Bytes32(w0: 1, w1: 2, w2: 3, w3: 4)
        #expect(try await store.transaction(hash: unknown) == nil)
        #expect(try await store.operations(PageRequest(limit: 10), filter: OperationFilter(transactionHash: unknown, includeFailed: true)).isEmpty)
    }

    /// Each generation's hashes, oldest first; `transactions`' indexes.
    static func layout(_ database: PostgresStore.PostgresDatabase) async throws -> (generations: [Int64], indexes: [String]) {
        let generations = try await database.rows("SELECT COUNT(*) FROM transaction_hashes GROUP BY generation ORDER BY generation") { try $0.decode(Int64.self) }
        let indexes = try await database.rows("SELECT indexname::text FROM pg_indexes WHERE tablename = 'transactions' ORDER BY indexname") { try $0.decode(String.self) }
        return (generations, indexes)
    }

    static func withDatabase(_ body: (PostgresStore.PostgresDatabase) async throws -> Void) async throws {
        let server = try await TemporaryPostgres.start()
        do {
            let database = try PostgresDatabase(url: server.url)
            defer { database.shutdown() }
            try await body(database)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func eachHashIsFoundInItsGenerationAcrossARestart() async throws {
        let ledgers = try LedgerStoreContractTests.ledgers().ledgers
        let transactions = ledgers.map(\.transactions.count)
        // Genesis, then 16 transactions (one of them failed) in 14 ledgers: 7 in the first six.
        #expect(transactions.count == 15 && transactions.reduce(0, +) == 16 && transactions.prefix(6).reduce(0, +) == 7)
        try await Self.withDatabase { database in
            let store = try await PostgresLedgerStore(database, hashGenerationSize: 3)
            for ledger in ledgers.prefix(6) { try await store.commit(ledger) }
            try await Self.expectEachFound(store, Array(ledgers.prefix(6)))
            #expect(try await Self.layout(database) == ([3, 3, 1], ["transactions_by_ledger", "transactions_pkey"]))
            // A new store on the same database reads where the first left off (generation 2,
            // holding 1) and goes on filling it.
            let again = try await PostgresLedgerStore(database, hashGenerationSize: 3)
            for ledger in ledgers.dropFirst(6) { try await again.commit(ledger) }
            try await Self.expectEachFound(again, ledgers)
            #expect(try await Self.layout(database) == ([3, 3, 3, 3, 3, 1], ["transactions_by_ledger", "transactions_pkey"]))
        }
    }

    /// A database from before migration 114: its hashes become generation 0 (more than a
    /// generation holds), `transactions` loses its `UNIQUE` index, and new hashes begin generation 1.
    @Test func anOlderDatabasesHashesBecomeGenerationZero() async throws {
        let ledgers = try LedgerStoreContractTests.ledgers().ledgers
        try await Self.withDatabase { database in
            let store = try await PostgresLedgerStore(database, hashGenerationSize: 4)
            for ledger in ledgers.dropLast() { try await store.commit(ledger) }
            let older = ledgers.dropLast().map(\.transactions.count).reduce(0, +)
            // As migration 113 left it.
            try await database.execute("DROP TABLE transaction_hashes")
            try await database.execute("ALTER TABLE transactions ADD CONSTRAINT transactions_hash_key UNIQUE (hash)")
            try await database.execute("DELETE FROM tender_migration WHERE number = 114")
            #expect(try await database.rows("SELECT indexname::text FROM pg_indexes WHERE tablename = 'transactions' ORDER BY indexname") {
                try $0.decode(String.self)
            } == ["transactions_by_ledger", "transactions_hash_key", "transactions_pkey"])
            let migrated = try await PostgresLedgerStore(database, hashGenerationSize: 4)
            #expect(try await Self.layout(database) == ([Int64(older)], ["transactions_by_ledger", "transactions_pkey"]))
            try await Self.expectEachFound(migrated, Array(ledgers.dropLast()))
            try await migrated.commit(ledgers.last!)
            try await Self.expectEachFound(migrated, ledgers)
            let last = Int64(ledgers.last!.transactions.count)
            #expect(try await Self.layout(database) == ([Int64(older), last], ["transactions_by_ledger", "transactions_pkey"]))
        }
    }

    /// With its filters built, a store searches a frozen generation only when its filter may
    /// hold the hash: a hash put into one behind the store's back is not found by it, and is by
    /// a store without filters, which begins building them.
    @Test func aFrozenGenerationIsSearchedOnlyWhenItsFilterMayHoldTheHash() async throws {
        let ledgers = try LedgerStoreContractTests.ledgers().ledgers
        try await Self.withDatabase { database in
            let store = try await PostgresLedgerStore(database, hashGenerationSize: 3)
            for ledger in ledgers { try await store.commit(ledger) }
            #expect(try await Self.layout(database).generations == [3, 3, 3, 3, 3, 1])
            #expect(store.hashFilters.filtered.isEmpty)
            try await store.buildHashFilters()
            #expect(store.hashFilters.filtered == [0, 1, 2, 3, 4])
            try await Self.expectEachFound(store, ledgers)
            let hidden = Bytes32(w0: 5, w1: 6, w2: 7, w3: 8)
            try await database.execute(
                "INSERT INTO transaction_hashes SELECT 1, \(ByteBuffer(bytes: hidden.bytes)), id FROM transaction_hashes WHERE generation = 1 LIMIT 1")
            #expect(try await store.transaction(hash: hidden) == nil)
            #expect(try await store.operations(PageRequest(limit: 10), filter: OperationFilter(transactionHash: hidden, includeFailed: true)).isEmpty)
            let fresh = try await PostgresLedgerStore(database, hashGenerationSize: 3)
            #expect(try await fresh.transaction(hash: hidden) != nil)
            try await fresh.buildHashFilters()
            #expect(fresh.hashFilters.filtered == [0, 1, 2, 3, 4])
            #expect(try await fresh.transaction(hash: hidden) != nil)
            #expect(try await fresh.operations(PageRequest(limit: 10), filter: OperationFilter(transactionHash: hidden, includeFailed: true)).isEmpty == false)
            try await Self.expectEachFound(fresh, ledgers)
        }
    }

    /// The lookup descends `transaction_hashes`' key once a generation, newest first, and
    /// stops at the first found: no scan of the table or its key.
    @Test func aHashIsLookedUpThroughTheKey() async throws {
        let ledgers = try LedgerStoreContractTests.ledgers().ledgers
        try await Self.withDatabase { database in
            let store = try await PostgresLedgerStore(database, hashGenerationSize: 2)
            for ledger in ledgers { try await store.commit(ledger) }
            try await database.execute("ANALYZE transaction_hashes")
            let bindings = {
                var bindings = PostgresBindings()
                bindings.append(ByteBuffer(bytes: ledgers[1].transactions[0].prepared.hash.bytes))
                bindings.append([Int64(0), 3])  // generations whose filter refuses it
                return bindings
            }()
            // A table of 16 rows is read whole unless told otherwise; a large one is not.
            let plan = try await database.transaction { transaction in
                try await transaction.execute("SET LOCAL enable_seqscan = off")
                return try await transaction.rows(PostgresQuery(unsafeSQL: "EXPLAIN " + PostgresLedgerStore.transactionIDByHash, binds: bindings)) {
                    try $0.decode(String.self)
                }
            }.joined(separator: "\n")
            #expect(plan.contains("Index Scan Backward using transaction_hashes_pkey on transaction_hashes"), "\(plan)")
            #expect(plan.contains("Index Cond: ((generation = ANY ("), "\(plan)")
            #expect(!plan.contains("Seq Scan on transaction_hashes"), "\(plan)")
        }
    }
}
