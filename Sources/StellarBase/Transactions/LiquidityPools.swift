import Crypto

extension LiquidityPoolParameters {
    /// The pool's id: SHA-256 of these parameters' XDR.
    public var poolID: Bytes32 { SHA256.hash(data: xdrBytes).withUnsafeBytes { Bytes32($0) } }
}

/// LiquidityPoolDeposit (CAP-38): at most `maxAmountA` and `maxAmountB` into the pool, at a
/// price (A in B) between `minPrice` and `maxPrice`.
public struct LiquidityPoolDepositOperation: Hashable, Sendable {
    public var poolID: Bytes32
    public var maxAmountA: Int64
    public var maxAmountB: Int64
    public var minPrice: Price
    public var maxPrice: Price

    public init(poolID: Bytes32, maxAmountA: Int64, maxAmountB: Int64, minPrice: Price, maxPrice: Price) {
        self.poolID = poolID
        self.maxAmountA = maxAmountA
        self.maxAmountB = maxAmountB
        self.minPrice = minPrice
        self.maxPrice = maxPrice
    }
}

/// LiquidityPoolWithdraw (CAP-38): `amount` pool shares back for at least the minimums.
public struct LiquidityPoolWithdrawOperation: Hashable, Sendable {
    public var poolID: Bytes32
    public var amount: Int64
    public var minAmountA: Int64
    public var minAmountB: Int64

    public init(poolID: Bytes32, amount: Int64, minAmountA: Int64, minAmountB: Int64) {
        self.poolID = poolID
        self.amount = amount
        self.minAmountA = minAmountA
        self.minAmountB = minAmountB
    }
}

public enum LiquidityPoolDepositResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, malformed = -1, noTrust = -2, notAuthorized = -3, underfunded = -4, lineFull = -5, badPrice = -6, poolFull = -7

    public var name: String {
        switch self {
        case .success: "op_success"
        case .malformed: "op_malformed"
        case .noTrust: "op_no_trust"
        case .notAuthorized: "op_not_authorized"
        case .underfunded: "op_underfunded"
        case .lineFull: "op_line_full"
        case .badPrice: "op_bad_price"
        case .poolFull: "op_pool_full"
        }
    }
}

public enum LiquidityPoolWithdrawResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, malformed = -1, noTrust = -2, underfunded = -3, lineFull = -4, underMinimum = -5

    public var name: String {
        switch self {
        case .success: "op_success"
        case .malformed: "op_malformed"
        case .noTrust: "op_no_trust"
        case .underfunded: "op_underfunded"
        case .lineFull: "op_line_full"
        case .underMinimum: "op_under_minimum"
        }
    }
}
