import Crypto

/// The kinds of event the gateway emits, as Stripe names them.
public enum GatewayEventType: String, Sendable, Codable, CaseIterable {
    case paymentIntentCreated = "payment_intent.created"
    case paymentIntentRequiresAction = "payment_intent.requires_action"
    case paymentIntentAmountCapturableUpdated = "payment_intent.amount_capturable_updated"
    case paymentIntentSucceeded = "payment_intent.succeeded"
    case paymentIntentPaymentFailed = "payment_intent.payment_failed"
    case paymentIntentCanceled = "payment_intent.canceled"
    case checkoutSessionCompleted = "checkout.session.completed"
    case checkoutSessionExpired = "checkout.session.expired"
    case setupIntentCreated = "setup_intent.created"
    case setupIntentRequiresAction = "setup_intent.requires_action"
    case setupIntentSucceeded = "setup_intent.succeeded"
    case setupIntentSetupFailed = "setup_intent.setup_failed"
    case setupIntentCanceled = "setup_intent.canceled"
    case chargeSucceeded = "charge.succeeded"
    case chargeFailed = "charge.failed"
    case chargePending = "charge.pending"
    case chargeCaptured = "charge.captured"
    case chargeRefunded = "charge.refunded"
}

/// A webhook endpoint of a merchant: where events are POSTed, which ones, and its signing
/// secret, sealed under the server's key (it must be read back to sign).
public struct WebhookEndpointRecord: Sendable, Codable, Equatable {
    public let id: WebhookEndpointID
    public var url: String
    /// Event types, or `*` for all.
    public var enabledEvents: [String]
    public let created: Int64
    public let sealedSecret: [UInt8]
    /// A disabled endpoint is sent nothing until it is enabled again (nil: enabled).
    public var disabled: Bool?
    public var description: String?
    /// nil in endpoints made before it was kept: none.
    public var metadata: [String: String]?

    public init(id: WebhookEndpointID, url: String, enabledEvents: [String], created: Int64, sealedSecret: [UInt8]) {
        self.id = id
        self.url = url
        self.enabledEvents = enabledEvents
        self.created = created
        self.sealedSecret = sealedSecret
    }

    /// Whether an event of `type` is delivered to it: enabled, and the type among its events.
    public func wants(_ type: String) -> Bool { disabled != true && (enabledEvents.contains("*") || enabledEvents.contains(type)) }
}

/// One event to deliver to one endpoint, kept until it is delivered or given up.
public struct WebhookDelivery: Sendable, Equatable {
    public enum Status: String, Sendable {
        case pending, delivered, failed
    }

    public let id: String
    public let merchant: String
    public let event: String
    public let endpoint: String
    public var attempts: Int
    /// Unix seconds.
    public var nextAttemptAt: Int64
    public var status: Status
    /// The HTTP status of the last attempt, 0 when it got no answer.
    public var lastStatusCode: Int?
    /// When the last attempt was made (unix seconds); nil before the first.
    public var lastAttemptAt: Int64?

    public init(
        id: String, merchant: String, event: String, endpoint: String, attempts: Int = 0, nextAttemptAt: Int64, status: Status = .pending,
        lastStatusCode: Int? = nil, lastAttemptAt: Int64? = nil
    ) {
        self.lastAttemptAt = lastAttemptAt
        self.id = id
        self.merchant = merchant
        self.event = event
        self.endpoint = endpoint
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.status = status
        self.lastStatusCode = lastStatusCode
    }
}

/// When a failed delivery is tried again: after `baseSeconds`, doubling each time up to
/// `maxDelaySeconds`, for at most `maxAttempts` attempts in all (Stripe retries for three days;
/// the defaults give up after 16 attempts, about 10 hours).
public struct WebhookRetryPolicy: Sendable, Equatable {
    public var baseSeconds: Int64
    public var maxDelaySeconds: Int64
    public var maxAttempts: Int

    public init(baseSeconds: Int64 = 1, maxDelaySeconds: Int64 = 3_600, maxAttempts: Int = 16) {
        precondition(baseSeconds >= 1 && maxDelaySeconds >= baseSeconds && (1...100).contains(maxAttempts), "a retry policy waits at least a second and tries 1 to 100 times")
        self.baseSeconds = baseSeconds
        self.maxDelaySeconds = maxDelaySeconds
        self.maxAttempts = maxAttempts
    }

    /// The delivery after an attempt that ended with `statusCode` (0: no answer) at `now`:
    /// delivered on a 2xx, else due again later, or failed for good after the last attempt.
    public func after(_ delivery: WebhookDelivery, statusCode: Int, now: Int64) -> WebhookDelivery {
        var next = delivery
        next.attempts += 1
        next.lastStatusCode = statusCode
        next.lastAttemptAt = now
        if (200..<300).contains(statusCode) {
            next.status = .delivered
        } else if next.attempts >= maxAttempts {
            next.status = .failed
        } else {
            // 2^(attempts-1) × base, capped; the shift stays small because attempts ≤ 100.
            let doublings = min(next.attempts - 1, 40)
            let delay = min(baseSeconds << Int64(doublings), maxDelaySeconds)
            next.nextAttemptAt = now + delay
        }
        return next
    }
}

extension WebhookDelivery {
    /// The delivery asked for again by hand (the console's Resend): due now, whatever it was.
    /// Its attempts so far are kept, so one that had used them all is tried once more (and fails
    /// again for good if that attempt fails); one still within them goes on with its back-off.
    public func resent(now: Int64) -> WebhookDelivery {
        var again = self
        again.status = .pending
        again.nextAttemptAt = now
        return again
    }
}

/// Stripe's webhook signature: `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, which
/// `stripe.Webhook.construct_event` verifies (the secret's UTF-8 bytes are the key).
public enum WebhookSignature {
    public static func header(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(timestamp).".utf8) + body, using: SymmetricKey(data: Array(secret.utf8)))
        return "t=\(timestamp),v1=" + mac.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }
}
