import Foundation
import Gateway
import GatewayCore
import Hummingbird
import Mustache
import TenderJSON

/// The hosted payment page: `/pay/{client secret}` for an intent the merchant made, or
/// `/pay/{payment link id}` for a payment link (each payment through it an intent of the
/// merchant). Rendered by the server with a Mustache template; a small script of Tender's own
/// checks the fields as they are typed (with the brand table and the messages rendered from
/// Gateway's card rules) and pays through `/v1` with the merchant's publishable key. Nothing is
/// loaded from elsewhere; a Content-Security-Policy says so.
struct PaymentPage: Sendable {
    let service: GatewayService
    let routes: GatewayRoutes

    func register(on router: Router<BasicRequestContext>) {
        let pay = router.group("pay")
        pay.add(middleware: APIErrorMiddleware(shape: StripeErrorShape(), logger: routes.logger))
        pay.get("assets/pay.js") { _, _ in Self.asset(PaymentPageAssets.script, type: "text/javascript; charset=utf-8") }
        pay.get("assets/pay.css") { _, _ in Self.asset(PaymentPageAssets.style, type: "text/css; charset=utf-8") }
        pay.get("assets/return.js") { _, _ in Self.asset(PaymentPageAssets.returnScript, type: "text/javascript; charset=utf-8") }
        pay.get(":token") { request, context in try await page(request, token: try context.parameters.require("token")) }
        pay.get(":token/return") { _, _ in
            Self.html(Self.returnPage, nonce: nil)
        }
        pay.post(":token/intents") { request, context in try await startLinkPayment(request, linkID: try context.parameters.require("token")) }
    }

    // MARK: Links

    /// `POST /v1/payment_links`: amount, currency, description, theme[primary|error|disabled|radius], metadata.
    func createLink(_ form: StripeForm, _ merchant: MerchantRecord, base: String) async throws -> JSONValue {
        try form.refuseUnknown(["amount", "currency", "description", "theme", "metadata"])
        guard let amount = try form.integer("amount") else { throw StripeError.missing("amount") }
        let currencyCode = try form.requiredString("currency", maxLength: 10)
        guard let currency = GatewayCurrency.named(currencyCode) else {
            throw StripeError.invalid("currency", "Invalid currency: \(currencyCode.prefix(10)). Tender's test anchor issues eur and usd.")
        }
        guard amount >= PaymentMethodType.card.minimumMinorUnits, amount <= FiatConversion.maxPaymentMinorUnits else {
            throw StripeError.invalid("amount", "Amount must be \(PaymentMethodType.card.minimumMinorUnits) to \(FiatConversion.maxPaymentMinorUnits) minor units.", code: "amount_invalid")
        }
        var theme = PageTheme.standard
        if let fields = try form.hash("theme") {
            try fields.refuseUnknown(["primary", "error", "disabled", "radius"])
            for (name, path) in [("primary", \PageTheme.primary), ("error", \PageTheme.error), ("disabled", \PageTheme.disabled)] {
                guard let value = try fields.string(name, maxLength: 7) else { continue }
                guard PageTheme.isColor(value) else { throw StripeError.invalid("theme[\(name)]", "theme[\(name)] must be a colour as #rgb or #rrggbb.") }
                theme[keyPath: path] = value
            }
            if let radius = try fields.integer("radius") {
                guard PageTheme.radii.contains(Int(radius)) else { throw StripeError.invalid("theme[radius]", "theme[radius] must be 0 to 32 (pixels).") }
                theme.radius = Int(radius)
            }
        }
        let link = PaymentLinkRecord(
            id: PaymentLinkID(service.newID("plink")), created: service.now(), amount: amount, currency: currency.code,
            description: try form.string("description", maxLength: 500).flatMap { $0.isEmpty ? nil : $0 }, theme: theme,
            metadata: try (form.metadata() ?? [:]).compactMapValues { $0 })
        try await service.createPaymentLink(link, merchant: merchant)
        return Self.linkJSON(link, base: base)
    }

    static func linkJSON(_ link: PaymentLinkRecord, base: String) -> JSONValue {
        .object([
            ("id", .string(link.id.rawValue)), ("object", "payment_link"), ("created", .number(link.created)), ("livemode", false), ("active", .bool(link.active)),
            ("amount", .number(link.amount)), ("currency", .string(link.currency)), ("description", GatewayObjects.optional(link.description)),
            ("theme", .object([("primary", .string(link.theme.primary)), ("error", .string(link.theme.error)), ("disabled", .string(link.theme.disabled)), ("radius", .number(Int64(link.theme.radius)))])),
            ("metadata", GatewayObjects.metadata(link.metadata)), ("url", .string("\(base)/pay/\(link.id)")),
        ])
    }

    /// A payment through a link: a new intent of the link's merchant (card, and iDEAL and
    /// Bancontact for euros), whose id and client secret the page pays with.
    func startLinkPayment(_ request: Request, linkID: String) async throws -> Response {
        guard let (link, merchant) = try await service.paymentLink(linkID) else { throw StripeError.notFound("payment_link", linkID) }
        let intent = try await service.startPayment(from: link, merchant: merchant, base: request.baseURL)
        return routes.json(.object([("id", .string(intent.id.rawValue)), ("client_secret", .string(intent.clientSecret))]))
    }

