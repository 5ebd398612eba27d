import StellarBase

/// A way to pay: sell `sourceAmount` of `sourceAsset` through `path` to deliver
/// `destinationAmount` of `destinationAsset`.
public struct PaymentPath: Hashable, Sendable {
    public var sourceAsset: Asset
    public var sourceAmount: Int64
    public var destinationAsset: Asset
    public var destinationAmount: Int64
    /// The intermediate assets, at most five.
    public var path: [Asset]
}

/// How much work one path search may do before it gives up: a query over a large, densely
/// connected book would otherwise explore every simple path of up to six hops.
public struct PathSearchLimits: Sendable {
    /// The most search steps (an asset reached along some path); each is one hop evaluated.
    public var maxAssetsVisited: Int
    /// The most offers crossed in all, over every hop evaluated.
    public var maxOffersCrossed: Int
    /// Asked at every step; true ends the search (the caller's clock and time budget).
    public var isPastDeadline: @Sendable () -> Bool

    public init(maxAssetsVisited: Int = 2_000, maxOffersCrossed: Int = 100_000, isPastDeadline: @escaping @Sendable () -> Bool = { false }) {
        self.maxAssetsVisited = maxAssetsVisited
        self.maxOffersCrossed = maxOffersCrossed
        self.isPastDeadline = isPastDeadline
    }
}

/// A path search that went over its ``PathSearchLimits``.
public struct PathSearchError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case tooManyAssets = "path_search_too_many_assets"
        case tooManyOffers = "path_search_too_many_offers"
        case timedOut = "path_search_timed_out"
    }

    public let code: Code
    public let message: String
    public var description: String { message }
}

/// The work a search has done, checked against its limits at every step.
private struct SearchBudget {
    let limits: PathSearchLimits
    var assetsVisited = 0
    var offersCrossed = 0

    mutating func visit() throws(PathSearchError) {
        assetsVisited += 1
        if assetsVisited > limits.maxAssetsVisited {
            throw PathSearchError(code: .tooManyAssets, message: "the path search reached more than \(limits.maxAssetsVisited) assets; ask for fewer source or destination assets")
        }
        if limits.isPastDeadline() {
            throw PathSearchError(code: .timedOut, message: "the path search took longer than its time limit; ask for fewer source or destination assets")
        }
    }

    mutating func cross(_ offers: Int) throws(PathSearchError) {
        offersCrossed += offers
        if offersCrossed > limits.maxOffersCrossed {
            throw PathSearchError(code: .tooManyOffers, message: "the path search crossed more than \(limits.maxOffersCrossed) offers; ask for a smaller amount or fewer assets")
        }
    }
}

/// Finds payment paths through a snapshot of the committed order book, computing each hop with
/// the same exchange arithmetic the path payment operations use.
extension OrderBookSnapshot {
    /// Paths that sell exactly `sourceAmount` of `sourceAsset` for any of `destinationAssets`,
    /// best (most received) first.
    /// - Throws: ``PathSearchError`` when the search goes over `limits`.
    public func strictSendPaths(sourceAsset: Asset, sourceAmount: Int64, destinationAssets: [Asset], limit: Int = 20, limits: PathSearchLimits = PathSearchLimits()) throws(PathSearchError) -> [PaymentPath] {
        guard sourceAmount > 0 else { return [] }
        let targets = Set(destinationAssets)
        var found: [PaymentPath] = []
        if targets.contains(sourceAsset) {
            found.append(PaymentPath(sourceAsset: sourceAsset, sourceAmount: sourceAmount, destinationAsset: sourceAsset, destinationAmount: sourceAmount, path: []))
        }
        let sellers = graph
        var budget = SearchBudget(limits: limits)
        func search(_ asset: Asset, _ amount: Int64, _ path: [Asset], _ visited: Set<Asset>) throws(PathSearchError) {
            // `path` holds the assets after the source asset, so far; the last is `asset`.
            for next in sellers.buying[asset] ?? [] where !visited.contains(next) {
                try budget.visit()
                guard let received = try sellAlongBook(sheep: asset, amount: amount, wheat: next, budget: &budget) else { continue }
                let hops = path + [next]
                if targets.contains(next) {
                    found.append(PaymentPath(sourceAsset: sourceAsset, sourceAmount: sourceAmount, destinationAsset: next, destinationAmount: received, path: Array(hops.dropLast())))
                }
                if hops.count <= Operation.maxPathLength { try search(next, received, hops, visited.union([next])) }
            }
        }
        try search(sourceAsset, sourceAmount, [], [sourceAsset])
        return Array(found.sorted { ($0.destinationAmount, -$0.path.count) > ($1.destinationAmount, -$1.path.count) }.prefix(limit))
    }

