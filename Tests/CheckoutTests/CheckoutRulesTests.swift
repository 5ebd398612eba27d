@testable import Checkout
import Testing

@Suite("Checkout totals")
struct TotalsTests {
    let methods = [
        DeliveryMethod(name: "standard", costs: ["NL": 695, "BE": 995, "GB": 1_495]),
        DeliveryMethod(name: "registered", costs: ["NL": 895, "BE": 1_295]),
    ]
    let charges = MarketplaceCharges.reference

    func totals(_ item: Int64, _ delivery: DeliveryChoice, _ country: String?, _ payment: CheckoutPaymentMethod, business: Bool = false, pickup: Bool = true) throws(TotalsError) -> Totals {
        try CheckoutRules.totals(item: item, delivery: delivery, country: country, payment: payment, businessBuyer: business, pickupOffered: pickup, methods: methods, charges: charges)
    }

    /// (item, delivery, country, payment, business) → (shipping, fee, total, VAT shown).
    @Test func theTable() throws {
        let cases: [(Int64, DeliveryChoice, String?, CheckoutPaymentMethod, Bool, Int64, Int64, Int64, Int64)] = [
            (10_000, .pickup, nil, .ideal, false, 0, 199, 10_199, 0),
            (10_000, .pickup, "GB", .bancontact, false, 0, 149, 10_149, 0),
            (10_000, .method("standard"), "NL", .ideal, false, 695, 199, 10_894, 0),
            (10_000, .method("standard"), "GB", .ideal, false, 1_495, 199, 11_694, 0),
            (10_000, .method("registered"), "NL", .ideal, false, 895, 199, 11_094, 0),
            (10_000, .method("registered"), "BE", .bancontact, false, 1_295, 149, 11_444, 0),
            // Card: 2.9% of item and shipping. 10,695 × 0.029 = 310.155 → 310.
            (10_000, .method("standard"), "NL", .card, false, 695, 310, 11_005, 0),
            // 50 × 0.029 = 1.45 → 1 (half up: below .5); 52 × 0.029 = 1.508 → 2.
            (50, .pickup, nil, .card, false, 0, 1, 51, 0),
            (52, .pickup, nil, .card, false, 0, 2, 54, 0),
            // Business buyers see the VAT the total includes: 12,100 × 21 / 121 = 2,100.
            (11_901, .pickup, nil, .ideal, true, 0, 199, 12_100, 2_100),
            // 10,894 × 2,100 / 12,100 = 1,890.69... → 1,891.
            (10_000, .method("standard"), "NL", .ideal, true, 695, 199, 10_894, 1_891),
            (0, .pickup, nil, .ideal, false, 0, 199, 199, 0),
        ]
        for (item, delivery, country, payment, business, shipping, fee, total, vat) in cases {
            let result = try totals(item, delivery, country, payment, business: business)
            #expect(result.shipping == shipping && result.paymentFee == fee && result.total == total && result.vatIncluded == vat, "\(item) \(delivery) \(country ?? "-") \(payment)")
            #expect(result.lines.map(\.kind) == [.item, .shipping, .paymentFee] + (business ? [.vat] : []))
            #expect(result.lines.filter { $0.kind != .vat }.map(\.amount).reduce(0, +) == result.total, "the lines but VAT add up to the total")
        }
        // NL → GB costs more than NL → NL; registered more than standard.
        #expect(try totals(10_000, .method("standard"), "GB", .ideal).total > totals(10_000, .method("standard"), "NL", .ideal).total)
        #expect(try totals(10_000, .method("registered"), "NL", .ideal).total > totals(10_000, .method("standard"), "NL", .ideal).total)
    }

    @Test func refusals() {
        #expect(throws: TotalsError.pickupNotOffered) { try totals(100, .pickup, nil, .ideal, pickup: false) }
        #expect(throws: TotalsError.methodNotOffered("courier")) { try totals(100, .method("courier"), "NL", .ideal) }
        #expect(throws: TotalsError.countryNotServed(method: "registered", country: "GB")) { try totals(100, .method("registered"), "GB", .ideal) }
        #expect(throws: TotalsError.addressNeeded) { try totals(100, .method("standard"), nil, .ideal) }
        for item: Int64 in [-1, .min, 100_000_000, .max] {
            #expect(throws: TotalsError.amountTooLarge) { try totals(item, .pickup, nil, .card) }
        }
        // The fee may not push the total past the gateway's limit.
        #expect(throws: TotalsError.amountTooLarge) { try totals(99_999_900, .pickup, nil, .ideal) }
        #expect(throws: TotalsError.amountTooLarge) { try totals(99_999_000, .method("standard"), "GB", .bancontact) }
        #expect(throws: Never.self) { try totals(99_999_800, .pickup, nil, .ideal) }
    }

