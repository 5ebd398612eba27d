import Crypto
import Foundation
import Gateway
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
        let v1 = router.group("v1")
        v1.add(middleware: APIErrorMiddleware(shape: StripeErrorShape(), logger: logger))
        v1.post("admin/merchants") { request, _ in try await createMerchant(request) }
        v1.get("admin/merchants") { request, _ in try await listMerchants(request) }
        v1.post("payment_methods") { request, _ in
            try await post(request, allowPublishable: true) { merchant, _, form in try await createPaymentMethod(form, merchant) }
        }
        v1.get("payment_methods/:id") { request, context in
            try await retrieve(request, context, PaymentMethodRecord.self, kind: "payment_method", render: GatewayObjects.paymentMethod)
        }
        v1.get("payment_methods") { request, _ in
            let form = try StripeForm(body: request.uri.query ?? "")
            let type = try form.string("type", maxLength: 50)
            let customer = try form.requiredString("customer", maxLength: 255)
            return try await list(request, PaymentMethodRecord.self, kind: "payment_method", path: "/v1/payment_methods", known: ["customer", "type"],
                                  narrow: { $0.customer = customer }) { methods in
                methods.filter { type == nil || $0.type.rawValue == type }.map(GatewayObjects.paymentMethod)
            }
        }
        v1.post("payment_methods/:id/attach") { request, context in
            try await post(request) { merchant, _, form in try await attachPaymentMethod(try context.parameters.require("id"), form, merchant) }
        }
        v1.post("payment_methods/:id/detach") { request, context in
            try await post(request) { merchant, _, form in try await detachPaymentMethod(try context.parameters.require("id"), form, merchant) }
        }
        v1.post("customers") { request, _ in
            try await post(request) { merchant, _, form in try await createCustomer(form, merchant) }
        }
        v1.get("customers/:id") { request, context in
            try await retrieve(request, context, CustomerRecord.self, kind: "customer", render: GatewayObjects.customer)
        }
        v1.post("refunds") { request, _ in
            try await post(request) { merchant, _, form in try await createRefund(form, merchant) }
        }
        v1.get("refunds/:id") { request, context in
            try await retrieve(request, context, RefundRecord.self, kind: "refund", render: GatewayObjects.refund)
        }
        v1.get("refunds") { request, _ in
            try await list(request, RefundRecord.self, kind: "refund", path: "/v1/refunds") { $0.map(GatewayObjects.refund) }
        }
        v1.post("payment_intents") { request, _ in
            try await post(request) { merchant, _, form in try await createPaymentIntent(form, merchant, request) }
        }
        v1.post("payouts") { request, _ in
            try await post(request) { merchant, _, form in try await createPayout(form, merchant) }
        }
        v1.get("payouts/:id") { request, context in
            try await retrieve(request, context, PayoutRecord.self, kind: "payout", render: GatewayObjects.payout)
        }
        v1.get("payouts") { request, _ in
            try await list(request, PayoutRecord.self, kind: "payout", path: "/v1/payouts") { $0.map(GatewayObjects.payout) }
        }
        v1.post("webhook_endpoints") { request, _ in
            try await post(request) { merchant, _, form in try await createWebhookEndpoint(form, merchant) }
        }
        v1.get("webhook_endpoints") { request, _ in
            try await list(request, WebhookEndpointRecord.self, kind: "webhook_endpoint", path: "/v1/webhook_endpoints") { endpoints in
                endpoints.map { GatewayObjects.webhookEndpoint($0, secret: nil) }
            }
        }
        v1.get("events") { request, _ in
            let merchant = try await authenticate(request, allowPublishable: false).0
            let form = try StripeForm(body: request.uri.query ?? "")
            let page = try listRequest(form, known: [])
            let (objects, hasMore) = try await service.store.list(kind: "event", merchant: merchant.id, page)
            return json(GatewayObjects.list(objects.map(Self.rawJSON), hasMore: hasMore, url: "/v1/events"))
        }
        v1.get("events/:id") { request, context in
            let merchant = try await authenticate(request, allowPublishable: false).0
            let id = try context.parameters.require("id")
            guard id.utf8.count <= 255, let event = try await service.store.object(id: id, kind: "event", merchant: merchant.id) else {
                throw StripeError.notFound("event", id)
            }
            return json(Self.rawJSON(event))
        }
        v1.get("payment_intents") { request, _ in
            try await list(request, PaymentIntentRecord.self, kind: "payment_intent", path: "/v1/payment_intents") { intents in
                intents.map { intentJSON($0, request) }
            }
        }
        v1.get("payment_intents/:id") { request, context in
            let (merchant, kind) = try await authenticate(request, allowPublishable: true)
            let form = try StripeForm(body: request.uri.query ?? "")
            let (intent, _) = try await service.load(PaymentIntentRecord.self, id: try context.parameters.require("id"), kind: "payment_intent", merchant: merchant)
            if kind == .publishable { try checkClientSecret(form, intent) }
            return json(intentJSON(intent, request))
        }
        v1.post("payment_intents/:id") { request, context in
            try await post(request) { merchant, _, form in try await updatePaymentIntent(try context.parameters.require("id"), form, merchant, request) }
        }
        v1.post("payment_intents/:id/confirm") { request, context in
            try await post(request, allowPublishable: true) { merchant, kind, form in
                try await confirmPaymentIntent(try context.parameters.require("id"), form, merchant, kind, request)
            }
        }
        v1.post("payment_intents/:id/capture") { request, context in
            try await post(request) { merchant, _, form in try await capturePaymentIntent(try context.parameters.require("id"), form, merchant, request) }
        }
        v1.post("payment_intents/:id/cancel") { request, context in
            try await post(request) { merchant, _, form in try await cancelPaymentIntent(try context.parameters.require("id"), form, merchant, request) }
        }
        v1.get("balance") { request, _ in
            let merchant = try await authenticate(request, allowPublishable: false).0
            let balances = try await service.balances(merchant)
            return json(.object([
                ("object", "balance"), ("livemode", false),
                ("available", .array(balances.map { currency, amount in
                    .object([("amount", .number(amount)), ("currency", .string(currency.code)), ("source_types", .object([("card", .number(amount))]))])
                })),
                ("pending", .array(balances.map { currency, _ in .object([("amount", 0), ("currency", .string(currency.code))]) })),
            ]))
        }
        let page = PaymentPage(service: service, routes: self)
        v1.post("payment_links") { request, _ in
            try await post(request) { merchant, _, form in try await page.createLink(form, merchant, base: baseURL(request)) }
        }
        v1.get("payment_links/:id") { request, context in
            try await retrieve(request, context, PaymentLinkRecord.self, kind: "payment_link") { PaymentPage.linkJSON($0, base: baseURL(request)) }
        }
        GatewayTestPages(service: service, routes: self).register(on: v1)
    }

    // MARK: Plumbing

    /// `GET .../{id}`: one of the merchant's stored objects (a secret key only).
    func retrieve<Record: Decodable & Sendable>(_ request: Request, _ context: BasicRequestContext, _ type: Record.Type, kind: String, render: (Record) -> JSONValue) async throws -> Response {
        let merchant = try await authenticate(request, allowPublishable: false).0
        let (record, _) = try await service.load(type, id: try context.parameters.require("id"), kind: kind, merchant: merchant)
        return json(render(record))
    }

    /// `GET` of a list: a page of the merchant's stored objects of `kind`, newest first (a secret
    /// key only). `narrow` reads the route's own parameters (listed in `known`) into the page.
    func list<Record: Decodable & Sendable>(
        _ request: Request, _ type: Record.Type, kind: String, path: String, known: Set<String> = [],
        narrow: (inout ListRequest) throws -> Void = { _ in }, render: ([Record]) -> [JSONValue]
    ) async throws -> Response {
        let merchant = try await authenticate(request, allowPublishable: false).0
        var page = try listRequest(try StripeForm(body: request.uri.query ?? ""), known: known)
        try narrow(&page)
        let (objects, hasMore) = try await service.store.list(kind: kind, merchant: merchant.id, page)
        let records = try objects.map { try service.records.decode(type, $0) }
        return json(GatewayObjects.list(render(records), hasMore: hasMore, url: path))
    }

    func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: value.compactBytes())))
    }

    func baseURL(_ request: Request) -> String {
        "http://\(request.head.authority ?? "127.0.0.1")"
    }

    func intentJSON(_ intent: PaymentIntentRecord, _ request: Request) -> JSONValue {
        GatewayObjects.paymentIntent(intent, base: baseURL(request))
    }

    /// The merchant whose key the request presents (Bearer, or basic auth with the key as the
    /// user name), and which key it is.
    /// - Throws: 401 authentication_error for a missing or unknown key; 403 permission_error for
    ///   a publishable key where only a secret one may be used.
    func authenticate(_ request: Request, allowPublishable: Bool) async throws -> (MerchantRecord, KeyKind) {
        guard let header = request.headers[.authorization] else {
            throw StripeError.authentication("You did not provide an API key. Provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').")
        }
        let key: String
        if let token = bearerToken(header) {
            key = token
        } else if header.hasPrefix("Basic "), let decoded = Data(base64Encoded: String(header.dropFirst("Basic ".count))), let text = String(data: decoded, encoding: .utf8) {
            key = String(text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        } else {
            throw StripeError.authentication("Invalid Authorization header: use Bearer auth with your API key.")
        }
        guard key.utf8.count <= 255, let (merchant, kind) = try await service.store.merchant(keyHash: GatewayIDs.hash(key: key)) else {
            throw StripeError.authentication("Invalid API Key provided: \(Self.redacted(key))")
        }
        guard kind == .secret || allowPublishable else {
            throw StripeError.permission("This API call cannot be made with a publishable API key. Please use a secret API key.")
        }
        return (merchant, kind)
    }

    /// A key as Stripe shows a wrong one: its prefix and last four characters.
    static func redacted(_ key: String) -> String {
        guard key.count > 12 else { return String(repeating: "*", count: min(key.count, 12)) }
        return String(key.prefix(8)) + String(repeating: "*", count: 8) + String(key.suffix(4))
    }

    func checkClientSecret(_ form: StripeForm, _ intent: PaymentIntentRecord) throws {
        guard let secret = try form.string("client_secret", maxLength: 255) else { throw StripeError.missing("client_secret") }
        guard Self.constantTimeEqual(secret, intent.clientSecret) else {
            throw StripeError.invalid("client_secret", "The client_secret provided does not match the client_secret associated with the PaymentIntent.")
        }
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// A POST: authenticates, parses the form, and runs `body` once per idempotency key (the
    /// first answer, errors included, is replayed for 24 hours).
    func post(
        _ request: Request, allowPublishable: Bool = false,
        _ body: @Sendable (MerchantRecord, KeyKind, StripeForm) async throws -> JSONValue
    ) async throws -> Response {
        let (merchant, kind) = try await authenticate(request, allowPublishable: allowPublishable)
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maxBodyBytes)
        let text = String(decoding: buffer.readableBytesView, as: UTF8.self)
        guard let key = request.headers[HTTPFields.headerName("Idempotency-Key")] else {
            return json(try await body(merchant, kind, try StripeForm(body: text)))
        }
        guard !key.isEmpty, key.utf8.count <= 255 else {
            throw StripeError(status: .badRequest, kind: .idempotency, code: nil, message: "Idempotency keys are 1 to 255 characters long.")
        }
        let requestHash = Array(SHA256.hash(data: Array("\(request.method.rawValue) \(request.uri.path)\n\(text)".utf8)))
        var scope: IdempotencyScope?
        let now = service.now()
        switch try await service.store.claimIdempotencyKey(key, merchant: merchant.id, requestHash: requestHash, now: now, expiresBefore: now - Self.idempotencyLifetimeSeconds) {
        case .replay(let status, let stored):
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[HTTPFields.headerName("Idempotent-Replayed")] = "true"
            return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: stored)))
        case .mismatch:
            throw StripeError(status: .badRequest, kind: .idempotency, code: nil, message: "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '\(key.prefix(255))' if you meant to execute a different request.")
        case .inProgress:
            throw StripeError(status: .conflict, kind: .idempotency, code: nil, message: "There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): \(key.prefix(255)). Please try again later.")
        case .claimed(let created, let resumed):
            scope = IdempotencyScope(merchant: merchant.id, key: key, created: created, resumed: resumed)
        }
        let status: HTTPResponse.Status
        let answer: JSONValue
        do {
            answer = try await IdempotencyScope.$current.withValue(scope) { try await body(merchant, kind, try StripeForm(body: text)) }
            status = .ok
        } catch let error as StripeError where scope?.resumed == true && error.code == PaymentIntentStateError.Code.unexpectedState.rawValue && error.paymentIntent != nil {
            // The interrupted request had already moved the intent past this step: its answer
            // is the intent as it is now.
            answer = error.paymentIntent!
            status = .ok
        } catch let error as StripeError where error.status.code < 500 {
            answer = error.json
            status = error.status
        } catch {
            // Not executed to an answer worth keeping: free the key so a retry runs again.
            try? await service.store.releaseIdempotencyKey(key, merchant: merchant.id)
            throw error
        }
        try await service.store.recordIdempotentAnswer(key, merchant: merchant.id, status: status.code, body: answer.compactBytes())
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

    func checkAdmin(_ request: Request) throws {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
              Self.constantTimeEqual(String(header.dropFirst("Bearer ".count)), adminKey) else {
            throw StripeError.authentication("The admin routes take the admin key of the data directory (admin.key) as a Bearer token.")
        }
    }

    func createMerchant(_ request: Request) async throws -> Response {
        try checkAdmin(request)
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

    func listMerchants(_ request: Request) async throws -> Response {
        try checkAdmin(request)
        let merchants = try await service.store.merchants()
        return json(GatewayObjects.list(merchants.map { merchant in
            .object([
                ("id", .string(merchant.id)), ("object", "merchant"), ("name", .string(merchant.name)),
                ("settlement_account", .string(merchant.settlementAccount)), ("created", .number(merchant.created)),
            ])
        }, hasMore: false, url: "/v1/admin/merchants"))
    }

    // MARK: Payment methods

    func today() -> YearMonth {
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date(timeIntervalSince1970: TimeInterval(service.now())))
        return YearMonth(year: components.year!, month: components.month!)
    }

    func createPaymentMethod(_ form: StripeForm, _ merchant: MerchantRecord) async throws -> JSONValue {
        try form.refuseUnknown(["type", "card", "ideal", "bancontact", "metadata", "billing_details"])
        let typeName = try form.requiredString("type", maxLength: 50)
        guard let type = PaymentMethodType(rawValue: typeName) else {
            throw StripeError.invalid("type", "Invalid type: must be one of card, ideal or bancontact.")
        }
        let id = GatewayIDs.make("pm", random: service.random)
        var record = PaymentMethodRecord(id: id, type: type, created: service.now())
        record.metadata = try (form.metadata() ?? [:]).compactMapValues { $0 }
        switch type {
        case .card:
            guard let card = try form.hash("card") else { throw StripeError.missing("card") }
            try card.refuseUnknown(["number", "exp_month", "exp_year", "cvc"])
            do {
                let (digits, brand) = try CardRules.checkNumber(try card.requiredString("number", maxLength: 64))
                let month = try StripeForm.integer(try card.requiredString("exp_month", maxLength: 20), name: "exp_month")
                let year = try StripeForm.integer(try card.requiredString("exp_year", maxLength: 20), name: "exp_year")
                let expiry = try CardRules.checkExpiry(month: Int(month), year: Int(year), today: today())
                if let cvc = try card.string("cvc", maxLength: 20) { try CardRules.checkSecurityCode(cvc, brand: brand) }
                record.card = .init(
                    brand: brand, last4: String(digits.suffix(4)), expMonth: expiry.month, expYear: expiry.year, country: "NL",
                    fingerprint: service.secrets.fingerprint(cardDigits: digits), outcome: TestAcquirer.outcome(forCardDigits: digits))
            } catch let error as CardCheckError {
                throw StripeError.card(error)
            } catch var error as StripeError {
                // A parameter inside card[...] is named as Stripe names it.
                if let parameter = error.parameter, !parameter.hasPrefix("card") { error.parameter = "card[\(parameter)]" }
                throw error
            }
        case .ideal:
            if let ideal = try form.hash("ideal") {
                try ideal.refuseUnknown(["bank"])
                record.bank = try ideal.string("bank", maxLength: 50)
            }
        case .bancontact:
            break
        }
        try await service.insert(record, id: id, kind: "payment_method", merchant: merchant)
        return GatewayObjects.paymentMethod(record)
    }

    /// A payment method of `type` without details (iDEAL, Bancontact), for the checkout: its id.
    func createPaymentMethodID(type: String, merchant: MerchantRecord) async throws -> String {
        let json = try await createPaymentMethod(try StripeForm(body: "type=\(type)"), merchant)
        guard case .object(let fields) = json, case .string(let id)? = fields.first(where: { $0.0 == "id" })?.1 else {
            throw GatewayError(code: "payment_method_not_made", message: "no \(type) payment method was made")
        }
        return id
    }

    // MARK: Payment intents

    static let intentParameters: Set<String> = [
        "amount", "currency", "payment_method_types", "payment_method", "customer", "capture_method", "confirm",
        "return_url", "description", "statement_descriptor", "metadata",
    ]

    /// - Parameter feeAtRelease: a marketplace order's payment (the checkout's): settled whole,
    ///   its fee taken when the escrow releases it.
    func createPaymentIntent(_ form: StripeForm, _ merchant: MerchantRecord, _ request: Request, feeAtRelease: Bool = false) async throws -> JSONValue {
        try form.refuseUnknown(Self.intentParameters)
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
        if types.contains(where: \.isBankRedirect), currency.code != "eur" {
            throw StripeError.invalid("currency", "iDEAL and Bancontact take eur only.", code: "payment_intent_invalid_currency")
        }
        let minimum = types.map(\.minimumMinorUnits).min()!
        guard amount >= minimum else {
            throw StripeError.invalid("amount", "Amount must be at least \(minimum) \(currency.code) minor units.", code: "amount_too_small")
        }
        guard amount <= FiatConversion.maxPaymentMinorUnits else {
            throw StripeError.invalid("amount", "Amount must be no more than \(FiatConversion.maxPaymentMinorUnits) minor units.", code: "amount_too_large")
        }
        var captureMethod = CaptureMethod.automatic
        if let name = try form.string("capture_method", maxLength: 50) {
            guard let method = CaptureMethod(rawValue: name) else { throw StripeError.invalid("capture_method", "Invalid capture_method: must be automatic or manual.") }
            captureMethod = method
        }
        if captureMethod == .manual, types.contains(where: \.isBankRedirect) {
            throw StripeError.invalid("capture_method", "iDEAL and Bancontact payments cannot be captured manually.")
        }
        // Under an idempotency key the id comes from the key, so a request retried after the
        // server stopped in the middle of it finds the intent it made instead of making another.
        let id = IdempotencyScope.current.map { service.derivedID("pi", from: $0) } ?? GatewayIDs.make("pi", random: service.random)
        if IdempotencyScope.current?.resumed == true, let existing = try await service.store.object(id: id, kind: "payment_intent", merchant: merchant.id) {
            let intent = try service.records.decode(PaymentIntentRecord.self, existing)
            if try form.boolean("confirm") == true, intent.machine.status == .requiresConfirmation {
                return try await confirmPaymentIntent(id, StripeForm(), merchant, .secret, request)
            }
            return intentJSON(intent, request)
        }
        var intent = PaymentIntentRecord(
            id: id, clientSecret: id + "_secret_" + String(GatewayIDs.make("s", random: service.random).dropFirst(2)),
            currency: currency.code, created: service.now(),
            machine: PaymentIntentStateMachine(amount: amount, captureMethod: captureMethod), paymentMethodTypes: types)
        if feeAtRelease { intent.feeAtRelease = true }
        try applyFields(form, to: &intent)
        var method: PaymentMethodRecord?
        if let methodID = try form.string("payment_method", maxLength: 255) {
            method = try await attach(methodID, to: &intent, merchant)
        }
        // Stored once, with its payment_intent.created event, and when confirmed at once, in the
        // state the confirmation leaves it in (one write instead of two).
        let unsaved = StoredObject(id: id, merchant: merchant.id, kind: "payment_intent", created: service.now(), body: [])
        let created = try await service.event(.paymentIntentCreated, intentJSON(intent, request), merchant: merchant)
        if try form.boolean("confirm") == true {
            let confirmed: (intent: PaymentIntentRecord, action: PaymentIntentStateMachine.Action)
            do {
                confirmed = try await confirmation(of: intent, StripeForm(), merchant, .secret, request, method: method)
            } catch {
                // As before a confirmation: the intent exists even when its confirmation is refused.
                _ = try await service.save(intent, over: unsaved, isNew: true, events: [created])
                throw error
            }
            return try await service.perform(confirmed.action, on: confirmed.intent, over: unsaved, merchant, base: baseURL(request), isNew: true, events: [created])
        }
        _ = try await service.save(intent, over: unsaved, isNew: true, events: [created])
        return intentJSON(intent, request)
    }

    /// The fields any intent update may set: description, statement_descriptor, return_url,
    /// customer, metadata (an empty value deletes a key).
    func applyFields(_ form: StripeForm, to intent: inout PaymentIntentRecord) throws {
        if let description = try form.string("description", maxLength: 1000) { intent.description = description.isEmpty ? nil : description }
        if let descriptor = try form.string("statement_descriptor", maxLength: 22) { intent.statementDescriptor = descriptor.isEmpty ? nil : descriptor }
        if let returnURL = try form.string("return_url", maxLength: 2048) { intent.returnURL = try Self.checkedURL(returnURL) }
        if let customer = try form.string("customer", maxLength: 255) { intent.customer = customer.isEmpty ? nil : customer }
        if let metadata = try form.metadata() {
            for (key, value) in metadata { intent.metadata[key] = value }
            guard intent.metadata.count <= 50 else { throw StripeError.invalid("metadata", "Metadata may have at most 50 keys.") }
        }
    }

    /// A return URL must be an absolute http or https URL.
    static func checkedURL(_ text: String) throws -> String {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw StripeError.invalid("return_url", "return_url must be an absolute http or https URL.")
        }
        return text
    }

    @discardableResult
    func attach(_ methodID: String, to intent: inout PaymentIntentRecord, _ merchant: MerchantRecord) async throws -> PaymentMethodRecord {
        let (method, _) = try await service.load(PaymentMethodRecord.self, id: methodID, kind: "payment_method", merchant: merchant, parameter: "payment_method")
        guard intent.paymentMethodTypes.contains(method.type) else {
            throw StripeError.invalid("payment_method", "The PaymentMethod provided (\(method.type.rawValue)) is not allowed for this PaymentIntent. Allowed: \(intent.paymentMethodTypes.map(\.rawValue).joined(separator: ", ")).", code: "payment_intent_incompatible_payment_method")
        }
        do {
            try intent.machine.attach(paymentMethod: method.id, type: method.type)
        } catch {
            throw StripeError.state(error)
        }
        return method
    }

    func updatePaymentIntent(_ id: String, _ form: StripeForm, _ merchant: MerchantRecord, _ request: Request) async throws -> JSONValue {
        try form.refuseUnknown(["amount", "payment_method", "customer", "description", "statement_descriptor", "metadata", "return_url"])
        var (intent, stored) = try await service.load(PaymentIntentRecord.self, id: id, kind: "payment_intent", merchant: merchant)
        guard intent.machine.isUpdatable else {
            throw StripeError.state(PaymentIntentStateError(code: .unexpectedState, message: "This PaymentIntent's fields cannot be updated because it has a status of \(intent.machine.status.rawValue).", parameter: nil), intent: intentJSON(intent, request))
        }
        if let amount = try form.integer("amount") {
            let minimum = intent.paymentMethodTypes.map(\.minimumMinorUnits).min()!
            guard amount >= minimum else { throw StripeError.invalid("amount", "Amount must be at least \(minimum) minor units.", code: "amount_too_small") }
            guard amount <= FiatConversion.maxPaymentMinorUnits else { throw StripeError.invalid("amount", "Amount must be no more than \(FiatConversion.maxPaymentMinorUnits) minor units.", code: "amount_too_large") }
            do { try intent.machine.update(amount: amount) } catch { throw StripeError.state(error, intent: intentJSON(intent, request)) }
        }
        try applyFields(form, to: &intent)
        if let methodID = try form.string("payment_method", maxLength: 255) { try await attach(methodID, to: &intent, merchant) }
        _ = try await service.save(intent, over: stored)
        return intentJSON(intent, request)
    }

    func confirmPaymentIntent(_ id: String, _ form: StripeForm, _ merchant: MerchantRecord, _ kind: KeyKind, _ request: Request) async throws -> JSONValue {
        try form.refuseUnknown(["payment_method", "return_url", "client_secret"])
        let (intent, stored) = try await service.load(PaymentIntentRecord.self, id: id, kind: "payment_intent", merchant: merchant)
        return try await confirm(intent, stored, form, merchant, kind, request, method: nil)
    }

    /// Confirms an intent as read: `method` is its payment method when the caller has it at
    /// hand already.
    func confirm(_ intent: PaymentIntentRecord, _ stored: StoredObject, _ form: StripeForm, _ merchant: MerchantRecord, _ kind: KeyKind, _ request: Request, method known: PaymentMethodRecord?) async throws -> JSONValue {
        let (confirmed, action) = try await confirmation(of: intent, form, merchant, kind, request, method: known)
        return try await perform(action, on: confirmed, over: stored, merchant, request)
    }

    /// The intent after a confirmation's parameters and its state machine's answer, with what
    /// must be done; nothing written.
    func confirmation(
        of intent: PaymentIntentRecord, _ form: StripeForm, _ merchant: MerchantRecord, _ kind: KeyKind, _ request: Request, method known: PaymentMethodRecord?
    ) async throws -> (intent: PaymentIntentRecord, action: PaymentIntentStateMachine.Action) {
        var intent = intent
        if kind == .publishable { try checkClientSecret(form, intent) }
        if let returnURL = try form.string("return_url", maxLength: 2048) { intent.returnURL = try Self.checkedURL(returnURL) }
        var known = known
        if let methodID = try form.string("payment_method", maxLength: 255) { known = try await attach(methodID, to: &intent, merchant) }
        var outcome = AcquirerOutcome.approved
        if let methodID = intent.machine.paymentMethod {
            let method: PaymentMethodRecord
            if let known, known.id == methodID {
                method = known
            } else {
                method = try await service.load(PaymentMethodRecord.self, id: methodID, kind: "payment_method", merchant: merchant, parameter: "payment_method").0
            }
            if method.type.isBankRedirect, intent.returnURL == nil { throw StripeError.missing("return_url") }
            outcome = method.card?.outcome ?? .approved
        }
        let action: PaymentIntentStateMachine.Action
        do { action = try intent.machine.confirm(acquirer: outcome) } catch { throw StripeError.state(error, intent: intentJSON(intent, request)) }
        return (intent, action)
    }

    /// Stores the intent's new state and does what its state machine asked: settle on the ledger
    /// (stored as pending first, answered once its ledger committed), or answer a decline as
    /// Stripe's 402 card_error with the intent.
    func perform(_ action: PaymentIntentStateMachine.Action, on intent: PaymentIntentRecord, over stored: StoredObject, _ merchant: MerchantRecord, _ request: Request) async throws -> JSONValue {
        try await service.perform(action, on: intent, over: stored, merchant, base: baseURL(request))
    }

    func capturePaymentIntent(_ id: String, _ form: StripeForm, _ merchant: MerchantRecord, _ request: Request) async throws -> JSONValue {
        try form.refuseUnknown(["amount_to_capture", "metadata", "statement_descriptor"])
        var (intent, stored) = try await service.load(PaymentIntentRecord.self, id: id, kind: "payment_intent", merchant: merchant)
        let amount = try form.integer("amount_to_capture")
        let action: PaymentIntentStateMachine.Action
        do { action = try intent.machine.capture(amount) } catch { throw StripeError.state(error, intent: intentJSON(intent, request)) }
        if case .settle(let captured) = action { intent.trail = (intent.trail ?? []) + [TrailEntry(kind: .capture, amount: captured, created: service.now())] }
        if let metadata = try form.metadata() { for (key, value) in metadata { intent.metadata[key] = value } }
        return try await perform(action, on: intent, over: stored, merchant, request)
    }

    func cancelPaymentIntent(_ id: String, _ form: StripeForm, _ merchant: MerchantRecord, _ request: Request) async throws -> JSONValue {
        try form.refuseUnknown(["cancellation_reason"])
        var (intent, stored) = try await service.load(PaymentIntentRecord.self, id: id, kind: "payment_intent", merchant: merchant)
        var reason: CancellationReason?
        if let name = try form.string("cancellation_reason", maxLength: 50) {
            guard let parsed = CancellationReason(rawValue: name), parsed != .abandoned, parsed != .automatic else {
                throw StripeError.invalid("cancellation_reason", "Invalid cancellation_reason: must be duplicate, fraudulent or requested_by_customer.")
            }
            reason = parsed
        }
        let action: PaymentIntentStateMachine.Action
        do { action = try intent.machine.cancel(reason) } catch { throw StripeError.state(error, intent: intentJSON(intent, request)) }
        return try await perform(action, on: intent, over: stored, merchant, request)
    }

    // MARK: Customers and saved cards

    func createCustomer(_ form: StripeForm, _ merchant: MerchantRecord) async throws -> JSONValue {
        try form.refuseUnknown(["email", "name", "description", "metadata"])
        let id = GatewayIDs.make("cus", random: service.random, length: 14)
        let customer = CustomerRecord(
            id: id, created: service.now(), email: try form.string("email", maxLength: 512), name: try form.string("name", maxLength: 256),
            description: try form.string("description", maxLength: 1000), metadata: try (form.metadata() ?? [:]).compactMapValues { $0 })
        try await service.insert(customer, id: id, kind: "customer", merchant: merchant)
        return GatewayObjects.customer(customer)
    }

    func attachPaymentMethod(_ id: String, _ form: StripeForm, _ merchant: MerchantRecord) async throws -> JSONValue {
        try form.refuseUnknown(["customer"])
        let customerID = try form.requiredString("customer", maxLength: 255)
        _ = try await service.load(CustomerRecord.self, id: customerID, kind: "customer", merchant: merchant, parameter: "customer")
        var (method, stored) = try await service.load(PaymentMethodRecord.self, id: id, kind: "payment_method", merchant: merchant)
        if let current = method.customer, current != customerID {
            throw StripeError.invalid("customer", "The payment method you provided is already attached to a customer; detach it first.", code: "payment_method_unexpected_state")
        }
        method.customer = customerID
        _ = try await service.save(method, over: stored, customer: .some(customerID))
        return GatewayObjects.paymentMethod(method)
    }

    func detachPaymentMethod(_ id: String, _ form: StripeForm, _ merchant: MerchantRecord) async throws -> JSONValue {
        try form.refuseUnknown([])
        var (method, stored) = try await service.load(PaymentMethodRecord.self, id: id, kind: "payment_method", merchant: merchant)
        guard method.customer != nil else {
            throw StripeError.invalid(nil, "The payment method you provided is not attached to a customer so detachment is impossible.", code: "payment_method_unexpected_state")
        }
        method.customer = nil
        _ = try await service.save(method, over: stored, customer: .some(nil))
        return GatewayObjects.paymentMethod(method)
    }

    // MARK: Refunds

    /// Records a refund against its intent (so two refunds can never exceed what was captured),
    /// pays it back on the ledger, then marks it succeeded; if the ledger refuses, the intent's
    /// refunded amount is taken back and the refund is failed.
    func createRefund(_ form: StripeForm, _ merchant: MerchantRecord) async throws -> JSONValue {
        try form.refuseUnknown(["payment_intent", "amount", "reason", "metadata"])
        let intentID = try form.requiredString("payment_intent", maxLength: 255)
        let amount = try form.integer("amount")
        var reason: String?
        if let text = try form.string("reason", maxLength: 50) {
            guard ["duplicate", "fraudulent", "requested_by_customer"].contains(text) else {
                throw StripeError.invalid("reason", "Invalid reason: must be duplicate, fraudulent or requested_by_customer.")
            }
            reason = text
        }
        // Under an idempotency key the refund's id comes from the key: a retry after a stop
        // finds the refund the stopped request recorded (finished at start-up) instead of
        // refunding again.
        let id = IdempotencyScope.current.map { service.derivedID("re", from: $0) } ?? GatewayIDs.make("re", random: service.random)
        if IdempotencyScope.current?.resumed == true, let existing = try await service.store.object(id: id, kind: "refund", merchant: merchant.id) {
            let refund = try service.records.decode(RefundRecord.self, existing)
            guard refund.status != .failed else {
                throw StripeError.invalid("amount", "The merchant's balance could not cover this refund.", code: "balance_insufficient")
            }
            return GatewayObjects.refund(refund)
        }
        return GatewayObjects.refund(try await refund(
            intentID, amount: amount, id: id, reason: reason, metadata: try (form.metadata() ?? [:]).compactMapValues { $0 }, merchant: merchant))
    }

    /// Refunds `amount` (all that is left when nil) of an intent's captures under the refund id
    /// `id`: recorded against the intent, paid back on the ledger, marked succeeded.
    /// - Throws: ``StripeError`` for an amount the intent does not allow or a balance that
    ///   cannot cover it (the refund failed, nothing moved).
    func refund(_ intentID: String, amount: Int64?, id: String, reason: String?, metadata: [String: String], descriptor: String? = nil, merchant: MerchantRecord) async throws -> RefundRecord {
        var (intent, stored) = try await service.load(PaymentIntentRecord.self, id: intentID, kind: "payment_intent", merchant: merchant, parameter: "payment_intent")
        let action: PaymentIntentStateMachine.Action
        do {
            action = try intent.machine.refund(amount)
        } catch {
            let code = error.code == .invalidAmount ? "amount_too_large" : "charge_not_refundable"
            throw StripeError.invalid(error.parameter, error.message, code: code)
        }
        guard case .refund(let refunded) = action else { preconditionFailure("a refund answers .refund") }
        var refund = RefundRecord(
            id: id, paymentIntent: intent.id, amount: refunded, currency: intent.currency, created: service.now(), status: .pending,
            reason: reason, metadata: metadata)
        intent.trail = (intent.trail ?? []) + [TrailEntry(kind: .refund, amount: refunded, created: refund.created, descriptor: descriptor)]
        // The intent's refunded amount and the pending refund are written together; the refund
        // is due for the start-up recovery should the server stop before it is paid back.
        stored = try await service.recordRefund(refund, intent: intent, over: stored, merchant: merchant)
        let (_, storedRefund) = try await service.load(RefundRecord.self, id: id, kind: "refund", merchant: merchant)
        do {
            refund.ledgerTransaction = try await service.payBack(refund, merchant: merchant)
            refund.status = .succeeded
            _ = try await service.save(refund, over: storedRefund, attentionAt: .some(nil))
            let refundedIntent = try await service.load(PaymentIntentRecord.self, id: intent.id, kind: "payment_intent", merchant: merchant).0
            await service.emit(.chargeRefunded, GatewayObjects.charge(refundedIntent), merchant: merchant)
            return refund
        } catch let error as StripeError {
            try await service.failRefund(refund, over: storedRefund, merchant: merchant)
            throw error
        }
    }

    // MARK: Webhook endpoints

    /// A stored event's JSON, as it was when it happened.
    static func rawJSON(_ object: StoredObject) -> JSONValue { .raw(object.body) }

    func createWebhookEndpoint(_ form: StripeForm, _ merchant: MerchantRecord) async throws -> JSONValue {
        try form.refuseUnknown(["url", "enabled_events", "description", "metadata"])
        let url = try form.requiredString("url", maxLength: 2048)
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https", parsed.host != nil else {
            throw StripeError.invalid("url", "url must be an absolute http or https URL.")
        }
        guard let events = try form.stringList("enabled_events"), !events.isEmpty, events.count <= 50 else { throw StripeError.missing("enabled_events") }
        for event in events where event != "*" && GatewayEventType(rawValue: event) == nil {
            throw StripeError.invalid("enabled_events", "Invalid event type: \(event.prefix(100)). Tender emits \(GatewayEventType.allCases.map(\.rawValue).joined(separator: ", ")), or * for all.")
        }
        let existing = try await service.store.list(kind: "webhook_endpoint", merchant: merchant.id, ListRequest(limit: 16))
        guard existing.objects.count < 16 else { throw StripeError.invalid(nil, "A merchant may have at most 16 webhook endpoints.") }
        let secret = GatewayIDs.make("whsec", random: service.random, length: 32)
        let id = GatewayIDs.make("we", random: service.random)
        let endpoint = WebhookEndpointRecord(id: id, url: url, enabledEvents: events, created: service.now(), sealedSecret: try service.secrets.seal(Array(secret.utf8)))
        try await service.insert(endpoint, id: id, kind: "webhook_endpoint", merchant: merchant)
        return GatewayObjects.webhookEndpoint(endpoint, secret: secret)
    }
}

