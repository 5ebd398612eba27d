import Testing
import StellarBase
@testable import Ledger

private let xlm = TestLedger.xlm

/// A chain of markets XLM → A1 → A2 → A3 → A4 → A5 → USD at 1:1, kept by one maker.
struct Chain {
    var ledger = TestLedger()
    let issuer: KeyPair
    let maker: KeyPair
    let alice: KeyPair
    let bob: KeyPair
    let assets: [Asset]  // A1...A5, USD
    var usd: Asset { assets[5] }

    init(price: Price = Price(n: 1, d: 1)) {
        issuer = ledger.account(1000)
        maker = ledger.account(1000)
        alice = ledger.account(1000)
        bob = ledger.account(100)
        var assets: [Asset] = []
        for code in ["A1", "A2", "A3", "A4", "A5", "USD"] {
            let asset = ledger.asset(code, issuer: issuer)
            assets.append(asset)
            ledger.trust(maker, asset)
            ledger.pay(issuer, maker, asset, 1000 * xlm)
        }
        self.assets = assets
        ledger.trust(bob, assets[5])
        var previous = Asset.native
        for asset in assets {
            _ = ledger.offer(maker, selling: asset, buying: previous, amount: 1000 * xlm, price: price)
            previous = asset
        }
    }

    mutating func strictSend(_ from: KeyPair, _ sendAsset: Asset, _ amount: Int64, to: AccountID, _ destAsset: Asset, destMin: Int64, path: [Asset]) -> TransactionApplication {
        ledger.submit(from, .pathPaymentStrictSend(PathPaymentStrictSendOperation(
            sendAsset: sendAsset, sendAmount: amount, destination: .ed25519(to), destAsset: destAsset, destMin: destMin, path: path)))
    }

    mutating func strictReceive(_ from: KeyPair, _ sendAsset: Asset, sendMax: Int64, to: AccountID, _ destAsset: Asset, _ amount: Int64, path: [Asset]) -> TransactionApplication {
        ledger.submit(from, .pathPaymentStrictReceive(PathPaymentStrictReceiveOperation(
            sendAsset: sendAsset, sendMax: sendMax, destination: .ed25519(to), destAsset: destAsset, destAmount: amount, path: path)))
    }
}

@Suite("Path payments through the order book")
struct PathPaymentTests {
    @Test(arguments: 0...5)
    func strictSendThroughHops(_ hops: Int) {
        var chain = Chain()
        let destination = chain.assets[hops]
        if destination != chain.usd { chain.ledger.trust(chain.bob, destination) }
        let path = Array(chain.assets.prefix(hops))
        let result = chain.strictSend(chain.alice, .native, 10 * xlm, to: chain.bob.accountID, destination, destMin: 10 * xlm, path: path)
        #expect(codes(result) == ["tx_success", "op_success"])
        guard case .inner(.pathPaymentStrictSend(.success(let offers, let last)))? = result.result.outcome.operationResults?.first else { return }
        #expect(offers.count == hops + 1)
        #expect(last.amount == 10 * xlm)
        #expect(chain.ledger.balance(chain.bob, destination) == 10 * xlm)
        // Every hop's maker offer shrank by exactly the amount.
        #expect(chain.ledger.state.offers(selling: destination, buying: hops == 0 ? .native : chain.assets[hops - 1]).first?.amount == 990 * xlm)
    }

    @Test(arguments: 0...5)
    func strictReceiveThroughHops(_ hops: Int) {
        var chain = Chain(price: Price(n: 2, d: 1))
        let destination = chain.assets[hops]
        if destination != chain.usd { chain.ledger.trust(chain.bob, destination) }
        let path = Array(chain.assets.prefix(hops))
        let before = chain.ledger.balance(chain.alice)!
        // Each hop doubles the price: 1 unit at the end costs 2^(hops+1) XLM.
        let cost = Int64(1 << (hops + 1)) * xlm
        let result = chain.strictReceive(chain.alice, .native, sendMax: cost, to: chain.bob.accountID, destination, xlm, path: path)
        #expect(codes(result) == ["tx_success", "op_success"])
        #expect(chain.ledger.balance(chain.bob, destination) == xlm)
        #expect(chain.ledger.balance(chain.alice) == before - cost - 100)
        let tooLittle = chain.strictReceive(chain.alice, .native, sendMax: cost - 1, to: chain.bob.accountID, destination, xlm, path: path)
        #expect(codes(tooLittle) == ["tx_failed", "op_over_source_max"])
    }