    /// (item, shipping, payment fee, gateway fee, charges) → (seller, marketplace, gateway): the
    /// escrow holds the whole total and pays it out in three parts that add up to it.
    @Test func releaseSplitsWhatTheEscrowHolds() throws {
        let none = MarketplaceCharges(commissionBasisPoints: 0, idealFee: 0, bancontactFee: 0, cardBasisPoints: 0, vatBasisPoints: 0)
        let cases: [(Int64, Int64, Int64, Int64, MarketplaceCharges, Release)] = [
            // The reference: 10% of the item; iDEAL's 1.99 and the commission cover the 0.29.
            (10_000, 695, 199, 29, charges, Release(seller: 9_695, marketplace: 1_170, gateway: 29)),
            (10_000, 0, 199, 0, charges, Release(seller: 9_000, marketplace: 1_199, gateway: 0)),
            // A 5 euro card sale: fee 7.5 → 8 + 25 = 33; the marketplace's 15 + 50 cover it.
            (500, 0, 15, 33, charges, Release(seller: 450, marketplace: 32, gateway: 33)),
            // Exactly covered.
            (500, 0, 15, 65, charges, Release(seller: 450, marketplace: 0, gateway: 65)),
            // A marketplace that charges nothing: the seller's part bears the fee.
            (500, 0, 0, 33, none, Release(seller: 467, marketplace: 0, gateway: 33)),
            (500, 100, 0, 600, none, Release(seller: 0, marketplace: 0, gateway: 600)),
            // Charges below the fee: the marketplace's part goes first, the seller's the rest.
            (100, 0, 3, 26, charges, Release(seller: 77, marketplace: 0, gateway: 26)),
            (99_999_999, 0, 0, 0, charges, Release(seller: 89_999_999, marketplace: 10_000_000, gateway: 0)),
            (1, 0, 0, 1, charges, Release(seller: 0, marketplace: 0, gateway: 1)),
        ]
        for (item, shipping, paymentFee, gatewayFee, charges, expected) in cases {
            let totals = Totals(lines: [], total: item + shipping + paymentFee, item: item, shipping: shipping, paymentFee: paymentFee, vatIncluded: 0)
            let release = CheckoutRules.release(totals, charges: charges, gatewayFee: gatewayFee)
            #expect(release == expected, "\(item) \(shipping) \(paymentFee) \(gatewayFee)")
            #expect(release.seller + release.marketplace + release.gateway == totals.total && release.seller >= 0 && release.marketplace >= 0)
        }
        // Every total the rules make, with any fee up to the total: never negative, always the total.
        for item: Int64 in [0, 1, 5, 52, 500, 10_000, 12_345, 9_999_000] {
            for method in CheckoutPaymentMethod.allCases {
                let totals = try totals(item, .pickup, nil, method)
                for fee in Set([0, 1, 25, 29, totals.total / 2, totals.total]) where fee <= totals.total {
                    let release = CheckoutRules.release(totals, charges: charges, gatewayFee: fee)
                    #expect(release.seller + release.marketplace + release.gateway == totals.total && release.seller >= 0 && release.marketplace >= 0 && release.gateway == fee)
                }
            }
        }
        #expect(MarketplaceCharges.reference.isValid)
        #expect(!MarketplaceCharges(commissionBasisPoints: 10_001, idealFee: 0, bancontactFee: 0, cardBasisPoints: 0, vatBasisPoints: 0).isValid)
        #expect(!MarketplaceCharges(commissionBasisPoints: 0, idealFee: -1, bancontactFee: 0, cardBasisPoints: 0, vatBasisPoints: 0).isValid)
    }
}

