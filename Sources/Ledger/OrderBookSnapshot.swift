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

    /// Every market of `state`.
    public init(_ state: LedgerState) {
        var books: [AssetPair: [OfferEntry]] = [:]
        for pair in state.markets {
            books[pair] = state.offers(selling: pair.selling, buying: pair.buying)
        }
        self.init(ledgerSequence: state.header.sequence, books: books)
    }

    private init(ledgerSequence: UInt32, books: [AssetPair: [OfferEntry]]) {
        self.ledgerSequence = ledgerSequence
        self.books = books
    }

    /// This snapshot with `markets` read again from `state` (the state as of the ledger just
    /// committed).
    public func updating(_ markets: Set<AssetPair>, from state: LedgerState) -> OrderBookSnapshot {
        var books = self.books
        for pair in markets {
            let offers = state.offers(selling: pair.selling, buying: pair.buying)
            books[pair] = offers.isEmpty ? nil : offers
        }
        return OrderBookSnapshot(ledgerSequence: state.header.sequence, books: books)
    }

    /// The offers selling `selling` for `buying`, best first.
    public func offers(selling: Asset, buying: Asset) -> [OfferEntry] {
        books[AssetPair(selling: selling, buying: buying)] ?? []
    }

    /// Every market with at least one offer.
    public var markets: [AssetPair] { Array(books.keys) }
}
