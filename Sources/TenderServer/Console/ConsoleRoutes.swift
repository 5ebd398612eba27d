import CheckoutCore
import Crypto
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import LedgerService
import Logging
import Mustache

/// `/console`: the web dashboard where the operator (admin key) sees every merchant and a
/// merchant (its secret key) sees its own: home with its balance and figures drawn as SVG,
/// payments with filters and paging, a payment's page with its timeline and actions (refund,
/// capture, cancel). Pages read the gateway's core, never its store, and act through the same
/// core calls as `/v1`, each under an idempotency key the page made, so a form posted twice acts
/// once. Sessions are signed cookies (HttpOnly, SameSite=Strict, eight hours); every form posts
/// a CSRF token bound to its session. No script, nothing from elsewhere, a strict CSP.
struct ConsoleRoutes: Sendable {
    let service: GatewayService
    let checkout: CheckoutService
    /// Horizon's routes: the explorer shows their documents.
    let horizon: HorizonRoutes
    let adminKey: String
    let logger: Logger
    /// Paces the live page's reads.
    let clock: any Clock<Duration>
    let signOuts = ConsoleSignOuts()
    var key: [UInt8] { service.secrets.consoleKeyBytes }

    /// A page's merchant: the session's own, or for the operator the one `?merchant=` names.
    struct Scope {
        let session: ConsoleSession
        let merchant: MerchantRecord?
        /// Whether the merchant is a marketplace (its pages are shown).
        var isMarketplace = false
        /// The words of the reader's language.
        var text = ConsoleText(locale: .en)
        /// `?merchant=...` for the operator's links (empty for a merchant, whose links need none).
        var query: String {
            guard case .admin = session.role, let merchant else { return "" }
            return "?merchant=" + merchant.id
        }
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("assets/tender.css") { _, _ in PaymentPage.asset(DesignSystem.styleSheet, type: "text/css; charset=utf-8") }
        let console = router.group("console")
        router.get("assets/console.js") { _, _ in PaymentPage.asset(Self.script, type: "text/javascript; charset=utf-8") }
        console.get("live") { request, _ in try await signedIn(request) { live($0, ledgers: Self.queryValue(request, "ledgers") == "1") } }
        console.get("sign-in") { request, _ in signInPage(request, error: nil, status: .ok) }
        console.post("sign-in") { request, _ in try await signIn(request) }
        console.post("sign-out") { request, _ in try await signOut(request) }
        console.get("") { request, _ in try await signedIn(request) { try await home($0, request) } }
        console.get("payments") { request, _ in try await signedIn(request) { try await payments($0, request) } }
        console.get("payments/:id") { request, context in
            let id = try context.parameters.require("id")
            let notice = ((try? StripeForm(body: request.uri.query ?? "").string("notice", maxLength: 40)) ?? nil).flatMap(Self.notice)
            return try await signedIn(request) { try await payment($0, id: id, notice: notice, error: nil, status: .ok) }
        }
        console.get("customers") { request, _ in try await signedIn(request) { try await customers($0, request) } }
        console.get("customers/:id") { request, context in
            let id = try context.parameters.require("id")
            return try await signedIn(request) { try await customer($0, id: id) }
        }
        console.get("balance") { request, _ in try await signedIn(request) { try await balance($0, request) } }
        console.get("webhooks") { request, _ in try await signedIn(request) { try await webhooks($0) } }
        console.post("webhooks") { request, _ in try await signedIn(request) { try await changeWebhooks($0, request) } }
        console.get("marketplace") { request, _ in try await signedIn(request) { try await marketplacePage($0, request) } }
        console.get("marketplace/orders/:id") { request, context in
            let id = try context.parameters.require("id")
            return try await signedIn(request) { try await orderPage($0, id: id) }
        }
        console.get("explorer") { request, _ in try await signedIn(request) { try await explorer($0, request) } }
        console.get("explorer/order_book") { request, _ in try await signedIn(request) { try await explorerOrderBook($0, request) } }
        console.get("explorer/assets") { request, _ in try await signedIn(request) { try await explorerAssets($0, request) } }
        console.get("explorer/assets/:asset") { request, context in
            let asset = context.parameters.get("asset") ?? ""
            return try await signedIn(request) { try await explorerAsset($0, request, asset: asset) }
        }
        console.get("explorer/ledgers/:sequence") { request, context in
            let sequence = try context.parameters.require("sequence")
            return try await signedIn(request) { try await explorerLedger($0, request, sequence: sequence) }
        }
        console.get("explorer/transactions/:hash") { request, context in
            let hash = try context.parameters.require("hash")
            return try await signedIn(request) { try await explorerTransaction($0, request, hash: hash) }
        }
        console.get("explorer/accounts/:id") { request, context in
            let id = try context.parameters.require("id")
            return try await signedIn(request) { try await explorerAccount($0, request, id: id) }
        }
        console.post("payments/:id/:action") { request, context in
            let (id, action) = (try context.parameters.require("id"), try context.parameters.require("action"))
            return try await signedIn(request) { try await act($0, request, id: id, action: action) }
        }
    }

