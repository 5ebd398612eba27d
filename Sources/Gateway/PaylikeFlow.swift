/// Paylike's error codes (paylike.md), each with the HTTP status Paylike answers it with.
public enum PaylikeCode: String, Sendable, CaseIterable, Error {
    case internalError = "INTERNAL_ERROR"
    case endpointNotFound = "ENDPOINT_NOT_FOUND"
    case versionMissing = "VERSION_MISSING"
    case versionUnsupported = "VERSION_UNSUPPORTED"
    case bodyInvalid = "BODY_INVALID"
    case requestInvalid = "REQUEST_INVALID"
    case tokenInvalid = "TOKEN_INVALID"
    case tokenTypeUnexpected = "TOKEN_TYPE_UNEXPECTED"
    case testModeMixed = "TEST_MODE_MIXED"
    case integrationKeyUnknown = "PAYMENT_INTEGRATION_KEY_UNKNOWN"
    case integrationDisabled = "PAYMENT_INTEGRATION_DISABLED"
    case challengeUnavailable = "PAYMENT_CHALLENGE_UNAVAILABLE"
    case cardNumberInvalid = "PAYMENT_CARD_NUMBER_INVALID"
    case cardSchemeUnknown = "PAYMENT_CARD_SCHEME_UNKNOWN"
    case cardSchemeUnsupported = "PAYMENT_CARD_SCHEME_UNSUPPORTED"
    case cardSecurityCodeInvalid = "PAYMENT_CARD_SECURITY_CODE_INVALID"
    case cardExpired = "PAYMENT_CARD_EXPIRED"
    case cardDisabled = "PAYMENT_CARD_DISABLED"
    case cardLost = "PAYMENT_CARD_LOST"
    case amountLimit = "PAYMENT_AMOUNT_LIMIT"
    case insufficientFunds = "PAYMENT_INSUFFICIENT_FUNDS"
    case receiverBlocked = "PAYMENT_RECEIVER_BLOCKED"
    case rejectedByIssuer = "PAYMENT_REJECTED_BY_ISSUER"
    case rejected = "PAYMENT_REJECTED"
    case methodError = "PAYMENT_METHOD_ERROR"
    case tdsRequired = "TDSECURE_REQUIRED"
    case tdsFailed = "TDSECURE_FAILED"
    case tdsParesInvalid = "TDSECURE_PARES_INVALID"

    public var httpStatus: Int {
        switch self {
        case .internalError: 500
        case .endpointNotFound: 404
        default: 400
        }
    }
}

/// Paylike's `test` object: what the test acquirer does with the payment (paylike.md).
public struct PaylikeTest: Sendable, Equatable {
    public enum Scheme: String, Sendable { case supported, unsupported, unknown }
    public enum SecurityCode: String, Sendable { case valid, invalid }
    public enum CardStatus: String, Sendable { case valid, invalid, expired, disabled, lost }
    public enum Fingerprint: String, Sendable { case timeout, success }
    public enum TDSFingerprint: String, Sendable { case timeout, unavailable, success }
    public enum TDSStatus: String, Sendable { case authenticated, rejected, unavailable, attempted }

    public struct TDS: Sendable, Equatable {
        public var fingerprint: TDSFingerprint = .success
        public var challenge = true
        public var status: TDSStatus = .authenticated
        public init(fingerprint: TDSFingerprint = .success, challenge: Bool = true, status: TDSStatus = .authenticated) {
            self.fingerprint = fingerprint
            self.challenge = challenge
            self.status = status
        }
    }

    public var scheme: Scheme = .supported
    public var code: SecurityCode = .valid
    public var status: CardStatus = .valid
    public var limit: PaymentAmount?
    public var balance: PaymentAmount?
    public var fingerprint: Fingerprint = .success
    /// 3-D Secure, when the test asks for it.
    public var tds: TDS?

