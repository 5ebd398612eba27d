import Foundation
import Gateway
import GatewayCore
import Testing
import TenderJSON

@Suite("Charges in the gateway's core")
struct ChargeCoreTests {
    /// Two intents, the first declined then paid: three charges, read by id, listed newest
    /// first and paged both ways, refunded by the charge's id, each step reported by its event.
    @Test func chargesOfAttempts() async throws {
        try await CoreWorld.with { world in
            let gateway = world.gateway, merchant = world.merchant
            let eur = GatewayCurrency.named("eur")!
            let first = try await gateway.createPaymentIntent(NewPaymentIntent(amount: 1_000, currency: eur), merchant: merchant, idempotency: nil, base: CoreWorld.base)
            do {
                _ = try await gateway.confirmPaymentIntent(first.id, IntentConfirmation(paymentMethod: try await world.card("4000000000000002")), merchant: merchant, key: .secret, base: CoreWorld.base)
                Issue.record("a declining card paid")
            } catch let failure as GatewayFailure {
                #expect(failure.declineCode == "generic_decline")
            }
            let paid = try await gateway.confirmPaymentIntent(first.id, IntentConfirmation(paymentMethod: try await world.card("4242424242424242")), merchant: merchant, key: .secret, base: CoreWorld.base)
            let second = try await gateway.createPaymentIntent(
                NewPaymentIntent(amount: 2_000, currency: eur, paymentMethod: try await world.card("5555555555554444"), confirm: true), merchant: merchant, idempotency: nil, base: CoreWorld.base)
            #expect(paid.chargeAttempts.map(\.status) == [.failed, .succeeded] && second.chargeAttempts.map(\.status) == [.succeeded])

            let declined = try await gateway.charge(first.id.charge(1), merchant: merchant)
            #expect(declined.charge.failure?.declineCode == "generic_decline" && declined.charge.method?.card?.last4 == "0002")
            let json = try parsed(GatewayObjects.charge(declined.charge, of: declined.intent))
            #expect(json["status"] as? String == "failed" && json["failure_code"] as? String == "card_declined" && json["paid"] as? Bool == false)

            // Newest first: the second intent's charge, then the first's in reverse.
            let order = [second.id.charge(1), first.id.charge(2), first.id.charge(1)]
            let all = try await gateway.charges(merchant: merchant, page: ListRequest(limit: 10), paymentIntent: nil)
            #expect(all.charges.map(\.id) == order && !all.hasMore)
            let head = try await gateway.charges(merchant: merchant, page: ListRequest(limit: 2), paymentIntent: nil)
            #expect(head.charges.map(\.id) == Array(order.prefix(2)) && head.hasMore)
            let tail = try await gateway.charges(merchant: merchant, page: ListRequest(limit: 2, startingAfter: order[1].rawValue), paymentIntent: nil)
            #expect(tail.charges.map(\.id) == [order[2]] && !tail.hasMore)
            let back = try await gateway.charges(merchant: merchant, page: ListRequest(limit: 1, endingBefore: order[2].rawValue), paymentIntent: nil)
            #expect(back.charges.map(\.id) == [order[1]] && back.hasMore)
            let ofFirst = try await gateway.charges(merchant: merchant, page: ListRequest(limit: 10), paymentIntent: first.id)
            #expect(ofFirst.charges.map(\.id) == [first.id.charge(2), first.id.charge(1)])

            // Refunded by the charge that took the money; not by the declined one, nor a made-up one.
            let refund = try await gateway.createRefund(NewRefund(charge: first.id.charge(2), amount: 300), merchant: merchant, idempotency: nil)
            #expect(refund.paymentIntent == first.id && refund.charge == first.id.charge(2) && refund.status == .succeeded)
            let refunded = try await gateway.charge(first.id.charge(2), merchant: merchant)
            let after = try parsed(GatewayObjects.charge(refunded.charge, of: refunded.intent))
            #expect(after["amount_refunded"] as? Int == 300 && after["refunded"] as? Bool == false && after["amount_captured"] as? Int == 1_000)
            for (charge, code) in [(first.id.charge(1), GatewayFailure.Code.chargeNotRefundable), (ChargeID("ch_nothere"), .resourceMissing), (first.id.charge(3), .resourceMissing)] {
                do {
                    _ = try await gateway.createRefund(NewRefund(charge: charge), merchant: merchant, idempotency: nil)
                    Issue.record("refunded \(charge)")
                } catch let failure as GatewayFailure {
                    #expect(failure.code == code && failure.parameter == "charge", "\(failure)")
                }
            }
            do {
                _ = try await gateway.createRefund(NewRefund(paymentIntent: second.id, charge: first.id.charge(2)), merchant: merchant, idempotency: nil)
                Issue.record("a charge refunded under another intent")
            } catch let failure as GatewayFailure {
                #expect(failure.parameter == "charge")
            }
            do {
                _ = try await gateway.charge(ChargeID("ch_nothere"), merchant: merchant)
                Issue.record("a charge made up")
            } catch let failure as GatewayFailure {
                #expect(failure.category == .notFound)
            }

            // Every step's charge event, with the charge as it was.
            let (events, _) = try await gateway.events(merchant: merchant, ListRequest(limit: 100))
            let charges = try events.map(parsed).compactMap { event -> String? in
                guard let type = event["type"] as? String, type.hasPrefix("charge.") else { return nil }
                return "\(type) \(((event["data"] as? [String: Any])?["object"] as? [String: Any])?["id"] as? String ?? "")"
            }
            #expect(charges == [
                "charge.refunded \(first.id.charge(2))", "charge.succeeded \(second.id.charge(1))",
                "charge.succeeded \(first.id.charge(2))", "charge.failed \(first.id.charge(1))",
            ])
        }
    }
}

