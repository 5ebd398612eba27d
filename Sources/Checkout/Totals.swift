/// How the buyer pays an order: the marketplace's payment methods, each with its own fee.
public enum CheckoutPaymentMethod: String, Sendable, Codable, CaseIterable {
    case card, ideal, bancontact
}

/// A marketplace's charges: its commission on the item (taken from the seller at release), the
/// payment fees the buyer pays (iDEAL and Bancontact flat, card a percentage of item and
/// shipping) and the VAT rate its prices include. Basis points: 100 = 1%.
public struct MarketplaceCharges: Sendable, Codable, Equatable {
    public var commissionBasisPoints: Int64
    public var idealFee: Int64
    public var bancontactFee: Int64
    public var cardBasisPoints: Int64
    public var vatBasisPoints: Int64

    /// The reference marketplace's: iDEAL €1.99; card 2.9%; Bancontact €1.49; 10% commission;
    /// Dutch VAT, 21%.
    public static let reference = MarketplaceCharges(commissionBasisPoints: 1_000, idealFee: 199, bancontactFee: 149, cardBasisPoints: 290, vatBasisPoints: 2_100)

    public init(commissionBasisPoints: Int64, idealFee: Int64, bancontactFee: Int64, cardBasisPoints: Int64, vatBasisPoints: Int64) {
        self.commissionBasisPoints = commissionBasisPoints
        self.idealFee = idealFee
        self.bancontactFee = bancontactFee
        self.cardBasisPoints = cardBasisPoints
        self.vatBasisPoints = vatBasisPoints
    }

    /// Whether every charge is within bounds: rates 0-100% (VAT up to 100% too), flat fees
    /// 0 to €1,000.
    public var isValid: Bool {
        (0...10_000).contains(commissionBasisPoints) && (0...10_000).contains(cardBasisPoints) && (0...10_000).contains(vatBasisPoints)
            && (0...100_000).contains(idealFee) && (0...100_000).contains(bancontactFee)
    }
}

/// A delivery method a seller offers and what it costs to each destination country (ISO 3166
/// alpha-2, from the seller's own country). A country missing is not served.
public struct DeliveryMethod: Sendable, Codable, Equatable {
    /// `standard`, `registered`...
    public var name: String
    public var costs: [String: Int64]

    public init(name: String, costs: [String: Int64]) {
        self.name = name
        self.costs = costs
    }
}

/// How the item reaches the buyer.
public enum DeliveryChoice: Sendable, Equatable, Codable {
    case pickup
    case method(String)
}

/// One line of the totals.
public struct TotalsLine: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable { case item, shipping, paymentFee = "payment_fee", vat }
    public let kind: Kind
    public let amount: Int64
}

/// What the buyer pays, line by line, in minor units. `vat` is the VAT the total includes,
/// shown to business buyers only (it is part of the total, not added to it).
public struct Totals: Sendable, Equatable, Codable {
    public let lines: [TotalsLine]
    public let total: Int64
    public let item: Int64
    public let shipping: Int64
    public let paymentFee: Int64
    public let vatIncluded: Int64
}

/// Why totals cannot be given for these choices.
public enum TotalsError: Error, Sendable, Equatable {
    case pickupNotOffered
    case methodNotOffered(String)
    case countryNotServed(method: String, country: String)
    case addressNeeded
    case amountTooLarge
}

/// The totals rules, written down:
/// - item: the accepted bid's amount;
/// - shipping: 0 for pickup (if the seller offers it), else the method's cost to the address's
///   country;
/// - payment fee: iDEAL and Bancontact flat; card `cardBasisPoints` of item + shipping, rounded
///   half up to a minor unit;
/// - total = item + shipping + payment fee, at most 99,999,999 minor units (the gateway's limit);
/// - VAT (business buyers): the VAT the total includes, total × rate / (1 + rate), rounded half
///   up; shown as a line, not added.
public enum CheckoutRules {
    public static let maxTotal: Int64 = 99_999_999

