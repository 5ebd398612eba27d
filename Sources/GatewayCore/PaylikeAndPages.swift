import Foundation
import Gateway
import TenderJSON

/// A Paylike payment to authorize, checked by Paylike's protocol at the edge; its ids come from
/// the payment (so the same payment sent again finds its authorization).
package struct PaylikeAuthorization: Sendable {
    package var intentID: PaymentIntentID
    package var methodID: PaymentMethodID
    package var clientSecret: String
    package var amount: Int64
    package var currency: GatewayCurrency
    package var card: PaymentMethodRecord.Card
    package var text: String?
    package var custom: String?
    package var plan: String?
    package var unplanned: [String]?
    package var flow: PaylikeFlow
    /// The 3-D Secure challenge's answer among the hints, if one was given.
    package var challengeAnswer: String?

    package init(
        intentID: PaymentIntentID, methodID: PaymentMethodID, clientSecret: String, amount: Int64, currency: GatewayCurrency, card: PaymentMethodRecord.Card,
        text: String?, custom: String?, plan: String?, unplanned: [String]?, flow: PaylikeFlow, challengeAnswer: String?
    ) {
        self.intentID = intentID
        self.methodID = methodID
        self.clientSecret = clientSecret
        self.amount = amount
        self.currency = currency
        self.card = card
        self.text = text
        self.custom = custom
        self.plan = plan
        self.unplanned = unplanned
        self.flow = flow
        self.challengeAnswer = challengeAnswer
    }
}

/// Paylike's authorizations and merchant actions, the payment pages' links and the pages'
/// lookups, the merchants and their events: what the edges other than Stripe's need of the
/// gateway, so that none of them reads the store.
extension GatewayService {
    // MARK: Paylike

