/// A payment method as stored: for a card only what may be kept (brand, last four digits,
/// expiry, country, fingerprint), never the number or the security code.
public struct PaymentMethodRecord: Sendable, Codable, Equatable {
    public struct Card: Sendable, Codable, Equatable {
        public let brand: CardBrand
        public let last4: String
        public let expMonth: Int
        public let expYear: Int
        public let country: String
        public let fingerprint: String
        /// What the test acquirer will answer for this card, decided when it was tokenised so
        /// that the number itself need not be kept.
        public let outcome: AcquirerOutcome
        /// Whether its issuer lets payments made without the customer go through once the card
        /// was authenticated when set up (nil: no).
        public var exemptOnceSetUp: Bool?

        public init(brand: CardBrand, last4: String, expMonth: Int, expYear: Int, country: String, fingerprint: String, outcome: AcquirerOutcome) {
            self.brand = brand
            self.last4 = last4
            self.expMonth = expMonth
            self.expYear = expYear
            self.country = country
            self.fingerprint = fingerprint
            self.outcome = outcome
        }
    }

    public let id: PaymentMethodID
    public let type: PaymentMethodType
    public let created: Int64
    public var card: Card?
    /// The iDEAL bank chosen, if any.
    public var bank: String?
    public var customer: CustomerID?
    public var metadata: [String: String]
    /// Who pays, as the merchant gave it (`billing_details`).
    public var billing: BillingDetails?
    /// Set up for payments made without the customer (by a setup intent, or a payment with
    /// `setup_future_usage`), authenticated then if its issuer asked.
    public var setUpForLater: FutureUsage?

    public init(id: PaymentMethodID, type: PaymentMethodType, created: Int64, card: Card? = nil, bank: String? = nil, customer: CustomerID? = nil, metadata: [String: String] = [:]) {
        self.id = id
        self.type = type
        self.created = created
        self.card = card
        self.bank = bank
        self.customer = customer
        self.metadata = metadata
    }
}

/// Who pays with a payment method, as Stripe's `billing_details` gives it; every field optional.
public struct BillingDetails: Sendable, Codable, Equatable {
    public struct Address: Sendable, Codable, Equatable {
        public var city: String?
        public var country: String?
        public var line1: String?
        public var line2: String?
        public var postalCode: String?
        public var state: String?

        public init(city: String? = nil, country: String? = nil, line1: String? = nil, line2: String? = nil, postalCode: String? = nil, state: String? = nil) {
            self.city = city
            self.country = country
            self.line1 = line1
            self.line2 = line2
            self.postalCode = postalCode
            self.state = state
        }
    }

    public var name: String?
    public var email: String?
    public var phone: String?
    public var address: Address?

    public init(name: String? = nil, email: String? = nil, phone: String? = nil, address: Address? = nil) {
        self.name = name
        self.email = email
        self.phone = phone
        self.address = address
    }
}

/// Where the settlement of a captured payment stands on the ledger.
public enum SettlementState: String, Sendable, Codable {
    /// Decided (the intent moved to succeeded), not yet confirmed committed.
    case pending
    /// In a committed ledger.
    case settled
}

/// A payment intent as stored: the state machine and everything else Stripe's object shows.
public struct PaymentIntentRecord: Sendable, Codable, Equatable {
    public let id: PaymentIntentID
    public let clientSecret: String
    public let currency: String
    public let created: Int64
    public var machine: PaymentIntentStateMachine
    public var paymentMethodTypes: [PaymentMethodType]
    public var customer: CustomerID?
    public var description: String?
    public var statementDescriptor: String?
    public var returnURL: String?
    public var metadata: [String: String]
    public var canceledAt: Int64?
    /// Set when the intent entered requires_action, for its expiry.
    public var actionSince: Int64?
    /// Set when the intent was authorised for a manual capture, for its expiry.
    public var authorizedAt: Int64?
    /// For a payment whose acquirer did not answer: when to ask again, and how often it was asked.
    public var reconcileAt: Int64?
    public var reconcileAttempts: Int = 0
    public var settlement: SettlementState?
    /// The hash of the ledger transaction that settled it (hex).
    public var settlementTransaction: String?
    /// While its settlement is pending: the amount it settles (all that was received, or a
    /// multicapture's last part) and the charge's event that reports it once settled
    /// (`charge.succeeded`, or `charge.captured` for an authorisation captured), so that whoever
    /// completes it (the request, the janitor finding it on the ledger, the start-up recovery)
    /// settles and reports the same. Nil once settled, and in intents stored before.
    public var settlementAmount: Int64?
    public var settlementChargeEvent: GatewayEventType?

