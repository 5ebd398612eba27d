/// A SEP-24 (and SEP-6) transfer's life: a deposit (fiat in, the asset paid to the user's
/// account) or a withdrawal (the asset paid to the anchor, fiat out), through SEP-24's statuses.
/// Pure: every step is an event the anchor's core has seen happen.
public struct TransferMachine: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case deposit, withdrawal
        /// SEP-24's `kind`.
        public var name: String { self == .deposit ? "deposit" : "withdrawal" }
    }

    public enum Status: String, Codable, Sendable, CaseIterable {
        case incomplete
        case pendingUserTransferStart = "pending_user_transfer_start"
        case pendingAnchor = "pending_anchor"
        case pendingTrust = "pending_trust"
        case pendingStellar = "pending_stellar"
        case completed
        case error
        case refunded

        public var isFinal: Bool { [.completed, .error, .refunded].contains(self) }
    }

    /// What the anchor saw happen.
    public enum Event: Sendable, Equatable {
        /// The user chose the amount (minor units of the fiat) on the interactive page; the fee
        /// is the one `/info` states for it. An exchange (SEP-6 with a SEP-38 price) names what
        /// the user receives in the other asset, instead of the amount less the fee.
        case amountChosen(amountIn: Int64, fee: Int64, exchangedOut: Int64? = nil)
        /// The user's part arrived: the card payment succeeded (deposit), or the asset reached
        /// the anchor's account (withdrawal, with the ledger transaction that paid it).
        case userTransferReceived(stellarTransaction: String?)
        /// The user's part failed (the card was declined) or never came.
        case userTransferFailed(String)
        /// The user's account lacks the trustline the deposit needs.
        case trustMissing
        /// The anchor is about to pay (the asset on the ledger, or fiat out).
        case paying
        /// The anchor's part is done: the ledger transaction (deposit) or the payout (withdrawal).
        case paid(String)
        /// The anchor's part failed and will not be tried again.
        case payFailed(String)
        /// The user's money went back (the card payment was refunded) before the asset moved.
        case refunded
    }

    /// An event that cannot happen in the transfer's state.
    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        public let status: Status
        public let event: String
        public var description: String { "a transfer that is \(status.rawValue) cannot take \(event)" }
    }

    public let kind: Kind
    public private(set) var status: Status = .incomplete
    /// Minor units of the fiat: what the user pays in (a deposit) or sends as the asset (a withdrawal).
    public private(set) var amountIn: Int64?
    public private(set) var amountFee: Int64?
    /// An exchange's amount out, in hundredths of the other asset.
    public private(set) var exchangedOut: Int64?
    public private(set) var message: String?
    /// The ledger transaction of the asset's move (the deposit's payment, the withdrawal's incoming one).
    public private(set) var stellarTransaction: String?
    /// The payment intent (deposit) or payout (withdrawal) on the gateway.
    public private(set) var external: String?

    public init(kind: Kind) { self.kind = kind }

    /// What the user receives: the amount in less the fee.
    public var amountOut: Int64? {
        if let exchangedOut { return exchangedOut }
        guard let amountIn, let amountFee else { return nil }
        return amountIn - amountFee
    }

    public mutating func apply(_ event: Event) throws(Refusal) {
        func refuse() -> Refusal { Refusal(status: status, event: "\(event)") }
        switch (status, event) {
        case (.incomplete, .amountChosen(let amount, let fee, let exchanged)):
            guard amount > 0, fee >= 0, fee < amount, (exchanged ?? 1) > 0 else { throw refuse() }
            amountIn = amount
            amountFee = fee
            exchangedOut = exchanged
            status = .pendingUserTransferStart
        case (.pendingUserTransferStart, .userTransferReceived(let transaction)):
            if kind == .withdrawal { stellarTransaction = transaction }
            status = .pendingAnchor
        case (.incomplete, .userTransferFailed(let why)), (.pendingUserTransferStart, .userTransferFailed(let why)):
            message = why
            status = .error
        case (.pendingAnchor, .trustMissing) where kind == .deposit:
            status = .pendingTrust
        case (.pendingAnchor, .paying), (.pendingTrust, .paying):
            status = kind == .deposit ? .pendingStellar : .pendingAnchor
        case (.pendingStellar, .paid(let reference)), (.pendingAnchor, .paid(let reference)):
            if kind == .deposit {
                guard status == .pendingStellar else { throw refuse() }
                stellarTransaction = reference
            } else {
                external = reference
            }
            status = .completed
        case (.pendingStellar, .payFailed(let why)), (.pendingAnchor, .payFailed(let why)), (.pendingTrust, .payFailed(let why)):
            message = why
            status = .error
        case (.pendingAnchor, .refunded) where kind == .deposit, (.pendingTrust, .refunded) where kind == .deposit:
            status = .refunded
        default:
            throw refuse()
        }
    }

    /// Names the gateway's object of the user's part (the deposit's payment intent).
    public mutating func link(external id: String) {
        if kind == .deposit { external = id }
    }
}
