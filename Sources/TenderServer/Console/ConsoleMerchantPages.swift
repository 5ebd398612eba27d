import Foundation
import Gateway
import GatewayCore
import Hummingbird

/// The console's other pages of a merchant: customers and their saved methods, the balance and
/// its balance transactions, payouts, webhook endpoints and their deliveries.
extension ConsoleRoutes {
    struct Column {
        let title: String
        var num = false
    }

    struct Cell {
        var text: String
        var href: String? = nil
        var code = false
        var num = false
        var tone: String? = nil

        var values: [String: Any] {
            var values: [String: Any] = ["text": text]
            if let href { values["href"] = href }
            if code { values["code"] = true }
            if num { values["num"] = true }
            if let tone { values["tone"] = tone }
            return values
        }
    }

    static func table(_ columns: [Column], _ rows: [[Cell]], empty: String, caption: String? = nil) -> String {
        var values: [String: Any] = [
            "columns": columns.map { ["title": $0.title, "num": $0.num] }, "width": columns.count, "empty": empty,
            "rows": rows.map { ["cells": $0.map(\.values)] },
        ]
        if let caption { values["caption"] = caption }
        return ConsoleTemplates.table.render(values)
    }

    static func facts(_ facts: [(String, String, Bool)]) -> String {
        ConsoleTemplates.facts.render(["facts": facts.map { ["key": $0.0, "value": $0.1, "code": $0.2] }])
    }

    struct Section {
        let title: String
        var text: String? = nil
        let html: String
        var pager: String? = nil
        /// The pager link's words (default: "Older").
        var pagerText: String? = nil
        /// Where the section's content is kept up to date from (`/console/live...`), if it is.
        var live: String? = nil
    }

    func sectionsPage(_ scope: Scope, title: String, heading: String, current: String, sections: [Section],
                      back: (String, String)? = nil, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        var values: [String: Any] = [
            "heading": heading, "older": scope.text("Older"),
            "sections": sections.enumerated().map { index, section -> [String: Any] in
                var values: [String: Any] = ["index": index, "title": section.title, "html": section.html]
                if let text = section.text { values["text"] = text }
                if let pager = section.pager { values["pager"] = pager; values["pagerText"] = section.pagerText ?? scope.text("Older") }
                if let live = section.live { values["liveURL"] = live }
                return values
            },
        ]
        if let back { values["back"] = back.0; values["backText"] = back.1 }
        if sections.contains(where: { $0.live != nil }) { values["live"] = true }
        if let notice { values["notice"] = notice }
        if let error { values["error"] = error }
        return render(title: title, body: ConsoleTemplates.sections.render(values), scope: scope, current: current, status: status)
    }

    /// `?merchant=...&name=value` or `?name=value`.
    static func link(_ path: String, _ scope: Scope, _ items: [(String, String)] = []) -> String {
        var all: [(String, String)] = []
        if !scope.query.isEmpty, let merchant = scope.merchant { all.append(("merchant", merchant.id)) }
        all += items
        return path + (all.isEmpty ? "" : "?" + all.map { "\($0.0)=\(queryEscaped($0.1))" }.joined(separator: "&"))
    }

    static func queryValue(_ request: Request, _ name: String) -> String {
        guard let form = try? StripeForm(body: request.uri.query ?? "") else { return "" }
        return ((try? form.string(name, maxLength: 255)) ?? nil) ?? ""
    }

    // MARK: Customers