    /// Records the settlement as done by the ledger transaction `hash` (hex): settled, with
    /// what was kept while it was pending cleared.
    public mutating func recordSettlement(_ hash: String) {
        (settlement, settlementTransaction, settlementAmount, settlementChargeEvent) = (.settled, hash, nil, nil)
    }
    /// Paylike's `custom` data given with the payment, as the client sent it (compact JSON).
    public var custom: String?
    /// What the merchant did to the authorisation through Paylike's merchant API, in order.
    public var trail: [TrailEntry]?
    /// Paylike's payment plan given with the payment (compact JSON, RFC 3339 dates): the
    /// agreement, recorded, not executed.
    public var plan: String?
    /// Who may start unplanned payments later (`customer`, `merchant`), as the payment said.
    public var unplanned: [String]?
    /// A marketplace order's payment: settled whole straight into this escrow account (so no
    /// other payment of the merchant's can take it first); the gateway's fee is taken when the
    /// escrow releases it.
    public var escrowAccount: String?
    /// Every attempt to pay it (Stripe's charges), oldest first; nil before the first.
    public var charges: [ChargeAttempt]?
    /// The payment method attached, as it was then, for the next attempt's charge.
    public var attemptMethod: ChargeMethod?
    /// Save the payment method for its customer once paid (Stripe's `setup_future_usage`).
    public var setupFutureUsage: FutureUsage?
    /// Paid without the customer there (`off_session`): an issuer's challenge declines it.
    public var offSession: Bool?
    /// The Checkout Session it pays, if any.
    public var checkoutSession: CheckoutSessionID?

    public init(id: PaymentIntentID, clientSecret: String, currency: String, created: Int64, machine: PaymentIntentStateMachine, paymentMethodTypes: [PaymentMethodType], metadata: [String: String] = [:]) {
        self.id = id
        self.clientSecret = clientSecret
        self.currency = currency
        self.created = created
        self.machine = machine
        self.paymentMethodTypes = paymentMethodTypes
        self.metadata = metadata
    }
}

/// A customer of a merchant, whose saved cards are payment methods attached to it.
public struct CustomerRecord: Sendable, Codable, Equatable {
    public let id: CustomerID
    public let created: Int64
    public var email: String?
    public var name: String?
    public var description: String?
    public var metadata: [String: String]
    public var phone: String?
    /// The saved payment method its invoices (and Tender's off-session payments) use first.
    public var defaultPaymentMethod: PaymentMethodID?

    public init(id: CustomerID, created: Int64, email: String? = nil, name: String? = nil, description: String? = nil, metadata: [String: String] = [:]) {
        self.id = id
        self.created = created
        self.email = email
        self.name = name
        self.description = description
        self.metadata = metadata
    }
}

/// A refund of part or all of a captured payment, paid back from the merchant's settlement.
public struct RefundRecord: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable {
        /// Recorded against the intent, not yet paid back on the ledger.
        case pending
        case succeeded
        /// The ledger refused it (the settlement account could not cover it); nothing moved.
        case failed
    }

    public let id: RefundID
    public let paymentIntent: PaymentIntentID
    public let amount: Int64
    public let currency: String
    public let created: Int64
    public var status: Status
    public var reason: String?
    public var metadata: [String: String]
    public var failureReason: String?
    /// The ledger transaction that paid it back (hex).
    public var ledgerTransaction: String?
    /// The charge it pays back (the intent's succeeded one; nil in refunds made before charges).
    public var charge: ChargeID?

    public init(id: RefundID, paymentIntent: PaymentIntentID, amount: Int64, currency: String, created: Int64, status: Status, reason: String? = nil, metadata: [String: String] = [:]) {
        self.id = id
        self.paymentIntent = paymentIntent
        self.amount = amount
        self.currency = currency
        self.created = created
        self.status = status
        self.reason = reason
        self.metadata = metadata
    }
}

