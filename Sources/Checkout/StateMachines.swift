/// A transition the rules do not allow, with a stable code.
public struct CheckoutStateError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String
    public var description: String { message }

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// Who acts on a bid or an order.
public enum CheckoutActor: String, Sendable, Codable {
    case buyer, seller, marketplace
}

/// A bid on a listing: the buyer bids; the seller accepts or rejects; the buyer withdraws
/// while it is not accepted; an accepted buy-now bid whose payment is abandoned is withdrawn by
/// the marketplace so that others can buy; an accepted bid becomes ordered when paid.
public struct BidMachine: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        case pending, accepted, rejected, withdrawn, paid
    }

    public private(set) var status: Status
    public let buyNow: Bool

    /// A new bid; buy-now bids are accepted at once.
    public init(buyNow: Bool) {
        self.buyNow = buyNow
        status = buyNow ? .accepted : .pending
    }

    private func refuse(_ what: String) -> CheckoutStateError {
        CheckoutStateError(code: "bid_unexpected_state", message: "This bid cannot be \(what): it is \(status.rawValue).")
    }

    /// The seller accepts: the listing is reserved for this buyer.
    public mutating func accept() throws(CheckoutStateError) {
        guard status == .pending else { throw refuse("accepted") }
        status = .accepted
    }

    public mutating func reject() throws(CheckoutStateError) {
        guard status == .pending else { throw refuse("rejected") }
        status = .rejected
    }

    /// The buyer withdraws a pending bid, or backs out of a buy-now (accepted at once, not yet
    /// paid); the marketplace withdraws an accepted bid whose order ended unpaid.
    public mutating func withdraw(by actor: CheckoutActor) throws(CheckoutStateError) {
        switch (status, actor) {
        case (.pending, .buyer), (.accepted, .marketplace): status = .withdrawn
        case (.accepted, .buyer) where buyNow: status = .withdrawn
        default: throw refuse("withdrawn by the \(actor.rawValue)")
        }
    }

    /// The order for it was paid.
    public mutating func paid() throws(CheckoutStateError) {
        guard status == .accepted else { throw refuse("paid") }
        status = .paid
    }
}

/// An order for an accepted bid, from the payment to the release of the escrow.
public struct OrderMachine: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Payable: the payment method may change.
        case awaitingPayment = "awaiting_payment"
        /// A payment was started (a redirect to 3-D Secure or the bank is out); the buyer may
        /// come back without paying, and the order is payable again.
        case paymentPending = "payment_pending"
        /// Paid: the money is in escrow.
        case paid
        case shipped
        /// Received (or the time passed): the escrow paid the seller and the marketplace.
        case completed
        /// Cancelled: refunded if it was paid.
        case cancelled
        /// Unpaid for too long.
        case expired
    }

    /// What the caller does after a transition.
    public enum Action: Sendable, Equatable {
        case none
        /// The payment landed: hold it in escrow.
        case hold
        /// Pay the seller and the marketplace from the escrow.
        case release
        /// Refund the buyer through the gateway and return the held money from the escrow.
        case refund
        /// Nothing was paid: free the listing (and withdraw a buy-now bid).
        case free
    }

    public private(set) var status: Status = .awaitingPayment
    public private(set) var paymentMethod: CheckoutPaymentMethod

    public init(paymentMethod: CheckoutPaymentMethod) {
        self.paymentMethod = paymentMethod
    }

    private func refuse(_ what: String) -> CheckoutStateError {
        CheckoutStateError(code: "order_unexpected_state", message: "This order cannot \(what): it is \(status.rawValue).")
    }

    /// Whether the payment method may still change (nothing paid, nothing under way that could
    /// still succeed... a pending redirect may be abandoned, so it may change then too).
    public var isPayable: Bool { status == .awaitingPayment || status == .paymentPending }

    public mutating func choose(_ method: CheckoutPaymentMethod) throws(CheckoutStateError) {
        guard isPayable else { throw refuse("change its payment method") }
        paymentMethod = method
    }

    /// A payment was started with the gateway.
    public mutating func paymentStarted() throws(CheckoutStateError) {
        guard isPayable else { throw refuse("be paid") }
        status = .paymentPending
    }

    /// The gateway says the payment succeeded.
    public mutating func paymentSucceeded() throws(CheckoutStateError) -> Action {
        guard isPayable else { throw refuse("take a payment") }
        status = .paid
        return .hold
    }

    /// The gateway says the payment failed, or the buyer came back without paying: payable again.
    public mutating func paymentFailed() throws(CheckoutStateError) {
        guard isPayable else { throw refuse("fail a payment") }
        status = .awaitingPayment
    }

    /// Unpaid for too long.
    public mutating func expire() throws(CheckoutStateError) -> Action {
        guard isPayable else { throw refuse("expire") }
        status = .expired
        return .free
    }

    public mutating func ship(by actor: CheckoutActor) throws(CheckoutStateError) {
        guard actor == .seller else { throw CheckoutStateError(code: "order_forbidden", message: "Only the seller ships an order.") }
        guard status == .paid else { throw refuse("be shipped") }
        status = .shipped
    }

    /// The buyer confirms receipt, or the marketplace releases after the configured time.
    public mutating func complete(by actor: CheckoutActor) throws(CheckoutStateError) -> Action {
        guard actor == .buyer || actor == .marketplace else { throw CheckoutStateError(code: "order_forbidden", message: "Only the buyer confirms receipt.") }
        guard status == .shipped else { throw refuse("be completed") }
        status = .completed
        return .release
    }

    /// Cancelled before it shipped: refunded if paid, else the listing is freed.
    public mutating func cancel() throws(CheckoutStateError) -> Action {
        switch status {
        case .awaitingPayment, .paymentPending:
            status = .cancelled
            return .free
        case .paid:
            status = .cancelled
            return .refund
        case .shipped, .completed, .cancelled, .expired:
            throw refuse("be cancelled")
        }
    }
}
