import StellarBase

/// One side of a trade: what it gave, and who gave it.
public struct TradeSide: Sendable, Equatable {
    public var asset: Asset
    public var amount: Int64
    public var account: AccountID?
    /// The offer's id; for a taker that left no offer, Horizon's synthetic id (its operation's
    /// TOID with bit 62 set).
    public var offerID: Int64?
    /// The pool, for a pool's side of a trade (then no account or offer).
    public var liquidityPool: Bytes32?

    public init(asset: Asset, amount: Int64, account: AccountID?, offerID: Int64?, liquidityPool: Bytes32? = nil) {
        self.asset = asset
        self.amount = amount
        self.account = account
        self.offerID = offerID
        self.liquidityPool = liquidityPool
    }
}

/// A trade as Horizon records it (`history_trades`): the offer owner's side and the taker's,
/// stored with the lower asset as base (the assets' XDR order, so both stores and every
/// reader agree), and turned round for a reader that asks for the other pair.
public struct TradeRecord: Sendable, Equatable {
    public enum Kind: Int32, Sendable {
        case orderbook = 1
        case liquidityPool = 2

        public var name: String { self == .orderbook ? "orderbook" : "liquidity_pool" }
    }

    public var operationID: Int64
    /// The claim's index in its operation's result (0-based, as Horizon's).
    public var order: Int64
    public var closeTime: UInt64
    public var kind: Kind
    public var base: TradeSide
    public var counter: TradeSide
    public var baseIsSeller: Bool
    /// The crossed offer's price, counter per base.
    public var priceN: Int64
    public var priceD: Int64

    public init(
        operationID: Int64, order: Int64, closeTime: UInt64, kind: Kind, base: TradeSide, counter: TradeSide, baseIsSeller: Bool, priceN: Int64, priceD: Int64
    ) {
        self.operationID = operationID
        self.order = order
        self.closeTime = closeTime
        self.kind = kind
        self.base = base
        self.counter = counter
        self.baseIsSeller = baseIsSeller
        self.priceN = priceN
        self.priceD = priceD
    }

    public var cursor: EffectCursor { EffectCursor(operationID: operationID, order: order) }
    /// Horizon's id and paging token, `OPID-ORDER`.
    public var pagingToken: String { cursor.token }

    /// The same trade seen from the other asset: base and counter exchanged, the price inverted.
    public var reversed: TradeRecord {
        var trade = self
        swap(&trade.base, &trade.counter)
        trade.baseIsSeller.toggle()
        swap(&trade.priceN, &trade.priceD)
        return trade
    }

    /// Whether `a` is the base of a pair with `b` as trades are stored.
    public static func isBase(_ a: Asset, of b: Asset) -> Bool { a.xdrBytes.lexicographicallyPrecedes(b.xdrBytes) }

    /// Horizon's synthetic offer id for a taker that left no offer (`EncodeOfferId(opid, TOIDType)`).
    public static func syntheticOfferID(_ operationID: Int64) -> Int64 { operationID | (1 << 62) }