    // MARK: The page

    /// What `/pay/{token}` names: an intent by its client secret, a payment link, or a
    /// Checkout Session (with the intent that pays it).
    func resolve(_ token: String) async throws -> (merchant: MerchantRecord, intent: PaymentIntentRecord?, link: PaymentLinkRecord?, session: CheckoutSessionView?) {
        guard token.utf8.count <= 255 else { throw StripeError.notFound("payment page", String(token.prefix(40))) }
        if token.hasPrefix("plink_") {
            guard let (link, merchant) = try await service.paymentLink(token) else { throw StripeError.notFound("payment_link", token) }
            return (merchant, nil, link, nil)
        }
        if token.hasPrefix("cs_") {
            guard let view = try await service.checkoutSession(page: token) else { throw StripeError.notFound("checkout.session", token) }
            return (view.merchant, view.intent, nil, view)
        }
        guard let (intent, _, merchant) = try await service.intent(clientSecret: token) else {
            throw StripeError.notFound("payment page", String(token.prefix(40)))
        }
        return (merchant, intent, nil, nil)
    }

    func page(_ request: Request, token: String) async throws -> Response {
        let (merchant, intent, link, session) = try await resolve(token)
        let query = try StripeForm(body: request.uri.query ?? "")
        let locale = try query.string("locale", maxLength: 10).flatMap { CardTextLocale(rawValue: $0.lowercased()) }
            ?? CardTextLocale.preferred(acceptLanguage: request.headers[.acceptLanguage])
        guard let key = service.publishableKey(of: merchant) else {
            throw StripeError.invalid(nil, "This merchant was made before payment pages existed; make a new merchant for them.", code: "merchant_too_old")
        }
        var theme = link?.theme ?? .standard
        // Query parameters override the link's theme; a value that is not a colour or a radius is ignored.
        for (name, path) in [("primary", \PageTheme.primary), ("error", \PageTheme.error), ("disabled", \PageTheme.disabled)] {
            if let value = try? query.string(name, maxLength: 7), PageTheme.isColor(value) { theme[keyPath: path] = value }
        }
        if let text = try? query.string("radius", maxLength: 2), let radius = Int(text), PageTheme.radii.contains(radius) { theme.radius = radius }
        let amount = intent?.machine.amount ?? link?.amount ?? 0
        let currency = intent?.currency ?? link?.currency ?? "eur"
        let types = intent?.paymentMethodTypes ?? (currency == "eur" ? [.card, .ideal, .bancontact] : [.card])
        let text = PageText.texts(locale)
        let today = service.today()
        let prefixes: [JSONValue] = CardBrand.prefixes.map { entry in
            .array([.number(Int64(entry.digits)), .number(Int64(entry.low)), .number(Int64(entry.high)), .string(entry.brand.rawValue)])
        }
        let brands: [(String, JSONValue)] = CardBrand.allCases.map { brand in
            let name: JSONValue = .string(brand == .unknown ? (text["card"] ?? "card") : brand.displayName)
            let lengths: JSONValue = .array(brand.lengths.map { .number(Int64($0)) })
            let grouping: JSONValue = .array(brand.grouping.map { .number(Int64($0)) })
            return (brand.rawValue, .object([("name", name), ("lengths", lengths), ("cvc", .number(Int64(brand.securityCodeLength))), ("grouping", grouping)]))
        }
        let messages: [(String, JSONValue)] = CardMessage.allCases.map { ($0.rawValue, .string($0.template(locale))) }
        let words: [(String, JSONValue)] = text.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }
        var intentJSON: JSONValue = .null
        if let intent { intentJSON = .object([("id", .string(intent.id.rawValue)), ("client_secret", .string(intent.clientSecret))]) }
        // A session's page goes back to the shop once paid; one that expired unpaid is canceled.
        var status: JSONValue = intent.map { .string($0.machine.status.rawValue) } ?? .null
        var successURL: JSONValue = .null
        if let session {
            switch session.status(now: service.now()) {
            case .expired: status = "canceled"
            case .complete, .open: break
            }
            successURL = .string(session.session.successURL.replacingOccurrences(of: "{CHECKOUT_SESSION_ID}", with: session.session.id.rawValue))
        }
        let data: JSONValue = .object([
            ("key", .string(key)), ("token", .string(token)), ("locale", .string(locale.rawValue)), ("intent", intentJSON),
            ("status", status), ("success_url", successURL),
            ("today", .object([("year", .number(Int64(today.year))), ("month", .number(Int64(today.month)))])),
            ("prefixes", .array(prefixes)), ("brands", .object(brands)), ("messages", .object(messages)), ("text", .object(words)),
        ])
        let nonce = PaylikeRoutes.base64url(service.random(16))
        var values: [String: Any] = ["lang": locale.rawValue, "nonce": nonce, "merchant": merchant.name, "t": text]
        values["amount"] = PageText.money(amount, currency: currency, locale: locale)
        if let description = intent?.description ?? link?.description { values["description"] = description }
        if let session {
            values["items"] = session.session.lineItems.map { item -> [String: Any] in
                ["name": item.name, "quantity": item.quantity, "amount": PageText.money(item.unitAmount * item.quantity, currency: currency, locale: locale)]
            }
            values["hasItems"] = true
            if let cancel = session.session.cancelURL { values["cancelURL"] = cancel }
        }
        values["banks"] = types.contains(.ideal) || types.contains(.bancontact)
        values["ideal"] = types.contains(.ideal)
        values["bancontact"] = types.contains(.bancontact)
        values["primary"] = theme.primary
        values["error"] = theme.error
        values["disabled"] = theme.disabled
        values["radius"] = theme.radius
        // Inside a script element only "</" could end it: "<" is written as \u003c.
        values["data"] = data.compact().replacingOccurrences(of: "<", with: "\\u003c")
        return Self.html(Self.template.render(values), nonce: nonce)
    }

    static let template: MustacheTemplate = {
        // The template is part of the program: a mistake in it fails every test at once.
        try! MustacheTemplate(string: PaymentPageAssets.pageTemplate)
    }()

    static let returnPage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Returning</title></head>
        <body><p id="returning">Returning to the payment…</p><script src="/pay/assets/return.js"></script></body></html>
        """

    static func html(_ text: String, nonce: String?) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        let style = nonce.map { "style-src 'self' 'nonce-\($0)'" } ?? "style-src 'self'"
        headers[HTTPFields.headerName("Content-Security-Policy")] =
            "default-src 'none'; script-src 'self'; \(style); connect-src 'self'; frame-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'self'"
        headers[HTTPFields.headerName("Referrer-Policy")] = "no-referrer"
        headers[HTTPFields.headerName("X-Content-Type-Options")] = "nosniff"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[HTTPFields.headerName("X-Content-Type-Options")] = "nosniff"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// The page's words in English, Dutch and German, and money as each writes it.
enum PageText {
    static func texts(_ locale: CardTextLocale) -> [String: String] {
        switch locale {
        case .en: [
            "title": "Pay", "card": "card", "cardNumber": "Card number", "expiry": "Expiry (MM/YY)", "securityCode": "Security code", "nameOnCard": "Name on card (optional)",
            "pay": "Pay", "paying": "Paying…", "authenticate": "Your bank asks you to confirm this payment.", "paid": "Payment received",
            "paidText": "Thank you. You may close this page.", "failed": "The payment did not go through", "tryAgain": "Try again",
            "orPayWith": "Or pay with", "canceled": "This payment was canceled.", "language": "Language", "back": "Back to the shop",
        ]
        case .nl: [
            "title": "Betalen", "card": "kaart", "cardNumber": "Kaartnummer", "expiry": "Vervaldatum (MM/JJ)", "securityCode": "Beveiligingscode", "nameOnCard": "Naam op de kaart (optioneel)",
            "pay": "Betaal", "paying": "Bezig met betalen…", "authenticate": "Je bank vraagt je deze betaling te bevestigen.", "paid": "Betaling ontvangen",
            "paidText": "Dank je wel. Je kunt deze pagina sluiten.", "failed": "De betaling is niet gelukt", "tryAgain": "Probeer opnieuw",
            "orPayWith": "Of betaal met", "canceled": "Deze betaling is geannuleerd.", "language": "Taal", "back": "Terug naar de winkel",
        ]
        case .de: [
            "title": "Bezahlen", "card": "Karte", "cardNumber": "Kartennummer", "expiry": "Ablaufdatum (MM/JJ)", "securityCode": "Sicherheitscode", "nameOnCard": "Name auf der Karte (optional)",
            "pay": "Bezahlen", "paying": "Zahlung läuft…", "authenticate": "Ihre Bank bittet Sie, diese Zahlung zu bestätigen.", "paid": "Zahlung erhalten",
            "paidText": "Vielen Dank. Sie können diese Seite schließen.", "failed": "Die Zahlung ist nicht gelungen", "tryAgain": "Erneut versuchen",
            "orPayWith": "Oder bezahlen mit", "canceled": "Diese Zahlung wurde storniert.", "language": "Sprache", "back": "Zurück zum Shop",
        ]
        }
    }

    /// `minor` units of `currency` as the locale writes money: €10.00, € 10,00, 10,00 €.
    static func money(_ minor: Int64, currency: String, locale: CardTextLocale) -> String {
        let exponent = GatewayCurrency.named(currency)?.exponent ?? 2
        let plain = FiatConversion.format(minorUnits: minor, exponent: exponent)
        let symbol = ["eur": "€", "usd": "$"][currency] ?? currency.uppercased()
        switch locale {
        case .en: return symbol + plain
        case .nl: return symbol + " " + plain.replacingOccurrences(of: ".", with: ",")
        case .de: return plain.replacingOccurrences(of: ".", with: ",") + " " + symbol
        }
    }
}