    // MARK: Sessions

    func now() -> Int64 { service.now() }

    /// The request's session, or a redirect to the sign-in page; for the operator, the merchant
    /// `?merchant=` names (404 for one that does not exist).
    func signedIn(_ request: Request, _ page: (Scope) async throws -> Response) async throws -> Response {
        guard let session = session(request) else { return Self.redirect("/console/sign-in") }
        let query = try? StripeForm(body: request.uri.query ?? "")
        let (text, setLocale) = Self.text(request)
        var merchant: MerchantRecord?
        switch session.role {
        case .merchant(let id):
            guard let found = try await service.merchant(id: id) else { return Self.redirect("/console/sign-in") }
            merchant = found
        case .admin:
            if let id = try? query?.string("merchant", maxLength: 64), !id.isEmpty {
                guard let found = try await service.merchant(id: id) else { return notFound(Scope(session: session, merchant: nil, text: text)) }
                merchant = found
            }
        }
        var scope = Scope(session: session, merchant: merchant, text: text)
        if let merchant { scope.isMarketplace = try await checkout.marketplaceIfAny(merchant) != nil }
        var response = try await page(scope)
        if let setLocale { response.headers[values: .setCookie].append(setLocale) }
        return response
    }

    /// The reader's language (`?locale=`, its cookie, or Accept-Language), and the cookie that
    /// remembers one chosen by `?locale=`.
    static func text(_ request: Request) -> (ConsoleText, String?) {
        let asked = queryValue(request, "locale")
        let locale = ConsoleText.locale(query: asked, cookie: request.cookies[ConsoleText.cookieName]?.value, acceptLanguage: request.headers[.acceptLanguage])
        let remember = asked.isEmpty || CardTextLocale(rawValue: asked.lowercased()) == nil ? nil
            : "\(ConsoleText.cookieName)=\(locale.rawValue); Path=/; SameSite=Strict; Max-Age=31536000"
        return (ConsoleText(locale: locale), remember)
    }

    func session(_ request: Request) -> ConsoleSession? {
        guard let value = request.cookies[ConsoleSession.cookieName]?.value,
              let session = ConsoleSession.read(value, key: key, now: now()), !signOuts.isRevoked(session) else { return nil }
        return session
    }

    func signInPage(_ request: Request, error: String?, status: HTTPResponse.Status) -> Response {
        let (text, setLocale) = Self.text(request)
        // The form's token is bound to a random value in a cookie of its own (a forged
        // cross-site sign-in carries the form's fields but not the cookie).
        var cookie = request.cookies[ConsoleSession.signInCookieName]?.value ?? ""
        var setCookie: String?
        if cookie.utf8.count != 22 || PaylikeRoutes.unbase64url(cookie) == nil {
            cookie = PaylikeRoutes.base64url(service.random(16))
            setCookie = "\(ConsoleSession.signInCookieName)=\(cookie); Path=/console; HttpOnly; SameSite=Strict; Max-Age=3600"
        }
        var values: [String: Any] = ["token": ConsoleSession.signInToken(cookie, key: key), "t": text.lambda]
        if let error { values["error"] = text(error) }
        let body = ConsoleTemplates.signIn.render(values)
        var response = render(title: text("Sign in"), body: body, scope: nil, text: text, status: status)
        if let setCookie { response.headers[values: .setCookie].append(setCookie) }
        if let setLocale { response.headers[values: .setCookie].append(setLocale) }
        return response
    }

