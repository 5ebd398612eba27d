import StellarBase

/// How an exchange rounds, by who is crossing the book (stellar-core's `RoundingType`).
enum ExchangeRounding: Sendable {
    case normal
    case pathPaymentStrictReceive
    case pathPaymentStrictSend
}

struct ExchangeResult: Sendable {
    var wheatReceived: Int64
    var sheepSend: Int64
    var wheatStays: Bool
}

/// The price arithmetic of crossing one offer, exactly as stellar-core's `exchangeV10`: an offer
/// selling wheat at `price` (sheep per wheat) meets a taker selling sheep. The smaller side is
/// used up, rounding favours the side that stays in the book, and a normal trade whose
/// effective price is more than 1% off does not happen.
enum Exchange {
    static func exchangeV10(
        price: Price, maxWheatSend: Int64, maxWheatReceive: Int64, maxSheepSend: Int64, maxSheepReceive: Int64,
        rounding: ExchangeRounding
    ) -> ExchangeResult {
        let before = withoutPriceErrorThresholds(
            price: price, maxWheatSend: maxWheatSend, maxWheatReceive: maxWheatReceive,
            maxSheepSend: maxSheepSend, maxSheepReceive: maxSheepReceive, rounding: rounding)
        return applyPriceErrorThresholds(
            price: price, wheatReceive: before.wheatReceived, sheepSend: before.sheepSend,
            wheatStays: before.wheatStays, rounding: rounding)
    }

    private static func offerValue(_ priceN: Int32, _ priceD: Int32, _ maxSend: Int64, _ maxReceive: Int64) -> U128 {
        min(U128(maxSend, Int64(priceN)), U128(maxReceive, Int64(priceD)))
    }

    static func withoutPriceErrorThresholds(
        price: Price, maxWheatSend: Int64, maxWheatReceive: Int64, maxSheepSend: Int64, maxSheepReceive: Int64,
        rounding: ExchangeRounding
    ) -> ExchangeResult {
        let n = Int64(price.n), d = Int64(price.d)
        let wheatValue = offerValue(price.n, price.d, maxWheatSend, maxSheepReceive)
        let sheepValue = offerValue(price.d, price.n, maxSheepSend, maxWheatReceive)
        let wheatStays = wheatValue > sheepValue

        var wheatReceive: Int64
        var sheepSend: Int64
        if wheatStays {
            if rounding == .pathPaymentStrictSend {
                wheatReceive = bigDivideOrTrap(sheepValue, n, .down)
                sheepSend = min(maxSheepSend, maxSheepReceive)
            } else if n > d || rounding == .pathPaymentStrictReceive {
                wheatReceive = bigDivideOrTrap(sheepValue, n, .down)
                sheepSend = bigDivideOrTrap(wheatReceive, n, d, .up)
            } else {
                sheepSend = bigDivideOrTrap(sheepValue, d, .down)
                wheatReceive = bigDivideOrTrap(sheepSend, d, n, .down)
            }
        } else {
            if n > d {
                wheatReceive = bigDivideOrTrap(wheatValue, n, .down)
                sheepSend = bigDivideOrTrap(wheatReceive, n, d, .down)
            } else {
                sheepSend = bigDivideOrTrap(wheatValue, d, .down)
                wheatReceive = bigDivideOrTrap(sheepSend, d, n, .up)
            }
        }
        precondition(wheatReceive >= 0 && wheatReceive <= min(maxWheatReceive, maxWheatSend), "wheatReceive out of bounds")
        precondition(sheepSend >= 0 && sheepSend <= min(maxSheepReceive, maxSheepSend), "sheepSend out of bounds")
        return ExchangeResult(wheatReceived: wheatReceive, sheepSend: sheepSend, wheatStays: wheatStays)
    }

