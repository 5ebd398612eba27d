/// Stripe's test payment methods (`pm_card_visa`...) and card tokens (`tok_visa`...), which most
/// Stripe test suites use instead of card numbers: each names one of Stripe's test cards, and
/// behaves as that card does with the test acquirer. Only brands Tender's card rules know
/// (Visa, Mastercard, American Express) are served.
public enum TestPaymentMethods {
    /// The test card each name stands for, by the name after `pm_card_` or `tok_`.
    public static let cards: [String: String] = [
        "visa": "4242424242424242",
        "visa_debit": "4000056655665556",
        "mastercard": "5555555555554444",
        "mastercard_debit": "5200828282828210",
        "mastercard_prepaid": "5105105105105100",
        "amex": "378282246310005",
        "chargeDeclined": "4000000000000002",
        "chargeDeclinedInsufficientFunds": "4000000000009995",
        "chargeDeclinedLostCard": "4000000000009987",
        "chargeDeclinedStolenCard": "4000000000009979",
        "chargeDeclinedExpiredCard": "4000000000000069",
        "chargeDeclinedIncorrectCvc": "4000000000000127",
        "chargeDeclinedProcessingError": "4000000000000119",
        "authenticationRequired": "4000002500003155",
        "authenticationRequiredOnSetup": "4000002500003155",
        "threeDSecure2Required": "4000000000003220",
        "threeDSecureRequired": "4000000000003063",
        "threeDSecureOptional": "4000000000003055",
        "authenticationRequiredChargeDeclinedInsufficientFunds": "4000008260003178",
    ]

    /// The card number a test payment method id (`pm_card_visa`) stands for; nil for any other id.
    public static func cardNumber(paymentMethod id: String) -> String? {
        guard id.hasPrefix("pm_card_") else { return nil }
        return cards[String(id.dropFirst(8))]
    }

    /// The card number a test token (`tok_visa`) stands for; nil for any other text.
    public static func cardNumber(token: String) -> String? {
        guard token.hasPrefix("tok_") else { return nil }
        return cards[String(token.dropFirst(4))]
    }
}
