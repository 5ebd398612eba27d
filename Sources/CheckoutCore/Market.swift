import Checkout
import Foundation
import Gateway
import GatewayCore

/// An address as a user gives it.
package struct NewAddress: Sendable {
    package var name: String, line1: String, postalCode: String, city: String, country: String

    package init(name: String, line1: String, postalCode: String, city: String, country: String) {
        self.name = name
        self.line1 = line1
        self.postalCode = postalCode
        self.city = city
        self.country = country
    }
}

/// A listing as a seller gives it.
package struct NewListing: Sendable {
    package var title: String
    package var price: Int64
    package var currency: String
    package var buyNow: Bool
    package var pickup: Bool
    package var country: String
    package var delivery: [DeliveryMethod]

    package init(title: String, price: Int64, currency: String = "eur", buyNow: Bool = true, pickup: Bool = false, country: String, delivery: [DeliveryMethod] = []) {
        self.title = title
        self.price = price
        self.currency = currency
        self.buyNow = buyNow
        self.pickup = pickup
        self.country = country
        self.delivery = delivery
    }
}

/// The buyer's choices for totals.
package struct Choices: Sendable {
    package var delivery: DeliveryChoice
    package var address: Address?
    package var payment: CheckoutPaymentMethod
}

/// Everything the payment screen needs before the buyer can act.
package struct Screen: Sendable {
    package var user: CheckoutUserRecord
    package var listing: ListingRecord
    package var bid: BidRecord
    /// The pending order, as the gateway says it stands.
    package var order: OrderRecord?
    package var cards: [PaymentMethodRecord]
    package var choices: Choices
    /// The totals for the choices, or why there are none.
    package var totals: Result<Totals, CheckoutFailure>
}

