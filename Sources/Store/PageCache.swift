import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The kernel's page cache, which holds a database's pages between reads.
///
/// On a grown network a payment lands on random leaves of the account, history and hash
/// B-trees; a leaf the page cache does not hold is read from disk first, on the writer's
/// thread, while every commit behind it waits. How much of the ledger's file the cache holds
/// when a measure starts says how many of those reads it will meet.
public enum PageCache {
    /// The bytes of the file at `path` the page cache holds now (`mincore` over a mapping of
    /// it, which reads nothing in); nil when it cannot be opened or mapped.
    static func residentBytes(_ path: String) -> Int? { resident(path)?.bytes }

    /// The share of the file at `path` the page cache holds now, from 0 to 1 (an empty file: 1);
    /// nil when it cannot be opened or mapped.
    public static func residentShare(_ path: String) -> Double? {
        resident(path).map { $0.size == 0 ? 1 : Double($0.bytes) / Double($0.size) }
    }

    /// The bytes resident and the file's size, both of one look.
    private static func resident(_ path: String) -> (bytes: Int, size: Int)? {
        // Over the store's own map when it has the file open: a descriptor of the probe's own,
        // closed, would drop this process's locks on the file.
        DatabaseFileMap.withMapping(of: path) { resident(mapping: $0, size: $1) }
    }

    private static func resident(mapping: UnsafeRawPointer, size: Int) -> (bytes: Int, size: Int)? {
        guard size > 0 else { return (0, 0) }
        let mapping = UnsafeMutableRawPointer(mutating: mapping)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let pages = (size + pageSize - 1) / pageSize
        var resident = [UInt8](repeating: 0, count: pages)
        let answered = resident.withUnsafeMutableBytes { vector in
            #if canImport(Glibc)
            mincore(mapping, size, vector.baseAddress!.assumingMemoryBound(to: UInt8.self))
            #else
            mincore(mapping, size, vector.baseAddress!.assumingMemoryBound(to: CChar.self))
            #endif
        }
        guard answered == 0 else { return nil }
        // The low bit of each page's byte: in the cache.
        return (min(size, resident.reduce(0) { $0 + Int($1 & 1) } * pageSize), size)
    }
}