    func customers(_ scope: Scope, _ request: Request) async throws -> Response {
        let t = scope.text
        guard let merchant = scope.merchant else { return Self.redirect("/console") }
        let after = Self.queryValue(request, "after")
        let email = Self.queryValue(request, "email").trimmingCharacters(in: .whitespaces)
        let page = try await service.customers(merchant: merchant, page: ListRequest(limit: 25, startingAfter: after.isEmpty ? nil : after), email: email.isEmpty ? nil : email)
        let rows = page.records.map { customer -> [Cell] in
            [
                Cell(text: customer.name ?? "–", href: Self.link("/console/customers/\(customer.id)", scope)), Cell(text: customer.email ?? "–"),
                Cell(text: customer.id.rawValue, code: true), Cell(text: Self.time(customer.created)),
            ]
        }
        let table = Self.table([Column(title: t("Name")), Column(title: t("E-mail")), Column(title: t("Id")), Column(title: t("Created"))], rows, empty: t("No customers."))
        let next = page.hasMore ? page.records.last.map { Self.link("/console/customers", scope, [("after", $0.id.rawValue)] + (email.isEmpty ? [] : [("email", email)])) } : nil
        return sectionsPage(scope, title: t("Customers"), heading: t("Customers"), current: "customers", sections: [
            Section(title: t("Customers, newest first"), text: email.isEmpty ? nil : t("With the e-mail {email}.", ["email": email]), html: table, pager: next ?? nil),
        ])
    }

    func customer(_ scope: Scope, id: String) async throws -> Response {
        let t = scope.text
        guard let merchant = scope.merchant else { return Self.redirect("/console") }
        guard let customer = try await service.find(CustomerRecord.self, id: CustomerID(id), merchant: merchant) else { return notFound(scope) }
        var facts: [(String, String, Bool)] = [(t("Id"), customer.id.rawValue, true), (t("Created"), Self.time(customer.created), false)]
        if let name = customer.name { facts.append((t("Name"), name, false)) }
        if let email = customer.email { facts.append((t("E-mail"), email, false)) }
        if let phone = customer.phone { facts.append((t("Phone"), phone, false)) }
        if let method = customer.defaultPaymentMethod { facts.append((t("Default payment method"), method.rawValue, true)) }
        for (key, value) in customer.metadata.sorted(by: { $0.key < $1.key }) { facts.append(("metadata." + key, value, false)) }
        let methods = try await service.paymentMethods(of: customer.id, type: nil, merchant: merchant, page: ListRequest(limit: 100)).records
        let methodRows = methods.map { method -> [Cell] in
            let card = method.card.map { "\($0.brand.displayName) •••• \($0.last4), expires \(String(format: "%02d/%d", $0.expMonth, $0.expYear))" }
            return [
                Cell(text: card ?? method.type.rawValue), Cell(text: method.setUpForLater.map { "set up for \($0.rawValue.replacingOccurrences(of: "_", with: " "))" } ?? "–"),
                Cell(text: method.id.rawValue, code: true), Cell(text: Self.time(method.created)),
            ]
        }
        var filter = PaymentFilter()
        filter.customer = customer.id
        let payments = try await service.payments(merchant: merchant, filter: filter, startingAfter: nil, limit: 10)
        return sectionsPage(scope, title: t("Customer") + " " + customer.id.rawValue, heading: customer.name ?? customer.email ?? customer.id.rawValue, current: "customers", sections: [
            Section(title: t("Customer"), html: Self.facts(facts)),
            Section(title: t("Saved payment methods"), html: Self.table(
                [Column(title: t("Method")), Column(title: t("Use")), Column(title: t("Id")), Column(title: t("Saved"))], methodRows, empty: t("No saved payment methods."))),
            Section(title: t("Latest payments"), html: paymentsTable(payments.intents, scope: scope)),
        ], back: (Self.link("/console/customers", scope), t("Customers")))
    }

    // MARK: Balance and payouts

