import Foundation
import GRDB
import StellarBase
@testable import Store
import TenderTesting
import Testing

/// The writer's rows bound through SQLite's API (``DirectStatement``) are the rows GRDB's
/// `execute(arguments:)` writes: the same storage class and the same value in every column.
@Suite("Rows bound straight through SQLite")
struct DirectStatementTests {
    let temporary = TemporaryDirectory("direct")

    /// Tender's VFS and page cache before this suite opens SQLite itself (SQLite takes a page
    /// cache only before anything in the process has used it).
    init() { TenderVFS.install() }

    static let columns = "a, b, c, d, e, f, g, h, i, j, k, l"
    static let insert = "INSERT INTO t (id, \(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

    /// A row of every kind the writer binds, written both ways.
    struct Sample {
        var int64: Int64, int: Int, int32: Int32, uint32: UInt32, flag: Bool, optional: Int64?
        var bytes: [UInt8], key: Bytes32, account: AccountID, json: [UInt8], text: String

        func viaGRDB(_ db: Database, id: Int) throws {
            try db.execute(sql: DirectStatementTests.insert, arguments: [
                id, int64, int, int32, uint32, flag, optional, Data(bytes), Data(key.bytes), Data(account.publicKey.bytes),
                String(decoding: json, as: UTF8.self), text, Data(bytes.reversed()),
            ])
        }

        func direct(_ statement: inout DirectStatement, id: Int) throws {
            statement.integer(id)
            statement.integer(int64)
            statement.integer(int)
            statement.integer(int32)
            statement.integer(uint32)
            statement.integer(flag)
            statement.integer(optional)
            statement.blob(bytes)
            statement.blob(key)
            statement.blob(account)
            statement.text(utf8: json)
            statement.text(text)
            statement.blob(Array(bytes.reversed()))
            try statement.run()
        }
    }

    static func samples() -> [Sample] {
        var generator = SystemRandomNumberGenerator()
        func key() -> Bytes32 { Bytes32(w0: generator.next(), w1: generator.next(), w2: generator.next(), w3: generator.next()) }
        var samples = [
            Sample(int64: .min, int: .max, int32: .min, uint32: .max, flag: true, optional: nil, bytes: [], key: .zero,
                   account: AccountID(publicKey: key()), json: [], text: ""),
            Sample(int64: .max, int: -1, int32: .max, uint32: 0, flag: false, optional: -7, bytes: [0], key: key(),
                   account: AccountID(publicKey: key()), json: Array(#"{"a":"é ✓ \"q\""}"#.utf8), text: "memo ✓ 'quoted'"),
        ]
        for size in [1, 31, 32, 33, 1_000, 70_000] {
            samples.append(Sample(
                int64: Int64.random(in: .min ... .max), int: Int.random(in: .min ... .max), int32: Int32.random(in: .min ... .max),
                uint32: UInt32.random(in: 0 ... .max), flag: Bool.random(), optional: Bool.random() ? nil : Int64.random(in: .min ... .max),
                bytes: (0..<size).map { _ in UInt8.random(in: 0...255) }, key: key(), account: AccountID(publicKey: key()),
                json: Array("{\"n\":\(size)}".utf8), text: String(repeating: "x", count: size % 100)))
        }
        return samples
    }

    @Test func directRowsAreTheRowsGRDBWrites() throws {
        let queue = try DatabaseQueue(path: temporary.file("t.sqlite"))
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a, b, c, d, e, f, g, h, i, j, k, l)")
            let samples = Self.samples()
            var statement = try DirectStatement(db, sql: Self.insert)
            for (index, sample) in samples.enumerated() {
                try sample.viaGRDB(db, id: 2 * index)
                try sample.direct(&statement, id: 2 * index + 1)
            }
            let described = Self.columns.split(separator: ",").map { "typeof(\($0)) || ':' || quote(\($0))" }.joined(separator: " || '|' || ")
            let rows = try String.fetchAll(db, sql: "SELECT \(described) FROM t ORDER BY id")
            #expect(rows.count == 2 * samples.count)
            for index in samples.indices {
                #expect(rows[2 * index] == rows[2 * index + 1], "sample \(index)")
            }
            // Empty bytes are an empty blob and empty text an empty string, never NULL.
            #expect(rows[1].contains("blob:X''"))
            #expect(rows[1].contains("text:''"))
            // A key's 32 bytes are its bytes in order.
            let key = try Data.fetchOne(db, sql: "SELECT h FROM t WHERE id = 3")
            #expect(key.map { [UInt8]($0) } == samples[1].key.bytes)
        }
    }

    @Test func aFailedRowThrowsSQLitesErrorAndTheNextRowIsWritten() throws {
        let queue = try DatabaseQueue(path: temporary.file("u.sqlite"))
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE u (k BLOB PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")
            var statement = try DirectStatement(db, sql: "INSERT INTO u (k, n) VALUES (?, ?)")
            statement.blob([1, 2, 3])
            statement.integer(1)
            try statement.run()
            statement.blob([1, 2, 3])
            statement.integer(2)
            #expect {
                try statement.run()
            } throws: { error in
                (error as? DatabaseError)?.resultCode == .SQLITE_CONSTRAINT && (error as? DatabaseError)?.message?.contains("UNIQUE") == true
            }
            statement.blob([4])
            statement.null()
            #expect(throws: DatabaseError.self) { try statement.run() }
            statement.blob([4])
            statement.integer(4)
            try statement.run()
            #expect(try Int.fetchAll(db, sql: "SELECT n FROM u ORDER BY k") == [1, 4])
        }
    }

    /// The same statement from GRDB's cache, stepped by GRDB after it was stepped directly, is
    /// ready: nothing is left bound or running.
    @Test func grdbRunsTheCachedStatementAfterward() throws {
        let queue = try DatabaseQueue(path: temporary.file("v.sqlite"))
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE v (n INTEGER)")
            let sql = "INSERT INTO v (n) VALUES (?)"
            var statement = try DirectStatement(db, sql: sql)
            statement.integer(1)
            try statement.run()
            try db.cachedStatement(sql: sql).execute(arguments: [2])
            statement.integer(3)
            try statement.run()
            #expect(try Int.fetchAll(db, sql: "SELECT n FROM v ORDER BY rowid") == [1, 2, 3])
        }
    }
}
