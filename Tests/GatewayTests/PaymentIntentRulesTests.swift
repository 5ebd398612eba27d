import Gateway
import Testing

@Suite("Payment intent rules")
struct PaymentIntentRulesTests {
    /// (amount, currency, types, capture) → the violation's code and parameter, or nil.
    @Test func theTable() {
        let eur = GatewayCurrency.named("eur")!, usd = GatewayCurrency.named("usd")!
        let cases: [(Int64, GatewayCurrency, [PaymentMethodType], CaptureMethod, PaymentIntentRules.Violation.Code?, String?)] = [
            (50, eur, [.card], .automatic, nil, nil),
            (49, eur, [.card], .automatic, .amountTooSmall, "amount"),
            (0, usd, [.card], .manual, .amountTooSmall, "amount"),
            (-1, eur, [.card], .automatic, .amountTooSmall, "amount"),
            (99_999_999, eur, [.card], .automatic, nil, nil),
            (100_000_000, eur, [.card], .automatic, .amountTooLarge, "amount"),
            (.max, eur, [.card], .automatic, .amountTooLarge, "amount"),
            // Bancontact's minimum is 2: with it allowed, the smallest minimum counts.
            (2, eur, [.bancontact], .automatic, nil, nil),
            (2, eur, [.card, .bancontact], .automatic, nil, nil),
            (1, eur, [.bancontact], .automatic, .amountTooSmall, "amount"),
            (49, eur, [.ideal], .automatic, .amountTooSmall, "amount"),
            // Bank redirects: euros only, never captured by hand; the currency is checked first.
            (1_000, usd, [.ideal], .automatic, .invalidCurrency, "currency"),
            (1_000, usd, [.card, .bancontact], .automatic, .invalidCurrency, "currency"),
            (1, usd, [.ideal], .manual, .invalidCurrency, "currency"),
            (1_000, eur, [.ideal], .manual, .redirectCapturedByHand, "capture_method"),
            (1_000, eur, [.card, .ideal], .manual, .redirectCapturedByHand, "capture_method"),
            (1_000, usd, [.card], .manual, nil, nil),
        ]
        for (amount, currency, types, capture, code, parameter) in cases {
            do {
                try PaymentIntentRules.check(amount: amount, currency: currency, types: types, captureMethod: capture)
                #expect(code == nil, "\(amount) \(currency.code) \(types) \(capture) passed")
            } catch {
                #expect(error.code == code && error.parameter == parameter, "\(amount) \(currency.code) \(types) \(capture): \(error)")
            }
        }
    }
}
