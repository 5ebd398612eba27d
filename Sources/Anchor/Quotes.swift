/// SEP-38's prices and quotes between the anchor's assets and the fiat they stand for: a fixed
/// table of rates (the test anchor's), integer arithmetic in hundredths, the fee taken in the
/// asset sold. Pure; a quote's expiry is a time given.
public enum Quotes {
    /// An asset as SEP-38 names it: `iso4217:EUR` or `stellar:EUR:G...`.
    public struct AssetName: Hashable, Sendable, CustomStringConvertible {
        public let scheme: String
        public let code: String
        public let issuer: String?

        public init?(_ text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            switch (parts.first, parts.count) {
            case ("iso4217", 2) where parts[1].count == 3 && parts[1].allSatisfy({ $0.isASCII && $0.isUppercase }):
                (scheme, code, issuer) = ("iso4217", parts[1], nil)
            case ("stellar", 3) where !parts[1].isEmpty && parts[2].count == 56:
                (scheme, code, issuer) = ("stellar", parts[1], parts[2])
            default:
                return nil
            }
        }

        public var isFiat: Bool { scheme == "iso4217" }
        public var description: String { issuer.map { "\(scheme):\(code):\($0)" } ?? "\(scheme):\(code)" }
    }

    /// What one unit of an asset is worth in euro cents, per 100 units: the fiat currency each
    /// stands for (EUR 100, USD 92.59...) is given as a fraction `cents / per`.
    public struct Rate: Sendable, Equatable {
        public let numerator: Int64
        public let denominator: Int64
        public init(_ numerator: Int64, _ denominator: Int64) {
            precondition(numerator > 0 && denominator > 0, "a rate is positive")
            self.numerator = numerator
            self.denominator = denominator
        }
    }

    public struct Fee: Sendable, Equatable {
        /// In hundredths of the asset sold.
        public let total: Int64
        public let asset: AssetName
    }

    /// A price for selling `sellAmount` of `sell` for `buyAmount` of `buy` (hundredths),
    /// with the fee (in the asset sold) included in `sellAmount`.
    public struct Price: Sendable, Equatable {
        public let sell: AssetName
        public let buy: AssetName
        public let sellAmount: Int64
        public let buyAmount: Int64
        public let fee: Fee
        /// Units of `sell` per unit of `buy`, without the fee, as a decimal text (up to 7 places).
        public let price: String
        /// `sellAmount / buyAmount`, the fee included.
        public let totalPrice: String
    }

    public struct Refusal: Error, Equatable, Sendable {
        public let message: String
    }

    /// The fiat currency an asset stands for: `EUR` for `iso4217:EUR` and the anchor's EUR,
    /// `USD` for `iso4217:USD` and USDC.
    public static func currency(of asset: AssetName, anchored: [String: String]) -> String? {
        asset.isFiat ? asset.code : anchored[asset.code]
    }

    /// The fee on selling `amount` hundredths of `sell` (into a stellar asset: the card fee in
    /// basis points plus the fixed part; out of one: the fixed withdrawal fee).
    public static func fee(selling amount: Int64, _ sell: AssetName, percentBasisPoints: Int64, depositFixed: Int64, withdrawFixed: Int64) -> Int64 {
        sell.isFiat ? min((amount * percentBasisPoints + 5_000) / 10_000 + depositFixed, amount) : min(withdrawFixed, amount)
    }

    /// The price of a trade between a fiat currency and a stellar asset (either way), for an
    /// amount sold or bought. `rates` gives each fiat currency's value in euro cents per 100.
    /// - Throws: ``Refusal`` for pairs not traded, amounts too small to cover the fee, or both
    ///   or neither amount given.
    public static func price(
        sell: AssetName, buy: AssetName, sellAmount: Int64?, buyAmount: Int64?, anchored: [String: String], rates: [String: Rate],
        percentBasisPoints: Int64, depositFixed: Int64, withdrawFixed: Int64
    ) throws(Refusal) -> Price {
        guard sell.isFiat != buy.isFiat else { throw Refusal(message: "the anchor trades between a fiat currency (iso4217:) and one of its assets (stellar:)") }
        guard let sellCurrency = currency(of: sell, anchored: anchored), let buyCurrency = currency(of: buy, anchored: anchored),
              let sellRate = rates[sellCurrency], let buyRate = rates[buyCurrency] else {
            throw Refusal(message: "\(sell) or \(buy) is not an asset this anchor prices")
        }
        guard (sellAmount == nil) != (buyAmount == nil) else { throw Refusal(message: "give exactly one of sell_amount and buy_amount") }
        // One hundredth of `buy` is worth `unit` hundredths of `sell`: (buy's rate) / (sell's rate).
        let numerator = buyRate.numerator * sellRate.denominator
        let denominator = buyRate.denominator * sellRate.numerator
        func fee(_ amount: Int64) -> Int64 { Self.fee(selling: amount, sell, percentBasisPoints: percentBasisPoints, depositFixed: depositFixed, withdrawFixed: withdrawFixed) }
        let sold: Int64, bought: Int64, fees: Int64
        if let sellAmount {
            guard sellAmount > 0, sellAmount <= 100_000_000 else { throw Refusal(message: "sell_amount is more than 0 and at most 1000000") }
            fees = fee(sellAmount)
            guard fees < sellAmount else { throw Refusal(message: "sell_amount does not cover the fee") }
            sold = sellAmount
            // What the rest buys, rounded down.
            bought = (sellAmount - fees) * denominator / numerator
        } else {
            let buyAmount = buyAmount!
            guard buyAmount > 0, buyAmount <= 100_000_000 else { throw Refusal(message: "buy_amount is more than 0 and at most 1000000") }
            bought = buyAmount
            // What it costs, rounded up, then the fee on the whole (found by trying upward: the
            // fee grows with the amount sold).
            let net = (buyAmount * numerator + denominator - 1) / denominator
            var candidate = net
            while candidate - fee(candidate) < net { candidate += 1 }
            sold = candidate
            fees = fee(candidate)
        }
        guard bought > 0 else { throw Refusal(message: "the amount buys nothing once the fee is taken") }
        return Price(
            sell: sell, buy: buy, sellAmount: sold, buyAmount: bought, fee: Fee(total: fees, asset: sell),
            price: decimal(numerator, denominator), totalPrice: decimal(sold, bought))
    }

    /// `n / d` as a decimal text with up to 7 places, rounded half up.
    public static func decimal(_ n: Int64, _ d: Int64) -> String {
        let scaled = (n * 10_000_000 * 2 + d) / (2 * d)
        let whole = scaled / 10_000_000
        var fraction = String(scaled % 10_000_000)
        fraction = String(repeating: "0", count: 7 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
    }

    /// A firm quote lasts this long unless asked otherwise: 5 minutes.
    public static let lifetime: Int64 = 300

    /// When a quote asked to last until `expireAfter` (or the default) expires.
    public static func expiry(now: Int64, expireAfter: Int64?) throws(Refusal) -> Int64 {
        guard let expireAfter else { return now + lifetime }
        guard expireAfter >= now, expireAfter <= now + 86_400 else { throw Refusal(message: "expire_after is within the next day") }
        return max(expireAfter, now + lifetime)
    }
}
