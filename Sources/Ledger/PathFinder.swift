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

/// Finds payment paths through the live order book, computing each hop with the same
/// exchange arithmetic the path payment operations use.
extension LedgerState {
    /// Paths that sell exactly `sourceAmount` of `sourceAsset` for any of `destinationAssets`,
    /// best (most received) first.
    public func strictSendPaths(sourceAsset: Asset, sourceAmount: Int64, destinationAssets: [Asset], limit: Int = 20) -> [PaymentPath] {
        guard sourceAmount > 0 else { return [] }
        let targets = Set(destinationAssets)
        var found: [PaymentPath] = []
        if targets.contains(sourceAsset) {
            found.append(PaymentPath(sourceAsset: sourceAsset, sourceAmount: sourceAmount, destinationAsset: sourceAsset, destinationAmount: sourceAmount, path: []))
        }
        let sellers = marketsBySelling()
        func search(_ asset: Asset, _ amount: Int64, _ path: [Asset], _ visited: Set<Asset>) {
            // `path` holds the assets after the source asset, so far; the last is `asset`.
            for next in sellers.buying[asset] ?? [] where !visited.contains(next) {
                guard let received = sellAlongBook(sheep: asset, amount: amount, wheat: next) else { continue }
                let hops = path + [next]
                if targets.contains(next) {
                    found.append(PaymentPath(sourceAsset: sourceAsset, sourceAmount: sourceAmount, destinationAsset: next, destinationAmount: received, path: Array(hops.dropLast())))
                }
                if hops.count <= Operation.maxPathLength { search(next, received, hops, visited.union([next])) }
            }
        }
        search(sourceAsset, sourceAmount, [], [sourceAsset])
        return Array(found.sorted { ($0.destinationAmount, -$0.path.count) > ($1.destinationAmount, -$1.path.count) }.prefix(limit))
    }

    /// Paths that deliver exactly `destinationAmount` of `destinationAsset` from any of
    /// `sourceAssets`, best (least sent) first.
    public func strictReceivePaths(sourceAssets: [Asset], destinationAsset: Asset, destinationAmount: Int64, limit: Int = 20) -> [PaymentPath] {
        guard destinationAmount > 0 else { return [] }
        let sources = Set(sourceAssets)
        var found: [PaymentPath] = []
        if sources.contains(destinationAsset) {
            found.append(PaymentPath(sourceAsset: destinationAsset, sourceAmount: destinationAmount, destinationAsset: destinationAsset, destinationAmount: destinationAmount, path: []))
        }
        let markets = marketsBySelling()
        func search(_ asset: Asset, _ amount: Int64, _ reversedPath: [Asset], _ visited: Set<Asset>) {
            // Walks backwards: which asset can buy `amount` of `asset`?
            for previous in markets.sellingFor[asset] ?? [] where !visited.contains(previous) {
                guard let needed = buyAlongBook(wheat: asset, amount: amount, sheep: previous) else { continue }
                let hops = reversedPath + [previous]
                if sources.contains(previous) {
                    found.append(PaymentPath(sourceAsset: previous, sourceAmount: needed, destinationAsset: destinationAsset, destinationAmount: destinationAmount, path: Array(hops.dropLast().reversed())))
                }
                if hops.count <= Operation.maxPathLength { search(previous, needed, hops, visited.union([previous])) }
            }
        }
        search(destinationAsset, destinationAmount, [], [destinationAsset])
        return Array(found.sorted { ($0.sourceAmount, $0.path.count) < ($1.sourceAmount, $1.path.count) }.prefix(limit))
    }

    /// For each asset, the assets that offers sell for it (`buying`) and the assets that offers
    /// accept in exchange for it (`sellingFor`).
    private func marketsBySelling() -> (buying: [Asset: [Asset]], sellingFor: [Asset: [Asset]]) {
        var buying: [Asset: [Asset]] = [:], sellingFor: [Asset: [Asset]] = [:]
        for pair in markets.sorted(by: { $0.selling.description + $0.buying.description < $1.selling.description + $1.buying.description }) {
            // An offer selling X for Y lets a payer turn Y into X.
            buying[pair.buying, default: []].append(pair.selling)
            sellingFor[pair.selling, default: []].append(pair.buying)
        }
        return (buying, sellingFor)
    }

    /// What selling exactly `amount` of `sheep` for `wheat` against the book yields, as a strict
    /// send path payment would; nil when the book cannot take it all.
    func sellAlongBook(sheep: Asset, amount: Int64, wheat: Asset) -> Int64? {
        var remaining = amount
        var received: Int64 = 0
        for (index, offer) in offers(selling: wheat, buying: sheep).enumerated() {
            guard index < maxOffersToCross else { return nil }
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

    /// What buying exactly `amount` of `wheat` with `sheep` against the book costs, as a strict
    /// receive path payment would; nil when the book cannot supply it all.
    func buyAlongBook(wheat: Asset, amount: Int64, sheep: Asset) -> Int64? {
        var remaining = amount
        var spent: Int64 = 0
        for (index, offer) in offers(selling: wheat, buying: sheep).enumerated() {
            guard index < maxOffersToCross else { return nil }
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
