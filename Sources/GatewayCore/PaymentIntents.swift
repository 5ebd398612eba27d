import Foundation
import Gateway
import TenderJSON

/// The idempotency key a request runs under, given to the operations whose new object's id
/// comes from it (so a request retried after the server stopped in the middle of it finds what
/// it made instead of making another).
package struct Idempotency: Sendable {
    package let merchant: String
    package let key: String
    /// When the key was first claimed.
    package let created: Int64
    /// Whether this request finishes one the server stopped in the middle of.
    package let resumed: Bool

    package init(merchant: String, key: String, created: Int64, resumed: Bool) {
        self.merchant = merchant
        self.key = key
        self.created = created
        self.resumed = resumed
    }
}

/// The fields of an intent any create or update may set. nil leaves a field as it is; an empty
/// text clears it; a metadata value of nil deletes its key.
package struct IntentFields: Sendable {
    package var description: String?
    package var statementDescriptor: String?
    /// An absolute http or https URL (checked by ``GatewayService/checkedURL(_:)``).
    package var returnURL: String?
    /// A customer of the merchant's; an empty id clears it.
    package var customer: CustomerID?
    package var metadata: [String: String?]?

    package init(description: String? = nil, statementDescriptor: String? = nil, returnURL: String? = nil, customer: CustomerID? = nil, metadata: [String: String?]? = nil) {
        self.description = description
        self.statementDescriptor = statementDescriptor
        self.returnURL = returnURL
        self.customer = customer
        self.metadata = metadata
    }
}

/// A payment intent to make.
package struct NewPaymentIntent: Sendable {
    package var amount: Int64
    package var currency: GatewayCurrency
    package var paymentMethodTypes: [PaymentMethodType]
    package var captureMethod: CaptureMethod
    /// A payment method of the merchant's to attach at once.
    package var paymentMethod: PaymentMethodID?
    /// A payment method to make and attach at once (`payment_method_data`), instead.
    package var paymentMethodData: NewPaymentMethod?
    /// Confirmed in the same request.
    package var confirm: Bool
    package var fields: IntentFields
    /// A marketplace order's payment: settled whole into this escrow account, its fee taken
    /// when the escrow releases it.
    package var escrowAccount: String?
    /// Save the payment method for the intent's customer once paid.
    package var setupFutureUsage: FutureUsage?
    /// Paid without the customer there (needs `confirm`).
    package var offSession = false
    /// The Checkout Session it pays.
    package var checkoutSession: CheckoutSessionID?

    package init(
        amount: Int64, currency: GatewayCurrency, paymentMethodTypes: [PaymentMethodType] = [.card], captureMethod: CaptureMethod = .automatic,
        paymentMethod: PaymentMethodID? = nil, paymentMethodData: NewPaymentMethod? = nil, confirm: Bool = false, fields: IntentFields = IntentFields(),
        escrowAccount: String? = nil
    ) {
        self.paymentMethodData = paymentMethodData
        self.amount = amount
        self.currency = currency
        self.paymentMethodTypes = paymentMethodTypes
        self.captureMethod = captureMethod
        self.paymentMethod = paymentMethod
        self.confirm = confirm
        self.fields = fields
        self.escrowAccount = escrowAccount
    }
}

/// A confirmation's parameters.
package struct IntentConfirmation: Sendable {
    package var paymentMethod: PaymentMethodID?
    /// A payment method to make and attach (`payment_method_data`), instead.
    package var paymentMethodData: NewPaymentMethod?
    package var returnURL: String?
    /// Given with a publishable key: the intent's client secret, which must match.
    package var clientSecret: String?
    package var setupFutureUsage: FutureUsage?
    /// Paid without the customer there.
    package var offSession: Bool?

    package init(paymentMethod: PaymentMethodID? = nil, paymentMethodData: NewPaymentMethod? = nil, returnURL: String? = nil, clientSecret: String? = nil) {
        self.paymentMethod = paymentMethod
        self.paymentMethodData = paymentMethodData
        self.returnURL = returnURL
        self.clientSecret = clientSecret
    }
}

