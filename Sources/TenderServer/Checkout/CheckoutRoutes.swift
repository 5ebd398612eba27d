import Checkout
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import Logging
import TenderJSON

/// The marketplace checkout's API under `/checkout/v1` (JSON): marketplaces (admin key), users
/// (the marketplace's secret key), listings, bids, totals and the payment screen's state (the
/// user's token). A user reaches only their own bids and a seller only their listings' bids:
/// anything else is 404, nothing disclosed.
struct CheckoutRoutes: Sendable {
    let service: CheckoutService
    let routes: GatewayRoutes
    let logger: Logger
    static let maxBodyBytes = 64 * 1024

    func register(on router: Router<BasicRequestContext>) {
        let v1 = router.group("checkout/v1")
        v1.add(middleware: APIErrorMiddleware(shape: CheckoutErrorShape(), logger: logger))
        v1.post("admin/marketplaces") { request, _ in try await createMarketplace(request) }
        v1.post("users") { request, _ in try await createUser(request) }
        v1.get("me") { request, _ in
            let caller = try await service.authenticateUser(request)
            return json(CheckoutObjects.user(caller.user))
        }
        v1.post("listings") { request, _ in try await createListing(request) }
        v1.get("listings/:id") { request, context in
            let caller = try await service.authenticateUser(request)
            let (listing, _) = try await service.load(ListingRecord.self, id: try context.parameters.require("id"), kind: "listing", in: caller, what: "listing")
            return json(CheckoutObjects.listing(listing))
        }
        v1.get("listings") { request, _ in
            let caller = try await service.authenticateUser(request)
            // The newest 100 listings on sale.
            let page = try await service.gateway.store.list(kind: "listing", merchant: caller.merchant.id, ListRequest(limit: 100))
            let listings = try page.objects.map { try service.gateway.records.decode(ListingRecord.self, $0) }.filter { $0.status == .available }
            return json(.object([("object", "list"), ("data", .array(listings.map(CheckoutObjects.listing)))]))
        }
        v1.post("listings/:id/bids") { request, context in try await bid(request, listingID: try context.parameters.require("id")) }
        v1.post("listings/:id/buy") { request, context in try await buyNow(request, listingID: try context.parameters.require("id")) }
        v1.get("bids/:id") { request, context in
            let caller = try await service.authenticateUser(request)
            let (bid, _) = try await visibleBid(try context.parameters.require("id"), caller)
            return json(CheckoutObjects.bid(bid))
        }
        for action in ["accept", "reject", "withdraw"] {
            v1.post("bids/:id/\(action)") { request, context in try await move(request, bidID: try context.parameters.require("id"), action: action) }
        }
        v1.post("totals") { request, _ in try await totals(request) }
        v1.get("bids/:id/screen") { request, context in try await screen(request, bidID: try context.parameters.require("id")) }
        registerOrders(on: v1)
    }