/// A JSON object as Foundation reads it, for comparing fields.
func parsed(_ value: JSONValue) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(value.compactBytes())) as? [String: Any])
}

@Suite("Test and inline payment methods in the gateway's core")
struct InlinePaymentMethodCoreTests {
    @Test func testMethodsTokensAndInlineMethods() async throws {
        try await CoreWorld.with { world in
            let gateway = world.gateway, merchant = world.merchant
            let eur = GatewayCurrency.named("eur")!
            // A test payment method makes a new method of its card, which answers as its card does.
            let visa = try await gateway.createPaymentIntent(
                NewPaymentIntent(amount: 1_000, currency: eur, paymentMethod: PaymentMethodID("pm_card_visa"), confirm: true), merchant: merchant, idempotency: nil, base: CoreWorld.base)
            let made = try #require(visa.machine.paymentMethod)
            #expect(visa.machine.status == .succeeded && made != "pm_card_visa" && made.hasPrefix("pm_"))
            #expect(try await gateway.retrieve(PaymentMethodRecord.self, id: PaymentMethodID(made), merchant: merchant).card?.last4 == "4242")
            do {
                _ = try await gateway.createPaymentIntent(
                    NewPaymentIntent(amount: 1_000, currency: eur, paymentMethod: PaymentMethodID("pm_card_chargeDeclinedLostCard"), confirm: true), merchant: merchant, idempotency: nil, base: CoreWorld.base)
                Issue.record("a declining test method paid")
            } catch let failure as GatewayFailure {
                #expect(failure.category == .card && failure.declineCode == "lost_card")
            }
            let tokened = try await gateway.createPaymentMethod(NewPaymentMethod(type: .card, cardToken: "tok_amex"), merchant: merchant)
            #expect(tokened.card?.brand == .amex && tokened.card?.last4 == "0005")
            // An inline method with billing details, made and attached by the create.
            let billing = BillingDetails(name: "Jane", address: .init(country: "NL"))
            let inline = try await gateway.createPaymentIntent(
                NewPaymentIntent(amount: 1_000, currency: eur, paymentMethodData: NewPaymentMethod(type: .card, cardToken: "tok_visa", billing: billing), confirm: true),
                merchant: merchant, idempotency: nil, base: CoreWorld.base)
            #expect(inline.machine.status == .succeeded && inline.succeededCharge?.method?.billing == billing)
            // Failures name their parameter as the request gave it.
            let bad: [(NewPaymentIntent, String)] = [
                (NewPaymentIntent(amount: 1_000, currency: eur, paymentMethodData: NewPaymentMethod(type: .card, cardToken: "tok_nope")), "payment_method_data[card][token]"),
                (NewPaymentIntent(amount: 1_000, currency: eur, paymentMethodData: NewPaymentMethod(
                    type: .card, card: CardDetails(number: "4242424242424241", expMonth: "12", expYear: "2040", cvc: nil))), "payment_method_data[card][number]"),
                (NewPaymentIntent(amount: 1_000, currency: eur, paymentMethodData: NewPaymentMethod(type: .card)), "payment_method_data[card]"),
                (NewPaymentIntent(amount: 1_000, currency: eur, paymentMethod: PaymentMethodID("pm_card_visa"), paymentMethodData: NewPaymentMethod(type: .card, cardToken: "tok_visa")), "payment_method_data"),
                (NewPaymentIntent(amount: 1_000, currency: eur, paymentMethod: PaymentMethodID("pm_card_nope")), "payment_method"),
            ]
            for (new, parameter) in bad {
                do {
                    _ = try await gateway.createPaymentIntent(new, merchant: merchant, idempotency: nil, base: CoreWorld.base)
                    Issue.record("\(parameter) taken")
                } catch let failure as GatewayFailure {
                    #expect(failure.parameter == parameter, "\(failure)")
                }
            }
        }
    }
}