    /// Paths that deliver exactly `destinationAmount` of `destinationAsset` from any of
    /// `sourceAssets`, best (least sent) first.
    /// - Throws: ``PathSearchError`` when the search goes over `limits`.
    public func strictReceivePaths(sourceAssets: [Asset], destinationAsset: Asset, destinationAmount: Int64, limit: Int = 20, limits: PathSearchLimits = PathSearchLimits()) throws(PathSearchError) -> [PaymentPath] {
        guard destinationAmount > 0 else { return [] }
        let sources = Set(sourceAssets)
        var found: [PaymentPath] = []
        if sources.contains(destinationAsset) {
            found.append(PaymentPath(sourceAsset: destinationAsset, sourceAmount: destinationAmount, destinationAsset: destinationAsset, destinationAmount: destinationAmount, path: []))
        }
        let markets = graph
        var budget = SearchBudget(limits: limits)
        func search(_ asset: Asset, _ amount: Int64, _ reversedPath: [Asset], _ visited: Set<Asset>) throws(PathSearchError) {
            // Walks backwards: which asset can buy `amount` of `asset`?
            for previous in markets.sellingFor[asset] ?? [] where !visited.contains(previous) {
                try budget.visit()
                guard let needed = try buyAlongBook(wheat: asset, amount: amount, sheep: previous, budget: &budget) else { continue }
                let hops = reversedPath + [previous]
                if sources.contains(previous) {
                    found.append(PaymentPath(sourceAsset: previous, sourceAmount: needed, destinationAsset: destinationAsset, destinationAmount: destinationAmount, path: Array(hops.dropLast().reversed())))
                }
                if hops.count <= Operation.maxPathLength { try search(previous, needed, hops, visited.union([previous])) }
            }
        }
        try search(destinationAsset, destinationAmount, [], [destinationAsset])
        return Array(found.sorted { ($0.sourceAmount, $0.path.count) < ($1.sourceAmount, $1.path.count) }.prefix(limit))
    }

    /// What selling exactly `amount` of `sheep` for `wheat` yields, as a strict send path payment
    /// would: through the pool unless the book takes it all at a strictly better rate
    /// (stellar-core's `convertWithOffersAndPools`); nil when neither can.
    private func sellAlongBook(sheep: Asset, amount: Int64, wheat: Asset, budget: inout SearchBudget) throws(PathSearchError) -> Int64? {
        let book = try sellAlongOffers(sheep: sheep, amount: amount, wheat: wheat, budget: &budget)
        guard let pool = pool(sheep, wheat),
              let fromPool = PoolMath.receive(sending: amount, reserveIn: pool.reserve(sheep), reserveOut: pool.reserve(wheat), fee: pool.parameters.fee) else { return book }
        if let book, book > fromPool { return book }
        return fromPool
    }

