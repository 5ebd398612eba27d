import Testing
import StellarBase
@testable import Ledger

/// Trades as Horizon's trades processor records them (`trades_processor.go`), and its trade
/// aggregations (`trade_aggregation.go`).
@Suite("Trades")
struct TradesTests {
    @Test func anOfferCrossedIsATradeAtTheOffersPrice() throws {
        var ledger = TestLedger()
        let issuer = ledger.account(), maker = ledger.account(), taker = ledger.account(1_000)
        let usd = ledger.asset("USD", issuer: issuer)
        ledger.trust(maker, usd)
        ledger.trust(taker, usd)
        ledger.pay(issuer, maker, usd, 100 * TestLedger.xlm)
        let made = ledger.offer(maker, selling: usd, buying: .native, amount: 100 * TestLedger.xlm, price: Price(n: 2, d: 1))
        let makerOffer = try #require(made)
        // The taker offers 30 XLM for USD at 1/2 and crosses all of it (15 USD): nothing of its own is left.
        ledger.submit(taker, .manageSellOffer(ManageSellOfferOperation(selling: .native, buying: usd, amount: 30 * TestLedger.xlm, price: Price(n: 1, d: 2))))
        var history = LedgerHistory(try #require(ledger.lastLedger))
        let operation = try #require(history.operations.first?.id)
        // XLM's XDR sorts first: the taker's side is base, the maker's offer price turned round.
        #expect(history.trades == [TradeRecord(
            operationID: operation, order: 0, closeTime: ledger.closeTime, kind: .orderbook,
            base: TradeSide(asset: .native, amount: 30 * TestLedger.xlm, account: taker.accountID, offerID: TradeRecord.syntheticOfferID(operation)),
            counter: TradeSide(asset: usd, amount: 15 * TestLedger.xlm, account: maker.accountID, offerID: makerOffer),
            baseIsSeller: false, priceN: 1, priceD: 2)])
        #expect(history.trades[0].reversed.base.asset == usd && history.trades[0].reversed.baseIsSeller && history.trades[0].reversed.priceN == 2)

        // A taker whose offer stays in the book names it; the price is the crossed offer's even
        // when the taker offers a better one.
        ledger.submit(taker, .manageSellOffer(ManageSellOfferOperation(selling: .native, buying: usd, amount: 400 * TestLedger.xlm, price: Price(n: 1, d: 4))))
        history = LedgerHistory(try #require(ledger.lastLedger))
        let left = try #require(history.trades.first?.base.offerID)
        #expect(left < TradeRecord.syntheticOfferID(0) && ledger.state.offers[left]?.entry.sellerID == taker.accountID)
        #expect(history.trades.first.map { [$0.base.amount, $0.counter.amount, $0.priceN, $0.priceD] } == [170 * TestLedger.xlm, 85 * TestLedger.xlm, 1, 2])
        // The maker's offer is gone now; its price was read before the operation.
        #expect(ledger.state.offers[makerOffer] == nil)
    }

    @Test func aPathPaymentTradesEachHopInItsOrder() throws {
        var ledger = TestLedger()
        let issuer = ledger.account(), maker = ledger.account(), payer = ledger.account(), payee = ledger.account()
        let usd = ledger.asset("USD", issuer: issuer), eur = ledger.asset("EUR", issuer: issuer)
        for (holder, asset) in [(maker, usd), (maker, eur), (payee, eur)] { ledger.trust(holder, asset) }
        ledger.pay(issuer, maker, usd, 100 * TestLedger.xlm)
        ledger.pay(issuer, maker, eur, 100 * TestLedger.xlm)
        _ = ledger.offer(maker, selling: usd, buying: .native, amount: 50 * TestLedger.xlm, price: Price(n: 1, d: 1))
        _ = ledger.offer(maker, selling: eur, buying: usd, amount: 50 * TestLedger.xlm, price: Price(n: 3, d: 2))
        ledger.submit(payer, .pathPaymentStrictReceive(PathPaymentStrictReceiveOperation(
            sendAsset: .native, sendMax: 100 * TestLedger.xlm, destination: .ed25519(payee.accountID), destAsset: eur, destAmount: 10 * TestLedger.xlm, path: [usd])))
        let history = LedgerHistory(try #require(ledger.lastLedger))
        #expect(history.trades.map(\.order) == [0, 1])
        // Hop one: 15 XLM for 15 USD; hop two: 15 USD for 10 EUR. EUR sorts before USD.
        #expect(history.trades.map { [$0.base.amount, $0.counter.amount] } == [[15 * TestLedger.xlm, 15 * TestLedger.xlm], [10 * TestLedger.xlm, 15 * TestLedger.xlm]])
        #expect(history.trades[1].base.asset == eur && history.trades[1].baseIsSeller && history.trades[1].priceN == 3 && history.trades[1].priceD == 2)
        #expect(history.trades.allSatisfy { $0.counter.account == payer.accountID || $0.base.account == payer.accountID })
    }

    static func trade(_ seconds: UInt64, base: Int64, counter: Int64, price: (Int64, Int64)) -> TradeRecord {
        TradeRecord(
            operationID: Int64(seconds), order: 0, closeTime: seconds, kind: .orderbook,
            base: TradeSide(asset: .native, amount: base, account: nil, offerID: 1), counter: TradeSide(asset: .native, amount: counter, account: nil, offerID: 2),
            baseIsSeller: true, priceN: price.0, priceD: price.1)
    }

    @Test func aggregationsBucketOpenCloseHighAndLow() {
        let trades = [
            Self.trade(60, base: 10, counter: 20, price: (2, 1)), Self.trade(90, base: 10, counter: 50, price: (5, 1)),
            Self.trade(100, base: 10, counter: 10, price: (1, 1)), Self.trade(130, base: 4, counter: 12, price: (3, 1)),
        ]
        var ascending: [TradeBucket] = []
        for trade in trades { #expect(TradeAggregation.add(trade, to: &ascending, resolution: 60_000, offset: 0, limit: 10, descending: false)) }
        #expect(ascending.map(\.timestamp) == [60_000, 120_000])
        #expect(ascending[0].count == 3 && ascending[0].baseVolume == 30 && ascending[0].counterVolume == 80)
        #expect(ascending[0].open == TradePrice(n: 2, d: 1) && ascending[0].close == TradePrice(n: 1, d: 1))
        #expect(ascending[0].high == TradePrice(n: 5, d: 1) && ascending[0].low == TradePrice(n: 1, d: 1))
        // Newest first, the same buckets in the other order: open and close are the same trades.
        var descending: [TradeBucket] = []
        for trade in trades.reversed() { #expect(TradeAggregation.add(trade, to: &descending, resolution: 60_000, offset: 0, limit: 10, descending: true)) }
        #expect(descending == ascending.reversed())
        // A limit of one bucket stops at the second.
        var one: [TradeBucket] = []
        #expect(trades.map { TradeAggregation.add($0, to: &one, resolution: 60_000, offset: 0, limit: 1, descending: false) } == [true, true, true, false])
    }

    @Test func timesAndOffsetsAreMovedAsHorizonMovesThem() {
        let hour: Int64 = 3_600_000, day = 24 * hour
        #expect(TradeAggregation.offsetProblem(hour, resolution: day) == nil)
        #expect(TradeAggregation.offsetProblem(hour + 1, resolution: day) != nil)
        #expect(TradeAggregation.offsetProblem(2 * hour, resolution: hour) != nil)
        #expect(TradeAggregation.offsetProblem(24 * hour, resolution: 7 * day) != nil)
        #expect(TradeAggregation.adjustedStart(0, resolution: day, offset: hour) == hour)
        #expect(TradeAggregation.adjustedStart(hour + 1, resolution: day, offset: hour) == day + hour)
        #expect(TradeAggregation.adjustedStart(day + hour, resolution: day, offset: hour) == day + hour)
        #expect(TradeAggregation.adjustedEnd(hour - 1, resolution: day, offset: hour) == nil)
        #expect(TradeAggregation.adjustedEnd(2 * day, resolution: day, offset: hour) == day + hour)
        #expect(TradeAggregation.bucket(day + 2 * hour, resolution: day, offset: hour) == day + hour)
    }
}

/// CreatePassiveSellOffer: stellar-core's ManageSellOffer with the passive flag (offer id 0).
@Suite("Passive offers")
struct PassiveOfferTests {
    @Test func aPassiveOfferTakesNoOfferAtItsOwnPrice() throws {
        var ledger = TestLedger()
        let issuer = ledger.account(), maker = ledger.account(), taker = ledger.account(1_000)
        let usd = ledger.asset("USD", issuer: issuer)
        ledger.trust(maker, usd)
        ledger.trust(taker, usd)
        ledger.pay(issuer, maker, usd, 100 * TestLedger.xlm)
        _ = ledger.offer(maker, selling: usd, buying: .native, amount: 50 * TestLedger.xlm, price: Price(n: 1, d: 1))
        // At exactly the maker's price the passive offer rests beside it.
        let resting = ledger.submit(taker, .createPassiveSellOffer(CreatePassiveSellOfferOperation(selling: .native, buying: usd, amount: 10 * TestLedger.xlm, price: Price(n: 1, d: 1))))
        guard case .inner(.createPassiveSellOffer(.success(let claimed, .created(let offer))))? = resting.result.outcome.operationResults?.first else {
            Issue.record("not a created passive offer: \(codes(resting))")
            return
        }
        #expect(claimed.isEmpty && offer.flags == 1 && ledger.state.offers[offer.offerID]?.entry.flags == 1)
        // The result keeps the passive offer's own type through XDR.
        #expect(try TransactionResult(xdrBytes: resting.result.xdrBytes) == resting.result)
        // A better price than the maker's crosses it, as any offer would.
        let crossing = ledger.submit(taker, .createPassiveSellOffer(CreatePassiveSellOfferOperation(selling: .native, buying: usd, amount: 10 * TestLedger.xlm, price: Price(n: 1, d: 2))))
        guard case .inner(.createPassiveSellOffer(.success(let taken, .deleted)))? = crossing.result.outcome.operationResults?.first else {
            Issue.record("the passive offer did not cross: \(codes(crossing))")
            return
        }
        #expect(taken.count == 1 && ledger.balance(taker, usd) == 10 * TestLedger.xlm)
        #expect(LedgerHistory(try #require(ledger.lastLedger)).trades.count == 1)
        #expect(codes(ledger.submit(taker, .createPassiveSellOffer(CreatePassiveSellOfferOperation(selling: .native, buying: usd, amount: 0, price: Price(n: 1, d: 1)))))
                == ["tx_failed", "op_malformed"], "a passive offer cannot delete")
    }
}
