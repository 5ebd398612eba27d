import Checkout
import CheckoutCore
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import Mustache

/// `/shop`: a minimal marketplace web page on the checkout API's own logic: the listings, one
/// listing with Buy now, and the payment screen (pickup or delivery, address, payment method,
/// totals that follow the choices, Pay through the test 3-D Secure or bank page and back, the
/// order's status). Server-rendered with swift-mustache; the user's token lives in an HttpOnly,
/// SameSite=Strict cookie set by `/shop/login?token=`; nothing is loaded from elsewhere.
struct ShopPages: Sendable {
    let routes: CheckoutRoutes
    var service: CheckoutService { routes.service }
    static let cookie = "tender_shop"

    func register(on router: Router<BasicRequestContext>) {
        let shop = router.group("shop")
        shop.add(middleware: APIErrorMiddleware(shape: CheckoutErrorShape(), logger: routes.logger))
        shop.get("assets/shop.js") { _, _ in PaymentPage.asset(Self.script, type: "text/javascript; charset=utf-8") }
        shop.get("assets/shop.css") { _, _ in PaymentPage.asset(Self.style, type: "text/css; charset=utf-8") }
        shop.get("login") { request, _ in
            let query = try StripeForm(body: request.uri.query ?? "")
            guard let token = try query.string("token", maxLength: 2_048) else { throw CheckoutError.unauthorized }
            _ = try await service.authenticateUser(token: token)
            var headers = HTTPFields()
            headers[.location] = "/shop"
            headers[.setCookie] = "\(Self.cookie)=\(token); Path=/shop; HttpOnly; SameSite=Strict"
            return Response(status: .seeOther, headers: headers)
        }
        shop.get("") { request, _ in try await listings(request) }
        shop.get("listings/:id") { request, context in try await listing(request, id: RecordID(try context.parameters.require("id"))) }
        shop.post("listings/:id/buy") { request, context in
            let caller = try await caller(request)
            let bid = try await service.buyNow(RecordID(try context.parameters.require("id")), by: caller)
            return Self.redirect("/shop/bids/\(bid.id)")
        }
        shop.get("bids/:id") { request, context in try await screen(request, bidID: RecordID(try context.parameters.require("id"))) }
        shop.post("bids/:id/pay") { request, context in try await pay(request, bidID: RecordID(try context.parameters.require("id"))) }
        shop.get("orders/:id") { request, context in try await order(request, id: RecordID(try context.parameters.require("id"))) }
        shop.get("orders") { request, _ in try await orders(request) }
        shop.post("logout") { _, _ in
            var headers = HTTPFields()
            headers[.location] = "/shop/signed-out"
            headers[.setCookie] = "\(Self.cookie)=; Path=/shop; HttpOnly; SameSite=Strict; Max-Age=0"
            return Response(status: .seeOther, headers: headers)
        }
        shop.get("signed-out") { request, _ in page(Self.signedOutTemplate, [:], request) }
    }

