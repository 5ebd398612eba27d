/// An entry the state files by a key it carries: an account by its id, a trustline by holder
/// and asset.
public protocol KeyedEntry: Sendable {
    associatedtype Key: Hashable & Sendable
    associatedtype Body: Hashable & Sendable
    var key: Key { get }
    var body: Body { get }
    init(key: Key, body: Body)
}

/// The state's table of accounts or trustlines: a dictionary from each key to the entry's body
/// only, so the key is held once rather than again inside the value (a third of an account's
/// slot, half of a trustline's). Read and written as whole entries.
public struct EntryTable<Entry: KeyedEntry>: Sendable, Sequence {
    public typealias Storage = [Entry.Key: Entry.Body]
    private(set) var storage: Storage = [:]

    public init() {}

    public subscript(key: Entry.Key) -> Entry? {
        get { storage[key].map { Entry(key: key, body: $0) } }
        set { storage[key] = newValue?.body }
    }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }
    /// How many entries fit before the table grows.
    public var capacity: Int { storage.capacity }
    /// Slots the table holds (it grows by doubling, and keeps a quarter of them free).
    public var slots: Int {
        let needed = storage.capacity * 4 / 3
        return needed <= 1 ? needed : 1 << (Int.bitWidth - (needed - 1).leadingZeroBitCount)
    }
    public var keys: Storage.Keys { storage.keys }
    public var values: LazyMapSequence<Storage, Entry> { storage.lazy.map { Entry(key: $0.key, body: $0.value) } }

    public func contains(_ key: Entry.Key) -> Bool { storage.index(forKey: key) != nil }

    public func makeIterator() -> LazyMapSequence<Storage, (key: Entry.Key, value: Entry)>.Iterator {
        storage.lazy.map { (key: $0.key, value: Entry(key: $0.key, body: $0.value)) }.makeIterator()
    }

    mutating func reserveCapacity(_ count: Int) { storage.reserveCapacity(count) }

    /// Files `entry` under its key; the entry it replaced, if any.
    @discardableResult
    mutating func update(_ entry: Entry) -> Entry? {
        storage.updateValue(entry.body, forKey: entry.key).map { Entry(key: entry.key, body: $0) }
    }

    @discardableResult
    mutating func remove(_ key: Entry.Key) -> Entry? {
        storage.removeValue(forKey: key).map { Entry(key: key, body: $0) }
    }

    /// Changes the body filed under `key` in place when `change` returns true (one lookup); the
    /// entry as it was, or nil when there is none or `change` declined (and left it as it was).
    @inline(__always)
    mutating func modify(_ key: Entry.Key, _ change: (inout Entry) -> Bool) -> Entry? {
        guard let index = storage.index(forKey: key) else { return nil }
        let old = Entry(key: key, body: storage.values[index])
        var entry = old
        guard change(&entry) else { return nil }
        storage.values[index] = entry.body
        return old
    }
}
