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
/// writer takes only pages for reading from it. The map covers the whole file, in chunks
/// mapped as the file is found to be longer, and is read for every page either kind of
/// connection reads.
///
/// A read is served from the map only below ``validLength``, a length the file is known to
/// have (a full read or a size query said so); beyond it the read goes to the file and, when
/// it was full, raises the length. A truncation lowers it first, so no read touches the map
/// past the file's end (which would be a bus error). Chunks stay mapped until the last
/// connection closes, so a copy in progress never loses its memory. Another process cutting
/// the file short while this one reads it is the hazard SQLite's own memory map has too; the
/// ledger's files only grow (no VACUUM, no auto-vacuum).
final class DatabaseFileMap: @unchecked Sendable {
    /// Bytes a chunk maps (a multiple of every page size SQLite allows, so a page read never
    /// spans two).
    static let chunkBytes = 4 << 20
    /// The most chunks a file has: files longer than 1 TiB are read past it by `pread`.
    static let maximumChunks = 1 << 18

    /// The file's device and inode: one map per file, however its path is spelled.
    let identity: FileIdentity
    /// The file, open to map further chunks from until the last user lets go (under the
    /// registry's lock: see ``release(_:)``).
    private let descriptor: Int32
    /// Each chunk's mapping, set once (under `growth`) before ``validLength`` covers it.
    private let chunks: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// How many leading chunks are mapped.
    private var mappedChunks = 0
    private let growth = Mutex(())
    /// Bytes from the file's start a read may copy from the map.
    private let validLength = Atomic<Int>(0)

    struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private init?(path: String, identity: FileIdentity) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Self.identity(status) == identity,
              let chunks = calloc(Self.maximumChunks, MemoryLayout<UnsafeMutableRawPointer?>.stride) else {
            // The registry's lock is held and no user of this file has it open through this
            // VFS, so closing takes no lock of theirs away.
            _ = close(descriptor)
            return nil
        }
        self.identity = identity
        self.descriptor = descriptor
        self.chunks = chunks.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    private static func identity(_ status: stat) -> FileIdentity {
        FileIdentity(device: UInt64(truncatingIfNeeded: status.st_dev), inode: UInt64(truncatingIfNeeded: status.st_ino))
    }

    /// Unmaps the file and closes its descriptor: only from ``release(_:)``, for the last user.
    private func dispose() {
        validLength.store(0, ordering: .releasing)
        for index in 0..<mappedChunks { _ = munmap(chunks[index], Self.chunkBytes) }
        mappedChunks = 0
        free(chunks)
        _ = close(descriptor)
    }

    /// Copies `count` bytes at `offset` from the map into `destination`, when the file is known
    /// to hold them and one chunk does; false (nothing copied) otherwise.
    func read(into destination: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Bool {
        guard offset >= 0, count > 0, offset + count <= validLength.load(ordering: .acquiring) else { return false }
        let index = offset / Self.chunkBytes, within = offset % Self.chunkBytes
        guard within + count <= Self.chunkBytes, let chunk = chunks[index] else { return false }
        destination.copyMemory(from: chunk.advanced(by: within), byteCount: count)
        return true
    }

    /// The file holds at least `length` bytes: maps what covers them and lets reads use it.
    func fileHolds(_ length: Int) {
        guard length > validLength.load(ordering: .relaxed) else { return }
        growth.withLock { _ in
            let needed = min((length + Self.chunkBytes - 1) / Self.chunkBytes, Self.maximumChunks)
            while mappedChunks < needed {
                // Mapping past the file's end is allowed; only touching it is not, which the
                // valid length prevents.
                let mapping = mmap(nil, Self.chunkBytes, PROT_READ, MAP_SHARED, descriptor, off_t(mappedChunks * Self.chunkBytes))
                guard let mapping, mapping != MAP_FAILED else { break }
                chunks[mappedChunks] = mapping
                mappedChunks += 1
            }
            let covered = min(length, mappedChunks * Self.chunkBytes)
            if covered > validLength.load(ordering: .relaxed) { validLength.store(covered, ordering: .releasing) }
        }
    }

    /// The file is about to be cut to `length` bytes: reads past it go to the file from now on.
    func willTruncate(to length: Int) {
        growth.withLock { _ in
            if length < validLength.load(ordering: .relaxed) { validLength.store(max(length, 0), ordering: .releasing) }
        }
    }

    // MARK: One map per file, shared

    /// The files mapped, each with its number of users (open SQLite files).
    ///
    /// A process's POSIX locks on a file go when it closes any descriptor of that file, so the
    /// map's own descriptor is opened and closed only under this lock, while no SQLite file of
    /// this VFS has the file open (SQLite opens its descriptor before it asks for the map and
    /// takes no lock until its open has returned); and a file is known by device and inode, so a
    /// second spelling of its path shares the map and never closes a descriptor under the first.
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

    /// Runs `body` with a read-only descriptor of the file at `path`, which it must not close:
    /// the map's own when this process has the file open through this VFS (closing any other
    /// would drop the process's locks on it), else one opened for it and closed after, while no
    /// SQLite file of this VFS can open it. Nil when the file cannot be opened.
    static func withDescriptor<T>(of path: String, _ body: (Int32) -> T?) -> T? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return registry.withLock { mapped -> T? in
            if let entry = mapped[identity(status)] { return body(entry.map.descriptor) }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { _ = close(descriptor) }
            return body(descriptor)
        }
    }

    /// A user of the map closed its file (after SQLite closed it); the last one unmaps it and
    /// closes its descriptor.
    static func release(_ map: DatabaseFileMap) {
        registry.withLock { open in
            guard let entry = open[map.identity], entry.map === map else { return }
            if entry.users > 1 {
                open[map.identity] = (map, entry.users - 1)
            } else {
                open[map.identity] = nil
                map.dispose()
            }
        }
    }
}
