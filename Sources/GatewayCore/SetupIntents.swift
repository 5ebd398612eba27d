import Gateway
import TenderJSON

/// A setup intent to make.
package struct NewSetupIntent: Sendable {
    package var customer: CustomerID?
    package var paymentMethod: PaymentMethodID?
    package var paymentMethodData: NewPaymentMethod?
    package var usage: FutureUsage
    package var confirm: Bool
    package var returnURL: String?
    package var description: String?
    package var metadata: [String: String]

    package init(
        customer: CustomerID? = nil, paymentMethod: PaymentMethodID? = nil, paymentMethodData: NewPaymentMethod? = nil, usage: FutureUsage = .offSession,
        confirm: Bool = false, returnURL: String? = nil, description: String? = nil, metadata: [String: String] = [:]
    ) {
        self.customer = customer
        self.paymentMethod = paymentMethod
        self.paymentMethodData = paymentMethodData
        self.usage = usage
        self.confirm = confirm
        self.returnURL = returnURL
        self.description = description
        self.metadata = metadata
    }
}

/// Setup intents: a card checked, authenticated when its issuer asks (on the same 3-D Secure
/// test page as payments), and saved for its customer for payments made later, with or without
/// them. No money moves.
extension GatewayService {
    /// Makes a setup intent (and confirms it, asked to).
    /// - Throws: ``GatewayFailure``: an unknown customer or method, a card that is not one, a
    ///   decline (a card failure carrying the setup intent, which exists).
    package func createSetupIntent(_ new: NewSetupIntent, merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> SetupIntentRecord {
        try await failing { () async throws -> SetupIntentRecord in
            guard new.metadata.count <= 50 else { throw GatewayFailure.invalid("metadata", "Metadata may have at most 50 keys.") }
            try await checkCustomer(IntentFields(customer: new.customer), merchant: merchant)
            let id = SetupIntentID(newID("seti"))
            var intent = SetupIntentRecord(
                id: id, clientSecret: id.rawValue + "_secret_" + String(GatewayIDs.make("s", random: random).dropFirst(2)), created: now(), usage: new.usage,
                metadata: new.metadata)
            intent.customer = new.customer.flatMap { $0.rawValue.isEmpty ? nil : $0 }
            intent.description = new.description
            if let returnURL = new.returnURL { intent.returnURL = try Self.checkedURL(returnURL) }
            let method = try await savedMethod(new.paymentMethod, new.paymentMethodData, merchant: merchant)
            if let method { try attach(method, to: &intent) }
            var stored = StoredObject(id: id.rawValue, merchant: merchant.id, kind: .setupIntent, customer: intent.customer?.rawValue, created: intent.created, body: [])
            stored = try await save(intent, over: stored, isNew: true, events: [try await event(.setupIntentCreated, GatewayObjects.setupIntent(intent, base: base), merchant: merchant)])
            guard new.confirm else { return intent }
            return try await confirm(intent, over: stored, method: method, merchant: merchant, base: base)
        }
    }

    /// Confirms a setup intent, with the method given now or attached before.
    /// - Throws: ``GatewayFailure``: a wrong client secret (with a publishable key), a decline, a state refusal.
    package func confirmSetupIntent(_ id: SetupIntentID, _ confirmation: IntentConfirmation, merchant: MerchantRecord, key: KeyKind, base: String) async throws(GatewayFailure) -> SetupIntentRecord {
        try await failing { () async throws -> SetupIntentRecord in
            var (intent, stored) = try await load(SetupIntentRecord.self, id: id, merchant: merchant)
            if key == .publishable { try Self.checkClientSecret(confirmation.clientSecret, of: intent) }
            if let returnURL = confirmation.returnURL { intent.returnURL = try Self.checkedURL(returnURL) }
            let method = try await savedMethod(confirmation.paymentMethod, confirmation.paymentMethodData, merchant: merchant)
            if let method { try attach(method, to: &intent) }
            return try await confirm(intent, over: stored, method: method, merchant: merchant, base: base)
        }
    }

    /// Cancels a setup intent that has not succeeded.
    package func cancelSetupIntent(_ id: SetupIntentID, reason: CancellationReason?, merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> SetupIntentRecord {
        try await failing { () async throws -> SetupIntentRecord in
            var (intent, stored) = try await load(SetupIntentRecord.self, id: id, merchant: merchant)
            let action: SetupIntentStateMachine.Action
            do { action = try intent.machine.cancel(reason) } catch let error as PaymentIntentStateError { throw GatewayFailure.state(error) }
            return try await perform(action, on: intent, over: stored, merchant: merchant, base: base)
        }
    }

    /// The customer came back from the 3-D Secure page of a setup intent whose client secret
    /// they present, having passed it or not. Returns the intent as it stands after (a failed
    /// authentication is not a failure of the page's request).
    package func completeSetupAction(_ id: String, clientSecret: String?, succeeded: Bool, base: String) async throws(GatewayFailure) -> SetupIntentRecord {
        let found = try await setupIntent(id: id, clientSecret: clientSecret)
        guard let (intent, stored, merchant) = found else { throw GatewayFailure.notFound("setup_intent", id) }
        return try await failing { () async throws -> SetupIntentRecord in
            var next = intent
            let action: SetupIntentStateMachine.Action
            do { action = try next.machine.completeAction(succeeded: succeeded) } catch let error as PaymentIntentStateError { throw GatewayFailure.state(error) }
            do {
                return try await perform(action, on: next, over: stored, merchant: merchant, base: base)
            } catch let failure as GatewayFailure where failure.category == .card {
                return failure.setupIntent ?? next
            }
        }
    }

    /// A setup intent by its id and client secret, for the test page the customer's browser opens.
    package func setupIntent(id: String, clientSecret: String?) async throws(GatewayFailure) -> (SetupIntentRecord, StoredObject, MerchantRecord)? {
        guard id.utf8.count <= 255 else { return nil }
        let found = try await failing { () async throws -> (SetupIntentRecord, StoredObject, MerchantRecord)? in
            guard let stored = try await store.object(id: id, kind: .setupIntent), let merchant = try await store.merchant(id: stored.merchant) else { return nil }
            return (try records.decode(SetupIntentRecord.self, stored), stored, merchant)
        }
        guard let found else { return nil }
        try Self.checkClientSecret(clientSecret, of: found.0)
        return found
    }

    /// A publishable key (or the customer's browser) reaches a setup intent only with its client
    /// secret, compared in constant time.
    package static func checkClientSecret(_ secret: String?, of intent: SetupIntentRecord) throws(GatewayFailure) {
        guard let secret else { throw GatewayFailure.missing("client_secret") }
        guard constantTimeEqual(secret, intent.clientSecret) else {
            throw GatewayFailure.invalid("client_secret", "The client_secret provided does not match the client_secret associated with the SetupIntent.")
        }
    }

    /// The method a setup intent's request names or gives inline; an inline one is stored at
    /// once (a setup intent's writes are not a payment's hot path).
    private func savedMethod(_ id: PaymentMethodID?, _ data: NewPaymentMethod?, merchant: MerchantRecord) async throws -> PaymentMethodRecord? {
        guard let requested = try await requestedMethod(id, data, merchant: merchant) else { return nil }
        if let unsaved = requested.unsaved { try await store.insert(unsaved.object) }
        return requested.method
    }

    /// A card method attached to a setup intent (setup intents take cards).
    func attach(_ method: PaymentMethodRecord, to intent: inout SetupIntentRecord) throws {
        guard method.type == .card else {
            throw GatewayFailure.invalid("payment_method", "A SetupIntent sets up cards; \(method.type.rawValue) is not one.", code: .incompatiblePaymentMethod)
        }
        do { try intent.machine.attach(paymentMethod: method.id.rawValue) } catch { throw GatewayFailure.state(error) }
    }

    private func confirm(_ intent: SetupIntentRecord, over stored: StoredObject, method known: PaymentMethodRecord?, merchant: MerchantRecord, base: String) async throws -> SetupIntentRecord {
        var intent = intent
        var outcome = AcquirerOutcome.approved
        if let methodID = intent.machine.paymentMethod {
            let method = try await self.method(methodID, known: known, merchant: merchant)
            outcome = method.card?.outcome ?? .approved
        }
        let action: SetupIntentStateMachine.Action
        do { action = try intent.machine.confirm(acquirer: outcome) } catch { throw GatewayFailure.state(error) }
        return try await perform(action, on: intent, over: stored, merchant: merchant, base: base)
    }

    /// Stores a setup intent's new state with its event, and saves the card for its customer
    /// once it succeeded.
    /// - Throws: ``GatewayFailure``: a card failure for a decline (the intent stored as failed).
    private func perform(_ action: SetupIntentStateMachine.Action, on intent: SetupIntentRecord, over stored: StoredObject, merchant: MerchantRecord, base: String) async throws -> SetupIntentRecord {
        var intent = intent
        let methodID = intent.machine.paymentMethod
        if case .succeeded = action, let methodID {
            // The card, saved for later: for its customer, marked set up for payments without them.
            var (method, storedMethod) = try await load(PaymentMethodRecord.self, id: PaymentMethodID(methodID), merchant: merchant, parameter: "payment_method")
            if let customer = intent.customer {
                if let current = method.customer, current != customer {
                    throw GatewayFailure.invalid("payment_method", "The payment method you provided is already attached to a customer; detach it first.", code: .paymentMethodUnexpectedState)
                }
                method.customer = customer
            }
            method.setUpForLater = intent.usage
            _ = try await save(method, over: storedMethod, customer: .some(method.customer?.rawValue))
        }
        if case .canceled = action { intent.canceledAt = now() }
        let reported: GatewayEventType? = switch action {
        case .none: nil
        case .requiresAction: .setupIntentRequiresAction
        case .succeeded: .setupIntentSucceeded
        case .failed: .setupIntentSetupFailed
        case .canceled: .setupIntentCanceled
        }
        var events: [StoredEvent] = []
        if let reported { events.append(try await event(reported, GatewayObjects.setupIntent(intent, base: base), merchant: merchant)) }
        _ = try await save(intent, over: stored, events: events)
        if case .failed(let failure) = action {
            var error = GatewayFailure(.card, code: GatewayFailure.Code(rawValue: failure.code), message: failure.message, declineCode: failure.declineCode)
            error.setupIntent = intent
            throw error
        }
        return intent
    }
}
