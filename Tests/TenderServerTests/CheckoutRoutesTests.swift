import Foundation
import Hummingbird
import HummingbirdTesting
import TenderTesting
import Testing
import Checkout
import Store
@testable import TenderServer

/// The checkout's API through the router: marketplaces, users, listings, bids, buy-now, totals
/// and the screen state, with every route tried with another user's token.
@Suite("The checkout's routes", .serialized)
struct CheckoutRoutesTests {
    let temporary = TemporaryDirectory("checkout")

    /// An answer (its JSON only read, never shared while written).
    struct Answer: @unchecked Sendable {
        let status: HTTPResponse.Status
        let json: [String: Any]
        var error: String? { (json["error"] as? [String: Any])?["code"] as? String }
        subscript(_ key: String) -> Any? { json[key] }
    }

    static func call(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, token: String?, json body: String? = nil) async throws -> Answer {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        headers[.contentType] = "application/json"
        return try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
            let json = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]
            return Answer(status: response.status, json: json ?? ["unparsed": String(buffer: response.body)])
        }
    }

    /// A marketplace with a seller, two buyers (one a business in the UK) and a listing.
    struct World {
        let marketplaceKey: String
        let escrow: String
        let settlement: String
        let seller: String, buyer: String, business: String, other: String
        let buyerAddress: String, businessAddress: String
        let listing: String
    }

    func world(_ client: some TestClientProtocol, admin: String, marketplace: String = #"{"name":"Tweedehands"}"#) async throws -> World {
        let made = try await Self.call(client, .post, "/checkout/v1/admin/marketplaces", token: admin, json: marketplace)
        #expect(made.status == .ok, "\(made.json)")
        let key = try #require(made["secret_key"] as? String)
        let escrow = try #require((made["marketplace"] as? [String: Any])?["escrow_account"] as? String)
        let settlement = try #require(made["settlement_account"] as? String)
        func user(_ name: String, business: Bool = false, country: String = "NL") async throws -> (String, String) {
            let answer = try await Self.call(client, .post, "/checkout/v1/users", token: key, json: """
                {"name":"\(name)","business":\(business),"addresses":[{"name":"\(name)","line1":"Damrak 1","postal_code":"1012 LG","city":"Amsterdam","country":"\(country)"}]}
                """)
            let token = try #require(answer["token"] as? String, "\(answer.json)")
            let address = try #require(((answer["user"] as? [String: Any])?["addresses"] as? [[String: Any]])?.first?["id"] as? String)
            return (token, address)
        }
        let (seller, _) = try await user("Sam Seller")
        let (buyer, buyerAddress) = try await user("Bea Buyer")
        let (business, businessAddress) = try await user("Bob Business Ltd", business: true, country: "GB")
        let (other, _) = try await user("Otto Other")
        let listing = try await Self.call(client, .post, "/checkout/v1/listings", token: seller, json: """
            {"title":"Bicycle <b>","price":10000,"pickup":true,"country":"NL","delivery":[{"name":"standard","costs":{"NL":695,"GB":1495}},{"name":"registered","costs":{"NL":895}}]}
            """)
        return World(marketplaceKey: key, escrow: escrow, settlement: settlement, seller: seller, buyer: buyer, business: business, other: other,
                      buyerAddress: buyerAddress, businessAddress: businessAddress, listing: try #require(listing["id"] as? String, "\(listing.json)"))
    }

    /// A server (its router, or live with its background services) and a world in it.
    func withWorld(time: ManualTime? = nil, marketplace: String = #"{"name":"Tweedehands"}"#, _ body: @Sendable (any TestClientProtocol, World, String) async throws -> Void) async throws {
        let directory = temporary.file(UUID().uuidString)
        let app = try await buildApplication(TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero), environment: time?.environment ?? .system)
        try await app.test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            try await body(client, try await world(client, admin: admin, marketplace: marketplace), admin)
        }
    }

    @Test func buyNowTotalsAndTheScreen() async throws {
        try await withWorld { client, world, _ in
            let bought = try await Self.call(client, .post, "/checkout/v1/listings/\(world.listing)/buy", token: world.buyer)
            #expect(bought["status"] as? String == "accepted" && bought["amount"] as? Int == 10_000 && bought["buy_now"] as? Bool == true)
            let bid = try #require(bought["id"] as? String)
            let listing = try await Self.call(client, .get, "/checkout/v1/listings/\(world.listing)", token: world.other)
            #expect(listing["status"] as? String == "reserved" && listing["title"] as? String == "Bicycle <b>")
            let late = try await Self.call(client, .post, "/checkout/v1/listings/\(world.listing)/buy", token: world.other)
            #expect(late.status == .conflict && late.error == "listing_unavailable")

            // The screen in one answer: pickup and iDEAL by default.
            let screen = try await Self.call(client, .get, "/checkout/v1/bids/\(bid)/screen", token: world.buyer)
            #expect(screen.status == .ok && (screen["user"] as? [String: Any])?["business"] as? Bool == false)
            #expect((screen["listing"] as? [String: Any])?["id"] as? String == world.listing && screen["cards"] as? [Any] != nil)
            #expect(screen["order"] is NSNull)
            let totals = try #require(screen["totals"] as? [String: Any])
            #expect(totals["total"] as? Int == 10_199 && totals["delivery"] as? String == "pickup")

            // Totals change with each option.
            func total(_ body: String, token: String? = nil) async throws -> Answer {
                try await Self.call(client, .post, "/checkout/v1/totals", token: token ?? world.buyer, json: body)
            }
            #expect(try await total(#"{"bid":"\#(bid)","delivery":"standard","payment_method":"ideal"}"#)["total"] as? Int == 10_894)
            #expect(try await total(#"{"bid":"\#(bid)","delivery":"registered","address":"\#(world.buyerAddress)","payment_method":"ideal"}"#)["total"] as? Int == 11_094)
            #expect(try await total(#"{"bid":"\#(bid)","delivery":"standard","payment_method":"card"}"#)["total"] as? Int == 11_005)
            #expect(try await total(#"{"bid":"\#(bid)","delivery":"pickup","payment_method":"bancontact"}"#)["total"] as? Int == 10_149)
            let courier = try await total(#"{"bid":"\#(bid)","delivery":"courier"}"#)
            #expect(courier.status == .badRequest && courier.error == "delivery_not_offered")
            let wrongAddress = try await total(#"{"bid":"\#(bid)","delivery":"standard","address":"\#(world.businessAddress)"}"#)
            #expect(wrongAddress.status == .notFound, "another user's address is not found")
            let method = try await total(#"{"bid":"\#(bid)","payment_method":"cash"}"#)
            #expect(method.status == .badRequest && method.error == "payment_method_invalid")
            let screenCard = try await Self.call(client, .get, "/checkout/v1/bids/\(bid)/screen?delivery=registered&payment_method=card", token: world.buyer)
            #expect((screenCard["totals"] as? [String: Any])?["total"] as? Int == 11_211, "10,895 + 2.9% of it (315.955 → 316)")
        }
    }

    @Test func businessBuyersSeeVATAndForeignShippingCostsMore() async throws {
        try await withWorld { client, world, _ in
            let bought = try await Self.call(client, .post, "/checkout/v1/listings/\(world.listing)/buy", token: world.business)
            let bid = try #require(bought["id"] as? String)
            let gb = try await Self.call(client, .post, "/checkout/v1/totals", token: world.business, json: #"{"bid":"\#(bid)","delivery":"standard","payment_method":"ideal"}"#)
            #expect(gb["total"] as? Int == 11_694, "NL → GB: 14.95")
            let lines = try #require(gb["lines"] as? [[String: Any]])
            #expect(lines.map { $0["kind"] as? String } == ["item", "shipping", "payment_fee", "vat"])
            #expect(lines.last?["amount"] as? Int == 2_030, "11,694 × 21/121 = 2,029.5 → 2,030")
            let registered = try await Self.call(client, .get, "/checkout/v1/bids/\(bid)/screen?delivery=registered", token: world.business)
            #expect(registered["totals"] is NSNull && (registered["totals_error"] as? [String: Any])?["code"] as? String == "country_not_served")
        }
    }

    @Test func bidsAcceptRejectWithdraw() async throws {
        try await withWorld { client, world, _ in
            func bid(_ token: String, _ amount: Int) async throws -> Answer {
                try await Self.call(client, .post, "/checkout/v1/listings/\(world.listing)/bids", token: token, json: #"{"amount":\#(amount)}"#)
            }
            let low = try await bid(world.buyer, 8_000)
            let lowID = try #require(low["id"] as? String)
            #expect(low["status"] as? String == "pending")
            let other = try await bid(world.other, 8_500)
            let otherID = try #require(other["id"] as? String)
            let own = try await bid(world.seller, 9_000)
            #expect(own.status == .forbidden)
            // The buyer cannot accept; the seller can.
            #expect(try await Self.call(client, .post, "/checkout/v1/bids/\(lowID)/accept", token: world.buyer).status == .forbidden)
            #expect(try await Self.call(client, .post, "/checkout/v1/bids/\(lowID)/withdraw", token: world.seller).status == .forbidden)
            let rejected = try await Self.call(client, .post, "/checkout/v1/bids/\(otherID)/reject", token: world.seller)
            #expect(rejected["status"] as? String == "rejected")
            let accepted = try await Self.call(client, .post, "/checkout/v1/bids/\(lowID)/accept", token: world.seller)
            #expect(accepted["status"] as? String == "accepted")
            #expect(try await Self.call(client, .get, "/checkout/v1/listings/\(world.listing)", token: world.buyer)["status"] as? String == "reserved")
            // Once reserved: no more bids, no second acceptance, and an accepted bid is not withdrawn by the buyer.
            #expect(try await bid(world.business, 9_999).error == "listing_unavailable")
            let withdraw = try await Self.call(client, .post, "/checkout/v1/bids/\(lowID)/withdraw", token: world.buyer)
            #expect(withdraw.status == .conflict && withdraw.error == "bid_unexpected_state")
            let again = try await Self.call(client, .post, "/checkout/v1/bids/\(otherID)/accept", token: world.seller)
            #expect(again.status == .conflict && again.error == "bid_unexpected_state")
            // The totals of the accepted bid: its amount is the item.
            let totals = try await Self.call(client, .post, "/checkout/v1/totals", token: world.buyer, json: #"{"bid":"\#(lowID)"}"#)
            #expect(totals["total"] as? Int == 8_199)
        }
    }

    /// 50 buyers buy the same listing at the same moment: one gets it, 49 get a clear 409, and
    /// only one bid exists.
    @Test func fiftyBuyersAtOnce() async throws {
        try await withWorld { client, world, _ in
            var tokens: [String] = []
            for index in 0..<50 {
                let answer = try await Self.call(client, .post, "/checkout/v1/users", token: world.marketplaceKey, json: #"{"name":"Buyer \#(index)"}"#)
                tokens.append(try #require(answer["token"] as? String))
            }
            let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                for token in tokens {
                    group.addTask { try await Self.call(client, .post, "/checkout/v1/listings/\(world.listing)/buy", token: token) }
                }
                return try await group.reduce(into: [Answer]()) { $0.append($1) }
            }
            let won = answers.filter { $0.status == .ok }
            #expect(won.count == 1)
            #expect(answers.filter { $0.status == .conflict && $0.error == "listing_unavailable" }.count == 49)
            let listing = try await Self.call(client, .get, "/checkout/v1/listings/\(world.listing)", token: world.seller)
            #expect(listing["status"] as? String == "reserved")
            // The winner's bid is the one the listing is reserved for; the 49 made no bid.
            let winner = try #require(won.first?["buyer"] as? String)
            let bid = try #require(won.first?["id"] as? String)
            #expect(try await Self.call(client, .get, "/checkout/v1/bids/\(bid)", token: world.seller)["buyer"] as? String == winner)
        }
    }

    /// A Stripe-form call to the gateway under /v1 with the marketplace's key.
    static func form(_ client: some TestClientProtocol, _ uri: String, key: String, _ body: String) async throws -> Answer {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(key)"
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
            Answer(status: response.status, json: ((try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]) ?? [:])
        }
    }

    /// Presses Complete, Fail or Leave on the test page a `next_action` URL names.
    static func press(_ client: some TestClientProtocol, _ url: String, _ button: String) async throws -> HTTPResponse.Status {
        let components = URLComponents(string: url)!
        let uri = button == "leave" ? "\(components.path)/leave?\(components.query ?? "")" : "\(components.path)/\(button)?\(components.query ?? "")"
        return try await client.execute(uri: uri, method: button == "leave" ? .get : .post) { $0.status }
    }

    /// EUR on the ledger for an account, in minor units (Horizon's balance, seven decimals).
    static func euros(_ client: some TestClientProtocol, _ account: String) async throws -> Int {
        let answer = try await call(client, .get, "/accounts/\(account)", token: nil)
        let balance = (answer["balances"] as? [[String: Any]])?.first { $0["asset_code"] as? String == "EUR" }?["balance"] as? String ?? "0"
        let parts = balance.split(separator: ".")
        return Int(parts[0])! * 100 + Int(parts.count > 1 ? String(parts[1].prefix(2)) : "0")!
    }

    /// The reference story on the ledger: iDEAL paid into escrow, shipped, received and released;
    /// iDEAL left at the bank (the order still payable), then a saved card with 3-D Secure;
    /// a declined card; the escrow always holding exactly its paid orders.
    @Test func ordersPaidHeldAndReleased() async throws {
        try await withWorld { client, world, _ in
            let sellerAccount = try #require(try await Self.call(client, .get, "/checkout/v1/me", token: world.seller)["account"] as? String)
            // The escrow's ledger balance equals what its orders hold, checked after every step.
            var orders: [String] = []
            @Sendable func escrowMatches(_ orders: [String]) async throws -> Bool {
                var held = 0
                for order in orders { held += try await Self.call(client, .get, "/checkout/v1/orders/\(order)", token: world.buyer)["held_in_escrow"] as? Int ?? -1 }
                return try await Self.euros(client, world.escrow) == held
            }
            #expect(try await Self.euros(client, world.escrow) == 0)
            #expect(try await escrowMatches(orders))
            let buy = try await Self.call(client, .post, "/checkout/v1/listings/\(world.listing)/buy", token: world.buyer)
            let bid = try #require(buy["id"] as? String)
            let order = try await Self.call(client, .post, "/checkout/v1/orders", token: world.buyer, json: #"{"bid":"\#(bid)","delivery":"standard","payment_method":"ideal"}"#)
            let orderID = try #require(order["id"] as? String, "\(order.json)")
            orders.append(orderID)
            #expect(order["status"] as? String == "awaiting_payment" && order["total"] as? Int == 10_894)
            // Asked again: the same order, its choices updated while payable.
            let again = try await Self.call(client, .post, "/checkout/v1/orders", token: world.buyer, json: #"{"bid":"\#(bid)","delivery":"pickup","payment_method":"ideal"}"#)
            #expect(again["id"] as? String == orderID && again["total"] as? Int == 10_199)
            #expect(try await Self.call(client, .get, "/checkout/v1/orders/\(orderID)", token: world.other).status == .notFound)

            // iDEAL, and the buyer leaves the bank page: the order is still payable.
            let paying = try await Self.call(client, .post, "/checkout/v1/orders/\(orderID)/pay", token: world.buyer, json: #"{"return_url":"https://shop.example/back"}"#)
            let bank = try #require((paying["next_action"] as? [String: Any])?["url"] as? String, "\(paying.json)")
            #expect(bank.contains("/v1/test/bank/"))
            #expect(try await Self.press(client, bank, "leave") == .ok)
            let left = try await Self.call(client, .get, "/checkout/v1/orders/\(orderID)", token: world.buyer)
            #expect(left["status"] as? String == "payment_pending" && left["payable"] as? Bool == true)
            #expect(try await Self.euros(client, world.escrow) == 0, "nothing held for an unpaid order")
            #expect(try await escrowMatches(orders))

            // Then a saved card that needs 3-D Secure: the old intent is canceled, a new one paid.
            let customer = try #require(try await Self.call(client, .get, "/checkout/v1/me", token: world.buyer)["customer"] as? String)
            let card = try await Self.form(client, "/v1/payment_methods", key: world.marketplaceKey, "type=card&card[number]=4000002500003155&card[exp_month]=12&card[exp_year]=2030&card[cvc]=123")
            let cardID = try #require(card["id"] as? String)
            #expect(try await Self.form(client, "/v1/payment_methods/\(cardID)/attach", key: world.marketplaceKey, "customer=\(customer)").status == .ok)
            let screen = try await Self.call(client, .get, "/checkout/v1/bids/\(bid)/screen", token: world.buyer)
            #expect((screen["cards"] as? [[String: Any]])?.first?["id"] as? String == cardID)
            #expect((screen["order"] as? [String: Any])?["id"] as? String == orderID)
            let byCard = try await Self.call(client, .post, "/checkout/v1/orders/\(orderID)/pay", token: world.buyer, json: #"{"payment_method":"card","card":"\#(cardID)","return_url":"https://shop.example/back"}"#)
            let challenge = try #require((byCard["next_action"] as? [String: Any])?["url"] as? String, "\(byCard.json)")
            #expect((byCard["order"] as? [String: Any])?["total"] as? Int == 10_290, "card: 2.9% of 10,000")
            let firstIntent = try #require(paying.json["order"].flatMap { ($0 as? [String: Any])?["payment_intent"] as? String })
            #expect(try await Self.call(client, .get, "/v1/payment_intents/\(firstIntent)", token: world.marketplaceKey)["status"] as? String == "canceled")
            #expect(try await Self.press(client, challenge, "complete") == .seeOther)
            let paid = try await Self.call(client, .get, "/checkout/v1/orders/\(orderID)", token: world.buyer)
            #expect(paid["status"] as? String == "paid" && paid["held_in_escrow"] as? Int == 10_290, "\(paid.json)")
            #expect(try await Self.euros(client, world.escrow) == 10_290, "the escrow holds the buyer's whole payment")
            #expect(try await Self.euros(client, world.settlement) == 0, "settled whole, no fee taken yet")
            #expect(try await escrowMatches(orders))
            #expect(try await Self.call(client, .get, "/checkout/v1/listings/\(world.listing)", token: world.other)["status"] as? String == "sold")
            let paidTwice = try await Self.call(client, .post, "/checkout/v1/orders/\(orderID)/pay", token: world.buyer, json: #"{"return_url":"https://shop.example/back"}"#)
            #expect((paidTwice["order"] as? [String: Any])?["status"] as? String == "paid" && paidTwice["next_action"] is NSNull, "a paid order is not paid again")

            // Shipped by the seller, received by the buyer: the escrow pays out.
            #expect(try await Self.call(client, .post, "/checkout/v1/orders/\(orderID)/ship", token: world.buyer).error == "order_forbidden")
            #expect(try await Self.call(client, .post, "/checkout/v1/orders/\(orderID)/confirm", token: world.buyer).error == "order_unexpected_state")
            #expect(try await Self.call(client, .post, "/checkout/v1/orders/\(orderID)/ship", token: world.seller)["status"] as? String == "shipped")
            #expect(try await escrowMatches(orders))
            #expect(try await Self.call(client, .post, "/checkout/v1/orders/\(orderID)/confirm", token: world.seller).error == "order_forbidden")
            let done = try await Self.call(client, .post, "/checkout/v1/orders/\(orderID)/confirm", token: world.buyer)
            #expect(done["status"] as? String == "completed" && done["release_transaction"] is String, "\(done.json)")
            #expect(try await Self.euros(client, world.escrow) == 0)
            #expect(try await escrowMatches(orders))
            #expect(try await Self.euros(client, sellerAccount) == 9_000, "10,000 less the 10% commission")
            // The marketplace: the card fee (290) and the commission (1,000) less the gateway's fee
            // on 10,290 (1.5% = 154, + 25 = 179), taken now.
            #expect(try await Self.euros(client, world.settlement) == 1_111)

            // A declined card: the order stays payable, nothing held.
            let second = try await Self.call(client, .post, "/checkout/v1/listings", token: world.seller, json: #"{"title":"Lamp","price":2500,"pickup":true,"country":"NL"}"#)
            let secondBid = try #require(try await Self.call(client, .post, "/checkout/v1/listings/\(second["id"] as? String ?? "")/buy", token: world.buyer)["id"] as? String)
            let secondOrder = try #require(try await Self.call(client, .post, "/checkout/v1/orders", token: world.buyer, json: #"{"bid":"\#(secondBid)","payment_method":"card"}"#)["id"] as? String)
            orders.append(secondOrder)
            let poor = try await Self.form(client, "/v1/payment_methods", key: world.marketplaceKey, "type=card&card[number]=4000000000009995&card[exp_month]=12&card[exp_year]=2030&card[cvc]=123")
            let poorID = try #require(poor["id"] as? String)
            _ = try await Self.form(client, "/v1/payment_methods/\(poorID)/attach", key: world.marketplaceKey, "customer=\(customer)")
            let declined = try await Self.call(client, .post, "/checkout/v1/orders/\(secondOrder)/pay", token: world.buyer, json: #"{"card":"\#(poorID)","return_url":"https://shop.example/back"}"#)
            #expect((declined["payment_error"] as? String)?.contains("insufficient funds") == true, "\(declined.json)")
            #expect((declined["order"] as? [String: Any])?["status"] as? String == "awaiting_payment")
            let othersCard = try await Self.call(client, .post, "/checkout/v1/orders/\(secondOrder)/pay", token: world.buyer, json: #"{"card":"pm_nothere","return_url":"https://shop.example/back"}"#)
            #expect(othersCard.status == .notFound)
            #expect(try await Self.euros(client, world.escrow) == 0)
            #expect(try await escrowMatches(orders))
        }
    }

    /// Unpaid orders end: the buyer cancels one (its intent canceled, so the bank page can no
    /// longer pay it), another expires while the buyer is away at the bank (the janitor asks the
    /// gateway first); either way the listing is free again and the buy-now bid withdrawn, and no
    /// money moved.
    @Test func unpaidOrdersAreCancelledOrExpire() async throws {
        let time = ManualTime.forServer()
        try await withWorld(time: time, marketplace: #"{"name":"Quick","order_expiry_seconds":3}"#) { client, world, _ in
            func order(_ token: String) async throws -> (bid: String, order: String, bank: String) {
                let bid = try #require(try await Self.call(client, .post, "/checkout/v1/listings/\(world.listing)/buy", token: token)["id"] as? String)
                let order = try #require(try await Self.call(client, .post, "/checkout/v1/orders", token: token, json: #"{"bid":"\#(bid)"}"#)["id"] as? String)
                let paying = try await Self.call(client, .post, "/checkout/v1/orders/\(order)/pay", token: token, json: #"{"return_url":"https://shop.example/back"}"#)
                return (bid, order, try #require((paying["next_action"] as? [String: Any])?["url"] as? String, "\(paying.json)"))
            }
            // Cancelled by the buyer: the bank page can no longer pay it.
            let first = try await order(world.buyer)
            #expect(try await Self.call(client, .post, "/checkout/v1/orders/\(first.order)/cancel", token: world.seller).status == .forbidden)
            let cancelled = try await Self.call(client, .post, "/checkout/v1/orders/\(first.order)/cancel", token: world.buyer)
            #expect(cancelled["status"] as? String == "cancelled", "\(cancelled.json)")
            #expect(try await Self.press(client, first.bank, "complete") == .conflict)
            #expect(try await Self.call(client, .get, "/checkout/v1/orders/\(first.order)", token: world.buyer)["status"] as? String == "cancelled")
            #expect(try await Self.call(client, .get, "/checkout/v1/bids/\(first.bid)", token: world.buyer)["status"] as? String == "withdrawn")
            #expect(try await Self.call(client, .get, "/checkout/v1/listings/\(world.listing)", token: world.other)["status"] as? String == "available")

            // Expired while the other buyer is away at the bank.
            let second = try await order(world.other)
            await time.advance(seconds: 2)
            #expect(try await Self.call(client, .get, "/checkout/v1/orders/\(second.order)", token: world.other)["status"] as? String == "payment_pending")
            await time.advance(seconds: 1)
            #expect(try await Self.call(client, .get, "/checkout/v1/orders/\(second.order)", token: world.other)["status"] as? String == "expired")
            #expect(try await Self.press(client, second.bank, "complete") == .conflict, "its intent was canceled")
            #expect(try await Self.call(client, .get, "/checkout/v1/bids/\(second.bid)", token: world.other)["status"] as? String == "withdrawn")
            #expect(try await Self.call(client, .get, "/checkout/v1/listings/\(world.listing)", token: world.buyer)["status"] as? String == "available")
            let late = try await Self.call(client, .post, "/checkout/v1/orders/\(second.order)/pay", token: world.other, json: #"{"return_url":"https://shop.example/back"}"#)
            #expect((late["order"] as? [String: Any])?["status"] as? String == "expired" && late["next_action"] is NSNull)
            #expect(try await Self.euros(client, world.escrow) == 0)

            // Paid at the bank just before the cancel: the cancel finds it paid and refunds the
            // whole payment, from this marketplace's first sale (no fee was taken before release).
            let third = try await order(world.business)
            #expect(try await Self.press(client, third.bank, "complete") == .seeOther)
            let tooLate = try await Self.call(client, .post, "/checkout/v1/orders/\(third.order)/cancel", token: world.business)
            #expect(tooLate.status == .ok && tooLate["status"] as? String == "cancelled" && tooLate["held_in_escrow"] as? Int == 0, "\(tooLate.json)")
            #expect(try await Self.euros(client, world.escrow) == 0)
            #expect(try await Self.euros(client, world.settlement) == 0, "all of it back to the buyer")
        }
    }

    /// A paid order cancelled before shipping: the escrow returns the buyer's whole payment and
    /// the gateway refunds it, from a marketplace's very first sale (the gateway's fee is taken
    /// only at release, out of the marketplace's part). Balances checked on the ledger.
    @Test func paidOrdersCancelledAreRefunded() async throws {
        try await withWorld { client, world, _ in
            func paidOrder(_ listing: String, _ token: String) async throws -> String {
                let bid = try #require(try await Self.call(client, .post, "/checkout/v1/listings/\(listing)/buy", token: token)["id"] as? String)
                let order = try #require(try await Self.call(client, .post, "/checkout/v1/orders", token: token, json: #"{"bid":"\#(bid)","delivery":"pickup","payment_method":"ideal"}"#)["id"] as? String)
                let paying = try await Self.call(client, .post, "/checkout/v1/orders/\(order)/pay", token: token, json: #"{"return_url":"https://shop.example/back"}"#)
                #expect(paying.status == .ok, "\(paying.json)")
                #expect(try await Self.press(client, try #require((paying["next_action"] as? [String: Any])?["url"] as? String), "complete") == .seeOther)
                let paid = try await Self.call(client, .get, "/checkout/v1/orders/\(order)", token: token)
                #expect(paid.status == .ok && paid["status"] as? String == "paid" && paid["hold_transaction"] is String, "\(paid.json)")
                return order
            }
            @Sendable func money() async throws -> [Int] { [try await Self.euros(client, world.escrow), try await Self.euros(client, world.settlement)] }
            @Sendable func refunded(_ order: String, _ token: String) async throws -> Int? {
                let intent = try #require(try await Self.call(client, .get, "/checkout/v1/orders/\(order)", token: token)["payment_intent"] as? String)
                return try await Self.call(client, .get, "/v1/payment_intents/\(intent)", token: world.marketplaceKey)["amount_refunded"] as? Int
            }
            // The marketplace's first sale: 10,199 paid and held whole, the marketplace's balance
            // nothing; cancelled, all of it goes back to the buyer.
            let first = try await paidOrder(world.listing, world.buyer)
            #expect(try await money() == [10_199, 0])
            let cancelled = try await Self.call(client, .post, "/checkout/v1/orders/\(first)/cancel", token: world.buyer)
            #expect(cancelled.status == .ok && cancelled["status"] as? String == "cancelled" && cancelled["held_in_escrow"] as? Int == 0, "\(cancelled.json)")
            #expect(try await money() == [0, 0])
            #expect(try await refunded(first, world.buyer) == 10_199)
            #expect(try await Self.call(client, .post, "/checkout/v1/orders/\(first)/cancel", token: world.buyer).status == .conflict, "once")
            #expect(try await Self.call(client, .get, "/checkout/v1/listings/\(world.listing)", token: world.other)["status"] as? String == "available")

            // Sold again and released: the seller 9,000; the marketplace its 199 and 1,000 less
            // the gateway's 29, taken now.
            let second = try await paidOrder(world.listing, world.other)
            #expect(try await money() == [10_199, 0])
            _ = try await Self.call(client, .post, "/checkout/v1/orders/\(second)/ship", token: world.seller)
            _ = try await Self.call(client, .post, "/checkout/v1/orders/\(second)/confirm", token: world.other)
            #expect(try await money() == [0, 1_170])
            #expect(try await Self.call(client, .post, "/checkout/v1/orders/\(second)/cancel", token: world.other).status == .conflict, "a completed order is not cancelled")

            // Cancelled by the seller: the marketplace's balance is what it was.
            let lamp = try #require(try await Self.call(client, .post, "/checkout/v1/listings", token: world.seller, json: #"{"title":"Lamp","price":2500,"pickup":true,"country":"NL"}"#)["id"] as? String)
            let third = try await paidOrder(lamp, world.buyer)
            #expect(try await money() == [2_699, 1_170])
            let bySeller = try await Self.call(client, .post, "/checkout/v1/orders/\(third)/cancel", token: world.seller)
            #expect(bySeller["status"] as? String == "cancelled", "\(bySeller.json)")
            #expect(try await money() == [0, 1_170])
            #expect(try await refunded(third, world.buyer) == 2_699)
            #expect(try await Self.call(client, .get, "/checkout/v1/listings/\(lamp)", token: world.buyer)["status"] as? String == "available")
        }
    }

    /// The issue's case: a marketplace made a moment ago, a 5 euro order paid by card (no 3-D
    /// Secure). Paying answers the paid order (not 400 `balance_insufficient`), the escrow holds
    /// all 5.15, the cancel refunds it whole, and a second sale released pays the gateway's fee
    /// (0.08 + 0.25) out of the marketplace's 0.15 + 0.50.
    @Test func aNewMarketplacesFirstSaleByCard() async throws {
        try await withWorld { client, world, _ in
            let customer = try #require(try await Self.call(client, .get, "/checkout/v1/me", token: world.buyer)["customer"] as? String)
            let card = try #require(try await Self.form(client, "/v1/payment_methods", key: world.marketplaceKey, "type=card&card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2030&card[cvc]=123")["id"] as? String)
            #expect(try await Self.form(client, "/v1/payment_methods/\(card)/attach", key: world.marketplaceKey, "customer=\(customer)").status == .ok)
            let sellerAccount = try #require(try await Self.call(client, .get, "/checkout/v1/me", token: world.seller)["account"] as? String)
            func sale() async throws -> String {
                let mug = try #require(try await Self.call(client, .post, "/checkout/v1/listings", token: world.seller, json: #"{"title":"Mug","price":500,"pickup":true,"country":"NL"}"#)["id"] as? String)
                let bid = try #require(try await Self.call(client, .post, "/checkout/v1/listings/\(mug)/buy", token: world.buyer)["id"] as? String)
                let order = try #require(try await Self.call(client, .post, "/checkout/v1/orders", token: world.buyer, json: #"{"bid":"\#(bid)","payment_method":"card"}"#)["id"] as? String)
                let paid = try await Self.call(client, .post, "/checkout/v1/orders/\(order)/pay", token: world.buyer, json: #"{"card":"\#(card)","return_url":"https://shop.example/back"}"#)
                #expect(paid.status == .ok && paid["next_action"] is NSNull && paid["payment_error"] == nil, "\(paid.json)")
                let shown = try #require(paid["order"] as? [String: Any])
                #expect(shown["status"] as? String == "paid" && shown["total"] as? Int == 515 && shown["held_in_escrow"] as? Int == 515 && shown["hold_transaction"] is String, "\(shown)")
                #expect(try await Self.euros(client, world.escrow) == 515)
                return order
            }
            let first = try await sale()
            #expect(try await Self.euros(client, world.settlement) == 0, "settled straight into escrow")
            // Nothing the marketplace does with its own balance can take the escrow's money.
            let payout = try await Self.form(client, "/v1/payouts", key: world.marketplaceKey, "amount=1&currency=eur&destination=\(sellerAccount)")
            #expect(payout.status == .badRequest && (payout.json["error"] as? [String: Any])?["code"] as? String == "balance_insufficient", "\(payout.json)")
            #expect(try await Self.euros(client, world.escrow) == 515)
            let cancelled = try await Self.call(client, .post, "/checkout/v1/orders/\(first)/cancel", token: world.buyer)
            #expect(cancelled.status == .ok && cancelled["status"] as? String == "cancelled", "\(cancelled.json)")
            #expect(try await Self.euros(client, world.escrow) == 0)
            #expect(try await Self.euros(client, world.settlement) == 0, "all of it back to the buyer")

            let second = try await sale()
            #expect(try await Self.call(client, .post, "/checkout/v1/orders/\(second)/ship", token: world.seller)["status"] as? String == "shipped")
            #expect(try await Self.call(client, .post, "/checkout/v1/orders/\(second)/confirm", token: world.buyer)["status"] as? String == "completed")
            #expect(try await Self.euros(client, world.escrow) == 0)
            #expect(try await Self.euros(client, sellerAccount) == 450)
            #expect(try await Self.euros(client, world.settlement) == 15 + 50 - 33)
        }
    }

    /// The console's marketplace pages: orders by status, the escrow beside its ledger account
    /// (equal), an order's story; a merchant that is not a marketplace has none of it.
    @Test func theConsoleShowsOrdersAndEscrow() async throws {
        try await withWorld { client, world, admin in
            let customer = try #require(try await Self.call(client, .get, "/checkout/v1/me", token: world.buyer)["customer"] as? String)
            let card = try #require(try await Self.form(client, "/v1/payment_methods", key: world.marketplaceKey, "type=card&card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2030&card[cvc]=123")["id"] as? String)
            _ = try await Self.form(client, "/v1/payment_methods/\(card)/attach", key: world.marketplaceKey, "customer=\(customer)")
            var orders: [String] = []
            for _ in 0..<2 {
                let mug = try #require(try await Self.call(client, .post, "/checkout/v1/listings", token: world.seller, json: #"{"title":"Mug <i>","price":500,"pickup":true,"country":"NL"}"#)["id"] as? String)
                let bid = try #require(try await Self.call(client, .post, "/checkout/v1/listings/\(mug)/buy", token: world.buyer)["id"] as? String)
                let order = try #require(try await Self.call(client, .post, "/checkout/v1/orders", token: world.buyer, json: #"{"bid":"\#(bid)","payment_method":"card"}"#)["id"] as? String)
                _ = try await Self.call(client, .post, "/checkout/v1/orders/\(order)/pay", token: world.buyer, json: #"{"card":"\#(card)","return_url":"https://shop.example/back"}"#)
                orders.append(order)
            }
            #expect(try await Self.call(client, .post, "/checkout/v1/orders/\(orders[1])/ship", token: world.seller)["status"] as? String == "shipped")
            #expect(try await Self.call(client, .post, "/checkout/v1/orders/\(orders[1])/confirm", token: world.buyer)["status"] as? String == "completed")

            let browser = ConsoleRoutesTests.Browser()
            #expect(try await browser.signIn(client, key: world.marketplaceKey).location == "/console")
            #expect(try await browser.go(client, .get, "/console").body.contains("/console/marketplace"))
            let page = try await browser.go(client, .get, "/console/marketplace")
            #expect(page.status == .ok && page.body.contains("What the orders hold equals the escrow account on the ledger."))
            // One paid order of €5.15 in escrow, and the ledger's escrow account says the same.
            #expect(page.body.components(separatedBy: "€5.15").count >= 3 && page.body.contains(orders[0]) && page.body.contains(orders[1]))
            let paid = try await browser.go(client, .get, "/console/marketplace?status=paid")
            #expect(paid.body.contains(orders[0]) && !paid.body.contains(orders[1]))
            #expect(try await browser.go(client, .get, "/console/marketplace?status=nope").status == .notFound)
            let story = try await browser.go(client, .get, "/console/marketplace/orders/\(orders[1])")
            #expect(story.status == .ok && story.body.contains("Released to seller and marketplace") && story.body.contains("Held in escrow") && story.body.contains("Shipped"))
            #expect(story.body.contains("Mug &lt;i&gt;") && story.body.contains("Sam Seller") && story.body.contains("/console/payments/pi_"))
            #expect(try await browser.go(client, .get, "/console/marketplace/orders/ord_nobody").status == .notFound)
            #expect(try await browser.go(client, .get, "/console/explorer?q=\(orders[0])").location == "/console/marketplace/orders/\(orders[0])")

            // A merchant that is not a marketplace has no marketplace page, and cannot read the orders.
            let shop = try #require(try await Self.form(client, "/v1/admin/merchants", key: admin, "name=Shop")["secret_key"] as? String)
            let other = ConsoleRoutesTests.Browser()
            _ = try await other.signIn(client, key: shop)
            #expect(try await other.go(client, .get, "/console/marketplace").status == .notFound)
            #expect(try await other.go(client, .get, "/console/marketplace/orders/\(orders[0])").status == .notFound)
            #expect(!(try await other.go(client, .get, "/console").body.contains("/console/marketplace")))
        }
    }

    /// A stop after an order's hold reached the ledger but before it was recorded, and a stop
    /// after an order was marked completed but before its release: the next start finds the
    /// first on the ledger (not held twice) and makes the second (released once).
    @Test func escrowMovesInterruptedByAStopHappenOnce() async throws {
        let directory = temporary.file(UUID().uuidString)
        let configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        final class Box: @unchecked Sendable { var world: World?; var orders: [String] = []; var seller = "" }
        let box = Box()
        try await buildApplication(configuration).test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let world = try await self.world(client, admin: admin)
            box.world = world
            box.seller = try #require(try await Self.call(client, .get, "/checkout/v1/me", token: world.seller)["account"] as? String)
            let lamp = try #require(try await Self.call(client, .post, "/checkout/v1/listings", token: world.seller, json: #"{"title":"Lamp","price":2500,"pickup":true,"country":"NL"}"#)["id"] as? String)
            for (listing, token) in [(world.listing, world.buyer), (lamp, world.other)] {
                let bid = try #require(try await Self.call(client, .post, "/checkout/v1/listings/\(listing)/buy", token: token)["id"] as? String)
                let order = try #require(try await Self.call(client, .post, "/checkout/v1/orders", token: token, json: #"{"bid":"\#(bid)","payment_method":"ideal"}"#)["id"] as? String)
                let paying = try await Self.call(client, .post, "/checkout/v1/orders/\(order)/pay", token: token, json: #"{"return_url":"https://shop.example/back"}"#)
                _ = try await Self.press(client, try #require((paying["next_action"] as? [String: Any])?["url"] as? String), "complete")
                #expect(try await Self.call(client, .get, "/checkout/v1/orders/\(order)", token: token)["status"] as? String == "paid")
                box.orders.append(order)
            }
            _ = try await Self.call(client, .post, "/checkout/v1/orders/\(box.orders[1])/ship", token: world.seller)
            #expect(try await Self.euros(client, world.escrow) == 10_199 + 2_699)
        }
        let world = try #require(box.world)
        // As the stops would leave them.
        let store = try SQLiteGatewayStore(path: configuration.gatewayDatabasePath)
        let merchants = try await store.merchants()
        func rewrite(_ id: String, _ change: (inout OrderRecord) throws -> Void) async throws {
            for merchant in merchants {
                guard let stored = try await store.object(id: id, kind: "checkout_order", merchant: merchant.id) else { continue }
                var order = try JSONDecoder().decode(OrderRecord.self, from: Data(stored.body))
                try change(&order)
                var updated = stored
                updated.body = Array(try JSONEncoder().encode(order))
                updated.attentionAt = 1
                #expect(try await store.update(updated))
            }
        }
        try await rewrite(box.orders[0]) { $0.holdTransaction = nil }
        try await rewrite(box.orders[1]) { _ = try $0.machine.complete(by: .buyer) }

        try await buildApplication(configuration).test(.router) { client in
            #expect(try await Self.euros(client, world.escrow) == 10_199, "the first not held twice, the second released")
            #expect(try await Self.euros(client, box.seller) == 2_250, "2,500 less 10%")
            let first = try await Self.call(client, .get, "/checkout/v1/orders/\(box.orders[0])", token: world.buyer)
            #expect(first["hold_transaction"] is String && first["status"] as? String == "paid")
            let second = try await Self.call(client, .get, "/checkout/v1/orders/\(box.orders[1])", token: world.other)
            #expect(second["release_transaction"] is String && second["status"] as? String == "completed")
        }
    }

    /// A paid order's cancellation stopped after it was claimed, before the escrow returned the
    /// money and the gateway refunded: after the restart the janitor finishes it once.
    @Test func aCancellationInterruptedByAStopIsFinished() async throws {
        let directory = temporary.file(UUID().uuidString)
        let configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        final class Box: @unchecked Sendable { var world: World?; var order = ""; var lamp = "" }
        let box = Box()
        try await buildApplication(configuration).test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let world = try await self.world(client, admin: admin)
            box.world = world
            box.lamp = try #require(try await Self.call(client, .post, "/checkout/v1/listings", token: world.seller, json: #"{"title":"Lamp","price":2500,"pickup":true,"country":"NL"}"#)["id"] as? String)
            for (listing, token) in [(world.listing, world.buyer), (box.lamp, world.other)] {
                let bid = try #require(try await Self.call(client, .post, "/checkout/v1/listings/\(listing)/buy", token: token)["id"] as? String)
                let order = try #require(try await Self.call(client, .post, "/checkout/v1/orders", token: token, json: #"{"bid":"\#(bid)","payment_method":"ideal"}"#)["id"] as? String)
                let paying = try await Self.call(client, .post, "/checkout/v1/orders/\(order)/pay", token: token, json: #"{"return_url":"https://shop.example/back"}"#)
                _ = try await Self.press(client, try #require((paying["next_action"] as? [String: Any])?["url"] as? String), "complete")
                #expect(try await Self.call(client, .get, "/checkout/v1/orders/\(order)", token: token)["status"] as? String == "paid")
                box.order = order
                if token == world.buyer {
                    // Completed: the marketplace earns 199 + 1,000 - 29.
                    _ = try await Self.call(client, .post, "/checkout/v1/orders/\(order)/ship", token: world.seller)
                    _ = try await Self.call(client, .post, "/checkout/v1/orders/\(order)/confirm", token: token)
                }
            }
            #expect(try await Self.euros(client, world.escrow) == 2_699)
        }
        let world = try #require(box.world)
        let store = try SQLiteGatewayStore(path: configuration.gatewayDatabasePath)
        var intentID = ""
        for merchant in try await store.merchants() {
            guard let stored = try await store.object(id: box.order, kind: "checkout_order", merchant: merchant.id) else { continue }
            var order = try JSONDecoder().decode(OrderRecord.self, from: Data(stored.body))
            _ = try order.machine.cancel()
            order.refund = "re_interrupted000000000000"
            intentID = order.paymentIntent ?? ""
            var updated = stored
            updated.body = Array(try JSONEncoder().encode(order))
            updated.attentionAt = Int64(Date().timeIntervalSince1970) + 86_400
            #expect(try await store.update(updated))
        }
        let intent = intentID
        let time = ManualTime.forServer()
        try await buildApplication(configuration, environment: time.environment).test(.router) { client in
            // The start-up recovery makes it due at once: the janitor's next pass finishes it.
            await time.advance(seconds: 1)
            let refunded = try await Self.call(client, .get, "/v1/payment_intents/\(intent)", token: world.marketplaceKey)["amount_refunded"] as? Int
            #expect(refunded == 2_699, "the whole total refunded once")
            #expect(try await Self.euros(client, world.escrow) == 0, "the escrow returned the lamp's money")
            #expect(try await Self.euros(client, world.settlement) == 1_170, "the lamp's whole payment went back")
            #expect(try await Self.call(client, .get, "/checkout/v1/listings/\(box.lamp)", token: world.buyer)["status"] as? String == "available")
            await time.advance(seconds: 86_400)
            #expect(try await Self.call(client, .get, "/v1/payment_intents/\(intent)", token: world.marketplaceKey)["amount_refunded"] as? Int == 2_699, "and not again")
        }
    }

    /// The buyer changes the delivery while the bank page for the old total is still open: the
    /// old intent is canceled first, so it can no longer pay, and the new total is what is paid
    /// and held.
    @Test func changingTheOrderWhileAtTheBankCancelsTheOldPayment() async throws {
        try await withWorld { client, world, _ in
            let bid = try #require(try await Self.call(client, .post, "/checkout/v1/listings/\(world.listing)/buy", token: world.buyer)["id"] as? String)
            let order = try #require(try await Self.call(client, .post, "/checkout/v1/orders", token: world.buyer, json: #"{"bid":"\#(bid)","payment_method":"ideal"}"#)["id"] as? String)
            let first = try await Self.call(client, .post, "/checkout/v1/orders/\(order)/pay", token: world.buyer, json: #"{"return_url":"https://shop.example/back"}"#)
            let oldBank = try #require((first["next_action"] as? [String: Any])?["url"] as? String)
            let changed = try await Self.call(client, .post, "/checkout/v1/orders", token: world.buyer, json: #"{"bid":"\#(bid)","delivery":"standard","payment_method":"ideal"}"#)
            #expect(changed["id"] as? String == order && changed["total"] as? Int == 10_894 && changed["status"] as? String == "awaiting_payment", "\(changed.json)")
            #expect(try await Self.press(client, oldBank, "complete") == .conflict, "the old total can no longer be paid")
            let second = try await Self.call(client, .post, "/checkout/v1/orders/\(order)/pay", token: world.buyer, json: #"{"return_url":"https://shop.example/back"}"#)
            #expect(try await Self.press(client, try #require((second["next_action"] as? [String: Any])?["url"] as? String), "complete") == .seeOther)
            let paid = try await Self.call(client, .get, "/checkout/v1/orders/\(order)", token: world.buyer)
            #expect(paid["status"] as? String == "paid" && paid["held_in_escrow"] as? Int == 10_894)
            #expect(try await Self.euros(client, world.escrow) == 10_894)
            // Asked again with the same choices: nothing changes.
            let same = try await Self.call(client, .post, "/checkout/v1/orders", token: world.buyer, json: #"{"bid":"\#(bid)","delivery":"standard","payment_method":"ideal"}"#)
            #expect(same["status"] as? String == "paid")
        }
    }

    /// Every route with another user's token: 404 or 403, nothing disclosed, nothing changed.
    @Test func anotherUsersTokenSeesAndChangesNothing() async throws {
        try await withWorld { client, world, admin in
            let bought = try await Self.call(client, .post, "/checkout/v1/listings/\(world.listing)/buy", token: world.buyer)
            let bid = try #require(bought["id"] as? String)
            for (method, uri, body) in [
                (HTTPRequest.Method.get, "/checkout/v1/bids/\(bid)", nil as String?), (.get, "/checkout/v1/bids/\(bid)/screen", nil),
                (.post, "/checkout/v1/bids/\(bid)/withdraw", nil), (.post, "/checkout/v1/bids/\(bid)/accept", nil),
                (.post, "/checkout/v1/totals", #"{"bid":"\#(bid)"}"#),
            ] {
                let answer = try await Self.call(client, method, uri, token: world.other, json: body)
                #expect(answer.status == .notFound && answer.error == "not_found" && !"\(answer.json)".contains(world.listing), "\(uri)")
            }
            // The seller sees the bid but it is not their screen or totals.
            #expect(try await Self.call(client, .get, "/checkout/v1/bids/\(bid)", token: world.seller).status == .ok)
            #expect(try await Self.call(client, .get, "/checkout/v1/bids/\(bid)/screen", token: world.seller).status == .forbidden)
            #expect(try await Self.call(client, .get, "/checkout/v1/bids/\(bid)", token: world.buyer)["status"] as? String == "accepted", "unchanged")
            // Tokens and keys in the wrong places.
            for token in [nil, "", "garbage", world.marketplaceKey, admin, world.buyer + "x"] {
                #expect(try await Self.call(client, .get, "/checkout/v1/me", token: token).status == .unauthorized, "\(token ?? "none")")
            }
            #expect(try await Self.call(client, .post, "/checkout/v1/users", token: world.buyer, json: #"{"name":"x"}"#).status == .unauthorized)
            #expect(try await Self.call(client, .post, "/checkout/v1/admin/marketplaces", token: world.marketplaceKey, json: #"{"name":"x"}"#).status == .unauthorized)
            #expect(try await Self.call(client, .get, "/checkout/v1/me", token: world.buyer)["name"] as? String == "Bea Buyer")
        }
    }

    /// Boundary values in every JSON field of every POST: a 200 or a 4xx error in the checkout's
    /// shape, never a 500.
    @Test func boundaryValuesNeverCrash() async throws {
        try await withWorld { client, world, admin in
            let bid = try #require(try await Self.call(client, .post, "/checkout/v1/listings/\(world.listing)/bids", token: world.buyer, json: #"{"amount":5000}"#)["id"] as? String)
            let values = BoundaryValues.integers + BoundaryValues.integers.map { "\"\($0)\"" } + ["1e400", "1.5", "-0", "true", "null", "[]", "{}", "\"\"", "\"" + String(repeating: "x", count: 5_000) + "\""]
            let routes: [(String, String, String)] = [
                ("/checkout/v1/listings/\(world.listing)/bids", world.other, #"{"amount":@}"#),
                ("/checkout/v1/listings", world.seller, #"{"title":@,"price":100,"country":"NL","pickup":true}"#),
                ("/checkout/v1/listings", world.seller, #"{"title":"t","price":@,"country":"NL","pickup":true}"#),
                ("/checkout/v1/listings", world.seller, #"{"title":"t","price":100,"country":@,"pickup":true}"#),
                ("/checkout/v1/listings", world.seller, #"{"title":"t","price":100,"country":"NL","delivery":[{"name":"s","costs":{"NL":@}}]}"#),
                ("/checkout/v1/totals", world.buyer, #"{"bid":"\#(bid)","delivery":@}"#),
                ("/checkout/v1/totals", world.buyer, #"{"bid":"\#(bid)","payment_method":@}"#),
                ("/checkout/v1/totals", world.buyer, #"{"bid":@}"#),
                ("/checkout/v1/users", world.marketplaceKey, #"{"name":@}"#),
                ("/checkout/v1/users", world.marketplaceKey, #"{"name":"n","addresses":[{"name":"n","line1":"l","postal_code":"p","city":"c","country":@}]}"#),
                ("/checkout/v1/admin/marketplaces", admin, #"{"name":"m","commission_bps":@}"#),
            ]
            var statuses: [Int: Int] = [:]
            for (uri, token, template) in routes {
                for value in values {
                    let answer = try await Self.call(client, .post, uri, token: token, json: template.replacingOccurrences(of: "@", with: value))
                    statuses[answer.status.code, default: 0] += 1
                    #expect(answer.status.code < 500 && (answer.status == .ok || answer.error != nil), "\(uri) \(value.prefix(30)) → \(answer.status)")
                }
            }
            #expect(statuses[400, default: 0] > 300, "\(statuses)")
            for value in BoundaryValues.all.map(BoundaryValues.percentEncoded) + BoundaryValues.rawEscapes {
                for uri in ["/checkout/v1/bids/\(value)", "/checkout/v1/listings/\(value)", "/checkout/v1/bids/\(bid)/screen?delivery=\(value)", "/checkout/v1/bids/\(bid)/screen?address=\(value)"] {
                    #expect(try await Self.call(client, .get, uri, token: world.buyer).status.code < 500, "\(uri.prefix(80))")
                }
            }
        }
    }
}