    func signIn(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        guard let cookie = request.cookies[ConsoleSession.signInCookieName]?.value,
              GatewayService.constantTimeEqual(ConsoleSession.signInToken(cookie, key: key), (try? form.string("signin", maxLength: 100)) ?? "") else {
            return signInPage(request, error: "This sign-in form has expired. Please try again.", status: .forbidden)
        }
        let presented = ((try? form.string("key", maxLength: 255)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let role: ConsoleRole
        if !presented.isEmpty, GatewayService.constantTimeEqual(presented, adminKey) {
            role = .admin
        } else if let (merchant, kind) = try await service.merchant(key: presented), kind == .secret {
            role = .merchant(merchant.id)
        } else {
            // The key is never repeated back, not even in part.
            return signInPage(request, error: "That is neither the admin key nor a merchant's secret key.", status: .unauthorized)
        }
        let session = ConsoleSession(role: role, expires: now() + ConsoleSession.lifetime, id: PaylikeRoutes.base64url(service.random(16)))
        var response = Self.redirect("/console")
        response.headers[.setCookie] = "\(ConsoleSession.cookieName)=\(session.token(key: key)); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(ConsoleSession.lifetime)"
        logger.info("console session started", metadata: ["console.role": "\(role == .admin ? "operator" : "merchant")"])
        return response
    }

    func signOut(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        if let session = session(request) {
            guard session.acceptsCSRF(try? form.string("csrf", maxLength: 100), key: key) else { return forbidden(Scope(session: session, merchant: nil, text: Self.text(request).0)) }
            signOuts.revoke(session, now: now())
        }
        var response = Self.redirect("/console/sign-in")
        response.headers[.setCookie] = "\(ConsoleSession.cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
        return response
    }

    // MARK: Pages

    func home(_ scope: Scope, _ request: Request) async throws -> Response {
        guard let merchant = scope.merchant else { return try await operatorHome(scope) }
        let t = scope.text
        let days = 14
        let activity = try await service.activity(merchant: merchant, days: days)
        let balances = try await service.balances(merchant)
        let volume = activity.total(\.volume)
        let refunded = activity.total(\.refunded)
        // The chart shows the currency with the most volume (the first the gateway takes when none has any).
        let chartCurrency = volume.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? GatewayCurrency.supported[0].code
        let volumeChart = BarChart(title: t("Volume received per day in {currency}, last {days} days", ["currency": chartCurrency.uppercased(), "days": String(days)]), bars: activity.days.map { day in
            let amount = day.volume[chartCurrency] ?? 0
            return .init(label: Self.shortDate(day.start), value: amount, text: t.money(amount, chartCurrency))
        })
        let countChart = BarChart(title: t("Succeeded payments per day, last {days} days", ["days": String(days)]), bars: activity.days.map { day in
            .init(label: Self.shortDate(day.start), value: Int64(day.succeeded), text: t("{succeeded} succeeded, {failed} failed", ["succeeded": String(day.succeeded), "failed": String(day.failed)]))
        })
        let hourChart = BarChart(title: t("Succeeded payments per hour, last 24 hours"), bars: activity.hours.map { hour in
            .init(label: Self.hour(hour.start), value: Int64(hour.succeeded), text: t("{succeeded} succeeded, {failed} failed", ["succeeded": String(hour.succeeded), "failed": String(hour.failed)]))
        })
        let recent = try await service.payments(merchant: merchant, filter: PaymentFilter(), startingAfter: nil, limit: 10)
        var values: [String: Any] = [
            "merchantName": merchant.name, "days": days, "scope": scope.query, "t": t.lambda,
            "balances": balances.map { ["amount": t.money($0.1, $0.0.code)] },
            "succeeded": activity.succeeded, "failed": activity.failed,
            "volume": volume.isEmpty ? t("nothing received") : volume.sorted { $0.key < $1.key }.map { t.money($0.value, $0.key) }.joined(separator: " · "),
            "successRate": activity.successPerMille.map { "\($0 / 10).\($0 % 10)%" } ?? "–",
            "refunded": refunded.isEmpty ? t.money(0, chartCurrency) : refunded.sorted { $0.key < $1.key }.map { t.money($0.value, $0.key) }.joined(separator: " · "),
            "volumeCurrency": chartCurrency.uppercased(),
            "volumeChart": volumeChart.svg(), "countChart": countChart.svg(), "hourChart": hourChart.svg(),
            "recent": paymentsTable(recent.intents, scope: scope),
        ]
        if !activity.complete { values["incomplete"] = t("More payments were made in these days than the home page reads at once; the figures cover the newest.") }
        return render(title: merchant.name, body: ConsoleTemplates.home.render(values), scope: scope, current: "home")
    }

    func operatorHome(_ scope: Scope) async throws -> Response {
        let t = scope.text
        let merchants = try await service.merchants().sorted { $0.created > $1.created }
        var rows: [[String: Any]] = []
        for merchant in merchants {
            let balances = try await service.balances(merchant)
            rows.append([
                "id": merchant.id, "name": merchant.name, "account": merchant.settlementAccount,
                "balance": balances.map { t.money($0.1, $0.0.code) }.joined(separator: " · "),
            ])
        }
        let body = ConsoleTemplates.operatorHome.render(["merchants": rows, "count": merchants.count, "t": scope.text.lambda])
        return render(title: scope.text("Merchants"), body: body, scope: scope, current: "home")
    }

    func paymentsTable(_ intents: [PaymentIntentRecord], scope: Scope) -> String {
        let t = scope.text
        return ConsoleTemplates.paymentsTable.render([
            "scope": scope.query, "t": scope.text.lambda, "noPayments": scope.text("No payments."),
            "rows": intents.map { intent -> [String: Any] in
                [
                    "id": intent.id.rawValue, "amount": t.money(intent.machine.amount, intent.currency),
                    "status": Self.statusText(intent.machine.status), "tone": Self.tone(intent.machine.status),
                    "method": Self.methodText(intent), "description": intent.description ?? "", "created": Self.time(intent.created),
                ]
            },
        ])
    }

    func payments(_ scope: Scope, _ request: Request) async throws -> Response {
        guard let merchant = scope.merchant else { return Self.redirect("/console") }
        let t = scope.text
        let query = (try? StripeForm(body: request.uri.query ?? "")) ?? (try! StripeForm(body: ""))
        func text(_ name: String) -> String { ((try? query.string(name, maxLength: 200)) ?? nil)?.trimmingCharacters(in: .whitespaces) ?? "" }
        var filter = PaymentFilter()
        var problems: [String] = []
        let (status, method, currency) = (text("status"), text("method"), text("currency"))
        if !status.isEmpty { filter.status = PaymentIntentStatus(rawValue: status); if filter.status == nil { problems.append(t("Unknown status.")) } }
        if !method.isEmpty { filter.method = PaymentMethodType(rawValue: method); if filter.method == nil { problems.append(t("Unknown method.")) } }
        if !currency.isEmpty {
            if GatewayCurrency.named(currency) != nil { filter.currency = currency } else { problems.append(t("Unknown currency.")) }
        }
        let exponent = filter.currency.flatMap { GatewayCurrency.named($0)?.exponent } ?? 2
        for (name, path) in [("min", \PaymentFilter.minimumAmount), ("max", \PaymentFilter.maximumAmount)] where !text(name).isEmpty {
            if let amount = FiatConversion.minorUnits(parsing: text(name).replacingOccurrences(of: ",", with: "."), exponent: exponent) {
                filter[keyPath: path] = amount
            } else {
                problems.append(t("An amount is written as 12.50."))
            }
        }
        for (name, path, end) in [("from", \PaymentFilter.createdFrom, false), ("to", \PaymentFilter.createdBefore, true)] where !text(name).isEmpty {
            if let day = Self.day(text(name)) { filter[keyPath: path] = end ? day + 86_400 : day } else { problems.append(t("A date is written as 2026-11-27.")) }
        }
        // One box for an id or an e-mail: a payment or charge id opens it; a customer id or an
        // e-mail narrows the list to that customer.
        let search = text("q")
        if search.hasPrefix("pi_") || search.hasPrefix("ch_") {
            let id = search.hasPrefix("ch_") ? (ChargeID(search).attempt?.paymentIntent.rawValue ?? search) : search
            return Self.redirect("/console/payments/\(Self.queryEscaped(id))\(scope.query)")
        } else if search.hasPrefix("cus_") {
            filter.customer = CustomerID(search)
        } else if search.contains("@") {
            let customers = try await service.customers(merchant: merchant, page: ListRequest(limit: 1), email: search).records
            filter.customer = customers.first?.id ?? CustomerID("cus_none")
        } else if !search.isEmpty {
            problems.append(t("Search takes a payment (pi_…), charge (ch_…) or customer (cus_…) id, or a customer's e-mail."))
        }
        let after = text("after")
        let page = problems.isEmpty
            ? try await service.payments(merchant: merchant, filter: filter, startingAfter: after.isEmpty ? nil : PaymentIntentID(after), limit: 25)
            : PaymentsPage(intents: [], next: nil, scanned: 0)
        func link(after: String?) -> String {
            var items: [(String, String)] = []
            if case .admin = scope.session.role { items.append(("merchant", merchant.id)) }
            for name in ["status", "method", "currency", "min", "max", "from", "to", "q"] where !text(name).isEmpty { items.append((name, text(name))) }
            if let after { items.append(("after", after)) }
            return "/console/payments" + (items.isEmpty ? "" : "?" + items.map { "\($0.0)=\(Self.queryEscaped($0.1))" }.joined(separator: "&"))
        }
        var values: [String: Any] = [
            "merchantID": scope.query.isEmpty ? "" : merchant.id,
            "statuses": PaymentIntentStatus.allCases.map { ["value": $0.rawValue, "selected": $0 == filter.status] },
            "methods": PaymentMethodType.allCases.map { ["value": $0.rawValue, "selected": $0 == filter.method] },
            "currencies": GatewayCurrency.supported.map { ["value": $0.code, "selected": $0.code == filter.currency] },
            "min": text("min"), "max": text("max"), "from": text("from"), "to": text("to"), "q": search,
            "table": paymentsTable(page.intents, scope: scope),
            "first": after.isEmpty ? "" : link(after: nil), "next": page.next.map { link(after: $0.rawValue) } ?? "",
            "scanned": page.scanned, "t": t.lambda,
        ]
        if let problem = problems.first { values["error"] = problem }
        return render(title: t("Payments"), body: ConsoleTemplates.payments.render(values), scope: scope, current: "payments",
                      status: problems.isEmpty ? .ok : .badRequest)
    }

    func payment(_ scope: Scope, id: String, notice: Notice?, error: String?, status: HTTPResponse.Status) async throws -> Response {
        guard let merchant = scope.merchant else { return Self.redirect("/console") }
        // Another merchant's payment is not found, as an unknown one is.
        guard let intent = try await service.find(PaymentIntentRecord.self, id: PaymentIntentID(id), merchant: merchant) else { return notFound(scope) }
        let t = scope.text
        let machine = intent.machine
        let currency = intent.currency
        var values: [String: Any] = [
            "id": intent.id.rawValue, "amount": t.money(machine.amount, currency), "status": Self.statusText(machine.status),
            "tone": Self.tone(machine.status), "created": Self.time(intent.created), "scope": scope.query,
            "received": t.money(machine.amountReceived, currency), "refunded": t.money(machine.amountRefunded, currency),
            "currency": currency.uppercased(), "csrf": scope.session.csrfToken(key: key),
            "idempotency": PaylikeRoutes.base64url(service.random(16)), "t": t.lambda,
            "metadata": intent.metadata.sorted { $0.key < $1.key }.map { ["key": "metadata." + $0.key, "value": $0.value] },
        ]
        if let notice { values["notice"] = t(notice.text, notice.amount.map { ["amount": t.money($0, currency)] } ?? [:]) }
        if let error { values["error"] = t(error) }
        if let description = intent.description { values["description"] = description }
        if let customer = intent.customer { values["customer"] = customer.rawValue }
        if let ledger = intent.settlementTransaction { values["ledger"] = ledger }
        if let charge = intent.succeededCharge {
            let movements = try await service.balanceTransactions(source: intent.id.charge(charge.number).rawValue, merchant: merchant)
            if let movement = movements.first(where: { $0.type == .charge || $0.type == .payment }) {
                values["fee"] = t.money(movement.fee, currency)
                values["net"] = t.money(movement.amount - movement.fee, currency)
            }
        }
        let method = intent.charges?.last?.method ?? intent.attemptMethod
        var facts: [[String: String]] = []
        if let method {
            facts.append(["key": t("Type"), "value": method.type.rawValue])
            if let card = method.card {
                facts.append(["key": t("Card"), "value": "\(card.brand.displayName) •••• \(card.last4)"])
                facts.append(["key": t("Expires"), "value": String(format: "%02d/%d", card.expMonth, card.expYear)])
                facts.append(["key": t("Country"), "value": card.country])
                facts.append(["key": t("3-D Secure"), "value": card.authenticationFlow.map { t("asked ({flow})", ["flow": $0]) } ?? t("not asked")])
            }
            if let bank = method.bank { facts.append(["key": t("Bank"), "value": bank]) }
            if let name = method.billing?.name { facts.append(["key": t("Name"), "value": name]) }
            if let email = method.billing?.email { facts.append(["key": t("E-mail"), "value": email]) }
        }
        values["methodFacts"] = facts
        values["noneYet"] = t("None yet.")
        values["timeline"] = Self.timeline(intent, events: try await service.events(of: intent.id, merchant: merchant), text: t)
        let refundable = machine.amountReceived - machine.amountRefunded
        if machine.status == .succeeded, refundable > 0 { values["refundable"] = t.money(refundable, currency) }
        if machine.status == .requiresCapture { values["capturable"] = t.money(machine.amountCapturable, currency) }
        let cancelable: Set<PaymentIntentStatus> = [.requiresPaymentMethod, .requiresConfirmation, .requiresAction, .requiresCapture]
        values["cancelable"] = cancelable.contains(machine.status)
        values["hasActions"] = values["refundable"] != nil || values["capturable"] != nil || cancelable.contains(machine.status)
        return render(title: t("Payment") + " " + intent.id.rawValue, body: ConsoleTemplates.payment.render(values), scope: scope, current: "payments", status: status)
    }

    /// What happened to a payment, oldest first, from its record: made, each attempt to pay it
    /// (with 3-D Secure and the decline), authorised, each capture, refund and release, canceled.
    static func timeline(_ intent: PaymentIntentRecord, events: [(id: String, type: String, created: Int64, deliveries: [WebhookDelivery])] = [], text t: ConsoleText) -> [[String: Any]] {
        var entries: [(Int64, Int, String, String?)] = [(intent.created, 0, t("Created"), nil)]
        // Each event the payment sent, and what became of its webhook deliveries.
        for event in events {
            let delivered = event.deliveries.filter { $0.status == .delivered }.count
            let failed = event.deliveries.filter { $0.status == .failed }.count
            let detail = event.deliveries.isEmpty ? t("no endpoint asked for it")
                : t("delivered to {n} of {m} endpoints", ["n": String(delivered), "m": String(event.deliveries.count)]) + (failed > 0 ? t(", {n} failed", ["n": String(failed)]) : "")
                + (event.deliveries.contains { $0.status == .pending } ? t(", retrying") : "")
            entries.append((event.created, 6, t("Event {type}", ["type": event.type]), detail))
        }
        if let since = intent.actionSince { entries.append((since, 1, t("Customer asked to authenticate"), intent.machine.pendingAction.map { $0 == .threeDSecure ? "3-D Secure" : "bank redirect" })) }
        for charge in intent.charges ?? [] {
            let what = switch charge.status {
            case .succeeded: t("Charge {n} succeeded", ["n": String(charge.number)])
            case .failed: t("Charge {n} failed", ["n": String(charge.number)])
            case .pending: t("Charge {n} pending", ["n": String(charge.number)])
            }
            entries.append((charge.created, 2, what, charge.failure.map { "\($0.message) (\($0.declineCode ?? $0.code))" } ?? t.money(charge.amount, intent.currency)))
        }
        if let authorized = intent.authorizedAt { entries.append((authorized, 3, t("Authorized"), t.money(intent.machine.amountAuthorized ?? intent.machine.amount, intent.currency))) }
        for entry in intent.trail ?? [] {
            let what = switch entry.kind {
            case .capture: t("Captured")
            case .refund: t("Refunded")
            case .void: t("Released")
            }
            entries.append((entry.created, 4, what, t.money(entry.amount, intent.currency)))
        }
        if intent.machine.status == .succeeded, !(intent.trail ?? []).contains(where: { $0.kind == .capture }), let charge = intent.succeededCharge {
            entries.append((charge.created, 3, t("Succeeded"), intent.settlementTransaction.map { t("settled on the ledger in transaction {hash}…", ["hash": String($0.prefix(12))]) }))
        }
        if let canceled = intent.canceledAt { entries.append((canceled, 5, t("Canceled"), intent.machine.cancellationReason?.rawValue)) }
        return entries.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { entry in
            var values: [String: Any] = ["what": entry.2, "when": time(entry.0)]
            if let detail = entry.3 { values["detail"] = detail }
            return values
        }
    }

    // MARK: Live

    /// `/console/live`: server-sent events for the merchant's home page. After each ledger the
    /// server commits (or its heartbeat), at most every ``livePace``, the newest payments and the balance are read (from the
    /// core's cache); when they changed, a `change` event tells the page to fetch itself again.
    func live(_ scope: Scope, ledgers: Bool = false) -> Response {
        // The explorer's ledgers change with every ledger; a merchant's home with its payments.
        let (service, commits, logger, clock) = (self.service, horizon.commits, self.logger, self.clock)
        let read: @Sendable () async throws -> String
        if ledgers {
            read = { String(commits.latest) }
        } else if let merchant = scope.merchant {
            read = {
                let newest = try await service.payments(merchant: merchant, filter: PaymentFilter(), startingAfter: nil, limit: 5).intents
                let balances = try await service.balances(merchant)
                return newest.map { "\($0.id) \($0.machine.status.rawValue) \($0.machine.amountReceived) \($0.machine.amountRefunded)" }.joined(separator: ",")
                    + balances.map { " \($0.1)" }.joined()
            }
        } else {
            return notFound(scope)
        }
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "retry: 2000\nevent: open\ndata: \"hello\"\n\n"))
            var seen = commits.latest
            var last: String?
            var quiet = Duration.zero
            while !commits.isClosed && !Task.isShuttingDownGracefully && !Task.isCancelled {
                let state: String
                do {
                    state = try await read()
                } catch {
                    logger.error("console live read failed: \(error)")
                    break
                }
                if let last, last != state {
                    try await writer.write(ByteBuffer(string: "event: change\ndata: \"payments\"\n\n"))
                    quiet = .zero
                }
                last = state
                // At most two reads a second, however fast ledgers close (under load they close
                // hundreds of times a second, and an open console must not slow the payments).
                try? await clock.sleep(for: Self.livePace)
                let latest = await commits.wait(after: seen)
                if latest == seen {
                    quiet += LedgerCommits.heartbeatInterval
                    if quiet >= HorizonRoutes.streamKeepAlive {
                        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                        quiet = .zero
                    }
                }
                seen = latest
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache"], body: body)
    }

    static let livePace: Duration = .milliseconds(500)

    /// The console's one script: a page marked `data-live` listens to `/console/live` and, on a
    /// change, fetches itself and puts the new content in place (and says so to a screen reader).
    static let script = """
        "use strict";
        (function () {
          var marked = document.querySelector("[data-live]");
          if (!marked || !window.EventSource) { return; }
          var source = new EventSource(marked.getAttribute("data-live"));
          var busy = false;
          source.addEventListener("change", function () {
            if (busy) { return; }
            busy = true;
            fetch(location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" }).then(function (response) {
              return response.ok ? response.text() : null;
            }).then(function (text) {
              busy = false;
              if (!text) { return; }
              var next = new DOMParser().parseFromString(text, "text/html").querySelector("[data-live]");
              var now = document.querySelector("[data-live]");
              if (next && now) {
                now.replaceChildren.apply(now, Array.prototype.slice.call(next.childNodes));
                var status = document.getElementById("live-status");
                if (status) { status.textContent = "Updated with the latest payments."; }
              }
            }).catch(function () { busy = false; });
          });
        })();
        """

    // MARK: Actions

    /// Refund, capture or cancel, posted from a payment's page: the session's CSRF token, then
    /// the core's call under the idempotency key the page made (a second post of the same form
    /// finds the first's answer and does nothing).
    func act(_ scope: Scope, _ request: Request, id: String, action: String) async throws -> Response {
        guard let merchant = scope.merchant else { return notFound(scope) }
        let form = try await Self.form(request)
        guard scope.session.acceptsCSRF(try? form.string("csrf", maxLength: 100), key: key) else { return forbidden(scope) }
        guard ["refund", "capture", "cancel"].contains(action) else { return notFound(scope) }
        guard let intent = try await service.find(PaymentIntentRecord.self, id: PaymentIntentID(id), merchant: merchant) else { return notFound(scope) }
        let amountText = ((try? form.string("amount", maxLength: 20)) ?? nil)?.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".") ?? ""
        var amount: Int64?
        if !amountText.isEmpty {
            guard let parsed = FiatConversion.minorUnits(parsing: amountText, exponent: GatewayCurrency.named(intent.currency)?.exponent ?? 2), parsed > 0 else {
                return try await payment(scope, id: id, notice: nil, error: "An amount is written as 12.50.", status: .badRequest)
            }
            amount = parsed
        }
        let reason = ((try? form.string("reason", maxLength: 40)) ?? nil).flatMap { $0.isEmpty ? nil : $0 }
        if let reason, !["requested_by_customer", "duplicate", "fraudulent"].contains(reason) {
            return try await payment(scope, id: id, notice: nil, error: "Unknown reason.", status: .badRequest)
        }
        let key = "console " + (((try? form.string("idempotency", maxLength: 64)) ?? nil) ?? PaylikeRoutes.base64url(service.random(16)))
        let hash = Array(SHA256.hash(data: Array("\(action) \(id) \(amount.map(String.init) ?? "") \(reason ?? "")".utf8)))
        let done: String
        do {
            switch try await service.claimIdempotencyKey(key, merchant: merchant, requestHash: hash) {
            case .replay(let status, let answer):
                // A refusal is refused again, with its words; anything else was done once.
                guard status == 303 else {
                    return try await payment(scope, id: id, notice: nil, error: String(decoding: answer, as: UTF8.self), status: .badRequest)
                }
                return Self.redirect("/console/payments/\(Self.queryEscaped(id))\(scope.query)\(scope.query.isEmpty ? "?" : "&")notice=repeated")
            case .run(let idempotency):
                do {
                    switch action {
                    case "refund":
                        let refund = try await service.createRefund(NewRefund(paymentIntent: intent.id, amount: amount, reason: reason), merchant: merchant, idempotency: idempotency)
                        done = "refunded-\(refund.amount)"
                    case "capture":
                        let captured = try await service.capturePaymentIntent(intent.id, amount: amount, metadata: nil, merchant: merchant, base: request.baseURL)
                        done = "captured-\(captured.machine.amountReceived)"
                    default:
                        _ = try await service.cancelPaymentIntent(intent.id, reason: .requestedByCustomer, merchant: merchant, base: request.baseURL)
                        done = "canceled"
                    }
                } catch let failure as GatewayFailure
                    where idempotency.resumed && failure.code?.rawValue == PaymentIntentStateError.Code.unexpectedState.rawValue && failure.paymentIntent != nil {
                    // The post this one repeats had moved the payment past this step before its
                    // last write failed or the server stopped: done once, as its answer would say.
                    done = "repeated"
                } catch let failure as GatewayFailure where failure.category != .internal {
                    // Refused: the refusal is the key's answer, so the same form sent again is
                    // refused with it and runs nothing again (as Stripe keeps a 400).
                    try await service.recordIdempotentAnswer(idempotency, status: 400, body: Array(failure.message.utf8))
                    throw failure
                } catch {
                    // Not finished (the store failed, say, after the ledger moved the money): the
                    // key is left interrupted, so the same form sent again finishes the work
                    // under its first claim instead of doing it twice.
                    await service.interruptIdempotencyKey(idempotency)
                    throw error
                }
                try await service.recordIdempotentAnswer(idempotency, status: 303, body: Array(done.utf8))
            }
        } catch let failure as GatewayFailure where failure.category == .internal {
            return try await payment(scope, id: id, notice: nil, error: Self.unfinished, status: .internalServerError)
        } catch let failure as GatewayFailure {
            return try await payment(scope, id: id, notice: nil, error: failure.message, status: .badRequest)
        }
        logger.info("console action", metadata: ["console.action": "\(action)", "payment.intent.id": "\(intent.id)", "merchant.id": "\(merchant.id)"])
        return Self.redirect("/console/payments/\(Self.queryEscaped(id))\(scope.query)\(scope.query.isEmpty ? "?" : "&")notice=\(Self.queryEscaped(done))")
    }