    /// The trades an operation's claims make, in their order, skipping claims of nothing:
    /// the owner (seller) as base before the orientation is made canonical.
    /// - Parameters:
    ///   - prices: each crossed offer's price before the operation (``OperationMeta/offerPrices(_:)``).
    ///   - takerOffer: the offer the operation left, if any.
    static func from(
        _ claims: [ClaimAtom], operationID: Int64, closeTime: UInt64, taker: AccountID, takerOffer: Int64?, prices: [Int64: Price]
    ) -> [TradeRecord] {
        var trades: [TradeRecord] = []
        for (index, claim) in claims.enumerated() {
            let seller: AccountID
            switch claim {
            case .orderBook(let id, _): seller = id
            case .v0(let key, _): seller = AccountID(publicKey: key)
            case .liquidityPool(let pool, let amounts):
                // The pool's side at the price the amounts make (bought per sold, unreduced, as Horizon's).
                let trade = TradeRecord(
                    operationID: operationID, order: Int64(index), closeTime: closeTime, kind: .liquidityPool,
                    base: TradeSide(asset: amounts.assetSold, amount: amounts.amountSold, account: nil, offerID: nil, liquidityPool: pool),
                    counter: TradeSide(asset: amounts.assetBought, amount: amounts.amountBought, account: taker, offerID: takerOffer ?? syntheticOfferID(operationID)),
                    baseIsSeller: true, priceN: amounts.amountBought, priceD: amounts.amountSold)
                trades.append(isBase(trade.base.asset, of: trade.counter.asset) ? trade : trade.reversed)
                continue
            }
            let amounts = claim.amounts
            if amounts.amountSold == 0 && amounts.amountBought == 0 { continue }
            let price = prices[amounts.offerID] ?? Price(n: 0, d: 0)
            let trade = TradeRecord(
                operationID: operationID, order: Int64(index), closeTime: closeTime, kind: .orderbook,
                base: TradeSide(asset: amounts.assetSold, amount: amounts.amountSold, account: seller, offerID: amounts.offerID),
                counter: TradeSide(asset: amounts.assetBought, amount: amounts.amountBought, account: taker, offerID: takerOffer ?? syntheticOfferID(operationID)),
                baseIsSeller: true, priceN: Int64(price.n), priceD: Int64(price.d))
            trades.append(isBase(trade.base.asset, of: trade.counter.asset) ? trade : trade.reversed)
        }
        return trades
    }
}

/// Which trades to list: any combination of an account (either side), an offer (either side),
/// an asset pair (given as base and counter: trades come in that orientation) and a kind.
public struct TradeFilter: Sendable, Equatable {
    public var account: AccountID?
    public var offerID: Int64?
    /// Trades with this pool (either side).
    public var liquidityPool: Bytes32?
    public var pair: (base: Asset, counter: Asset)?
    public var kind: TradeRecord.Kind?
    /// Only trades whose ledgers closed in this range of seconds since 1970.
    public var closed: Range<UInt64>?

    public init(
        account: AccountID? = nil, offerID: Int64? = nil, liquidityPool: Bytes32? = nil, pair: (base: Asset, counter: Asset)? = nil,
        kind: TradeRecord.Kind? = nil, closed: Range<UInt64>? = nil
    ) {
        self.account = account
        self.offerID = offerID
        self.liquidityPool = liquidityPool
        self.pair = pair
        self.kind = kind
        self.closed = closed
    }

    public static func == (a: TradeFilter, b: TradeFilter) -> Bool {
        a.account == b.account && a.offerID == b.offerID && a.liquidityPool == b.liquidityPool && a.kind == b.kind && a.pair?.base == b.pair?.base
            && a.pair?.counter == b.pair?.counter && a.closed == b.closed
    }

    /// The pair as stored (lower asset first) and whether the answer must be turned round.
    public var storedPair: (base: Asset, counter: Asset, reversed: Bool)? {
        guard let pair else { return nil }
        return TradeRecord.isBase(pair.base, of: pair.counter) ? (pair.base, pair.counter, false) : (pair.counter, pair.base, true)
    }
}

extension OperationResult {
    /// The offers an offer operation or path payment crossed, and the offer it left (offers).
    var claims: (claims: [ClaimAtom], offerLeft: Int64?)? {
        func left(_ effect: ManageOfferEffect) -> Int64? {
            switch effect {
            case .created(let offer), .updated(let offer): offer.offerID
            case .deleted: nil
            }
        }
        switch self {
        case .inner(.manageSellOffer(.success(let offers, let effect))): return (offers, left(effect))
        case .inner(.manageBuyOffer(.success(let offers, let effect))): return (offers, left(effect))
        case .inner(.createPassiveSellOffer(.success(let offers, let effect))): return (offers, left(effect))
        case .inner(.pathPaymentStrictReceive(.success(let offers, _))), .inner(.pathPaymentStrictSend(.success(let offers, _))): return (offers, nil)
        default: return nil
        }
    }
}

