import Crypto
import Foundation
import Gateway
import Ledger
import LedgerService
import Logging
import StellarBase
import TenderJSON

/// The gateway's events: stored with the change they report, one delivery per endpoint that
/// wants them.
extension GatewayService {
    // MARK: Events

    /// An event about `object` with a delivery to each of the merchant's endpoints that wants
    /// it, to be stored with the change it reports.
    package func event(_ type: GatewayEventType, _ object: JSONValue, merchant: MerchantRecord) async throws -> StoredEvent {
        let endpoints = try await store.list(kind: .webhookEndpoint, merchant: merchant.id, ListRequest(limit: 100)).objects
            .map { try records.decode(WebhookEndpointRecord.self, $0) }
            .filter { $0.wants(type.rawValue) }
        let id = newID("evt")
        let created = now()
        let event = Self.eventBody(id: id, type: type, object: object, created: created, pendingWebhooks: endpoints.count)
        let deliveries = endpoints.map { endpoint in
            WebhookDelivery(id: newID("whd"), merchant: merchant.id, event: id, endpoint: endpoint.id.rawValue, nextAttemptAt: created)
        }
        return StoredEvent(
            object: StoredObject(id: id, merchant: merchant.id, kind: .event, customer: Self.paymentIntent(of: object), created: created, body: event.compactBytes()),
            deliveries: deliveries)
    }

    /// The payment intent an event's object belongs to (the intent itself, or a charge's or a
    /// refund's `payment_intent`): events are filed under it, so a payment's events are found
    /// by the store's index.
    static func paymentIntent(of object: JSONValue) -> String? {
        guard case .object(let fields) = object else { return nil }
        func field(_ name: String) -> String? {
            guard case .string(let value)? = fields.first(where: { $0.0 == name })?.1 else { return nil }
            return value
        }
        if field("object") == "payment_intent" { return field("id") }
        return field("payment_intent")
    }

    /// The events about one of the merchant's payments (its intent, charges and refunds), oldest
    /// first, each with its deliveries: at most 100.
    package func events(of intent: PaymentIntentID, merchant: MerchantRecord) async throws(GatewayFailure) -> [(id: String, type: String, created: Int64, deliveries: [WebhookDelivery])] {
        try await failing { () async throws -> [(id: String, type: String, created: Int64, deliveries: [WebhookDelivery])] in
            let objects = try await store.list(kind: .event, merchant: merchant.id, ListRequest(limit: 100, customer: intent.rawValue)).objects
            var events: [(id: String, type: String, created: Int64, deliveries: [WebhookDelivery])] = []
            for object in objects.reversed() {
                let type = (try? JSONSerialization.jsonObject(with: Data(object.body)) as? [String: Any])?["type"] as? String ?? "event"
                events.append((object.id, type, object.created, try await store.deliveries(event: object.id)))
            }
            return events
        }
    }

    /// An event as Stripe sends it, about `object`.
    static func eventBody(id: String, type: GatewayEventType, object: JSONValue, created: Int64, pendingWebhooks: Int) -> JSONValue {
        .object([
            ("id", .string(id)), ("object", "event"), ("api_version", "2024-06-20"), ("created", .number(created)),
            ("data", .object([("object", object)])), ("livemode", false), ("pending_webhooks", .number(Int64(pendingWebhooks))),
            ("request", .object([("id", .null), ("idempotency_key", .null)])), ("type", .string(type.rawValue)), ("account", .null), ("context", .null),
        ])
    }

    /// Stores an event about a change already stored, and wakes the deliverer. An event that
    /// cannot be stored is logged, never turned into a failure of the payment it reports (that
    /// is already done).
    package func emit(_ type: GatewayEventType, _ object: JSONValue, merchant: MerchantRecord) async {
        do {
            let event = try await event(type, object, merchant: merchant)
            try await store.insertEvent(event.object, deliveries: event.deliveries)
            if !event.deliveries.isEmpty { webhookWakeup.signal() }
        } catch {
            logger.error("gateway event not stored", metadata: ["event.type": "\(type.rawValue)", "merchant.id": "\(merchant.id)", "error": "\(error)"])
        }
    }

    /// A page of the merchant's events, newest first, each as it was when it happened but for
    /// `pending_webhooks`, which tells how many of its deliveries are still to be made.
    package func events(merchant: MerchantRecord, _ page: ListRequest) async throws(GatewayFailure) -> (events: [JSONValue], hasMore: Bool) {
        try await failing { () async throws -> (events: [JSONValue], hasMore: Bool) in
            let (objects, hasMore) = try await store.list(kind: .event, merchant: merchant.id, page)
            var events: [JSONValue] = []
            for object in objects { events.append(.raw(try await withPendingWebhooks(object.body, event: object.id))) }
            return (events, hasMore)
        }
    }

    /// One of the merchant's events, as it was when it happened but for `pending_webhooks`.
    /// - Throws: ``GatewayFailure`` `resource_missing`.
    package func event(_ id: String, merchant: MerchantRecord) async throws(GatewayFailure) -> JSONValue {
        guard id.utf8.count <= 255 else { throw GatewayFailure.notFound("event", id) }
        return try await failing { () async throws -> JSONValue in
            guard let found = try await store.object(id: id, kind: .event, merchant: merchant.id) else { throw GatewayFailure.notFound("event", id) }
            return .raw(try await withPendingWebhooks(found.body, event: found.id))
        }
    }

