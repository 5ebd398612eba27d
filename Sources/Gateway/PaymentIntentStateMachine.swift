/// Where a payment intent is in Stripe's lifecycle.
public enum PaymentIntentStatus: String, Sendable, Codable, CaseIterable {
    case requiresPaymentMethod = "requires_payment_method"
    case requiresConfirmation = "requires_confirmation"
    case requiresAction = "requires_action"
    case processing
    case requiresCapture = "requires_capture"
    case succeeded
    case canceled

    /// Whether nothing more can happen to the intent (refunds aside).
    public var isFinal: Bool { self == .succeeded || self == .canceled }
}

/// When an authorised payment is taken: at once, or when the merchant captures it.
public enum CaptureMethod: String, Sendable, Codable, CaseIterable {
    case automatic, manual
}

/// Why an intent was canceled, in Stripe's words.
public enum CancellationReason: String, Sendable, Codable, CaseIterable {
    case duplicate, fraudulent, requestedByCustomer = "requested_by_customer", abandoned, automatic
}

/// The customer must do something away from the merchant's page: 3-D Secure or their bank.
public enum PendingAction: String, Sendable, Codable {
    case threeDSecure = "three_d_secure"
    case bankRedirect = "bank_redirect"
}

/// A transition the lifecycle does not allow: Stripe's `payment_intent_unexpected_state`.
public struct PaymentIntentStateError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case unexpectedState = "payment_intent_unexpected_state"
        /// A capture or refund amount outside what the intent allows.
        case invalidAmount = "amount_invalid"
        /// A setup intent's transition its lifecycle does not allow.
        case setupUnexpectedState = "setup_intent_unexpected_state"
    }

    public let code: Code
    public let message: String
    /// The parameter at fault, when there is one.
    public let parameter: String?
    public var description: String { message }

    public init(code: Code, message: String, parameter: String?) {
        self.code = code
        self.message = message
        self.parameter = parameter
    }
}

/// The pure state machine of one payment intent: what each event does to it, and what the
/// caller must do next (move money on the ledger, emit an event). No I/O; every transition the
/// lifecycle forbids throws ``PaymentIntentStateError`` and leaves the machine as it was.
public struct PaymentIntentStateMachine: Sendable, Codable, Equatable {
    public private(set) var status: PaymentIntentStatus
    /// The amount asked for, in minor units.
    public private(set) var amount: Int64
    public let captureMethod: CaptureMethod
    /// The payment method attached, and its type.
    public private(set) var paymentMethod: String?
    public private(set) var paymentMethodType: PaymentMethodType?
    /// What may still be captured (manual capture, after authorisation).
    public private(set) var amountCapturable: Int64 = 0
    /// What was captured and settled.
    public private(set) var amountReceived: Int64 = 0
    /// What was refunded so far, out of `amountReceived`.
    public private(set) var amountRefunded: Int64 = 0
    /// What a manual capture's authorisation held (nil before one, and in records stored
    /// before this field existed).
    public private(set) var amountAuthorized: Int64?
    /// Why the last attempt failed; cleared by the next success.
    public private(set) var lastPaymentError: PaymentFailure?
    public private(set) var pendingAction: PendingAction?
    public private(set) var cancellationReason: CancellationReason?
    /// The issuer's answer once 3-D Secure is passed.
    private var afterAuthentication: AcquirerOutcome.AuthorizationAfterAuthentication?

    /// What the caller does after a transition.
    public enum Action: Sendable, Equatable {
        /// Nothing but storing the new state.
        case none
        /// The customer must act: send them to `pendingAction`'s page.
        case requiresAction(PendingAction)
        /// The money is held for a manual capture.
        case authorized(amount: Int64)
        /// The captured amount is settled to the merchant on the ledger.
        case settle(amount: Int64)
        /// The attempt failed.
        case failed(PaymentFailure)
        /// The acquirer did not answer: ask it again later.
        case askAcquirerLater
        /// An authorisation is released (canceled before capture).
        case release(amount: Int64)
        /// `amount` is paid back from the merchant's settlement.
        case refund(amount: Int64)
        case canceled
    }

    /// A new intent for `amount` minor units (checked by the caller against the currency's limits).
    public init(amount: Int64, captureMethod: CaptureMethod) {
        precondition(amount > 0 && amount <= FiatConversion.maxPaymentMinorUnits, "an intent is for 1 to 99,999,999 minor units")
        self.amount = amount
        self.captureMethod = captureMethod
        self.status = .requiresPaymentMethod
    }

    private func refuse(_ what: String) -> PaymentIntentStateError {
        PaymentIntentStateError(code: .unexpectedState, message: "You cannot \(what) this PaymentIntent because it has a status of \(status.rawValue).", parameter: nil)
    }