    @Test func withoutConversion() {
        var chain = Chain()
        #expect(codes(chain.strictSend(chain.alice, .native, xlm, to: chain.bob.accountID, .native, destMin: xlm, path: [])) == ["tx_success", "op_success"])
        #expect(codes(chain.strictReceive(chain.issuer, chain.usd, sendMax: xlm, to: chain.bob.accountID, chain.usd, xlm, path: [])) == ["tx_success", "op_success"])
        // All the maker's USD is promised to its offer.
        #expect(codes(chain.strictReceive(chain.maker, chain.usd, sendMax: xlm, to: chain.bob.accountID, chain.usd, xlm, path: [])) == ["tx_failed", "op_underfunded"])
        #expect(chain.ledger.balance(chain.bob, chain.usd) == xlm)
    }

    @Test func failureCodes() {
        var chain = Chain()
        let usd = chain.usd, bob = chain.bob.accountID
        let eur = chain.ledger.asset("EUR", issuer: chain.issuer)
        #expect(codes(chain.strictSend(chain.alice, .native, 0, to: bob, usd, destMin: 1, path: [])) == ["tx_failed", "op_malformed"])
        #expect(codes(chain.strictReceive(chain.alice, .native, sendMax: 1, to: bob, usd, 0, path: [])) == ["tx_failed", "op_malformed"])
        #expect(codes(chain.strictSend(chain.alice, .native, xlm, to: chain.ledger.keyPair().accountID, usd, destMin: 1, path: [])) == ["tx_failed", "op_no_destination"])
        #expect(codes(chain.strictReceive(chain.alice, .native, sendMax: 100 * xlm, to: chain.issuer.accountID, eur, xlm, path: [])) == ["tx_failed", "op_too_few_offers"])
        #expect(codes(chain.strictSend(chain.alice, .native, xlm, to: bob, eur, destMin: 1, path: [])) == ["tx_failed", "op_too_few_offers"])
        #expect(codes(chain.strictSend(chain.alice, .native, xlm, to: bob, usd, destMin: xlm + 1, path: Array(chain.assets.prefix(5)))) == ["tx_failed", "op_under_dest_min"])
        #expect(codes(chain.strictReceive(chain.alice, .native, sendMax: xlm - 1, to: bob, usd, xlm, path: Array(chain.assets.prefix(5)))) == ["tx_failed", "op_over_source_max"])
        // A strict send takes from the source first; a strict receive credits the destination first.
        #expect(codes(chain.strictSend(chain.alice, .native, 1001 * xlm, to: bob, chain.assets[0], destMin: 1, path: [])) == ["tx_failed", "op_underfunded"])
        #expect(codes(chain.strictReceive(chain.alice, .native, sendMax: .max, to: bob, chain.assets[0], xlm, path: [])) == ["tx_failed", "op_no_trust"])
        chain.ledger.trust(chain.bob, chain.assets[0])
        // More than the book holds.
        #expect(codes(chain.strictReceive(chain.alice, .native, sendMax: .max, to: bob, chain.assets[0], 1001 * xlm, path: [])) == ["tx_failed", "op_too_few_offers"])
        // The maker crosses its own offers.
        #expect(codes(chain.strictSend(chain.maker, .native, xlm, to: bob, chain.assets[0], destMin: 1, path: [])) == ["tx_failed", "op_cross_self"])
        // Destination problems.
        let carol = chain.ledger.account(10)
        #expect(codes(chain.strictSend(chain.alice, .native, xlm, to: carol.accountID, usd, destMin: 1, path: Array(chain.assets.prefix(5)))) == ["tx_failed", "op_no_trust"])
        chain.ledger.trust(carol, usd, limit: xlm / 2)
        #expect(codes(chain.strictSend(chain.alice, .native, xlm, to: carol.accountID, usd, destMin: 1, path: Array(chain.assets.prefix(5)))) == ["tx_failed", "op_line_full"])
        #expect(codes(chain.strictSend(chain.alice, eur, xlm, to: bob, usd, destMin: 1, path: [])) == ["tx_failed", "op_src_no_trust"])
    }