    /// What buying exactly `amount` of `wheat` with `sheep` costs, as a strict receive path
    /// payment would: through the pool unless the book supplies it all strictly cheaper; nil
    /// when neither can.
    private func buyAlongBook(wheat: Asset, amount: Int64, sheep: Asset, budget: inout SearchBudget) throws(PathSearchError) -> Int64? {
        let book = try buyAlongOffers(wheat: wheat, amount: amount, sheep: sheep, budget: &budget)
        guard let pool = pool(sheep, wheat),
              let toPool = PoolMath.send(receiving: amount, reserveIn: pool.reserve(sheep), reserveOut: pool.reserve(wheat), fee: pool.parameters.fee) else { return book }
        if let book, book < toPool { return book }
        return toPool
    }

    /// What selling exactly `amount` of `sheep` for `wheat` against the book yields; nil when
    /// the book cannot take it all.
    private func sellAlongOffers(sheep: Asset, amount: Int64, wheat: Asset, budget: inout SearchBudget) throws(PathSearchError) -> Int64? {
        var remaining = amount
        var received: Int64 = 0
        for (index, offer) in offers(selling: wheat, buying: sheep).enumerated() {
            guard index < maxOffersToCross else { return nil }
            try budget.cross(1)
            let result = Exchange.exchangeV10(
                price: offer.price, maxWheatSend: offer.amount, maxWheatReceive: .max, maxSheepSend: remaining,
                maxSheepReceive: .max, rounding: .pathPaymentStrictSend)
            remaining -= result.sheepSend
            let (sum, overflow) = received.addingReportingOverflow(result.wheatReceived)
            guard !overflow else { return nil }
            received = sum
            if result.wheatStays || remaining == 0 { break }
        }
        return remaining == 0 ? received : nil
    }

    /// What buying exactly `amount` of `wheat` with `sheep` against the book costs; nil when the
    /// book cannot supply it all.
    private func buyAlongOffers(wheat: Asset, amount: Int64, sheep: Asset, budget: inout SearchBudget) throws(PathSearchError) -> Int64? {
        var remaining = amount
        var spent: Int64 = 0
        for (index, offer) in offers(selling: wheat, buying: sheep).enumerated() {
            guard index < maxOffersToCross else { return nil }
            try budget.cross(1)
            let result = Exchange.exchangeV10(
                price: offer.price, maxWheatSend: offer.amount, maxWheatReceive: remaining, maxSheepSend: .max,
                maxSheepReceive: .max, rounding: .pathPaymentStrictReceive)
            remaining -= result.wheatReceived
            let (sum, overflow) = spent.addingReportingOverflow(result.sheepSend)
            guard !overflow else { return nil }
            spent = sum
            if result.wheatStays || remaining == 0 { break }
        }
        return remaining == 0 ? spent : nil
    }
}

extension LedgerState {
    /// ``OrderBookSnapshot/strictSendPaths(sourceAsset:sourceAmount:destinationAssets:limit:limits:)``
    /// over this state's offers.
    /// - Throws: ``PathSearchError`` when the search goes over `limits`.
    public func strictSendPaths(sourceAsset: Asset, sourceAmount: Int64, destinationAssets: [Asset], limit: Int = 20, limits: PathSearchLimits = PathSearchLimits()) throws(PathSearchError) -> [PaymentPath] {
        try OrderBookSnapshot(self).strictSendPaths(sourceAsset: sourceAsset, sourceAmount: sourceAmount, destinationAssets: destinationAssets, limit: limit, limits: limits)
    }

    /// ``OrderBookSnapshot/strictReceivePaths(sourceAssets:destinationAsset:destinationAmount:limit:limits:)``
    /// over this state's offers.
    /// - Throws: ``PathSearchError`` when the search goes over `limits`.
    public func strictReceivePaths(sourceAssets: [Asset], destinationAsset: Asset, destinationAmount: Int64, limit: Int = 20, limits: PathSearchLimits = PathSearchLimits()) throws(PathSearchError) -> [PaymentPath] {
        try OrderBookSnapshot(self).strictReceivePaths(sourceAssets: sourceAssets, destinationAsset: destinationAsset, destinationAmount: destinationAmount, limit: limit, limits: limits)
    }
}
