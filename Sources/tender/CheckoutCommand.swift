import ArgumentParser
import CheckoutKit
import Foundation
import Gateway
import WalletKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tender checkout`: the marketplace checkout of a running `tender serve`, through CheckoutKit
/// (as a marketplace's app would use it), with `--json` for scripts.
struct CheckoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkout",
        abstract: "Seed a marketplace and buy, bid and pay through the checkout of a running tender serve.",
        subcommands: [Marketplaces.self, Demo.self, Listings.self, Bid.self, Accept.self, Buy.self, Totals.self, Pay.self, Order.self]
    )

    /// The user's side: the server and the user's token.
    struct UserOptions: ParsableArguments {
        @OptionGroup var connection: GatewayCommand.Connection

        @Option(help: "The user's access token. [env: TENDER_CHECKOUT_TOKEN]")
        var token: String?

        func client() throws -> CheckoutClient {
            guard let token = token ?? ProcessInfo.processInfo.environment["TENDER_CHECKOUT_TOKEN"], !token.isEmpty else {
                throw ValidationError("give the user's token with --token or TENDER_CHECKOUT_TOKEN")
            }
            guard let base = URL(string: connection.baseURL) else { throw ValidationError("--url is not a URL") }
            return CheckoutClient(base: base, token: token)
        }
    }

    /// Prints `value` as JSON (for --json) or as text lines.
    static func show<Value: Encodable>(_ value: Value, json: Bool, _ text: () -> String) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(value), as: UTF8.self))
        } else {
            print(text())
        }
        fflush(nil)
    }

    static func run<Answer>(_ call: () async throws(CheckoutClientError) -> Answer) async throws -> Answer {
        do {
            return try await call()
        } catch {
            switch error {
            case .api(let status, let code, let message): throw CheckoutFailure(text: "\(code) (\(status)): \(message)")
            case .transport(let text): throw CheckoutFailure(text: "the server cannot be reached: \(text)")
            }
        }
    }

    static func money(_ minor: Int64) -> String { "€" + FiatConversion.format(minorUnits: minor, exponent: 2) }

    struct Marketplaces: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make marketplaces.", subcommands: [Create.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Make a marketplace: a gateway merchant with an escrow account; prints its keys once.")
            @OptionGroup var connection: GatewayCommand.Connection
            @Option(help: "The data directory of the running tender serve (its admin key). [env: TENDER_DATA] (default: .tender)")
            var data: String?
            @Option(help: "The commission on each item, in basis points (1000 = 10%).")
            var commissionBps: Int64?
            @Argument(help: "The marketplace's name.")
            var name: String

            func run() async throws {
                var body = ["name": name] as [String: Any]
                if let commissionBps { body["commission_bps"] = commissionBps }
                let made = try await CheckoutCommand.admin(connection.baseURL, data: data, body)
                if connection.json {
                    print(String(decoding: try JSONSerialization.data(withJSONObject: made, options: [.sortedKeys]), as: UTF8.self))
                } else {
                    let marketplace = made["marketplace"] as? [String: Any]
                    print("Marketplace \(marketplace?["id"] ?? "") \"\(name)\"\nsecret key (shown once): \(made["secret_key"] ?? "")\nescrow account: \(marketplace?["escrow_account"] ?? "")")
                }
                fflush(nil)
            }
        }
    }

    /// `POST /checkout/v1/admin/marketplaces` with the data directory's admin key.
    static func admin(_ base: String, data: String?, _ body: [String: Any]) async throws -> [String: Any] {
        try await post(base + "/checkout/v1/admin/marketplaces", bearer: try GatewayCommand.Merchants.adminKey(data: data), json: body)
    }

    static func post(_ url: String, bearer: String, json body: [String: Any]? = nil, form: String? = nil) async throws -> [String: Any] {
        guard let target = URL(string: url) else { throw ValidationError("not a URL: \(url)") }
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        } else if let form {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.utf8)
        }
        let (status, data) = try await URLSessionTransport().send(request)
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        guard (200..<300).contains(status) else {
            let error = object["error"] as? [String: Any]
            throw CheckoutFailure(text: "\(error?["code"] ?? "http_\(status)") (\(status)): \(error?["message"] ?? String(decoding: data, as: UTF8.self))")
        }
        return object
    }

    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Seed a marketplace: a seller, buyers (one a business in the UK), listings with shipping costs and saved cards; prints their tokens and the shop's URL.")
        @OptionGroup var connection: GatewayCommand.Connection
        @Option(help: "The data directory of the running tender serve (its admin key). [env: TENDER_DATA] (default: .tender)")
        var data: String?

        func run() async throws {
            let base = connection.baseURL
            let made = try await CheckoutCommand.admin(base, data: data, ["name": "Tender demo market"])
            guard let key = made["secret_key"] as? String else { throw CheckoutFailure(text: "no marketplace was made") }
            func user(_ name: String, business: Bool = false, country: String = "NL", city: String = "Amsterdam") async throws -> [String: Any] {
                try await CheckoutCommand.post(base + "/checkout/v1/users", bearer: key, json: [
                    "name": name, "business": business,
                    "addresses": [["name": name, "line1": "Main street 1", "postal_code": "1000 AA", "city": city, "country": country]],
                ])
            }
            let seller = try await user("Sam Seller")
            let buyer = try await user("Bea Buyer")
            let business = try await user("Bob Business Ltd", business: true, country: "GB", city: "London")
            let sellerToken = seller["token"] as? String ?? ""
            let delivery: [[String: Any]] = [["name": "standard", "costs": ["NL": 695, "BE": 995, "GB": 1_495]], ["name": "registered", "costs": ["NL": 895, "BE": 1_295]]]
            var listings: [(String, String)] = []
            for (title, price, pickup) in [("Bicycle", 10_000, true), ("Reading lamp", 2_500, false), ("Oak desk", 24_900, true)] as [(String, Int, Bool)] {
                let listing = try await CheckoutCommand.post(base + "/checkout/v1/listings", bearer: sellerToken, json: [
                    "title": title, "price": price, "pickup": pickup, "country": "NL", "delivery": delivery,
                ])
                listings.append((listing["id"] as? String ?? "", title))
            }
            // Saved cards for the buyer: one plain, one that asks for 3-D Secure.
            var cards: [String] = []
            let customer = (buyer["user"] as? [String: Any])?["customer"] as? String ?? ""
            for number in ["4242424242424242", "4000002500003155"] {
                let card = try await CheckoutCommand.post(base + "/v1/payment_methods", bearer: key, form: "type=card&card[number]=\(number)&card[exp_month]=12&card[exp_year]=2034&card[cvc]=123")
                let id = card["id"] as? String ?? ""
                _ = try await CheckoutCommand.post(base + "/v1/payment_methods/\(id)/attach", bearer: key, form: "customer=\(customer)")
                cards.append(id)
            }
            let result: [String: Any] = [
                "marketplace": (made["marketplace"] as? [String: Any])?["id"] ?? "", "secret_key": key,
                "seller": sellerToken, "buyer": buyer["token"] ?? "", "business_buyer": business["token"] ?? "",
                "listings": listings.map { ["id": $0.0, "title": $0.1] }, "buyer_cards": cards,
                "shop": "\(base)/shop/login?token=\(buyer["token"] ?? "")",
            ]
            if connection.json {
                print(String(decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]), as: UTF8.self))
            } else {
                print("""
                    Marketplace \(result["marketplace"] ?? "") (secret key \(key))
                    seller token:         \(sellerToken)
                    buyer token:          \(buyer["token"] ?? "")
                    business buyer token: \(business["token"] ?? "")
                    listings:             \(listings.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
                    buyer's saved cards:  \(cards[0]) (Visa 4242), \(cards[1]) (3-D Secure)
                    shop page:            \(result["shop"] ?? "")
                    """)
            }
            fflush(nil)
        }
    }

    struct Listings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the listings on sale.")
        @OptionGroup var user: UserOptions

        func run() async throws {
            let client = try user.client()
            let listings = try await CheckoutCommand.run { () async throws(CheckoutClientError) in try await client.listings() }
            try CheckoutCommand.show(listings, json: user.connection.json) {
                listings.map { "\($0.id)  \($0.title)  \(CheckoutCommand.money($0.price))\($0.buy_now ? "  buy now" : "")" }.joined(separator: "\n")
            }
        }
    }

    struct Bid: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Bid on a listing (amount in cents).")
        @OptionGroup var user: UserOptions
        @Argument var listing: String
        @Argument var amount: Int64

        func run() async throws {
            let client = try user.client()
            let bid = try await CheckoutCommand.run { () async throws(CheckoutClientError) in try await client.bid(on: listing, amount: amount) }
            try CheckoutCommand.show(bid, json: user.connection.json) { "Bid \(bid.id) of \(CheckoutCommand.money(bid.amount)): \(bid.status)" }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept a bid on your listing.")
        @OptionGroup var user: UserOptions
        @Argument var bid: String

        func run() async throws {
            let client = try user.client()
            let accepted = try await CheckoutCommand.run { () async throws(CheckoutClientError) in try await client.accept(bid) }
            try CheckoutCommand.show(accepted, json: user.connection.json) { "Bid \(accepted.id): \(accepted.status)" }
        }
    }

    struct Buy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Buy a listing now (a bid at the asking price, accepted at once).")
        @OptionGroup var user: UserOptions
        @Argument var listing: String

        func run() async throws {
            let client = try user.client()
            let bid = try await CheckoutCommand.run { () async throws(CheckoutClientError) in try await client.buyNow(listing) }
            try CheckoutCommand.show(bid, json: user.connection.json) { "Bought: bid \(bid.id) of \(CheckoutCommand.money(bid.amount)), \(bid.status)" }
        }
    }

    struct Choice: ParsableArguments {
        @Option(help: "pickup, or a delivery method (standard, registered...).")
        var delivery: String?
        @Option(help: "One of your addresses' ids (default: the first).")
        var address: String?
        @Option(help: "card, ideal or bancontact.")
        var paymentMethod = "ideal"

        var choices: CheckoutChoices { CheckoutChoices(delivery: delivery, address: address, paymentMethod: paymentMethod) }
    }

    struct Totals: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the totals of a bid for your choices.")
        @OptionGroup var user: UserOptions
        @OptionGroup var choice: Choice
        @Argument var bid: String

        func run() async throws {
            let client = try user.client()
            let totals = try await CheckoutCommand.run { () async throws(CheckoutClientError) in try await client.totals(bid, choice.choices) }
            try CheckoutCommand.show(totals, json: user.connection.json) {
                (totals.lines.map { "\($0.kind.padding(toLength: 12, withPad: " ", startingAt: 0)) \(CheckoutCommand.money($0.amount))" }
                    + ["total        \(CheckoutCommand.money(totals.total))"]).joined(separator: "\n")
            }
        }
    }

    struct Pay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Order a bid (or update its pending order) and pay; prints the page to open, if any.")
        @OptionGroup var user: UserOptions
        @OptionGroup var choice: Choice
        @Option(help: "A saved card's id (pm_...), for card.")
        var card: String?
        @Option(help: "Where the payment page sends the buyer back.")
        var returnURL = "http://127.0.0.1:8000/health"
        @Argument var bid: String

        func run() async throws {
            let client = try user.client()
            guard let back = URL(string: returnURL) else { throw ValidationError("--return-url is not a URL") }
            let order = try await CheckoutCommand.run { () async throws(CheckoutClientError) in try await client.createOrder(bid, choice.choices) }
            let payment = try await CheckoutCommand.run { () async throws(CheckoutClientError) in
                try await client.pay(order.id, paymentMethod: choice.paymentMethod, card: card, returnURL: back)
            }
            struct Shown: Encodable { let order: CheckoutOrder; let redirect: String?; let error: String? }
            try CheckoutCommand.show(Shown(order: payment.order, redirect: payment.redirect?.absoluteString, error: payment.error), json: user.connection.json) {
                var lines = ["Order \(payment.order.id): \(payment.order.status), total \(CheckoutCommand.money(payment.order.total))"]
                if let redirect = payment.redirect { lines.append("open: \(redirect.absoluteString)") }
                if let error = payment.error { lines.append("refused: \(error)") }
                return lines.joined(separator: "\n")
            }
        }
    }

    struct Order: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an order (its payment asked of the gateway).")
        @OptionGroup var user: UserOptions
        @Argument var order: String

        func run() async throws {
            let client = try user.client()
            let found = try await CheckoutCommand.run { () async throws(CheckoutClientError) in try await client.order(order) }
            try CheckoutCommand.show(found, json: user.connection.json) {
                "Order \(found.id): \(found.status), total \(CheckoutCommand.money(found.total)), in escrow \(CheckoutCommand.money(found.held_in_escrow))"
            }
        }
    }
}

/// A refusal from the checkout, printed as such.
struct CheckoutFailure: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}
