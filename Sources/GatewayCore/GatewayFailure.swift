import Gateway

/// Why the gateway's core refused or could not finish a request: the only error its services
/// throw. An extensible code (Stripe's names, since the gateway speaks Stripe's vocabulary), a
/// message a developer can act on, the parameter at fault, and the underlying error when there
/// is one. What the failure is (``Category``) decides how each API answers it; the HTTP statuses
/// and wire shapes live at the edge (`StripeError`, Paylike's problems, the checkout's errors),
/// each in one place.
package struct GatewayFailure: Error, Sendable, CustomStringConvertible {
    /// A stable code. Extensible: a new one is a new constant, not a new case to handle
    /// everywhere.
    package struct Code: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        package init(stringLiteral value: String) { rawValue = value }
        package var description: String { rawValue }

        package static let parameterInvalid: Code = "parameter_invalid"
        package static let parameterMissing: Code = "parameter_missing"
        package static let parameterUnknown: Code = "parameter_unknown"
        package static let resourceMissing: Code = "resource_missing"
        /// Another request changed the object between this one's read and its write.
        package static let lockTimeout: Code = "lock_timeout"
        package static let balanceInsufficient: Code = "balance_insufficient"
        package static let payoutDestinationInvalid: Code = "payout_destination_invalid"
        package static let amountTooSmall: Code = "amount_too_small"
        package static let amountTooLarge: Code = "amount_too_large"
        package static let amountInvalid: Code = "amount_invalid"
        package static let invalidCurrency: Code = "payment_intent_invalid_currency"
        package static let incompatiblePaymentMethod: Code = "payment_intent_incompatible_payment_method"
        package static let paymentMethodUnexpectedState: Code = "payment_method_unexpected_state"
        package static let chargeNotRefundable: Code = "charge_not_refundable"
        package static let checkoutSessionNotOpen: Code = "checkout_session_not_open"
        /// The ledger did not do what the gateway asked of it (a settlement, an account).
        package static let ledgerRefused: Code = "ledger_refused"
    }

    /// What kind of failure it is, for the edge to answer in its API's terms.
    package enum Category: Sendable, Equatable {
        /// The request is wrong (a parameter, a state that does not allow it).
        case invalidRequest
        /// What the request names does not exist for this caller.
        case notFound
        /// Another request changed the object first; the same request again may succeed.
        case conflict
        /// The card or the bank refused the payment.
        case card
        /// No key, or a key that is not known.
        case authentication
        /// A key that may not do this.
        case permission
        /// An idempotency key used with other parameters, or malformed.
        case idempotency
        /// An idempotency key whose first request is still running.
        case idempotencyInUse
        /// The gateway's own fault; retrying with the same idempotency key finishes it.
        case `internal`
    }

    package var category: Category
    package var code: Code?
    package var message: String
    package var parameter: String?
    /// A card's refusal as the issuer gave it (`insufficient_funds`...).
    package var declineCode: String?
    /// The intent the failure is about, as it stands after it (a decline, a state refusal).
    package var paymentIntent: PaymentIntentRecord?
    /// The setup intent a card error belongs to (Stripe shows it whole).
    package var setupIntent: SetupIntentRecord?
    package var underlying: (any Error & Sendable)?

    package init(
        _ category: Category, code: Code?, message: String, parameter: String? = nil, declineCode: String? = nil,
        paymentIntent: PaymentIntentRecord? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.category = category
        self.code = code
        self.message = message
        self.parameter = parameter
        self.declineCode = declineCode
        self.paymentIntent = paymentIntent
        self.underlying = underlying
    }

    package var description: String {
        "\(code.map { "\($0): " } ?? "")\(message)\(underlying.map { " (\($0))" } ?? "")"
    }

    package static func invalid(_ parameter: String?, _ message: String, code: Code = .parameterInvalid) -> GatewayFailure {
        GatewayFailure(.invalidRequest, code: code, message: message, parameter: parameter)
    }

    package static func missing(_ parameter: String) -> GatewayFailure {
        GatewayFailure(.invalidRequest, code: .parameterMissing, message: "Missing required param: \(parameter).", parameter: parameter)
    }

    /// `kind` is the object's name as Stripe's message gives it (`payment_intent`).
    package static func notFound(_ kind: String, _ id: String, parameter: String = "id") -> GatewayFailure {
        GatewayFailure(.notFound, code: .resourceMissing, message: "No such \(kind): '\(id.prefix(100))'", parameter: parameter)
    }

    package static let changedMeanwhile = GatewayFailure(
        .conflict, code: .lockTimeout, message: "This object was changed by another request at the same time; retry the request.")

    package static func card(_ error: CardCheckError) -> GatewayFailure {
        GatewayFailure(.card, code: Code(rawValue: error.code.rawValue), message: error.message, parameter: error.parameter)
    }

    package static func state(_ error: PaymentIntentStateError, intent: PaymentIntentRecord? = nil) -> GatewayFailure {
        GatewayFailure(.invalidRequest, code: Code(rawValue: error.code.rawValue), message: error.message, parameter: error.parameter, paymentIntent: intent)
    }

    /// A failure of the gateway's own (a store, the ledger), kept as the underlying error.
    package static func `internal`(_ error: any Error & Sendable, _ message: String) -> GatewayFailure {
        GatewayFailure(.internal, code: nil, message: message, underlying: error)
    }
}
