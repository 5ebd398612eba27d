import Crypto
import Foundation
import Gateway
import Store
import TenderJSON
import TenderTesting
import Testing
import GatewayCore

/// The sender the deliverer uses, scripted: answers with the next status and keeps each request.
final class ScriptedSender: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [Int]
    private(set) var requests: [(url: String, body: [UInt8], signature: String)] = []

    init(_ statuses: [Int]) { self.statuses = statuses }

    var count: Int { lock.withLock { requests.count } }

    func send(_ url: String, _ body: [UInt8], _ signature: String) -> Int {
        lock.withLock {
            requests.append((url, body, signature))
            return statuses.isEmpty ? 200 : statuses.removeFirst()
        }
    }
}

@Suite("Webhook deliveries")
struct WebhookDelivererTests {
    let temporary = TemporaryDirectory("webhooks")
    let secrets = ServerSecrets(master: Array(repeating: 7, count: 32))

    /// A store with one endpoint and one event to deliver to it.
    func store(path: String) async throws -> SQLiteGatewayStore {
        let store = try SQLiteGatewayStore(path: path)
        let endpoint = WebhookEndpointRecord(id: WebhookEndpointID("we_1"), url: "http://127.0.0.1:9/hook", enabledEvents: ["*"], created: 1000, sealedSecret: try secrets.seal(Array("whsec_test".utf8)))
        try await store.insert(StoredObject(id: "we_1", merchant: "acct_1", kind: "webhook_endpoint", created: 1000, body: Array(try JSONEncoder().encode(endpoint))))
        let event: JSONValue = .object([("id", "evt_1"), ("object", "event"), ("type", "payment_intent.succeeded")])
        try await store.insertEvent(
            StoredObject(id: "evt_1", merchant: "acct_1", kind: "event", created: 1000, body: event.compactBytes()),
            deliveries: [WebhookDelivery(id: "whd_1", merchant: "acct_1", event: "evt_1", endpoint: "we_1", nextAttemptAt: 1000)])
        return store
    }

    func deliverer(_ store: SQLiteGatewayStore, _ sender: ScriptedSender, _ clock: ManualClock) -> WebhookDeliverer {
        WebhookDeliverer(
            store: store, secrets: secrets, policy: WebhookRetryPolicy(baseSeconds: 1, maxDelaySeconds: 60, maxAttempts: 5), wakeup: WakeupSignal(),
            now: { 1000 + clock.now.offset.components.seconds }, clock: clock,
            send: { url, body, signature in sender.send(url, body, signature) }, logger: .init(label: "test"))
    }

    @Test func failedDeliveriesAreRetriedWithBackOffAndSigned() async throws {
        let store = try await store(path: temporary.file("a.sqlite"))
        let sender = ScriptedSender([500, 0, 200])
        let clock = ManualClock()
        let deliverer = deliverer(store, sender, clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await deliverer.run() }
            // First attempt at once; then due after 1 s, then after 2 s more.
            await clock.sleepers(atLeast: 1)
            #expect(sender.count == 1)
            // Each advance wakes the deliverer; it sleeps again once its pass is done.
            clock.advance(by: .seconds(1))
            await clock.sleepers(atLeast: 1)
            #expect(sender.count == 2)
            clock.advance(by: .seconds(1))
            await clock.sleepers(atLeast: 1)
            #expect(sender.count == 2, "not due yet after 1 of 2 seconds")
            clock.advance(by: .seconds(1))
            await clock.sleepers(atLeast: 1)
            #expect(sender.count == 3)
            group.cancelAll()
        }
        let deliveries = try await store.deliveries(event: "evt_1")
        #expect(deliveries.map(\.status) == [.delivered])
        #expect(deliveries.first?.attempts == 3)
        // Stripe's signature over the exact body.
        let (_, body, signature) = sender.requests[2]
        let parts = signature.split(separator: ",")
        let timestamp = try #require(parts.first.map { String($0.dropFirst(2)) })
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(timestamp).".utf8) + body, using: SymmetricKey(data: Array("whsec_test".utf8)))
        #expect(parts.last == "v1=" + mac.map { String(format: "%02x", $0) }.joined())
        #expect(String(decoding: body, as: UTF8.self).contains("evt_1"))
    }

    @Test func aRestartLosesNoDelivery() async throws {
        let path = temporary.file("b.sqlite")
        _ = try await store(path: path)
        // Another process, later: the same file, a new store and deliverer.
        let reopened = try SQLiteGatewayStore(path: path)
        #expect(try await reopened.dueDeliveries(now: 1000, limit: 10).count == 1)
        let sender = ScriptedSender([200])
        let clock = ManualClock()
        let deliverer = deliverer(reopened, sender, clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await deliverer.run() }
            await clock.sleepers(atLeast: 1)
            group.cancelAll()
        }
        #expect(sender.count == 1)
        #expect(try await reopened.deliveries(event: "evt_1").map(\.status) == [.delivered])
    }

    @Test func givesUpAfterTheLastAttempt() async throws {
        let store = try await store(path: temporary.file("c.sqlite"))
        let sender = ScriptedSender(Array(repeating: 503, count: 10))
        let clock = ManualClock()
        let deliverer = deliverer(store, sender, clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await deliverer.run() }
            for attempt in 1...5 {
                await clock.sleepers(atLeast: 1)
                #expect(sender.count == attempt)
                clock.advance(by: .seconds(60))
            }
            await clock.sleepers(atLeast: 1)
            group.cancelAll()
        }
        #expect(sender.count == 5)
        #expect(try await store.deliveries(event: "evt_1").map(\.status) == [.failed])
    }
}