    /// What a payment's page says when an action could not be finished.
    static let unfinished = "Tender could not finish this. Send the form again: it finishes what was begun and does nothing twice."

    /// The line a payment's page shows after an action, from the code the action's redirect
    /// carries (never text from the address itself).
    static func notice(_ code: String) -> Notice? {
        if code == "canceled" { return Notice(text: "The payment was canceled.") }
        if code == "repeated" { return Notice(text: "This form was already sent; it was done once, not again.") }
        let parts = code.split(separator: "-")
        guard parts.count == 2, let amount = Int64(parts[1]), amount >= 0 else { return nil }
        switch parts[0] {
        case "refunded": return Notice(text: "A refund of {amount} was made.", amount: amount)
        case "captured": return Notice(text: "Captured: {amount} received in all.", amount: amount)
        default: return nil
        }
    }

    /// A line shown after an action: its English text (looked up in the reader's language) and
    /// the amount it names, in the payment's minor units (written as the reader's language
    /// writes money).
    struct Notice {
        let text: String
        var amount: Int64? = nil
    }

    // MARK: Rendering

    func render(title: String, body: String, scope: Scope?, text: ConsoleText? = nil, current: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let t = text ?? scope?.text ?? ConsoleText(locale: .en)
        var values: [String: Any] = ["title": title, "body": body, "t": t.lambda, "lang": t.locale.rawValue]
        if let scope {
            values["signedIn"] = true
            values["csrf"] = scope.session.csrfToken(key: key)
            values["scope"] = scope.query
            values["who"] = switch scope.session.role {
            case .admin: scope.merchant.map { t("Operator, viewing {name}", ["name": $0.name]) } ?? t("Operator")
            case .merchant: scope.merchant?.name ?? ""
            }
            if let merchant = scope.merchant { values["merchantName"] = merchant.name }
            if scope.isMarketplace { values["isMarketplace"] = true }
            if let current { values[current + "Current"] = true }
        }
        return Self.html(ConsoleTemplates.layout.render(values), status: status)
    }

