import Gateway
import TenderJSON

/// A Checkout Session to make.
package struct NewCheckoutSession: Sendable {
    package var lineItems: [SessionLineItem]
    package var currency: GatewayCurrency
    package var successURL: String
    package var cancelURL: String?
    package var customer: CustomerID?
    package var customerEmail: String?
    package var clientReferenceID: String?
    package var paymentMethodTypes: [PaymentMethodType]
    package var metadata: [String: String]
    /// When it expires unpaid: 30 minutes to 24 hours from now (24 hours when nil).
    package var expiresAt: Int64?

    package init(
        lineItems: [SessionLineItem], currency: GatewayCurrency, successURL: String, cancelURL: String? = nil, customer: CustomerID? = nil,
        customerEmail: String? = nil, clientReferenceID: String? = nil, paymentMethodTypes: [PaymentMethodType] = [.card], metadata: [String: String] = [:],
        expiresAt: Int64? = nil
    ) {
        self.lineItems = lineItems
        self.currency = currency
        self.successURL = successURL
        self.cancelURL = cancelURL
        self.customer = customer
        self.customerEmail = customerEmail
        self.clientReferenceID = clientReferenceID
        self.paymentMethodTypes = paymentMethodTypes
        self.metadata = metadata
        self.expiresAt = expiresAt
    }
}

/// A session as read: the session and the intent that pays it.
package struct CheckoutSessionView: Sendable {
    package let session: CheckoutSessionRecord
    package let intent: PaymentIntentRecord
    package let merchant: MerchantRecord

    package func status(now: Int64) -> CheckoutSessionStatus { CheckoutSessionStatus.of(session, intentStatus: intent.machine.status, now: now) }
}

/// Checkout Sessions: line items paid on Tender's hosted page through an intent made with the
/// session; complete once it succeeds (reported by `checkout.session.completed`, written with
/// the payment), expired by the merchant or by its time.
extension GatewayService {
    package static let sessionLifetimeSeconds: Int64 = 24 * 3_600