@Suite("Customers and deleted objects in the gateway's core")
struct CustomerCoreTests {
    @Test func customersListedChangedAndDeleted() async throws {
        try await CoreWorld.with { world in
            let gateway = world.gateway, merchant = world.merchant
            let jane = try await gateway.createCustomer(NewCustomer(email: "jane@example.com", paymentMethod: PaymentMethodID("pm_card_visa")), merchant: merchant)
            let joe = try await gateway.createCustomer(NewCustomer(email: "joe@example.com"), merchant: merchant)
            #expect(try await gateway.customers(merchant: merchant, page: ListRequest(), email: "jane@example.com").records.map(\.id) == [jane.id])
            #expect(try await gateway.customers(merchant: merchant, page: ListRequest(), email: nil).records.map(\.id) == [joe.id, jane.id])
            let cards = try await gateway.paymentMethods(of: jane.id, type: .card, merchant: merchant, page: ListRequest()).records
            #expect(cards.count == 1 && cards[0].customer == jane.id)
            // The e-mail it is listed by follows a change.
            let renamed = try await gateway.updateCustomer(jane.id, CustomerChanges(email: "j@example.com", defaultPaymentMethod: cards[0].id), merchant: merchant)
            #expect(renamed.defaultPaymentMethod == cards[0].id)
            #expect(try await gateway.customers(merchant: merchant, page: ListRequest(), email: "jane@example.com").records.isEmpty)
            #expect(try await gateway.customers(merchant: merchant, page: ListRequest(), email: "j@example.com").records.map(\.id) == [jane.id])
            do {
                _ = try await gateway.updateCustomer(joe.id, CustomerChanges(defaultPaymentMethod: cards[0].id), merchant: merchant)
                Issue.record("another customer's card made a default")
            } catch let failure as GatewayFailure {
                #expect(failure.parameter == "invoice_settings[default_payment_method]")
            }
            // A method already saved for someone else makes no customer.
            do {
                _ = try await gateway.createCustomer(NewCustomer(email: "x@example.com", paymentMethod: cards[0].id), merchant: merchant)
                Issue.record("a card saved twice")
            } catch let failure as GatewayFailure {
                #expect(failure.code == .paymentMethodUnexpectedState && failure.parameter == "payment_method")
            }
            #expect(try await gateway.customers(merchant: merchant, page: ListRequest(), email: "x@example.com").records.isEmpty)
            // Detaching the default card forgets it as the default.
            _ = try await gateway.detachPaymentMethod(cards[0].id, merchant: merchant)
            #expect(try await gateway.retrieve(CustomerRecord.self, id: jane.id, merchant: merchant).defaultPaymentMethod == nil)
            // Deleted: its cards detached, read as deleted, listed no more, changed no more.
            _ = try await gateway.attachPaymentMethod(cards[0].id, customer: jane.id, merchant: merchant)
            try await gateway.deleteCustomer(jane.id, merchant: merchant)
            guard case .deleted(let id) = try await gateway.customer(jane.id, merchant: merchant), id == jane.id else { Issue.record("not read as deleted"); return }
            #expect(try await gateway.retrieve(PaymentMethodRecord.self, id: cards[0].id, merchant: merchant).customer == nil)
            #expect(try await gateway.customers(merchant: merchant, page: ListRequest(), email: nil).records.map(\.id) == [joe.id])
            for attempt in [{ try await gateway.deleteCustomer(jane.id, merchant: merchant) }, { _ = try await gateway.updateCustomer(jane.id, CustomerChanges(name: "J"), merchant: merchant) }] as [() async throws -> Void] {
                do {
                    try await attempt()
                    Issue.record("a deleted customer changed")
                } catch let failure as GatewayFailure {
                    #expect(failure.category == .notFound)
                }
            }
        }
    }

