import Gateway
import Synchronization

/// A ``GatewayStore`` that keeps in memory the objects, lists and merchants it has read, so a
/// hot read (the checkout's payment screen, a payment intent read right after its write, a
/// key's merchant) is answered without a trip to the database.
///
/// Correct only while every write to the store goes through this instance: the server is the
/// only writer of its database (the CLI goes through the admin routes; on PostgreSQL an
/// advisory lock refuses a second server). A store shared by several processes must not be
/// wrapped.
///
/// Every write stamps what it touched (the object's stripe, its kind's lists for its merchant)
/// with a new number once the write has returned or failed. A read remembers the stamp it began
/// under and keeps its answer only if the stamp is unchanged when it ends, so an answer read
/// before a write that finished meanwhile is never kept; a kept answer is used only while its
/// stamp is still current. Misses are not kept. Merchants never change once made. Bounded: a
/// full table is emptied.
public final class CachingGatewayStore: GatewayStore {
    public let base: any GatewayStore
    private let state: Mutex<State>
    private let limit: Int
    private static let stripes = 256

    private struct ListKey: Hashable {
        let kind: String
        let merchant: String
        let limit: Int
        let startingAfter: String?
        let endingBefore: String?
        let customer: String?
    }

    private struct KindKey: Hashable {
        let kind: String
        let merchant: String
    }

    private struct State {
        var clock: UInt64 = 0
        var objectStamps = [UInt64](repeating: 0, count: CachingGatewayStore.stripes)
        /// The stamp of a kind's lists that no write has touched since `listFloor` was set.
        var listFloor: UInt64 = 0
        var listStamps: [KindKey: UInt64] = [:]
        var objects: [String: (object: StoredObject, stamp: UInt64)] = [:]
        var lists: [ListKey: (page: (objects: [StoredObject], hasMore: Bool), stamp: UInt64)] = [:]
        var merchantsByID: [String: MerchantRecord] = [:]
        var merchantsByKey: [[UInt8]: (MerchantRecord, KeyKind)] = [:]

        func objectStamp(_ id: String) -> UInt64 { objectStamps[CachingGatewayStore.stripe(id)] }
        func listStamp(_ key: KindKey) -> UInt64 { listStamps[key] ?? listFloor }

        mutating func touched(id: String, kind: String, merchant: String) {
            clock += 1
            objectStamps[CachingGatewayStore.stripe(id)] = clock
            objects[id] = nil
            if listStamps.count >= 10_000 {
                // Forget every kind's stamp: all lists, and every read still running, start again.
                listStamps.removeAll(keepingCapacity: true)
                lists.removeAll(keepingCapacity: true)
                listFloor = clock
            } else {
                listStamps[KindKey(kind: kind, merchant: merchant)] = clock
            }
        }
    }

    /// - Parameter limit: at most this many objects and this many list pages kept.
    public init(_ base: any GatewayStore, limit: Int = 50_000) {
        self.base = base
        self.limit = limit
        state = Mutex(State())
    }

    private static func stripe(_ id: String) -> Int {
        var hasher = Hasher()
        hasher.combine(id)
        return Int(UInt(bitPattern: hasher.finalize()) % UInt(stripes))
    }

    /// Runs a write, then stamps what it touched, whether it succeeded or not (a write that
    /// failed may still have committed).
    private func writing<T>(_ touched: [StoredObject], _ write: () async throws -> T) async throws -> T {
        defer {
            state.withLock { state in
                for object in touched { state.touched(id: object.id, kind: object.kind, merchant: object.merchant) }
            }
        }
        return try await write()
    }

    // MARK: Merchants

    public func insertMerchant(_ merchant: MerchantRecord) async throws {
        try await base.insertMerchant(merchant)
    }

    public func merchant(keyHash: [UInt8]) async throws -> (MerchantRecord, KeyKind)? {
        try await keptMerchant(\.merchantsByKey, keyHash) { try await base.merchant(keyHash: keyHash) }
    }

    public func merchants() async throws -> [MerchantRecord] {
        try await base.merchants()
    }

    public func merchant(id: String) async throws -> MerchantRecord? {
        try await keptMerchant(\.merchantsByID, id) { try await base.merchant(id: id) }
    }

    /// A merchant from `table`, or read and kept there (merchants never change; misses are not kept).
    private func keptMerchant<Key: Hashable & Sendable, Value: Sendable>(
        _ table: WritableKeyPath<State, [Key: Value]> & Sendable, _ key: Key, read: () async throws -> Value?
    ) async throws -> Value? {
        if let known = state.withLock({ $0[keyPath: table][key] }) { return known }
        let found = try await read()
        if let found {
            state.withLock { state in
                if state[keyPath: table].count >= limit { state[keyPath: table].removeAll(keepingCapacity: true) }
                state[keyPath: table][key] = found
            }
        }
        return found
    }

    // MARK: Objects

