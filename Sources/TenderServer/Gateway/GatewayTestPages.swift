import Foundation
import Gateway
import GatewayCore
import Hummingbird
import TenderJSON

/// The pages a customer is sent to by `next_action.redirect_to_url`: the test issuer's 3-D
/// Secure challenge (`/v1/test/3ds/{id}`) and the test bank of iDEAL and Bancontact
/// (`/v1/test/bank/{id}`), each with "Complete" and "Fail" (the bank also with "Leave"). They
/// take the intent's client secret instead of a key, escape everything they show, load
/// nothing from elsewhere and send a Content-Security-Policy.
struct GatewayTestPages: Sendable {
    let service: GatewayService
    let routes: GatewayRoutes

    func register(on group: RouterGroup<GatewayRequestContext>) {
        group.get("test/3ds/:id") { request, context in
            let id = try context.parameters.require("id")
            guard id.hasPrefix("seti_") else {
                let (intent, _, _) = try await load(request, context, page: "3ds")
                return html(show(intent, page: "3ds", Self.text(request)))
            }
            let form = try StripeForm(body: request.uri.query ?? "")
            guard let (setup, _, _) = try await service.setupIntent(id: id, clientSecret: try form.string("client_secret", maxLength: 255)) else {
                throw StripeError.notFound("setup_intent", id)
            }
            return html(show(setup, Self.text(request)))
        }
        group.get("test/bank/:id") { request, context in
            let (intent, _, _) = try await load(request, context, page: "bank")
            return html(show(intent, page: "bank", Self.text(request)))
        }
        for page in ["3ds", "bank"] {
            group.post("test/\(page)/:id/:outcome") { request, context in
                let outcome = try context.parameters.require("outcome")
                let t = Self.text(request)
                guard outcome == "complete" || outcome == "fail" else { throw StripeError(status: .notFound, kind: .invalidRequest, code: nil, message: "Unrecognized request URL.") }
                if page == "3ds", try context.parameters.require("id").hasPrefix("seti_") {
                    return try await completeSetup(request, context, succeeded: outcome == "complete")
                }
                let (intent, stored, merchant) = try await load(request, context, page: page)
                var next = intent
                let action: PaymentIntentStateMachine.Action
                do { action = try next.machine.completeAction(succeeded: outcome == "complete") } catch {
                    return html(message(t("This payment is no longer waiting for you ({status}).", ["status": intent.machine.status.rawValue]), title: t("Nothing to do"), t), status: .conflict)
                }
                do {
                    _ = try await service.perform(action, on: next, over: stored, merchant, base: request.baseURL)
                } catch let failure as GatewayFailure where failure.category == .card {
                    // A declined payment still returns the customer to the shop, which reads the
                    // intent's status.
                }
                next = try await service.retrieve(PaymentIntentRecord.self, id: intent.id, merchant: merchant)
                let status = next.machine.status == .requiresPaymentMethod ? "failed" : "succeeded"
                guard let returnURL = next.returnURL else {
                    return html(message(t(status == "succeeded" ? "Payment authorised. You may close this page." : "Payment failed. You may close this page."), title: t("Done"), t))
                }
                return back(to: URLComponents(string: returnURL)!, "payment_intent", next.id.rawValue, secret: next.clientSecret, status: status)
            }
        }
        group.get("test/bank/:id/leave") { request, context in
            _ = try await load(request, context, page: "bank")
            let t = Self.text(request)
            return html(message(t("You left your bank without paying. The shop will find out that the payment was not made."), title: t("You left"), t))
        }
    }

    /// A setup intent's 3-D Secure passed or failed: back to its return URL with
    /// `setup_intent`, `setup_intent_client_secret` and `redirect_status`, as Stripe returns.
    func completeSetup(_ request: Request, _ context: GatewayRequestContext, succeeded: Bool) async throws -> Response {
        let id = try context.parameters.require("id")
        let form = try StripeForm(body: request.uri.query ?? "")
        let t = Self.text(request)
        let intent: SetupIntentRecord
        do {
            intent = try await service.completeSetupAction(id, clientSecret: try form.string("client_secret", maxLength: 255), succeeded: succeeded, base: request.baseURL)
        } catch let failure as GatewayFailure where failure.code?.rawValue == PaymentIntentStateError.Code.setupUnexpectedState.rawValue {
            return html(message(t("This card is no longer waiting for you."), title: t("Nothing to do"), t), status: .conflict)
        }
        let status = intent.machine.status == .succeeded ? "succeeded" : "failed"
        guard let returnURL = intent.returnURL, let components = URLComponents(string: returnURL) else {
            return html(message(t(status == "succeeded" ? "Card authenticated. You may close this page." : "Authentication failed. You may close this page."), title: t("Done"), t))
        }
        return back(to: components, "setup_intent", intent.id.rawValue, secret: intent.clientSecret, status: status)
    }

    /// The redirect back to the shop's return URL, with the intent (`name`), its client secret
    /// and how it went, as Stripe returns a customer.
    func back(to returnURL: URLComponents, _ name: String, _ id: String, secret: String, status: String) -> Response {
        var components = returnURL
        components.queryItems = (components.queryItems ?? []) + [
            URLQueryItem(name: name, value: id), URLQueryItem(name: name + "_client_secret", value: secret), URLQueryItem(name: "redirect_status", value: status),
        ]
        var headers = HTTPFields()
        headers[.location] = components.string!
        return Response(status: .seeOther, headers: headers)
    }

