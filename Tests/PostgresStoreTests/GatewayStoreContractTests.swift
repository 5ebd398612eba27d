import Foundation
import Gateway
import GRDB
import NIOCore
@testable import PostgresStore
import Store
import TenderTesting
import Testing

/// What every GatewayStore must do, run on SQLite and on a throwaway PostgreSQL: the same
/// answers from both.
enum GatewayStoreContract {
    static func object(_ id: String, kind: String = "payment_intent", merchant: String = "acct_1", customer: String? = nil, body: String = "{}", attentionAt: Int64? = nil) -> StoredObject {
        StoredObject(id: id, merchant: merchant, kind: kind, customer: customer, created: 100, body: Array(body.utf8), attentionAt: attentionAt)
    }

    /// `storedBody` reads an object's body as the database holds it.
    static func check(_ store: any GatewayStore, storedBody: (String) async throws -> [UInt8]) async throws {
        // Merchants by id and by either key's hash.
        let merchant = MerchantRecord(
            id: "acct_1", name: "Shop \u{e9}", secretKeyHash: [1, 2, 3], publishableKeyHash: [4, 5, 6], settlementAccount: "GABC",
            sealedSettlementSeed: [0, 255, 7], created: 1_700_000_000)
        try await store.insertMerchant(merchant)
        #expect(try await store.merchant(id: "acct_1") == merchant)
        #expect(try await store.merchant(id: "acct_2") == nil)
        #expect(try await store.merchant(keyHash: [1, 2, 3])?.1 == .secret)
        #expect(try await store.merchant(keyHash: [4, 5, 6])?.1 == .publishable)
        #expect(try await store.merchant(keyHash: [9]) == nil)
        #expect(try await store.merchants() == [merchant])
        await #expect(throws: (any Error).self) { try await store.insertMerchant(merchant) }

        // Objects: insert, read by owner and kind, versioned updates.
        try await store.insert(object("pi_1", body: #"{"n":1}"#, attentionAt: 50))
        let first = try #require(try await store.object(id: "pi_1", kind: "payment_intent", merchant: "acct_1"))
        #expect(first.body == Array(#"{"n":1}"#.utf8) && first.version == 0 && first.attentionAt == 50 && first.created == 100)
        #expect(try await store.object(id: "pi_1", kind: "payment_intent", merchant: "acct_2") == nil)
        #expect(try await store.object(id: "pi_1", kind: "refund") == nil)
        #expect(try await store.object(id: "pi_1", kind: "payment_intent") == first)
        await #expect(throws: (any Error).self) { try await store.insert(object("pi_1")) }
        var changed = first
        changed.body = Array(#"{"n":2}"#.utf8)
        changed.attentionAt = nil
        #expect(try await store.update(changed))
        #expect(!(try await store.update(changed)), "the same version twice")
        let second = try #require(try await store.object(id: "pi_1", kind: "payment_intent"))
        #expect(second.version == 1 && second.attentionAt == nil && second.body == changed.body)

        // Update with an insert: both or neither.
        #expect(!(try await store.update(changed, inserting: object("re_1", kind: "refund"))))
        #expect(try await store.object(id: "re_1", kind: "refund") == nil)
        #expect(try await store.update(second, inserting: object("re_1", kind: "refund")))
        #expect(try await store.object(id: "re_1", kind: "refund") != nil)

        // Retired: filed under another kind, if still at its version, out of its kind's reads and lists.
        try await store.insert(object("cus_1", kind: "customer", customer: "a@example.com"))
        let customer = try #require(try await store.object(id: "cus_1", kind: "customer"))
        var moved = customer
        moved.version += 1
        #expect(!(try await store.retire(moved, as: "deleted_customer")), "not at its version")
        #expect(try await store.retire(customer, as: "deleted_customer"))
        #expect(try await store.object(id: "cus_1", kind: "customer", merchant: "acct_1") == nil)
        #expect(try await store.object(id: "cus_1", kind: "deleted_customer", merchant: "acct_1")?.version == 1)
        #expect(try await store.list(kind: "customer", merchant: "acct_1", ListRequest()).objects.isEmpty)

        // write: new or versioned, with events and their deliveries, all or nothing.
        let delivery = WebhookDelivery(id: "whd_1", merchant: "acct_1", event: "evt_1", endpoint: "we_1", nextAttemptAt: 10)
        let event = StoredEvent(object: object("evt_1", kind: "event"), deliveries: [delivery])
        #expect(try await store.write(object("pi_2", attentionAt: 5), isNew: true, events: [event]))
        #expect(try await store.object(id: "evt_1", kind: "event") != nil)
        #expect(try await store.deliveries(event: "evt_1") == [delivery])
        let stale = StoredEvent(object: object("evt_2", kind: "event"), deliveries: [])
        #expect(!(try await store.write(first, isNew: false, events: [stale])), "pi_1 is at version 2 now")
        #expect(try await store.object(id: "evt_2", kind: "event") == nil)
        await #expect(throws: (any Error).self) { try await store.write(object("pi_3"), isNew: true, events: [event]) }
        #expect(try await store.object(id: "pi_3", kind: "payment_intent") == nil, "a failed event insert writes nothing")
        // A record without deliveries written again (a recovery's) is the same record, kept as first written.
        let movement = StoredEvent(object: object("txn_1", kind: "balance_transaction", body: #"{"first":true}"#), deliveries: [])
        #expect(try await store.write(object("pi_4"), isNew: true, events: [movement]))
        let again = StoredEvent(object: object("txn_1", kind: "balance_transaction", body: #"{"first":false}"#), deliveries: [])
        #expect(try await store.write(object("pi_5"), isNew: true, events: [again]))
        #expect(try await store.object(id: "txn_1", kind: "balance_transaction")?.body == Array(#"{"first":true}"#.utf8))
        #expect(try await store.object(id: "pi_5", kind: "payment_intent") != nil)
        try await store.insertEvent(object("evt_3", kind: "event"), deliveries: [])
        #expect(try await store.object(id: "evt_3", kind: "event") != nil)

        // Lists: newest first, pages both ways, by customer.
        for n in 1...5 { try await store.insert(object("pm_\(n)", kind: "payment_method", customer: n % 2 == 0 ? "cus_a" : nil)) }
        try await store.insert(object("pm_x", kind: "payment_method", merchant: "acct_2"))
        let page = try await store.list(kind: "payment_method", merchant: "acct_1", ListRequest(limit: 2))
        #expect(page.objects.map(\.id) == ["pm_5", "pm_4"] && page.hasMore)
        let next = try await store.list(kind: "payment_method", merchant: "acct_1", ListRequest(limit: 2, startingAfter: "pm_4"))
        #expect(next.objects.map(\.id) == ["pm_3", "pm_2"] && next.hasMore)
        let last = try await store.list(kind: "payment_method", merchant: "acct_1", ListRequest(limit: 2, startingAfter: "pm_2"))
        #expect(last.objects.map(\.id) == ["pm_1"] && !last.hasMore)
        let back = try await store.list(kind: "payment_method", merchant: "acct_1", ListRequest(limit: 2, endingBefore: "pm_2"))
        #expect(back.objects.map(\.id) == ["pm_4", "pm_3"] && back.hasMore)
        #expect(try await store.list(kind: "payment_method", merchant: "acct_1", ListRequest(limit: 100, customer: "cus_a")).objects.map(\.id) == ["pm_4", "pm_2"])
        #expect(try await store.list(kind: "payment_method", merchant: "acct_1", ListRequest(limit: 10, startingAfter: "pm_x")).objects.isEmpty, "another merchant's cursor")

        // Attention.
        #expect(try await store.dueObjects(kind: "payment_intent", now: 4, limit: 10).isEmpty)
        #expect(try await store.dueObjects(kind: "payment_intent", now: 5, limit: 10).map(\.id) == ["pi_2"])

        // Idempotency keys: claim, in progress, replay, mismatch, expiry, interruption (all at
        // start-up, or one whose request failed), resumption.
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_1", requestHash: [1], now: 1_000, expiresBefore: 0) == .claimed(created: 1_000, resumed: false))
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_1", requestHash: [1], now: 1_001, expiresBefore: 0) == .inProgress)
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_1", requestHash: [2], now: 1_001, expiresBefore: 0) == .mismatch)
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_2", requestHash: [2], now: 1_001, expiresBefore: 0) == .claimed(created: 1_001, resumed: false))
        try await store.recordIdempotentAnswer("k1", merchant: "acct_1", status: 402, body: Array("{}".utf8))
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_1", requestHash: [1], now: 1_002, expiresBefore: 0) == .replay(status: 402, body: Array("{}".utf8)))
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_1", requestHash: [3], now: 90_000, expiresBefore: 2_000) == .claimed(created: 90_000, resumed: false), "expired")
        try await store.markInterruptedIdempotencyKeys()
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_1", requestHash: [3], now: 90_001, expiresBefore: 2_000) == .claimed(created: 90_000, resumed: true))
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_1", requestHash: [3], now: 90_002, expiresBefore: 2_000) == .inProgress)
        // A failed request's key: resumed under its first claim time, with its own parameters only.
        try await store.interruptIdempotencyKey("k1", merchant: "acct_1")
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_1", requestHash: [4], now: 90_003, expiresBefore: 2_000) == .mismatch)
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_1", requestHash: [3], now: 90_003, expiresBefore: 2_000) == .claimed(created: 90_000, resumed: true))
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_1", requestHash: [3], now: 90_004, expiresBefore: 2_000) == .inProgress)
        // An answered key is not touched by it.
        try await store.recordIdempotentAnswer("k1", merchant: "acct_1", status: 200, body: Array("{}".utf8))
        try await store.interruptIdempotencyKey("k1", merchant: "acct_1")
        #expect(try await store.claimIdempotencyKey("k1", merchant: "acct_1", requestHash: [3], now: 90_005, expiresBefore: 2_000) == .replay(status: 200, body: Array("{}".utf8)))

        // Concurrent claims of one key: exactly one wins.
        let claims = try await withThrowingTaskGroup(of: IdempotencyClaim.self) { group in
            for _ in 0..<8 { group.addTask { try await store.claimIdempotencyKey("k9", merchant: "acct_1", requestHash: [9], now: 5, expiresBefore: 0) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(claims.filter { $0 == .claimed(created: 5, resumed: false) }.count == 1 && claims.filter { $0 == .inProgress }.count == 7)

        // Concurrent updates of one version: exactly one wins.
        let current = try #require(try await store.object(id: "pi_2", kind: "payment_intent"))
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for n in 0..<8 {
                var update = current
                update.body = Array("{\"w\":\(n)}".utf8)
                let attempt = update
                group.addTask { try await store.update(attempt) }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(wins == 1)

        // Deliveries: due, next time, updated.
        #expect(try await store.nextDeliveryTime() == 10)
        #expect(try await store.dueDeliveries(now: 9, limit: 10).isEmpty)
        var due = try #require(try await store.dueDeliveries(now: 10, limit: 10).first)
        #expect(due == delivery)
        due.attempts = 1
        due.status = .delivered
        due.lastStatusCode = 200
        due.lastAttemptAt = 12
        try await store.updateDelivery(due)
        #expect(try await store.deliveries(event: "evt_1") == [due])
        // An endpoint's latest deliveries, newest first.
        let later = WebhookDelivery(id: "whd_2", merchant: "acct_1", event: "evt_4", endpoint: "we_1", nextAttemptAt: 20)
        try await store.insertEvent(object("evt_4", kind: "event"), deliveries: [later, WebhookDelivery(id: "whd_3", merchant: "acct_1", event: "evt_4", endpoint: "we_2", nextAttemptAt: 20)])
        #expect(try await store.deliveries(endpoint: "we_1", limit: 10) == [later, due])
        #expect(try await store.deliveries(endpoint: "we_1", limit: 1) == [later])
        try await store.updateDelivery(WebhookDelivery(id: "whd_2", merchant: "acct_1", event: "evt_4", endpoint: "we_1", attempts: 1, nextAttemptAt: 20, status: .delivered, lastStatusCode: 204, lastAttemptAt: 21))
        try await store.updateDelivery(WebhookDelivery(id: "whd_3", merchant: "acct_1", event: "evt_4", endpoint: "we_2", attempts: 1, nextAttemptAt: 20, status: .delivered, lastStatusCode: 204, lastAttemptAt: 21))
        #expect(try await store.nextDeliveryTime() == nil)
        #expect(try await store.dueDeliveries(now: 100, limit: 10).isEmpty)

        // Events are kept packed (a fifth of their JSON or less) and read back as written,
        // however they were written and read; other kinds are kept as they are.
        let json = #"{"id":"evt_p1","object":"event","api_version":"2024-06-20","created":1801234567,"data":{"object":{"id":"pi_p","object":"payment_intent","amount":4599,"amount_capturable":0,"amount_received":4599,"canceled_at":null,"cancellation_reason":null,"capture_method":"automatic","client_secret":"pi_p_secret_x","confirmation_method":"automatic","created":1801234560,"currency":"usd","customer":null,"description":"Caf\u00e9 ☕","last_payment_error":null,"latest_charge":"ch_p","livemode":false,"metadata":{},"next_action":null,"payment_method":"pm_p","payment_method_types":["card"],"statement_descriptor":null,"status":"succeeded","amount_refunded":0,"allowed_payment_method_types":null,"amount_details":{"tip":{}},"application":null,"application_fee_amount":null,"automatic_payment_methods":null,"customer_account":null,"excluded_payment_method_types":null,"hooks":null,"managed_payments":null,"on_behalf_of":null,"payment_details":null,"payment_method_configuration_details":null,"payment_method_options":null,"payment_record":null,"presentment_details":null,"processing":null,"receipt_email":null,"review":null,"setup_future_usage":null,"shipping":null,"source":null,"statement_descriptor_suffix":null,"transfer_data":null,"transfer_group":null}},"livemode":false,"pending_webhooks":0,"request":{"id":null,"idempotency_key":null},"type":"payment_intent.succeeded","account":null,"context":null}"#
        let other = json.replacingOccurrences(of: "evt_p1", with: "evt_p2")
        try await store.insertEvent(object("evt_p1", kind: "event", customer: "pi_p", body: json), deliveries: [])
        #expect(try await store.write(object("pi_p", body: json), isNew: true, events: [StoredEvent(object: object("evt_p2", kind: "event", customer: "pi_p", body: other), deliveries: [])]))
        #expect(try await store.object(id: "evt_p1", kind: "event")?.body == Array(json.utf8))
        #expect(try await store.object(id: "evt_p2", kind: "event", merchant: "acct_1")?.body == Array(other.utf8))
        #expect(try await store.list(kind: "event", merchant: "acct_1", ListRequest(limit: 2, customer: "pi_p")).objects.map(\.body) == [Array(other.utf8), Array(json.utf8)])
        for id in ["evt_p1", "evt_p2"] {
            let stored = try await storedBody(id)
            #expect(stored.first == 0x01 && stored.count * 5 <= json.utf8.count, "\(id): \(stored.count) bytes of \(json.utf8.count)")
        }
        #expect(try await storedBody("pi_p") == Array(json.utf8))
    }
}

@Suite("The gateway's store, on SQLite and on PostgreSQL")
struct GatewayStoreContractTests {
    let temporary = TemporaryDirectory("gateway-store-contract")

    @Test func sqlite() async throws {
        let path = temporary.file("gateway.sqlite")
        try await GatewayStoreContract.check(try SQLiteGatewayStore(path: path)) { id in
            try await DatabaseQueue(path: path).read { try Data.fetchOne($0, sql: "SELECT body FROM object WHERE id = ?", arguments: [id]).map(Array.init) ?? [] }
        }
    }

    @Test(.tags(.slow), TestSpeed.slowSuites) func postgres() async throws {
        let server = try await TemporaryPostgres.start()
        do {
            let database = try PostgresDatabase(url: server.url)
            defer { database.shutdown() }
            try await GatewayStoreContract.check(try await PostgresGatewayStore(database)) { id in
                try await database.rows("SELECT body FROM object WHERE id = \(id)") { Array(buffer: try $0.decode(ByteBuffer.self)) }.first ?? []
            }
            // Migrating again (a restart, another node) finds them applied.
            _ = try await PostgresGatewayStore(database)
            let migrations = try await database.rows("SELECT number, name FROM tender_migration ORDER BY number") { try $0.decode((Int64, String).self) }
            #expect(migrations.map(\.0) == [1, 2] && migrations.map(\.1) == ["gateway", "delivery attempts"])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func databaseURLs() throws {
        #expect(throws: PostgresURLError.self) { _ = try PostgresDatabase(url: "mysql://a@b/c") }
        #expect(throws: PostgresURLError.self) { _ = try PostgresDatabase(url: "postgres://host-only/db") }
        #expect(throws: PostgresURLError.self) { _ = try PostgresDatabase(url: "postgres://u@h/db?sslmode=require") }
        let error = PostgresURLError(url: "postgres://u:secret@h/db", reason: "x")
        #expect(!error.description.contains("secret"))
    }
}
