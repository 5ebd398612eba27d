import Foundation
import Testing
@testable import Store
#if canImport(Glibc)
import Glibc
#endif

/// `bench scale` reports how much of the ledger's file the page cache holds when a measure
/// starts (issue 30: on a grown network, a leaf read from disk holds every commit behind it).
@Suite("Page cache residency")
struct PageCacheTests {
    @Test func aFileJustWrittenIsWhollyInTheCache() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tender-pagecache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Past a page and not a multiple of one: the last page's part counts only to the end.
        let path = directory.appendingPathComponent("file").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 3 << 20 | 123)))
        #expect(PageCache.residentBytes(path) == 3 << 20 | 123)
        #expect(PageCache.residentShare(path) == 1)
        let empty = directory.appendingPathComponent("empty").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(PageCache.residentBytes(empty) == 0)
        #expect(PageCache.residentShare(empty) == 1)
        #expect(PageCache.residentBytes(directory.appendingPathComponent("missing").path) == nil)
        #expect(PageCache.residentShare(directory.appendingPathComponent("missing").path) == nil)
        #if os(Linux)
        // Synced, then dropped from the cache: no longer counted (tmpfs keeps its pages in the
        // cache, being nothing else).
        if try fileSystem(of: directory.path) != "tmpfs" {
            let fd = open(path, O_RDONLY)
            #expect(fd >= 0)
            #expect(fsync(fd) == 0)
            #expect(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
            close(fd)
            #expect(PageCache.residentBytes(path)! < 3 << 20)
            #expect(PageCache.residentShare(path)! < 1)
            _ = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(PageCache.residentBytes(path) == 3 << 20 | 123)
        }
        #endif
    }

    /// The type of the file system holding `path`: that of the longest mount point above it.
    func fileSystem(of path: String) throws -> String? {
        let mounts = try String(contentsOfFile: "/proc/mounts", encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ") }
        return mounts.filter { $0.count > 2 && (path + "/").hasPrefix($0[1] == "/" ? "/" : $0[1] + "/") }
            .max { $0[1].count < $1[1].count }.map { String($0[2]) }
    }
}