@Suite("Bid and order state machines")
struct CheckoutStateMachineTests {
    @Test func bids() throws {
        var bid = BidMachine(buyNow: false)
        #expect(bid.status == .pending)
        try bid.accept()
        #expect(bid.status == .accepted)
        #expect(throws: CheckoutStateError.self) { try bid.withdraw(by: .buyer) }
        #expect(throws: CheckoutStateError.self) { try bid.reject() }
        try bid.paid()
        #expect(bid.status == .paid)
        #expect(throws: CheckoutStateError.self) { try bid.withdraw(by: .marketplace) }

        var backedOut = BidMachine(buyNow: true)
        try backedOut.withdraw(by: .buyer)
        #expect(backedOut.status == .withdrawn, "a buyer backs out of a buy-now")
        #expect(throws: CheckoutStateError.self) { try backedOut.withdraw(by: .seller) }
        var buyNow = BidMachine(buyNow: true)
        #expect(buyNow.status == .accepted)
        try buyNow.withdraw(by: .marketplace)
        #expect(buyNow.status == .withdrawn)
        for action in ["accept", "reject", "withdraw", "paid"] {
            var copy = buyNow
            let error = #expect(throws: CheckoutStateError.self) {
                switch action {
                case "accept": try copy.accept()
                case "reject": try copy.reject()
                case "withdraw": try copy.withdraw(by: .buyer)
                default: try copy.paid()
                }
            }
            #expect(error?.code == "bid_unexpected_state" && copy == buyNow)
        }

        var rejected = BidMachine(buyNow: false)
        try rejected.reject()
        #expect(throws: CheckoutStateError.self) { try rejected.accept() }
        var withdrawn = BidMachine(buyNow: false)
        #expect(throws: CheckoutStateError.self) { try withdrawn.withdraw(by: .seller) }
        try withdrawn.withdraw(by: .buyer)
        #expect(withdrawn.status == .withdrawn)
    }

    /// Every event in every status: allowed ones move as the rules say, refused ones change nothing.
    @Test func ordersInEveryStatus() throws {
        func order(in status: OrderMachine.Status) throws -> OrderMachine {
            var order = OrderMachine(paymentMethod: .ideal)
            switch status {
            case .awaitingPayment: break
            case .paymentPending: try order.paymentStarted()
            case .paid: _ = try order.paymentSucceeded()
            case .shipped: _ = try order.paymentSucceeded(); try order.ship(by: .seller)
            case .completed: _ = try order.paymentSucceeded(); try order.ship(by: .seller); _ = try order.complete(by: .buyer)
            case .cancelled: _ = try order.cancel()
            case .expired: _ = try order.expire()
            }
            #expect(order.status == status)
            return order
        }
        typealias Event = (String, (inout OrderMachine) throws -> OrderMachine.Action)
        let events: [Event] = [
            ("choose", { try $0.choose(.card); return .none }),
            ("start", { try $0.paymentStarted(); return .none }),
            ("succeed", { try $0.paymentSucceeded() }),
            ("fail", { try $0.paymentFailed(); return .none }),
            ("expire", { try $0.expire() }),
            ("ship", { try $0.ship(by: .seller); return .none }),
            ("complete", { try $0.complete(by: .buyer) }),
            ("cancel", { try $0.cancel() }),
        ]
        // (status, event) → (new status, action) for the allowed pairs.
        let allowed: [String: (OrderMachine.Status, OrderMachine.Action)] = [
            "awaiting_payment choose": (.awaitingPayment, .none), "awaiting_payment start": (.paymentPending, .none),
            "awaiting_payment succeed": (.paid, .hold), "awaiting_payment fail": (.awaitingPayment, .none),
            "awaiting_payment expire": (.expired, .free), "awaiting_payment cancel": (.cancelled, .free),
            "payment_pending choose": (.paymentPending, .none), "payment_pending start": (.paymentPending, .none),
            "payment_pending succeed": (.paid, .hold), "payment_pending fail": (.awaitingPayment, .none),
            "payment_pending expire": (.expired, .free), "payment_pending cancel": (.cancelled, .free),
            "paid ship": (.shipped, .none), "paid cancel": (.cancelled, .refund),
            "shipped complete": (.completed, .release),
        ]
        for status in OrderMachine.Status.allCases {
            for (name, event) in events {
                var machine = try order(in: status)
                let before = machine
                if let (next, action) = allowed["\(status.rawValue) \(name)"] {
                    let done = try event(&machine)
                    #expect(machine.status == next && done == action, "\(status) \(name)")
                } else {
                    #expect(throws: CheckoutStateError.self, "\(status) \(name)") { _ = try event(&machine) }
                    #expect(machine == before, "\(status) \(name) changed nothing")
                }
            }
        }
        var paid = try order(in: .paid)
        let notSeller = #expect(throws: CheckoutStateError.self) { try paid.ship(by: .buyer) }
        #expect(notSeller?.code == "order_forbidden")
        var shipped = try order(in: .shipped)
        #expect(throws: CheckoutStateError.self) { _ = try shipped.complete(by: .seller) }
        #expect(try shipped.complete(by: .marketplace) == .release, "released when the time passes")
    }
}
