import Checkout
import CheckoutCore
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import Logging
import TenderJSON

/// The marketplace checkout's API under `/checkout/v1` (JSON): marketplaces (admin key), users
/// (the marketplace's secret key), listings, bids, totals and the payment screen's state (the
/// user's token). Each handler reads its body, calls the checkout's core once and renders what
/// it answers; the core decides who may see and do what.
struct CheckoutRoutes: Sendable {
    let service: CheckoutService
    let routes: GatewayRoutes
    let logger: Logger
    static let maxBodyBytes = 64 * 1024

    func register(on router: Router<BasicRequestContext>) {
        let base = router.group("checkout/v1")
        base.add(middleware: APIErrorMiddleware(shape: CheckoutErrorShape(), logger: logger))
        let v1 = base.group(context: CheckoutRequestContext.self)
        v1.add(middleware: CheckoutAuthenticator(service: service))
        v1.post("admin/marketplaces") { request, context in try await createMarketplace(request) }
        v1.post("users") { request, context in try await createUser(request, context) }
        v1.get("me") { request, context in json(CheckoutObjects.user(try context.requireCaller().user)) }
        v1.post("listings") { request, context in try await createListing(request, context) }
        v1.get("listings/:id") { request, context in
            json(CheckoutObjects.listing(try await service.listing(RecordID(try context.parameters.require("id")), try context.requireCaller())))
        }
        v1.get("listings") { request, context in
            let listings = try await service.listingsOnSale(try context.requireCaller())
            return json(.object([("object", "list"), ("data", .array(listings.map(CheckoutObjects.listing)))]))
        }
        v1.post("listings/:id/bids") { request, context in
            let caller = try context.requireCaller()
            struct Body: Decodable { var amount: Int64 }
            let amount = try await decode(Body.self, request).amount
            return json(CheckoutObjects.bid(try await service.bid(amount, on: RecordID(try context.parameters.require("id")), by: caller)))
        }
        v1.post("listings/:id/buy") { request, context in
            json(CheckoutObjects.bid(try await service.buyNow(RecordID(try context.parameters.require("id")), by: try context.requireCaller())))
        }
        v1.get("bids/:id") { request, context in
            json(CheckoutObjects.bid(try await service.visibleBid(RecordID(try context.parameters.require("id")), try context.requireCaller()).0))
        }
        for action in CheckoutService.BidAction.allCases {
            v1.post("bids/:id/\(action.rawValue)") { request, context in
                json(CheckoutObjects.bid(try await service.move(RecordID(try context.parameters.require("id")), action, by: try context.requireCaller(), base: request.baseURL)))
            }
        }
        v1.post("totals") { request, context in
            let caller = try context.requireCaller()
            struct Body: Decodable { var bid: String; var delivery: String?; var address: String?; var payment_method: String? }
            let body = try await decode(Body.self, request)
            let (totals, choices) = try await service.totals(bid: BidID(body.bid), delivery: body.delivery, address: body.address, payment: body.payment_method, caller)
            return json(CheckoutObjects.totals(totals, choices))
        }
        v1.get("bids/:id/screen") { request, context in try await screen(request, context, bidID: RecordID(try context.parameters.require("id"))) }
        registerOrders(on: v1)
    }