    public init(scheme: Scheme = .supported, code: SecurityCode = .valid, status: CardStatus = .valid, limit: PaymentAmount? = nil, balance: PaymentAmount? = nil, fingerprint: Fingerprint = .success, tds: TDS? = nil) {
        self.scheme = scheme
        self.code = code
        self.status = status
        self.limit = limit
        self.balance = balance
        self.fingerprint = fingerprint
        self.tds = tds
    }
}

/// Paylike's client protocol on the server, as pure rules: which steps a payment goes through
/// (challenges, frames, the hints each adds, with the counts Paylike's engine checks: 6 after
/// the first frame, 8 after the second), and the authorization at the end, decided by the
/// gateway's own payment intent state machine. Paylike's server keeps nothing between calls:
/// the hints carry the progress. Here each hint is a name the server signs (the caller does
/// that); these rules say which names belong where.
public struct PaylikeFlow: Sendable, Equatable {
    /// How the payment is authenticated: no 3-D Secure, or 3-D Secure with or without a
    /// challenge, and what the issuer says after it.
    public struct ThreeDSecure: Sendable, Equatable {
        public var challenge: Bool
        public var status: PaylikeTest.TDSStatus
        public var fingerprint: PaylikeTest.TDSFingerprint
        public var afterwards: AcquirerOutcome.AuthorizationAfterAuthentication
    }

    public let threeDSecure: ThreeDSecure?
    /// Why the card is refused at the authorization, if it is (the test object's card checks
    /// and limits, or the test card's own decline).
    public let refusal: PaylikeCode?

    /// One step of the flow, answered to `/payments` as a challenge to follow.
    public enum Challenge: String, Sendable, CaseIterable {
        case authorizeIntegration = "authorize-integration"
        case tdsEnrolled = "tds-enrolled"
        case tdsFingerprint = "tds-fingerprint"
        case tdsPreChallenge = "tds-pre-challenge"
        case tdsChallenge = "tds-challenge"
        case tdsPostChallenge = "tds-post-challenge"
        case authorize

        /// Paylike's challenge types: a call to make, or a frame to show (in the background
        /// for the fingerprint).
        public var type: String {
            switch self {
            case .tdsFingerprint: "background-iframe"
            case .tdsChallenge: "iframe"
            default: "fetch"
            }
        }
    }

    /// Which hint names may stand at each position: one for most, the frame pages' outcomes
    /// where the user or the test decides.
    public var slots: [Set<String>] {
        guard threeDSecure != nil else { return [["integration"], ["authorize"]] }
        var slots: [Set<String>] = [["integration"], ["tds-enrolled"], ["tds-method-request"], ["tds-method-url"],
                                    ["tds-method-posted"], Set(PaylikeTest.TDSFingerprint.allNames.map { "tds-method-\($0)" })]
        if threeDSecure?.challenge == true {
            slots += [["tds-pre-challenge"], ["tds-challenge-authenticated", "tds-challenge-failed"], ["tds-post-challenge"]]
        }
        return slots + [["authorize"]]
    }

    /// The challenge that gives the hint at `position`, and how many hints it gives.
    func challenge(at position: Int) -> Challenge {
        guard threeDSecure != nil else { return position == 0 ? .authorizeIntegration : .authorize }
        switch position {
        case 0: return .authorizeIntegration
        case 1: return .tdsEnrolled
        // 4 and 5 come from the fingerprint frame's page; a client that calls without them
        // is sent to the frame again.
        case 2...5: return .tdsFingerprint
        default: break
        }
        guard threeDSecure?.challenge == true else { return .authorize }
        switch position {
        case 6: return .tdsPreChallenge
        case 7: return .tdsChallenge
        case 8: return .tdsPostChallenge
        default: return .authorize
        }
    }

    /// What `/payments` answers for the hints held (their names, already checked against
    /// ``slots``).
    public enum PaymentsAnswer: Sendable, Equatable {
        /// Follow this challenge.
        case challenge(Challenge)
        /// Every hint is in: authorize.
        case authorize
    }