/// Marketplaces, users, listings and bids, and the totals of the buyer's choices.
extension CheckoutService {
    /// A trimmed text of 1 to `maxLength` bytes.
    package static func text(_ value: String, _ field: String, maxLength: Int = 200) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.count <= maxLength else { throw CheckoutFailure.invalid("parameter_invalid", "\(field) must be 1 to \(maxLength) bytes.") }
        return trimmed
    }

    /// An amount of 1 to the checkout's largest total.
    package static func amount(_ value: Int64, _ field: String) throws -> Int64 {
        guard value >= 1, value <= CheckoutRules.maxTotal else { throw CheckoutFailure.invalid("amount_invalid", "\(field) must be 1 to \(CheckoutRules.maxTotal) minor units.") }
        return value
    }

    /// A marketplace with `charges` (checked), its expiry and release times (a second to a
    /// year).
    package func createMarketplace(name: String, charges: MarketplaceCharges, orderExpirySeconds: Int64, releaseAfterSeconds: Int64) async throws -> NewMarketplace {
        guard charges.isValid else { throw CheckoutFailure.invalid("charges_invalid", "Rates are 0 to 10,000 basis points, flat fees 0 to 100,000 minor units.") }
        guard (1...31_536_000).contains(orderExpirySeconds), (1...31_536_000).contains(releaseAfterSeconds) else {
            throw CheckoutFailure.invalid("parameter_invalid", "Expiry and release times are 1 second to a year.")
        }
        return try await makeMarketplace(name: try Self.text(name, "name"), charges: charges, orderExpirySeconds: orderExpirySeconds, releaseAfterSeconds: releaseAfterSeconds)
    }

    /// A user of the marketplace: a gateway customer for saved cards, a ledger account for
    /// payouts, and an access token.
    package func createUser(name: String, business: Bool, addresses: [NewAddress], in market: Market) async throws -> (user: CheckoutUserRecord, token: String) {
        guard addresses.count <= 20 else { throw CheckoutFailure.invalid("parameter_invalid", "A user has at most 20 addresses.") }
        let checked = try addresses.map { address in
            guard Address.isCountry(address.country) else { throw CheckoutFailure.invalid("country_invalid", "country is two capital letters (ISO 3166).") }
            return Address(
                id: gateway.newID("adr", length: 12), name: try Self.text(address.name, "name"),
                line1: try Self.text(address.line1, "line1"), postalCode: try Self.text(address.postalCode, "postal_code", maxLength: 20),
                city: try Self.text(address.city, "city"), country: address.country)
        }
        let name = try Self.text(name, "name")
        let customer = try await gateway.createCustomer(NewCustomer(name: name), merchant: market.merchant)
        var user = CheckoutUserRecord(
            id: CheckoutUserID(gateway.newID("usr", length: 16)), name: name,
            business: business, addresses: checked, customer: customer.id.rawValue, created: gateway.now())
        (user.account, user.sealedSeed) = try await createLedgerAccount()
        try await gateway.insert(user, id: user.id, merchant: market.merchant)
        return (user, try await token(for: user, marketplace: market.marketplace))
    }

    /// A listing of the caller's.
    package func createListing(_ new: NewListing, by caller: Caller) async throws -> ListingRecord {
        guard new.currency == "eur" else { throw CheckoutFailure.invalid("currency_invalid", "The marketplace sells in eur.") }
        guard Address.isCountry(new.country) else { throw CheckoutFailure.invalid("country_invalid", "country is two capital letters (ISO 3166).") }
        let methods = try new.delivery.map { method in
            guard method.costs.count <= 250, method.costs.keys.allSatisfy(Address.isCountry), method.costs.values.allSatisfy({ (0...CheckoutRules.maxTotal).contains($0) }) else {
                throw CheckoutFailure.invalid("delivery_invalid", "Delivery costs are by country (two capital letters), 0 to 99,999,999 minor units.")
            }
            return DeliveryMethod(name: try Self.text(method.name, "delivery.name", maxLength: 40), costs: method.costs)
        }
        guard methods.count <= 10, Set(methods.map(\.name)).count == methods.count else { throw CheckoutFailure.invalid("delivery_invalid", "At most 10 delivery methods, each named once.") }
        guard new.pickup || !methods.isEmpty else { throw CheckoutFailure.invalid("delivery_invalid", "Offer pickup or at least one delivery method.") }
        let listing = ListingRecord(
            id: ListingID(gateway.newID("lst", length: 16)), seller: caller.user.id, title: try Self.text(new.title, "title"),
            price: try Self.amount(new.price, "price"), currency: "eur", buyNow: new.buyNow, pickup: new.pickup,
            delivery: methods, country: new.country, created: gateway.now())
        try await gateway.insert(listing, id: listing.id, merchant: caller.merchant, customer: caller.user.id.rawValue)
        return listing
    }

    /// A listing of the caller's marketplace.
    package func listing(_ id: ListingID, _ caller: Caller) async throws -> ListingRecord {
        try await load(ListingRecord.self, id: id, in: caller, what: "listing").0
    }

    /// The newest 100 listings on sale.
    package func listingsOnSale(_ caller: Caller) async throws -> [ListingRecord] {
        try await gateway.list(ListingRecord.self, merchant: caller.merchant, ListRequest(limit: 100)).records.filter { $0.status == .available }
    }

    /// A bid the caller may see: their own, or one on their listing.
    package func visibleBid(_ id: BidID, _ caller: Caller) async throws -> (BidRecord, StoredObject) {
        let (bid, stored) = try await load(BidRecord.self, id: id, in: caller, what: "bid")
        guard bid.buyer == caller.user.id || bid.seller == caller.user.id else { throw CheckoutFailure.notFound("bid") }
        return (bid, stored)
    }

    /// A bid on someone else's listing that is on sale.
    package func bid(_ amount: Int64, on listingID: ListingID, by caller: Caller) async throws -> BidRecord {
        let amount = try Self.amount(amount, "amount")
        let listing = try await listing(listingID, caller)
        guard listing.seller != caller.user.id else { throw CheckoutFailure.forbidden("A seller does not bid on their own listing.") }
        guard listing.status == .available else { throw CheckoutFailure.conflict("listing_unavailable", "This listing is \(listing.status.rawValue).") }
        let bid = BidRecord(
            id: BidID(gateway.newID("bid", length: 16)), listing: listing.id, buyer: caller.user.id, seller: listing.seller,
            amount: amount, currency: listing.currency, machine: BidMachine(buyNow: false), created: gateway.now())
        try await gateway.insert(bid, id: bid.id, merchant: caller.merchant, customer: listing.id.rawValue)
        return bid
    }

    /// Buy now: a bid at the asking price, accepted at once, reserving the listing in the same
    /// write; of two buyers at the same moment exactly one gets it, the other a conflict.
    package func buyNow(_ listingID: ListingID, by caller: Caller) async throws -> BidRecord {
        var (listing, stored) = try await load(ListingRecord.self, id: listingID, in: caller, what: "listing")
        guard listing.seller != caller.user.id else { throw CheckoutFailure.forbidden("A seller does not buy their own listing.") }
        guard listing.buyNow else { throw CheckoutFailure.invalid("buy_now_not_offered", "This listing takes bids only.") }
        guard listing.status == .available else { throw CheckoutFailure.conflict("listing_unavailable", "This listing is \(listing.status.rawValue).") }
        let bid = BidRecord(
            id: BidID(gateway.newID("bid", length: 16)), listing: listing.id, buyer: caller.user.id, seller: listing.seller,
            amount: listing.price, currency: listing.currency, machine: BidMachine(buyNow: true), created: gateway.now())
        listing.status = .reserved
        listing.bid = bid.id
        var updated = stored
        updated.body = Array(try GatewayService.encoder.encode(listing))
        let bidObject = StoredObject(id: bid.id.rawValue, merchant: caller.merchant.id, kind: .bid, customer: listing.id.rawValue, created: bid.created, body: Array(try GatewayService.encoder.encode(bid)))
        guard try await gateway.store.update(updated, inserting: bidObject) else {
            throw CheckoutFailure.conflict("listing_unavailable", "Someone else bought this listing first.")
        }
        stored = updated
        return bid
    }

    /// What a party does to a bid.
    package enum BidAction: String, Sendable, CaseIterable {
        case accept, reject, withdraw
    }

    /// Accept and reject (the seller), withdraw (the buyer). Accepting reserves the listing
    /// first, with its version checked, so two accepted bids on one listing cannot both stand.
    package func move(_ bidID: BidID, _ action: BidAction, by caller: Caller, base: String) async throws -> BidRecord {
        var (bid, storedBid) = try await visibleBid(bidID, caller)
        let actor: CheckoutActor = bid.seller == caller.user.id ? .seller : .buyer
        guard (action == .withdraw) == (actor == .buyer) else {
            throw CheckoutFailure.forbidden(action == .withdraw ? "Only the buyer withdraws a bid." : "Only the seller may \(action.rawValue) a bid.")
        }
        do {
            switch action {
            case .accept:
                try bid.machine.accept()
                let (loaded, storedListing) = try await load(ListingRecord.self, id: bid.listing, in: caller, what: "listing")
                var listing = loaded
                guard listing.status == .available else { throw CheckoutFailure.conflict("listing_unavailable", "This listing is \(listing.status.rawValue).") }
                listing.status = .reserved
                listing.bid = bid.id
                let reserved = try await save(listing, over: storedListing)
                do {
                    _ = try await save(bid, over: storedBid)
                } catch {
                    // The bid moved meanwhile (withdrawn): the listing is free again.
                    listing.status = .available
                    listing.bid = nil
                    _ = try? await save(listing, over: reserved)
                    throw error
                }
            case .reject:
                try bid.machine.reject()
                storedBid = try await save(bid, over: storedBid)
            case .withdraw:
                if bid.machine.status == .accepted, bid.machine.buyNow {
                    return try await backOut(bid, storedBid, caller, base: base)
                }
                try bid.machine.withdraw(by: .buyer)
                storedBid = try await save(bid, over: storedBid)
            }
        } catch let error as CheckoutStateError {
            throw CheckoutFailure.state(error)
        }
        return bid
    }

    /// The buyer backs out of a buy-now: its unpaid order ends (the intent canceled at the
    /// gateway first), the bid is withdrawn and the listing free for others.
    func backOut(_ bid: BidRecord, _ stored: StoredObject, _ caller: Caller, base: String) async throws -> BidRecord {
        if let orderID = bid.order {
            var (order, orderObject) = try await load(OrderRecord.self, id: orderID, in: caller, what: "order")
            (order, orderObject) = try await sync(order, orderObject, caller.market)
            guard order.machine.isPayable else {
                throw CheckoutFailure.conflict("bid_unexpected_state", "This bid's order is \(order.machine.status.rawValue); it can no longer be withdrawn.")
            }
            _ = try await endUnpaid(order, orderObject, caller.market, expire: false, base: base)
            return try await load(BidRecord.self, id: bid.id, in: caller, what: "bid").0
        }
        var bid = bid
        do { try bid.machine.withdraw(by: .buyer) } catch { throw CheckoutFailure.state(error) }
        _ = try await save(bid, over: stored)
        try await freeListing(bid.listing, reservedFor: bid.id, caller.market)
        return bid
    }

    // MARK: Totals and the screen

    /// The choices as the buyer gives them, with the defaults: pickup if offered (else the
    /// first delivery method), the first address, iDEAL.
    package static func choices(delivery: String?, address: String?, payment: String?, user: CheckoutUserRecord, listing: ListingRecord) throws -> Choices {
        let chosen: DeliveryChoice
        switch delivery {
        case nil: chosen = listing.pickup ? .pickup : .method(listing.delivery.first?.name ?? "")
        case "pickup": chosen = .pickup
        case let name?: chosen = .method(name)
        }
        var found: Address?
        if let address {
            guard let match = user.addresses.first(where: { $0.id == address }) else { throw CheckoutFailure.notFound("address") }
            found = match
        } else {
            found = user.addresses.first
        }
        guard let method = CheckoutPaymentMethod(rawValue: payment ?? "ideal") else {
            throw CheckoutFailure.invalid("payment_method_invalid", "payment_method is card, ideal or bancontact.")
        }
        return Choices(delivery: chosen, address: found, payment: method)
    }

    package static func totals(_ bid: BidRecord, _ listing: ListingRecord, _ user: CheckoutUserRecord, _ choices: Choices, _ marketplace: MarketplaceRecord) throws(TotalsError) -> Totals {
        try CheckoutRules.totals(
            item: bid.amount, delivery: choices.delivery, country: choices.address?.country, payment: choices.payment,
            businessBuyer: user.business, pickupOffered: listing.pickup, methods: listing.delivery, charges: marketplace.charges)
    }

    /// The buyer's totals for a bid and their choices.
    package func totals(bid bidID: BidID, delivery: String?, address: String?, payment: String?, _ caller: Caller) async throws -> (Totals, Choices) {
        let (bid, _) = try await visibleBid(bidID, caller)
        guard bid.buyer == caller.user.id else { throw CheckoutFailure.forbidden("Totals are for the buyer.") }
        let listing = try await listing(bid.listing, caller)
        let choices = try Self.choices(delivery: delivery, address: address, payment: payment, user: caller.user, listing: listing)
        do {
            return (try Self.totals(bid, listing, caller.user, choices, caller.marketplace), choices)
        } catch {
            throw CheckoutFailure.totals(error)
        }
    }

    /// Everything the payment screen needs before the buyer can act, in one answer: the user,
    /// the listing and its delivery, the bid, the pending order (asked of the gateway), the
    /// saved cards, and the totals for the current choices (or why there are none).
    package func screen(bid bidID: BidID, delivery: String?, address: String?, payment: String?, _ caller: Caller) async throws -> Screen {
        let (bid, _) = try await visibleBid(bidID, caller)
        guard bid.buyer == caller.user.id else { throw CheckoutFailure.forbidden("The payment screen is the buyer's.") }
        let listing = try await listing(bid.listing, caller)
        let choices = try Self.choices(delivery: delivery, address: address, payment: payment, user: caller.user, listing: listing)
        let cards = try await gateway.list(PaymentMethodRecord.self, merchant: caller.merchant, ListRequest(limit: 100, customer: caller.user.customer))
            .records.filter { $0.type == .card }
        var order: OrderRecord?
        if let orderID = bid.order {
            let (pending, stored) = try await load(OrderRecord.self, id: orderID, in: caller, what: "order")
            order = try await sync(pending, stored, caller.market).0
        }
        let totals: Result<Totals, CheckoutFailure>
        do {
            totals = .success(try Self.totals(bid, listing, caller.user, choices, caller.marketplace))
        } catch {
            totals = .failure(CheckoutFailure.totals(error))
        }
        return Screen(user: caller.user, listing: listing, bid: bid, order: order, cards: cards, choices: choices, totals: totals)
    }
}