    func balance(_ scope: Scope, _ request: Request) async throws -> Response {
        let t = scope.text
        guard let merchant = scope.merchant else { return Self.redirect("/console") }
        let after = Self.queryValue(request, "after")
        let typeText = Self.queryValue(request, "type")
        let type = BalanceTransactionRecord.Kind(rawValue: typeText)
        let balances = try await service.balances(merchant)
        let page = try await service.balanceTransactions(merchant: merchant, page: ListRequest(limit: 25, startingAfter: after.isEmpty ? nil : after), type: type, source: nil)
        let rows = page.records.map { movement -> [Cell] in
            [
                Cell(text: movement.type.rawValue.replacingOccurrences(of: "_", with: " ")), Cell(text: t.money(movement.amount, movement.currency), num: true),
                Cell(text: t.money(movement.fee, movement.currency), num: true), Cell(text: t.money(movement.amount - movement.fee, movement.currency), num: true),
                Cell(text: movement.source, href: movement.source.hasPrefix("ch_") ? ChargeID(movement.source).attempt.map { Self.link("/console/payments/\($0.paymentIntent)", scope) } : nil, code: true),
                Cell(text: Self.time(movement.created)),
            ]
        }
        let next = page.hasMore ? page.records.last.map { Self.link("/console/balance", scope, [("after", $0.id.rawValue)] + (type == nil ? [] : [("type", typeText)])) } : nil
        let payouts = try await service.list(PayoutRecord.self, merchant: merchant, ListRequest(limit: 25)).records
        let payoutRows = payouts.map { payout -> [Cell] in
            [
                Cell(text: t.money(payout.amount, payout.currency), num: true), Cell(text: payout.destination, code: true),
                Cell(text: payout.ledgerTransaction, href: "/console/explorer/transactions/\(payout.ledgerTransaction)", code: true), Cell(text: Self.time(payout.created)),
            ]
        }
        return sectionsPage(scope, title: t("Balance"), heading: t("Balance"), current: "balance", sections: [
            Section(title: t("Available"), text: t("What the merchant's settlement account holds on the ledger, and so what the balance transactions add up to."),
                    html: Self.facts(balances.map { ($0.0.code.uppercased(), t.money($0.1, $0.0.code), false) })),
            Section(title: type.map { t("Balance transactions: {type}", ["type": $0.rawValue]) } ?? t("Balance transactions"), html: Self.table(
                [Column(title: t("Type")), Column(title: t("Amount"), num: true), Column(title: t("Fee"), num: true), Column(title: t("Net"), num: true), Column(title: t("Source")), Column(title: t("Created"))],
                rows, empty: t("No balance transactions.")), pager: next ?? nil),
            Section(title: t("Payouts"), html: Self.table(
                [Column(title: t("Amount"), num: true), Column(title: t("To")), Column(title: t("Ledger transaction")), Column(title: t("Created"))], payoutRows, empty: t("No payouts."))),
        ])
    }

    // MARK: Webhooks

    func webhooks(_ scope: Scope, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let t = scope.text
        guard let merchant = scope.merchant else { return Self.redirect("/console") }
        let csrf = scope.session.csrfToken(key: key)
        let endpoints = try await service.list(WebhookEndpointRecord.self, merchant: merchant, ListRequest(limit: 16)).records
        var sections = [Section(title: t("Add an endpoint"), text: t("Events: * for all, or types separated by commas (payment_intent.succeeded, charge.refunded…)."),
                                html: ConsoleTemplates.webhookForms.render(["csrf": csrf, "scope": scope.query, "t": t.lambda]))]
        for endpoint in endpoints {
            let deliveries = try await service.deliveries(ofEndpoint: endpoint.id, merchant: merchant, limit: 25)
            let rows = deliveries.map { delivery -> [Cell] in
                let tone = switch delivery.status {
                case .delivered: "good"
                case .failed: "bad"
                case .pending: "warn"
                }
                return [
                    Cell(text: delivery.event, code: true), Cell(text: delivery.status.rawValue, tone: tone), Cell(text: String(delivery.attempts), num: true),
                    Cell(text: delivery.lastStatusCode.map { $0 == 0 ? t("no answer") : String($0) } ?? "–"),
                    Cell(text: delivery.lastAttemptAt.map(Self.time) ?? "–"),
                    Cell(text: delivery.status == .pending ? Self.time(delivery.nextAttemptAt) : "–"),
                ]
            }
            var table = Self.table(
                [Column(title: t("Event")), Column(title: t("Status")), Column(title: t("Attempts"), num: true), Column(title: t("Last answer")), Column(title: t("Last tried")), Column(title: t("Next retry"))],
                rows, empty: t("Nothing delivered yet."), caption: t("Latest deliveries"))
            // One Resend per delivery that is not on its way already.
            let resendable = deliveries.filter { $0.status != .pending || $0.attempts > 0 }
            if !resendable.isEmpty {
                table += "<div class=\"actions\">" + resendable.prefix(10).map {
                    ConsoleTemplates.resend.render(["csrf": csrf, "scope": scope.query, "endpoint": endpoint.id.rawValue, "delivery": $0.id, "t": t.lambda])
                }.joined() + "</div>"
            }
            let facts = Self.facts([
                (t("URL"), endpoint.url, true), (t("Events"), endpoint.enabledEvents.joined(separator: ", "), false),
                (t("Status"), endpoint.disabled == true ? t("disabled") : t("enabled"), false), (t("Id"), endpoint.id.rawValue, true),
            ])
            let actions = ConsoleTemplates.endpointActions.render([
                "csrf": csrf, "scope": scope.query, "id": endpoint.id.rawValue,
                "toggle": endpoint.disabled == true ? "enable" : "disable", "toggleText": endpoint.disabled == true ? t("Enable") : t("Disable"), "t": t.lambda,
            ])
            sections.append(Section(title: endpoint.url, text: endpoint.description, html: facts + actions + table))
        }
        return sectionsPage(scope, title: t("Webhooks"), heading: t("Webhooks"), current: "webhooks", sections: sections, notice: notice, error: error, status: status)
    }