    func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        routes.json(value, status: status)
    }

    /// The bearer token of a request: at most 2,048 bytes.
    static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], let token = bearerToken(header) else { return nil }
        return token.isEmpty || token.utf8.count > 2_048 ? nil : token
    }

    /// A JSON body as `Body`, strictly typed.
    func decode<Body: Decodable>(_ type: Body.Type, _ request: Request) async throws -> Body {
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maxBodyBytes)
        do {
            return try JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            let field = error.fieldPath
            throw CheckoutFailure.invalid("body_invalid", field.isEmpty ? "The body must be a JSON object." : "\(field) is missing or has the wrong type.")
        }
    }

    // MARK: Marketplaces and users

    func createMarketplace(_ request: Request) async throws -> Response {
        guard routes.isAdmin(request) else {
            throw CheckoutFailure(.unauthorized, code: "unauthorized", message: "The admin routes take the admin key of the data directory (admin.key) as a Bearer token.")
        }
        struct Body: Decodable {
            var name: String
            var commission_bps: Int64?, ideal_fee: Int64?, bancontact_fee: Int64?, card_bps: Int64?, vat_bps: Int64?
            var order_expiry_seconds: Int64?, release_after_seconds: Int64?
        }
        let body = try await decode(Body.self, request)
        let reference = MarketplaceCharges.reference
        let charges = MarketplaceCharges(
            commissionBasisPoints: body.commission_bps ?? reference.commissionBasisPoints, idealFee: body.ideal_fee ?? reference.idealFee,
            bancontactFee: body.bancontact_fee ?? reference.bancontactFee, cardBasisPoints: body.card_bps ?? reference.cardBasisPoints,
            vatBasisPoints: body.vat_bps ?? reference.vatBasisPoints)
        let made = try await service.createMarketplace(
            name: body.name, charges: charges, orderExpirySeconds: body.order_expiry_seconds ?? 3_600, releaseAfterSeconds: body.release_after_seconds ?? 14 * 86_400)
        return json(.object([
            ("marketplace", CheckoutObjects.marketplace(made.record)),
            ("secret_key", .string(made.merchant.secretKey)), ("publishable_key", .string(made.merchant.publishableKey)),
            ("settlement_account", .string(made.merchant.record.settlementAccount)),
        ]))
    }

    func createUser(_ request: Request, _ context: CheckoutRequestContext) async throws -> Response {
        guard let key = context.bearer else { throw CheckoutFailure.unauthorized }
        let (merchant, marketplace) = try await service.authenticateMarketplace(key: key)
        struct AddressBody: Decodable { var name: String, line1: String, postal_code: String, city: String, country: String }
        struct Body: Decodable { var name: String; var business: Bool?; var addresses: [AddressBody]? }
        let body = try await decode(Body.self, request)
        let addresses = (body.addresses ?? []).map { NewAddress(name: $0.name, line1: $0.line1, postalCode: $0.postal_code, city: $0.city, country: $0.country) }
        let (user, token) = try await service.createUser(
            name: body.name, business: body.business ?? false, addresses: addresses, in: CheckoutService.Market(merchant: merchant, marketplace: marketplace))
        return json(.object([("user", CheckoutObjects.user(user)), ("token", .string(token))]))
    }

    // MARK: Listings

    func createListing(_ request: Request, _ context: CheckoutRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        struct Method: Decodable { var name: String; var costs: [String: Int64] }
        struct Body: Decodable {
            var title: String, price: Int64, currency: String?, buy_now: Bool?, pickup: Bool?, country: String, delivery: [Method]?
        }
        let body = try await decode(Body.self, request)
        let new = NewListing(
            title: body.title, price: body.price, currency: body.currency ?? "eur", buyNow: body.buy_now ?? true, pickup: body.pickup ?? false,
            country: body.country, delivery: (body.delivery ?? []).map { DeliveryMethod(name: $0.name, costs: $0.costs) })
        return json(CheckoutObjects.listing(try await service.createListing(new, by: caller)))
    }

    // MARK: The screen

    /// Everything the payment screen needs before the buyer can act, in one answer (query:
    /// delivery, address, payment_method).
    func screen(_ request: Request, _ context: CheckoutRequestContext, bidID: BidID) async throws -> Response {
        let caller = try context.requireCaller()
        let query = try StripeForm(body: request.uri.query ?? "")
        let screen = try await service.screen(
            bid: bidID, delivery: try query.string("delivery", maxLength: 40), address: try query.string("address", maxLength: 40),
            payment: try query.string("payment_method", maxLength: 20), caller)
        var fields: [(String, JSONValue)] = [
            ("user", CheckoutObjects.user(screen.user)), ("listing", CheckoutObjects.listing(screen.listing)), ("bid", CheckoutObjects.bid(screen.bid)),
            ("cards", .array(screen.cards.map(GatewayObjects.paymentMethod))), ("order", screen.order.map(CheckoutObjects.order) ?? .null),
        ]
        switch screen.totals {
        case .success(let totals):
            fields.append(("totals", CheckoutObjects.totals(totals, screen.choices)))
        case .failure(let problem):
            fields.append(("totals", .null))
            fields.append(("totals_error", .object([("code", .string(problem.code)), ("message", .string(problem.message))])))
        }
        return json(.object(fields))
    }
}