    func notFound(_ scope: Scope) -> Response {
        render(title: scope.text("Not found"), body: ConsoleTemplates.message.render([
            "heading": scope.text("Not found"), "text": scope.text("There is nothing here, or it is not yours to see."), "t": scope.text.lambda,
        ]), scope: scope, status: .notFound)
    }

    func forbidden(_ scope: Scope) -> Response {
        render(title: scope.text("Refused"), body: ConsoleTemplates.message.render([
            "heading": scope.text("Refused"), "text": scope.text("This form has expired. Open the page again and repeat."), "t": scope.text.lambda,
        ]), scope: scope, status: .forbidden)
    }

    static func html(_ text: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[HTTPFields.headerName("Content-Security-Policy")] =
            "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        headers[HTTPFields.headerName("Referrer-Policy")] = "no-referrer"
        headers[HTTPFields.headerName("X-Content-Type-Options")] = "nosniff"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func redirect(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    static func form(_ request: Request) async throws -> StripeForm {
        let body = try await request.body.collect(upTo: 16 * 1024)
        return try (try? StripeForm(body: String(buffer: body))) ?? StripeForm(body: "")
    }

    // MARK: Formats

    static func statusText(_ status: PaymentIntentStatus) -> String { status.rawValue.replacingOccurrences(of: "_", with: " ") }

    static func tone(_ status: PaymentIntentStatus) -> String {
        switch status {
        case .succeeded: "good"
        case .canceled: "bad"
        case .requiresAction, .requiresCapture, .processing: "warn"
        case .requiresPaymentMethod, .requiresConfirmation: ""
        }
    }

    static func methodText(_ intent: PaymentIntentRecord) -> String {
        guard let method = intent.charges?.last?.method ?? intent.attemptMethod else { return intent.machine.paymentMethodType?.rawValue ?? "–" }
        if let card = method.card { return "\(card.brand.displayName) •••• \(card.last4)" }
        return method.type.rawValue
    }

    /// Unix seconds as `2026-11-27 16:40 UTC`.
    static func time(_ seconds: Int64) -> String {
        let (year, month, day) = civil(seconds)
        let inDay = ((seconds % 86_400) + 86_400) % 86_400
        return String(format: "%04d-%02d-%02d %02d:%02d UTC", year, month, day, inDay / 3_600, inDay % 3_600 / 60)
    }

    /// The hour of unix seconds, UTC: `16h`.
    static func hour(_ seconds: Int64) -> String { "\(((seconds % 86_400) + 86_400) % 86_400 / 3_600)h" }

    static func shortDate(_ seconds: Int64) -> String {
        let (_, month, day) = civil(seconds)
        return "\(day)/\(month)"
    }

    /// `2026-11-27` as the unix seconds of its 00:00 UTC.
    static func day(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
              (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        guard civil(days * 86_400) == (year, month, day) else { return nil }
        return days * 86_400
    }

    /// The UTC date of unix seconds (Howard Hinnant's civil-from-days).
    static func civil(_ seconds: Int64) -> (Int64, Int64, Int64) {
        let days = (seconds - ((seconds % 86_400) + 86_400) % 86_400) / 86_400 + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func queryEscaped(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

}