    /// A setup intent's 3-D Secure page: the card to authenticate, no amount.
    func show(_ intent: SetupIntentRecord, _ t: ConsoleText) -> String {
        guard intent.machine.status == .requiresAction else {
            return message(t("This card is not waiting for you ({status}).", ["status": intent.machine.status.rawValue]), title: t("Nothing to do"), t)
        }
        let query = "client_secret=" + Self.escape(intent.clientSecret)
        let base = "/v1/test/3ds/\(Self.escape(intent.id.rawValue))"
        let ask = intent.description.map { Self.fill(t("Authenticate your card to save it for {description}. Nothing is charged now."), ["description": Self.described($0)]) }
            ?? Self.escape(t("Authenticate your card to save it. Nothing is charged now."))
        return document(title: t("3-D Secure test page"), body: """
            <h1>\(Self.escape(t("3-D Secure test page")))</h1>
            <p>\(ask)</p>
            \(actions(base: base, query: query, t))
            """, t)
    }

    /// The Complete and Fail buttons.
    func actions(base: String, query: String, _ t: ConsoleText) -> String {
        """
        <div class="actions">
        <form method="post" action="\(base)/complete?\(query)"><button id="complete" type="submit">\(Self.escape(t("Complete")))</button></form>
        <form method="post" action="\(base)/fail?\(query)"><button id="fail" class="secondary" type="submit">\(Self.escape(t("Fail")))</button></form>
        </div>
        """
    }

    /// The page's language: `?locale=` (en, nl, de), else the browser's `Accept-Language`.
    static func text(_ request: Request) -> ConsoleText {
        let query = (try? StripeForm(body: request.uri.query ?? "")).flatMap { try? $0.string("locale", maxLength: 8) } ?? nil
        return ConsoleText(locale: ConsoleText.locale(query: query, cookie: nil, acceptLanguage: request.headers[.acceptLanguage]))
    }

    /// A translated text, escaped, with its `{name}` placeholders replaced by HTML made here.
    static func fill(_ text: String, _ html: [String: String]) -> String {
        var out = escape(text)
        for (name, value) in html { out = out.replacingOccurrences(of: "{\(name)}", with: value) }
        return out
    }

    static func described(_ description: String) -> String { "<span id=\"description\">\(escape(description))</span>" }

    /// The intent named in the path, if the query's client secret is its own.
    func load(_ request: Request, _ context: GatewayRequestContext, page: String) async throws -> (PaymentIntentRecord, StoredObject, MerchantRecord) {
        let id = try context.parameters.require("id")
        let form = try StripeForm(body: request.uri.query ?? "")
        guard let found = try await service.intent(id: id, clientSecret: try form.string("client_secret", maxLength: 255)) else {
            throw StripeError.notFound("payment_intent", id)
        }
        return found
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    func show(_ intent: PaymentIntentRecord, page: String, _ t: ConsoleText) -> String {
        let query = "client_secret=" + Self.escape(intent.clientSecret)
        let base = "/v1/test/\(page)/\(Self.escape(intent.id.rawValue))"
        guard intent.machine.status == .requiresAction else {
            return message(t("This payment is not waiting for you ({status}).", ["status": intent.machine.status.rawValue]), title: t("Nothing to do"), t)
        }
        let title = t(page == "3ds" ? "3-D Secure test page" : "Test bank")
        let amount = "<strong id=\"amount\">\(Self.escape(t.money(intent.machine.amount, intent.currency)))</strong>"
        let ask = intent.description.map { Self.fill(t("Authorise a payment of {amount} for {description}."), ["amount": amount, "description": Self.described($0)]) }
            ?? Self.fill(t("Authorise a payment of {amount}."), ["amount": amount])
        var body = """
            <h1>\(Self.escape(title))</h1>
            <p>\(ask)</p>
            \(actions(base: base, query: query, t))
            """
        if page == "bank" { body += "\n<p><a id=\"leave\" href=\"\(base)/leave?\(query)\">\(Self.escape(t("Leave")))</a></p>" }
        return document(title: title, body: body, t)
    }

    func message(_ text: String, title: String, _ t: ConsoleText) -> String {
        document(title: title, body: "<h1>\(Self.escape(title))</h1>\n<p id=\"message\">\(Self.escape(text))</p>", t)
    }

    func document(title: String, body: String, _ t: ConsoleText) -> String {
        """
        <!doctype html>
        <html lang="\(t.locale.rawValue)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(Self.escape(title))</title>
        <link rel="stylesheet" href="/assets/tender.css">
        </head><body>
        <header class="bar"><div class="inner"><span class="brand">\(Self.escape(t("Tender test issuer")))</span></div></header>
        <main id="main"><div class="card test-page">
        \(body)
        </div></main>
        </body></html>
        """
    }

    func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        // Nothing loads from elsewhere; the forms post here and the shop's return URL follows.
        // Only Tender's own payment page may show it in a frame.
        headers[HTTPFields.headerName("Content-Security-Policy")] = "default-src 'none'; style-src 'self'; form-action 'self' http: https:; base-uri 'none'; frame-ancestors 'self'"
        headers[HTTPFields.headerName("Referrer-Policy")] = "no-referrer"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
