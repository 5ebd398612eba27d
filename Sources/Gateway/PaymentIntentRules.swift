/// The rules a payment intent's amount, currency, methods and capture must keep, before any
/// state machine runs: each bank redirect takes euros only and cannot be captured by hand; an
/// amount is at least the smallest minimum of the allowed methods and at most the gateway's
/// limit. Pure; the gateway's core throws what they find in its own failure.
public enum PaymentIntentRules {
    /// A rule broken: a stable code (Stripe's), the parameter at fault and a message.
    public struct Violation: Error, Sendable, Equatable {
        public enum Code: String, Sendable {
            case amountTooSmall = "amount_too_small"
            case amountTooLarge = "amount_too_large"
            case invalidCurrency = "payment_intent_invalid_currency"
            case redirectCapturedByHand = "parameter_invalid"
        }

        public let code: Code
        public let parameter: String
        public let message: String
    }

    /// Checks a new intent. `types` is not empty.
    public static func check(amount: Int64, currency: GatewayCurrency, types: [PaymentMethodType], captureMethod: CaptureMethod) throws(Violation) {
        precondition(!types.isEmpty, "an intent allows at least one payment method type")
        if types.contains(where: \.isBankRedirect), currency.code != "eur" {
            throw Violation(code: .invalidCurrency, parameter: "currency", message: "iDEAL and Bancontact take eur only.")
        }
        try check(amount: amount, types: types, currencyCode: currency.code)
        if captureMethod == .manual, types.contains(where: \.isBankRedirect) {
            throw Violation(code: .redirectCapturedByHand, parameter: "capture_method", message: "iDEAL and Bancontact payments cannot be captured manually.")
        }
    }

    /// Checks an amount for an intent that allows `types`: at least the smallest of their
    /// minimums, at most ``FiatConversion/maxPaymentMinorUnits``.
    public static func check(amount: Int64, types: [PaymentMethodType], currencyCode: String? = nil) throws(Violation) {
        let minimum = types.map(\.minimumMinorUnits).min() ?? 1
        guard amount >= minimum else {
            let unit = currencyCode.map { "\($0) minor units" } ?? "minor units"
            throw Violation(code: .amountTooSmall, parameter: "amount", message: "Amount must be at least \(minimum) \(unit).")
        }
        guard amount <= FiatConversion.maxPaymentMinorUnits else {
            throw Violation(code: .amountTooLarge, parameter: "amount", message: "Amount must be no more than \(FiatConversion.maxPaymentMinorUnits) minor units.")
        }
    }
}