    /// `amount × basisPoints / 10,000`, rounded half up. Amounts here are below 10^8 and basis
    /// points at most 10^4, so the product stays far inside Int64.
    public static func share(_ amount: Int64, basisPoints: Int64) -> Int64 {
        precondition(amount >= 0 && amount <= maxTotal && basisPoints >= 0 && basisPoints <= 10_000, "a share of 0 to 99,999,999 at 0-100%")
        return (amount * basisPoints + 5_000) / 10_000
    }

    public static func totals(
        item: Int64, delivery: DeliveryChoice, country: String?, payment: CheckoutPaymentMethod,
        businessBuyer: Bool, pickupOffered: Bool, methods: [DeliveryMethod], charges: MarketplaceCharges
    ) throws(TotalsError) -> Totals {
        guard item >= 0, item <= maxTotal else { throw .amountTooLarge }
        let shipping: Int64
        switch delivery {
        case .pickup:
            guard pickupOffered else { throw .pickupNotOffered }
            shipping = 0
        case .method(let name):
            guard let method = methods.first(where: { $0.name == name }) else { throw .methodNotOffered(name) }
            guard let country else { throw .addressNeeded }
            guard let cost = method.costs[country] else { throw .countryNotServed(method: name, country: country) }
            guard cost >= 0, cost <= maxTotal else { throw .amountTooLarge }
            shipping = cost
        }
        let goods = item + shipping
        guard goods <= maxTotal else { throw .amountTooLarge }
        let fee: Int64
        switch payment {
        case .ideal: fee = charges.idealFee
        case .bancontact: fee = charges.bancontactFee
        case .card: fee = share(goods, basisPoints: charges.cardBasisPoints)
        }
        let total = goods + fee
        guard total <= maxTotal else { throw .amountTooLarge }
        // total × rate / (10,000 + rate), half up: total < 10^8, rate ≤ 10^4.
        let vat = (total * charges.vatBasisPoints + (10_000 + charges.vatBasisPoints) / 2) / (10_000 + charges.vatBasisPoints)
        var lines = [TotalsLine(kind: .item, amount: item), TotalsLine(kind: .shipping, amount: shipping), TotalsLine(kind: .paymentFee, amount: fee)]
        if businessBuyer { lines.append(TotalsLine(kind: .vat, amount: vat)) }
        return Totals(lines: lines, total: total, item: item, shipping: shipping, paymentFee: fee, vatIncluded: businessBuyer ? vat : 0)
    }

    /// Where an order's money goes when the escrow releases it. The escrow holds the buyer's
    /// whole payment; the gateway's fee on it (fixed when it was paid) is taken at release, so
    /// that until then a cancelled order can always be refunded in full, from a marketplace's
    /// first sale. The marketplace bears the fee out of its part (the buyer's payment fee and the
    /// commission on the item); where the marketplace charges less than the fee, the rest comes
    /// out of the seller's part. Seller, marketplace and gateway together: the total.
    public static func release(_ totals: Totals, charges: MarketplaceCharges, gatewayFee: Int64) -> Release {
        precondition(totals.total >= 0 && totals.total <= maxTotal && (0...totals.total).contains(gatewayFee), "a fee of 0 to the total")
        let commission = share(totals.item, basisPoints: charges.commissionBasisPoints)
        let marketplace = totals.paymentFee + commission
        let seller = totals.item + totals.shipping - commission
        guard marketplace >= gatewayFee else {
            return Release(seller: seller - (gatewayFee - marketplace), marketplace: 0, gateway: gatewayFee)
        }
        return Release(seller: seller, marketplace: marketplace - gatewayFee, gateway: gatewayFee)
    }
}

/// The escrow's payments when an order is released, in minor units.
public struct Release: Sendable, Equatable {
    public var seller: Int64
    public var marketplace: Int64
    public var gateway: Int64

    public init(seller: Int64, marketplace: Int64, gateway: Int64) {
        self.seller = seller
        self.marketplace = marketplace
        self.gateway = gateway
    }
}
