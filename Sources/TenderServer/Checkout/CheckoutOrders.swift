import Checkout
import CheckoutCore
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import TenderJSON

/// The order routes: `POST orders` makes (or updates) the order of an accepted bid, `GET
/// orders/{id}` asks the gateway first, `pay`, `ship`, `confirm` and `cancel` move it; each a
/// call into the checkout's core.
extension CheckoutRoutes {
    func registerOrders(on v1: RouterGroup<CheckoutRequestContext>) {
        v1.post("orders") { request, context in
            let caller = try context.requireCaller()
            struct Body: Decodable { var bid: String; var delivery: String?; var address: String?; var payment_method: String? }
            let body = try await decode(Body.self, request)
            let order = try await service.order(caller, bid: BidID(body.bid), delivery: body.delivery, address: body.address, payment: body.payment_method, base: request.baseURL)
            return json(CheckoutObjects.order(order))
        }
        v1.get("orders/:id") { request, context in
            json(CheckoutObjects.order(try await service.currentOrder(try context.requireCaller(), orderID: RecordID(try context.parameters.require("id")))))
        }
        v1.post("orders/:id/pay") { request, context in try await pay(request, context, orderID: RecordID(try context.parameters.require("id"))) }
        v1.post("orders/:id/ship") { request, context in
            json(CheckoutObjects.order(try await service.ship(try context.requireCaller(), orderID: RecordID(try context.parameters.require("id")))))
        }
        v1.post("orders/:id/confirm") { request, context in
            json(CheckoutObjects.order(try await service.confirmReceipt(try context.requireCaller(), orderID: RecordID(try context.parameters.require("id")))))
        }
        v1.post("orders/:id/cancel") { request, context in
            json(CheckoutObjects.order(try await service.cancel(try context.requireCaller(), orderID: RecordID(try context.parameters.require("id")), base: request.baseURL)))
        }
    }

    /// `POST /checkout/v1/orders/{id}/pay` `{payment_method?, card?, return_url}`: pays with
    /// the order's method (a saved card of the buyer's for card), through a gateway intent for
    /// the order's total; answers the order and the page to send the buyer to, if any.
    func pay(_ request: Request, _ context: CheckoutRequestContext, orderID: OrderID) async throws -> Response {
        let caller = try context.requireCaller()
        struct Body: Decodable { var payment_method: String?; var card: String?; var return_url: String }
        let body = try await decode(Body.self, request)
        let paid = try await service.pay(
            caller, orderID: orderID, method: body.payment_method, card: body.card, returnURL: try GatewayService.checkedURL(body.return_url), base: request.baseURL)
        var fields: [(String, JSONValue)] = [
            ("order", CheckoutObjects.order(paid.order)),
            ("next_action", paid.redirect.map { .object([("type", "redirect"), ("url", .string($0))]) } ?? .null),
        ]
        if let declined = paid.declined { fields.append(("payment_error", .string(declined))) }
        return json(.object(fields))
    }
}

extension CheckoutObjects {
    static func order(_ order: OrderRecord) -> JSONValue {
        let delivery: String
        switch order.delivery {
        case .pickup: delivery = "pickup"
        case .method(let name): delivery = name
        }
        return .object([
            ("id", .string(order.id.rawValue)), ("object", "order"), ("bid", .string(order.bid.rawValue)), ("listing", .string(order.listing.rawValue)),
            ("buyer", .string(order.buyer.rawValue)), ("seller", .string(order.seller.rawValue)), ("status", .string(order.machine.status.rawValue)),
            ("payable", .bool(order.machine.isPayable)), ("payment_method", .string(order.machine.paymentMethod.rawValue)),
            ("delivery", .string(delivery)), ("address", order.address.map { .string($0.id) } ?? .null),
            ("lines", .array(order.totals.lines.map { .object([("kind", .string($0.kind.rawValue)), ("amount", .number($0.amount))]) })),
            ("total", .number(order.totals.total)), ("currency", "eur"), ("held_in_escrow", .number(order.held)),
            ("payment_intent", order.paymentIntent.map(JSONValue.string) ?? .null),
            ("hold_transaction", order.holdTransaction.map(JSONValue.string) ?? .null),
            ("release_transaction", order.releaseTransaction.map(JSONValue.string) ?? .null),
            ("created", .number(order.created)),
        ])
    }
}