    @Test func pathFinderFindsEveryHop() throws {
        let chain = Chain()
        let paths = try chain.ledger.state.strictSendPaths(sourceAsset: .native, sourceAmount: 10 * xlm, destinationAssets: chain.assets)
        #expect(paths.count == 6)
        #expect(Set(paths.map(\.path.count)) == Set(0...5))
        let toUSD = paths.first { $0.destinationAsset == chain.usd }
        #expect(toUSD?.path == Array(chain.assets.prefix(5)))
        #expect(toUSD?.destinationAmount == 10 * xlm)

        let receive = try chain.ledger.state.strictReceivePaths(sourceAssets: [.native, chain.assets[2]], destinationAsset: chain.usd, destinationAmount: 3 * xlm)
        #expect(receive.count == 2)
        #expect(receive.first { $0.sourceAsset == .native }?.path == Array(chain.assets.prefix(5)))
        #expect(receive.first { $0.sourceAsset == chain.assets[2] }?.path == [chain.assets[3], chain.assets[4]])
        #expect(receive.allSatisfy { $0.sourceAmount == 3 * xlm })
        // Nothing beyond what the book holds.
        #expect(try chain.ledger.state.strictSendPaths(sourceAsset: .native, sourceAmount: 1001 * xlm, destinationAssets: [chain.usd]).isEmpty)
        // The same asset needs no path.
        let direct = try chain.ledger.state.strictSendPaths(sourceAsset: chain.usd, sourceAmount: 5, destinationAssets: [chain.usd])
        #expect(direct == [PaymentPath(sourceAsset: chain.usd, sourceAmount: 5, destinationAsset: chain.usd, destinationAmount: 5, path: [])])
    }

    @Test func pathsFoundArePayable() throws {
        var chain = Chain(price: Price(n: 3, d: 2))
        let found = try chain.ledger.state.strictSendPaths(sourceAsset: .native, sourceAmount: 7 * xlm + 3, destinationAssets: [chain.usd])
        let best = try! #require(found.first)
        let result = chain.strictSend(chain.alice, .native, 7 * xlm + 3, to: chain.bob.accountID, chain.usd, destMin: best.destinationAmount, path: best.path)
        #expect(codes(result) == ["tx_success", "op_success"])
        #expect(chain.ledger.balance(chain.bob, chain.usd) == best.destinationAmount)

        let receive = try! #require(try chain.ledger.state.strictReceivePaths(sourceAssets: [.native], destinationAsset: chain.usd, destinationAmount: xlm + 1).first)
        let before = chain.ledger.balance(chain.alice)!
        let paid = chain.strictReceive(chain.alice, .native, sendMax: receive.sourceAmount, to: chain.bob.accountID, chain.usd, xlm + 1, path: receive.path)
        #expect(codes(paid) == ["tx_success", "op_success"])
        #expect(chain.ledger.balance(chain.alice) == before - receive.sourceAmount - 100)
    }

    /// The code a bounded search stops with, or nil when it finishes.
    func stopCode(_ search: () throws(PathSearchError) -> [PaymentPath]) -> PathSearchError.Code? {
        do {
            _ = try search()
            return nil
        } catch {
            return error.code
        }
    }

