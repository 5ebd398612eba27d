import Foundation
import GRDB
import TenderTesting
import Testing
@testable import Store

/// The page cache's truncations that can drop nothing are skipped (issue 30: SQLite's own cache
/// walked the writer's every page at nearly every commit on a database under 1 GiB), and
/// nothing a database holds changes.
@Suite("Tender's page cache")
struct TenderPageCacheTests {
    let temporary = TemporaryDirectory("page-cache")

    init() { TenderVFS.install() }

    /// The lock byte's page with 1 KiB pages, where SQLite's B-tree parks a page it swaps.
    let parking: UInt32 = (0x4000_0000 / 1024) + 1

    @Test func aNewCacheHoldsNothing() {
        let bound = PageKeyBound()
        #expect(!bound.mayHold(atOrAbove: 1))
        #expect(bound.mayHold(atOrAbove: 0))
    }

    @Test func fetchedPagesBoundTheCache() {
        var bound = PageKeyBound()
        for key in [3, 1, 100, 7] as [UInt32] { bound.fetched(key) }
        #expect(bound.highest == 100)
        #expect(bound.mayHold(atOrAbove: 100))
        #expect(!bound.mayHold(atOrAbove: 101))
    }

    /// `balance_nonroot`'s swap of pages 40 and 10: 40 parked, 10 moved to 40, the parked page
    /// to 10. Nothing is left above the database's end, so the commit's truncation is skipped.
    @Test func aSwapThroughTheParkingPageLeavesNothingAbove() {
        var bound = PageKeyBound()
        for key in 1...100 as ClosedRange<UInt32> { bound.fetched(key) }
        bound.moved(from: 40, to: parking)
        #expect(bound.mayHold(atOrAbove: 101), "a page is parked above the end")
        bound.moved(from: 10, to: 40)
        bound.moved(from: parking, to: 10)
        #expect(bound.parked.isEmpty)
        #expect(bound.highest == 100)
        #expect(!bound.mayHold(atOrAbove: 101))
    }

    /// Two pages parked at one key need two moves away from it.
    @Test func parkedPagesAreCounted() {
        var bound = PageKeyBound()
        bound.fetched(50)
        bound.moved(from: 5, to: parking)
        bound.moved(from: 6, to: parking)
        bound.moved(from: parking, to: 5)
        #expect(bound.mayHold(atOrAbove: 51))
        bound.moved(from: parking, to: 6)
        #expect(!bound.mayHold(atOrAbove: 51))
    }

    /// A page moved past the end and left there (SQLite never does this, but the bound must not
    /// lose it): the truncation is passed on, and after it nothing is above the limit.
    @Test func aPageLeftPastTheEndIsTruncated() {
        var bound = PageKeyBound()
        bound.fetched(100)
        bound.moved(from: 20, to: 5_000)
        #expect(bound.mayHold(atOrAbove: 101))
        #expect(bound.mayHold(atOrAbove: 5_000))
        #expect(!bound.mayHold(atOrAbove: 5_001))
        bound.truncated(below: 101)
        #expect(bound.parked.isEmpty)
        #expect(bound.highest == 100)
        #expect(!bound.mayHold(atOrAbove: 101))
    }

    /// A rolled-back transaction that grew the database: its new pages lie past the restored
    /// end and are truncated; a truncation to 0 empties the bound.
    @Test func aShrunkDatabaseIsTruncated() {
        var bound = PageKeyBound()
        for key in 1...120 as ClosedRange<UInt32> { bound.fetched(key) }
        #expect(bound.mayHold(atOrAbove: 101))
        bound.truncated(below: 101)
        #expect(bound.highest == 100)
        #expect(!bound.mayHold(atOrAbove: 101))
        bound.truncated(below: 0)
        #expect(bound.highest == 0)
        #expect(!bound.mayHold(atOrAbove: 1))
    }

    /// Random keys split pages all over an index (where SQLite swaps pages into order), across
    /// many transactions and a rolled-back one that grew the file: the commits' truncations are
    /// skipped, and every row reads back, through the same connection and a new one, with the
    /// file's integrity intact.
    @Test func aDatabaseUnderTheCacheReadsBackWhatWasWritten() async throws {
        #expect(TenderPageCache.isInstalled, "nothing used SQLite before the first store or suite installed Tender's VFS")
        let path = temporary.file("\(UUID().uuidString).sqlite")
        var configuration = Configuration()
        configuration.prepareDatabase { try $0.execute(sql: "PRAGMA page_size = 1024") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { try $0.execute(sql: "CREATE TABLE t (k BLOB PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID") }
        var generator = SystemRandomNumberGenerator()
        var written: [Data: Int] = [:]
        let before = TenderPageCache.truncations
        for round in 0..<40 {
            let rows = (0..<100).map { n in (Data((0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }), round * 100 + n) }
            try await pool.write { db in
                for (key, n) in rows { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [key, n]) }
            }
            for (key, n) in rows { written[key] = n }
        }
        let after = TenderPageCache.truncations
        #expect(after.skipped - before.skipped >= 40, "\(after.skipped - before.skipped) of this suite's 40 commits' truncations skipped")
        // A transaction that grows the file by hundreds of pages, rolled back.
        struct Abandoned: Error {}
        await #expect(throws: Abandoned.self) {
            try await pool.write { db in
                for n in 0..<2_000 { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [Data("abandoned-\(n)".utf8), -n]) }
                throw Abandoned()
            }
        }
        try await pool.write { db in
            for n in 0..<500 { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [Data("kept-\(n)".utf8), 10_000 + n]) }
        }
        for n in 0..<500 { written[Data("kept-\(n)".utf8)] = 10_000 + n }
        func check(_ reader: any DatabaseReader) throws {
            let rows = try reader.read { db in try Row.fetchAll(db, sql: "SELECT k, n FROM t") }
            #expect(rows.count == written.count)
            #expect(Dictionary(uniqueKeysWithValues: rows.map { ($0["k"] as Data, $0["n"] as Int) }) == written)
            #expect(try reader.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
        }
        try check(pool)
        try pool.close()
        let reopened = try DatabaseQueue(path: path)
        try check(reopened)
        try reopened.close()
    }
}
