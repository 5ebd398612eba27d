import Foundation
import GRDB
import StellarBase

/// Where each new transaction's hash goes in `transaction_hashes`: generations of at most
/// ``size`` hashes, numbered from 0, the next one begun when the newest is full.
///
/// A transaction's hash is random, so one index of every hash takes each new one at a random
/// leaf: on a grown network (about 20 hashes a leaf, half a million leaves at ten million
/// transactions) every payment read a cold page, dirtied it, and the checkpoint wrote it back
/// alone, a whole page of the kernel's for a kilobyte of SQLite's (on PostgreSQL, a full-page
/// image in the WAL after each checkpoint). Keyed by generation first, the hashes of the newest
/// generation share a small part of the B-tree (under 20 MB at the default size), which stays
/// in the writer's cache (PostgreSQL's shared buffers), and a checkpoint finds its pages
/// dirtied many times over. The older generations are only read. A hash is looked up in the
/// newest generation, then in the older ones whose filter may hold it (``HashFilters``;
/// ``SQLiteLedgerStore/transactionID(hash:_:)``, `PostgresLedgerStore.transactionIDByHash`).
///
/// Both stores use it: SQLite keeps where the next hash goes in `store_counts`, read and
/// written by each commit; PostgreSQL reads it from the table at a store's first commit and
/// keeps it in the store.
///
/// The table's key refuses a hash twice within a generation only (`transactions` once refused
/// it outright); a transaction is applied once by the ledger's rules, its source's sequence
/// number consumed, and a submission already applied is answered from this lookup.
public struct HashGenerations: Equatable, Sendable {
    /// The hashes a generation holds unless a store is told otherwise: about 18 MB of SQLite's
    /// leaves, 20 MB of PostgreSQL's.
    public static let defaultSize = 1 << 18

    /// The most hashes a generation holds.
    public let size: Int64
    /// The generation new hashes go to.
    public private(set) var newest: Int64
    /// The hashes in it.
    public private(set) var held: Int64

    public init(size: Int64, newest: Int64, held: Int64) {
        precondition(size > 0, "a generation holds at least one hash")
        self.size = size
        self.newest = newest
        self.held = held
    }

    /// The generation for one more hash.
    public mutating func place() -> Int64 {
        if held >= size {
            newest += 1
            held = 0
        }
        held += 1
        return newest
    }
}

extension SQLiteLedgerStore {
    /// `tender serve`'s hashes a generation of `transaction_hashes` (``HashGenerations``).
    public static let defaultHashGenerationSize = HashGenerations.defaultSize

    /// The generation new hashes go to and the hashes it holds, in `store_counts`.
    static func hashGenerations(size: Int, _ db: Database) throws -> HashGenerations {
        let counts = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT name, n FROM store_counts WHERE name IN ('hash_generation', 'hashes_in_generation')"))
        var newest: Int64 = 0, held: Int64 = 0
        for row in counts {
            if (row[0] as String) == "hash_generation" { newest = row[1] } else { held = row[1] }
        }
        return HashGenerations(size: Int64(size), newest: newest, held: held)
    }

    /// Writes where the next hash goes back to `store_counts`.
    static func save(_ generations: HashGenerations, _ db: Database) throws {
        let update = try db.cachedStatement(sql: "UPDATE store_counts SET n = ? WHERE name = ?")
        try update.execute(arguments: [generations.newest, "hash_generation"])
        try update.execute(arguments: [generations.held, "hashes_in_generation"])
    }

    /// The ID of the transaction with `hash`: searched for in the newest generation of
    /// `transaction_hashes` (a transaction just applied is there), then in each older one whose
    /// filter may hold it (``HashFilters``: for most hashes no transaction has, none). Without
    /// filters yet (a build is begun here, in the background), the older generations are
    /// searched in one statement, SQLite searching each (generation, hash) in turn: 40 searches
    /// at ten million transactions, without a statement's overhead each.
    func transactionID(hash: Bytes32, _ db: Database) throws -> Int64? {
        let key = Data(hash.bytes)
        let newest = try Self.newestHashGeneration(db)
        let inGeneration = try db.cachedStatement(sql: "SELECT id FROM transaction_hashes WHERE generation = ? AND hash = ?")
        if let id = try Int64.fetchOne(inGeneration, arguments: [newest, key]) { return id }
        guard newest > 0 else { return nil }
        hashFilters.beginBuilding(below: newest, filter: generationFilter)
        let older = hashFilters.generations(toSearchFor: hash, below: newest)
        guard older.count < newest else {
            let inOlder = try db.cachedStatement(sql: """
                SELECT id FROM transaction_hashes WHERE hash = ?1 AND generation IN (
                    WITH RECURSIVE older(generation) AS (SELECT ?2 UNION ALL SELECT generation - 1 FROM older WHERE generation > 0)
                    SELECT generation FROM older
                ) LIMIT 1
                """)
            return try Int64.fetchOne(inOlder, arguments: [key, newest - 1])
        }
        for generation in older {
            if let id = try Int64.fetchOne(inGeneration, arguments: [generation, key]) { return id }
        }
        return nil
    }

    /// Builds a filter for each frozen generation of `transaction_hashes` that has none, or waits
    /// for the build under way (a lookup begins one in the background when it first needs them).
    public func buildHashFilters() async throws {
        let newest = try await database.read { db in try Self.newestHashGeneration(db) }
        try await hashFilters.build(below: newest, filter: generationFilter)
    }

    /// Reads a generation's hashes into a filter.
    private var generationFilter: @Sendable (Int64) async throws -> GenerationFilter {
        let database = self.database
        return { generation in try await database.read { db in try Self.hashFilter(generation: generation, db) } }
    }

    /// The generation new hashes go to.
    static func newestHashGeneration(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT n FROM store_counts WHERE name = 'hash_generation'")) ?? 0
    }

    /// A filter of the hashes generation `generation` holds.
    static func hashFilter(generation: Int64, _ db: Database) throws -> GenerationFilter {
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM transaction_hashes WHERE generation = ?", arguments: [generation]) ?? 0
        var filter = GenerationFilter(capacity: count)
        let rows = try Row.fetchCursor(db, sql: "SELECT hash FROM transaction_hashes WHERE generation = ?", arguments: [generation])
        while let row = try rows.next() {
            // The blob read in place: no copy, no Bytes32 a row (10 million rows took 33 s so).
            try row.withUnsafeData(atIndex: 0) { hash in
                guard let hash, hash.count == 32 else { throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "transaction_hashes holds a hash of \(hash?.count ?? 0) bytes") }
                hash.withUnsafeBytes { filter.insert(firstBytesOf: $0) }
            }
        }
        return filter
    }
}