    /// A deleted endpoint is listed and read no more and sent nothing; an event's
    /// `pending_webhooks` counts what is left to deliver.
    @Test func deletedEndpointsAndPendingWebhooks() async throws {
        try await CoreWorld.with { world in
            let gateway = world.gateway, merchant = world.merchant
            let kept = try await gateway.createWebhookEndpoint(url: "https://shop.example/a", events: ["*"], merchant: merchant).endpoint
            let dropped = try await gateway.createWebhookEndpoint(url: "https://shop.example/b", events: ["*"], merchant: merchant).endpoint
            try await gateway.deleteWebhookEndpoint(dropped.id, merchant: merchant)
            #expect(try await gateway.list(WebhookEndpointRecord.self, merchant: merchant, ListRequest()).records.map(\.id) == [kept.id])
            #expect(try await gateway.find(WebhookEndpointRecord.self, id: dropped.id, merchant: merchant) == nil)
            await gateway.emit(.paymentIntentCreated, .object([("id", "pi_x"), ("metadata", .object([("pending_webhooks", "7")]))]), merchant: merchant)
            let stored = try #require(try await gateway.events(merchant: merchant, ListRequest()).events.first)
            #expect(try parsed(stored)["pending_webhooks"] as? Int == 1, "one endpoint left to deliver to")
            let id = try #require(try parsed(stored)["id"] as? String)
            for var delivery in try await gateway.store.deliveries(event: id) {
                delivery.status = .delivered
                try await gateway.store.updateDelivery(delivery)
            }
            let delivered = try parsed(try await gateway.event(id, merchant: merchant))
            #expect(delivered["pending_webhooks"] as? Int == 0)
            #expect(((delivered["data"] as? [String: Any])?["object"] as? [String: Any]).flatMap { ($0["metadata"] as? [String: Any])?["pending_webhooks"] as? String } == "7")
        }
    }
}

