import StellarBase

/// The open offers of every market, best first, as of one committed ledger: what order books and
/// path searches read, so they never run on the ledger writer and never show what is not yet
/// durable.
///
/// A snapshot is immutable. The writer publishes a new one after each commit, rebuilding only
/// the markets that ledger touched (``LedgerChanges/offerMarkets``); every other market's offer
/// list is shared with the previous snapshot, copy-on-write.
public struct OrderBookSnapshot: Sendable {
    /// The ledger whose committed offers this holds.
    public let ledgerSequence: UInt32
    private let books: [AssetPair: [OfferEntry]]
    /// The liquidity pools with reserves, by id (path payments use them as stellar-core does).
    let pools: [Bytes32: LiquidityPoolEntry]
    /// Which markets exist (books and pools), as the path search walks them; built again only
    /// when a market opens or empties, not on every commit.
    let graph: MarketGraph

    /// Every market of `state`.
    public init(_ state: LedgerState) {
        var books: [AssetPair: [OfferEntry]] = [:]
        for pair in state.markets {
            books[pair] = state.offers(selling: pair.selling, buying: pair.buying)
        }
        let pools = Self.tradingPools(state.liquidityPools.values)
        self.init(ledgerSequence: state.header.sequence, books: books, pools: pools, graph: MarketGraph(books.keys, pools: pools.values))
    }

    private init(ledgerSequence: UInt32, books: [AssetPair: [OfferEntry]], pools: [Bytes32: LiquidityPoolEntry], graph: MarketGraph) {
        self.ledgerSequence = ledgerSequence
        self.books = books
        self.pools = pools
        self.graph = graph
    }

    private static func tradingPools(_ pools: some Sequence<LiquidityPoolEntry>) -> [Bytes32: LiquidityPoolEntry] {
        Dictionary(uniqueKeysWithValues: pools.filter { $0.reserveA > 0 && $0.reserveB > 0 }.map { ($0.id, $0) })
    }

    /// This snapshot with `markets` read again from `state` (the state as of the ledger just
    /// committed), and its pools when `poolsChanged`.
    public func updating(_ markets: Set<AssetPair>, poolsChanged: Bool = false, from state: LedgerState) -> OrderBookSnapshot {
        var books = self.books
        var marketsChanged = false
        for pair in markets {
            let offers = state.offers(selling: pair.selling, buying: pair.buying)
            if offers.isEmpty != (books[pair] == nil) { marketsChanged = true }
            books[pair] = offers.isEmpty ? nil : offers
        }
        var pools = self.pools
        if poolsChanged {
            pools = Self.tradingPools(state.liquidityPools.values)
            if Set(pools.keys) != Set(self.pools.keys) { marketsChanged = true }
        }
        let graph = marketsChanged ? MarketGraph(books.keys, pools: pools.values) : self.graph
        return OrderBookSnapshot(ledgerSequence: state.header.sequence, books: books, pools: pools, graph: graph)
    }

    /// The pool of `x` and `y` with reserves, if any.
    func pool(_ x: Asset, _ y: Asset) -> LiquidityPoolEntry? {
        pools.isEmpty ? nil : pools[LiquidityPoolParameters(x, y).poolID]
    }

    /// The offers selling `selling` for `buying`, best first.
    public func offers(selling: Asset, buying: Asset) -> [OfferEntry] {
        books[AssetPair(selling: selling, buying: buying)] ?? []
    }

    /// Every market with at least one offer.
    public var markets: [AssetPair] { Array(books.keys) }
}

/// For each asset, the assets that offers sell for it (`buying`) and the assets that offers
/// accept in exchange for it (`sellingFor`), each list in one fixed order (by the assets'
/// canonical strings) so that equal paths always come out in the same order.
struct MarketGraph: Sendable {
    let buying: [Asset: [Asset]]
    let sellingFor: [Asset: [Asset]]

    init(_ markets: some Sequence<AssetPair>, pools: some Sequence<LiquidityPoolEntry> = [LiquidityPoolEntry]()) {
        var buying: [Asset: [Asset]] = [:], sellingFor: [Asset: [Asset]] = [:]
        // A pool trades both ways: a market each way, unless a book already makes it.
        var all = Set(markets)
        for pool in pools {
            all.insert(AssetPair(selling: pool.parameters.assetA, buying: pool.parameters.assetB))
            all.insert(AssetPair(selling: pool.parameters.assetB, buying: pool.parameters.assetA))
        }
        let keyed = all.map { (key: $0.selling.description + $0.buying.description, pair: $0) }
        for (_, pair) in keyed.sorted(by: { $0.key < $1.key }) {
            // An offer selling X for Y lets a payer turn Y into X.
            buying[pair.buying, default: []].append(pair.selling)
            sellingFor[pair.selling, default: []].append(pair.buying)
        }
        self.buying = buying
        self.sellingFor = sellingFor
    }
}