    /// Add, disable, enable or delete an endpoint, or resend a delivery, posted from the webhooks page.
    func changeWebhooks(_ scope: Scope, _ request: Request) async throws -> Response {
        guard let merchant = scope.merchant else { return notFound(scope) }
        let form = try await Self.form(request)
        guard scope.session.acceptsCSRF(try? form.string("csrf", maxLength: 100), key: key) else { return forbidden(scope) }
        func field(_ name: String) -> String { ((try? form.string(name, maxLength: 2_048)) ?? nil)?.trimmingCharacters(in: .whitespaces) ?? "" }
        let outcome = await webhookChange(field, merchant: merchant, base: request.baseURL, text: scope.text)
        switch outcome {
        case .success(let done): return try await webhooks(scope, notice: done)
        case .failure(let failure):
            let category = failure.category
            return try await webhooks(scope, error: failure.message, status: category == .notFound ? .notFound : .badRequest)
        }
    }

    /// What a webhooks form asked for, done: the line to show, or the core's refusal.
    private func webhookChange(_ field: (String) -> String, merchant: MerchantRecord, base: String, text t: ConsoleText) async -> Result<String, GatewayFailure> {
        let endpoint = WebhookEndpointID(field("endpoint"))
        do {
            switch field("action") {
            case "add":
                let events = field("events").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                let (made, _) = try await service.createWebhookEndpoint(url: field("url"), events: events.isEmpty ? ["*"] : events, merchant: merchant)
                return .success(t("Endpoint {id} added. Its signing secret is shown once, by the API (POST /v1/webhook_endpoints); make one there to receive signed events you can verify.", ["id": made.id.rawValue]))
            case "disable", "enable":
                _ = try await service.updateWebhookEndpoint(endpoint, url: nil, events: nil, disabled: field("action") == "disable", description: nil, merchant: merchant)
                return .success(field("action") == "disable" ? t("Endpoint disabled: it is sent nothing until enabled.") : t("Endpoint enabled."))
            case "delete":
                try await service.deleteWebhookEndpoint(endpoint, merchant: merchant)
                return .success(t("Endpoint deleted."))
            case "test":
                let event = try await service.sendTestEvent(to: endpoint, merchant: merchant, base: base)
                return .success(t("A test event ({event}, payment_intent.succeeded) is on its way.", ["event": event]))
            case "resend":
                let delivery = try await service.resendDelivery(field("delivery"), endpoint: endpoint, merchant: merchant)
                return .success(t("Event {event} will be sent again now.", ["event": delivery.event]))
            default:
                return .failure(GatewayFailure.invalid("action", "Unknown action."))
            }
        } catch {
            return .failure(error)
        }
    }
}
