@_exported import Identifiers

/// What a stored object is: the kind the gateway's store files it under. Extensible (the
/// checkout's core adds its own kinds); each record type names its kind once
/// (``StoredRecord/kind``), so no caller spells it.
public struct ObjectKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let paymentIntent = ObjectKind(rawValue: "payment_intent")
    public static let paymentMethod = ObjectKind(rawValue: "payment_method")
    public static let customer = ObjectKind(rawValue: "customer")
    public static let refund = ObjectKind(rawValue: "refund")
    public static let capture = ObjectKind(rawValue: "capture")
    public static let payout = ObjectKind(rawValue: "payout")
    public static let webhookEndpoint = ObjectKind(rawValue: "webhook_endpoint")
    public static let event = ObjectKind(rawValue: "event")
    /// A test event sent to one endpoint by hand (the console's "Send test event"): delivered
    /// as an event is, but not one of the merchant's events (`/v1/events` does not list it).
    public static let testEvent = ObjectKind(rawValue: "test_event")
    public static let paymentLink = ObjectKind(rawValue: "payment_link")
    public static let balanceTransaction = ObjectKind(rawValue: "balance_transaction")
    public static let setupIntent = ObjectKind(rawValue: "setup_intent")
    public static let checkoutSession = ObjectKind(rawValue: "checkout_session")
    /// A deleted customer, kept so that reading it says it was deleted.
    public static let deletedCustomer = ObjectKind(rawValue: "deleted_customer")
    /// A deleted webhook endpoint, kept for its deliveries' history.
    public static let deletedWebhookEndpoint = ObjectKind(rawValue: "deleted_webhook_endpoint")
}

/// A record the gateway's store keeps as an object of its type's kind.
public protocol StoredRecord: Codable, Sendable {
    static var kind: ObjectKind { get }
}

extension PaymentIntentRecord: StoredRecord { public static var kind: ObjectKind { .paymentIntent } }
extension PaymentMethodRecord: StoredRecord { public static var kind: ObjectKind { .paymentMethod } }
extension CustomerRecord: StoredRecord { public static var kind: ObjectKind { .customer } }
extension RefundRecord: StoredRecord { public static var kind: ObjectKind { .refund } }
extension CaptureRecord: StoredRecord { public static var kind: ObjectKind { .capture } }
extension PayoutRecord: StoredRecord { public static var kind: ObjectKind { .payout } }
extension WebhookEndpointRecord: StoredRecord { public static var kind: ObjectKind { .webhookEndpoint } }
extension PaymentLinkRecord: StoredRecord { public static var kind: ObjectKind { .paymentLink } }
extension CheckoutSessionRecord: StoredRecord { public static var kind: ObjectKind { .checkoutSession } }
extension SetupIntentRecord: StoredRecord { public static var kind: ObjectKind { .setupIntent } }
extension BalanceTransactionRecord: StoredRecord { public static var kind: ObjectKind { .balanceTransaction } }

extension StoredObject {
    /// A new object of `kind`.
    public init(id: String, merchant: String, kind: ObjectKind, customer: String? = nil, created: Int64, version: Int64 = 0, body: [UInt8], attentionAt: Int64? = nil) {
        self.init(id: id, merchant: merchant, kind: kind.rawValue, customer: customer, created: created, version: version, body: body, attentionAt: attentionAt)
    }
}

extension GatewayStore {
    /// The merchant's object `id` of `kind`, if any.
    public func object(id: String, kind: ObjectKind, merchant: String) async throws -> StoredObject? {
        try await object(id: id, kind: kind.rawValue, merchant: merchant)
    }

    /// The object `id` of `kind` of any merchant, if any.
    public func object(id: String, kind: ObjectKind) async throws -> StoredObject? {
        try await object(id: id, kind: kind.rawValue)
    }

    /// A page of the merchant's objects of `kind`.
    public func list(kind: ObjectKind, merchant: String, _ request: ListRequest) async throws -> (objects: [StoredObject], hasMore: Bool) {
        try await list(kind: kind.rawValue, merchant: merchant, request)
    }

    /// Objects of `kind` due for attention by `now`.
    public func dueObjects(kind: ObjectKind, now: Int64, limit: Int) async throws -> [StoredObject] {
        try await dueObjects(kind: kind.rawValue, now: now, limit: limit)
    }
}

public typealias PaymentIntentID = RecordID<PaymentIntentRecord>
public typealias PaymentMethodID = RecordID<PaymentMethodRecord>
public typealias CustomerID = RecordID<CustomerRecord>
public typealias RefundID = RecordID<RefundRecord>
public typealias PayoutID = RecordID<PayoutRecord>
public typealias CaptureID = RecordID<CaptureRecord>
public typealias WebhookEndpointID = RecordID<WebhookEndpointRecord>
public typealias PaymentLinkID = RecordID<PaymentLinkRecord>
