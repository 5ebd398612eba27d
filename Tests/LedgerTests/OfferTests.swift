import Testing
import StellarBase
@testable import Ledger

private let xlm = TestLedger.xlm

/// A ledger with an issuer of USD and two traders holding USD and XLM.
struct Market {
    var ledger = TestLedger()
    let issuer: KeyPair
    let usd: Asset
    let maker: KeyPair
    let taker: KeyPair

    init() {
        issuer = ledger.account(1000)
        usd = ledger.asset("USD", issuer: issuer)
        maker = ledger.account(1000)
        taker = ledger.account(1000)
        ledger.trust(maker, usd)
        ledger.trust(taker, usd)
        ledger.pay(issuer, maker, usd, 500 * xlm)
    }

    mutating func sell(_ who: KeyPair, selling: Asset, buying: Asset, _ amount: Int64, _ price: Price, offerID: Int64 = 0) -> TransactionApplication {
        ledger.submit(who, .manageSellOffer(ManageSellOfferOperation(selling: selling, buying: buying, amount: amount, price: price, offerID: offerID)))
    }

    func effect(_ application: TransactionApplication) -> (claimed: [ClaimAtom], effect: ManageOfferEffect)? {
        switch application.result.outcome.operationResults?.first {
        case .inner(.manageSellOffer(.success(let claimed, let effect))): (claimed, effect)
        case .inner(.manageBuyOffer(.success(let claimed, let effect))): (claimed, effect)
        default: nil
        }
    }
}

@Suite("Offers and the order book")
struct OfferTests {
    @Test func anOfferRestsInTheBookWithItsLiabilities() throws {
        var market = Market()
        let created = try #require(market.effect(market.sell(market.maker, selling: market.usd, buying: .native, 100 * xlm, Price(n: 2, d: 1))))
        guard case .created(let offer) = created.effect else { Issue.record("not created"); return }
        #expect(created.claimed.isEmpty)
        #expect(offer.amount == 100 * xlm)
        #expect(market.ledger.state.bestOffer(selling: market.usd, buying: .native) == offer)
        #expect(market.ledger.state.trustLine(market.maker.accountID, market.usd)!.sellingLiabilities == 100 * xlm)
        #expect(market.ledger.state.account(market.maker.accountID)!.buyingLiabilities == 200 * xlm)
        #expect(market.ledger.state.account(market.maker.accountID)!.numSubEntries == 2)
    }

    @Test func aTakerFillsPartOfAnOffer() throws {
        var market = Market()
        _ = market.sell(market.maker, selling: market.usd, buying: .native, 100 * xlm, Price(n: 2, d: 1))
        let makerXLM = market.ledger.balance(market.maker)!
        let taken = try #require(market.effect(market.sell(market.taker, selling: .native, buying: market.usd, 50 * xlm, Price(n: 1, d: 2))))
        guard case .deleted = taken.effect else { Issue.record("the taker's offer should be fully filled"); return }
        #expect(taken.claimed.count == 1)
        #expect(taken.claimed[0].amounts.amountSold == 25 * xlm)
        #expect(taken.claimed[0].amounts.amountBought == 50 * xlm)
        #expect(market.ledger.balance(market.taker, market.usd) == 25 * xlm)
        #expect(market.ledger.balance(market.maker) == makerXLM + 50 * xlm)
        #expect(market.ledger.state.bestOffer(selling: market.usd, buying: .native)?.amount == 75 * xlm)
        #expect(market.ledger.state.trustLine(market.maker.accountID, market.usd)!.sellingLiabilities == 75 * xlm)
        #expect(market.ledger.state.account(market.taker.accountID)!.numSubEntries == 1)
    }

    @Test func aTakerTakesEverythingAndRestsTheRest() throws {
        var market = Market()
        _ = market.sell(market.maker, selling: market.usd, buying: .native, 100 * xlm, Price(n: 2, d: 1))
        let taken = try #require(market.effect(market.sell(market.taker, selling: .native, buying: market.usd, 300 * xlm, Price(n: 1, d: 2))))
        guard case .created(let rest) = taken.effect else { Issue.record("the rest should rest in the book"); return }
        #expect(rest.amount == 100 * xlm)
        #expect(market.ledger.state.bestOffer(selling: market.usd, buying: .native) == nil)
        #expect(market.ledger.balance(market.taker, market.usd) == 100 * xlm)
        #expect(market.ledger.state.account(market.maker.accountID)!.numSubEntries == 1)
        #expect(market.ledger.state.account(market.taker.accountID)!.sellingLiabilities == 100 * xlm)
    }

