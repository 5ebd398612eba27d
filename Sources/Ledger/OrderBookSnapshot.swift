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
    /// Which markets exist, as the path search walks them; built again only when a market
    /// opens or empties, not on every commit.
    let graph: MarketGraph

    /// Every market of `state`.
    public init(_ state: LedgerState) {
        var books: [AssetPair: [OfferEntry]] = [:]
        for pair in state.markets {
            books[pair] = state.offers(selling: pair.selling, buying: pair.buying)
        }
        self.init(ledgerSequence: state.header.sequence, books: books, graph: MarketGraph(books.keys))
    }

    private init(ledgerSequence: UInt32, books: [AssetPair: [OfferEntry]], graph: MarketGraph) {
        self.ledgerSequence = ledgerSequence
        self.books = books
        self.graph = graph
    }

    /// This snapshot with `markets` read again from `state` (the state as of the ledger just
    /// committed).
    public func updating(_ markets: Set<AssetPair>, from state: LedgerState) -> OrderBookSnapshot {
        var books = self.books
        var marketsChanged = false
        for pair in markets {
            let offers = state.offers(selling: pair.selling, buying: pair.buying)
            if offers.isEmpty != (books[pair] == nil) { marketsChanged = true }
            books[pair] = offers.isEmpty ? nil : offers
        }
        let graph = marketsChanged ? MarketGraph(books.keys) : self.graph
        return OrderBookSnapshot(ledgerSequence: state.header.sequence, books: books, graph: graph)
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

    init(_ markets: some Sequence<AssetPair>) {
        var buying: [Asset: [Asset]] = [:], sellingFor: [Asset: [Asset]] = [:]
        let keyed = markets.map { (key: $0.selling.description + $0.buying.description, pair: $0) }
        for (_, pair) in keyed.sorted(by: { $0.key < $1.key }) {
            // An offer selling X for Y lets a payer turn Y into X.
            buying[pair.buying, default: []].append(pair.selling)
            sellingFor[pair.selling, default: []].append(pair.buying)
        }
        self.buying = buying
        self.sellingFor = sellingFor
    }
}