@Suite("Balance transactions in the gateway's core")
struct BalanceTransactionCoreTests {
    /// A day of mixed traffic: card and bank payments, a decline, a partial capture, partial and
    /// whole refunds, a payout. Every movement of the balance has its transaction, and they sum
    /// to the balance, which equals the settlement account on the ledger.
    @Test func moneyAddsUp() async throws {
        try await CoreWorld.with { world in
            let gateway = world.gateway, merchant = world.merchant
            let eur = GatewayCurrency.named("eur")!
            func pay(_ amount: Int64, _ method: String, capture: CaptureMethod = .automatic) async throws -> PaymentIntentRecord {
                try await gateway.createPaymentIntent(
                    NewPaymentIntent(amount: amount, currency: eur, captureMethod: capture, paymentMethod: PaymentMethodID(method), confirm: true),
                    merchant: merchant, idempotency: nil, base: CoreWorld.base)
            }
            let first = try await pay(10_000, "pm_card_visa")
            let second = try await pay(2_000, "pm_card_mastercard")
            _ = try? await pay(3_000, "pm_card_chargeDeclined")
            let held = try await pay(5_000, "pm_card_visa", capture: .manual)
            _ = try await gateway.capturePaymentIntent(held.id, amount: 4_000, metadata: nil, merchant: merchant, base: CoreWorld.base)
            let bank = try await gateway.createPaymentIntent(
                NewPaymentIntent(amount: 1_500, currency: eur, paymentMethodTypes: [.ideal], paymentMethodData: NewPaymentMethod(type: .ideal), confirm: true,
                                 fields: IntentFields(returnURL: "https://shop.example/back")), merchant: merchant, idempotency: nil, base: CoreWorld.base)
            var (bankIntent, bankStored) = try await gateway.load(PaymentIntentRecord.self, id: bank.id, merchant: merchant)
            let authorised = try bankIntent.machine.completeAction(succeeded: true)
            _ = try await gateway.perform(authorised, on: bankIntent, over: bankStored, merchant, base: CoreWorld.base)
            (bankIntent, bankStored) = try await gateway.load(PaymentIntentRecord.self, id: bank.id, merchant: merchant)
            #expect(bankIntent.machine.status == .succeeded)
            _ = try await gateway.createRefund(NewRefund(paymentIntent: first.id, amount: 2_500), merchant: merchant, idempotency: nil)
            _ = try await gateway.createRefund(NewRefund(paymentIntent: second.id), merchant: merchant, idempotency: nil)
            let wallet = try await gateway.createMerchant(name: "Payee").record.settlementAccount
            _ = try await gateway.createPayout(NewPayout(amount: 1_000, currency: eur, destination: wallet), merchant: merchant, idempotency: nil)

            let all = try await world.balanceTransactions(of: merchant)
            #expect(all.map(\.type) == [.payout, .refund, .refund, .payment, .charge, .charge, .charge])
            // Fees: 1.5% + 0.25 of 100.00, 20.00 and 40.00; iDEAL's flat 0.29.
            #expect(all.map(\.fee) == [0, 0, 0, 29, 85, 55, 175])
            #expect(all.map(\.amount) == [-1_000, -2_000, -2_500, 1_500, 4_000, 2_000, 10_000])
            let sum = all.map(\.net).reduce(0, +)
            #expect(sum == (try await world.euros()), "the balance transactions sum to the ledger's balance")
            #expect(try await gateway.balances(merchant).first { $0.0.code == "eur" }?.1 == sum)
            // Each names its source, which names it back.
            let charge = try await gateway.charge(first.id.charge(1), merchant: merchant)
            let chargeJSON = try parsed(GatewayObjects.charge(charge.charge, of: charge.intent))
            #expect(chargeJSON["balance_transaction"] as? String == all.last?.id.rawValue && all.last?.source == first.id.charge(1).rawValue)
            // Of one type, paged both ways.
            let refunds = try await gateway.balanceTransactions(merchant: merchant, page: ListRequest(limit: 1), type: .refund, source: nil)
            #expect(refunds.records.map(\.amount) == [-2_000] && refunds.hasMore)
            let older = try await gateway.balanceTransactions(merchant: merchant, page: ListRequest(limit: 5, startingAfter: refunds.records[0].id.rawValue), type: .refund, source: nil)
            #expect(older.records.map(\.amount) == [-2_500] && !older.hasMore)
            let newer = try await gateway.balanceTransactions(merchant: merchant, page: ListRequest(limit: 5, endingBefore: older.records[0].id.rawValue), type: .refund, source: nil)
            #expect(newer.records.map(\.amount) == [-2_000] && !newer.hasMore)
            let ofCharge = try await gateway.balanceTransactions(merchant: merchant, page: ListRequest(), type: nil, source: second.id.charge(1).rawValue)
            #expect(ofCharge.records.map(\.amount) == [2_000])
        }
    }
}

