import Foundation
import GRDBSQLite
import Synchronization

/// SQLite's default VFS with two changes, one for each kind of file a store's writes and
/// reads go through most.
///
/// **A WAL file's appends are gathered** in memory and reach the file in one `pwrite` each
/// 96 KiB, at each sync and at each transaction's commit frame, instead of two system calls a
/// page. SQLite writes each WAL frame as two `pwrite` calls (its 24-byte header, then the page),
/// one after the other at the end of the log. A ledger of a hundred payments on a grown network
/// dirties about nine pages a payment: some 2,000 calls a commit, each through ext4's
/// per-write path (18% of the server's time under `POST /transactions` at ten million
/// accounts, and the commit waits for all of them). Gathered, they are a few large writes.
///
/// What a reader can see is unchanged. Other connections find frames only through the
/// WAL index, which SQLite updates after the last frame of a transaction is written (and,
/// with `synchronous=FULL`, synced): the buffer is written out when that frame's page is
/// (its header names the database's size after the commit, which no other frame does), at
/// every sync, before any read, truncation, size query or file control, on a write that does
/// not continue it, and at close. What was buffered and not yet written is a transaction that
/// did not commit, which SQLite ignores after a crash as it ignores a torn frame. A failed
/// write-out is returned as the error of the call that caused it.
///
/// **A main database file is read through a memory map** (``DatabaseFileMap``), one per file
/// for all the process's connections to it: a page read is a copy from the map rather than a
/// `pread`. Writes, syncs and locks keep the default VFS's methods (a sync is timed while a
/// benchmark records them: ``startRecordingSyncs()``).
///
/// Installed as the process's default VFS (``install()``, before a store opens its database,
/// with ``TenderPageCache`` as SQLite's page cache when nothing used SQLite before it),
/// so every SQLite database Tender opens after it uses it; other files (temporary files, a
/// rollback journal) keep the default VFS's own methods.
public enum TenderVFS {
    /// The VFS's name.
    public static let name = "tender"
    /// The most bytes held before they are written out: under 128 KiB, as the unix VFS writes
    /// at most 128 KiB - 1 a call (its `seekAndWriteFd` masks the length with 0x1ffff, so a
    /// longer write comes back short and is reported as a full disk).
    static let capacity = 96 << 10

    /// Makes this VFS SQLite's default for this process; repeated calls do nothing.
    /// Returns whether it is the default.
    @discardableResult
    public static func install() -> Bool { installed }