    /// The user of the cookie.
    func caller(_ request: Request) async throws -> CheckoutService.Caller {
        let cookies = request.headers[values: .cookie].flatMap { $0.split(separator: ";") }
        guard let pair = cookies.map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: { $0.hasPrefix(Self.cookie + "=") }) else {
            throw CheckoutFailure.unauthorized
        }
        return try await service.authenticateUser(token: String(pair.dropFirst(Self.cookie.count + 1)))
    }

    static func redirect(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }

    static func money(_ minor: Int64) -> String { PageText.money(minor, currency: "eur", locale: .en) }

    /// A page in the reader's language (`?locale=`, the console's language cookie, or
    /// Accept-Language), its words looked up as the console's are (``ConsoleText``).
    func page(_ template: MustacheTemplate, _ values: [String: Any], _ request: Request) -> Response {
        let (text, remember) = ConsoleRoutes.text(request)
        var values = values
        values["t"] = text.lambda
        values["lang"] = text.locale.rawValue
        var response = PaymentPage.html(template.render(values), nonce: nil)
        if let remember { response.headers[values: .setCookie].append(remember) }
        return response
    }

    // MARK: Pages

    func listings(_ request: Request) async throws -> Response {
        let text = ConsoleRoutes.text(request).0
        let caller = try await caller(request)
        let listings = try await service.listingsOnSale(caller)
        return self.page(Self.listingsTemplate, [
            "user": caller.user.name, "marketplace": caller.marketplace.name, "nothingForSale": text("Nothing for sale."),
            "listings": listings.map { listing -> [String: Any] in
                var delivery = listing.delivery.map { method in
                    "\(method.name.capitalized): " + method.costs.sorted { $0.key < $1.key }.map { "\($0.key) \(Self.money($0.value))" }.joined(separator: ", ")
                }
                if listing.pickup { delivery.insert(text("Pickup: free"), at: 0) }
                return ["id": listing.id, "title": listing.title, "price": Self.money(listing.price), "delivery": delivery, "buyNow": listing.buyNow]
            },
        ], request)
    }

    func listing(_ request: Request, id: ListingID) async throws -> Response {
        let caller = try await caller(request)
        let listing = try await service.listing(id, caller)
        return page(Self.listingTemplate, [
            "user": caller.user.name, "id": listing.id, "title": listing.title, "price": Self.money(listing.price),
            "available": listing.status == .available && listing.buyNow && listing.seller != caller.user.id, "status": listing.status.rawValue,
            "pickup": listing.pickup, "delivery": listing.delivery.map { method in
                ["name": method.name, "costs": method.costs.sorted { $0.key < $1.key }.map { "\($0.key) \(Self.money($0.value))" }.joined(separator: ", ")]
            },
        ], request)
    }

    /// The payment screen: the choices from the query (or the defaults), the totals for them.
    func screen(_ request: Request, bidID: BidID) async throws -> Response {
        let text = ConsoleRoutes.text(request).0
        let caller = try await caller(request)
        let query = try StripeForm(body: request.uri.query ?? "")
        let screen: Screen
        do {
            screen = try await service.screen(
                bid: bidID, delivery: try query.string("delivery", maxLength: 40), address: try query.string("address", maxLength: 40),
                payment: try query.string("payment_method", maxLength: 20), caller)
        } catch let failure as CheckoutFailure where failure.category == .forbidden {
            // Another's bid: the shop shows nothing of it.
            throw CheckoutFailure.notFound("bid")
        }
        let (bid, listing, choices, order) = (screen.bid, screen.listing, screen.choices, screen.order)
        if let order, !order.machine.isPayable { return Self.redirect("/shop/orders/\(order.id)") }
        let cards = screen.cards.compactMap { method in method.card.map { (method.id, $0) } }
        let chosenDelivery: String
        switch choices.delivery {
        case .pickup: chosenDelivery = "pickup"
        case .method(let name): chosenDelivery = name
        }
        var values: [String: Any] = [
            "user": caller.user.name, "bid": bid.id, "title": listing.title, "business": caller.user.business,
            "deliveries": (listing.pickup ? [["value": "pickup", "label": "Pickup", "checked": chosenDelivery == "pickup"]] : [])
                + listing.delivery.map { ["value": $0.name, "label": $0.name.capitalized, "checked": chosenDelivery == $0.name] },
            "addresses": caller.user.addresses.map { ["id": $0.id, "label": "\($0.line1), \($0.city) (\($0.country))", "selected": $0.id == choices.address?.id] },
            "methods": CheckoutPaymentMethod.allCases.map { ["value": $0.rawValue, "label": text(["card": "Card", "ideal": "iDEAL", "bancontact": "Bancontact"][$0.rawValue]!), "checked": $0 == choices.payment] },
            "cards": cards.map { ["id": $0.0, "label": "\($0.1.brand.displayName) •••• \($0.1.last4)"] },
            "card": choices.payment == .card, "pending": order?.machine.status == .paymentPending,
        ]
        switch screen.totals {
        case .success(let totals):
            values["lines"] = totals.lines.map { ["kind": text(["item": "Item", "shipping": "Shipping", "payment_fee": "Payment fee", "vat": "of which VAT"][$0.kind.rawValue]!), "amount": Self.money($0.amount)] }
            values["total"] = Self.money(totals.total)
        case .failure(let problem):
            values["problem"] = problem.message
        }
        return page(Self.screenTemplate, values, request)
    }

    /// Pay: the order made or updated with the form's choices, then the payment; the buyer goes
    /// to the bank or 3-D Secure page (which comes back to the order) or straight to the order.
    func pay(_ request: Request, bidID: BidID) async throws -> Response {
        let caller = try await caller(request)
        var request = request
        let buffer = try await request.collectBody(upTo: CheckoutRoutes.maxBodyBytes)
        let form = try StripeForm(body: String(decoding: buffer.readableBytesView, as: UTF8.self))
        let payment = try form.string("payment_method", maxLength: 20)
        let order = try await service.order(
            caller, bid: bidID, delivery: try form.string("delivery", maxLength: 40), address: try form.string("address", maxLength: 40), payment: payment, base: request.baseURL)
        let back = request.baseURL + "/shop/orders/\(order.id)"
        let paid = try await service.pay(caller, orderID: order.id, method: payment, card: try form.string("card", maxLength: 255), returnURL: back, base: request.baseURL)
        if let redirect = paid.redirect { return Self.redirect(redirect) }
        return Self.redirect("/shop/orders/\(order.id)")
    }

    /// The buyer's orders, newest first.
    func orders(_ request: Request) async throws -> Response {
        let text = ConsoleRoutes.text(request).0
        let caller = try await caller(request)
        let orders = try await service.orders(of: caller)
        var rows: [[String: Any]] = []
        for order in orders {
            let listing = try? await service.listing(order.listing, caller)
            rows.append([
                "id": order.id, "title": listing?.title ?? order.listing.rawValue, "total": Self.money(order.totals.total),
                "status": text(Self.statusWords[order.machine.status.rawValue] ?? order.machine.status.rawValue),
            ])
        }
        return page(Self.ordersTemplate, ["user": caller.user.name, "orders": rows, "noOrders": text("No orders yet.")], request)
    }

    static let statusWords = [
        "awaiting_payment": "Not paid yet", "payment_pending": "Waiting for the payment", "paid": "Paid", "shipped": "Shipped",
        "completed": "Completed", "cancelled": "Cancelled", "expired": "Expired",
    ]

    func order(_ request: Request, id: OrderID) async throws -> Response {
        let text = ConsoleRoutes.text(request).0
        let caller = try await caller(request)
        let order = try await service.currentOrder(caller, orderID: id)
        let listing = try await service.listing(order.listing, caller)
        let words = Self.statusWords
        return page(Self.orderTemplate, [
            "user": caller.user.name, "id": order.id, "title": listing.title, "status": order.machine.status.rawValue,
            "statusText": text(words[order.machine.status.rawValue] ?? order.machine.status.rawValue), "total": Self.money(order.totals.total),
            "payable": order.machine.isPayable, "bid": order.bid,
        ], request)
    }

    // MARK: Templates

    static func template(_ body: String) -> MustacheTemplate {
        // The templates are part of the program: a mistake in one fails every test at once.
        try! MustacheTemplate(string: """
            <!doctype html>
            <html lang="{{lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>{{#t}}Tender shop{{/t}}</title><link rel="stylesheet" href="/assets/tender.css"><link rel="stylesheet" href="/shop/assets/shop.css"></head>
            <body><a class="skip" href="#main">{{#t}}Skip to content{{/t}}</a>
            <header class="bar"><div class="inner"><a class="brand" href="/shop">{{#t}}Tender shop{{/t}}</a>
            {{#user}}<nav aria-label="{{#t}}Shop{{/t}}"><ul><li><a href="/shop">{{#t}}For sale{{/t}}</a></li><li><a href="/shop/orders">{{#t}}My orders{{/t}}</a></li></ul></nav>
            <span id="user" class="muted">{{user}}</span>
            <form method="post" action="/shop/logout"><button class="secondary" type="submit">{{#t}}Sign out{{/t}}</button></form>{{/user}}
            <nav aria-label="{{#t}}Language{{/t}}"><ul class="links"><li><a href="?locale=en" lang="en">English</a></li><li><a href="?locale=nl" lang="nl">Nederlands</a></li><li><a href="?locale=de" lang="de">Deutsch</a></li></ul></nav>
            </div></header><main id="main">
            \(body)
            </main><script src="/shop/assets/shop.js"></script></body></html>
            """)
    }

    static let listingsTemplate = template("""
        <h1>{{#marketplace}}{{#t}}For sale at {{marketplace}}{{/t}}{{/marketplace}}{{^marketplace}}{{#t}}For sale{{/t}}{{/marketplace}}</h1>
        <ul id="listings" class="grid cards">{{#listings}}<li class="card"><h2><a class="listing" href="/shop/listings/{{id}}">{{title}}</a></h2>
        <p class="price figure">{{price}}</p>{{#buyNow}}<p><span class="badge good">{{#t}}Buy now{{/t}}</span></p>{{/buyNow}}
        <ul class="delivery muted">{{#delivery}}<li>{{.}}</li>{{/delivery}}</ul></li>{{/listings}}</ul>
        {{^listings}}<p>{{nothingForSale}}</p>{{/listings}}
        """)

    static let listingTemplate = template("""
        <div class="card">
        <h1 id="title">{{title}}</h1>
        <p id="price" class="figure">{{price}}</p>
        <ul id="delivery">{{#pickup}}<li>{{#t}}Pickup{{/t}}</li>{{/pickup}}{{#delivery}}<li>{{name}}: {{costs}}</li>{{/delivery}}</ul>
        {{#available}}<form method="post" action="/shop/listings/{{id}}/buy"><button id="buy-now" type="submit">{{#t}}Buy now{{/t}}</button></form>{{/available}}
        {{^available}}<p id="status">{{#t}}This listing is {{status}}.{{/t}}</p>{{/available}}
        </div>
        """)

    static let screenTemplate = template("""
        <h1>{{#t}}Pay for{{/t}} <span id="title">{{title}}</span></h1>
        <div class="card">
        {{#pending}}<p id="pending">{{#t}}You left the payment page before paying: you can pay now.{{/t}}</p>{{/pending}}
        <form id="choices" method="get" action="/shop/bids/{{bid}}">
          <fieldset><legend>{{#t}}Delivery{{/t}}</legend>{{#deliveries}}<label><input type="radio" name="delivery" value="{{value}}" {{#checked}}checked{{/checked}}> {{label}}</label>{{/deliveries}}</fieldset>
          <fieldset><legend>{{#t}}Address{{/t}}</legend><label for="address" class="sr-only">{{#t}}Delivery address{{/t}}</label><select name="address" id="address">{{#addresses}}<option value="{{id}}" {{#selected}}selected{{/selected}}>{{label}}</option>{{/addresses}}</select></fieldset>
          <fieldset><legend>{{#t}}Payment method{{/t}}</legend>{{#methods}}<label><input type="radio" name="payment_method" value="{{value}}" {{#checked}}checked{{/checked}}> {{label}}</label>{{/methods}}</fieldset>
          <noscript><button type="submit">{{#t}}Update totals{{/t}}</button></noscript>
        </form>
        {{#problem}}<p id="problem">{{problem}}</p>{{/problem}}
        <table id="totals">{{#lines}}<tr><td>{{kind}}</td><td>{{amount}}</td></tr>{{/lines}}<tr><th>{{#t}}Total{{/t}}</th><th id="total">{{total}}</th></tr></table>
        <form id="pay-form" method="post" action="/shop/bids/{{bid}}/pay">
          {{#deliveries}}{{#checked}}<input type="hidden" name="delivery" value="{{value}}">{{/checked}}{{/deliveries}}
          {{#addresses}}{{#selected}}<input type="hidden" name="address" value="{{id}}">{{/selected}}{{/addresses}}
          {{#methods}}{{#checked}}<input type="hidden" name="payment_method" value="{{value}}">{{/checked}}{{/methods}}
          {{#card}}<label>{{#t}}Saved card{{/t}} <select name="card" id="card">{{#cards}}<option value="{{id}}">{{label}}</option>{{/cards}}</select></label>{{/card}}
          {{^problem}}<button id="pay" type="submit">{{#t}}Pay {{total}}{{/t}}</button>{{/problem}}
        </form>
        </div>
        """)

    static let orderTemplate = template("""
        <h1>{{#t}}Order for{{/t}} <span id="title">{{title}}</span></h1>
        <div class="card">
        <p>{{#t}}Status:{{/t}} <strong id="status" data-status="{{status}}">{{statusText}}</strong></p>
        <p>{{#t}}Total:{{/t}} <span id="total">{{total}}</span></p>
        {{#payable}}<p><a id="back" href="/shop/bids/{{bid}}">{{#t}}Back to the payment{{/t}}</a></p>{{/payable}}
        <p><a href="/shop/orders">{{#t}}All my orders{{/t}}</a></p>
        </div>
        """)

    static let ordersTemplate = template("""
        <h1>{{#t}}My orders{{/t}}</h1>
        <div class="card"><div class="table-wrap"><table id="orders">
        <thead><tr><th scope="col">{{#t}}Listing{{/t}}</th><th scope="col">{{#t}}Status{{/t}}</th><th scope="col" class="num">{{#t}}Total{{/t}}</th></tr></thead>
        <tbody>{{#orders}}<tr><td><a href="/shop/orders/{{id}}">{{title}}</a></td><td>{{status}}</td><td class="num">{{total}}</td></tr>{{/orders}}
        {{^orders}}<tr><td colspan="3" class="muted">{{noOrders}}</td></tr>{{/orders}}</tbody>
        </table></div></div>
        """)

    static let signedOutTemplate = template("""
        <div class="card"><h1>{{#t}}Signed out{{/t}}</h1><p>{{#t}}Open the shop's sign-in link again to come back.{{/t}}</p></div>
        """)

    /// The choices update the totals at once: a change submits the choices form.
    static let script = """
        (function () {
          "use strict";
          var form = document.getElementById("choices");
          if (!form) return;
          form.addEventListener("change", function () { form.submit(); });
        })();
        """

    /// What the shop adds to Tender's design system (/assets/tender.css).
    static let style = """
        ul.cards { list-style: none; padding: 0; }
        ul.cards h2 { margin: 0 0 4px; }
        ul.delivery { padding-left: 18px; margin: 8px 0 0; font-size: 0.9rem; }
        fieldset { border: 1px solid var(--line); border-radius: var(--radius); margin: 0 0 12px; padding: 8px 12px; }
        fieldset label { color: var(--text); margin: 4px 0; }
        #totals { margin: 12px 0; }
        #totals td:last-child, #totals th:last-child { text-align: right; font-variant-numeric: tabular-nums; }
        #problem { color: var(--bad); }
        #pay { margin-top: 12px; }
        """
}
