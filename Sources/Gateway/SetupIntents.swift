/// A setup intent's id: `seti_...`.
public typealias SetupIntentID = RecordID<SetupIntentRecord>

/// Where a setup intent is in Stripe's lifecycle.
public enum SetupIntentStatus: String, Sendable, Codable, CaseIterable {
    case requiresPaymentMethod = "requires_payment_method"
    case requiresConfirmation = "requires_confirmation"
    case requiresAction = "requires_action"
    case succeeded
    case canceled
}

/// Whether a saved card will be used with the customer present or not (Stripe's `usage`,
/// and a payment intent's `setup_future_usage`).
public enum FutureUsage: String, Sendable, Codable, CaseIterable {
    case onSession = "on_session"
    case offSession = "off_session"
}

/// The pure state machine of one setup intent: a card checked (and authenticated when its
/// issuer asks) so it can be saved and charged later. No money moves. Every transition the
/// lifecycle forbids throws ``PaymentIntentStateError`` (Stripe's `setup_intent_unexpected_state`)
/// and leaves the machine as it was.
public struct SetupIntentStateMachine: Sendable, Codable, Equatable {
    public private(set) var status: SetupIntentStatus = .requiresPaymentMethod
    public private(set) var paymentMethod: String?
    public private(set) var lastSetupError: PaymentFailure?
    public private(set) var cancellationReason: CancellationReason?

    /// What the caller does after a transition.
    public enum Action: Sendable, Equatable {
        case none
        /// The customer must pass 3-D Secure on the test issuer's page.
        case requiresAction
        /// The card is checked: save it for the customer.
        case succeeded
        case failed(PaymentFailure)
        case canceled
    }

    public init() {}

    private func refuse(_ what: String) -> PaymentIntentStateError {
        PaymentIntentStateError(code: .setupUnexpectedState, message: "You cannot \(what) this SetupIntent because it has a status of \(status.rawValue).", parameter: nil)
    }

    public mutating func attach(paymentMethod id: String) throws(PaymentIntentStateError) {
        guard status == .requiresPaymentMethod || status == .requiresConfirmation else { throw refuse("attach a payment method to") }
        paymentMethod = id
        status = .requiresConfirmation
    }

    /// Checks the card with what its issuer answers for a check of no amount: a decline fails it
    /// (but for insufficient funds, which a check of nothing does not need), a challenge sends
    /// the customer to 3-D Secure, anything else succeeds.
    public mutating func confirm(acquirer outcome: AcquirerOutcome) throws(PaymentIntentStateError) -> Action {
        guard status == .requiresConfirmation else {
            throw status == .requiresPaymentMethod
                ? PaymentIntentStateError(code: .setupUnexpectedState, message: "You cannot confirm this SetupIntent because it's missing a payment method.", parameter: "payment_method")
                : refuse("confirm")
        }
        switch outcome {
        case .approved, .requiresAuthentication(challenge: false, _), .declined(.insufficientFunds):
            return succeed()
        case .declined(let failure):
            return fail(failure)
        case .requiresAuthentication(challenge: true, _):
            status = .requiresAction
            return .requiresAction
        case .noAnswer:
            return fail(.processingError)
        }
    }

    /// The customer came back from the 3-D Secure page, having passed it or not.
    public mutating func completeAction(succeeded: Bool) throws(PaymentIntentStateError) -> Action {
        guard status == .requiresAction else { throw refuse("complete an action on") }
        return succeeded ? succeed() : fail(.setupAuthenticationFailed)
    }

    public mutating func cancel(_ reason: CancellationReason?) throws(PaymentIntentStateError) -> Action {
        guard status != .succeeded, status != .canceled else { throw refuse("cancel") }
        status = .canceled
        cancellationReason = reason
        return .canceled
    }

    private mutating func succeed() -> Action {
        status = .succeeded
        lastSetupError = nil
        return .succeeded
    }

    private mutating func fail(_ failure: PaymentFailure) -> Action {
        status = .requiresPaymentMethod
        lastSetupError = failure
        paymentMethod = nil
        return .failed(failure)
    }
}

/// A setup intent as stored.
public struct SetupIntentRecord: Sendable, Codable, Equatable {
    public let id: SetupIntentID
    public let clientSecret: String
    public let created: Int64
    public var machine: SetupIntentStateMachine
    public var usage: FutureUsage
    public var customer: CustomerID?
    public var description: String?
    public var returnURL: String?
    public var metadata: [String: String]
    public var canceledAt: Int64?

    public init(id: SetupIntentID, clientSecret: String, created: Int64, usage: FutureUsage, metadata: [String: String] = [:]) {
        self.id = id
        self.clientSecret = clientSecret
        self.created = created
        self.machine = SetupIntentStateMachine()
        self.usage = usage
        self.metadata = metadata
    }
}

/// Payments made while the customer is away (`off_session=true`), with a card saved earlier.
public enum OffSession {
    /// What the issuer answers a payment the customer is not there to authenticate: a card
    /// whose issuer wants a challenge is declined with `authentication_required`, unless it was
    /// authenticated when it was set up and its issuer accepts that for later payments (Stripe's
    /// 4000002500003155); a frictionless card, and any card that asks nothing, pays.
    public static func outcome(_ outcome: AcquirerOutcome, setUp: Bool, exemptOnceSetUp: Bool) -> AcquirerOutcome {
        guard case .requiresAuthentication(let challenge, let afterwards) = outcome else { return outcome }
        if challenge, !(setUp && exemptOnceSetUp) { return .declined(.authenticationRequired) }
        return afterwards == .approved ? .approved : .declined(.insufficientFunds)
    }
}