    public func paymentsAnswer(hints: Int) -> PaymentsAnswer {
        hints >= slots.count ? .authorize : .challenge(challenge(at: hints))
    }

    /// What a challenge's path answers.
    public enum ChallengeAnswer: Sendable, Equatable {
        /// Hint names to add (a fetch).
        case hints([String])
        /// The 3-D Secure method frame, with the two hint names that come with it; its page
        /// posts `tds-method-posted` and `tds-method-<fingerprint>`.
        case methodFrame(hints: [String], pagePosts: [String])
        /// The challenge frame, whose page posts the user's answer.
        case challengeFrame
    }

    /// - Throws: `PAYMENT_CHALLENGE_UNAVAILABLE` for a challenge that is not the one these
    ///   hints are at.
    public func answer(_ challenge: Challenge, hints: Int) throws(PaylikeCode) -> ChallengeAnswer {
        guard hints < slots.count, self.challenge(at: hints) == challenge else { throw .challengeUnavailable }
        switch challenge {
        case .tdsFingerprint:
            return .methodFrame(hints: ["tds-method-request", "tds-method-url"],
                                pagePosts: ["tds-method-posted", "tds-method-\((threeDSecure?.fingerprint ?? .success).rawValue)"])
        case .tdsChallenge:
            return .challengeFrame
        default:
            return .hints([slots[hints].first!])
        }
    }

    /// The flow of a payment: 3-D Secure when the test object asks for it or the test card
    /// needs it; refused at the end for the test object's card checks (scheme, status, code,
    /// then the limit and the balance against `amount`) or the test card's decline.
    public init(test: PaylikeTest?, card: AcquirerOutcome, amount: PaymentAmount) {
        var threeDSecure: ThreeDSecure?
        var refusal: PaylikeCode?
        if case .requiresAuthentication(let challenge, let afterwards) = card {
            threeDSecure = ThreeDSecure(challenge: challenge, status: .authenticated, fingerprint: .success, afterwards: afterwards)
        }
        if let tds = test?.tds {
            threeDSecure = ThreeDSecure(challenge: tds.challenge, status: tds.status, fingerprint: tds.fingerprint, afterwards: threeDSecure?.afterwards ?? .approved)
        }
        if let test {
            switch test.scheme {
            case .unsupported: refusal = .cardSchemeUnsupported
            case .unknown: refusal = .cardSchemeUnknown
            case .supported: break
            }
            if refusal == nil {
                switch test.status {
                case .invalid: refusal = .cardNumberInvalid
                case .expired: refusal = .cardExpired
                case .disabled: refusal = .cardDisabled
                case .lost: refusal = .cardLost
                case .valid: break
                }
            }
            if refusal == nil, test.code == .invalid { refusal = .cardSecurityCodeInvalid }
            // A limit or balance in another currency does not apply to this amount.
            if refusal == nil, let limit = test.limit, let order = amount.compare(to: limit), order > 0 { refusal = .amountLimit }
            if refusal == nil, let balance = test.balance, let order = amount.compare(to: balance), order > 0 { refusal = .insufficientFunds }
        }
        if refusal == nil {
            switch card {
            case .declined(let failure): refusal = Self.code(for: failure)
            case .noAnswer: refusal = .rejected
            case .approved, .requiresAuthentication: break
            }
        }
        self.threeDSecure = threeDSecure
        self.refusal = refusal
    }

