import Identifiers

/// A marketplace: a gateway merchant (its settlement account takes the payments and the
/// commission) with its charges, the delivery it allows, and an escrow account on the ledger
/// that holds paid orders until they are released.
public struct MarketplaceRecord: Sendable, Codable, Equatable {
    /// The gateway merchant's id (`acct_...`): the marketplace's id too.
    public let id: MarketplaceID
    public let name: String
    public var charges: MarketplaceCharges
    /// The escrow account's address (G...) and its seed, sealed under the server's key.
    public let escrowAccount: String
    public let sealedEscrowSeed: [UInt8]
    /// Seconds after which an unpaid order expires, and after which a shipped order is released
    /// without the buyer's confirmation.
    public var orderExpirySeconds: Int64
    public var releaseAfterSeconds: Int64
    public let created: Int64

    public init(id: MarketplaceID, name: String, charges: MarketplaceCharges, escrowAccount: String, sealedEscrowSeed: [UInt8], orderExpirySeconds: Int64, releaseAfterSeconds: Int64, created: Int64) {
        self.id = id
        self.name = name
        self.charges = charges
        self.escrowAccount = escrowAccount
        self.sealedEscrowSeed = sealedEscrowSeed
        self.orderExpirySeconds = orderExpirySeconds
        self.releaseAfterSeconds = releaseAfterSeconds
        self.created = created
    }
}

/// A postal address; the country (ISO 3166 alpha-2) decides the shipping cost.
public struct Address: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var line1: String
    public var postalCode: String
    public var city: String
    public var country: String

    public init(id: String, name: String, line1: String, postalCode: String, city: String, country: String) {
        self.id = id
        self.name = name
        self.line1 = line1
        self.postalCode = postalCode
        self.city = city
        self.country = country
    }

    /// Two capital letters.
    public static func isCountry(_ text: String) -> Bool {
        text.utf8.count == 2 && text.utf8.allSatisfy { (65...90).contains($0) }
    }
}

/// A user of a marketplace: buyer, seller or both; `business` users see VAT separately. The
/// gateway customer holds their saved cards.
public struct CheckoutUserRecord: Sendable, Codable, Equatable {
    public let id: CheckoutUserID
    public var name: String
    public var business: Bool
    public var addresses: [Address]
    /// The gateway customer (`cus_...`) whose cards are this user's saved cards.
    public let customer: String
    public let created: Int64
    /// The user's account on the ledger (G...), where the escrow pays them as a seller, and its
    /// seed, sealed under the server's key.
    public var account: String?
    public var sealedSeed: [UInt8]?

    public init(id: CheckoutUserID, name: String, business: Bool, addresses: [Address], customer: String, created: Int64) {
        self.id = id
        self.name = name
        self.business = business
        self.addresses = addresses
        self.customer = customer
        self.created = created
    }
}

/// A listing: the seller's item, its asking price, whether it may be bought at once, and how
/// it may reach the buyer.
public struct ListingRecord: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable { case available, reserved, sold }

    public let id: ListingID
    public let seller: CheckoutUserID
    public var title: String
    /// Minor units of `currency` (eur).
    public var price: Int64
    public let currency: String
    public var buyNow: Bool
    public var pickup: Bool
    public var delivery: [DeliveryMethod]
    /// The seller's country: where shipping starts.
    public var country: String
    public var status: Status
    /// The accepted bid it is reserved for, or sold to.
    public var bid: BidID?
    public let created: Int64

    public init(id: ListingID, seller: CheckoutUserID, title: String, price: Int64, currency: String, buyNow: Bool, pickup: Bool, delivery: [DeliveryMethod], country: String, created: Int64) {
        self.id = id
        self.seller = seller
        self.title = title
        self.price = price
        self.currency = currency
        self.buyNow = buyNow
        self.pickup = pickup
        self.delivery = delivery
        self.country = country
        self.status = .available
        self.created = created
    }
}

/// A bid on a listing.
public struct BidRecord: Sendable, Codable, Equatable {
    public let id: BidID
    public let listing: ListingID
    public let buyer: CheckoutUserID
    public let seller: CheckoutUserID
    public let amount: Int64
    public let currency: String
    public var machine: BidMachine
    public let created: Int64
    /// The order made for it, once there is one.
    public var order: OrderID?

    public init(id: BidID, listing: ListingID, buyer: CheckoutUserID, seller: CheckoutUserID, amount: Int64, currency: String, machine: BidMachine, created: Int64) {
        self.id = id
        self.listing = listing
        self.buyer = buyer
        self.seller = seller
        self.amount = amount
        self.currency = currency
        self.machine = machine
        self.created = created
    }
}

/// An order for an accepted bid: the buyer's choices, the totals they gave, the gateway intent
/// that pays it, and where its money is on the ledger.
public struct OrderRecord: Sendable, Codable, Equatable {
    public let id: OrderID
    public let bid: BidID
    public let listing: ListingID
    public let buyer: CheckoutUserID
    public let seller: CheckoutUserID
    public var machine: OrderMachine
    public var delivery: DeliveryChoice
    public var address: Address?
    public var totals: Totals
    /// The gateway payment intent paying it, once one was made.
    public var paymentIntent: String?
    /// Ledger transactions (hex hashes): the hold into escrow, the release out of it.
    public var holdTransaction: String?
    public var releaseTransaction: String?
    /// A paid order cancelled: the gateway refund's id (chosen before anything moves) and the
    /// escrow's return of the held money.
    public var refund: String?
    public var returnTransaction: String?
    /// The gateway's fee on the payment, fixed when it was paid and taken at release.
    public var gatewayFee: Int64?
    public let created: Int64
    public var paidAt: Int64?
    public var shippedAt: Int64?

    public init(id: OrderID, bid: BidID, listing: ListingID, buyer: CheckoutUserID, seller: CheckoutUserID, machine: OrderMachine, delivery: DeliveryChoice, address: Address?, totals: Totals, created: Int64) {
        self.id = id
        self.bid = bid
        self.listing = listing
        self.buyer = buyer
        self.seller = seller
        self.machine = machine
        self.delivery = delivery
        self.address = address
        self.totals = totals
        self.created = created
    }

    /// What the escrow holds for it: the buyer's whole payment while paid or shipped, nothing
    /// before or after.
    public var held: Int64 {
        switch machine.status {
        case .paid, .shipped: totals.total
        case .awaitingPayment, .paymentPending, .completed, .cancelled, .expired: 0
        }
    }
}

public typealias MarketplaceID = RecordID<MarketplaceRecord>
public typealias CheckoutUserID = RecordID<CheckoutUserRecord>
public typealias ListingID = RecordID<ListingRecord>
public typealias BidID = RecordID<BidRecord>
public typealias OrderID = RecordID<OrderRecord>
