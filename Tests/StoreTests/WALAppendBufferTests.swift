import Foundation
import GRDB
import GRDBSQLite
import TenderTesting
import Testing
@testable import Store

/// A connection's WAL appends are gathered and written out in few calls (issue 30: two
/// `pwrite` calls a page were a fifth of the server's time under load), and nothing another
/// connection can see, nor anything that survives a reopening, changes.
@Suite("WAL append buffer")
struct WALAppendBufferTests {
    let temporary = TemporaryDirectory("wal-buffer")

    init() { TenderVFS.install() }

    /// A database in WAL mode whose WAL file's statistics are kept, with a table of blobs.
    func database(_ configure: (inout Configuration) -> Void = { _ in }) throws -> (pool: DatabasePool, wal: String) {
        let path = temporary.file("\(UUID().uuidString).sqlite")
        TenderVFS.watch(path + "-wal")
        var configuration = Configuration()
        configure(&configuration)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { try $0.execute(sql: "CREATE TABLE t (n INTEGER PRIMARY KEY, body BLOB NOT NULL)") }
        return (pool, path + "-wal")
    }

    func rows(_ range: Range<Int>) -> [(Int, Data)] {
        range.map { n in (n, Data((0..<700).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) })) }
    }

    @Test func itIsTheProcesssDefaultVFS() throws {
        #expect(TenderVFS.install())
        let vfs = try #require(sqlite3_vfs_find(nil))
        #expect(String(cString: vfs.pointee.zName) == TenderVFS.name)
        // A second install keeps the one there (no VFS over itself).
        #expect(TenderVFS.install())
        #expect(sqlite3_vfs_find(nil) == vfs)
    }

    /// A benchmark times each sync: the WAL's at each commit with synchronous=FULL, the database
    /// file's at a checkpoint; none is recorded once it stops.
    @Test func syncsAreTimedWhileRecorded() throws {
        let (pool, _) = try database()
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        TenderVFS.startRecordingSyncs()
        for round in 0..<3 {
            try pool.write { db in
                for (n, body) in rows(round * 10..<(round + 1) * 10) { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [n, body]) }
            }
        }
        try pool.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        let recorded = TenderVFS.stopRecordingSyncs()
        #expect(recorded.wal.count >= 3, "\(recorded.wal.count) WAL syncs for three commits")
        #expect(recorded.database.count >= 1, "\(recorded.database.count) database file syncs for a checkpoint")
        #expect(recorded.wal.allSatisfy { $0 >= 0 } && recorded.database.allSatisfy { $0 >= 0 })
        try pool.write { db in
            for (n, body) in rows(30..<40) { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [n, body]) }
        }
        #expect(TenderVFS.stopRecordingSyncs() == recorded)
        try pool.close()
    }

    /// A transaction of a few hundred pages: SQLite makes two writes a frame, the file gets one
    /// each 96 KiB and one at the commit.
    @Test func aCommitsFramesReachTheFileInFewWrites() throws {
        let (pool, wal) = try database()
        try pool.write { db in
            for (n, body) in rows(0..<2_000) { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [n, body]) }
        }
        let walBytes = try #require(try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int)
        try pool.close()
        let statistics = try #require(TenderVFS.statistics(wal))
        #expect(statistics.writes > 2 * (walBytes / 4_200), "\(statistics.writes) writes for \(walBytes) bytes of WAL")
        #expect(statistics.fileWrites <= walBytes / (80 << 10) + 8, "\(statistics.fileWrites) writes reached the file of \(statistics.writes)")
    }

    /// GRDB's pool writes with synchronous=NORMAL: no sync at a commit, so the commit frame alone
    /// must send the transaction to the file before SQLite publishes it in the WAL index, where
    /// another connection (here a reader of the pool and a queue of its own) looks for it.
    @Test(arguments: ["NORMAL", "FULL"])
    func committedFramesAreInTheFileForOtherConnections(synchronous: String) throws {
        let (pool, wal) = try database()
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = \(synchronous)") }
        let other = try DatabaseQueue(path: String(wal.dropLast(4)))
        for round in 0..<20 {
            let batch = rows(round * 50..<(round + 1) * 50)
            try pool.write { db in
                for (n, body) in batch { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [n, body]) }
            }
            for reader in [pool as any DatabaseReader, other] {
                let read = try reader.read { db in try Row.fetchAll(db, sql: "SELECT n, body FROM t WHERE n >= ? ORDER BY n", arguments: [round * 50]) }
                #expect(read.map { $0["n"] as Int } == batch.map(\.0))
                #expect(read.map { $0["body"] as Data } == batch.map(\.1))
            }
        }
        try other.close()
        try pool.close()
    }

    /// Transactions large and small, a rollback, the WAL rewound by a checkpoint and written
    /// again from its start, all with GRDB's synchronous=NORMAL (no sync at a commit): a copy of
    /// the files taken between two transactions (what a crash leaves) recovers exactly what was
    /// committed from the WAL, and so does the database reopened after a clean close.
    @Test func whatIsCommittedSurvivesACrashAndAReopening() throws {
        let (pool, wal) = try database { configuration in
            configuration.prepareDatabase { try $0.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        }
        let path = String(wal.dropLast(4))
        try pool.write { db in
            for (n, body) in rows(0..<1_500) { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [n, body]) }
        }
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            try pool.write { db in
                for (n, body) in rows(1_500..<1_600) { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [n, body]) }
                throw Abandoned()
            }
        }
        try pool.writeWithoutTransaction { try $0.checkpoint(.restart) }
        for (n, body) in rows(1_500..<1_520) { try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [n, body]) } }
        try pool.write { try $0.execute(sql: "DELETE FROM t WHERE n % 3 = 0") }
        let expected = rows(0..<1_520).filter { $0.0 % 3 != 0 }

        let copy = temporary.file("\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: wal, toPath: copy + "-wal")
        try pool.close()
        #expect(try #require(TenderVFS.statistics(wal)).fileWrites > 0)
        for file in [copy, path] {
            let reopened = try DatabaseQueue(path: file)
            let stored = try reopened.read { db in try Row.fetchAll(db, sql: "SELECT n, body FROM t ORDER BY n") }
            #expect(stored.map { $0["n"] as Int } == expected.map(\.0), "\(file)")
            #expect(stored.map { $0["body"] as Data } == expected.map(\.1))
            #expect(try reopened.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
            try reopened.close()
        }
    }
}
