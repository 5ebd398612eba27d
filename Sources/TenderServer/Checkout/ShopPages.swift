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

    func page(_ template: MustacheTemplate, _ values: [String: Any]) -> Response {
        PaymentPage.html(template.render(values), nonce: nil)
    }

    // MARK: Pages

    func listings(_ request: Request) async throws -> Response {
        let caller = try await caller(request)
        let listings = try await service.listingsOnSale(caller)
        return self.page(Self.listingsTemplate, [
            "user": caller.user.name, "marketplace": caller.marketplace.name,
            "listings": listings.map { ["id": $0.id, "title": $0.title, "price": Self.money($0.price)] },
        ])
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
        ])
    }

    /// The payment screen: the choices from the query (or the defaults), the totals for them.
    func screen(_ request: Request, bidID: BidID) async throws -> Response {
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
            "methods": CheckoutPaymentMethod.allCases.map { ["value": $0.rawValue, "label": ["card": "Card", "ideal": "iDEAL", "bancontact": "Bancontact"][$0.rawValue]!, "checked": $0 == choices.payment] },
            "cards": cards.map { ["id": $0.0, "label": "\($0.1.brand.displayName) •••• \($0.1.last4)"] },
            "card": choices.payment == .card, "pending": order?.machine.status == .paymentPending,
        ]
        switch screen.totals {
        case .success(let totals):
            values["lines"] = totals.lines.map { ["kind": ["item": "Item", "shipping": "Shipping", "payment_fee": "Payment fee", "vat": "of which VAT"][$0.kind.rawValue]!, "amount": Self.money($0.amount)] }
            values["total"] = Self.money(totals.total)
        case .failure(let problem):
            values["problem"] = problem.message
        }
        return page(Self.screenTemplate, values)
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

    func order(_ request: Request, id: OrderID) async throws -> Response {
        let caller = try await caller(request)
        let order = try await service.currentOrder(caller, orderID: id)
        let listing = try await service.listing(order.listing, caller)
        let words = [
            "awaiting_payment": "Not paid yet", "payment_pending": "Waiting for the payment", "paid": "Paid", "shipped": "Shipped",
            "completed": "Completed", "cancelled": "Cancelled", "expired": "Expired",
        ]
        return page(Self.orderTemplate, [
            "user": caller.user.name, "id": order.id, "title": listing.title, "status": order.machine.status.rawValue,
            "statusText": words[order.machine.status.rawValue] ?? order.machine.status.rawValue, "total": Self.money(order.totals.total),
            "payable": order.machine.isPayable, "bid": order.bid,
        ])
    }

    // MARK: Templates

    static func template(_ body: String) -> MustacheTemplate {
        // The templates are part of the program: a mistake in one fails every test at once.
        try! MustacheTemplate(string: """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Tender shop</title><link rel="stylesheet" href="/shop/assets/shop.css"></head>
            <body><header><a href="/shop">Tender shop</a> <span id="user">{{user}}</span></header><main>
            \(body)
            </main><script src="/shop/assets/shop.js"></script></body></html>
            """)
    }

    static let listingsTemplate = template("""
        <h1>For sale{{#marketplace}} at {{marketplace}}{{/marketplace}}</h1>
        <ul id="listings">{{#listings}}<li><a class="listing" href="/shop/listings/{{id}}">{{title}}</a> <span class="price">{{price}}</span></li>{{/listings}}</ul>
        {{^listings}}<p>Nothing for sale.</p>{{/listings}}
        """)

    static let listingTemplate = template("""
        <h1 id="title">{{title}}</h1>
        <p id="price">{{price}}</p>
        <ul id="delivery">{{#pickup}}<li>Pickup</li>{{/pickup}}{{#delivery}}<li>{{name}}: {{costs}}</li>{{/delivery}}</ul>
        {{#available}}<form method="post" action="/shop/listings/{{id}}/buy"><button id="buy-now" type="submit">Buy now</button></form>{{/available}}
        {{^available}}<p id="status">This listing is {{status}}.</p>{{/available}}
        """)

    static let screenTemplate = template("""
        <h1>Pay for <span id="title">{{title}}</span></h1>
        {{#pending}}<p id="pending">You left the payment page before paying: you can pay now.</p>{{/pending}}
        <form id="choices" method="get" action="/shop/bids/{{bid}}">
          <fieldset><legend>Delivery</legend>{{#deliveries}}<label><input type="radio" name="delivery" value="{{value}}" {{#checked}}checked{{/checked}}> {{label}}</label>{{/deliveries}}</fieldset>
          <fieldset><legend>Address</legend><select name="address" id="address">{{#addresses}}<option value="{{id}}" {{#selected}}selected{{/selected}}>{{label}}</option>{{/addresses}}</select></fieldset>
          <fieldset><legend>Payment method</legend>{{#methods}}<label><input type="radio" name="payment_method" value="{{value}}" {{#checked}}checked{{/checked}}> {{label}}</label>{{/methods}}</fieldset>
          <noscript><button type="submit">Update totals</button></noscript>
        </form>
        {{#problem}}<p id="problem">{{problem}}</p>{{/problem}}
        <table id="totals">{{#lines}}<tr><td>{{kind}}</td><td>{{amount}}</td></tr>{{/lines}}<tr><th>Total</th><th id="total">{{total}}</th></tr></table>
        <form id="pay-form" method="post" action="/shop/bids/{{bid}}/pay">
          {{#deliveries}}{{#checked}}<input type="hidden" name="delivery" value="{{value}}">{{/checked}}{{/deliveries}}
          {{#addresses}}{{#selected}}<input type="hidden" name="address" value="{{id}}">{{/selected}}{{/addresses}}
          {{#methods}}{{#checked}}<input type="hidden" name="payment_method" value="{{value}}">{{/checked}}{{/methods}}
          {{#card}}<label>Saved card <select name="card" id="card">{{#cards}}<option value="{{id}}">{{label}}</option>{{/cards}}</select></label>{{/card}}
          {{^problem}}<button id="pay" type="submit">Pay {{total}}</button>{{/problem}}
        </form>
        """)

    static let orderTemplate = template("""
        <h1>Order for <span id="title">{{title}}</span></h1>
        <p>Status: <strong id="status" data-status="{{status}}">{{statusText}}</strong></p>
        <p>Total: <span id="total">{{total}}</span></p>
        {{#payable}}<p><a id="back" href="/shop/bids/{{bid}}">Back to the payment</a></p>{{/payable}}
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

    static let style = """
        body{font-family:system-ui,sans-serif;max-width:36rem;margin:1rem auto;padding:0 1rem;color:#1a1f36}
        header{display:flex;justify-content:space-between;margin-bottom:1rem}fieldset{border:1px solid #cfd7df;margin:.5rem 0}
        label{display:block;margin:.2rem 0}table{border-collapse:collapse;margin:1rem 0}td,th{padding:.2rem .8rem .2rem 0;text-align:left}
        button{font-size:1rem;padding:.6rem 1rem;border:0;border-radius:6px;background:#635bff;color:#fff;cursor:pointer}
        #problem{color:#c0362c}
        """
}