    /// Makes a session and the intent that pays it.
    /// - Throws: ``GatewayFailure``: line items the rules refuse, a success or cancel URL that is
    ///   not absolute http(s), an expiry outside 30 minutes to 24 hours, an unknown customer, a
    ///   rule of payment intents broken (a currency or method the total cannot be paid in).
    package func createCheckoutSession(_ new: NewCheckoutSession, merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> CheckoutSessionView {
        let total: Int64
        do { total = try CheckoutSessionRules.total(new.lineItems) } catch { throw GatewayFailure.invalid(error.parameter, error.message) }
        return try await failing { () async throws -> CheckoutSessionView in
            let successURL = try Self.checkedURL(new.successURL, parameter: "success_url")
            let cancelURL = try new.cancelURL.map { try Self.checkedURL($0, parameter: "cancel_url") }
            let created = now()
            let expiresAt = new.expiresAt ?? created + Self.sessionLifetimeSeconds
            guard expiresAt >= created + 1_800, expiresAt <= created + Self.sessionLifetimeSeconds else {
                throw GatewayFailure.invalid("expires_at", "expires_at must be 30 minutes to 24 hours from now.")
            }
            guard new.metadata.count <= 50 else { throw GatewayFailure.invalid("metadata", "Metadata may have at most 50 keys.") }
            if new.customer != nil, new.customerEmail != nil {
                throw GatewayFailure.invalid("customer_email", "You may only specify one of these parameters: customer, customer_email.")
            }
            let id = CheckoutSessionID(newID("cs_test", length: 40))
            var intentRequest = NewPaymentIntent(
                amount: total, currency: new.currency, paymentMethodTypes: new.paymentMethodTypes,
                fields: IntentFields(customer: new.customer, metadata: new.metadata.mapValues { Optional($0) }))
            intentRequest.checkoutSession = id
            let intent = try await createPaymentIntent(intentRequest, merchant: merchant, idempotency: nil, base: base)
            var session = CheckoutSessionRecord(
                id: id, created: created, expiresAt: expiresAt, currency: new.currency.code, lineItems: new.lineItems, amountTotal: total,
                paymentIntent: intent.id, successURL: successURL, paymentMethodTypes: new.paymentMethodTypes, metadata: new.metadata)
            session.cancelURL = cancelURL
            session.customer = new.customer
            session.customerEmail = new.customerEmail
            session.clientReferenceID = new.clientReferenceID
            try await insert(session, id: id, merchant: merchant, customer: new.customer?.rawValue)
            return CheckoutSessionView(session: session, intent: intent, merchant: merchant)
        }
    }

    /// One of the merchant's sessions.
    package func checkoutSession(_ id: CheckoutSessionID, merchant: MerchantRecord) async throws(GatewayFailure) -> CheckoutSessionView {
        try await failing { () async throws -> CheckoutSessionView in
            let session = try await load(CheckoutSessionRecord.self, id: id, merchant: merchant).0
            let intent = try await load(PaymentIntentRecord.self, id: session.paymentIntent, merchant: merchant).0
            return CheckoutSessionView(session: session, intent: intent, merchant: merchant)
        }
    }

    /// A session by its id alone, for its hosted page (the id is the page's address, as a
    /// payment link's is); nil for none.
    package func checkoutSession(page id: String) async throws(GatewayFailure) -> CheckoutSessionView? {
        guard id.utf8.count <= 255 else { return nil }
        return try await failing { () async throws -> CheckoutSessionView? in
            guard let stored = try await store.object(id: id, kind: .checkoutSession), let merchant = try await store.merchant(id: stored.merchant) else { return nil }
            let session = try records.decode(CheckoutSessionRecord.self, stored)
            let intent = try await load(PaymentIntentRecord.self, id: session.paymentIntent, merchant: merchant).0
            return CheckoutSessionView(session: session, intent: intent, merchant: merchant)
        }
    }

    /// A page of the merchant's sessions, newest first: of one customer, or the one its
    /// intent pays.
    package func checkoutSessions(merchant: MerchantRecord, page: ListRequest, customer: CustomerID?, paymentIntent: PaymentIntentID?) async throws(GatewayFailure) -> (views: [CheckoutSessionView], hasMore: Bool) {
        try await failing { () async throws -> (views: [CheckoutSessionView], hasMore: Bool) in
            if let paymentIntent {
                guard let intent = try await find(PaymentIntentRecord.self, id: paymentIntent, merchant: merchant), let id = intent.checkoutSession else { return ([], false) }
                return ([try await checkoutSession(id, merchant: merchant)], false)
            }
            var page = page
            page.customer = customer?.rawValue
            let (sessions, hasMore) = try await list(CheckoutSessionRecord.self, merchant: merchant, page)
            var views: [CheckoutSessionView] = []
            for session in sessions {
                views.append(CheckoutSessionView(session: session, intent: try await load(PaymentIntentRecord.self, id: session.paymentIntent, merchant: merchant).0, merchant: merchant))
            }
            return (views, hasMore)
        }
    }

    /// Expires an open session: its intent is canceled (so it can never be paid), and
    /// `checkout.session.expired` reports it.
    /// - Throws: ``GatewayFailure`` for a session that is not open (or whose payment won the race).
    package func expireCheckoutSession(_ id: CheckoutSessionID, merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> CheckoutSessionView {
        let view = try await checkoutSession(id, merchant: merchant)
        let status = view.status(now: now())
        guard status == .open || (status == .expired && view.session.expiredAt == nil && view.intent.machine.status != .canceled) else {
            throw GatewayFailure.invalid(nil, "Only Checkout Sessions with a status in [open] can be expired; this one is \(status.rawValue).", code: .checkoutSessionNotOpen)
        }
        return try await failing { () async throws -> CheckoutSessionView in
            let intent: PaymentIntentRecord
            do {
                intent = try await cancelPaymentIntent(view.intent.id, reason: .abandoned, merchant: merchant, base: base)
            } catch {
                throw GatewayFailure.invalid(nil, "This Checkout Session is being paid; it cannot be expired.", code: .checkoutSessionNotOpen)
            }
            var (session, stored) = try await load(CheckoutSessionRecord.self, id: id, merchant: merchant)
            session.expiredAt = now()
            let expired = CheckoutSessionView(session: session, intent: intent, merchant: merchant)
            let event = try await event(.checkoutSessionExpired, GatewayObjects.checkoutSession(session, intent: intent, now: now(), base: base), merchant: merchant)
            _ = try await save(session, over: stored, events: [event])
            return expired
        }
    }

    /// The event of a session its intent completes, to be written with the payment's success.
    func sessionCompleted(_ intent: PaymentIntentRecord, merchant: MerchantRecord, base: String) async throws -> [StoredEvent] {
        guard let id = intent.checkoutSession, let session = try await find(CheckoutSessionRecord.self, id: id, merchant: merchant) else { return [] }
        return [try await event(.checkoutSessionCompleted, GatewayObjects.checkoutSession(session, intent: intent, now: now(), base: base), merchant: merchant)]
    }
}