    /// Attaches a payment method (at creation, by an update, or at confirmation).
    /// - Throws: `payment_intent_unexpected_state` unless the intent waits for a method or a
    ///   confirmation.
    public mutating func attach(paymentMethod id: String, type: PaymentMethodType) throws(PaymentIntentStateError) {
        guard status == .requiresPaymentMethod || status == .requiresConfirmation else { throw refuse("attach a payment method to") }
        paymentMethod = id
        paymentMethodType = type
        status = .requiresConfirmation
    }

    /// Changes the amount before the intent is confirmed.
    /// - Throws: `payment_intent_unexpected_state` once it is confirmed.
    public mutating func update(amount newAmount: Int64) throws(PaymentIntentStateError) {
        guard status == .requiresPaymentMethod || status == .requiresConfirmation else { throw refuse("update the amount of") }
        precondition(newAmount > 0 && newAmount <= FiatConversion.maxPaymentMinorUnits, "an intent is for 1 to 99,999,999 minor units")
        amount = newAmount
    }

    /// Whether the intent's fields (description, metadata...) may still change.
    public var isUpdatable: Bool {
        switch status {
        case .requiresPaymentMethod, .requiresConfirmation, .requiresAction, .requiresCapture: true
        case .processing, .succeeded, .canceled: false
        }
    }

    /// Confirms the attached payment method with what the acquirer answered for it (for a
    /// card) or sends the customer to their bank (iDEAL, Bancontact, whose outcome is ignored).
    /// - Throws: `payment_intent_unexpected_state` unless the intent is ready to confirm.
    public mutating func confirm(acquirer outcome: AcquirerOutcome) throws(PaymentIntentStateError) -> Action {
        guard status == .requiresConfirmation, let type = paymentMethodType else {
            throw status == .requiresPaymentMethod
                ? PaymentIntentStateError(code: .unexpectedState, message: "You cannot confirm this PaymentIntent because it's missing a payment method.", parameter: "payment_method")
                : refuse("confirm")
        }
        if type.isBankRedirect {
            status = .requiresAction
            pendingAction = .bankRedirect
            return .requiresAction(.bankRedirect)
        }
        switch outcome {
        case .approved: return authorize()
        case .declined(let failure): return fail(failure)
        case .requiresAuthentication(challenge: false, let afterwards): return answer(afterwards)
        case .requiresAuthentication(challenge: true, let afterwards):
            status = .requiresAction
            pendingAction = .threeDSecure
            afterAuthentication = afterwards
            return .requiresAction(.threeDSecure)
        case .noAnswer:
            status = .processing
            return .askAcquirerLater
        }
    }

    /// The customer came back from the 3-D Secure or bank page, having passed it or not.
    /// - Throws: `payment_intent_unexpected_state` unless the intent waits for that.
    public mutating func completeAction(succeeded: Bool) throws(PaymentIntentStateError) -> Action {
        guard status == .requiresAction, let action = pendingAction else { throw refuse("complete an action on") }
        pendingAction = nil
        switch (action, succeeded) {
        case (.threeDSecure, true):
            let afterwards = afterAuthentication ?? .approved
            afterAuthentication = nil
            return answer(afterwards)
        case (.threeDSecure, false):
            afterAuthentication = nil
            return fail(.authenticationFailed)
        case (.bankRedirect, true): return authorize()
        case (.bankRedirect, false): return fail(.bankPaymentFailed)
        }
    }

    /// The acquirer answered, late, for a payment whose outcome was unknown.
    /// - Throws: `payment_intent_unexpected_state` unless the intent is processing.
    public mutating func acquirerAnswered(_ outcome: AcquirerOutcome) throws(PaymentIntentStateError) -> Action {
        guard status == .processing else { throw refuse("settle an acquirer's answer on") }
        switch outcome {
        case .approved, .requiresAuthentication(_, .approved): return authorize()
        case .requiresAuthentication(_, .insufficientFunds): return fail(.insufficientFunds)
        case .declined(let failure): return fail(failure)
        case .noAnswer: return .askAcquirerLater
        }
    }

    /// Captures `amountToCapture` (all that is capturable when nil). A final capture (Stripe's)
    /// releases the rest; a capture that is not final (Stripe's multicapture, Paylike's
    /// captures) leaves the rest capturable, and the intent succeeds once nothing is left.
    /// - Throws: `payment_intent_unexpected_state` unless the intent waits for a capture;
    ///   `amount_invalid` for an amount outside 1...amount_capturable.
    public mutating func capture(_ amountToCapture: Int64?, final: Bool = true) throws(PaymentIntentStateError) -> Action {
        guard status == .requiresCapture else { throw refuse("capture") }
        let amount = amountToCapture ?? amountCapturable
        guard amount >= 1, amount <= amountCapturable else {
            throw PaymentIntentStateError(code: .invalidAmount, message: "The amount to capture must be from 1 to the amount capturable, \(amountCapturable).", parameter: "amount_to_capture")
        }
        amountCapturable = final ? 0 : amountCapturable - amount
        amountReceived += amount
        if amountCapturable == 0 { status = .succeeded }
        return .settle(amount: amount)
    }