@Suite("expand[] in the gateway's core")
struct ExpansionCoreTests {
    @Test func idsReplacedByTheirObjects() async throws {
        try await CoreWorld.with { world in
            let gateway = world.gateway, merchant = world.merchant
            let customer = try await gateway.createCustomer(NewCustomer(email: "e@example.com"), merchant: merchant)
            let paid = try await gateway.createPaymentIntent(
                NewPaymentIntent(amount: 1_000, currency: GatewayCurrency.named("eur")!, paymentMethod: PaymentMethodID("pm_card_visa"), confirm: true,
                                 fields: IntentFields(customer: customer.id)), merchant: merchant, idempotency: nil, base: CoreWorld.base)
            let json = GatewayObjects.paymentIntent(paid, base: CoreWorld.base)
            let expanded = try parsed(try await gateway.expand(json, ["latest_charge.balance_transaction", "customer", "latest_charge.payment_intent"], merchant: merchant, base: CoreWorld.base))
            let charge = try #require(expanded["latest_charge"] as? [String: Any])
            #expect((charge["balance_transaction"] as? [String: Any])?["fee"] as? Int == 40)
            #expect((charge["payment_intent"] as? [String: Any])?["id"] as? String == paid.id.rawValue)
            #expect((expanded["customer"] as? [String: Any])?["email"] as? String == "e@example.com")
            let list = GatewayObjects.list([json, GatewayObjects.paymentIntent(paid, base: CoreWorld.base)], hasMore: false, url: "/v1/payment_intents")
            let listed = try parsed(try await gateway.expand(list, ["data.customer"], merchant: merchant, base: CoreWorld.base))
            #expect((listed["data"] as? [[String: Any]])?.allSatisfy { ($0["customer"] as? [String: Any])?["object"] as? String == "customer" } == true)
            for path in ["amount", "latest_charge.amount", "a.b.c.d.e", "", "customer.", "status"] {
                do {
                    _ = try await gateway.expand(json, [path], merchant: merchant, base: CoreWorld.base)
                    Issue.record("\(path) expanded")
                } catch let failure as GatewayFailure {
                    #expect(failure.parameter == "expand", "\(path)")
                }
            }
            // A field that is null stays null.
            let unpaid = try await gateway.createPaymentIntent(NewPaymentIntent(amount: 1_000, currency: GatewayCurrency.named("eur")!), merchant: merchant, idempotency: nil, base: CoreWorld.base)
            let plain = try parsed(try await gateway.expand(GatewayObjects.paymentIntent(unpaid, base: CoreWorld.base), ["latest_charge", "customer"], merchant: merchant, base: CoreWorld.base))
            #expect(plain["latest_charge"] is NSNull && plain["customer"] is NSNull)
        }
    }
}