/// The checkout's JSON shapes.
enum CheckoutObjects {
    static func marketplace(_ marketplace: MarketplaceRecord) -> JSONValue {
        let charges = marketplace.charges
        return .object([
            ("id", .string(marketplace.id.rawValue)), ("object", "marketplace"), ("name", .string(marketplace.name)),
            ("commission_bps", .number(charges.commissionBasisPoints)), ("ideal_fee", .number(charges.idealFee)),
            ("bancontact_fee", .number(charges.bancontactFee)), ("card_bps", .number(charges.cardBasisPoints)), ("vat_bps", .number(charges.vatBasisPoints)),
            ("escrow_account", .string(marketplace.escrowAccount)), ("order_expiry_seconds", .number(marketplace.orderExpirySeconds)),
            ("release_after_seconds", .number(marketplace.releaseAfterSeconds)), ("created", .number(marketplace.created)),
        ])
    }

    static func user(_ user: CheckoutUserRecord) -> JSONValue {
        .object([
            ("id", .string(user.id.rawValue)), ("object", "user"), ("name", .string(user.name)), ("business", .bool(user.business)),
            ("addresses", .array(user.addresses.map { address in
                .object([("id", .string(address.id)), ("name", .string(address.name)), ("line1", .string(address.line1)),
                         ("postal_code", .string(address.postalCode)), ("city", .string(address.city)), ("country", .string(address.country))])
            })),
            ("customer", .string(user.customer)), ("account", user.account.map(JSONValue.string) ?? .null), ("created", .number(user.created)),
        ])
    }

    static func listing(_ listing: ListingRecord) -> JSONValue {
        .object([
            ("id", .string(listing.id.rawValue)), ("object", "listing"), ("seller", .string(listing.seller.rawValue)), ("title", .string(listing.title)),
            ("price", .number(listing.price)), ("currency", .string(listing.currency)), ("buy_now", .bool(listing.buyNow)),
            ("pickup", .bool(listing.pickup)), ("country", .string(listing.country)),
            ("delivery", .array(listing.delivery.map { method in
                .object([("name", .string(method.name)), ("costs", .object(method.costs.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) }))])
            })),
            ("status", .string(listing.status.rawValue)), ("created", .number(listing.created)),
        ])
    }

    static func bid(_ bid: BidRecord) -> JSONValue {
        .object([
            ("id", .string(bid.id.rawValue)), ("object", "bid"), ("listing", .string(bid.listing.rawValue)), ("buyer", .string(bid.buyer.rawValue)), ("seller", .string(bid.seller.rawValue)),
            ("amount", .number(bid.amount)), ("currency", .string(bid.currency)), ("buy_now", .bool(bid.machine.buyNow)),
            ("status", .string(bid.machine.status.rawValue)), ("order", bid.order.map { .string($0.rawValue) } ?? .null), ("created", .number(bid.created)),
        ])
    }

    static func totals(_ totals: Totals, _ choices: Choices) -> JSONValue {
        let delivery: String
        switch choices.delivery {
        case .pickup: delivery = "pickup"
        case .method(let name): delivery = name
        }
        return .object([
            ("object", "totals"), ("delivery", .string(delivery)), ("address", choices.address.map { .string($0.id) } ?? .null),
            ("payment_method", .string(choices.payment.rawValue)),
            ("lines", .array(totals.lines.map { .object([("kind", .string($0.kind.rawValue)), ("amount", .number($0.amount))]) })),
            ("total", .number(totals.total)), ("currency", "eur"),
        ])
    }
}