    /// The object `id` of `kind` whoever owns it, from memory while no write has touched it
    /// since it was kept (ids are unique across kinds and merchants).
    private func cachedObject(id: String, kind: String) async throws -> StoredObject? {
        let (kept, stamp) = state.withLock { state -> (StoredObject?, UInt64) in
            let stamp = state.objectStamp(id)
            guard let entry = state.objects[id], entry.stamp == stamp, entry.object.kind == kind else { return (nil, stamp) }
            return (entry.object, stamp)
        }
        if let kept { return kept }
        guard let found = try await base.object(id: id, kind: kind) else { return nil }
        state.withLock { state in
            guard state.objectStamp(id) == stamp else { return }
            if state.objects.count >= limit { state.objects.removeAll(keepingCapacity: true) }
            state.objects[id] = (found, stamp)
        }
        return found
    }

    public func object(id: String, kind: String, merchant: String) async throws -> StoredObject? {
        guard let object = try await cachedObject(id: id, kind: kind), object.merchant == merchant else { return nil }
        return object
    }

    public func object(id: String, kind: String) async throws -> StoredObject? {
        try await cachedObject(id: id, kind: kind)
    }

    public func insert(_ object: StoredObject) async throws {
        try await writing([object]) { try await base.insert(object) }
    }

    public func update(_ object: StoredObject) async throws -> Bool {
        try await writing([object]) { try await base.update(object) }
    }

    public func retire(_ object: StoredObject, as kind: String) async throws -> Bool {
        let retired = StoredObject(id: object.id, merchant: object.merchant, kind: kind, customer: object.customer, created: object.created, version: object.version, body: object.body)
        return try await writing([object, retired]) { try await base.retire(object, as: kind) }
    }

    public func update(_ update: StoredObject, inserting insert: StoredObject) async throws -> Bool {
        try await writing([update, insert]) { try await base.update(update, inserting: insert) }
    }

    public func list(kind: String, merchant: String, _ request: ListRequest) async throws -> (objects: [StoredObject], hasMore: Bool) {
        let key = ListKey(
            kind: kind, merchant: merchant, limit: request.limit, startingAfter: request.startingAfter,
            endingBefore: request.endingBefore, customer: request.customer)
        let kindKey = KindKey(kind: kind, merchant: merchant)
        let (kept, stamp) = state.withLock { state -> ((objects: [StoredObject], hasMore: Bool)?, UInt64) in
            let stamp = state.listStamp(kindKey)
            guard let entry = state.lists[key], entry.stamp == stamp else { return (nil, stamp) }
            return (entry.page, stamp)
        }
        if let kept { return kept }
        let page = try await base.list(kind: kind, merchant: merchant, request)
        state.withLock { state in
            guard state.listStamp(kindKey) == stamp else { return }
            if state.lists.count >= limit { state.lists.removeAll(keepingCapacity: true) }
            state.lists[key] = (page, stamp)
        }
        return page
    }

    // MARK: Passed through (not kept)

    public func claimIdempotencyKey(_ key: String, merchant: String, requestHash: [UInt8], now: Int64, expiresBefore: Int64) async throws -> IdempotencyClaim {
        try await base.claimIdempotencyKey(key, merchant: merchant, requestHash: requestHash, now: now, expiresBefore: expiresBefore)
    }

    public func recordIdempotentAnswer(_ key: String, merchant: String, status: Int, body: [UInt8]) async throws {
        try await base.recordIdempotentAnswer(key, merchant: merchant, status: status, body: body)
    }

    public func interruptIdempotencyKey(_ key: String, merchant: String) async throws {
        try await base.interruptIdempotencyKey(key, merchant: merchant)
    }

    public func markInterruptedIdempotencyKeys() async throws {
        try await base.markInterruptedIdempotencyKeys()
    }

    public func dueObjects(kind: String, now: Int64, limit: Int) async throws -> [StoredObject] {
        try await base.dueObjects(kind: kind, now: now, limit: limit)
    }

    public func insertEvent(_ event: StoredObject, deliveries: [WebhookDelivery]) async throws {
        try await writing([event]) { try await base.insertEvent(event, deliveries: deliveries) }
    }

    public func write(_ object: StoredObject, isNew: Bool, events: [StoredEvent]) async throws -> Bool {
        try await writing([object] + events.map(\.object)) { try await base.write(object, isNew: isNew, events: events) }
    }

    public func dueDeliveries(now: Int64, limit: Int) async throws -> [WebhookDelivery] {
        try await base.dueDeliveries(now: now, limit: limit)
    }

    public func nextDeliveryTime() async throws -> Int64? {
        try await base.nextDeliveryTime()
    }

    public func updateDelivery(_ delivery: WebhookDelivery) async throws {
        try await base.updateDelivery(delivery)
    }

    public func deliveries(endpoint: String, limit: Int) async throws -> [WebhookDelivery] {
        try await base.deliveries(endpoint: endpoint, limit: limit)
    }

    public func deliveries(event: String) async throws -> [WebhookDelivery] {
        try await base.deliveries(event: event)
    }
}
