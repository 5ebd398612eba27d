/// A merchant of the gateway: its keys (only their SHA-256 hashes), and its settlement account
/// on the ledger, whose secret seed is kept sealed under the server's key.
public struct MerchantRecord: Sendable, Codable, Equatable {
    /// `acct_...`
    public let id: String
    public let name: String
    public let secretKeyHash: [UInt8]
    public let publishableKeyHash: [UInt8]
    /// The settlement account's address (G...).
    public let settlementAccount: String
    /// The settlement account's seed, sealed (ChaCha20-Poly1305) under the server's key.
    public let sealedSettlementSeed: [UInt8]
    /// Unix seconds.
    public let created: Int64

    public init(id: String, name: String, secretKeyHash: [UInt8], publishableKeyHash: [UInt8], settlementAccount: String, sealedSettlementSeed: [UInt8], created: Int64) {
        self.id = id
        self.name = name
        self.secretKeyHash = secretKeyHash
        self.publishableKeyHash = publishableKeyHash
        self.settlementAccount = settlementAccount
        self.sealedSettlementSeed = sealedSettlementSeed
        self.created = created
    }
}

/// An object written with the change that makes it: an event (a stored object of kind `event`)
/// with its deliveries, or a record the change makes, such as a balance transaction (no
/// deliveries).
public struct StoredEvent: Sendable {
    public let object: StoredObject
    public let deliveries: [WebhookDelivery]

    public init(object: StoredObject, deliveries: [WebhookDelivery]) {
        self.object = object
        self.deliveries = deliveries
    }
}

/// Which of a merchant's two keys a request presented.
public enum KeyKind: String, Sendable {
    case secret, publishable
}

/// One stored API object of a merchant (payment method, customer, payment intent, refund,
/// event): its id, kind, owner and the JSON of its record; `version` counts its updates, so two
/// writers cannot both move the same intent.
public struct StoredObject: Sendable, Equatable {
    public let id: String
    public let merchant: String
    /// `payment_method`, `payment_intent`...
    public let kind: String
    /// The key it is listed by: for a payment method its customer, for a customer its e-mail.
    public var customer: String?
    public let created: Int64
    public var version: Int64
    public var body: [UInt8]
    /// When the gateway's janitor must look at it (an expiry, a retry), unix seconds; nil: never.
    public var attentionAt: Int64?

    public init(id: String, merchant: String, kind: String, customer: String? = nil, created: Int64, version: Int64 = 0, body: [UInt8], attentionAt: Int64? = nil) {
        self.id = id
        self.merchant = merchant
        self.kind = kind
        self.customer = customer
        self.created = created
        self.version = version
        self.body = body
        self.attentionAt = attentionAt
    }
}

/// A page of a list, newest first, as Stripe lists: `starting_after` (older than that id) or
/// `ending_before` (newer than that id), at most `limit` (1-100).
public struct ListRequest: Sendable, Equatable {
    public var limit: Int
    public var startingAfter: String?
    public var endingBefore: String?
    /// Only objects filed under this key: a payment method's customer, a customer's e-mail.
    public var customer: String?

    public init(limit: Int = 10, startingAfter: String? = nil, endingBefore: String? = nil, customer: String? = nil) {
        precondition((1...100).contains(limit), "a page holds 1 to 100 objects")
        self.limit = limit
        self.startingAfter = startingAfter
        self.endingBefore = endingBefore
        self.customer = customer
    }
}

/// What the store knows of an idempotency key when a request presents it.
public enum IdempotencyClaim: Sendable, Equatable {
    /// First time: the caller runs the request and records its answer. `created` is when the key
    /// was first claimed; `resumed` tells that a request with this key was running when the
    /// server stopped without answering, so this one finishes its work.
    case claimed(created: Int64, resumed: Bool)
    /// Answered before with the same parameters: replay this answer.
    case replay(status: Int, body: [UInt8])
    /// Used before with other parameters.
    case mismatch
    /// The first request with this key is still running.
    case inProgress
}

