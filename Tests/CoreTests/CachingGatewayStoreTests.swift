import Foundation
import Gateway
import GatewayCore
import Synchronization
import TenderTesting
import Testing
@testable import Store

/// The SQLite store under the cache, counting the reads that reach it; a read can be held
/// after it has its answer (to let a write pass it).
final class HeldReadsStore: GatewayStore {
    let base: SQLiteGatewayStore
    private let reads = Mutex(0)
    private let hold = Mutex<(reached: AsyncStream<Void>.Continuation, release: AsyncStream<Void>)?>(nil)
    var readCount: Int { reads.withLock { $0 } }

    init(path: String) throws { base = try SQLiteGatewayStore(path: path) }

    /// The next read, once it has its answer, says so on `reached` and waits for `release`.
    func holdNextRead(reached: AsyncStream<Void>.Continuation, release: AsyncStream<Void>) {
        hold.withLock { $0 = (reached, release) }
    }

    private func read<T>(_ body: () async throws -> T) async throws -> T {
        reads.withLock { $0 += 1 }
        let answer = try await body()
        if let (reached, release) = hold.withLock({ held in defer { held = nil }; return held }) {
            reached.yield()
            for await _ in release { break }
        }
        return answer
    }

    func insertMerchant(_ merchant: MerchantRecord) async throws { try await base.insertMerchant(merchant) }
    func merchant(keyHash: [UInt8]) async throws -> (MerchantRecord, KeyKind)? { try await read { try await base.merchant(keyHash: keyHash) } }
    func merchants() async throws -> [MerchantRecord] { try await base.merchants() }
    func merchant(id: String) async throws -> MerchantRecord? { try await read { try await base.merchant(id: id) } }
    func insert(_ object: StoredObject) async throws { try await base.insert(object) }
    func object(id: String, kind: String, merchant: String) async throws -> StoredObject? { try await read { try await base.object(id: id, kind: kind, merchant: merchant) } }
    func object(id: String, kind: String) async throws -> StoredObject? { try await read { try await base.object(id: id, kind: kind) } }
    func update(_ object: StoredObject) async throws -> Bool { try await base.update(object) }
    func retire(_ object: StoredObject, as kind: String) async throws -> Bool { try await base.retire(object, as: kind) }
    func update(_ update: StoredObject, inserting insert: StoredObject) async throws -> Bool { try await base.update(update, inserting: insert) }
    func list(kind: String, merchant: String, _ request: ListRequest) async throws -> (objects: [StoredObject], hasMore: Bool) {
        try await read { try await base.list(kind: kind, merchant: merchant, request) }
    }
    func claimIdempotencyKey(_ key: String, merchant: String, requestHash: [UInt8], now: Int64, expiresBefore: Int64) async throws -> IdempotencyClaim {
        try await base.claimIdempotencyKey(key, merchant: merchant, requestHash: requestHash, now: now, expiresBefore: expiresBefore)
    }
    func recordIdempotentAnswer(_ key: String, merchant: String, status: Int, body: [UInt8]) async throws { try await base.recordIdempotentAnswer(key, merchant: merchant, status: status, body: body) }
    func interruptIdempotencyKey(_ key: String, merchant: String) async throws { try await base.interruptIdempotencyKey(key, merchant: merchant) }
    func markInterruptedIdempotencyKeys() async throws { try await base.markInterruptedIdempotencyKeys() }
    func dueObjects(kind: String, now: Int64, limit: Int) async throws -> [StoredObject] { try await base.dueObjects(kind: kind, now: now, limit: limit) }
    func write(_ object: StoredObject, isNew: Bool, events: [StoredEvent]) async throws -> Bool { try await base.write(object, isNew: isNew, events: events) }
    func insertEvent(_ event: StoredObject, deliveries: [WebhookDelivery]) async throws { try await base.insertEvent(event, deliveries: deliveries) }
    func dueDeliveries(now: Int64, limit: Int) async throws -> [WebhookDelivery] { try await base.dueDeliveries(now: now, limit: limit) }
    func nextDeliveryTime() async throws -> Int64? { try await base.nextDeliveryTime() }
    func updateDelivery(_ delivery: WebhookDelivery) async throws { try await base.updateDelivery(delivery) }
    func deliveries(event: String) async throws -> [WebhookDelivery] { try await base.deliveries(event: event) }
    func deliveries(endpoint: String, limit: Int) async throws -> [WebhookDelivery] { try await base.deliveries(endpoint: endpoint, limit: limit) }
}

