import StellarBase

/// A market: offers selling one asset for another.
public struct AssetPair: Hashable, Sendable {
    public var selling: Asset
    public var buying: Asset

    public init(selling: Asset, buying: Asset) {
        self.selling = selling
        self.buying = buying
    }
}

/// The offers of each market, best first: lowest price (of the selling asset in the buying
/// asset), then oldest (lowest offer id), as stellar-core loads them.
struct OrderBook: Sendable {
    struct Ref: Sendable, Equatable {
        var price: Price
        var offerID: Int64

        /// Whether `self` is crossed before `other`.
        func precedes(_ other: Ref) -> Bool {
            let lhs = Int64(price.n) * Int64(other.price.d)
            let rhs = Int64(other.price.n) * Int64(price.d)
            return lhs != rhs ? lhs < rhs : offerID < other.offerID
        }
    }

    private(set) var books: [AssetPair: [Ref]] = [:]

    mutating func insert(_ offer: OfferEntry) {
        let pair = AssetPair(selling: offer.selling, buying: offer.buying)
        let ref = Ref(price: offer.price, offerID: offer.offerID)
        var refs = books[pair, default: []]
        books[pair] = nil
        refs.insert(ref, at: Self.insertionIndex(of: ref, in: refs))
        books[pair] = refs
    }

    mutating func remove(_ offer: OfferEntry) {
        let pair = AssetPair(selling: offer.selling, buying: offer.buying)
        guard var refs = books[pair] else { preconditionFailure("removing an offer from a market that has none") }
        books[pair] = nil
        let ref = Ref(price: offer.price, offerID: offer.offerID)
        let index = Self.insertionIndex(of: ref, in: refs)
        precondition(index < refs.count && refs[index] == ref, "order book index out of step with the offers")
        refs.remove(at: index)
        if !refs.isEmpty { books[pair] = refs }
    }

    /// The first index whose ref does not precede `ref`.
    private static func insertionIndex(of ref: Ref, in refs: [Ref]) -> Int {
        var low = 0, high = refs.count
        while low < high {
            let mid = (low + high) / 2
            if refs[mid].precedes(ref) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Offer ids of a market, best first.
    func offerIDs(_ pair: AssetPair) -> [Int64] {
        books[pair]?.map(\.offerID) ?? []
    }

    func best(_ pair: AssetPair) -> Int64? {
        books[pair]?.first?.offerID
    }

    /// Every market that sells `asset`.
    var markets: Dictionary<AssetPair, [Ref]>.Keys { books.keys }
}