/// Payment intents: made, updated, confirmed, captured and cancelled by their state machine.
/// `base` is the server's URL, for the links in the events.
extension GatewayService {
    /// Makes an intent (and, asked to, confirms it in the same write). Returns it as stored.
    /// - Throws: ``GatewayFailure``: a rule of ``PaymentIntentRules`` broken, an unknown or
    ///   incompatible payment method, a decline (card, with the intent, which exists), a state
    ///   refusal.
    package func createPaymentIntent(_ new: NewPaymentIntent, merchant: MerchantRecord, idempotency: Idempotency?, base: String) async throws(GatewayFailure) -> PaymentIntentRecord {
        try await failing { () async throws -> PaymentIntentRecord in
            do {
                try PaymentIntentRules.check(amount: new.amount, currency: new.currency, types: new.paymentMethodTypes, captureMethod: new.captureMethod)
            } catch let error as PaymentIntentRules.Violation {
                throw GatewayFailure.invalid(error.parameter, error.message, code: GatewayFailure.Code(rawValue: error.code.rawValue))
            }
            // Under an idempotency key the id comes from the key, so a request retried after the
            // server stopped in the middle of it finds the intent it made instead of making another.
            let id = PaymentIntentID(idempotency.map { derivedID("pi", from: $0) } ?? newID("pi"))
            if idempotency?.resumed == true, let existing = try await store.object(id: id.rawValue, kind: .paymentIntent, merchant: merchant.id) {
                let intent = try records.decode(PaymentIntentRecord.self, existing)
                if new.confirm, intent.machine.status == .requiresConfirmation {
                    return try await confirmPaymentIntent(id, IntentConfirmation(), merchant: merchant, key: .secret, base: base)
                }
                return intent
            }
            var intent = PaymentIntentRecord(
                id: id, clientSecret: id.rawValue + "_secret_" + String(GatewayIDs.make("s", random: random).dropFirst(2)),
                currency: new.currency.code, created: now(),
                machine: PaymentIntentStateMachine(amount: new.amount, captureMethod: new.captureMethod), paymentMethodTypes: new.paymentMethodTypes)
            intent.escrowAccount = new.escrowAccount
            intent.setupFutureUsage = new.setupFutureUsage
            intent.checkoutSession = new.checkoutSession
            if new.offSession {
                guard new.confirm else { throw GatewayFailure.invalid("off_session", "off_session can only be used with confirm=true.") }
                intent.offSession = true
            }
            try await checkCustomer(new.fields, merchant: merchant)
            try Self.apply(new.fields, to: &intent)
            var method: PaymentMethodRecord?
            // An inline method is stored in the intent's own first write.
            var made: [StoredEvent] = []
            if let requested = try await requestedMethod(new.paymentMethod, new.paymentMethodData, merchant: merchant) {
                method = try await attach(requested.method, to: &intent)
                made += requested.unsaved.map { [$0] } ?? []
            }
            // Stored once, with its payment_intent.created event, and when confirmed at once, in
            // the state the confirmation leaves it in (one write instead of two).
            let unsaved = StoredObject(id: id.rawValue, merchant: merchant.id, kind: .paymentIntent, created: now(), body: [])
            let created = [try await event(.paymentIntentCreated, GatewayObjects.paymentIntent(intent, base: base), merchant: merchant)] + made
            if new.confirm {
                let confirmed: (intent: PaymentIntentRecord, action: PaymentIntentStateMachine.Action, made: [StoredEvent])
                do {
                    confirmed = try await confirmation(of: intent, IntentConfirmation(), merchant: merchant, key: .secret, method: method)
                } catch {
                    // As before a confirmation: the intent exists even when its confirmation is refused.
                    _ = try await save(intent, over: unsaved, isNew: true, events: created)
                    throw error
                }
                return try await perform(confirmed.action, on: confirmed.intent, over: unsaved, merchant, base: base, isNew: true, events: created + confirmed.made)
            }
            _ = try await save(intent, over: unsaved, isNew: true, events: created)
            return intent
        }
    }

