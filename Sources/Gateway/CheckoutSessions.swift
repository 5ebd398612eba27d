/// A Checkout Session's id: `cs_test_...`, as Stripe's test sessions are named.
public typealias CheckoutSessionID = RecordID<CheckoutSessionRecord>

/// One line of a Checkout Session: a product's name, its unit price and how many.
public struct SessionLineItem: Sendable, Codable, Equatable {
    public let name: String
    public let unitAmount: Int64
    public let quantity: Int64

    public init(name: String, unitAmount: Int64, quantity: Int64) {
        self.name = name
        self.unitAmount = unitAmount
        self.quantity = quantity
    }
}

/// The hosted checkout most Stripe shops use: line items shown on Tender's payment page, paid
/// by one payment intent made with the session, the customer sent back to the shop.
public struct CheckoutSessionRecord: Sendable, Codable, Equatable {
    public let id: CheckoutSessionID
    public let created: Int64
    public let expiresAt: Int64
    public let currency: String
    public let lineItems: [SessionLineItem]
    public let amountTotal: Int64
    /// The intent that pays it, made with it.
    public let paymentIntent: PaymentIntentID
    public let successURL: String
    public var cancelURL: String?
    public var customer: CustomerID?
    public var customerEmail: String?
    public var clientReferenceID: String?
    public var paymentMethodTypes: [PaymentMethodType]
    public var metadata: [String: String]
    /// When it was expired by the merchant (or found past `expiresAt`), if it was.
    public var expiredAt: Int64?

    public init(
        id: CheckoutSessionID, created: Int64, expiresAt: Int64, currency: String, lineItems: [SessionLineItem], amountTotal: Int64,
        paymentIntent: PaymentIntentID, successURL: String, paymentMethodTypes: [PaymentMethodType], metadata: [String: String] = [:]
    ) {
        self.id = id
        self.created = created
        self.expiresAt = expiresAt
        self.currency = currency
        self.lineItems = lineItems
        self.amountTotal = amountTotal
        self.paymentIntent = paymentIntent
        self.successURL = successURL
        self.paymentMethodTypes = paymentMethodTypes
        self.metadata = metadata
    }
}

/// Where a session stands, from its intent and its clock: Stripe's `status` and
/// `payment_status`.
public enum CheckoutSessionStatus: String, Sendable, Equatable {
    case open, complete, expired

    /// Complete once its intent succeeded; expired when the merchant expired it or its time
    /// passed unpaid; open otherwise.
    public static func of(_ session: CheckoutSessionRecord, intentStatus: PaymentIntentStatus, now: Int64) -> CheckoutSessionStatus {
        if intentStatus == .succeeded { return .complete }
        if session.expiredAt != nil || now >= session.expiresAt || intentStatus == .canceled { return .expired }
        return .open
    }
}

/// The rules of a session's line items, pure.
public enum CheckoutSessionRules {
    /// The most lines a session holds, as Stripe allows in payment mode.
    public static let maxLineItems = 100
    public static let maxQuantity: Int64 = 999_999

    /// A line or the whole refused: `parameter` names it as the request did.
    public struct Violation: Error, Equatable, Sendable {
        public let parameter: String
        public let message: String
    }

    /// The total of `items` in minor units: each line's unit amount times its quantity, summed,
    /// without overflow, at most the largest payment.
    /// - Throws: ``Violation`` for no line or too many, a quantity outside 1...999,999, a
    ///   negative unit amount, or a total of nothing or beyond one payment.
    public static func total(_ items: [SessionLineItem]) throws(Violation) -> Int64 {
        guard !items.isEmpty else { throw Violation(parameter: "line_items", message: "A payment session needs at least one line item.") }
        guard items.count <= maxLineItems else { throw Violation(parameter: "line_items", message: "A session holds at most \(maxLineItems) line items.") }
        var total: Int64 = 0
        for (index, item) in items.enumerated() {
            guard (1...maxQuantity).contains(item.quantity) else {
                throw Violation(parameter: "line_items[\(index)][quantity]", message: "Quantity must be 1 to \(maxQuantity).")
            }
            guard item.unitAmount >= 0 else {
                throw Violation(parameter: "line_items[\(index)][price_data][unit_amount]", message: "A unit amount is 0 or more minor units.")
            }
            let (line, lineOverflow) = item.unitAmount.multipliedReportingOverflow(by: item.quantity)
            let (sum, sumOverflow) = total.addingReportingOverflow(line)
            guard !lineOverflow, !sumOverflow, sum <= FiatConversion.maxPaymentMinorUnits else {
                throw Violation(parameter: "line_items", message: "The session's total must be at most \(FiatConversion.maxPaymentMinorUnits) minor units.")
            }
            total = sum
        }
        guard total > 0 else { throw Violation(parameter: "line_items", message: "The session's total must be more than nothing.") }
        return total
    }
}