    static func applyPriceErrorThresholds(
        price: Price, wheatReceive: Int64, sheepSend: Int64, wheatStays: Bool, rounding: ExchangeRounding
    ) -> ExchangeResult {
        var wheatReceive = wheatReceive, sheepSend = sheepSend
        if wheatReceive > 0 && sheepSend > 0 {
            let wheatReceiveValue = U128(wheatReceive, Int64(price.n))
            let sheepSendValue = U128(sheepSend, Int64(price.d))
            precondition(!(wheatStays && sheepSendValue < wheatReceiveValue), "favored sheep when wheat stays")
            precondition(!(!wheatStays && wheatReceiveValue < sheepSendValue), "favored wheat when sheep stays")
            if rounding == .normal {
                if !checkPriceErrorBound(price: price, wheatReceive: wheatReceive, sheepSend: sheepSend, canFavorWheat: false) {
                    sheepSend = 0
                    wheatReceive = 0
                }
            } else {
                precondition(
                    checkPriceErrorBound(price: price, wheatReceive: wheatReceive, sheepSend: sheepSend, canFavorWheat: true),
                    "exceeded price error bound")
            }
        } else if rounding == .pathPaymentStrictSend {
            precondition(sheepSend != 0, "invalid amount of sheep sent")
        } else {
            wheatReceive = 0
            sheepSend = 0
        }
        return ExchangeResult(wheatReceived: wheatReceive, sheepSend: sheepSend, wheatStays: wheatStays)
    }

    /// Whether the effective price `sheepSend / wheatReceive` is within 1% of `price`; with
    /// `canFavorWheat`, any error in favour of the wheat seller is accepted.
    static func checkPriceErrorBound(price: Price, wheatReceive: Int64, sheepSend: Int64, canFavorWheat: Bool) -> Bool {
        let errN = 100 * Int64(price.n)
        let errD = 100 * Int64(price.d)
        let lhs = U128(errN, wheatReceive)
        let rhs = U128(errD, sheepSend)
        if canFavorWheat && lhs < rhs { return true }
        let absDiff = lhs < rhs ? rhs - lhs : lhs - rhs
        let cap = U128(Int64(price.n), wheatReceive)
        return !(cap < absDiff)
    }

    /// The amount an offer can really sell, given what its owner can send and receive.
    static func adjustOffer(price: Price, maxWheatSend: Int64, maxSheepReceive: Int64) -> Int64 {
        exchangeV10(price: price, maxWheatSend: maxWheatSend, maxWheatReceive: .max, maxSheepSend: .max,
                    maxSheepReceive: maxSheepReceive, rounding: .normal).wheatReceived
    }

    /// The (selling, buying) liabilities of an offer of `amount` at `price`.
    static func liabilities(price: Price, amount: Int64) -> (selling: Int64, buying: Int64) {
        let result = exchangeV10(price: price, maxWheatSend: amount, maxWheatReceive: .max, maxSheepSend: .max,
                                 maxSheepReceive: .max, rounding: .normal)
        return (result.wheatReceived, result.sheepSend)
    }
}

/// Why crossing the book stopped (stellar-core's `ConvertResult`).
enum ConvertResult: Sendable {
    case ok
    case partial
    case filterStop
    case crossedTooMany
}

enum OfferFilterResult {
    case keep
    case stop
}

/// The most offers one operation may cross.
let maxOffersToCross = 1000

extension LedgerState {
    /// Reserves what an offer may sell and buy on its owner's holdings.
    mutating func acquireLiabilities(_ offer: OfferEntry) {
        let (selling, buying) = Exchange.liabilities(price: offer.price, amount: offer.amount)
        guard let sellingHolding = holding(offer.sellerID, offer.selling),
              let buyingHolding = holding(offer.sellerID, offer.buying),
              addLiabilities(buyingHolding, buying: buying),
              addLiabilities(sellingHolding, selling: selling)
        else { preconditionFailure("offer \(offer.offerID) liabilities do not fit its owner's holdings") }
    }

    /// Releases what an offer had reserved.
    mutating func releaseLiabilities(_ offer: OfferEntry) {
        let (selling, buying) = Exchange.liabilities(price: offer.price, amount: offer.amount)
        guard let sellingHolding = holding(offer.sellerID, offer.selling),
              let buyingHolding = holding(offer.sellerID, offer.buying),
              addLiabilities(buyingHolding, buying: -buying),
              addLiabilities(sellingHolding, selling: -selling)
        else { preconditionFailure("offer \(offer.offerID) liabilities were not reserved") }
    }

    /// Removes an offer and the subentry its owner paid a reserve for.
    mutating func deleteOffer(_ offer: OfferEntry) {
        let sponsor = offers[offer.offerID]?.sponsor
        removeOffer(offer.offerID)
        removeSubEntry(of: offer.sellerID, sponsor: sponsor)
    }