    @Test func bestPriceFirstThenOldest() throws {
        var market = Market()
        let second = market.ledger.account(1000)
        market.ledger.trust(second, market.usd)
        market.ledger.pay(market.issuer, second, market.usd, 100 * xlm)
        let first = try #require(market.effect(market.sell(market.maker, selling: market.usd, buying: .native, 10 * xlm, Price(n: 2, d: 1))))
        _ = market.sell(second, selling: market.usd, buying: .native, 10 * xlm, Price(n: 2, d: 1))
        let cheapest = try #require(market.effect(market.sell(second, selling: market.usd, buying: .native, 10 * xlm, Price(n: 3, d: 2))))
        guard case .created(let firstOffer) = first.effect, case .created(let cheapOffer) = cheapest.effect else { Issue.record("offers not created"); return }
        let book = market.ledger.state.offers(selling: market.usd, buying: .native)
        #expect(book.map(\.offerID) == [cheapOffer.offerID, firstOffer.offerID, firstOffer.offerID + 1])
        // 35 XLM buys the 1.5 offer (15 XLM) and the older 2.0 offer (20 XLM).
        let taken = try #require(market.effect(market.sell(market.taker, selling: .native, buying: market.usd, 35 * xlm, Price(n: 1, d: 2))))
        #expect(taken.claimed.map(\.amounts.offerID) == [cheapOffer.offerID, firstOffer.offerID])
        #expect(market.ledger.balance(market.taker, market.usd) == 20 * xlm)
        #expect(market.ledger.state.offers(selling: market.usd, buying: .native).map(\.offerID) == [firstOffer.offerID + 1])
    }

    @Test func theTakersPriceLimitsWhatItCrosses() throws {
        var market = Market()
        _ = market.sell(market.maker, selling: market.usd, buying: .native, 10 * xlm, Price(n: 3, d: 2))
        _ = market.sell(market.maker, selling: market.usd, buying: .native, 10 * xlm, Price(n: 2, d: 1))
        // At most 1.8 XLM per USD: only the 1.5 offer crosses; the rest rests at the taker's price.
        let taken = try #require(market.effect(market.sell(market.taker, selling: .native, buying: market.usd, 100 * xlm, Price(n: 5, d: 9))))
        #expect(taken.claimed.count == 1)
        guard case .created(let rest) = taken.effect else { Issue.record("no resting offer"); return }
        #expect(rest.amount == 85 * xlm)
        #expect(market.ledger.state.offers(selling: market.usd, buying: .native).count == 1)
    }

    @Test func roundingFavoursTheOfferThatStays() throws {
        var market = Market()
        _ = market.sell(market.maker, selling: market.usd, buying: .native, 10_000, Price(n: 3, d: 7))
        // 700 stroops of XLM buy 1633 stroops of USD at 3/7 (1633.33 rounded down for the taker)...
        let taken = try #require(market.effect(market.sell(market.taker, selling: .native, buying: market.usd, 700, Price(n: 1, d: 10))))
        #expect(taken.claimed.first?.amounts.amountSold == 1633)
        #expect(taken.claimed.first?.amounts.amountBought == 700)
        // ...but 7 stroops would buy 16 at an effective price more than 1% off 3/7, so no trade
        // happens and the taker's offer is removed, as stellar-core does.
        let tiny = market.sell(market.taker, selling: .native, buying: market.usd, 7, Price(n: 1, d: 10))
        let none = try #require(market.effect(tiny))
        #expect(none.claimed.first?.amounts.amountSold == 0)
        #expect(none.claimed.first?.amounts.amountBought == 0)
        guard case .deleted = none.effect else { Issue.record("the taker's offer should be removed"); return }
    }

    @Test func updateAndDelete() throws {
        var market = Market()
        let created = try #require(market.effect(market.sell(market.maker, selling: market.usd, buying: .native, 100 * xlm, Price(n: 2, d: 1))))
        guard case .created(let offer) = created.effect else { return }
        let updated = try #require(market.effect(market.sell(market.maker, selling: market.usd, buying: .native, 40 * xlm, Price(n: 3, d: 1), offerID: offer.offerID)))
        guard case .updated(let changed) = updated.effect else { Issue.record("not updated"); return }
        #expect(changed.offerID == offer.offerID && changed.amount == 40 * xlm && changed.price == Price(n: 3, d: 1))
        #expect(market.ledger.state.trustLine(market.maker.accountID, market.usd)!.sellingLiabilities == 40 * xlm)
        #expect(market.ledger.state.account(market.maker.accountID)!.buyingLiabilities == 120 * xlm)
        let deleted = try #require(market.effect(market.sell(market.maker, selling: market.usd, buying: .native, 0, Price(n: 3, d: 1), offerID: offer.offerID)))
        guard case .deleted = deleted.effect else { Issue.record("not deleted"); return }
        #expect(market.ledger.state.offers.isEmpty)
        #expect(market.ledger.state.account(market.maker.accountID)!.numSubEntries == 1)
        #expect(market.ledger.state.account(market.maker.accountID)!.buyingLiabilities == 0)
        #expect(market.ledger.state.trustLine(market.maker.accountID, market.usd)!.sellingLiabilities == 0)
    }

