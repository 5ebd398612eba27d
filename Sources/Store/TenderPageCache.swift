import CSQLiteConfig
import GRDBSQLite
import Synchronization

/// Which pages a page cache may hold above a page number, kept from what was asked of it, so a
/// truncation that can drop nothing is not made (pure: no SQLite).
///
/// Every page the cache may hold has a key at most ``highest`` or one of ``parked``: keys a page
/// was moved to above ``highest`` and not yet moved from. SQLite's B-tree parks a page there
/// while it swaps two pages into page-number order (`balance_nonroot` moves one to the page
/// after the lock byte's, 1,048,577 with 1 KiB pages, then back), which is how the cache's own
/// highest key comes to lie far past the database's end at nearly every commit that split a
/// page. The bound may be wider than the pages held (a page dropped by the cache itself is not
/// told), never narrower, so a truncation skipped is one that would have dropped nothing.
struct PageKeyBound: Equatable, Sendable {
    private(set) var highest: UInt32 = 0
    private(set) var parked: [UInt32: Int] = [:]

    /// A page was fetched, possibly created, at `key`.
    mutating func fetched(_ key: UInt32) {
        if key > highest { highest = key }
    }

    /// A page was moved from `old` to `new`.
    mutating func moved(from old: UInt32, to new: UInt32) {
        if let count = parked[old] { parked[old] = count > 1 ? count - 1 : nil }
        if new > highest { parked[new, default: 0] += 1 }
    }

    /// Whether the cache may hold a page numbered `limit` or more.
    func mayHold(atOrAbove limit: UInt32) -> Bool {
        highest >= limit || parked.keys.contains { $0 >= limit }
    }

    /// The cache dropped every page numbered `limit` or more.
    mutating func truncated(below limit: UInt32) {
        highest = limit == 0 ? 0 : min(highest, limit - 1)
        parked = parked.filter { $0.key < limit }
    }
}

/// SQLite's own page cache with one change: a truncation (`xTruncate`, made at the end of every
/// write transaction down to the database's size) is passed on only when the cache may hold a
/// page it would drop.
///
/// SQLite's cache (`pcache1`) decides from the highest key it ever held since its last
/// truncation, and when that lies more than its hash table's size past the limit it walks the
/// whole table: every page the connection keeps. The B-tree's page swap above puts that key at
/// the lock byte's page, so on a database under 1 GiB nearly every commit walked the writer's
/// whole cache (64 MiB, 65,536 pages of 1 KiB when full): a third of the writer's time at a
/// million accounts. Each cache here keeps a ``PageKeyBound`` and skips a truncation that can
/// drop nothing; one that can is passed on unchanged.
///
/// Installed by ``TenderVFS/install()`` before anything else in the process uses SQLite (SQLite
/// takes a page cache only before it is initialized); where SQLite was initialized first, its
/// own cache stays and ``isInstalled`` is false.
public enum TenderPageCache {
    /// Whether SQLite's page caches are made through this one.
    public static var isInstalled: Bool { installed.load(ordering: .acquiring) }

    /// The truncations SQLite asked of caches made here, and how many of them were skipped.
    public static var truncations: (asked: Int, skipped: Int) {
        (asked.load(ordering: .relaxed), skipped.load(ordering: .relaxed))
    }

    private static let installed = Atomic<Bool>(false)
    private static let asked = Atomic<Int>(0)
    private static let skipped = Atomic<Int>(0)

    /// SQLite's own methods, which do the work: set once, before SQLite takes these.
    nonisolated(unsafe) private static var base = sqlite3_pcache_methods2()

    /// Puts this cache in place when SQLite is not yet initialized; returns whether it is.
    /// Called once, by ``TenderVFS``'s installation.
    static func installBeforeInitialization() -> Bool {
        var own = sqlite3_pcache_methods2()
        guard tender_sqlite3_get_pcache2(&own) == SQLITE_OK, own.iVersion >= 1, own.xFetch != nil else { return false }
        base = own
        var methods = own
        methods.pArg = nil
        methods.xInit = { _ in TenderPageCache.base.xInit?(TenderPageCache.base.pArg) ?? SQLITE_OK }
        methods.xShutdown = { _ in TenderPageCache.base.xShutdown?(TenderPageCache.base.pArg) }
        methods.xCreate = create
        methods.xCachesize = { cache, size in TenderPageCache.base.xCachesize!(TenderPageCache.wrapped(cache).pointee.base, size) }
        methods.xPagecount = { cache in TenderPageCache.base.xPagecount!(TenderPageCache.wrapped(cache).pointee.base) }
        methods.xFetch = fetch
        methods.xUnpin = { cache, page, discard in TenderPageCache.base.xUnpin!(TenderPageCache.wrapped(cache).pointee.base, page, discard) }
        methods.xRekey = rekey
        methods.xTruncate = truncate
        methods.xDestroy = destroy
        methods.xShrink = { cache in TenderPageCache.base.xShrink?(TenderPageCache.wrapped(cache).pointee.base) }
        guard tender_sqlite3_set_pcache2(&methods) == SQLITE_OK else { return false }
        installed.store(true, ordering: .releasing)
        return true
    }

    /// A cache made here: SQLite's own, and the bound of the keys it may hold.
    struct Wrapped {
        let base: OpaquePointer
        var bound = PageKeyBound()
    }

    private static func wrapped(_ cache: OpaquePointer?) -> UnsafeMutablePointer<Wrapped> {
        UnsafeMutablePointer<Wrapped>(cache!)
    }

    private static let create: @convention(c) (Int32, Int32, Int32) -> OpaquePointer? = { pageSize, extra, purgeable in
        guard let made = base.xCreate!(pageSize, extra, purgeable) else { return nil }
        let cache = UnsafeMutablePointer<Wrapped>.allocate(capacity: 1)
        cache.initialize(to: Wrapped(base: made))
        return OpaquePointer(cache)
    }

    private static let fetch: @convention(c) (OpaquePointer?, UInt32, Int32) -> UnsafeMutablePointer<sqlite3_pcache_page>? = { cache, key, create in
        let cache = wrapped(cache)
        let page = base.xFetch!(cache.pointee.base, key, create)
        if page != nil { cache.pointee.bound.fetched(key) }
        return page
    }

    private static let rekey: @convention(c) (OpaquePointer?, UnsafeMutablePointer<sqlite3_pcache_page>?, UInt32, UInt32) -> Void = { cache, page, old, new in
        let cache = wrapped(cache)
        base.xRekey!(cache.pointee.base, page, old, new)
        cache.pointee.bound.moved(from: old, to: new)
    }

    private static let truncate: @convention(c) (OpaquePointer?, UInt32) -> Void = { cache, limit in
        let cache = wrapped(cache)
        asked.add(1, ordering: .relaxed)
        guard cache.pointee.bound.mayHold(atOrAbove: limit) else {
            skipped.add(1, ordering: .relaxed)
            return
        }
        base.xTruncate!(cache.pointee.base, limit)
        cache.pointee.bound.truncated(below: limit)
    }

    private static let destroy: @convention(c) (OpaquePointer?) -> Void = { cache in
        let cache = wrapped(cache)
        base.xDestroy!(cache.pointee.base)
        cache.deinitialize(count: 1)
        cache.deallocate()
    }
}