/// A payout of the merchant's balance to its own Stellar address.
public struct PayoutRecord: Sendable, Codable, Equatable {
    public let id: PayoutID
    public let amount: Int64
    public let currency: String
    /// The Stellar address (G...) paid.
    public let destination: String
    public let created: Int64
    public let ledgerTransaction: String
    public var metadata: [String: String]
    public var description: String?

    public init(id: PayoutID, amount: Int64, currency: String, destination: String, created: Int64, ledgerTransaction: String, metadata: [String: String] = [:]) {
        self.id = id
        self.amount = amount
        self.currency = currency
        self.destination = destination
        self.created = created
        self.ledgerTransaction = ledgerTransaction
        self.metadata = metadata
    }
}

/// One entry of a Paylike transaction's trail: a capture, refund or void, and its amount.
public struct TrailEntry: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable { case capture, refund, void }
    public let kind: Kind
    public let amount: Int64
    public let created: Int64
    public var descriptor: String?

    public init(kind: Kind, amount: Int64, created: Int64, descriptor: String? = nil) {
        self.kind = kind
        self.amount = amount
        self.created = created
        self.descriptor = descriptor
    }
}

/// A capture that is not the intent's last (Paylike's captures): settled on the ledger on its
/// own, with its own memo, so that each is found again or made once after a stop.
public struct CaptureRecord: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable { case pending, succeeded }
    public let id: CaptureID
    public let paymentIntent: PaymentIntentID
    public let amount: Int64
    public let currency: String
    public let created: Int64
    public var status: Status
    /// The ledger transaction that settled it (hex).
    public var ledgerTransaction: String?

    public init(id: CaptureID, paymentIntent: PaymentIntentID, amount: Int64, currency: String, created: Int64, status: Status) {
        self.id = id
        self.paymentIntent = paymentIntent
        self.amount = amount
        self.currency = currency
        self.created = created
        self.status = status
    }
}

/// A payment page's look: colours as `#rgb` or `#rrggbb`, and the corner radius in pixels.
public struct PageTheme: Sendable, Codable, Equatable {
    public var primary: String
    public var error: String
    public var disabled: String
    public var radius: Int

    public static let standard = PageTheme(primary: "#635bff", error: "#c0362c", disabled: "#a3acb9", radius: 6)

    public init(primary: String, error: String, disabled: String, radius: Int) {
        self.primary = primary
        self.error = error
        self.disabled = disabled
        self.radius = radius
    }

    /// Whether `text` is a colour a theme may hold: `#` and 3 or 6 hexadecimal digits (nothing
    /// else reaches the page's style sheet).
    public static func isColor(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return (bytes.count == 4 || bytes.count == 7) && bytes[0] == UInt8(ascii: "#")
            && bytes.dropFirst().allSatisfy { (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) }
    }

    public static let radii = 0...32
}

/// A payment link: a page anyone with the URL can pay, each payment an intent of the merchant.
public struct PaymentLinkRecord: Sendable, Codable, Equatable {
    public let id: PaymentLinkID
    public let created: Int64
    public let amount: Int64
    public let currency: String
    public var description: String?
    public var theme: PageTheme
    public var metadata: [String: String]
    public var active: Bool

    public init(id: PaymentLinkID, created: Int64, amount: Int64, currency: String, description: String?, theme: PageTheme, metadata: [String: String] = [:], active: Bool = true) {
        self.id = id
        self.created = created
        self.amount = amount
        self.currency = currency
        self.description = description
        self.theme = theme
        self.metadata = metadata
        self.active = active
    }
}
