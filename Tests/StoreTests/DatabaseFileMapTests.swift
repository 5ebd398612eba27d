import Foundation
import GRDB
import TenderTesting
import Testing
@testable import Store

/// A main database file's pages are read through one memory map per file (issue 30: on a grown
/// network the writer's `pread` calls for cold B-tree leaves, and the host paging out the file's
/// idle unmapped pages, held commits back), and what every connection reads stays exactly
/// what the file holds as it grows and shrinks.
@Suite("Database file map")
struct DatabaseFileMapTests {
    let temporary = TemporaryDirectory("file-map")

    init() { TenderVFS.install() }

    /// A file of `count` bytes, each byte a function of its offset.
    func file(bytes count: Int) throws -> String {
        let path = temporary.file("\(UUID().uuidString).bin")
        try Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 12) }).write(to: URL(fileURLWithPath: path))
        return path
    }

    func expected(_ offset: Int, _ count: Int) -> [UInt8] {
        (offset..<offset + count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 12) }
    }

    /// Whether the map copied the bytes and they are the file's: nil when it did not copy.
    func read(_ map: DatabaseFileMap, _ offset: Int, _ count: Int) -> Bool? {
        var bytes = [UInt8](repeating: 0, count: count)
        let copied = bytes.withUnsafeMutableBytes { map.read(into: $0.baseAddress!, count: count, at: offset) }
        return copied ? bytes == expected(offset, count) : nil
    }

    @Test func itReadsOnlyWhatTheFileIsKnownToHold() throws {
        let path = try file(bytes: 3 * 4_096)
        let map = try #require(DatabaseFileMap.acquire(path))
        defer { DatabaseFileMap.release(map) }
        #expect(map.mappedLength >= 3 * 4_096 + DatabaseFileMap.growthRoom)
        // Its size when mapped is known.
        #expect(read(map, 0, 100) == true)
        #expect(read(map, 2 * 4_096, 4_096) == true)
        #expect(read(map, 2 * 4_096, 4_097) == nil, "past the known length")
        // Grown by another writer: read from the map once the file is known to hold it.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: expected(3 * 4_096, 2 * 4_096))
        try handle.close()
        #expect(read(map, 3 * 4_096, 4_096) == nil)
        map.fileHolds(5 * 4_096)
        #expect(read(map, 4 * 4_096, 4_096) == true)
        // A length already known changes nothing; one past the map is capped at it.
        map.fileHolds(10)
        #expect(read(map, 4 * 4_096, 4_096) == true)
        map.fileHolds(map.mappedLength + 4_096)
        #expect(read(map, map.mappedLength - 100, 200) == nil, "past the map")
        // A truncation takes the tail away.
        map.willTruncate(to: 4 * 4_096)
        #expect(read(map, 4 * 4_096, 4_096) == nil)
        #expect(read(map, 4_096, 4_096) == true)
    }

    /// One map per file, by device and inode: its descriptor is closed only when no SQLite file
    /// of this VFS has the file open (closing any descriptor of a file drops the process's locks on it).
    @Test func everyUserOfAFileSharesOneMap() throws {
        let path = try file(bytes: 4_096)
        let first = try #require(DatabaseFileMap.acquire(path))
        let second = try #require(DatabaseFileMap.acquire(path))
        #expect(first === second)
        // The same file by another path (a symbolic link): the same map, as it is the same file.
        let link = temporary.file("\(UUID().uuidString).link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let linked = try #require(DatabaseFileMap.acquire(link))
        #expect(linked === first)
        DatabaseFileMap.release(linked)
        DatabaseFileMap.release(first)
        // One user left: still the same map.
        let third = try #require(DatabaseFileMap.acquire(path))
        #expect(third === second)
        DatabaseFileMap.release(second)
        DatabaseFileMap.release(third)
        // The last one let go: a new user gets a new map.
        let fourth = try #require(DatabaseFileMap.acquire(path))
        #expect(fourth !== first)
        DatabaseFileMap.release(fourth)
        #expect(DatabaseFileMap.acquire(temporary.file("missing.sqlite")) == nil)
    }

    /// A pool's readers and writer and another queue read a database of several megabytes,
    /// grown by checkpoints after the map was made, cut short by a VACUUM and grown again: every row
    /// reads back as written, most page reads are copies from the map, and the file is whole.
    @Test func connectionsReadExactlyWhatTheFileHoldsAsItGrowsAndShrinks() throws {
        let path = temporary.file("\(UUID().uuidString).sqlite")
        TenderVFS.watch(path)
        let pool = try DatabasePool(path: path)
        func body(_ n: Int) -> Data { Data((0..<900).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ n) }) }
        func insert(_ range: Range<Int>) throws {
            try pool.write { db in
                for n in range { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [n, body(n)]) }
            }
            try pool.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        }
        func check(_ reader: any DatabaseReader, _ expected: [Int]) throws {
            try reader.read { db in
                let rows = try Row.fetchAll(db, sql: "SELECT n, body FROM t ORDER BY n")
                #expect(rows.map { $0["n"] as Int } == expected)
                #expect(rows.allSatisfy { ($0["body"] as Data) == body($0["n"]) })
                #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            }
        }
        try pool.write { try $0.execute(sql: "CREATE TABLE t (n INTEGER PRIMARY KEY, body BLOB NOT NULL)") }
        try insert(0..<3_000)
        let other = try DatabaseQueue(path: path)
        try check(pool, Array(0..<3_000))
        try check(other, Array(0..<3_000))
        // Grown past the next chunk while both are open: the new pages read right.
        try insert(3_000..<9_000)
        let size = { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        #expect(size() > 8 << 20)
        try check(pool, Array(0..<9_000))
        try check(other, Array(0..<9_000))
        // Most rows deleted and the file rewritten shorter: nothing reads past its end.
        try pool.write { try $0.execute(sql: "DELETE FROM t WHERE n % 10 != 0") }
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM")
            _ = try db.checkpoint(.truncate)
        }
        #expect(size() < 4 << 20)
        let kept = Array(stride(from: 0, to: 9_000, by: 10))
        try check(pool, kept)
        try check(other, kept)
        // And grown again over what was cut.
        try insert(9_000..<15_000)
        try check(pool, kept + Array(9_000..<15_000))
        try check(other, kept + Array(9_000..<15_000))
        try other.close()
        try pool.close()
        let statistics = try #require(TenderVFS.statistics(path))
        #expect(statistics.mappedReads > 5_000 && statistics.mappedReads > 4 * statistics.fileReads, "\(statistics)")
    }

    #if os(Linux)
    /// Whether this process holds a lock on the bytes of the SQLite database open at
    /// `descriptor` that every reader locks (its SHARED range): an open-file-description lock
    /// test, which sees the process's own POSIX locks.
    func sharedLockHeld(_ descriptor: Int32) -> Bool? {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0x4000_0002
        lock.l_len = 510
        // F_OFD_GETLK: the conflicting lock, or F_UNLCK when there is none.
        guard fcntl(descriptor, 36, &lock) == 0 else { return nil }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// The values of `key` (`VmFlags:`, `Rss:`) in `/proc/self/smaps` for this process's mapping
    /// that holds `address`. `/proc/self/smaps` is read to its end: it reports no size, so
    /// Foundation's whole-file reads see nothing.
    func mapping(_ address: UnsafeMutableRawPointer, _ key: Substring) throws -> [Substring] {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps"))
        defer { try? handle.close() }
        let smaps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        let target = UInt(bitPattern: address)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, let dash = range.firstIndex(of: "-"),
               let start = UInt(range[..<dash], radix: 16), let end = UInt(range[range.index(after: dash)...], radix: 16) {
                inside = start <= target && target < end
            } else if inside, fields.first == key {
                return Array(fields.dropFirst())
            }
        }
        throw CancellationError()
    }

    /// The kernel's flags of the mapping that holds `address`: `rr` when it is advised to be
    /// read at random.
    func mappingFlags(_ address: UnsafeMutableRawPointer) throws -> [Substring] { try mapping(address, "VmFlags:") }

    /// KiB of the file this process has mapped in at `base` (`Rss` of its mapping).
    func resident(_ base: UnsafeMutableRawPointer) throws -> Int {
        guard let kilobytes = try mapping(base, "Rss:").first.flatMap({ Int($0) }) else { throw CancellationError() }
        return kilobytes
    }

    /// Read-only connections read a mapping advised to be read at random, so a page missing from
    /// the page cache is read alone (not the disk's read-ahead window around it: 8 MiB on session
    /// 66's machine); the writer's is read the kernel's default way, and readers read that one
    /// too while a scan of the whole file (the ledger's state loaded) runs, however many overlap;
    /// the scan holds the map mapped.
    @Test func readersReadTheFileAtRandomButForAScanOfTheWholeFile() throws {
        let path = try file(bytes: 8 * 4_096)
        let map = try #require(DatabaseFileMap.acquire(path))
        #expect(try mappingFlags(map.randomBase).contains("rr"))
        #expect(try mappingFlags(map.base).contains("rr") == false)
        /// Reads page `page` as a reader does; whether the bytes are the file's.
        func readAtRandom(_ page: Int) -> Bool {
            var bytes = [UInt8](repeating: 0, count: 4_096)
            let copied = bytes.withUnsafeMutableBytes { map.read(into: $0.baseAddress!, count: 4_096, at: page * 4_096, atRandom: true) }
            return copied && bytes == expected(page * 4_096, 4_096)
        }
        #expect(readAtRandom(0))
        let (randomBefore, defaultBefore) = (try resident(map.randomBase), try resident(map.base))
        #expect(randomBefore >= 4 && defaultBefore == 0)
        let found = try DatabaseFileMap.readingWhole(path) { () throws -> Int in
            #expect(readAtRandom(2))
            try DatabaseFileMap.readingWhole(path) { #expect(readAtRandom(4)) }
            #expect(readAtRandom(6), "another scan still runs")
            #expect(try resident(map.base) >= 3 * 4, "the scans' reads went to the default mapping")
            // Its last user gone mid-scan: the scan still reads through the map.
            DatabaseFileMap.release(map)
            #expect(readAtRandom(7))
            return 7
        }
        #expect(found == 7)
        // The scan was the last user: the map is gone, and a new one's readers read at random.
        let again = try #require(DatabaseFileMap.acquire(path))
        defer { DatabaseFileMap.release(again) }
        #expect(again !== map)
        #expect(try mappingFlags(again.randomBase).contains("rr"))
        // A file no connection has mapped: the scan just runs.
        #expect(DatabaseFileMap.readingWhole(try file(bytes: 4_096)) { 8 } == 8)
    }

    /// A pool's readers open the database read-only and read the mapping read at random; a
    /// connection that may write (a pool's writer, a queue) reads the other.
    @Test func readOnlyConnectionsReadAtRandomAndWritersDoNot() throws {
        let path = temporary.file("\(UUID().uuidString).sqlite")
        let pool = try DatabasePool(path: path)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE t (n INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            for n in 0..<2_000 { try db.execute(sql: "INSERT INTO t VALUES (?, zeroblob(900))", arguments: [n]) }
        }
        try pool.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        let map = try #require(DatabaseFileMap.acquire(path))
        defer { DatabaseFileMap.release(map) }
        let (randomBefore, defaultBefore) = (try resident(map.randomBase), try resident(map.base))
        #expect(try pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t WHERE length(body) = 900") } == 2_000)
        let (randomAfterRead, defaultAfterRead) = (try resident(map.randomBase), try resident(map.base))
        #expect(randomAfterRead > randomBefore + 1_000, "a reader's scan maps in the file's pages at random")
        #expect(defaultAfterRead == defaultBefore)
        // A connection that may write (a queue's), new, so its pages come from the file.
        let queue = try DatabaseQueue(path: path)
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t WHERE length(body) = 900") } == 2_000)
        #expect(try resident(map.base) > defaultAfterRead + 1_000, "a connection that may write reads the default mapping")
        #expect(try resident(map.randomBase) == randomAfterRead)
        try queue.close()
        try pool.close()
    }

    /// Looking at the page cache of a file a store has open keeps the store's locks: a process
    /// loses all its POSIX locks on a file when it closes any descriptor of it.
    @Test func aLookAtTheFilesPageCacheKeepsTheStoresLocks() throws {
        let path = temporary.file("\(UUID().uuidString).sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (n INTEGER PRIMARY KEY)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        // The test's own descriptor, closed only once the store has closed.
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try queue.inDatabase { db in
            try db.inTransaction(.deferred) {
                let n = try Int.fetchOne(db, sql: "SELECT n FROM t")
                #expect(n == 1)
                #expect(sharedLockHeld(descriptor) == true, "a read transaction holds its SHARED lock")
                #expect(PageCache.residentShare(path) != nil)
                #expect(sharedLockHeld(descriptor) == true, "still held after the look")
                return .commit
            }
        }
        #expect(sharedLockHeld(descriptor) == false)
        try queue.close()
    }
    #endif
}