    /// An event's stored JSON with `pending_webhooks` counting the deliveries still pending (an
    /// event stored with none asks the store nothing).
    func withPendingWebhooks(_ body: [UInt8], event: String) async throws -> [UInt8] {
        guard let stored = Self.pendingWebhooks(in: body), stored.count > 0 else { return body }
        let pending = try await store.deliveries(event: event).filter { $0.status == .pending }.count
        return Self.replacingPendingWebhooks(in: body, at: stored.range, with: pending)
    }

    /// Where an event's own `pending_webhooks` is in its compact JSON, and its value: the last
    /// `,"pending_webhooks":` followed by digits (the envelope's comes after `data`, and a key
    /// of the same name inside the object would be followed by text, not digits).
    static func pendingWebhooks(in body: [UInt8]) -> (range: Range<Int>, count: Int)? {
        let key = Array(#","pending_webhooks":"#.utf8)
        var start = body.count - key.count
        while start >= 0 {
            if body[start] == key[0], Array(body[start..<(start + key.count)]) == key {
                let digitsStart = start + key.count
                var end = digitsStart
                while end < body.count, (48...57).contains(body[end]) { end += 1 }
                if end > digitsStart, end - digitsStart <= 9, let count = Int(String(decoding: body[digitsStart..<end], as: UTF8.self)) {
                    return (digitsStart..<end, count)
                }
            }
            start -= 1
        }
        return nil
    }

    static func replacingPendingWebhooks(in body: [UInt8], at range: Range<Int>, with count: Int) -> [UInt8] {
        var out = body
        out.replaceSubrange(range, with: Array(String(count).utf8))
        return out
    }
    /// The deliveries of one of the merchant's events, in the order they were made: each
    /// endpoint's attempts, last status code and time, and next retry.
    /// - Throws: ``GatewayFailure`` `resource_missing` for an event it does not have.
    package func deliveries(ofEvent id: String, merchant: MerchantRecord) async throws(GatewayFailure) -> [WebhookDelivery] {
        guard id.utf8.count <= 255 else { throw GatewayFailure.notFound("event", id) }
        return try await failing { () async throws -> [WebhookDelivery] in
            guard try await store.object(id: id, kind: .event, merchant: merchant.id) != nil else { throw GatewayFailure.notFound("event", id) }
            return try await store.deliveries(event: id)
        }
    }

    /// The latest deliveries to one of the merchant's endpoints, newest first: whether it is failing.
    /// - Throws: ``GatewayFailure`` `resource_missing` for an endpoint it does not have.
    package func deliveries(ofEndpoint id: WebhookEndpointID, merchant: MerchantRecord, limit: Int) async throws(GatewayFailure) -> [WebhookDelivery] {
        try await failing { () async throws -> [WebhookDelivery] in
            _ = try await load(WebhookEndpointRecord.self, id: id, merchant: merchant)
            return try await store.deliveries(endpoint: id.rawValue, limit: limit)
        }
    }

    /// Sends one of the merchant's deliveries to an endpoint again, now (see
    /// ``WebhookDelivery/resent(now:)``), and wakes the deliverer.
    /// - Throws: ``GatewayFailure`` `resource_missing` for an endpoint or delivery it does not have.
    package func resendDelivery(_ id: String, endpoint: WebhookEndpointID, merchant: MerchantRecord) async throws(GatewayFailure) -> WebhookDelivery {
        try await failing { () async throws -> WebhookDelivery in
            _ = try await load(WebhookEndpointRecord.self, id: endpoint, merchant: merchant)
            guard let delivery = try await store.deliveries(endpoint: endpoint.rawValue, limit: 100).first(where: { $0.id == id }),
                  delivery.merchant == merchant.id else { throw GatewayFailure.notFound("webhook delivery", id) }
            let again = delivery.resent(now: now())
            try await store.updateDelivery(again)
            webhookWakeup.signal()
            return again
        }
    }

    /// Sends one endpoint a test event, whatever events it asked for: a `payment_intent.succeeded`
    /// about a made-up paid intent (`pi_test_...`, 10.00 EUR by a Visa card), signed and retried
    /// as every delivery is. Returns the event's id.
    /// - Throws: ``GatewayFailure`` `resource_missing` for an endpoint the merchant does not
    ///   have; an invalid request for a disabled one.
    package func sendTestEvent(to endpointID: WebhookEndpointID, merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> String {
        try await failing { () async throws -> String in
            let (endpoint, _) = try await load(WebhookEndpointRecord.self, id: endpointID, merchant: merchant)
            guard endpoint.disabled != true else { throw GatewayFailure.invalid(nil, "This endpoint is disabled: enable it to send it a test event.") }
            let created = now()
            var intent = PaymentIntentRecord(
                id: PaymentIntentID(newID("pi_test")), clientSecret: "", currency: "eur", created: created,
                machine: PaymentIntentStateMachine(amount: 1_000, captureMethod: .automatic), paymentMethodTypes: [.card])
            intent.description = "A test event from Tender's console"
            try intent.machine.attach(paymentMethod: "pm_test_visa", type: .card)
            _ = try intent.machine.confirm(acquirer: .approved)
            let id = newID("evt")
            let event = Self.eventBody(id: id, type: .paymentIntentSucceeded, object: GatewayObjects.paymentIntent(intent, base: base), created: created, pendingWebhooks: 1)
            let delivery = WebhookDelivery(id: newID("whd"), merchant: merchant.id, event: id, endpoint: endpoint.id.rawValue, nextAttemptAt: created)
            try await store.insertEvent(StoredObject(id: id, merchant: merchant.id, kind: .testEvent, created: created, body: event.compactBytes()), deliveries: [delivery])
            webhookWakeup.signal()
            return id
        }
    }
}