@Suite("Setup intents and payments off session in the gateway's core")
struct SetupIntentCoreTests {
    @Test func savedThenChargedOffSession() async throws {
        try await CoreWorld.with { world in
            let gateway = world.gateway, merchant = world.merchant
            let eur = GatewayCurrency.named("eur")!
            let customer = try await gateway.createCustomer(NewCustomer(email: "s@example.com"), merchant: merchant)
            let setup = try await gateway.createSetupIntent(
                NewSetupIntent(customer: customer.id, paymentMethod: PaymentMethodID("pm_card_authenticationRequiredOnSetup"), confirm: true, returnURL: "https://shop.example/"),
                merchant: merchant, base: CoreWorld.base)
            #expect(setup.machine.status == .requiresAction)
            // A wrong client secret is refused; the right one completes it.
            do {
                _ = try await gateway.completeSetupAction(setup.id.rawValue, clientSecret: "nope", succeeded: true, base: CoreWorld.base)
                Issue.record("a wrong secret completed a setup")
            } catch let failure as GatewayFailure {
                #expect(failure.parameter == "client_secret")
            }
            let done = try await gateway.completeSetupAction(setup.id.rawValue, clientSecret: setup.clientSecret, succeeded: true, base: CoreWorld.base)
            let methodID = try #require(done.machine.paymentMethod)
            let method = try await gateway.retrieve(PaymentMethodRecord.self, id: PaymentMethodID(methodID), merchant: merchant)
            #expect(done.machine.status == .succeeded && method.customer == customer.id && method.setUpForLater == .offSession)
            var later = NewPaymentIntent(amount: 2_000, currency: eur, paymentMethod: method.id, confirm: true, fields: IntentFields(customer: customer.id))
            later.offSession = true
            #expect(try await gateway.createPaymentIntent(later, merchant: merchant, idempotency: nil, base: CoreWorld.base).machine.status == .succeeded)
            // The same card never set up: declined off session, authentication required.
            let fresh = try await gateway.createPaymentMethod(NewPaymentMethod(type: .card, cardToken: "tok_authenticationRequiredOnSetup"), merchant: merchant)
            later.paymentMethod = fresh.id
            do {
                _ = try await gateway.createPaymentIntent(later, merchant: merchant, idempotency: nil, base: CoreWorld.base)
                Issue.record("an off-session payment skipped authentication")
            } catch let failure as GatewayFailure {
                #expect(failure.code?.rawValue == "authentication_required" && failure.declineCode == "authentication_required")
                #expect(failure.paymentIntent?.chargeAttempts.last?.failure == .authenticationRequired)
            }
            // setup_future_usage: paid, and saved for its customer.
            var saving = NewPaymentIntent(amount: 1_000, currency: eur, paymentMethod: fresh.id, confirm: true, fields: IntentFields(customer: customer.id))
            saving.setupFutureUsage = .onSession
            let paid = try await gateway.createPaymentIntent(saving, merchant: merchant, idempotency: nil, base: CoreWorld.base)
            #expect(paid.machine.status == .requiresAction, "on session, the issuer's challenge")
            #expect(try await world.euros() == 2_000 - 55)
        }
    }
}

@Suite("Object ids that sort by when they were made")
struct TimeOrderedIDTests {
    @Test func idsSortByTime() {
        let random: @Sendable (Int) -> [UInt8] = { count in (0..<count).map { _ in UInt8.random(in: 0...247) } }
        let times: [Int64] = [0, 1, 61, 62, 3_843, 1_800_000_000, 1_800_000_001, 1_900_000_000]
        let ids = times.map { GatewayIDs.make("pi", random: random, at: $0) }
        #expect(ids == ids.sorted(), "\(ids)")
        #expect(ids.allSatisfy { $0.count == 27 && $0.hasPrefix("pi_") })
        // The same second: the same six leading characters, then random ones.
        let a = GatewayIDs.make("evt", random: random, at: 1_800_000_000), b = GatewayIDs.make("evt", random: random, at: 1_800_000_000)
        #expect(a.prefix(10) == b.prefix(10) && a != b)
        // A balance transaction's id leads with its source's time characters, and is the same every time.
        let source = "ch_" + ids[5].dropFirst(3)
        let txn = GatewayService.balanceTransactionID(source: source).rawValue
        #expect(txn.hasPrefix("txn_" + ids[5].dropFirst(3).prefix(6)) && txn.count == 28 && txn == GatewayService.balanceTransactionID(source: source).rawValue)
        #expect(GatewayService.balanceTransactionID(source: "x").rawValue.count == 28)
    }
}