    func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        routes.json(value, status: status)
    }

    /// A JSON body as `Body`, strictly typed.
    func decode<Body: Decodable>(_ type: Body.Type, _ request: Request) async throws -> Body {
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maxBodyBytes)
        do {
            return try JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            let field = error.fieldPath
            throw CheckoutError.invalid("body_invalid", field.isEmpty ? "The body must be a JSON object." : "\(field) is missing or has the wrong type.")
        }
    }

    static func text(_ value: String, _ field: String, maxLength: Int = 200) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.count <= maxLength else { throw CheckoutError.invalid("parameter_invalid", "\(field) must be 1 to \(maxLength) bytes.") }
        return trimmed
    }

    static func amount(_ value: Int64, _ field: String) throws -> Int64 {
        guard value >= 1, value <= CheckoutRules.maxTotal else { throw CheckoutError.invalid("amount_invalid", "\(field) must be 1 to \(CheckoutRules.maxTotal) minor units.") }
        return value
    }

    // MARK: Marketplaces and users

    func createMarketplace(_ request: Request) async throws -> Response {
        try routes.checkAdmin(request)
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
        guard charges.isValid else { throw CheckoutError.invalid("charges_invalid", "Rates are 0 to 10,000 basis points, flat fees 0 to 100,000 minor units.") }
        let expiry = body.order_expiry_seconds ?? 3_600, release = body.release_after_seconds ?? 14 * 86_400
        guard (1...31_536_000).contains(expiry), (1...31_536_000).contains(release) else {
            throw CheckoutError.invalid("parameter_invalid", "Expiry and release times are 1 second to a year.")
        }
        let made = try await service.createMarketplace(name: try Self.text(body.name, "name"), charges: charges, orderExpirySeconds: expiry, releaseAfterSeconds: release)
        return json(.object([
            ("marketplace", CheckoutObjects.marketplace(made.record)),
            ("secret_key", .string(made.merchant.secretKey)), ("publishable_key", .string(made.merchant.publishableKey)),
            ("settlement_account", .string(made.merchant.record.settlementAccount)),
        ]))
    }

    struct AddressBody: Decodable {
        var name: String, line1: String, postal_code: String, city: String, country: String
    }

    func createUser(_ request: Request) async throws -> Response {
        let (merchant, marketplace) = try await service.authenticateMarketplace(request)
        struct Body: Decodable { var name: String; var business: Bool?; var addresses: [AddressBody]? }
        let body = try await decode(Body.self, request)
        guard (body.addresses ?? []).count <= 20 else { throw CheckoutError.invalid("parameter_invalid", "A user has at most 20 addresses.") }
        let addresses = try (body.addresses ?? []).map { address in
            guard Address.isCountry(address.country) else { throw CheckoutError.invalid("country_invalid", "country is two capital letters (ISO 3166).") }
            return Address(
                id: GatewayIDs.make("adr", random: service.gateway.random, length: 12), name: try Self.text(address.name, "name"),
                line1: try Self.text(address.line1, "line1"), postalCode: try Self.text(address.postal_code, "postal_code", maxLength: 20),
                city: try Self.text(address.city, "city"), country: address.country)
        }
        let customer = CustomerRecord(id: GatewayIDs.make("cus", random: service.gateway.random, length: 14), created: service.gateway.now(), name: try Self.text(body.name, "name"))
        try await service.gateway.insert(customer, id: customer.id, kind: "customer", merchant: merchant)
        var user = CheckoutUserRecord(
            id: GatewayIDs.make("usr", random: service.gateway.random, length: 16), name: try Self.text(body.name, "name"),
            business: body.business ?? false, addresses: addresses, customer: customer.id, created: service.gateway.now())
        (user.account, user.sealedSeed) = try await service.createLedgerAccount()
        try await service.gateway.insert(user, id: user.id, kind: "checkout_user", merchant: merchant)
        return json(.object([("user", CheckoutObjects.user(user)), ("token", .string(try await service.token(for: user, marketplace: marketplace)))]))
    }

    // MARK: Listings and bids

    func createListing(_ request: Request) async throws -> Response {
        let caller = try await service.authenticateUser(request)
        struct Method: Decodable { var name: String; var costs: [String: Int64] }
        struct Body: Decodable {
            var title: String, price: Int64, currency: String?, buy_now: Bool?, pickup: Bool?, country: String, delivery: [Method]?
        }
        let body = try await decode(Body.self, request)
        guard (body.currency ?? "eur") == "eur" else { throw CheckoutError.invalid("currency_invalid", "The marketplace sells in eur.") }
        guard Address.isCountry(body.country) else { throw CheckoutError.invalid("country_invalid", "country is two capital letters (ISO 3166).") }
        let methods = try (body.delivery ?? []).map { method in
            guard method.costs.count <= 250, method.costs.keys.allSatisfy(Address.isCountry), method.costs.values.allSatisfy({ (0...CheckoutRules.maxTotal).contains($0) }) else {
                throw CheckoutError.invalid("delivery_invalid", "Delivery costs are by country (two capital letters), 0 to 99,999,999 minor units.")
            }
            return DeliveryMethod(name: try Self.text(method.name, "delivery.name", maxLength: 40), costs: method.costs)
        }
        guard methods.count <= 10, Set(methods.map(\.name)).count == methods.count else { throw CheckoutError.invalid("delivery_invalid", "At most 10 delivery methods, each named once.") }
        guard body.pickup ?? false || !methods.isEmpty else { throw CheckoutError.invalid("delivery_invalid", "Offer pickup or at least one delivery method.") }
        let listing = ListingRecord(
            id: GatewayIDs.make("lst", random: service.gateway.random, length: 16), seller: caller.user.id, title: try Self.text(body.title, "title"),
            price: try Self.amount(body.price, "price"), currency: "eur", buyNow: body.buy_now ?? true, pickup: body.pickup ?? false,
            delivery: methods, country: body.country, created: service.gateway.now())
        try await service.gateway.insert(listing, id: listing.id, kind: "listing", merchant: caller.merchant, customer: caller.user.id)
        return json(CheckoutObjects.listing(listing))
    }

    /// A bid the caller may see: their own, or one on their listing.
    func visibleBid(_ id: String, _ caller: CheckoutService.Caller) async throws -> (BidRecord, StoredObject) {
        let (bid, stored) = try await service.load(BidRecord.self, id: id, kind: "bid", in: caller, what: "bid")
        guard bid.buyer == caller.user.id || bid.seller == caller.user.id else { throw CheckoutError.notFound("bid") }
        return (bid, stored)
    }

    func bid(_ request: Request, listingID: String) async throws -> Response {
        let caller = try await service.authenticateUser(request)
        struct Body: Decodable { var amount: Int64 }
        let amount = try Self.amount(try await decode(Body.self, request).amount, "amount")
        let (listing, _) = try await service.load(ListingRecord.self, id: listingID, kind: "listing", in: caller, what: "listing")
        guard listing.seller != caller.user.id else { throw CheckoutError.forbidden("A seller does not bid on their own listing.") }
        guard listing.status == .available else { throw CheckoutError.conflict("listing_unavailable", "This listing is \(listing.status.rawValue).") }
        let bid = BidRecord(
            id: GatewayIDs.make("bid", random: service.gateway.random, length: 16), listing: listing.id, buyer: caller.user.id, seller: listing.seller,
            amount: amount, currency: listing.currency, machine: BidMachine(buyNow: false), created: service.gateway.now())
        try await service.gateway.insert(bid, id: bid.id, kind: "bid", merchant: caller.merchant, customer: listing.id)
        return json(CheckoutObjects.bid(bid))
    }

    /// Buy now: a bid at the asking price, accepted at once, reserving the listing in the same
    /// write; of two buyers at the same moment exactly one gets it, the other a 409.
    func buyNow(_ request: Request, listingID: String) async throws -> Response {
        json(CheckoutObjects.bid(try await buyNow(try await service.authenticateUser(request), listingID: listingID)))
    }

    func buyNow(_ caller: CheckoutService.Caller, listingID: String) async throws -> BidRecord {
        var (listing, stored) = try await service.load(ListingRecord.self, id: listingID, kind: "listing", in: caller, what: "listing")
        guard listing.seller != caller.user.id else { throw CheckoutError.forbidden("A seller does not buy their own listing.") }
        guard listing.buyNow else { throw CheckoutError.invalid("buy_now_not_offered", "This listing takes bids only.") }
        guard listing.status == .available else { throw CheckoutError.conflict("listing_unavailable", "This listing is \(listing.status.rawValue).") }
        let bid = BidRecord(
            id: GatewayIDs.make("bid", random: service.gateway.random, length: 16), listing: listing.id, buyer: caller.user.id, seller: listing.seller,
            amount: listing.price, currency: listing.currency, machine: BidMachine(buyNow: true), created: service.gateway.now())
        listing.status = .reserved
        listing.bid = bid.id
        var updated = stored
        updated.body = Array(try GatewayService.encoder.encode(listing))
        let bidObject = StoredObject(id: bid.id, merchant: caller.merchant.id, kind: "bid", customer: listing.id, created: bid.created, body: Array(try GatewayService.encoder.encode(bid)))
        guard try await service.gateway.store.update(updated, inserting: bidObject) else {
            throw CheckoutError.conflict("listing_unavailable", "Someone else bought this listing first.")
        }
        stored = updated
        return bid
    }

    /// Accept and reject (the seller), withdraw (the buyer). Accepting reserves the listing
    /// first, with its version checked, so two accepted bids on one listing cannot both stand.
    func move(_ request: Request, bidID: String, action: String) async throws -> Response {
        let caller = try await service.authenticateUser(request)
        var (bid, storedBid) = try await visibleBid(bidID, caller)
        let actor: CheckoutActor = bid.seller == caller.user.id ? .seller : .buyer
        guard (action == "withdraw") == (actor == .buyer) else {
            throw CheckoutError.forbidden(action == "withdraw" ? "Only the buyer withdraws a bid." : "Only the seller may \(action) a bid.")
        }
        do {
            switch action {
            case "accept":
                try bid.machine.accept()
                let (loaded, storedListing) = try await service.load(ListingRecord.self, id: bid.listing, kind: "listing", in: caller, what: "listing")
                var listing = loaded
                guard listing.status == .available else { throw CheckoutError.conflict("listing_unavailable", "This listing is \(listing.status.rawValue).") }
                listing.status = .reserved
                listing.bid = bid.id
                let reserved = try await service.save(listing, over: storedListing)
                do {
                    _ = try await service.save(bid, over: storedBid)
                } catch {
                    // The bid moved meanwhile (withdrawn): the listing is free again.
                    listing.status = .available
                    listing.bid = nil
                    _ = try? await service.save(listing, over: reserved)
                    throw error
                }
            case "reject":
                try bid.machine.reject()
                storedBid = try await service.save(bid, over: storedBid)
            default:
                if bid.machine.status == .accepted, bid.machine.buyNow {
                    return json(CheckoutObjects.bid(try await backOut(bid, storedBid, caller, request)))
                }
                try bid.machine.withdraw(by: .buyer)
                storedBid = try await service.save(bid, over: storedBid)
            }
        } catch let error as CheckoutStateError {
            throw CheckoutError.state(error)
        }
        return json(CheckoutObjects.bid(bid))
    }

    /// The buyer backs out of a buy-now: its unpaid order ends (the intent canceled at the
    /// gateway first), the bid is withdrawn and the listing free for others.
    func backOut(_ bid: BidRecord, _ stored: StoredObject, _ caller: CheckoutService.Caller, _ request: Request) async throws -> BidRecord {
        if let orderID = bid.order {
            var (order, orderObject) = try await service.load(OrderRecord.self, id: orderID, kind: "checkout_order", in: caller, what: "order")
            (order, orderObject) = try await sync(order, orderObject, caller)
            guard order.machine.isPayable else {
                throw CheckoutError.conflict("bid_unexpected_state", "This bid's order is \(order.machine.status.rawValue); it can no longer be withdrawn.")
            }
            _ = try await service.endUnpaid(order, orderObject, caller.market, expire: false, base: baseURL(request))
            return try await service.load(BidRecord.self, id: bid.id, kind: "bid", in: caller, what: "bid").0
        }
        var bid = bid
        do { try bid.machine.withdraw(by: .buyer) } catch { throw CheckoutError.state(error) }
        _ = try await service.save(bid, over: stored)
        try await service.freeListing(bid.listing, reservedFor: bid.id, caller.market)
        return bid
    }

    func baseURL(_ request: Request) -> String { routes.baseURL(request) }

    // MARK: Totals and the screen

    /// The buyer's choices for totals.
    struct Choices {
        var delivery: DeliveryChoice
        var address: Address?
        var payment: CheckoutPaymentMethod
    }

    static func choices(delivery: String?, address: String?, payment: String?, user: CheckoutUserRecord, listing: ListingRecord) throws -> Choices {
        let chosen: DeliveryChoice
        switch delivery {
        case nil: chosen = listing.pickup ? .pickup : .method(listing.delivery.first?.name ?? "")
        case "pickup": chosen = .pickup
        case let name?: chosen = .method(name)
        }
        var found: Address?
        if let address {
            guard let match = user.addresses.first(where: { $0.id == address }) else { throw CheckoutError.notFound("address") }
            found = match
        } else {
            found = user.addresses.first
        }
        guard let method = CheckoutPaymentMethod(rawValue: payment ?? "ideal") else {
            throw CheckoutError.invalid("payment_method_invalid", "payment_method is card, ideal or bancontact.")
        }
        return Choices(delivery: chosen, address: found, payment: method)
    }

    static func totals(_ bid: BidRecord, _ listing: ListingRecord, _ user: CheckoutUserRecord, _ choices: Choices, _ marketplace: MarketplaceRecord) throws(TotalsError) -> Totals {
        try CheckoutRules.totals(
            item: bid.amount, delivery: choices.delivery, country: choices.address?.country, payment: choices.payment,
            businessBuyer: user.business, pickupOffered: listing.pickup, methods: listing.delivery, charges: marketplace.charges)
    }

    /// `POST /checkout/v1/totals` `{bid, delivery, address, payment_method}`: the buyer's totals.
    func totals(_ request: Request) async throws -> Response {
        let caller = try await service.authenticateUser(request)
        struct Body: Decodable { var bid: String; var delivery: String?; var address: String?; var payment_method: String? }
        let body = try await decode(Body.self, request)
        let (bid, _) = try await visibleBid(body.bid, caller)
        guard bid.buyer == caller.user.id else { throw CheckoutError.forbidden("Totals are for the buyer.") }
        let (listing, _) = try await service.load(ListingRecord.self, id: bid.listing, kind: "listing", in: caller, what: "listing")
        let choices = try Self.choices(delivery: body.delivery, address: body.address, payment: body.payment_method, user: caller.user, listing: listing)
        do {
            return json(CheckoutObjects.totals(try Self.totals(bid, listing, caller.user, choices, caller.marketplace), choices))
        } catch {
            throw CheckoutError.totals(error)
        }
    }

    /// Everything the payment screen needs before the buyer can act, in one answer: the user,
    /// the listing and its delivery, the bid, the pending order (asked of the gateway), the saved cards,
    /// and the totals for the current choices (query: delivery, address, payment_method).
    func screen(_ request: Request, bidID: String) async throws -> Response {
        let caller = try await service.authenticateUser(request)
        let (bid, _) = try await visibleBid(bidID, caller)
        guard bid.buyer == caller.user.id else { throw CheckoutError.forbidden("The payment screen is the buyer's.") }
        let query = try StripeForm(body: request.uri.query ?? "")
        let (listing, _) = try await service.load(ListingRecord.self, id: bid.listing, kind: "listing", in: caller, what: "listing")
        let choices = try Self.choices(
            delivery: try query.string("delivery", maxLength: 40), address: try query.string("address", maxLength: 40),
            payment: try query.string("payment_method", maxLength: 20), user: caller.user, listing: listing)
        let cards = try await service.gateway.store.list(kind: "payment_method", merchant: caller.merchant.id, ListRequest(limit: 100, customer: caller.user.customer)).objects
            .map { try service.gateway.records.decode(PaymentMethodRecord.self, $0) }
            .filter { $0.type == .card }
        var fields: [(String, JSONValue)] = [
            ("user", CheckoutObjects.user(caller.user)), ("listing", CheckoutObjects.listing(listing)), ("bid", CheckoutObjects.bid(bid)),
            ("cards", .array(cards.map(GatewayObjects.paymentMethod))),
        ]
        if let orderID = bid.order {
            let (order, stored) = try await service.load(OrderRecord.self, id: orderID, kind: "checkout_order", in: caller, what: "order")
            fields.append(("order", CheckoutObjects.order(try await sync(order, stored, caller).0)))
        } else {
            fields.append(("order", .null))
        }
        do {
            fields.append(("totals", CheckoutObjects.totals(try Self.totals(bid, listing, caller.user, choices, caller.marketplace), choices)))
        } catch {
            let problem = CheckoutError.totals(error)
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
            ("id", .string(marketplace.id)), ("object", "marketplace"), ("name", .string(marketplace.name)),
            ("commission_bps", .number(charges.commissionBasisPoints)), ("ideal_fee", .number(charges.idealFee)),
            ("bancontact_fee", .number(charges.bancontactFee)), ("card_bps", .number(charges.cardBasisPoints)), ("vat_bps", .number(charges.vatBasisPoints)),
            ("escrow_account", .string(marketplace.escrowAccount)), ("order_expiry_seconds", .number(marketplace.orderExpirySeconds)),
            ("release_after_seconds", .number(marketplace.releaseAfterSeconds)), ("created", .number(marketplace.created)),
        ])
    }

    static func user(_ user: CheckoutUserRecord) -> JSONValue {
        .object([
            ("id", .string(user.id)), ("object", "user"), ("name", .string(user.name)), ("business", .bool(user.business)),
            ("addresses", .array(user.addresses.map { address in
                .object([("id", .string(address.id)), ("name", .string(address.name)), ("line1", .string(address.line1)),
                         ("postal_code", .string(address.postalCode)), ("city", .string(address.city)), ("country", .string(address.country))])
            })),
            ("customer", .string(user.customer)), ("account", user.account.map(JSONValue.string) ?? .null), ("created", .number(user.created)),
        ])
    }

    static func listing(_ listing: ListingRecord) -> JSONValue {
        .object([
            ("id", .string(listing.id)), ("object", "listing"), ("seller", .string(listing.seller)), ("title", .string(listing.title)),
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
            ("id", .string(bid.id)), ("object", "bid"), ("listing", .string(bid.listing)), ("buyer", .string(bid.buyer)), ("seller", .string(bid.seller)),
            ("amount", .number(bid.amount)), ("currency", .string(bid.currency)), ("buy_now", .bool(bid.machine.buyNow)),
            ("status", .string(bid.machine.status.rawValue)), ("order", bid.order.map(JSONValue.string) ?? .null), ("created", .number(bid.created)),
        ])
    }

    static func totals(_ totals: Totals, _ choices: CheckoutRoutes.Choices) -> JSONValue {
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
