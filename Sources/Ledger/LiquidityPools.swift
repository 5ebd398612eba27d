import StellarBase

/// A constant-product liquidity pool (CAP-38): two assets' reserves and the shares issued
/// against them.
public struct LiquidityPoolEntry: Hashable, Sendable {
    public var id: Bytes32
    public var parameters: LiquidityPoolParameters
    public var reserveA: Int64
    public var reserveB: Int64
    public var totalPoolShares: Int64
    /// How many trustlines hold its shares; the pool goes with the last of them.
    public var trustLineCount: Int64
    public var lastModifiedLedger: UInt32

    public init(parameters: LiquidityPoolParameters, reserveA: Int64 = 0, reserveB: Int64 = 0, totalPoolShares: Int64 = 0, trustLineCount: Int64, lastModifiedLedger: UInt32) {
        self.id = parameters.poolID
        self.parameters = parameters
        self.reserveA = reserveA
        self.reserveB = reserveB
        self.totalPoolShares = totalPoolShares
        self.trustLineCount = trustLineCount
        self.lastModifiedLedger = lastModifiedLedger
    }

    /// The reserve of `asset`, one of the pool's two.
    public func reserve(_ asset: Asset) -> Int64 { asset == parameters.assetA ? reserveA : reserveB }
}

/// Identifies a trustline to a pool's shares: the holder and the pool.
public struct PoolShareKey: Hashable, Sendable {
    public var accountID: AccountID
    public var poolID: Bytes32

    public init(_ accountID: AccountID, _ poolID: Bytes32) {
        self.accountID = accountID
        self.poolID = poolID
    }
}

/// A trustline to a pool's shares: two reserves (one per asset), no liabilities, no flags.
public struct PoolShareLine: Hashable, Sendable {
    public var accountID: AccountID
    public var poolID: Bytes32
    public var balance: Int64
    public var limit: Int64
    public var sponsor: AccountID?
    public var lastModifiedLedger: UInt32

    public init(accountID: AccountID, poolID: Bytes32, balance: Int64, limit: Int64, sponsor: AccountID? = nil, lastModifiedLedger: UInt32) {
        self.accountID = accountID
        self.poolID = poolID
        self.balance = balance
        self.limit = limit
        self.sponsor = sponsor
        self.lastModifiedLedger = lastModifiedLedger
    }

    public var key: PoolShareKey { PoolShareKey(accountID, poolID) }
}

/// The pool arithmetic of stellar-core (`exchangeWithPool`, `bigSquareRoot`, `hugeDivide`,
/// `getPoolWithdrawalAmount`), exact in 128 bits.
public enum PoolMath {
    /// ⌊√(a × b)⌋ for non-negative `a` and `b`.
    public static func squareRoot(_ a: Int64, _ b: Int64) -> Int64 {
        let product = UInt128(UInt64(a)) * UInt128(UInt64(b))
        guard product > 0 else { return 0 }
        // Newton's method from above: x shrinks to ⌊√product⌋.
        var x = UInt128(1) << ((128 - product.leadingZeroBitCount) / 2 + 1)
        while true {
            let y = (x + product / x) / 2
            if y >= x { break }
            x = y
        }
        return Int64(x)
    }

    /// `a × B / C` rounded as asked (stellar-core's `hugeDivide`); nil when it does not fit in an `Int64`.
    static func hugeDivide(_ a: Int32, _ b: UInt128, _ c: UInt128, _ rounding: Rounding) -> Int64? {
        precondition(a >= 0 && c != 0)
        let (q, r) = b.quotientAndRemainder(dividingBy: c)
        guard q <= UInt128(Int64.max) else { return nil }
        let whole = UInt128(UInt32(a)) * q
        // a × r < a × C, which fits: C is at most Int32.max × Int64.max.
        let (partQ, partR) = (UInt128(UInt32(a)) * r).quotientAndRemainder(dividingBy: c)
        let total = whole + partQ + (rounding == .up && partR != 0 ? 1 : 0)
        guard total <= UInt128(Int64.max) else { return nil }
        return Int64(total)
    }

    /// What a pool of reserves `toPool` and `fromPool` gives for `send` (strict send): nil when
    /// nothing or too much would come out.
    public static func receive(sending send: Int64, reserveIn: Int64, reserveOut: Int64, fee: Int32) -> Int64? {
        precondition(reserveIn > 0 && reserveOut > 0 && send >= 0)
        guard send <= Int64.max - reserveIn else { return nil }
        let maxBps: Int32 = 10_000
        let denominator = UInt128(UInt64(maxBps)) * UInt128(UInt64(reserveIn)) + UInt128(UInt64(maxBps - fee)) * UInt128(UInt64(send))
        guard let out = hugeDivide(maxBps - fee, UInt128(UInt64(reserveOut)) * UInt128(UInt64(send)), denominator, .down) else { return nil }
        precondition(out <= reserveOut, "received too much from pool")
        return out == 0 ? nil : out
    }

    /// What a pool must be sent to give `receive` (strict receive): nil when it cannot.
    public static func send(receiving receive: Int64, reserveIn: Int64, reserveOut: Int64, fee: Int32) -> Int64? {
        precondition(reserveIn > 0 && reserveOut > 0 && receive >= 0)
        guard receive < reserveOut else { return nil }
        let maxBps: Int32 = 10_000
        let denominator = UInt128(UInt64(reserveOut - receive)) * UInt128(UInt64(maxBps - fee))
        guard let input = hugeDivide(maxBps, UInt128(UInt64(reserveIn)) * UInt128(UInt64(receive)), denominator, .up) else { return nil }
        return input <= Int64.max - reserveIn ? input : nil
    }

    /// The share of a reserve that `shares` of `total` pool shares withdraw, rounded down.
    public static func withdrawal(shares: Int64, total: Int64, reserve: Int64) -> Int64 {
        precondition(shares <= total, "more pool shares than the pool issued")
        return bigDivideOrTrap(shares, reserve, total, .down)
    }
}

extension LiquidityPoolParameters {
    /// stellar-core's `isAssetValid` for pool shares: two valid assets in order, the fee of protocol 18.
    var isValid: Bool {
        assetA.isValid && assetB.isValid && assetA.xdrBytes.lexicographicallyPrecedes(assetB.xdrBytes) && fee == Self.fee
    }
}
