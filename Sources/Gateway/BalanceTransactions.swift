/// A balance transaction's id: `txn_...`, one per movement of a merchant's balance.
public typealias BalanceTransactionID = RecordID<BalanceTransactionRecord>

/// One movement of a merchant's balance (its settlement account on the ledger), as Stripe's
/// balance transactions explain a balance: a charge settled (gross, the fee, net), a refund paid
/// back, a payout, a marketplace's share of a release, money moved to or from escrow. Written in
/// the same store write that records the movement as done, so the transactions of a balance sum
/// to it.
public struct BalanceTransactionRecord: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A card payment settled.
        case charge
        /// A bank payment (iDEAL, Bancontact) settled.
        case payment
        case refund
        case payout
        /// A marketplace's share of an order released from escrow.
        case transfer
        /// Money moved between a marketplace's balance and its escrow.
        case adjustment
    }

    public let id: BalanceTransactionID
    public let type: Kind
    /// Minor units, signed: what moved in (positive) or out (negative), before the fee.
    public let amount: Int64
    /// Tender's fee taken from it (never negative).
    public let fee: Int64
    public let currency: String
    /// The object that moved it: `ch_`, `re_`, `po_`, `cap_`, an order.
    public let source: String
    public let created: Int64
    public var description: String?

    public init(id: BalanceTransactionID, type: Kind, amount: Int64, fee: Int64, currency: String, source: String, created: Int64, description: String? = nil) {
        precondition(fee >= 0 && fee <= Swift.max(amount, 0), "a fee is taken from what came in")
        self.id = id
        self.type = type
        self.amount = amount
        self.fee = fee
        self.currency = currency
        self.source = source
        self.created = created
        self.description = description
    }

    /// What it left in the balance.
    public var net: Int64 { amount - fee }
}
