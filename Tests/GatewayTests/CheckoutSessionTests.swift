import Gateway
import Testing

@Suite("Checkout Sessions: their totals and status")
struct CheckoutSessionTests {
    typealias Item = SessionLineItem

    @Test("Totals: each line's unit amount times its quantity, checked")
    func totals() throws {
        #expect(try CheckoutSessionRules.total([Item(name: "Tea", unitAmount: 1_250, quantity: 3), Item(name: "Spoon", unitAmount: 199, quantity: 1)]) == 3_949)
        #expect(try CheckoutSessionRules.total([Item(name: "Free", unitAmount: 0, quantity: 1), Item(name: "Tea", unitAmount: 1, quantity: 1)]) == 1)
        #expect(try CheckoutSessionRules.total([Item(name: "Max", unitAmount: FiatConversion.maxPaymentMinorUnits, quantity: 1)]) == FiatConversion.maxPaymentMinorUnits)
        let refused: [([Item], String)] = [
            ([], "line_items"),
            (Array(repeating: Item(name: "A", unitAmount: 1, quantity: 1), count: 101), "line_items"),
            ([Item(name: "A", unitAmount: 100, quantity: 0)], "line_items[0][quantity]"),
            ([Item(name: "A", unitAmount: 100, quantity: 1), Item(name: "B", unitAmount: 1, quantity: 1_000_000)], "line_items[1][quantity]"),
            ([Item(name: "A", unitAmount: -1, quantity: 1)], "line_items[0][price_data][unit_amount]"),
            ([Item(name: "A", unitAmount: 0, quantity: 5)], "line_items"),
            ([Item(name: "A", unitAmount: FiatConversion.maxPaymentMinorUnits, quantity: 1), Item(name: "B", unitAmount: 1, quantity: 1)], "line_items"),
            ([Item(name: "A", unitAmount: .max / 2, quantity: 999_999)], "line_items"),
        ]
        for (items, parameter) in refused {
            #expect(throws: CheckoutSessionRules.Violation.self) { try CheckoutSessionRules.total(items) }
            do { _ = try CheckoutSessionRules.total(items) } catch { #expect(error.parameter == parameter, "\(items.count) items") }
        }
    }

    @Test("Status: complete once paid, expired by the merchant, its clock or a canceled intent")
    func status() {
        var session = CheckoutSessionRecord(
            id: CheckoutSessionID("cs_test_1"), created: 100, expiresAt: 200, currency: "eur", lineItems: [Item(name: "A", unitAmount: 100, quantity: 1)],
            amountTotal: 100, paymentIntent: PaymentIntentID("pi_1"), successURL: "https://shop.example/", paymentMethodTypes: [.card])
        #expect(CheckoutSessionStatus.of(session, intentStatus: .requiresPaymentMethod, now: 150) == .open)
        #expect(CheckoutSessionStatus.of(session, intentStatus: .requiresAction, now: 199) == .open)
        #expect(CheckoutSessionStatus.of(session, intentStatus: .requiresPaymentMethod, now: 200) == .expired)
        #expect(CheckoutSessionStatus.of(session, intentStatus: .canceled, now: 150) == .expired)
        #expect(CheckoutSessionStatus.of(session, intentStatus: .succeeded, now: 500) == .complete, "paid just in time stays paid")
        session.expiredAt = 150
        #expect(CheckoutSessionStatus.of(session, intentStatus: .requiresPaymentMethod, now: 160) == .expired)
    }
}
