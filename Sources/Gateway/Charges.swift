/// A charge's id: `ch_` and its intent's characters, with `_n` for an intent's n-th attempt
/// after the first (Stripe's charge of a payment intent shares its intent's characters too).
public typealias ChargeID = RecordID<ChargeAttempt>

extension RecordID where Record == PaymentIntentRecord {
    /// The id of this intent's `number`-th charge (1 for the first).
    public func charge(_ number: Int) -> ChargeID {
        ChargeID("ch_" + rawValue.dropFirst(3) + (number > 1 ? "_\(number)" : ""))
    }
}

extension RecordID where Record == ChargeAttempt {
    /// The intent this charge belongs to and which of its attempts it is; nil for text that is
    /// not a charge's id.
    public var attempt: (paymentIntent: PaymentIntentID, number: Int)? {
        guard rawValue.hasPrefix("ch_"), rawValue.utf8.count <= 255 else { return nil }
        let body = rawValue.dropFirst(3)
        let parts = body.split(separator: "_", omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty, first.utf8.allSatisfy({ $0 < 128 }) else { return nil }
        switch parts.count {
        case 1: return (PaymentIntentID("pi_" + first), 1)
        case 2:
            guard let number = Int(parts[1]), number >= 2, String(number) == parts[1] else { return nil }
            return (PaymentIntentID("pi_" + first), number)
        default: return nil
        }
    }
}

/// The payment method an attempt used, as it was when attached to the intent: its charge shows
/// it even after the method changes or the intent forgets it (a failed attempt does).
public struct ChargeMethod: Sendable, Codable, Equatable {
    /// What a charge shows of a card: no more than its method shows, and how 3-D Secure went.
    public struct Card: Sendable, Codable, Equatable {
        public let brand: CardBrand
        public let last4: String
        public let expMonth: Int
        public let expYear: Int
        public let country: String
        public let fingerprint: String
        /// `challenge` or `frictionless` when its issuer asks for 3-D Secure; nil when it does not.
        public let authenticationFlow: String?

        public init(_ card: PaymentMethodRecord.Card) {
            brand = card.brand
            last4 = card.last4
            expMonth = card.expMonth
            expYear = card.expYear
            country = card.country
            fingerprint = card.fingerprint
            if case .requiresAuthentication(let challenge, _) = card.outcome {
                authenticationFlow = challenge ? "challenge" : "frictionless"
            } else {
                authenticationFlow = nil
            }
        }
    }

    public let id: PaymentMethodID
    public let type: PaymentMethodType
    public let card: Card?
    public let bank: String?
    public let billing: BillingDetails?

    public init(_ method: PaymentMethodRecord) {
        id = method.id
        type = method.type
        card = method.card.map(Card.init)
        bank = method.bank
        billing = method.billing
    }
}

/// One attempt to pay an intent: Stripe's charge. Made when the payment method's answer is
/// known (or known to be late); what it captured and refunded is the intent's.
public struct ChargeAttempt: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable {
        /// The acquirer has not answered yet.
        case pending
        case succeeded
        case failed
    }

    /// 1 for the intent's first attempt.
    public let number: Int
    public let created: Int64
    public let amount: Int64
    public var status: Status
    public let method: ChargeMethod?
    public var failure: PaymentFailure?

    public init(number: Int, created: Int64, amount: Int64, status: Status, method: ChargeMethod?, failure: PaymentFailure? = nil) {
        self.number = number
        self.created = created
        self.amount = amount
        self.status = status
        self.method = method
        self.failure = failure
    }
}

/// What an intent's step did to its charges, and the event that reports it.
public enum ChargeChange: Sendable, Equatable {
    /// A charge was made or changed: `charge.succeeded`, `charge.failed`, `charge.pending`.
    case recorded(ChargeAttempt, GatewayEventType)
    /// The succeeded charge's authorisation was captured: `charge.captured`.
    case captured(ChargeAttempt)

    /// The event that reports it, and the charge it carries.
    public var event: (type: GatewayEventType, charge: ChargeAttempt) {
        switch self {
        case .recorded(let charge, let type): (type, charge)
        case .captured(let charge): (.chargeCaptured, charge)
        }
    }
}

extension PaymentIntentRecord {
    /// The intent's charges, oldest first.
    public var chargeAttempts: [ChargeAttempt] { charges ?? [] }

    /// The charge that took the money, if any (an intent has at most one).
    public var succeededCharge: ChargeAttempt? { charges?.last { $0.status == .succeeded } }

    /// Records the charge the state machine's `action` makes, after the machine moved: an
    /// answer from the acquirer (approved, declined, late) makes a charge or settles the
    /// pending one; a capture of an authorisation captures the succeeded one. A failed
    /// 3-D Secure authentication makes none (nothing reached the card network, as with Stripe).
    /// Pure: returns the change and its event, or nil when the step touches no charge.
    public mutating func recordCharge(for action: PaymentIntentStateMachine.Action, now: Int64) -> ChargeChange? {
        var attempts = chargeAttempts
        let pendingIndex = attempts.last?.status == .pending ? attempts.count - 1 : nil
        func make(_ status: ChargeAttempt.Status, failure: PaymentFailure? = nil) -> ChargeAttempt {
            ChargeAttempt(number: attempts.count + 1, created: now, amount: machine.amount, status: status, method: attemptMethod, failure: failure)
        }
        let change: ChargeChange
        switch action {
        case .failed(let failure):
            guard failure != .authenticationFailed else { return nil }
            if let pendingIndex {
                attempts[pendingIndex].status = .failed
                attempts[pendingIndex].failure = failure
                change = .recorded(attempts[pendingIndex], .chargeFailed)
            } else {
                attempts.append(make(.failed, failure: failure))
                change = .recorded(attempts[attempts.count - 1], .chargeFailed)
            }
        case .authorized, .settle:
            if let pendingIndex {
                attempts[pendingIndex].status = .succeeded
                change = .recorded(attempts[pendingIndex], .chargeSucceeded)
            } else if case .settle = action, let succeeded = succeededCharge {
                return .captured(succeeded)
            } else {
                attempts.append(make(.succeeded))
                change = .recorded(attempts[attempts.count - 1], .chargeSucceeded)
            }
        case .askAcquirerLater:
            guard pendingIndex == nil else { return nil }
            attempts.append(make(.pending))
            change = .recorded(attempts[attempts.count - 1], .chargePending)
        case .none, .requiresAction, .release, .refund, .canceled:
            return nil
        }
        charges = attempts
        // The charge keeps what it tried; the next attempt attaches its method again.
        if attempts.last?.status != .pending { attemptMethod = nil }
        return change
    }

    /// What of the succeeded charge was refunded: refunds, and an authorisation released
    /// uncaptured (a cancellation, a capture of less), as Stripe counts them.
    public var chargeAmountRefunded: Int64 { machine.amountRefunded + machine.amountReleased }
}