    @Test func pathSearchesStopAtTheirBounds() {
        let chain = Chain()
        let book = OrderBookSnapshot(chain.ledger.state)
        func send(_ limits: PathSearchLimits) -> PathSearchError.Code? {
            stopCode { () throws(PathSearchError) in
                try book.strictSendPaths(sourceAsset: .native, sourceAmount: 10 * xlm, destinationAssets: [chain.usd], limits: limits)
            }
        }
        func receive(_ limits: PathSearchLimits) -> PathSearchError.Code? {
            stopCode { () throws(PathSearchError) in
                try book.strictReceivePaths(sourceAssets: [.native], destinationAsset: chain.usd, destinationAmount: xlm, limits: limits)
            }
        }
        // The chain XLM → A1 → ... → A5 → USD takes six steps, each crossing one offer.
        #expect(send(PathSearchLimits(maxAssetsVisited: 6, maxOffersCrossed: 6)) == nil)
        #expect(send(PathSearchLimits(maxAssetsVisited: 5)) == .tooManyAssets)
        #expect(send(PathSearchLimits(maxOffersCrossed: 5)) == .tooManyOffers)
        #expect(receive(PathSearchLimits(maxAssetsVisited: 6, maxOffersCrossed: 6)) == nil)
        #expect(receive(PathSearchLimits(maxAssetsVisited: 5)) == .tooManyAssets)
        #expect(receive(PathSearchLimits(maxOffersCrossed: 5)) == .tooManyOffers)
        // The deadline is asked at every step: past it after three steps, the search stops.
        let steps = StepCounter()
        #expect(send(PathSearchLimits(isPastDeadline: { steps.next() > 3 })) == .timedOut)
        #expect(steps.count == 4)
    }

    @Test func snapshotsFollowTheMarketsEachLedgerTouches() {
        var chain = Chain()
        let before = OrderBookSnapshot(chain.ledger.state)
        // A payment through the chain consumes part of every offer on it.
        let closedBefore = chain.ledger.state.header.sequence
        _ = chain.strictSend(chain.alice, .native, xlm, to: chain.bob.accountID, chain.usd, destMin: 1, path: Array(chain.assets.prefix(5)))
        #expect(chain.ledger.state.header.sequence > closedBefore)
        let changes = chain.ledger.lastChanges
        #expect(changes.offerMarkets.count == 6)
        let updated = before.updating(changes.offerMarkets, from: chain.ledger.state)
        let fresh = OrderBookSnapshot(chain.ledger.state)
        #expect(updated.ledgerSequence == fresh.ledgerSequence)
        #expect(Set(updated.markets) == Set(fresh.markets))
        for market in fresh.markets {
            #expect(updated.offers(selling: market.selling, buying: market.buying) == fresh.offers(selling: market.selling, buying: market.buying))
        }
        // The old snapshot still shows the book as it was.
        #expect(before.offers(selling: chain.assets[0], buying: .native) != updated.offers(selling: chain.assets[0], buying: .native))
    }

    @Test func snapshotsFollowMarketsThatOpenAndEmpty() throws {
        var chain = Chain()
        var snapshot = OrderBookSnapshot(chain.ledger.state)
        func paths(_ book: OrderBookSnapshot) throws -> [[Asset]] {
            try book.strictSendPaths(sourceAsset: .native, sourceAmount: xlm, destinationAssets: [chain.usd]).map(\.path)
        }
        #expect(try paths(snapshot) == [Array(chain.assets.prefix(5))])
        // A market opens: the issuer sells USD straight for XLM, a path with no hops.
        let direct = chain.ledger.offer(chain.issuer, selling: chain.usd, buying: .native, amount: 10 * xlm, price: Price(n: 1, d: 1))
        #expect(direct != nil)
        snapshot = snapshot.updating(chain.ledger.lastChanges.offerMarkets, from: chain.ledger.state)
        #expect(try paths(snapshot) == [[], Array(chain.assets.prefix(5))])
        // A market empties: the first hop's only offer is withdrawn, and with it the long path.
        let first = try #require(chain.ledger.state.offers(selling: chain.assets[0], buying: .native).first)
        _ = chain.ledger.submit(chain.maker, .manageSellOffer(ManageSellOfferOperation(selling: chain.assets[0], buying: .native, amount: 0, price: first.price, offerID: first.offerID)))
        snapshot = snapshot.updating(chain.ledger.lastChanges.offerMarkets, from: chain.ledger.state)
        #expect(try paths(snapshot) == [[]])
        #expect(try paths(snapshot) == paths(OrderBookSnapshot(chain.ledger.state)))
    }
}

/// Counts the steps of a search from inside its deadline check.
private final class StepCounter: @unchecked Sendable {
    private(set) var count = 0
    func next() -> Int {
        count += 1
        return count
    }
}