    /// Changes an intent that may still change: its amount (checked by the rules), fields and
    /// payment method.
    /// - Throws: ``GatewayFailure``: not found, not updatable in its status, a rule broken.
    package func updatePaymentIntent(_ id: PaymentIntentID, amount: Int64?, paymentMethod: PaymentMethodID?, fields: IntentFields, merchant: MerchantRecord) async throws(GatewayFailure) -> PaymentIntentRecord {
        try await failing { () async throws -> PaymentIntentRecord in
            var (intent, stored) = try await load(PaymentIntentRecord.self, id: id, merchant: merchant)
            guard intent.machine.isUpdatable else {
                throw GatewayFailure.state(PaymentIntentStateError(code: .unexpectedState, message: "This PaymentIntent's fields cannot be updated because it has a status of \(intent.machine.status.rawValue).", parameter: nil), intent: intent)
            }
            if let amount {
                do { try PaymentIntentRules.check(amount: amount, types: intent.paymentMethodTypes) } catch let error as PaymentIntentRules.Violation {
                    throw GatewayFailure.invalid(error.parameter, error.message, code: GatewayFailure.Code(rawValue: error.code.rawValue))
                }
                do { try intent.machine.update(amount: amount) } catch let error as PaymentIntentStateError { throw GatewayFailure.state(error, intent: intent) }
            }
            try await checkCustomer(fields, merchant: merchant)
            try Self.apply(fields, to: &intent)
            if let paymentMethod { try await attach(paymentMethod, to: &intent, merchant) }
            _ = try await save(intent, over: stored)
            return intent
        }
    }

    /// Confirms an intent: its payment method asked (the test acquirer), the state machine
    /// moved, the money settled when it succeeds.
    /// - Throws: ``GatewayFailure``: a wrong client secret (with a publishable key), a decline
    ///   (card, with the intent), a state refusal.
    package func confirmPaymentIntent(_ id: PaymentIntentID, _ confirmation: IntentConfirmation, merchant: MerchantRecord, key: KeyKind, base: String) async throws(GatewayFailure) -> PaymentIntentRecord {
        try await failing { () async throws -> PaymentIntentRecord in
            let (intent, stored) = try await load(PaymentIntentRecord.self, id: id, merchant: merchant)
            let (confirmed, action, made) = try await self.confirmation(of: intent, confirmation, merchant: merchant, key: key, method: nil)
            return try await perform(action, on: confirmed, over: stored, merchant, base: base, events: made)
        }
    }

