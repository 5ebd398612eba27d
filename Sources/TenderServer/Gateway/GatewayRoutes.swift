import Crypto
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import Logging
import StellarBase
import TenderJSON

/// The Stripe-shaped gateway under `/v1`: authentication by secret or publishable key,
/// idempotency keys, payment methods, payment intents, the test pages of 3-D Secure and the
/// banks, and the balance on the ledger.
struct GatewayRoutes: Sendable {
    let service: GatewayService
    /// The bearer token of the admin routes (the contents of `admin.key` in the data directory).
    let adminKey: String
    let logger: Logger
    /// The most a request body may hold.
    static let maxBodyBytes = 256 * 1024
    /// How long an idempotency key's answer is kept.
    static let idempotencyLifetimeSeconds: Int64 = 24 * 60 * 60

    func register(on router: Router<BasicRequestContext>) {
        let base = router.group("v1")
        base.add(middleware: APIErrorMiddleware(shape: StripeErrorShape(), logger: logger))
        let v1 = base.group(context: GatewayRequestContext.self)
        v1.add(middleware: GatewayAuthenticator(service: service, adminKey: adminKey))
        v1.post("admin/merchants") { request, context in try await createMerchant(request, context) }
        v1.get("admin/merchants") { request, context in try await listMerchants(context) }
        v1.post("payment_methods") { request, context in
            try await post(request, context, allowPublishable: true) { merchant, _, form, _ in GatewayObjects.paymentMethod(try await createPaymentMethod(form, merchant)) }
        }
        v1.get("payment_methods/:id") { request, context in
            try await retrieve(request, context, PaymentMethodRecord.self, render: GatewayObjects.paymentMethod)
        }
        v1.get("payment_methods") { request, context in
            let form = try StripeForm(body: request.uri.query ?? "")
            let type = try form.string("type", maxLength: 50)
            let customer = try form.requiredString("customer", maxLength: 255)
            return try await list(request, context, PaymentMethodRecord.self, path: "/v1/payment_methods", known: ["customer", "type"],
                                  narrow: { $0.customer = customer }) { methods in
                methods.filter { type == nil || $0.type.rawValue == type }.map(GatewayObjects.paymentMethod)
            }
        }
        v1.post("payment_methods/:id/attach") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown(["customer"])
                let customer = try form.requiredString("customer", maxLength: 255)
                return GatewayObjects.paymentMethod(try await service.attachPaymentMethod(RecordID(try context.parameters.require("id")), customer: CustomerID(customer), merchant: merchant))
            }
        }
        v1.post("payment_methods/:id/detach") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown([])
                return GatewayObjects.paymentMethod(try await service.detachPaymentMethod(RecordID(try context.parameters.require("id")), merchant: merchant))
            }
        }
        v1.post("customers") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown(["email", "name", "description", "phone", "metadata", "payment_method", "invoice_settings"])
                let new = NewCustomer(
                    email: try form.string("email", maxLength: 512), name: try form.string("name", maxLength: 256),
                    description: try form.string("description", maxLength: 1000), phone: try form.string("phone", maxLength: 100),
                    metadata: try form.setMetadata(), paymentMethod: try form.string("payment_method", maxLength: 255).map { PaymentMethodID($0) })
                let settings = try Self.invoiceSettings(form)
                var customer = try await service.createCustomer(new, merchant: merchant)
                if let settings {
                    customer = try await service.updateCustomer(customer.id, CustomerChanges(defaultPaymentMethod: settings), merchant: merchant)
                }
                return GatewayObjects.customer(customer)
            }
        }
        v1.get("customers") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            let page = try listRequest(form, known: ["email"])
            let (customers, hasMore) = try await service.customers(merchant: merchant, page: page, email: try form.string("email", maxLength: 512))
            return json(try await expanded(GatewayObjects.list(customers.map(GatewayObjects.customer), hasMore: hasMore, url: "/v1/customers"), form, merchant, request))
        }
        v1.get("customers/:id") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            try form.refuseUnknown([])
            switch try await service.customer(CustomerID(try context.parameters.require("id")), merchant: merchant) {
            case .live(let customer): return json(try await expanded(GatewayObjects.customer(customer), form, merchant, request))
            case .deleted(let id): return json(GatewayObjects.deleted(id.rawValue, object: "customer"))
            }
        }
        v1.post("customers/:id") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown(["email", "name", "description", "phone", "metadata", "invoice_settings"])
                let changes = CustomerChanges(
                    email: try form.string("email", maxLength: 512), name: try form.string("name", maxLength: 256),
                    description: try form.string("description", maxLength: 1000), phone: try form.string("phone", maxLength: 100),
                    metadata: try form.metadata(), defaultPaymentMethod: try Self.invoiceSettings(form))
                return GatewayObjects.customer(try await service.updateCustomer(CustomerID(try context.parameters.require("id")), changes, merchant: merchant))
            }
        }
        v1.delete("customers/:id") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let id = CustomerID(try context.parameters.require("id"))
            try await service.deleteCustomer(id, merchant: merchant)
            return json(GatewayObjects.deleted(id.rawValue, object: "customer"))
        }
        v1.get("customers/:id/payment_methods") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            let page = try listRequest(form, known: ["type"])
            var type: PaymentMethodType?
            if let name = try form.string("type", maxLength: 50) {
                guard let known = PaymentMethodType(rawValue: name) else { throw StripeError.invalid("type", "Invalid type: must be one of card, ideal or bancontact.") }
                type = known
            }
            let id = try context.parameters.require("id")
            let (methods, hasMore) = try await service.paymentMethods(of: CustomerID(id), type: type, merchant: merchant, page: page)
            return json(try await expanded(GatewayObjects.list(methods.map(GatewayObjects.paymentMethod), hasMore: hasMore, url: "/v1/customers/\(id)/payment_methods"), form, merchant, request))
        }
        v1.post("refunds") { request, context in
            try await post(request, context) { merchant, _, form, idempotency in
                try form.refuseUnknown(["payment_intent", "charge", "amount", "reason", "metadata"])
                let new = NewRefund(
                    paymentIntent: try form.string("payment_intent", maxLength: 255).map { PaymentIntentID($0) },
                    charge: try form.string("charge", maxLength: 255).map { ChargeID($0) }, amount: try form.integer("amount"),
                    reason: try form.string("reason", maxLength: 50), metadata: try form.setMetadata())
                return GatewayObjects.refund(try await service.createRefund(new, merchant: merchant, idempotency: idempotency))
            }
        }
        v1.get("charges/:id") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            try form.refuseUnknown([])
            let found = try await service.charge(ChargeID(try context.parameters.require("id")), merchant: merchant)
            return json(try await expanded(GatewayObjects.charge(found.charge, of: found.intent), form, merchant, request))
        }
        v1.get("charges") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            let page = try listRequest(form, known: ["payment_intent"])
            let intent = try form.string("payment_intent", maxLength: 255).map { PaymentIntentID($0) }
            let (charges, hasMore) = try await service.charges(merchant: merchant, page: page, paymentIntent: intent)
            return json(try await expanded(GatewayObjects.list(charges.map { GatewayObjects.charge($0.charge, of: $0.intent) }, hasMore: hasMore, url: "/v1/charges"), form, merchant, request))
        }
        v1.get("refunds/:id") { request, context in
            try await retrieve(request, context, RefundRecord.self, render: GatewayObjects.refund)
        }
        v1.get("refunds") { request, context in
            // Stripe's filters: the refunds of one payment intent, or of one charge (its intent's).
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            let page = try listRequest(form, known: ["payment_intent", "charge"])
            var intent = try form.string("payment_intent", maxLength: 255).map { PaymentIntentID($0) }
            if let charge = try form.string("charge", maxLength: 255) {
                guard let attempt = ChargeID(charge).attempt, intent == nil || intent == attempt.paymentIntent else {
                    throw StripeError.invalid("charge", "No such charge: '\(charge.prefix(100))'", code: "resource_missing")
                }
                intent = attempt.paymentIntent
            }
            let (records, hasMore) = if let intent {
                try await service.list(RefundRecord.self, merchant: merchant, page) { $0.paymentIntent == intent }
            } else {
                try await service.list(RefundRecord.self, merchant: merchant, page)
            }
            return json(try await expanded(GatewayObjects.list(records.map(GatewayObjects.refund), hasMore: hasMore, url: "/v1/refunds"), form, merchant, request))
        }
        v1.post("payment_intents") { request, context in
            try await post(request, context) { merchant, _, form, idempotency in
                intentJSON(try await service.createPaymentIntent(try Self.newPaymentIntent(form), merchant: merchant, idempotency: idempotency, base: request.baseURL), request)
            }
        }
        v1.post("payouts") { request, context in
            try await post(request, context) { merchant, _, form, idempotency in
                try form.refuseUnknown(["amount", "currency", "destination", "metadata", "description"])
                guard let amount = try form.integer("amount") else { throw StripeError.missing("amount") }
                let code = try form.requiredString("currency", maxLength: 10)
                guard let currency = GatewayCurrency.named(code) else { throw StripeError.invalid("currency", "Invalid currency: \(code.prefix(10)).") }
                let new = NewPayout(
                    amount: amount, currency: currency, destination: try form.requiredString("destination", maxLength: 100), metadata: try form.setMetadata(),
                    description: try form.string("description", maxLength: 1000))
                return GatewayObjects.payout(try await service.createPayout(new, merchant: merchant, idempotency: idempotency))
            }
        }
        v1.get("payouts/:id") { request, context in
            try await retrieve(request, context, PayoutRecord.self, render: GatewayObjects.payout)
        }
        v1.get("payouts") { request, context in
            try await list(request, context, PayoutRecord.self, path: "/v1/payouts") { $0.map(GatewayObjects.payout) }
        }
        v1.post("webhook_endpoints") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown(["url", "enabled_events", "description", "metadata"])
                let url = try form.requiredString("url", maxLength: 2048)
                guard let events = try form.stringList("enabled_events") else { throw StripeError.missing("enabled_events") }
                let made = try await service.createWebhookEndpoint(
                    url: url, events: events, description: try form.string("description", maxLength: 5000), metadata: try form.setMetadata(), merchant: merchant)
                return GatewayObjects.webhookEndpoint(made.endpoint, secret: made.secret)
            }
        }
        v1.get("webhook_endpoints") { request, context in
            try await list(request, context, WebhookEndpointRecord.self, path: "/v1/webhook_endpoints") { endpoints in
                endpoints.map { GatewayObjects.webhookEndpoint($0, secret: nil) }
            }
        }
        v1.get("webhook_endpoints/:id") { request, context in
            try await retrieve(request, context, WebhookEndpointRecord.self) { GatewayObjects.webhookEndpoint($0, secret: nil) }
        }
        v1.post("webhook_endpoints/:id") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown(["url", "enabled_events", "disabled", "description", "metadata"])
                let endpoint = try await service.updateWebhookEndpoint(
                    RecordID(try context.parameters.require("id")), url: try form.string("url", maxLength: 2048), events: try form.stringList("enabled_events"),
                    disabled: try form.boolean("disabled"), description: try form.string("description", maxLength: 5000), metadata: try form.metadata(), merchant: merchant)
                return GatewayObjects.webhookEndpoint(endpoint, secret: nil)
            }
        }
        v1.delete("webhook_endpoints/:id") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let id = try context.parameters.require("id")
            try await service.deleteWebhookEndpoint(WebhookEndpointID(id), merchant: merchant)
            return json(GatewayObjects.deleted(id, object: "webhook_endpoint"))
        }
        v1.get("events") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            let page = try listRequest(form, known: [])
            let (events, hasMore) = try await service.events(merchant: merchant, page)
            return json(GatewayObjects.list(events, hasMore: hasMore, url: "/v1/events"))
        }
        v1.get("events/:id/deliveries") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            try StripeForm(body: request.uri.query ?? "").refuseUnknown([])
            let id = try context.parameters.require("id")
            let deliveries = try await service.deliveries(ofEvent: id, merchant: merchant)
            return json(GatewayObjects.list(deliveries.map(GatewayObjects.delivery), hasMore: false, url: "/v1/events/\(id)/deliveries"))
        }
        v1.get("webhook_endpoints/:id/deliveries") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            try form.refuseUnknown(["limit"])
            let limit = try form.integer("limit") ?? 10
            guard (1...100).contains(limit) else { throw StripeError.invalid("limit", "This value must be between 1 and 100 (it currently is \(limit)).") }
            let id = try context.parameters.require("id")
            let deliveries = try await service.deliveries(ofEndpoint: WebhookEndpointID(id), merchant: merchant, limit: Int(limit))
            return json(GatewayObjects.list(deliveries.map(GatewayObjects.delivery), hasMore: false, url: "/v1/webhook_endpoints/\(id)/deliveries"))
        }
        v1.get("events/:id") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            return json(try await service.event(try context.parameters.require("id"), merchant: merchant))
        }
        v1.get("payment_intents") { request, context in
            try await list(request, context, PaymentIntentRecord.self, path: "/v1/payment_intents") { intents in
                intents.map { intentJSON($0, request) }
            }
        }
        v1.get("payment_intents/:id") { request, context in
            let (merchant, kind) = try context.merchant(allowPublishable: true)
            let form = try StripeForm(body: request.uri.query ?? "")
            try form.refuseUnknown(["client_secret"])
            let intent = try await service.retrieve(PaymentIntentRecord.self, id: RecordID(try context.parameters.require("id")), merchant: merchant)
            if kind == .publishable { try GatewayService.checkClientSecret(try form.string("client_secret", maxLength: 255), of: intent) }
            return json(try await expanded(intentJSON(intent, request), form, merchant, request, key: kind))
        }
        v1.post("payment_intents/:id") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown(["amount", "payment_method", "customer", "description", "statement_descriptor", "metadata", "return_url"])
                let intent = try await service.updatePaymentIntent(
                    RecordID(try context.parameters.require("id")), amount: try form.integer("amount"), paymentMethod: try form.string("payment_method", maxLength: 255).map { PaymentMethodID($0) },
                    fields: try Self.intentFields(form), merchant: merchant)
                return intentJSON(intent, request)
            }
        }
        v1.post("payment_intents/:id/confirm") { request, context in
            try await post(request, context, allowPublishable: true) { merchant, kind, form, _ in
                try form.refuseUnknown(["payment_method", "payment_method_data", "return_url", "client_secret", "setup_future_usage", "off_session"])
                var confirmation = try Self.confirmation(form)
                confirmation.setupFutureUsage = try Self.futureUsage(form)
                confirmation.offSession = try Self.offSession(form)
                return intentJSON(try await service.confirmPaymentIntent(RecordID(try context.parameters.require("id")), confirmation, merchant: merchant, key: kind, base: request.baseURL), request)
            }
        }
        v1.post("payment_intents/:id/capture") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown(["amount_to_capture", "metadata", "statement_descriptor"])
                let intent = try await service.capturePaymentIntent(
                    RecordID(try context.parameters.require("id")), amount: try form.integer("amount_to_capture"), metadata: try form.metadata(), merchant: merchant, base: request.baseURL)
                return intentJSON(intent, request)
            }
        }
        v1.post("payment_intents/:id/cancel") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown(["cancellation_reason"])
                var reason: CancellationReason?
                if let name = try form.string("cancellation_reason", maxLength: 50) {
                    guard let parsed = CancellationReason(rawValue: name), parsed != .abandoned, parsed != .automatic else {
                        throw StripeError.invalid("cancellation_reason", "Invalid cancellation_reason: must be duplicate, fraudulent or requested_by_customer.")
                    }
                    reason = parsed
                }
                return intentJSON(try await service.cancelPaymentIntent(RecordID(try context.parameters.require("id")), reason: reason, merchant: merchant, base: request.baseURL), request)
            }
        }
        v1.post("setup_intents") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown(["customer", "payment_method", "payment_method_data", "payment_method_types", "usage", "confirm", "return_url", "description", "metadata"])
                if let types = try form.stringList("payment_method_types"), types != ["card"] {
                    throw StripeError.invalid("payment_method_types", "Tender's setup intents set up cards: payment_method_types is [card].")
                }
                let new = NewSetupIntent(
                    customer: try form.string("customer", maxLength: 255).map { CustomerID($0) },
                    paymentMethod: try form.string("payment_method", maxLength: 255).map { PaymentMethodID($0) }, paymentMethodData: try Self.paymentMethodData(form),
                    usage: try Self.futureUsage(form, "usage") ?? .offSession, confirm: try form.boolean("confirm") == true,
                    returnURL: try form.string("return_url", maxLength: 2048), description: try form.string("description", maxLength: 1000), metadata: try form.setMetadata())
                return GatewayObjects.setupIntent(try await service.createSetupIntent(new, merchant: merchant, base: request.baseURL), base: request.baseURL)
            }
        }
        v1.get("setup_intents") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            var page = try listRequest(form, known: ["customer"])
            page.customer = try form.string("customer", maxLength: 255)
            let (intents, hasMore) = try await service.list(SetupIntentRecord.self, merchant: merchant, page)
            return json(try await expanded(GatewayObjects.list(intents.map { GatewayObjects.setupIntent($0, base: request.baseURL) }, hasMore: hasMore, url: "/v1/setup_intents"), form, merchant, request))
        }
        v1.get("setup_intents/:id") { request, context in
            let (merchant, kind) = try context.merchant(allowPublishable: true)
            let form = try StripeForm(body: request.uri.query ?? "")
            try form.refuseUnknown(["client_secret"])
            let intent = try await service.retrieve(SetupIntentRecord.self, id: RecordID(try context.parameters.require("id")), merchant: merchant)
            if kind == .publishable { try GatewayService.checkClientSecret(try form.string("client_secret", maxLength: 255), of: intent) }
            return json(try await expanded(GatewayObjects.setupIntent(intent, base: request.baseURL), form, merchant, request, key: kind))
        }
        v1.post("setup_intents/:id/confirm") { request, context in
            try await post(request, context, allowPublishable: true) { merchant, kind, form, _ in
                try form.refuseUnknown(["payment_method", "payment_method_data", "return_url", "client_secret"])
                let intent = try await service.confirmSetupIntent(RecordID(try context.parameters.require("id")), try Self.confirmation(form), merchant: merchant, key: kind, base: request.baseURL)
                return GatewayObjects.setupIntent(intent, base: request.baseURL)
            }
        }
        v1.post("setup_intents/:id/cancel") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown(["cancellation_reason"])
                var reason: CancellationReason?
                if let name = try form.string("cancellation_reason", maxLength: 50) {
                    guard let parsed = CancellationReason(rawValue: name), parsed != .automatic else {
                        throw StripeError.invalid("cancellation_reason", "Invalid cancellation_reason: must be abandoned, duplicate or requested_by_customer.")
                    }
                    reason = parsed
                }
                let intent = try await service.cancelSetupIntent(RecordID(try context.parameters.require("id")), reason: reason, merchant: merchant, base: request.baseURL)
                return GatewayObjects.setupIntent(intent, base: request.baseURL)
            }
        }
        v1.post("checkout/sessions") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                sessionJSON(try await service.createCheckoutSession(try Self.newCheckoutSession(form), merchant: merchant, base: request.baseURL), request)
            }
        }
        v1.get("checkout/sessions") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            let page = try listRequest(form, known: ["customer", "payment_intent"])
            let (views, hasMore) = try await service.checkoutSessions(
                merchant: merchant, page: page, customer: try form.string("customer", maxLength: 255).map { CustomerID($0) },
                paymentIntent: try form.string("payment_intent", maxLength: 255).map { PaymentIntentID($0) })
            return json(try await expanded(GatewayObjects.list(views.map { sessionJSON($0, request) }, hasMore: hasMore, url: "/v1/checkout/sessions"), form, merchant, request))
        }
        v1.get("checkout/sessions/:id") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            try form.refuseUnknown([])
            let view = try await service.checkoutSession(CheckoutSessionID(try context.parameters.require("id")), merchant: merchant)
            return json(try await expanded(sessionJSON(view, request), form, merchant, request))
        }
        v1.post("checkout/sessions/:id/expire") { request, context in
            try await post(request, context) { merchant, _, form, _ in
                try form.refuseUnknown([])
                return sessionJSON(try await service.expireCheckoutSession(CheckoutSessionID(try context.parameters.require("id")), merchant: merchant, base: request.baseURL), request)
            }
        }
        v1.get("checkout/sessions/:id/line_items") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            let page = try listRequest(form, known: [])
            let id = try context.parameters.require("id")
            let session = try await service.checkoutSession(CheckoutSessionID(id), merchant: merchant).session
            let items = session.lineItems.enumerated().map { GatewayObjects.lineItem($0.element, index: $0.offset, of: session) }
            // In the session's order; the cursors are the items' own ids.
            func index(_ cursor: String?) -> Int? { cursor.flatMap { cursor in session.lineItems.indices.first { GatewayObjects.lineItemID(session, index: $0) == cursor } } }
            var window = Array(items.indices)
            if let after = index(page.startingAfter) { window = Array(window.drop { $0 <= after }) }
            if let before = index(page.endingBefore) { window = Array(window.prefix { $0 < before }.suffix(page.limit)) }
            let shown = window.prefix(page.limit)
            return json(GatewayObjects.list(shown.map { items[$0] }, hasMore: window.count > shown.count, url: "/v1/checkout/sessions/\(id)/line_items"))
        }
        v1.get("balance") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let balances = try await service.balances(merchant)
            return json(.object([
                ("object", "balance"), ("livemode", false),
                ("available", .array(balances.map { currency, amount in
                    .object([("amount", .number(amount)), ("currency", .string(currency.code)), ("source_types", .object([("card", .number(amount))]))])
                })),
                ("pending", .array(balances.map { currency, _ in
                    .object([("amount", 0), ("currency", .string(currency.code)), ("source_types", .object([("card", 0)]))])
                })),
                ("connect_reserved", .null), ("instant_available", .null), ("issuing", .null), ("refund_and_dispute_prefunding", .null),
            ]))
        }
        v1.get("balance_transactions/:id") { request, context in
            try await retrieve(request, context, BalanceTransactionRecord.self, render: GatewayObjects.balanceTransaction)
        }
        v1.get("balance_transactions") { request, context in
            let merchant = try context.merchant(allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            let page = try listRequest(form, known: ["type", "source", "payout"])
            var type: BalanceTransactionRecord.Kind?
            if let name = try form.string("type", maxLength: 50) {
                guard let known = BalanceTransactionRecord.Kind(rawValue: name) else {
                    throw StripeError.invalid("type", "Invalid type: must be one of \(BalanceTransactionRecord.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                type = known
            }
            // A payout's own transaction: Tender's payouts are made by request, so a payout
            // explains no other transaction (Stripe's `payout=` lists those an automatic one paid out).
            let source = try form.string("source", maxLength: 255) ?? form.string("payout", maxLength: 255)
            let (records, hasMore) = try await service.balanceTransactions(merchant: merchant, page: page, type: type, source: source)
            return json(try await expanded(GatewayObjects.list(records.map(GatewayObjects.balanceTransaction), hasMore: hasMore, url: "/v1/balance_transactions"), form, merchant, request))
        }
        let page = PaymentPage(service: service, routes: self)
        v1.post("payment_links") { request, context in
            try await post(request, context) { merchant, _, form, _ in try await page.createLink(form, merchant, base: request.baseURL) }
        }
        v1.get("payment_links/:id") { request, context in
            try await retrieve(request, context, PaymentLinkRecord.self) { PaymentPage.linkJSON($0, base: request.baseURL) }
        }
        GatewayTestPages(service: service, routes: self).register(on: v1)
    }

    // MARK: Plumbing

    /// `GET .../{id}`: one of the merchant's records (a secret key only).
    func retrieve<Record: StoredRecord>(_ request: Request, _ context: GatewayRequestContext, _ type: Record.Type, render: (Record) -> JSONValue) async throws -> Response {
        let merchant = try context.merchant(allowPublishable: false).0
        // A retrieve takes no parameters but `expand`: an unknown one is refused, as a list's are.
        let form = try StripeForm(body: request.uri.query ?? "")
        try form.refuseUnknown([])
        let record = try await service.retrieve(type, id: RecordID(try context.parameters.require("id")), merchant: merchant)
        return json(try await expanded(render(record), form, merchant, request))
    }

    /// `GET` of a list: a page of the merchant's records of a type, newest first (a secret
    /// key only). `narrow` reads the route's own parameters (listed in `known`) into the page.
    func list<Record: StoredRecord>(
        _ request: Request, _ context: GatewayRequestContext, _ type: Record.Type, path: String, known: Set<String> = [],
        narrow: (inout ListRequest) throws -> Void = { _ in }, render: ([Record]) -> [JSONValue]
    ) async throws -> Response {
        let merchant = try context.merchant(allowPublishable: false).0
        let form = try StripeForm(body: request.uri.query ?? "")
        var page = try listRequest(form, known: known)
        try narrow(&page)
        let (records, hasMore) = try await service.list(type, merchant: merchant, page)
        return json(try await expanded(GatewayObjects.list(render(records), hasMore: hasMore, url: path), form, merchant, request))
    }

    /// `value` with the request's `expand[]` applied (each path checked by the core).
    /// A publishable key expands nothing: what an id names (a customer, a charge) is the secret
    /// key's to read.
    func expanded(_ value: JSONValue, _ form: StripeForm, _ merchant: MerchantRecord, _ request: Request, key: KeyKind = .secret) async throws -> JSONValue {
        guard let paths = try form.stringList("expand"), !paths.isEmpty else { return value }
        guard key == .secret else { throw StripeError.invalid("expand", "Expanding objects needs a secret key.") }
        return try await service.expand(value, paths, merchant: merchant, base: request.baseURL)
    }

    func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: value.compactBytes())))
    }

    func sessionJSON(_ view: CheckoutSessionView, _ request: Request) -> JSONValue {
        GatewayObjects.checkoutSession(view.session, intent: view.intent, now: service.now(), base: request.baseURL)
    }

    func intentJSON(_ intent: PaymentIntentRecord, _ request: Request) -> JSONValue {
        GatewayObjects.paymentIntent(intent, base: request.baseURL)
    }

    /// A key as Stripe shows a wrong one: its prefix and last four characters.
    static func redacted(_ key: String) -> String {
        guard key.count > 12 else { return String(repeating: "*", count: min(key.count, 12)) }
        return String(key.prefix(8)) + String(repeating: "*", count: 8) + String(key.suffix(4))
    }

    /// A POST: authenticates, parses the form, and runs `body` once per idempotency key (the
    /// first answer, errors included, is replayed for 24 hours).
    func post(
        _ request: Request, _ context: GatewayRequestContext, allowPublishable: Bool = false,
        _ body: @Sendable (MerchantRecord, KeyKind, StripeForm, Idempotency?) async throws -> JSONValue
    ) async throws -> Response {
        let (merchant, kind) = try context.merchant(allowPublishable: allowPublishable)
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maxBodyBytes)
        let text = String(decoding: buffer.readableBytesView, as: UTF8.self)
        let form = try StripeForm(body: text)
        // `expand` is checked before anything is done; once done (money may have moved), the
        // answer is the object, expanded as far as it could be.
        if try form.stringList("expand")?.isEmpty == false, kind != .secret { throw StripeError.invalid("expand", "Expanding objects needs a secret key.") }
        try GatewayService.checkExpansionPaths(try form.stringList("expand") ?? [])
        func answered(_ value: JSONValue) async -> JSONValue { (try? await expanded(value, form, merchant, request, key: kind)) ?? value }
        guard let key = request.headers[HTTPFields.headerName("Idempotency-Key")] else {
            return json(await answered(try await body(merchant, kind, form, nil)))
        }
        let requestHash = Array(SHA256.hash(data: Array("\(request.method.rawValue) \(request.uri.path)\n\(text)".utf8)))
        let idempotency: Idempotency
        switch try await service.claimIdempotencyKey(key, merchant: merchant, requestHash: requestHash) {
        case .replay(let status, let stored):
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[HTTPFields.headerName("Idempotent-Replayed")] = "true"
            return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: stored)))
        case .run(let claimed):
            idempotency = claimed
        }
        let status: HTTPResponse.Status
        let answer: JSONValue
        do {
            answer = await answered(try await body(merchant, kind, form, idempotency))
            status = .ok
        } catch let failure as GatewayFailure where idempotency.resumed && failure.code?.rawValue == PaymentIntentStateError.Code.unexpectedState.rawValue && failure.paymentIntent != nil {
            // The interrupted request had already moved the intent past this step: its answer
            // is the intent as it is now.
            answer = intentJSON(failure.paymentIntent!, request)
            status = .ok
        } catch let failure as GatewayFailure where failure.category != .internal {
            let error = StripeError(failure, base: request.baseURL)
            answer = error.json
            status = error.status
        } catch let error as StripeError where error.status.code < 500 {
            answer = error.json
            status = error.status
        } catch {
            // Not executed to an answer worth keeping (the store failed, say, after the ledger
            // settled the payment): the key is left interrupted, as a stop leaves it, so a retry
            // runs again under its first claim and finds what this one made instead of paying again.
            await service.interruptIdempotencyKey(idempotency)
            throw error
        }
        try await service.recordIdempotentAnswer(idempotency, status: status.code, body: answer.compactBytes())
        return json(answer, status: status)
    }

    func listRequest(_ form: StripeForm, known: Set<String>) throws -> ListRequest {
        try form.refuseUnknown(known.union(["limit", "starting_after", "ending_before"]))
        var page = ListRequest()
        if let limit = try form.integer("limit") {
            guard (1...100).contains(limit) else { throw StripeError.invalid("limit", "This value must be between 1 and 100 (it currently is \(limit)).") }
            page.limit = Int(limit)
        }
        page.startingAfter = try form.string("starting_after", maxLength: 255)
        page.endingBefore = try form.string("ending_before", maxLength: 255)
        if page.startingAfter != nil, page.endingBefore != nil {
            throw StripeError.invalid("ending_before", "You may only specify one of these parameters: ending_before, starting_after.")
        }
        return page
    }

    // MARK: Merchants

    /// Whether a request presents the admin key (for the checkout's admin route, outside `/v1`).
    func isAdmin(_ request: Request) -> Bool {
        GatewayAuthenticator.presentsAdminKey(request.headers[.authorization], adminKey: adminKey)
    }

    func createMerchant(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try context.requireAdmin()
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maxBodyBytes)
        let form = try StripeForm(body: String(decoding: buffer.readableBytesView, as: UTF8.self))
        try form.refuseUnknown(["name"])
        let name = try form.requiredString("name", maxLength: 200)
        let merchant = try await service.createMerchant(name: name)
        return json(.object([
            ("id", .string(merchant.record.id)), ("object", "merchant"), ("name", .string(name)),
            ("secret_key", .string(merchant.secretKey)), ("publishable_key", .string(merchant.publishableKey)),
            ("settlement_account", .string(merchant.record.settlementAccount)), ("created", .number(merchant.record.created)),
        ]))
    }

    func listMerchants(_ context: GatewayRequestContext) async throws -> Response {
        try context.requireAdmin()
        let merchants = try await service.merchants()
        return json(GatewayObjects.list(merchants.map { merchant in
            .object([
                ("id", .string(merchant.id)), ("object", "merchant"), ("name", .string(merchant.name)),
                ("settlement_account", .string(merchant.settlementAccount)), ("created", .number(merchant.created)),
            ])
        }, hasMore: false, url: "/v1/admin/merchants"))
    }

    // MARK: Payment methods

    /// `POST /v1/payment_methods`: the form read into a ``NewPaymentMethod``.
    func createPaymentMethod(_ form: StripeForm, _ merchant: MerchantRecord) async throws -> PaymentMethodRecord {
        try form.refuseUnknown(["type", "card", "ideal", "bancontact", "metadata", "billing_details"])
        return try await service.createPaymentMethod(try Self.newPaymentMethod(form), merchant: merchant)
    }

    /// A payment method's parameters (of `POST /v1/payment_methods`, or inside
    /// `payment_method_data`): its type, the card (details or a test token), the iDEAL bank,
    /// `billing_details` and metadata; a parameter inside a hash named as Stripe names it.
    static func newPaymentMethod(_ form: StripeForm) throws -> NewPaymentMethod {
        let typeName = try form.requiredString("type", maxLength: 50)
        guard let type = PaymentMethodType(rawValue: typeName) else {
            throw StripeError.invalid("type", "Invalid type: must be one of card, ideal or bancontact.")
        }
        var new = NewPaymentMethod(type: type, metadata: try form.setMetadata())
        new.billing = try nested("billing_details", in: form) { try billingDetails($0) }
        switch type {
        case .card:
            guard let card = try form.hash("card") else { throw StripeError.missing("card") }
            try nested("card", in: form) { _ in
                try card.refuseUnknown(["number", "exp_month", "exp_year", "cvc", "token"])
                if let token = try card.string("token", maxLength: 255) {
                    new.cardToken = token
                    for name in ["number", "exp_month", "exp_year", "cvc"] where try card.string(name) != nil {
                        throw StripeError.invalid(name, "Give either a card's details or a token, not both.")
                    }
                } else {
                    new.card = CardDetails(
                        number: try card.requiredString("number", maxLength: 64), expMonth: try card.requiredString("exp_month", maxLength: 20),
                        expYear: try card.requiredString("exp_year", maxLength: 20), cvc: try card.string("cvc", maxLength: 20))
                }
            }
        case .ideal:
            if let ideal = try form.hash("ideal") {
                try nested("ideal", in: form) { _ in
                    try ideal.refuseUnknown(["bank"])
                    new.bank = try ideal.string("bank", maxLength: 50)
                }
            }
        case .bancontact:
            break
        }
        return new
    }

    /// Runs `body` on the hash `name` of `form` (nil when absent), naming a parameter it refuses
    /// inside that hash (`card[number]`).
    @discardableResult
    static func nested<T>(_ name: String, in form: StripeForm, _ body: (StripeForm) throws -> T) throws -> T? {
        guard let hash = try form.hash(name) else { return nil }
        do {
            return try body(hash)
        } catch var error as StripeError {
            if let parameter = error.parameter, parameter != name, !parameter.hasPrefix(name + "[") {
                let head = parameter.prefix { $0 != "[" }
                error.parameter = "\(name)[\(head)]" + parameter.dropFirst(head.count)
            }
            throw error
        }
    }

    /// Stripe's `billing_details`: name, email, phone and address, each optional.
    static func billingDetails(_ form: StripeForm) throws -> BillingDetails {
        try form.refuseUnknown(["name", "email", "phone", "address"])
        var billing = BillingDetails(
            name: try form.string("name", maxLength: 500), email: try form.string("email", maxLength: 800), phone: try form.string("phone", maxLength: 100))
        billing.address = try nested("address", in: form) { address in
            try address.refuseUnknown(["city", "country", "line1", "line2", "postal_code", "state"])
            return BillingDetails.Address(
                city: try address.string("city", maxLength: 200), country: try address.string("country", maxLength: 2),
                line1: try address.string("line1", maxLength: 500), line2: try address.string("line2", maxLength: 500),
                postalCode: try address.string("postal_code", maxLength: 20), state: try address.string("state", maxLength: 200))
        }
        return billing
    }

    /// `invoice_settings[default_payment_method]` of a customer's create or update, if given.
    static func invoiceSettings(_ form: StripeForm) throws -> PaymentMethodID? {
        try nested("invoice_settings", in: form) { settings in
            try settings.refuseUnknown(["default_payment_method"])
            return try settings.string("default_payment_method", maxLength: 255).map { PaymentMethodID($0) }
        } ?? nil
    }

    /// `payment_method_data` of a create or confirm, if given.
    static func paymentMethodData(_ form: StripeForm) throws -> NewPaymentMethod? {
        try nested("payment_method_data", in: form) { try newPaymentMethod($0) }
    }

    // MARK: Payment intents

    static let intentParameters: Set<String> = [
        "amount", "currency", "payment_method_types", "payment_method", "payment_method_data", "customer", "capture_method", "confirm",
        "return_url", "description", "statement_descriptor", "metadata", "setup_future_usage", "off_session",
    ]

    /// A confirmation's common parameters (of a payment or a setup intent).
    static func confirmation(_ form: StripeForm) throws -> IntentConfirmation {
        IntentConfirmation(
            paymentMethod: try form.string("payment_method", maxLength: 255).map { PaymentMethodID($0) }, paymentMethodData: try paymentMethodData(form),
            returnURL: try form.string("return_url", maxLength: 2048), clientSecret: try form.string("client_secret", maxLength: 255))
    }

    /// `POST /v1/checkout/sessions`'s form: mode `payment`, `line_items` with `price_data`
    /// (currency, unit_amount, product_data[name]) and quantity, the URLs, who pays, methods.
    static func newCheckoutSession(_ form: StripeForm) throws -> NewCheckoutSession {
        try form.refuseUnknown([
            "mode", "line_items", "success_url", "cancel_url", "customer", "customer_email", "payment_method_types", "metadata", "client_reference_id", "expires_at",
        ])
        let mode = try form.requiredString("mode", maxLength: 20)
        guard mode == "payment" else { throw StripeError.invalid("mode", "Tender's Checkout Sessions take payments: mode is payment (\(mode.prefix(20)) is not served).") }
        guard let lines = try form.hashes("line_items"), !lines.isEmpty else { throw StripeError.missing("line_items") }
        var items: [SessionLineItem] = []
        var currency: GatewayCurrency?
        for (index, line) in lines.enumerated() {
            do {
                try line.refuseUnknown(["price_data", "quantity"])
                guard let price = try line.hash("price_data") else { throw StripeError.missing("price_data") }
                let (lineCurrency, amount, productName) = try nested("price_data", in: line) { _ in
                    try price.refuseUnknown(["currency", "unit_amount", "product_data"])
                    let code = try price.requiredString("currency", maxLength: 10)
                    guard let lineCurrency = GatewayCurrency.named(code) else { throw StripeError.invalid("currency", "Invalid currency: \(code.prefix(10)).") }
                    guard let amount = try price.integer("unit_amount") else { throw StripeError.missing("unit_amount") }
                    guard let product = try price.hash("product_data") else { throw StripeError.missing("product_data") }
                    let productName = try nested("product_data", in: price) { _ in
                        try product.refuseUnknown(["name", "description"])
                        return try product.requiredString("name", maxLength: 250)
                    } ?? ""
                    return (lineCurrency, amount, productName)
                }!
                guard currency == nil || currency == lineCurrency else { throw StripeError.invalid("price_data[currency]", "Every line item of a session is in one currency.") }
                currency = lineCurrency
                guard let quantity = try line.integer("quantity") else { throw StripeError.missing("quantity") }
                items.append(SessionLineItem(name: productName, unitAmount: amount, quantity: quantity))
            } catch var error as StripeError {
                if let parameter = error.parameter {
                    let head = parameter.prefix { $0 != "[" }
                    error.parameter = "line_items[\(index)][\(head)]" + parameter.dropFirst(head.count)
                }
                throw error
            }
        }
        guard let currency else { throw StripeError.missing("line_items") }
        var types: [PaymentMethodType] = [.card]
        if let names = try form.stringList("payment_method_types") {
            types = try names.map { name in
                guard let type = PaymentMethodType(rawValue: name) else { throw StripeError.invalid("payment_method_types", "Invalid payment method type: \(name.prefix(50)).") }
                return type
            }
            guard !types.isEmpty else { throw StripeError.invalid("payment_method_types", "Give at least one payment method type.") }
        }
        return NewCheckoutSession(
            lineItems: items, currency: currency, successURL: try form.requiredString("success_url", maxLength: 5000), cancelURL: try form.string("cancel_url", maxLength: 5000),
            customer: try form.string("customer", maxLength: 255).map { CustomerID($0) }, customerEmail: try form.string("customer_email", maxLength: 800),
            clientReferenceID: try form.string("client_reference_id", maxLength: 200), paymentMethodTypes: types, metadata: try form.setMetadata(),
            expiresAt: try form.integer("expires_at"))
    }

    /// `setup_future_usage`, if given.
    static func futureUsage(_ form: StripeForm, _ name: String = "setup_future_usage") throws -> FutureUsage? {
        guard let text = try form.string(name, maxLength: 20) else { return nil }
        guard let usage = FutureUsage(rawValue: text) else { throw StripeError.invalid(name, "Invalid \(name): must be on_session or off_session.") }
        return usage
    }

    /// `off_session`: a boolean, or Stripe's `one_off` and `recurring` (both off session).
    static func offSession(_ form: StripeForm) throws -> Bool? {
        guard let text = try form.string("off_session", maxLength: 20) else { return nil }
        switch text {
        case "true", "one_off", "recurring": return true
        case "false": return false
        default: throw StripeError.invalid("off_session", "Invalid off_session: must be true, false, one_off or recurring.")
        }
    }

    /// `POST /v1/payment_intents`'s form read into a ``NewPaymentIntent`` (the rules are the
    /// core's).
    static func newPaymentIntent(_ form: StripeForm) throws -> NewPaymentIntent {
        try form.refuseUnknown(intentParameters)
        guard let amount = try form.integer("amount") else { throw StripeError.missing("amount") }
        let currencyCode = try form.requiredString("currency", maxLength: 10)
        guard let currency = GatewayCurrency.named(currencyCode) else {
            throw StripeError.invalid("currency", "Invalid currency: \(currencyCode.prefix(10)). Tender's test anchor issues eur and usd.")
        }
        var types: [PaymentMethodType] = [.card]
        if let names = try form.stringList("payment_method_types") {
            guard !names.isEmpty, names.count <= 10 else { throw StripeError.invalid("payment_method_types", "Give 1 to 10 payment method types.") }
            types = []
            for name in names {
                guard let type = PaymentMethodType(rawValue: name) else { throw StripeError.invalid("payment_method_types", "Invalid payment method type: \(name.prefix(50)).") }
                if !types.contains(type) { types.append(type) }
            }
        }
        var captureMethod = CaptureMethod.automatic
        if let name = try form.string("capture_method", maxLength: 50) {
            guard let method = CaptureMethod(rawValue: name) else { throw StripeError.invalid("capture_method", "Invalid capture_method: must be automatic or manual.") }
            captureMethod = method
        }
        var new = NewPaymentIntent(
            amount: amount, currency: currency, paymentMethodTypes: types, captureMethod: captureMethod,
            paymentMethod: try form.string("payment_method", maxLength: 255).map { PaymentMethodID($0) }, paymentMethodData: try paymentMethodData(form),
            confirm: try form.boolean("confirm") == true, fields: try intentFields(form))
        new.setupFutureUsage = try futureUsage(form)
        new.offSession = try offSession(form) == true
        return new
    }

    /// The fields any intent create or update may set, as the form gives them.
    static func intentFields(_ form: StripeForm) throws -> IntentFields {
        IntentFields(
            description: try form.string("description", maxLength: 1000), statementDescriptor: try form.string("statement_descriptor", maxLength: 22),
            returnURL: try form.string("return_url", maxLength: 2048), customer: try form.string("customer", maxLength: 255).map { CustomerID($0) }, metadata: try form.metadata())
    }
}
