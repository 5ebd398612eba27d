/// What the test acquirer answers for a card: Stripe's magic test numbers, each reaching one
/// outcome. Any other valid number is approved.
public enum AcquirerOutcome: Sendable, Equatable, Codable {
    case approved
    /// Declined with Stripe's error code and, for `card_declined`, its decline code.
    case declined(PaymentFailure)
    /// The issuer asks for 3-D Secure: with a challenge the customer completes or fails on
    /// the test page; frictionless passes the fingerprint step without one. `afterwards` is
    /// the issuer's answer once the customer is authenticated.
    case requiresAuthentication(challenge: Bool, afterwards: AuthorizationAfterAuthentication)
    /// The acquirer did not answer: the payment's outcome is unknown until asked again.
    case noAnswer

    public enum AuthorizationAfterAuthentication: String, Sendable, Codable {
        case approved
        case insufficientFunds
    }
}

/// A refused payment, in Stripe's words: `code` (card_declined, expired_card...), with
/// `declineCode` for card_declined.
public struct PaymentFailure: Sendable, Equatable, Codable {
    public let code: String
    public let declineCode: String?
    public let message: String

    public init(code: String, declineCode: String? = nil, message: String) {
        self.code = code
        self.declineCode = declineCode
        self.message = message
    }

    public static let generic = PaymentFailure(code: "card_declined", declineCode: "generic_decline", message: "Your card was declined.")
    public static let insufficientFunds = PaymentFailure(code: "card_declined", declineCode: "insufficient_funds", message: "Your card has insufficient funds.")
    public static let lostCard = PaymentFailure(code: "card_declined", declineCode: "lost_card", message: "Your card was declined.")
    public static let stolenCard = PaymentFailure(code: "card_declined", declineCode: "stolen_card", message: "Your card was declined.")
    public static let expiredCard = PaymentFailure(code: "expired_card", declineCode: "expired_card", message: "Your card has expired.")
    public static let incorrectCVC = PaymentFailure(code: "incorrect_cvc", declineCode: "incorrect_cvc", message: "Your card's security code is incorrect.")
    public static let processingError = PaymentFailure(code: "processing_error", declineCode: "processing_error", message: "An error occurred while processing your card. Try again in a little bit.")
    public static let authenticationFailed = PaymentFailure(code: "payment_intent_authentication_failure", message: "The provided PaymentMethod has failed authentication. Provide a new PaymentMethod to attempt to fulfill this PaymentIntent again.")
    public static let authenticationRequired = PaymentFailure(code: "authentication_required", declineCode: "authentication_required", message: "Your card was declined. This transaction requires authentication.")
    public static let setupAuthenticationFailed = PaymentFailure(code: "setup_intent_authentication_failure", message: "The latest attempt to set up the payment method has failed because authentication failed.")
    public static let bankPaymentFailed = PaymentFailure(code: "payment_method_provider_decline", message: "The customer's bank did not authorize the payment.")
}

/// The test acquirer's rules: which card gets which answer.
public enum TestAcquirer {
    /// Stripe's test card numbers and what each does.
    public static let magicNumbers: [String: AcquirerOutcome] = [
        "4000000000000002": .declined(.generic),
        "4000000000009995": .declined(.insufficientFunds),
        "4000000000009987": .declined(.lostCard),
        "4000000000009979": .declined(.stolenCard),
        "4000000000000069": .declined(.expiredCard),
        "4000000000000127": .declined(.incorrectCVC),
        "4000000000000119": .declined(.processingError),
        "4000002500003155": .requiresAuthentication(challenge: true, afterwards: .approved),
        "4000002760003184": .requiresAuthentication(challenge: true, afterwards: .approved),
        "4000000000003220": .requiresAuthentication(challenge: true, afterwards: .approved),
        "4000000000003063": .requiresAuthentication(challenge: true, afterwards: .approved),
        // Stripe's "3-D Secure supported": authenticated without a challenge.
        "4000000000003055": .requiresAuthentication(challenge: false, afterwards: .approved),
        "4000008260003178": .requiresAuthentication(challenge: true, afterwards: .insufficientFunds),
        // Not one of Stripe's: Tender's acquirer that never answers, for the reconciler.
        "4000000000000408": .noAnswer,
    ]

    /// What the acquirer answers when asked again about an authorisation whose answer was lost
    /// (`.noAnswer`): still nothing the first time, then the authorisation it had made, approved.
    /// Any other card's answer is the one it gave.
    public static func inquiry(_ outcome: AcquirerOutcome, attempt: Int) -> AcquirerOutcome {
        guard outcome == .noAnswer else { return outcome }
        return attempt <= 1 ? .noAnswer : .approved
    }

    /// Cards whose issuer asks for 3-D Secure on each payment the customer makes, but accepts
    /// the authentication made when the card was set up for the payments made without them
    /// (Stripe's "authenticationRequiredOnSetup").
    public static let exemptOnceSetUp: Set<String> = ["4000002500003155"]

    /// The outcome of authorising a card with these (sanitised, valid) digits.
    public static func outcome(forCardDigits digits: String) -> AcquirerOutcome {
        magicNumbers[digits] ?? .approved
    }
}