    private static let installed: Bool = {
        // Before SQLite is initialized (finding a VFS initializes it), or SQLite keeps its own.
        _ = TenderPageCache.installBeforeInitialization()
        guard let base = sqlite3_vfs_find(nil) else { return false }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: base.pointee)
        vfs.pointee.zName = UnsafePointer(strdup(name))
        // A file's buffer pointer sits after the base VFS's own file structure, aligned.
        let align = Int32(MemoryLayout<UnsafeMutableRawPointer?>.alignment)
        let stateOffset = (base.pointee.szOsFile + align - 1) / align * align
        vfs.pointee.szOsFile = stateOffset + Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)
        vfs.pointee.pNext = nil
        vfs.pointee.xOpen = open
        Base.vfs = base
        Base.stateOffset = Int(stateOffset)
        return sqlite3_vfs_register(vfs, 1) == SQLITE_OK
    }()

    /// What one file's connection did through this VFS.
    struct Statistics: Sendable, Equatable {
        /// `xWrite` calls SQLite made (a WAL file).
        var writes = 0
        /// Writes that reached the file (each one `pwrite`; a WAL file).
        var fileWrites = 0
        /// Reads copied from the file's map (a main database file).
        var mappedReads = 0
        /// Reads that went to the file (a main database file).
        var fileReads = 0
        /// Syncs (a main database file), counted as each ends, not at close.
        var syncs = 0
    }

    /// The files whose statistics are kept (by path), and what their closed connections added
    /// up to. Only a test watches a file: a file not watched costs nothing.
    private static let watched = Mutex<[String: Statistics]>([:])

    /// Keeps the statistics of the file at `path` from now on (its connections opened after).
    static func watch(_ path: String) { watched.withLock { $0[path] = $0[path] ?? Statistics() } }

    /// What the connections of a watched file did, counted as each closed (its syncs as they end).
    static func statistics(_ path: String) -> Statistics? { watched.withLock { $0[path] } }

    /// How long each sync took, in nanoseconds, while recorded: a WAL file's (a commit's, with
    /// `synchronous=FULL`) and a main database file's (a checkpoint's), each in the order they
    /// ended.
    public struct SyncDurations: Sendable, Equatable {
        public var wal: [Int64] = []
        public var database: [Int64] = []
    }

    /// Whether syncs are being recorded; read on every sync, so unrecorded syncs take no lock.
    private static let recordingSyncs = Atomic<Bool>(false)
    private static let syncDurations = Mutex(SyncDurations())

    /// Starts recording every sync of every file this VFS opened, from none recorded.
    public static func startRecordingSyncs() {
        syncDurations.withLock { $0 = SyncDurations() }
        recordingSyncs.store(true, ordering: .releasing)
    }

    /// Stops recording syncs and returns those recorded since ``startRecordingSyncs()``.
    public static func stopRecordingSyncs() -> SyncDurations {
        // Under the lock a timed sync records under: one that began while recording and ends
        // after this is not added to what was returned.
        syncDurations.withLock {
            recordingSyncs.store(false, ordering: .releasing)
            return $0
        }
    }

    /// Calls `sync`, timing it when syncs are recorded.
    private static func timed(_ kind: Kind, _ sync: () -> Int32) -> Int32 {
        guard recordingSyncs.load(ordering: .acquiring) else { return sync() }
        let started = ContinuousClock.now
        let code = sync()
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        syncDurations.withLock {
            guard recordingSyncs.load(ordering: .relaxed) else { return }
            switch kind {
            case .wal: $0.wal.append(nanoseconds)
            case .mainDatabase: $0.database.append(nanoseconds)
            }
        }
        return code
    }

    // MARK: The VFS's open

    /// The default VFS as it was before this one, which does the real work, and where a
    /// file's buffer pointer sits in ours (both set once, before the VFS is registered).
    private enum Base {
        nonisolated(unsafe) static var vfs: UnsafeMutablePointer<sqlite3_vfs>!
        nonisolated(unsafe) static var stateOffset = 0
    }

    private static func stateSlot(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<UnsafeMutablePointer<State>?> {
        UnsafeMutableRawPointer(file).advanced(by: Base.stateOffset).assumingMemoryBound(to: UnsafeMutablePointer<State>?.self)
    }

    private static func state(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<State> {
        stateSlot(file!).pointee!
    }

    /// Opens through the base VFS, in place (the base's file structure starts ours); a WAL
    /// file or a main database file then gets this VFS's methods for its kind, which call the base's.
    private static let open: @convention(c) (
        UnsafeMutablePointer<sqlite3_vfs>?, sqlite3_filename?, UnsafeMutablePointer<sqlite3_file>?, Int32, UnsafeMutablePointer<Int32>?
    ) -> Int32 = { _, name, file, flags, outFlags in
        guard let file else { return SQLITE_MISUSE }
        stateSlot(file).pointee = nil
        let code = Base.vfs.pointee.xOpen(Base.vfs, name, file, flags, outFlags)
        // Any other file (a journal, a temporary file) keeps the base's methods: no path made.
        guard code == SQLITE_OK, flags & (SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_DB) != 0, let base = file.pointee.pMethods, let name else { return code }
        let path = String(cString: name)
        let kind: Kind, map: DatabaseFileMap?
        if flags & SQLITE_OPEN_WAL != 0 {
            (kind, map) = (.wal, nil)
        } else if flags & SQLITE_OPEN_MAIN_DB != 0, let mapped = DatabaseFileMap.acquire(path) {
            (kind, map) = (.mainDatabase, mapped)
        } else {
            return code
        }
        let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: State(
            base: base, map: map, readsAtRandom: flags & SQLITE_OPEN_READONLY != 0, watchedPath: watched.withLock { $0[path] } == nil ? nil : path))
        stateSlot(file).pointee = state
        file.pointee.pMethods = methods(kind, over: base)
        return code
    }

    /// The files this VFS has methods of its own for.
    private enum Kind: UInt { case wal, mainDatabase }

    /// One file's state: a WAL file's pending bytes (`count` bytes at `start` in the file, not
    /// yet written), or a main database file's map.
    struct State {
        let base: UnsafePointer<sqlite3_io_methods>
        var buffer: UnsafeMutableRawPointer?
        var start: Int64 = 0
        var count = 0
        /// The last write was a commit frame's header: write out once its page is in.
        var isCommitPending = false
        /// A main database file's map.
        let map: DatabaseFileMap?
        /// A read-only connection's file: read from the map's mapping read at random.
        let readsAtRandom: Bool
        /// The file's path when its statistics are kept.
        let watchedPath: String?
        var statistics = Statistics()

        init(base: UnsafePointer<sqlite3_io_methods>, map: DatabaseFileMap?, readsAtRandom: Bool, watchedPath: String?) {
            self.base = base
            self.map = map
            self.readsAtRandom = readsAtRandom
            self.watchedPath = watchedPath
        }
    }

    /// This VFS's methods for each kind of file over each base method table (the default VFS
    /// has a few, one per locking style), made once each.
    private static let tables = Mutex<[[UInt]: UInt]>([:])

    private static func methods(_ kind: Kind, over base: UnsafePointer<sqlite3_io_methods>) -> UnsafePointer<sqlite3_io_methods> {
        let address = tables.withLock { tables -> UInt in
            let key = [kind.rawValue, UInt(bitPattern: base)]
            if let made = tables[key] { return made }
            let table = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
            table.initialize(to: base.pointee)
            table.pointee.xClose = close
            switch kind {
            case .wal:
                table.pointee.xRead = read
                table.pointee.xWrite = write
                table.pointee.xTruncate = truncate
                table.pointee.xSync = sync
                table.pointee.xFileSize = fileSize
                table.pointee.xFileControl = fileControl
            case .mainDatabase:
                table.pointee.xRead = mappedRead
                table.pointee.xTruncate = mappedTruncate
                table.pointee.xFileSize = mappedFileSize
                table.pointee.xSync = mappedSync
            }
            tables[key] = UInt(bitPattern: table)
            return UInt(bitPattern: table)
        }
        return UnsafePointer(bitPattern: address)!
    }

    // MARK: A WAL file's methods

    /// Writes out what is pending; SQLITE_OK when nothing was.
    private static func flush(_ file: UnsafeMutablePointer<sqlite3_file>?, _ state: UnsafeMutablePointer<State>) -> Int32 {
        state.pointee.isCommitPending = false
        guard state.pointee.count > 0, let buffer = state.pointee.buffer else { return SQLITE_OK }
        let (start, count) = (state.pointee.start, state.pointee.count)
        state.pointee.count = 0
        state.pointee.statistics.fileWrites += 1
        return state.pointee.base.pointee.xWrite(file, buffer, Int32(count), start)
    }

    private static let write: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeRawPointer?, Int32, sqlite3_int64) -> Int32 = { file, data, amount, offset in
        let state = state(file)
        state.pointee.statistics.writes += 1
        let length = Int(amount)
        // A frame header (24 bytes, past the log's 32-byte header) whose second word, the
        // database's size in pages after the commit, is not zero ends a transaction.
        let isCommitHeader = length == 24 && offset >= 32 && data.map { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) != 0 } ?? false
        // Taken before a write-out below clears it: this write is a commit frame's page.
        let endsCommit = state.pointee.isCommitPending
        let continues = state.pointee.count > 0 && offset == state.pointee.start + Int64(state.pointee.count)
        if !continues || state.pointee.count + length > capacity {
            let code = flush(file, state)
            guard code == SQLITE_OK else { return code }
        }
        state.pointee.isCommitPending = isCommitHeader
        precondition(length <= capacity, "SQLite writes a WAL a header or a page (at most 64 KiB) at a time")
        if state.pointee.buffer == nil { state.pointee.buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 4096) }
        if state.pointee.count == 0 { state.pointee.start = offset }
        if let data, length > 0 {
            state.pointee.buffer!.advanced(by: state.pointee.count).copyMemory(from: data, byteCount: length)
        }
        state.pointee.count += length
        return endsCommit ? flush(file, state) : SQLITE_OK
    }

    /// Writes out what is pending, then (when that went well) calls the base's method.
    private static func afterFlush(_ file: UnsafeMutablePointer<sqlite3_file>?, _ call: (UnsafePointer<sqlite3_io_methods>) -> Int32) -> Int32 {
        let state = state(file)
        let code = flush(file, state)
        return code == SQLITE_OK ? call(state.pointee.base) : code
    }

    private static let read: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeMutableRawPointer?, Int32, sqlite3_int64) -> Int32 = { file, data, amount, offset in
        afterFlush(file) { $0.pointee.xRead(file, data, amount, offset) }
    }

    private static let truncate: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, sqlite3_int64) -> Int32 = { file, size in
        afterFlush(file) { $0.pointee.xTruncate(file, size) }
    }

    private static let sync: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, Int32) -> Int32 = { file, flags in
        afterFlush(file) { base in timed(.wal) { base.pointee.xSync(file, flags) } }
    }

    private static let fileSize: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeMutablePointer<sqlite3_int64>?) -> Int32 = { file, size in
        afterFlush(file) { $0.pointee.xFileSize(file, size) }
    }

    private static let fileControl: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, Int32, UnsafeMutableRawPointer?) -> Int32 = { file, operation, argument in
        afterFlush(file) { $0.pointee.xFileControl(file, operation, argument) }
    }

    /// Writes out what is pending (a WAL file), closes through the base (which clears the
    /// structure), then frees the buffer and lets go of the map; a failed write-out is the
    /// close's error.
    private static let close: @convention(c) (UnsafeMutablePointer<sqlite3_file>?) -> Int32 = { file in
        let state = state(file)
        let flushed = flush(file, state)
        let closed = state.pointee.base.pointee.xClose(file)
        if let path = state.pointee.watchedPath {
            let statistics = state.pointee.statistics
            watched.withLock {
                $0[path]?.writes += statistics.writes
                $0[path]?.fileWrites += statistics.fileWrites
                $0[path]?.mappedReads += statistics.mappedReads
                $0[path]?.fileReads += statistics.fileReads
            }
        }
        if let map = state.pointee.map { DatabaseFileMap.release(map) }
        state.pointee.buffer?.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
        return flushed != SQLITE_OK ? flushed : closed
    }

    // MARK: A main database file's methods

    /// A copy from the map when the file is known to hold the bytes; otherwise the base's read,
    /// which, when full, shows the file holds them.
    private static let mappedRead: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeMutableRawPointer?, Int32, sqlite3_int64) -> Int32 = { file, data, amount, offset in
        let state = state(file)
        if let data, let map = state.pointee.map, map.read(into: data, count: Int(amount), at: Int(offset), atRandom: state.pointee.readsAtRandom) {
            state.pointee.statistics.mappedReads += 1
            return SQLITE_OK
        }
        state.pointee.statistics.fileReads += 1
        let code = state.pointee.base.pointee.xRead(file, data, amount, offset)
        if code == SQLITE_OK { state.pointee.map?.fileHolds(Int(offset) + Int(amount)) }
        return code
    }

    private static let mappedFileSize: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, UnsafeMutablePointer<sqlite3_int64>?) -> Int32 = { file, size in
        let state = state(file)
        let code = state.pointee.base.pointee.xFileSize(file, size)
        if code == SQLITE_OK, let size { state.pointee.map?.fileHolds(Int(size.pointee)) }
        return code
    }

    private static let mappedSync: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, Int32) -> Int32 = { file, flags in
        let state = state(file)
        let code = timed(.mainDatabase) { state.pointee.base.pointee.xSync(file, flags) }
        if let path = state.pointee.watchedPath { watched.withLock { $0[path]?.syncs += 1 } }
        return code
    }

    /// Reads past the new end go to the file before it is cut.
    private static let mappedTruncate: @convention(c) (UnsafeMutablePointer<sqlite3_file>?, sqlite3_int64) -> Int32 = { file, size in
        let state = state(file)
        state.pointee.map?.willTruncate(to: Int(size))
        return state.pointee.base.pointee.xTruncate(file, size)
    }
}