    /// Walks a new intent's state machine (manual capture, the card attached) through what
    /// the flow decided: the confirmation with the acquirer's outcome and, for a 3-D Secure
    /// challenge (or an authentication the test rejects), its completion. Returns the last
    /// action: `.authorized`, or `.failed` with the failure.
    public func authorize(_ machine: inout PaymentIntentStateMachine, challengeAnswer: String?) throws(PaymentIntentStateError) -> PaymentIntentStateMachine.Action {
        guard let tds = threeDSecure else {
            return try machine.confirm(acquirer: refusal.map { .declined(Self.failure(for: $0)) } ?? .approved)
        }
        let authenticated = tds.status != .rejected && (!tds.challenge || challengeAnswer == "tds-challenge-authenticated")
        if authenticated, let refusal {
            return try machine.confirm(acquirer: .declined(Self.failure(for: refusal)))
        }
        let challenged = tds.challenge || !authenticated
        let action = try machine.confirm(acquirer: .requiresAuthentication(challenge: challenged, afterwards: tds.afterwards))
        return challenged ? try machine.completeAction(succeeded: authenticated) : action
    }

    /// Each Paylike refusal as the gateway's failure (Stripe's codes), both ways.
    static let failures: [(PaylikeCode, PaymentFailure)] = [
        (.rejectedByIssuer, .generic),
        (.insufficientFunds, .insufficientFunds),
        (.cardLost, .lostCard),
        (.cardExpired, .expiredCard),
        (.cardSecurityCodeInvalid, .incorrectCVC),
        (.rejected, .processingError),
        (.tdsFailed, .authenticationFailed),
        (.methodError, .bankPaymentFailed),
        (.cardNumberInvalid, PaymentFailure(code: "incorrect_number", declineCode: "incorrect_number", message: "Your card number is incorrect.")),
        (.cardDisabled, PaymentFailure(code: "card_declined", declineCode: "restricted_card", message: "Your card was declined.")),
        (.cardSchemeUnsupported, PaymentFailure(code: "card_declined", declineCode: "card_not_supported", message: "Your card is not supported.")),
        (.cardSchemeUnknown, PaymentFailure(code: "card_declined", declineCode: "card_not_supported", message: "Your card's scheme is unknown.")),
        (.amountLimit, PaymentFailure(code: "card_declined", declineCode: "card_velocity_exceeded", message: "Your card's limit does not allow this amount.")),
    ]

    public static func failure(for code: PaylikeCode) -> PaymentFailure {
        failures.first { $0.0 == code }?.1 ?? .generic
    }

    /// The Paylike code of a gateway failure: by its message first (both directions agree),
    /// then by its decline code (a stolen card is reported as lost).
    public static func code(for failure: PaymentFailure) -> PaylikeCode {
        if let exact = failures.first(where: { $0.1 == failure }) { return exact.0 }
        if failure.declineCode == "stolen_card" { return .cardLost }
        return failures.first { $0.1.code == failure.code && $0.1.declineCode == failure.declineCode }?.0 ?? .rejectedByIssuer
    }
}

extension PaylikeTest.TDSFingerprint {
    static let allNames = ["timeout", "unavailable", "success"]
}

extension PaylikeFlow {
    /// A card as Paylike's test mode takes it (Tender's keys are all test keys): any number of 12
    /// to 19 digits, with no Luhn check (that is live mode's: Paylike's own test card is
    /// 4100 0000 0000 0000), its brand read from its prefix; the expiry as written, a month of
    /// 1 to 12 and a year of two or four digits, whether or not it has passed (the test object's
    /// `card.status` says expired); any security code (the test object's `card.code` says
    /// invalid). Malformed parts are refused with Paylike's codes.
    public static func testModeCard(digits: String, expiryMonth: Int, expiryYear: Int) -> Result<(brand: CardBrand, expiry: YearMonth), PaylikeCode> {
        guard (12...19).contains(digits.utf8.count), digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return .failure(.cardNumberInvalid)
        }
        let year: Int
        switch expiryYear {
        case 0...99: year = 2000 + expiryYear
        case 1000...9999: year = expiryYear
        default: return .failure(.cardExpired)
        }
        guard (1...12).contains(expiryMonth) else { return .failure(.cardExpired) }
        return .success((CardBrand(digits: digits), YearMonth(year: year, month: expiryMonth)))
    }
}
