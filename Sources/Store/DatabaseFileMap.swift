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

    let path: String
    /// The file, kept open to map further chunks from.
    private let descriptor: Int32
    /// Each chunk's mapping, set once (under `growth`) before ``validLength`` covers it.
    private let chunks: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// How many leading chunks are mapped.
    private var mappedChunks = 0
    private let growth = Mutex(())
    /// Bytes from the file's start a read may copy from the map.
    private let validLength = Atomic<Int>(0)

    private init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard let chunks = calloc(Self.maximumChunks, MemoryLayout<UnsafeMutableRawPointer?>.stride) else {
            _ = close(descriptor)
            return nil
        }
        self.path = path
        self.descriptor = descriptor
        self.chunks = chunks.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    deinit {
        for index in 0..<mappedChunks { _ = munmap(chunks[index], Self.chunkBytes) }
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

    private static let registry = Mutex<[String: (map: DatabaseFileMap, users: Int)]>([:])

    /// The map of the file at `path`, made on its first user; nil when the file cannot be mapped.
    static func acquire(_ path: String) -> DatabaseFileMap? {
        registry.withLock { open in
            if let entry = open[path] {
                open[path] = (entry.map, entry.users + 1)
                return entry.map
            }
            guard let map = DatabaseFileMap(path: path) else { return nil }
            open[path] = (map, 1)
            return map
        }
    }

    /// A user of the map closed its file; the last one unmaps it.
    static func release(_ map: DatabaseFileMap) {
        registry.withLock { open in
            guard let entry = open[map.path], entry.map === map else { return }
            open[map.path] = entry.users > 1 ? (map, entry.users - 1) : nil
        }
    }
}