/// Where the gateway keeps its merchants and objects: async, so that a SQLite store (through
/// GRDB's async API) and a PostgreSQL store serve the same routes.
public protocol GatewayStore: Sendable {
    func insertMerchant(_ merchant: MerchantRecord) async throws
    /// The merchant whose secret or publishable key hashes to `keyHash`, and which key it is.
    func merchant(keyHash: [UInt8]) async throws -> (MerchantRecord, KeyKind)?
    func merchants() async throws -> [MerchantRecord]
    func merchant(id: String) async throws -> MerchantRecord?

    func insert(_ object: StoredObject) async throws
    /// One of `merchant`'s objects of `kind`; nil for an unknown id or another merchant's.
    func object(id: String, kind: String, merchant: String) async throws -> StoredObject?
    /// An object of `kind` whoever owns it: for the test pages a customer's browser opens, which
    /// present the intent's client secret instead of a key.
    func object(id: String, kind: String) async throws -> StoredObject?
    /// Replaces an object if it is still at `object.version`, and bumps the version.
    /// - Returns: false when someone else updated it first.
    func update(_ object: StoredObject) async throws -> Bool
    /// Replaces `update` (if still at its version) and inserts `insert`, both or neither.
    /// - Returns: false when someone else updated `update` first (nothing written).
    func update(_ update: StoredObject, inserting insert: StoredObject) async throws -> Bool
    /// Files `object` (if still at its version) under `kind` instead, bumping its version: a
    /// deleted customer or endpoint, kept as Stripe keeps what it deleted, out of its kind's
    /// lists and reads.
    /// - Returns: false when someone else updated it first (nothing written).
    func retire(_ object: StoredObject, as kind: String) async throws -> Bool
    /// A page of `merchant`'s objects of `kind`, newest first, and whether more follow.
    func list(kind: String, merchant: String, _ request: ListRequest) async throws -> (objects: [StoredObject], hasMore: Bool)

    /// Claims `key` for a request whose parameters hash to `requestHash`; answers older than
    /// `expiresBefore` (unix seconds) are forgotten.
    func claimIdempotencyKey(_ key: String, merchant: String, requestHash: [UInt8], now: Int64, expiresBefore: Int64) async throws -> IdempotencyClaim
    /// Records the answer of the request that claimed `key`.
    func recordIdempotentAnswer(_ key: String, merchant: String, status: Int, body: [UInt8]) async throws
    /// Marks a key whose request ended without an answer to keep (an internal failure, the
    /// server shutting down) as interrupted, as a stop would leave it: the next request with it
    /// resumes under the key's first claim time (``IdempotencyClaim/claimed(created:resumed:)``),
    /// so it finds what this one made (an intent whose money may have moved, a refund, a
    /// payout) instead of making another. A key answered already is left as it is.
    func interruptIdempotencyKey(_ key: String, merchant: String) async throws
    /// At start-up: every key still claimed was running when the server stopped; the next
    /// request with it resumes (``IdempotencyClaim/claimed(created:resumed:)``).
    func markInterruptedIdempotencyKeys() async throws

    /// Objects of `kind`, of every merchant, whose attention time has come, earliest first.
    func dueObjects(kind: String, now: Int64, limit: Int) async throws -> [StoredObject]

    /// Stores an event and its deliveries together, so no event is kept without them.
    func insertEvent(_ event: StoredObject, deliveries: [WebhookDelivery]) async throws
    /// In one transaction: `object` inserted (`isNew`) or replaced if still at its version (and
    /// its version bumped), and `events` each with its deliveries: an intent's new state and the
    /// events that report it are kept together or not at all.
    /// - Returns: false when the replacement lost its race (nothing written).
    func write(_ object: StoredObject, isNew: Bool, events: [StoredEvent]) async throws -> Bool
    /// Pending deliveries due at `now`, oldest first.
    func dueDeliveries(now: Int64, limit: Int) async throws -> [WebhookDelivery]
    /// The earliest time a pending delivery is due, if any is pending.
    func nextDeliveryTime() async throws -> Int64?
    func updateDelivery(_ delivery: WebhookDelivery) async throws
    /// Every delivery of one event (for the event's `pending_webhooks` and its attempts).
    func deliveries(event: String) async throws -> [WebhookDelivery]
    /// The latest `limit` deliveries to one endpoint, newest first (whether it is failing).
    func deliveries(endpoint: String, limit: Int) async throws -> [WebhookDelivery]
}
