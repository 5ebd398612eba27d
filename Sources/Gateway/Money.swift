/// A currency the gateway takes, with its ISO 4217 code (lower case, as Stripe writes it), the
/// digits of its minor unit, and the test anchor asset it settles in on the ledger.
public struct GatewayCurrency: Sendable, Hashable {
    public let code: String
    /// Digits after the decimal point: 2 for the euro and the dollar.
    public let exponent: Int
    /// The code of the ledger asset the test anchor issues for it.
    public let assetCode: String

    /// The currencies the test anchor issues: EUR (asset EUR) and USD (asset USDC).
    public static let supported: [GatewayCurrency] = [
        GatewayCurrency(code: "eur", exponent: 2, assetCode: "EUR"),
        GatewayCurrency(code: "usd", exponent: 2, assetCode: "USDC"),
    ]

    /// The supported currency with this ISO code, in any case; nil for any other.
    public static func named(_ code: String) -> GatewayCurrency? {
        supported.first { $0.code == code.lowercased() }
    }
}

/// Why an amount cannot be taken or moved.
public struct MoneyError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case amountTooSmall = "amount_too_small"
        case amountTooLarge = "amount_too_large"
        case overflow = "amount_overflow"
    }

    public let code: Code
    public let message: String
    public var description: String { message }
}

/// Converting fiat minor units to the ledger's stroops (seven decimals) and back, exactly.
public enum FiatConversion {
    /// Stroops in one unit of an asset on the ledger.
    public static let stroopsPerUnit: Int64 = 10_000_000

    /// `minorUnits` of a currency with `exponent` decimals, in stroops: EUR 10.99 (1099, 2) is
    /// 109,900,000 stroops (10.9900000 EUR).
    /// - Throws: ``MoneyError`` `amount_overflow` when the result does not fit in Int64.
    public static func stroops(minorUnits: Int64, exponent: Int) throws(MoneyError) -> Int64 {
        precondition((0...7).contains(exponent), "a currency has 0 to 7 decimals")
        var factor: Int64 = 1
        for _ in exponent..<7 { factor *= 10 }
        let (product, overflow) = minorUnits.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw MoneyError(code: .overflow, message: "\(minorUnits) minor units do not fit on the ledger") }
        return product
    }

    /// `stroops` in minor units of a currency with `exponent` decimals; nil when they are not a
    /// whole number of minor units.
    public static func minorUnits(stroops: Int64, exponent: Int) -> Int64? {
        precondition((0...7).contains(exponent), "a currency has 0 to 7 decimals")
        var factor: Int64 = 1
        for _ in exponent..<7 { factor *= 10 }
        return stroops % factor == 0 ? stroops / factor : nil
    }

    /// A decimal amount as people write it ("10.99", "10", "0.5") in minor units of a currency
    /// with `exponent` decimals; nil for anything else (signs, exponents, separators, more
    /// decimals than the currency has, or more than the gateway takes).
    public static func minorUnits(parsing text: String, exponent: Int) -> Int64? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : ""
        let isDigits = { (part: Substring) in part.utf8.allSatisfy { (48...57).contains($0) } }
        guard !whole.isEmpty, whole.utf8.count <= 12, isDigits(whole), isDigits(fraction), fraction.utf8.count <= exponent,
              parts.count == 1 || !fraction.isEmpty else { return nil }
        var value: Int64 = 0
        for digit in Array(whole.utf8) + Array(fraction.utf8) + Array(repeating: UInt8(ascii: "0"), count: exponent - fraction.utf8.count) {
            value = value * 10 + Int64(digit - 48)
        }
        return value <= maxPaymentMinorUnits ? value : nil
    }

    /// `minorUnits` written with the currency's decimals: 1099 with exponent 2 is "10.99".
    public static func format(minorUnits: Int64, exponent: Int) -> String {
        precondition(minorUnits >= 0 && (0...7).contains(exponent), "a non-negative amount with 0 to 7 decimals")
        guard exponent > 0 else { return String(minorUnits) }
        var factor: Int64 = 1
        for _ in 0..<exponent { factor *= 10 }
        let fraction = String(minorUnits % factor)
        return "\(minorUnits / factor).\(String(repeating: "0", count: exponent - fraction.count))\(fraction)"
    }

    /// The largest amount in minor units the gateway takes in one payment: Stripe's own limit
    /// (99,999,999 minor units, €999,999.99).
    public static let maxPaymentMinorUnits: Int64 = 99_999_999
}

/// How a payment was paid, for fees and rules.
public enum PaymentMethodType: String, Sendable, Codable, CaseIterable {
    case card, ideal, bancontact

    /// Whether the method is paid by redirecting the customer to their bank, in euros only.
    public var isBankRedirect: Bool { self != .card }

    /// The smallest payment in minor units: Stripe's €0.50 for cards and iDEAL, €0.02 for
    /// Bancontact.
    public var minimumMinorUnits: Int64 { self == .bancontact ? 2 : 50 }
}

/// Tender's fees on a captured payment, from the published prices: cards 1.5% + €0.25 (EEA
/// consumer cards), iDEAL a flat €0.29, Bancontact a flat €0.39.
public struct FeeSchedule: Sendable, Equatable {
    /// Card fee in hundredths of a percent (150 = 1.5%).
    public var cardBasisPoints: Int64
    public var cardFixedMinorUnits: Int64
    public var idealMinorUnits: Int64
    public var bancontactMinorUnits: Int64

    public init(cardBasisPoints: Int64 = 150, cardFixedMinorUnits: Int64 = 25, idealMinorUnits: Int64 = 29, bancontactMinorUnits: Int64 = 39) {
        precondition((0...10_000).contains(cardBasisPoints), "a card fee is 0% to 100%")
        precondition([cardFixedMinorUnits, idealMinorUnits, bancontactMinorUnits].allSatisfy { (0...FiatConversion.maxPaymentMinorUnits).contains($0) }, "a fixed fee is 0 to 99,999,999 minor units")
        self.cardBasisPoints = cardBasisPoints
        self.cardFixedMinorUnits = cardFixedMinorUnits
        self.idealMinorUnits = idealMinorUnits
        self.bancontactMinorUnits = bancontactMinorUnits
    }

    /// The fee on capturing `amount` minor units paid by `method`. The percentage is rounded half
    /// up to a whole minor unit (1.5% of €10.10 is 15.15 cents: 15; of €10.30, 15.45: 15; of
    /// €10.70, 16.05: 16); the fee never exceeds the amount, so a tiny payment settles 0 and
    /// never a negative sum.
    public func fee(on amount: Int64, method: PaymentMethodType) -> Int64 {
        precondition(amount >= 0 && amount <= FiatConversion.maxPaymentMinorUnits, "a payment is 0 to 99,999,999 minor units")
        let fee: Int64
        switch method {
        case .card:
            // amount ≤ 10^8 and basis points ≤ 10^4 keep the product far inside Int64.
            fee = (amount * cardBasisPoints + 5_000) / 10_000 + cardFixedMinorUnits
        case .ideal: fee = idealMinorUnits
        case .bancontact: fee = bancontactMinorUnits
        }
        return min(fee, amount)
    }
}