    /// The authorization: a payment intent with manual capture, walked through the state
    /// machine as the flow decided, stored only when authorized (a refusal is recomputed the
    /// same way if the payment is sent again). Returns the intent's id.
    /// - Throws: ``GatewayFailure``: a card failure whose code is Paylike's
    ///   (``PaylikeFlow/code(for:)``) when the flow refuses the payment.
    package func authorize(_ payment: PaylikeAuthorization, merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> PaymentIntentID {
        try await failing { () async throws -> PaymentIntentID in
            let id = payment.intentID
            if try await store.object(id: id.rawValue, kind: .paymentIntent, merchant: merchant.id) != nil { return id }
            let method = PaymentMethodRecord(id: payment.methodID, type: .card, created: now(), card: payment.card)
            var intent = PaymentIntentRecord(
                id: id, clientSecret: payment.clientSecret, currency: payment.currency.code,
                created: now(), machine: PaymentIntentStateMachine(amount: payment.amount, captureMethod: .manual), paymentMethodTypes: [.card])
            intent.description = payment.text
            intent.custom = payment.custom
            intent.plan = payment.plan
            intent.unplanned = payment.unplanned
            intent.metadata["paylike_integration"] = "client"
            try intent.machine.attach(paymentMethod: method.id.rawValue, type: .card)
            var walked = intent
            let action = try payment.flow.authorize(&walked.machine, challengeAnswer: payment.challengeAnswer)
            if case .failed(let failure) = action {
                throw GatewayFailure(.card, code: GatewayFailure.Code(rawValue: PaylikeFlow.code(for: failure).rawValue), message: failure.message)
            }
            // The same payment sent twice at once: both make the same payment method (the second
            // insert finds it there) and the intent's insert decides which one authorizes.
            if try await store.object(id: method.id.rawValue, kind: .paymentMethod, merchant: merchant.id) == nil {
                do {
                    try await insert(method, id: method.id, merchant: merchant)
                } catch {
                    guard try await store.object(id: method.id.rawValue, kind: .paymentMethod, merchant: merchant.id) != nil else { throw error }
                }
            }
            let stored: StoredObject
            do {
                stored = try await insert(intent, id: id, merchant: merchant)
            } catch {
                if try await store.object(id: id.rawValue, kind: .paymentIntent, merchant: merchant.id) != nil { return id }
                throw error
            }
            _ = try await perform(action, on: walked, over: stored, merchant, base: base)
            logger.info("paylike payment authorized", metadata: ["payment.intent.id": "\(id)", "merchant.id": "\(merchant.id)"])
            return id
        }
    }

    /// Releases `amount` of an authorization (Paylike's void): the rest stays capturable; all of
    /// it cancels the intent.
    /// - Throws: ``GatewayFailure``: a state refusal (`amount` more than is capturable).
    package func void(_ amount: Int64, of intentID: PaymentIntentID, merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> PaymentIntentRecord {
        try await failing { () async throws -> PaymentIntentRecord in
            var (intent, stored) = try await load(PaymentIntentRecord.self, id: intentID, merchant: merchant)
            do { _ = try intent.machine.void(amount) } catch let error as PaymentIntentStateError { throw GatewayFailure.state(error, intent: intent) }
            intent.trail = (intent.trail ?? []) + [TrailEntry(kind: .void, amount: amount, created: now())]
            if intent.machine.status == .canceled, intent.canceledAt == nil { intent.canceledAt = now() }
            _ = try await save(intent, over: stored, attentionAt: .some(attentionTime(intent)))
            if intent.machine.status == .canceled {
                await emit(.paymentIntentCanceled, GatewayObjects.paymentIntent(intent, base: base), merchant: merchant)
            }
            return intent
        }
    }

    /// Captures `amount` of an authorization without closing it (Paylike's captures: more may
    /// follow while some stays capturable), settled on the ledger under the capture's own memo.
    /// - Throws: ``GatewayFailure``: a state refusal (`amount` more than is capturable).
    package func capture(_ amount: Int64, of intentID: PaymentIntentID, descriptor: String?, merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> PaymentIntentRecord {
        try await failing { () async throws -> PaymentIntentRecord in
            var (intent, stored) = try await load(PaymentIntentRecord.self, id: intentID, merchant: merchant)
            do { _ = try intent.machine.capture(amount, final: false) } catch let error as PaymentIntentStateError { throw GatewayFailure.state(error, intent: intent) }
            intent.trail = (intent.trail ?? []) + [TrailEntry(kind: .capture, amount: amount, created: now(), descriptor: descriptor)]
            return try await capturePart(amount, of: intent, over: stored, merchant: merchant, base: base)
        }
    }

    /// An intent of the merchant's, as read, for an action that changes it here.
    package func intent(_ id: PaymentIntentID, merchant: MerchantRecord) async throws(GatewayFailure) -> (PaymentIntentRecord, StoredObject) {
        try await failing { try await load(PaymentIntentRecord.self, id: id, merchant: merchant) }
    }

    // MARK: Payment pages

    /// Stores a payment link of the merchant's.
    /// - Throws: ``GatewayFailure`` `merchant_too_old` for a merchant without a derivable
    ///   publishable key (its pages could not pay).
    package func createPaymentLink(_ link: PaymentLinkRecord, merchant: MerchantRecord) async throws(GatewayFailure) {
        guard publishableKey(of: merchant) != nil else {
            throw GatewayFailure.invalid(nil, "This merchant was made before payment pages existed; make a new merchant for them.", code: "merchant_too_old")
        }
        try await failing { try await insert(link, id: link.id, merchant: merchant) }
    }

    /// A payment link and its merchant, by the link's id alone (the page's URL); nil when there
    /// is none.
    package func paymentLink(_ id: String) async throws(GatewayFailure) -> (PaymentLinkRecord, MerchantRecord)? {
        guard id.hasPrefix("plink_"), id.utf8.count <= 255 else { return nil }
        return try await failing { () async throws -> (PaymentLinkRecord, MerchantRecord)? in
            guard let stored = try await store.object(id: id, kind: .paymentLink), let merchant = try await store.merchant(id: stored.merchant) else { return nil }
            return (try records.decode(PaymentLinkRecord.self, stored), merchant)
        }
    }

    /// A payment through a link: a new intent of the link's merchant (card, and iDEAL and
    /// Bancontact for euros), whose id and client secret the page pays with.
    /// - Throws: ``GatewayFailure`` `payment_link_inactive` for a link switched off.
    package func startPayment(from link: PaymentLinkRecord, merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> PaymentIntentRecord {
        guard link.active else { throw GatewayFailure.invalid(nil, "This payment link is no longer active.", code: "payment_link_inactive") }
        return try await failing { () async throws -> PaymentIntentRecord in
            let id = PaymentIntentID(newID("pi"))
            var intent = PaymentIntentRecord(
                id: id, clientSecret: id.rawValue + "_secret_" + String(GatewayIDs.make("s", random: random).dropFirst(2)), currency: link.currency,
                created: now(), machine: PaymentIntentStateMachine(amount: link.amount, captureMethod: .automatic),
                paymentMethodTypes: link.currency == "eur" ? [.card, .ideal, .bancontact] : [.card], metadata: ["payment_link": link.id.rawValue])
            intent.description = link.description
            try await insert(intent, id: id, merchant: merchant)
            await emit(.paymentIntentCreated, GatewayObjects.paymentIntent(intent, base: base), merchant: merchant)
            return intent
        }
    }

    /// The intent a customer's page names by its client secret, as read, with its merchant; nil
    /// when the secret is no intent's (nothing tells a wrong secret from a missing intent).
    package func intent(clientSecret secret: String) async throws(GatewayFailure) -> (PaymentIntentRecord, StoredObject, MerchantRecord)? {
        guard secret.utf8.count <= 255, let range = secret.range(of: "_secret_") else { return nil }
        do {
            return try await intent(id: String(secret[..<range.lowerBound]), clientSecret: secret)
        } catch {
            guard error.category == .invalidRequest else { throw error }
            return nil
        }
    }

    /// The intent `id` of any merchant, as read, with its merchant; nil when there is none.
    /// - Throws: ``GatewayFailure`` for a client secret that is not the intent's (compared in
    ///   constant time) or missing.
    package func intent(id: String, clientSecret: String?) async throws(GatewayFailure) -> (PaymentIntentRecord, StoredObject, MerchantRecord)? {
        guard id.utf8.count <= 255 else { return nil }
        let found = try await failing { () async throws -> (PaymentIntentRecord, StoredObject, MerchantRecord)? in
            guard let stored = try await store.object(id: id, kind: .paymentIntent), let merchant = try await store.merchant(id: stored.merchant) else { return nil }
            return (try records.decode(PaymentIntentRecord.self, stored), stored, merchant)
        }
        guard let found else { return nil }
        try Self.checkClientSecret(clientSecret, of: found.0)
        return found
    }

    // MARK: Merchants and events

    /// Every merchant, for the operator.
    package func merchants() async throws(GatewayFailure) -> [MerchantRecord] {
        try await failing { try await store.merchants() }
    }

    /// The merchant with this id; nil for none.
    package func merchant(id: String) async throws(GatewayFailure) -> MerchantRecord? {
        guard id.utf8.count <= 255 else { return nil }
        return try await failing { try await store.merchant(id: id) }
    }
}