    /// Releases `amount` of what is still capturable (Paylike's partial void). Once nothing is
    /// left the intent is succeeded if anything was captured, else canceled.
    /// - Throws: `payment_intent_unexpected_state` unless the intent waits for a capture;
    ///   `amount_invalid` for an amount outside 1...amount_capturable.
    public mutating func void(_ amount: Int64) throws(PaymentIntentStateError) -> Action {
        guard status == .requiresCapture else { throw refuse("void") }
        guard amount >= 1, amount <= amountCapturable else {
            throw PaymentIntentStateError(code: .invalidAmount, message: "The amount to void must be from 1 to the amount capturable, \(amountCapturable).", parameter: "amount")
        }
        amountCapturable -= amount
        if amountCapturable == 0 {
            status = amountReceived > 0 ? .succeeded : .canceled
        }
        return .release(amount: amount)
    }

    /// What was authorised and neither captured nor capturable any more: released by a void,
    /// a cancellation or a final capture of less. Zero when nothing was authorised.
    public var amountReleased: Int64 {
        (amountAuthorized ?? amountReceived) - amountCapturable - amountReceived
    }

    /// Cancels the intent.
    /// - Throws: `payment_intent_unexpected_state` once it is processing, succeeded or canceled.
    public mutating func cancel(_ reason: CancellationReason?) throws(PaymentIntentStateError) -> Action {
        switch status {
        case .requiresPaymentMethod, .requiresConfirmation, .requiresAction, .requiresCapture: break
        case .processing, .succeeded, .canceled: throw refuse("cancel")
        }
        let held = amountCapturable
        if amountReceived > 0 {
            // Part was captured already (captures that were not final): the rest is released
            // and the payment stands for what was captured.
            amountCapturable = 0
            status = .succeeded
            return .release(amount: held)
        }
        status = .canceled
        cancellationReason = reason
        pendingAction = nil
        afterAuthentication = nil
        amountCapturable = 0
        return held > 0 ? .release(amount: held) : .canceled
    }

    /// Refunds `amount` (everything not yet refunded when nil) of what was captured: of a
    /// succeeded payment, or of the captures so far of one that may still capture more.
    /// - Throws: `payment_intent_unexpected_state` unless something was captured;
    ///   `amount_invalid` for more than is left to refund or less than 1.
    public mutating func refund(_ amount: Int64?) throws(PaymentIntentStateError) -> Action {
        guard status == .succeeded || (status == .requiresCapture && amountReceived > 0) else {
            throw PaymentIntentStateError(code: .unexpectedState, message: "This PaymentIntent has no captured payment to refund: it has a status of \(status.rawValue).", parameter: "payment_intent")
        }
        let refundable = amountReceived - amountRefunded
        let amount = amount ?? refundable
        guard amount >= 1, amount <= refundable else {
            throw PaymentIntentStateError(code: .invalidAmount, message: "Refund amount (\(amount)) is greater than what is left to refund (\(refundable)).", parameter: "amount")
        }
        amountRefunded += amount
        return .refund(amount: amount)
    }

    /// Takes back a refund that the ledger refused, so that the amount may be refunded again.
    public mutating func refundFailed(_ amount: Int64) {
        precondition(amount > 0 && amount <= amountRefunded, "only a recorded refund can fail")
        amountRefunded -= amount
    }

    private mutating func answer(_ afterwards: AcquirerOutcome.AuthorizationAfterAuthentication) -> Action {
        switch afterwards {
        case .approved: authorize()
        case .insufficientFunds: fail(.insufficientFunds)
        }
    }

    private mutating func authorize() -> Action {
        lastPaymentError = nil
        switch captureMethod {
        case .automatic:
            status = .succeeded
            amountReceived = amount
            return .settle(amount: amount)
        case .manual:
            status = .requiresCapture
            amountCapturable = amount
            amountAuthorized = amount
            return .authorized(amount: amount)
        }
    }

    private mutating func fail(_ failure: PaymentFailure) -> Action {
        status = .requiresPaymentMethod
        lastPaymentError = failure
        paymentMethod = nil
        paymentMethodType = nil
        return .failed(failure)
    }
}
