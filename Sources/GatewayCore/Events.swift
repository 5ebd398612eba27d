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
        let id = GatewayIDs.make("evt", random: random)
        let created = now()
        let event: JSONValue = .object([
            ("id", .string(id)), ("object", "event"), ("api_version", "2024-06-20"), ("created", .number(created)),
            ("data", .object([("object", object)])), ("livemode", false), ("pending_webhooks", .number(Int64(endpoints.count))),
            ("request", .object([("id", .null), ("idempotency_key", .null)])), ("type", .string(type.rawValue)),
        ])
        let deliveries = endpoints.map { endpoint in
            WebhookDelivery(id: GatewayIDs.make("whd", random: random), merchant: merchant.id, event: id, endpoint: endpoint.id.rawValue, nextAttemptAt: created)
        }
        return StoredEvent(object: StoredObject(id: id, merchant: merchant.id, kind: .event, created: created, body: event.compactBytes()), deliveries: deliveries)
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

}