    /// Captures an authorised intent, whole or `amount` of it.
    package func capturePaymentIntent(_ id: PaymentIntentID, amount: Int64?, metadata: [String: String?]?, merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> PaymentIntentRecord {
        try await failing { () async throws -> PaymentIntentRecord in
            var (intent, stored) = try await load(PaymentIntentRecord.self, id: id, merchant: merchant)
            let action: PaymentIntentStateMachine.Action
            do { action = try intent.machine.capture(amount) } catch let error as PaymentIntentStateError { throw GatewayFailure.state(error, intent: intent) }
            if case .settle(let captured) = action { intent.trail = (intent.trail ?? []) + [TrailEntry(kind: .capture, amount: captured, created: now())] }
            if let metadata { for (key, value) in metadata { intent.metadata[key] = value } }
            return try await perform(action, on: intent, over: stored, merchant, base: base)
        }
    }

    /// Cancels an intent that has not succeeded. `reason` is one a merchant may give.
    package func cancelPaymentIntent(_ id: PaymentIntentID, reason: CancellationReason?, merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> PaymentIntentRecord {
        try await failing { () async throws -> PaymentIntentRecord in
            var (intent, stored) = try await load(PaymentIntentRecord.self, id: id, merchant: merchant)
            let action: PaymentIntentStateMachine.Action
            do { action = try intent.machine.cancel(reason) } catch let error as PaymentIntentStateError { throw GatewayFailure.state(error, intent: intent) }
            return try await perform(action, on: intent, over: stored, merchant, base: base)
        }
    }

    /// The intent after a confirmation's parameters and its state machine's answer, with what
    /// must be done, and the objects to write with it (an inline payment method); nothing
    /// written. `method` is its payment method when the caller has it.
    package func confirmation(
        of intent: PaymentIntentRecord, _ confirmation: IntentConfirmation, merchant: MerchantRecord, key: KeyKind, method known: PaymentMethodRecord?
    ) async throws -> (intent: PaymentIntentRecord, action: PaymentIntentStateMachine.Action, made: [StoredEvent]) {
        var intent = intent
        if key == .publishable { try Self.checkClientSecret(confirmation.clientSecret, of: intent) }
        if let sessionID = intent.checkoutSession, let session = try await find(CheckoutSessionRecord.self, id: sessionID, merchant: merchant),
           session.expiredAt != nil || now() >= session.expiresAt {
            throw GatewayFailure.invalid(nil, "The Checkout Session this PaymentIntent pays has expired.", code: .checkoutSessionNotOpen)
        }
        if let returnURL = confirmation.returnURL { intent.returnURL = try Self.checkedURL(returnURL) }
        if let usage = confirmation.setupFutureUsage { intent.setupFutureUsage = usage }
        if let offSession = confirmation.offSession { intent.offSession = offSession ? true : nil }
        var known = known
        var made: [StoredEvent] = []
        if let requested = try await requestedMethod(confirmation.paymentMethod, confirmation.paymentMethodData, merchant: merchant) {
            known = try await attach(requested.method, to: &intent)
            made += requested.unsaved.map { [$0] } ?? []
        }
        var outcome = AcquirerOutcome.approved
        if let methodID = intent.machine.paymentMethod {
            let method = try await self.method(methodID, known: known, merchant: merchant)
            if method.type.isBankRedirect, intent.returnURL == nil { throw GatewayFailure.missing("return_url") }
            if intent.offSession == true, method.type.isBankRedirect {
                throw GatewayFailure.invalid("off_session", "A \(method.type.rawValue) payment needs its customer at the bank: it cannot be made off session.")
            }
            outcome = method.card?.outcome ?? .approved
            if intent.offSession == true, let card = method.card {
                outcome = OffSession.outcome(card.outcome, setUp: method.setUpForLater == .offSession, exemptOnceSetUp: card.exemptOnceSetUp == true)
            }
        }
        let action: PaymentIntentStateMachine.Action
        do { action = try intent.machine.confirm(acquirer: outcome) } catch { throw GatewayFailure.state(error, intent: intent) }
        return (intent, action, made)
    }

    /// Attaches one of the merchant's payment methods (or a new one of a Stripe test payment
    /// method's card) to an intent that allows its type.
    @discardableResult
    package func attach(_ methodID: PaymentMethodID, to intent: inout PaymentIntentRecord, _ merchant: MerchantRecord) async throws -> PaymentMethodRecord {
        try await attach(try await paymentMethod(methodID, merchant: merchant, parameter: "payment_method").0, to: &intent)
    }

    /// Attaches `method` to an intent that allows its type.
    @discardableResult
    func attach(_ method: PaymentMethodRecord, to intent: inout PaymentIntentRecord) async throws -> PaymentMethodRecord {
        guard intent.paymentMethodTypes.contains(method.type) else {
            throw GatewayFailure.invalid("payment_method", "The PaymentMethod provided (\(method.type.rawValue)) is not allowed for this PaymentIntent. Allowed: \(intent.paymentMethodTypes.map(\.rawValue).joined(separator: ", ")).", code: .incompatiblePaymentMethod)
        }
        do {
            try intent.machine.attach(paymentMethod: method.id.rawValue, type: method.type)
        } catch {
            throw GatewayFailure.state(error)
        }
        intent.attemptMethod = ChargeMethod(method)
        return method
    }

    /// The customer a create or update names, which must be one of the merchant's.
    /// - Throws: ``GatewayFailure`` `resource_missing` naming `customer`: a wrong request (400,
    ///   as Stripe answers a parameter naming nothing), not a missing resource of the path.
    func checkCustomer(_ fields: IntentFields, merchant: MerchantRecord) async throws {
        guard let customer = fields.customer, !customer.rawValue.isEmpty else { return }
        guard try await find(CustomerRecord.self, id: customer, merchant: merchant) != nil else {
            throw GatewayFailure.invalid("customer", "No such customer: '\(customer.rawValue.prefix(100))'", code: .resourceMissing)
        }
    }

    /// Applies the fields any create or update may set.
    /// - Throws: ``GatewayFailure`` for a return URL that is not absolute http(s), or more than
    ///   50 metadata keys.
    package static func apply(_ fields: IntentFields, to intent: inout PaymentIntentRecord) throws(GatewayFailure) {
        if let description = fields.description { intent.description = description.isEmpty ? nil : description }
        if let descriptor = fields.statementDescriptor { intent.statementDescriptor = descriptor.isEmpty ? nil : descriptor }
        if let returnURL = fields.returnURL { intent.returnURL = try checkedURL(returnURL) }
        if let customer = fields.customer { intent.customer = customer.rawValue.isEmpty ? nil : customer }
        if let metadata = fields.metadata {
            for (key, value) in metadata { intent.metadata[key] = value }
            guard intent.metadata.count <= 50 else { throw GatewayFailure.invalid("metadata", "Metadata may have at most 50 keys.") }
        }
    }

    /// A return URL must be an absolute http or https URL.
    package static func checkedURL(_ text: String, parameter: String = "return_url") throws(GatewayFailure) -> String {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw GatewayFailure.invalid(parameter, "\(parameter) must be an absolute http or https URL.")
        }
        return text
    }

    /// A publishable key reaches an intent only with its client secret, compared in constant
    /// time.
    package static func checkClientSecret(_ secret: String?, of intent: PaymentIntentRecord) throws(GatewayFailure) {
        guard let secret else { throw GatewayFailure.missing("client_secret") }
        guard constantTimeEqual(secret, intent.clientSecret) else {
            throw GatewayFailure.invalid("client_secret", "The client_secret provided does not match the client_secret associated with the PaymentIntent.")
        }
    }

    package static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// Runs `body`, turning what it throws into the core's one failure type: a
    /// ``GatewayFailure`` as it is, anything else (a store, the ledger) an internal failure
    /// with it underneath.
    package func failing<T>(_ body: () async throws -> T) async throws(GatewayFailure) -> T {
        do {
            return try await body()
        } catch let failure as GatewayFailure {
            throw failure
        } catch {
            throw GatewayFailure.internal(error, "The gateway could not finish this request; it can be retried with the same Idempotency-Key.")
        }
    }
}

/// What an idempotency key allows a request: to run (under this ``Idempotency``), or only to
/// replay the answer its first request got.
package enum IdempotentRun: Sendable {
    case run(Idempotency)
    case replay(status: Int, body: [UInt8])
}

extension GatewayService {
    /// How long an idempotency key's answer is kept.
    package static let idempotencyLifetimeSeconds: Int64 = 24 * 60 * 60

