#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A database file mapped into memory for reading, shared by every connection of the process
/// that opened it: SQLite's reads of its pages are copies from the mapping instead of `pread`
/// calls.
///
/// On a grown network the writer reads B-tree leaves spread over gigabytes; each was a system
/// call through the kernel's page cache lookup. SQLite's own memory map would do the same but
/// covers at most 2 GB of a file (Debian's build caps `mmap_size` at 0x7fff0000), and its
/// writer takes only pages for reading from it. This map covers the file as it was when first
/// opened and room to grow past it (as much again, at least 4 GiB: address space, not memory),
/// and is read for every page either kind of connection reads; a file grown past the room is
/// read there with `pread`.
///
/// A read is served from the map only below ``validLength``, a length the file is known to
/// have (its size when mapped, a full read or a size query since); beyond it the read goes to
/// the file and, when it was full, raises the length. A truncation lowers it first, so no read
/// touches the map past the file's end (which would be a bus error). The mapping stays until
/// the last connection closes, so a copy in progress never loses its memory. Another process
/// cutting the file short while this one reads it is the hazard SQLite's own memory map has
/// too; the ledger's files only grow (no VACUUM, no auto-vacuum).
///
/// The file is mapped twice, from one descriptor. Read-only connections (a pool's readers)
/// read the second mapping, advised to be read at random (`MADV_RANDOM`): a page of it that is
/// not in the kernel's page cache is read alone. Left to the kernel's default, a miss in a
/// mapping reads the window around it, as wide as the disk's read-ahead (`read_ahead_kb`: 8 MiB
/// on the machine of docs/benchmarks.md's session 66), for a B-tree leaf of 1 KiB: on a grown
/// network whose pages the kernel had reclaimed, an account's history query that missed took
/// milliseconds. The writer (and any connection that may write) reads the first, with the
/// default: one thread that must reach leaves anywhere in the file commits faster when a miss
/// brings in its neighbours too (session 66 measured both). While a scan of the whole file runs
/// (loading the ledger's state), readers read the default mapping as well (``readingWhole(_:_:)``).
///
/// No descriptor is kept: a process's POSIX locks on a file go when it closes any descriptor
/// of it, so the map's descriptor is opened, mapped and closed at once, under the registry's
/// lock, by the first user, while no SQLite file of this VFS has the file open (SQLite opens
/// its own descriptor before it asks for the map and takes no lock until its open has returned).
final class DatabaseFileMap: @unchecked Sendable {
    /// The least room to grow a map leaves past the file's size when mapped.
    static let growthRoom = 4 << 30

    /// The file's device and inode: one map per file, however its path is spelled.
    let identity: FileIdentity
    /// The first byte of the mapping read the kernel's default way.
    let base: UnsafeMutableRawPointer
    /// The first byte of the mapping read at random (``read(into:count:at:atRandom:)``).
    let randomBase: UnsafeMutableRawPointer
    /// Bytes mapped from the file's start.
    let mappedLength: Int
    /// Bytes from the file's start a read may copy from the map.
    private let validLength = Atomic<Int>(0)
    /// Serializes changes of the valid length.
    private let change = Mutex(())
    /// Scans of the whole file in progress (``readingWhole(_:_:)``): while not zero, readers
    /// read the default mapping too.
    private let wholeReads = Atomic<Int>(0)

    struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// Maps the file at `path`; only under the registry's lock, with no user of the file open.
    private init?(path: String, identity: FileIdentity) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { _ = close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Self.identity(status) == identity else { return nil }
        let size = Int(status.st_size)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = (size + max(size, Self.growthRoom) + pageSize - 1) / pageSize * pageSize
        // Mapping past the file's end is allowed; only touching it is not, which the valid
        // length prevents.
        guard let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED else { return nil }
        guard let randomMapping = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0), randomMapping != MAP_FAILED else {
            _ = munmap(mapping, length)
            return nil
        }
        // Advice only: a kernel that does not take it reads as the other mapping does.
        _ = madvise(randomMapping, length, MADV_RANDOM)
        self.identity = identity
        base = mapping
        randomBase = randomMapping
        mappedLength = length
        validLength.store(size, ordering: .releasing)
    }

    private static func identity(_ status: stat) -> FileIdentity {
        FileIdentity(device: UInt64(truncatingIfNeeded: status.st_dev), inode: UInt64(truncatingIfNeeded: status.st_ino))
    }

    /// Copies `count` bytes at `offset` from the map into `destination` (from the mapping read
    /// at random when `atRandom`), when the file is known to hold them; false (nothing copied)
    /// otherwise.
    func read(into destination: UnsafeMutableRawPointer, count: Int, at offset: Int, atRandom: Bool = false) -> Bool {
        guard offset >= 0, count > 0, offset + count <= validLength.load(ordering: .acquiring) else { return false }
        let random = atRandom && wholeReads.load(ordering: .relaxed) == 0
        destination.copyMemory(from: (random ? randomBase : base).advanced(by: offset), byteCount: count)
        return true
    }

    /// The file holds at least `length` bytes: reads below it (within the map) may use the map.
    func fileHolds(_ length: Int) {
        let covered = min(length, mappedLength)
        guard covered > validLength.load(ordering: .relaxed) else { return }
        change.withLock { _ in
            if covered > validLength.load(ordering: .relaxed) { validLength.store(covered, ordering: .releasing) }
        }
    }

    /// The file is about to be cut to `length` bytes: reads past it go to the file from now on.
    func willTruncate(to length: Int) {
        change.withLock { _ in
            if length < validLength.load(ordering: .relaxed) { validLength.store(max(length, 0), ordering: .releasing) }
        }
    }

    // MARK: One map per file, shared

    /// The files mapped, each with its number of users (open SQLite files).
    private static let registry = Mutex<[FileIdentity: (map: DatabaseFileMap, users: Int)]>([:])

    /// The map of the file at `path`, made on its first user; nil when the file cannot be mapped.
    static func acquire(_ path: String) -> DatabaseFileMap? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let identity = Self.identity(status)
        return registry.withLock { open in
            if let entry = open[identity] {
                open[identity] = (entry.map, entry.users + 1)
                return entry.map
            }
            guard let map = DatabaseFileMap(path: path, identity: identity) else { return nil }
            open[identity] = (map, 1)
            return map
        }
    }

    /// Runs `body` over a read-only mapping of the file at `path` and its size: the map's own
    /// when this process has the file open through this VFS (the first `size` bytes of it, at
    /// most its mapped length), else one made for it (its descriptor opened and closed while no
    /// SQLite file of this VFS can open the file). Nil when the file cannot be mapped.
    static func withMapping<T>(of path: String, _ body: (UnsafeRawPointer, Int) -> T?) -> T? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return registry.withLock { mapped -> T? in
            if let entry = mapped[identity(status)] {
                return body(entry.map.base, min(Int(status.st_size), entry.map.mappedLength))
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { _ = close(descriptor) }
            guard fstat(descriptor, &status) == 0 else { return nil }
            let size = Int(status.st_size)
            guard size > 0 else { return body(UnsafeRawPointer(bitPattern: 1)!, 0) }
            guard let mapping = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED else { return nil }
            defer { _ = munmap(mapping, size) }
            return body(mapping, size)
        }
    }

    /// Runs `body`, a scan that reads (nearly) every page of the file at `path`, with this
    /// process's readers of it reading the default mapping while it runs: a page missing from the
    /// page cache brings in the read-ahead window around it, so a file not yet in memory comes in
    /// by large reads (ten million accounts loaded from a cold file in 33 s, against 92 s a page
    /// at a time; session 66). Without a map of the file (none of this VFS's connections has it
    /// open) `body` just runs: no map is made here, as making one opens and closes a descriptor.
    static func readingWhole<T>(_ path: String, _ body: () throws -> T) rethrows -> T {
        var status = stat()
        let map: DatabaseFileMap? = stat(path, &status) != 0 ? nil : registry.withLock { open in
            guard let entry = open[identity(status)] else { return nil }
            // Counted as a user too: the map stays mapped until the scan's end.
            open[entry.map.identity] = (entry.map, entry.users + 1)
            entry.map.wholeReads.add(1, ordering: .relaxed)
            return entry.map
        }
        guard let map else { return try body() }
        defer {
            map.wholeReads.subtract(1, ordering: .relaxed)
            release(map)
        }
        return try body()
    }

    /// A user of the map closed its file (after SQLite closed it); the last one unmaps it.
    static func release(_ map: DatabaseFileMap) {
        registry.withLock { open in
            guard let entry = open[map.identity], entry.map === map else { return }
            if entry.users > 1 {
                open[map.identity] = (map, entry.users - 1)
            } else {
                open[map.identity] = nil
                map.validLength.store(0, ordering: .releasing)
                _ = munmap(map.base, map.mappedLength)
                _ = munmap(map.randomBase, map.mappedLength)
            }
        }
    }
}