@Suite("The gateway store's reads kept in memory")
struct CachingGatewayStoreTests {
    let temporary = TemporaryDirectory("caching-store")

    static func card(_ id: String, customer: String? = "cus_1", merchant: String = "acct_1", body: String = "{}") -> StoredObject {
        StoredObject(id: id, merchant: merchant, kind: "payment_method", customer: customer, created: 1, body: Array(body.utf8))
    }

    @Test func keptReadsSkipTheDatabaseUntilAWriteTouchesThem() async throws {
        let base = try HeldReadsStore(path: temporary.file("gateway.sqlite"))
        let store = CachingGatewayStore(base)
        try await store.insert(Self.card("pm_1", body: #"{"n":1}"#))
        let first = try #require(try await store.object(id: "pm_1", kind: "payment_method", merchant: "acct_1"))
        #expect(try await store.object(id: "pm_1", kind: "payment_method", merchant: "acct_1") == first)
        #expect(try await store.object(id: "pm_1", kind: "payment_method") == first)
        #expect(base.readCount == 1, "the second and third reads came from memory")
        // Another merchant's or another kind: nothing, as the database answers.
        #expect(try await store.object(id: "pm_1", kind: "payment_method", merchant: "acct_2") == nil)
        #expect(try await store.object(id: "pm_1", kind: "customer") == nil)

        var changed = first
        changed.body = Array(#"{"n":2}"#.utf8)
        #expect(try await store.update(changed))
        let after = try #require(try await store.object(id: "pm_1", kind: "payment_method", merchant: "acct_1"))
        #expect(after.version == 1 && after.body == Array(#"{"n":2}"#.utf8))
        #expect(!(try await store.update(changed)), "a stale version is still refused by the database")
        #expect(try await store.object(id: "pm_1", kind: "payment_method", merchant: "acct_1") == after)
    }

    @Test func missesAreNotKept() async throws {
        let base = try HeldReadsStore(path: temporary.file("gateway.sqlite"))
        let store = CachingGatewayStore(base)
        #expect(try await store.object(id: "pm_9", kind: "payment_method", merchant: "acct_1") == nil)
        try await base.insert(Self.card("pm_9"))
        #expect(try await store.object(id: "pm_9", kind: "payment_method", merchant: "acct_1") != nil)
    }

    /// A read that has its answer before a write commits, and finishes after it, must not keep
    /// that older answer.
    @Test func aReadOverlappingAWriteIsNotKept() async throws {
        let base = try HeldReadsStore(path: temporary.file("gateway.sqlite"))
        let store = CachingGatewayStore(base)
        try await store.insert(Self.card("pm_1", body: #"{"n":1}"#))
        let (reached, reachedSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        base.holdNextRead(reached: reachedSignal, release: release)
        let slow = Task { try await store.object(id: "pm_1", kind: "payment_method", merchant: "acct_1") }
        for await _ in reached { break }
        var changed = try #require(try await base.base.object(id: "pm_1", kind: "payment_method"))
        changed.body = Array(#"{"n":2}"#.utf8)
        #expect(try await store.update(changed))
        releaseSignal.yield()
        let old = try #require(try await slow.value)
        #expect(old.version == 0, "the slow read answers what it read")
        let now = try #require(try await store.object(id: "pm_1", kind: "payment_method", merchant: "acct_1"))
        #expect(now.version == 1, "and it was not kept")
    }

    @Test func listsFollowEveryWriteOfTheirKindAndMerchant() async throws {
        let base = try HeldReadsStore(path: temporary.file("gateway.sqlite"))
        let store = CachingGatewayStore(base)
        let cards = ListRequest(limit: 100, customer: "cus_1")
        try await store.insert(Self.card("pm_1"))
        #expect(try await store.list(kind: "payment_method", merchant: "acct_1", cards).objects.map(\.id) == ["pm_1"])
        #expect(try await store.list(kind: "payment_method", merchant: "acct_1", cards).objects.map(\.id) == ["pm_1"])
        #expect(base.readCount == 1)
        // Another merchant's write leaves this list kept; this merchant's changes it.
        try await store.insert(Self.card("pm_x", merchant: "acct_2"))
        #expect(try await store.list(kind: "payment_method", merchant: "acct_1", cards).objects.map(\.id) == ["pm_1"])
        #expect(base.readCount == 1)
        try await store.insert(Self.card("pm_2"))
        #expect(try await store.list(kind: "payment_method", merchant: "acct_1", cards).objects.map(\.id) == ["pm_2", "pm_1"])
        // Detached: the customer changes by an update.
        var detached = try #require(try await store.object(id: "pm_1", kind: "payment_method"))
        detached.customer = nil
        #expect(try await store.update(detached))
        #expect(try await store.list(kind: "payment_method", merchant: "acct_1", cards).objects.map(\.id) == ["pm_2"])

        // A list read overlapping a write is not kept either.
        let (reached, reachedSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        base.holdNextRead(reached: reachedSignal, release: release)
        let fresh = ListRequest(limit: 10, customer: "cus_1")
        let slow = Task { try await store.list(kind: "payment_method", merchant: "acct_1", fresh) }
        for await _ in reached { break }
        try await store.insert(Self.card("pm_3"))
        releaseSignal.yield()
        #expect(try await slow.value.objects.map(\.id) == ["pm_2"])
        #expect(try await store.list(kind: "payment_method", merchant: "acct_1", fresh).objects.map(\.id) == ["pm_3", "pm_2"])
    }

    @Test func aFullTableIsEmptiedAndStaysCorrect() async throws {
        let base = try HeldReadsStore(path: temporary.file("gateway.sqlite"))
        let store = CachingGatewayStore(base, limit: 2)
        for n in 1...5 { try await store.insert(Self.card("pm_\(n)", body: "{\"n\":\(n)}")) }
        for _ in 0..<3 {
            for n in 1...5 {
                let object = try #require(try await store.object(id: "pm_\(n)", kind: "payment_method", merchant: "acct_1"))
                #expect(object.body == Array("{\"n\":\(n)}".utf8))
            }
        }
        #expect(base.readCount >= 5 && base.readCount <= 15)
    }

    @Test func merchantsAreKeptByIDAndKey() async throws {
        let base = try HeldReadsStore(path: temporary.file("gateway.sqlite"))
        let store = CachingGatewayStore(base)
        let merchant = MerchantRecord(
            id: "acct_1", name: "Shop", secretKeyHash: [1, 2], publishableKeyHash: [3, 4], settlementAccount: "G", sealedSettlementSeed: [], created: 1)
        #expect(try await store.merchant(id: "acct_1") == nil)
        try await store.insertMerchant(merchant)
        #expect(try await store.merchant(id: "acct_1") == merchant)
        #expect(try await store.merchant(keyHash: [1, 2])?.1 == .secret)
        #expect(try await store.merchant(keyHash: [3, 4])?.1 == .publishable)
        let reads = base.readCount
        #expect(try await store.merchant(id: "acct_1") == merchant)
        #expect(try await store.merchant(keyHash: [3, 4])?.0 == merchant)
        #expect(base.readCount == reads)
    }
}