    /// Crosses one offer selling wheat for sheep (stellar-core's `crossOfferV10`).
    private mutating func crossOffer(
        _ offer: OfferEntry, maxWheatReceive: Int64, maxSheepSend: Int64, rounding: ExchangeRounding,
        trail: inout [ClaimAtom]
    ) -> (wheatReceived: Int64, sheepSend: Int64, wheatStays: Bool, taken: Bool) {
        precondition(accounts[offer.sellerID] != nil, "offer \(offer.offerID) has no owner")
        let wheat = offer.selling, sheep = offer.buying, seller = offer.sellerID
        releaseLiabilities(offer)
        var offer = offer
        offer.amount = Exchange.adjustOffer(
            price: offer.price, maxWheatSend: min(offer.amount, canSellAtMost(seller, wheat)),
            maxSheepReceive: canBuyAtMost(seller, sheep))
        let maxWheatSend = min(offer.amount, canSellAtMost(seller, wheat))
        let result = Exchange.exchangeV10(
            price: offer.price, maxWheatSend: maxWheatSend, maxWheatReceive: maxWheatReceive, maxSheepSend: maxSheepSend,
            maxSheepReceive: canBuyAtMost(seller, sheep), rounding: rounding)
        if result.sheepSend != 0 {
            precondition(addBalance(holding(seller, sheep)!, result.sheepSend), "overflowed sheep balance")
        }
        if result.wheatReceived != 0 {
            precondition(addBalance(holding(seller, wheat)!, -result.wheatReceived), "overflowed wheat balance")
        }
        if result.wheatStays {
            offer.amount -= result.wheatReceived
            offer.amount = Exchange.adjustOffer(
                price: offer.price, maxWheatSend: min(offer.amount, canSellAtMost(seller, wheat)),
                maxSheepReceive: canBuyAtMost(seller, sheep))
        } else {
            offer.amount = 0
        }
        let taken = offer.amount == 0
        if taken {
            deleteOffer(offer)
        } else {
            setOffer(offer)
            acquireLiabilities(offer)
        }
        trail.append(.orderBook(sellerID: seller, ClaimAtom.ClaimedAmounts(
            offerID: offer.offerID, assetSold: wheat, amountSold: result.wheatReceived,
            assetBought: sheep, amountBought: result.sheepSend)))
        return (result.wheatReceived, result.sheepSend, result.wheatStays, taken)
    }

    /// Sells up to `maxSheepSend` sheep for up to `maxWheatReceive` wheat against the book
    /// (stellar-core's `convertWithOffers`), best offers first.
    mutating func convertWithOffers(
        sheep: Asset, maxSheepSend: Int64, wheat: Asset, maxWheatReceive: Int64, rounding: ExchangeRounding,
        offerLimit: Int, trail: inout [ClaimAtom], filter: (OfferEntry) -> OfferFilterResult
    ) -> (result: ConvertResult, sheepSend: Int64, wheatReceived: Int64) {
        var maxSheepSend = maxSheepSend, maxWheatReceive = maxWheatReceive
        var sheepSend: Int64 = 0, wheatReceived: Int64 = 0
        var crossed = 0
        var needMore = maxWheatReceive > 0 && maxSheepSend > 0
        while needMore {
            guard let offer = bestOffer(selling: wheat, buying: sheep) else { break }
            if filter(offer) == .stop { return (.filterStop, sheepSend, wheatReceived) }
            if crossed >= offerLimit { return (.crossedTooMany, sheepSend, wheatReceived) }
            let crossing = crossOffer(offer, maxWheatReceive: maxWheatReceive, maxSheepSend: maxSheepSend, rounding: rounding, trail: &trail)
            crossed += 1
            needMore = !crossing.wheatStays
            sheepSend += crossing.sheepSend
            maxSheepSend -= crossing.sheepSend
            wheatReceived += crossing.wheatReceived
            maxWheatReceive -= crossing.wheatReceived
            needMore = needMore && maxWheatReceive > 0 && maxSheepSend > 0
            if !needMore { return (.ok, sheepSend, wheatReceived) }
            if !crossing.taken { return (.partial, sheepSend, wheatReceived) }
        }
        return (needMore ? .partial : .ok, sheepSend, wheatReceived)
    }
}