/// The idempotency key a POST runs under, for the handlers that need it.
struct IdempotencyScope: Sendable {
    let merchant: String
    let key: String
    /// When the key was first claimed.
    let created: Int64
    /// Whether this request finishes one the server stopped in the middle of.
    let resumed: Bool

    @TaskLocal static var current: IdempotencyScope?
}

extension GatewayRoutes {
    // MARK: Payouts

    /// Pays part of the balance out to a Stellar address of the merchant's (which must trust
    /// the test anchor's asset), in a ledger transaction from the settlement account. The
    /// payout is recorded once that ledger has committed; one the ledger refuses moves nothing.
    func createPayout(_ form: StripeForm, _ merchant: MerchantRecord) async throws -> JSONValue {
        try form.refuseUnknown(["amount", "currency", "destination", "metadata", "description"])
        guard let amount = try form.integer("amount") else { throw StripeError.missing("amount") }
        guard amount >= 1, amount <= FiatConversion.maxPaymentMinorUnits else {
            throw StripeError.invalid("amount", "A payout is 1 to \(FiatConversion.maxPaymentMinorUnits) minor units.", code: "amount_invalid")
        }
        let code = try form.requiredString("currency", maxLength: 10)
        guard let currency = GatewayCurrency.named(code) else { throw StripeError.invalid("currency", "Invalid currency: \(code.prefix(10)).") }
        let address = try form.requiredString("destination", maxLength: 100)
        guard let destination = try? AccountID(address) else {
            throw StripeError.invalid("destination", "The destination must be a Stellar account address (G...).", code: "payout_destination_invalid")
        }
        let id = IdempotencyScope.current.map { service.derivedID("po", from: $0) } ?? GatewayIDs.make("po", random: service.random)
        let stored = try await service.payFromSettlement(amount, of: currency, to: destination, memo: "tender payout \(id)", merchant: merchant, parameter: "amount")
        let payout = PayoutRecord(
            id: id, amount: amount, currency: currency.code, destination: address, created: service.now(),
            ledgerTransaction: stored.hash.hex, metadata: try (form.metadata() ?? [:]).compactMapValues { $0 })
        try await service.insert(payout, id: id, kind: "payout", merchant: merchant)
        return GatewayObjects.payout(payout)
    }
}