    /// Claims `key` for a request whose method, path and body hash to `requestHash`.
    /// - Throws: ``GatewayFailure``: an idempotency failure for a malformed key or one used
    ///   with other parameters; `idempotencyInUse` while its first request still runs.
    package func claimIdempotencyKey(_ key: String, merchant: MerchantRecord, requestHash: [UInt8]) async throws(GatewayFailure) -> IdempotentRun {
        guard !key.isEmpty, key.utf8.count <= 255 else {
            throw GatewayFailure(.idempotency, code: nil, message: "Idempotency keys are 1 to 255 characters long.")
        }
        let now = now()
        let claim = try await failing {
            try await store.claimIdempotencyKey(key, merchant: merchant.id, requestHash: requestHash, now: now, expiresBefore: now - Self.idempotencyLifetimeSeconds)
        }
        switch claim {
        case .replay(let status, let body):
            return .replay(status: status, body: body)
        case .mismatch:
            throw GatewayFailure(.idempotency, code: nil, message: "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '\(key.prefix(255))' if you meant to execute a different request.")
        case .inProgress:
            throw GatewayFailure(.idempotencyInUse, code: nil, message: "There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): \(key.prefix(255)). Please try again later.")
        case .claimed(let created, let resumed):
            return .run(Idempotency(merchant: merchant.id, key: key, created: created, resumed: resumed))
        }
    }

    /// Keeps the answer a request under `idempotency` got, for its retries.
    package func recordIdempotentAnswer(_ idempotency: Idempotency, status: Int, body: [UInt8]) async throws(GatewayFailure) {
        try await failing { try await store.recordIdempotentAnswer(idempotency.key, merchant: idempotency.merchant, status: status, body: body) }
    }

    /// Leaves a key whose request did not run to an answer worth keeping interrupted, so a retry
    /// runs again as a resumed request (under the key's first claim time, so with the ids this one
    /// derived): it finds the intent, refund or payout this one made, money moved or not, instead
    /// of making another.
    package func interruptIdempotencyKey(_ idempotency: Idempotency) async {
        try? await store.interruptIdempotencyKey(idempotency.key, merchant: idempotency.merchant)
    }
}