/// A price as a fraction, counter per base (`price`, `high_r`...).
public struct TradePrice: Sendable, Equatable {
    public var n: Int64
    public var d: Int64

    public init(n: Int64, d: Int64) {
        self.n = n
        self.d = d
    }

    /// Whether this price is below `other` (both fractions of 32-bit terms, so the cross products fit).
    func isBelow(_ other: TradePrice) -> Bool {
        Int128(n) * Int128(other.d) < Int128(other.n) * Int128(d)
    }
}

/// One bucket of `/trade_aggregations`: the trades of a pair whose ledgers closed in
/// [timestamp, timestamp + resolution).
public struct TradeBucket: Sendable, Equatable {
    /// Milliseconds since 1970.
    public var timestamp: Int64
    public var count: Int64
    public var baseVolume: Int128
    public var counterVolume: Int128
    public var high: TradePrice
    public var low: TradePrice
    public var open: TradePrice
    public var close: TradePrice
}

/// Horizon's trade aggregations, pure: buckets by resolution and offset, volumes summed,
/// open/close the first and last trade's price, high/low the extremes.
public enum TradeAggregation {
    /// 1 minute, 5 minutes, 15 minutes, 1 hour, 1 day, 1 week, in milliseconds.
    public static let resolutions: [Int64] = [60_000, 300_000, 900_000, 3_600_000, 86_400_000, 604_800_000]
    static let hour: Int64 = 3_600_000

    /// Why `offset` does not go with `resolution` (Horizon's rule), or nil.
    public static func offsetProblem(_ offset: Int64, resolution: Int64) -> String? {
        guard offset >= 0, offset % hour == 0, offset < 24 * hour, offset <= resolution else {
            return "offset must be a multiple of an hour, less than or equal to the resolution, and less than 24 hours"
        }
        return nil
    }

    /// The start of the bucket holding `milliseconds`.
    public static func bucket(_ milliseconds: Int64, resolution: Int64, offset: Int64) -> Int64 {
        (milliseconds - offset) / resolution * resolution + offset
    }

    /// `start_time` moved up to a bucket's start (or to the offset), as Horizon adjusts it.
    public static func adjustedStart(_ start: Int64, resolution: Int64, offset: Int64) -> Int64 {
        guard start >= offset else { return offset }
        let since = start - offset
        return (since + resolution - 1) / resolution * resolution + offset
    }

    /// `end_time` moved down to a bucket's start; nil when it is before the offset.
    public static func adjustedEnd(_ end: Int64, resolution: Int64, offset: Int64) -> Int64? {
        guard end >= offset else { return nil }
        return (end - offset) / resolution * resolution + offset
    }

    /// Adds a trade (of the pair, in the orientation asked) to buckets kept in the order the
    /// trades come (oldest first, or newest first when `descending`); answers false, adding
    /// nothing, when it would open a bucket past `limit`.
    public static func add(_ trade: TradeRecord, to buckets: inout [TradeBucket], resolution: Int64, offset: Int64, limit: Int, descending: Bool) -> Bool {
        let price = TradePrice(n: trade.priceN, d: trade.priceD)
        let timestamp = bucket(Int64(trade.closeTime) * 1000, resolution: resolution, offset: offset)
        if let last = buckets.indices.last, buckets[last].timestamp == timestamp {
            var current = buckets[last]
            current.count += 1
            current.baseVolume += Int128(trade.base.amount)
            current.counterVolume += Int128(trade.counter.amount)
            if current.high.isBelow(price) { current.high = price }
            if price.isBelow(current.low) { current.low = price }
            // The newest trade closes a bucket, the oldest opens it.
            if descending { current.open = price } else { current.close = price }
            buckets[last] = current
            return true
        }
        guard buckets.count < limit else { return false }
        buckets.append(TradeBucket(
            timestamp: timestamp, count: 1, baseVolume: Int128(trade.base.amount), counterVolume: Int128(trade.counter.amount),
            high: price, low: price, open: price, close: price))
        return true
    }
}