    @Test func manageSellOfferCodes() {
        var market = Market()
        let usd = market.usd
        let eur = market.ledger.asset("EUR", issuer: market.issuer)
        let one = Price(n: 1, d: 1)
        #expect(codes(market.sell(market.maker, selling: usd, buying: usd, xlm, one)) == ["tx_failed", "op_malformed"])
        #expect(codes(market.sell(market.maker, selling: usd, buying: .native, -1, one)) == ["tx_failed", "op_malformed"])
        #expect(codes(market.sell(market.maker, selling: usd, buying: .native, xlm, Price(n: 0, d: 1))) == ["tx_failed", "op_malformed"])
        #expect(codes(market.sell(market.maker, selling: usd, buying: .native, 0, one)) == ["tx_failed", "op_malformed"])
        #expect(codes(market.sell(market.maker, selling: usd, buying: .native, xlm, one, offerID: -1)) == ["tx_failed", "op_malformed"])
        #expect(codes(market.sell(market.maker, selling: eur, buying: .native, xlm, one)) == ["tx_failed", "op_sell_no_trust"])
        #expect(codes(market.sell(market.maker, selling: usd, buying: eur, xlm, one)) == ["tx_failed", "op_buy_no_trust"])
        #expect(codes(market.sell(market.taker, selling: usd, buying: .native, xlm, one)) == ["tx_failed", "op_underfunded"])
        #expect(codes(market.sell(market.maker, selling: usd, buying: .native, 501 * xlm, one)) == ["tx_failed", "op_underfunded"])
        #expect(codes(market.sell(market.maker, selling: usd, buying: .native, xlm, one, offerID: 999)) == ["tx_failed", "op_offer_not_found"])
        // Another account's offer is not found either.
        let created = market.effect(market.sell(market.maker, selling: usd, buying: .native, xlm, Price(n: 2, d: 1)))
        if case .created(let offer)? = created?.effect {
            #expect(codes(market.sell(market.taker, selling: .native, buying: usd, xlm, one, offerID: offer.offerID)) == ["tx_failed", "op_offer_not_found"])
        }
        // Crossing one's own offer.
        #expect(codes(market.sell(market.maker, selling: .native, buying: usd, 10 * xlm, Price(n: 1, d: 2))) == ["tx_failed", "op_cross_self"])
        // Buying more than the line can hold.
        market.ledger.trust(market.taker, eur, limit: 10 * xlm)
        #expect(codes(market.sell(market.taker, selling: .native, buying: eur, 20 * xlm, one)) == ["tx_failed", "op_line_full"])
        // Not enough XLM for another subentry's reserve.
        let poor = market.ledger.account(2)
        market.ledger.trust(poor, usd)
        market.ledger.pay(market.issuer, poor, usd, xlm)
        #expect(codes(market.sell(poor, selling: usd, buying: .native, xlm, one)) == ["tx_failed", "op_low_reserve"])
        // Buying an asset whose line is not authorized.
        let strict = market.ledger.account(100)
        #expect(codes(market.ledger.submit(strict, .setOptions(SetOptionsOperation(setFlags: AccountFlags.authRequired)))) == ["tx_success", "op_success"])
        let gold = market.ledger.asset("GOLD", issuer: strict)
        market.ledger.trust(market.maker, gold)
        #expect(codes(market.sell(market.maker, selling: usd, buying: gold, xlm, one)) == ["tx_failed", "buy_not_authorized"])
    }

    @Test func manageBuyOffer() throws {
        var market = Market()
        _ = market.sell(market.maker, selling: market.usd, buying: .native, 100 * xlm, Price(n: 2, d: 1))
        // Buy exactly 10 USD paying at most 2 XLM each.
        let result = market.ledger.submit(market.taker, .manageBuyOffer(ManageBuyOfferOperation(
            selling: .native, buying: market.usd, buyAmount: 10 * xlm, price: Price(n: 2, d: 1))))
        #expect(codes(result) == ["tx_success", "op_success"])
        #expect(market.ledger.balance(market.taker, market.usd) == 10 * xlm)
        let taken = try #require(market.effect(result))
        guard case .deleted = taken.effect else { Issue.record("the buy offer should be filled"); return }
        #expect(taken.claimed.first?.amounts.amountBought == 20 * xlm)
        // A buy offer that rests is stored as a sell offer at the inverse price.
        let resting = market.ledger.submit(market.taker, .manageBuyOffer(ManageBuyOfferOperation(
            selling: .native, buying: market.usd, buyAmount: 5 * xlm, price: Price(n: 1, d: 1))))
        guard case .created(let offer)? = market.effect(resting)?.effect else { Issue.record("not resting"); return }
        #expect(offer.selling == .native && offer.price == Price(n: 1, d: 1) && offer.amount == 5 * xlm)
        #expect(codes(market.ledger.submit(market.taker, .manageBuyOffer(ManageBuyOfferOperation(
            selling: .native, buying: .native, buyAmount: 5, price: Price(n: 1, d: 1))))) == ["tx_failed", "op_malformed"])
        #expect(codes(market.ledger.submit(market.taker, .manageBuyOffer(ManageBuyOfferOperation(
            selling: market.usd, buying: .native, buyAmount: 5000 * xlm, price: Price(n: 1, d: 1))))) == ["tx_failed", "op_underfunded"])
    }
}
