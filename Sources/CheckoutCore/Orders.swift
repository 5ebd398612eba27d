import Checkout
import Crypto
import Foundation
import Gateway
import GatewayCore
import Ledger
import StellarBase

/// Orders: one per accepted bid, paid through a gateway intent, its status pulled from the
/// gateway when asked, its money held in escrow until the buyer has the item. `base` is the
/// server's URL, for the pages a buyer is sent to and the links in the gateway's events.
extension CheckoutService {
    /// An order the caller may see: the buyer's or the seller's.
    package func visibleOrder(_ id: OrderID, _ caller: Caller) async throws -> (OrderRecord, StoredObject) {
        let (order, stored) = try await load(OrderRecord.self, id: id, in: caller, what: "order")
        guard order.buyer == caller.user.id || order.seller == caller.user.id else { throw CheckoutFailure.notFound("order") }
        return (order, stored)
    }

    /// The order of the caller's accepted bid, made once, or updated while payable.
    package func order(_ caller: Caller, bid bidID: BidID, delivery: String?, address: String?, payment: String?, base: String) async throws -> OrderRecord {
        var (bid, storedBid) = try await visibleBid(bidID, caller)
        guard bid.buyer == caller.user.id else { throw CheckoutFailure.forbidden("Only the buyer orders.") }
        let (listing, _) = try await load(ListingRecord.self, id: bid.listing, in: caller, what: "listing")
        let choices = try Self.choices(delivery: delivery, address: address, payment: payment, user: caller.user, listing: listing)
        let totals: Totals
        do { totals = try Self.totals(bid, listing, caller.user, choices, caller.marketplace) } catch { throw CheckoutFailure.totals(error) }
        if let existing = bid.order {
            var (order, stored) = try await load(OrderRecord.self, id: existing, in: caller, what: "order")
            (order, stored) = try await sync(order, stored, caller.market)
            guard order.machine.isPayable else { return order }
            guard totals != order.totals || choices.payment != order.machine.paymentMethod || choices.delivery != order.delivery || choices.address != order.address else {
                return order
            }
            // A payment for the old total must not land after the total changed: the intent that
            // could still be paid is canceled first (or, if it was paid, the order is).
            if try await !cancelOutstandingIntent(order, caller.market, base: base) {
                return try await sync(order, stored, caller.market).0
            }
            (order, stored) = try await sync(order, stored, caller.market)
            do { try order.machine.choose(choices.payment) } catch { throw CheckoutFailure.state(error) }
            order.delivery = choices.delivery
            order.address = choices.address
            order.totals = totals
            _ = try await save(order, over: stored)
            return order
        }
        guard bid.machine.status == .accepted else { throw CheckoutFailure.conflict("bid_not_accepted", "An order needs an accepted bid; this one is \(bid.machine.status.rawValue).") }
        let order = OrderRecord(
            id: OrderID(gateway.newID("ord", length: 16)), bid: bid.id, listing: listing.id, buyer: bid.buyer, seller: bid.seller,
            machine: OrderMachine(paymentMethod: choices.payment), delivery: choices.delivery, address: choices.address, totals: totals,
            created: gateway.now())
        // One order per bid: the bid names its order, written with the order in one go.
        bid.order = order.id
        var updated = storedBid
        updated.body = Array(try GatewayService.encoder.encode(bid))
        // Due for the janitor when it expires unpaid.
        let object = StoredObject(
            id: order.id.rawValue, merchant: caller.merchant.id, kind: .checkoutOrder, customer: bid.buyer.rawValue, created: order.created,
            body: Array(try GatewayService.encoder.encode(order)), attentionAt: order.created + caller.marketplace.orderExpirySeconds)
        guard try await gateway.store.update(updated, inserting: object) else {
            // Another request made it first: answer that order.
            storedBid = try await load(BidRecord.self, id: bid.id, in: caller, what: "bid").1
            let current = try gateway.records.decode(BidRecord.self, storedBid)
            guard let made = current.order else { throw CheckoutFailure.conflict("conflict", "The bid changed meanwhile; try again.") }
            return try await load(OrderRecord.self, id: made, in: caller, what: "order").0
        }
        return order
    }


    /// Asks the gateway how the order's payment stands (as the reference server asks its payment
    /// provider) and moves the order: paid (its money held in escrow), payable again after a
    /// failure or a bank page left, or unchanged while the buyer may still come back.
    package func sync(_ order: OrderRecord, _ stored: StoredObject, _ market: Market) async throws -> (OrderRecord, StoredObject) {
        guard order.machine.isPayable, let intentID = order.paymentIntent else { return (order, stored) }
        let (intent, _) = try await gateway.load(PaymentIntentRecord.self, id: PaymentIntentID(intentID), merchant: market.merchant)
        var order = order
        switch intent.machine.status {
        case .succeeded:
            if intent.machine.amountReceived != order.totals.total {
                // Cannot happen: an order's total changes only after its open intent is canceled.
                gateway.logger.critical("checkout order paid a different total", metadata: [
                    "order.id": "\(order.id)", "order.total": "\(order.totals.total)", "payment.amount": "\(intent.machine.amountReceived)"])
            }
            do { _ = try order.machine.paymentSucceeded() } catch { throw CheckoutFailure.state(error) }
            order.paidAt = gateway.now()
            order.gatewayFee = gateway.fees.fee(on: intent.machine.amountReceived, method: intent.machine.paymentMethodType ?? .card)
            // The gateway settled the payment straight into the escrow account: that settlement is
            // the hold. Until it is recorded (a settlement a stop interrupted is finished at
            // start-up) the order stays due a day on, for the janitor.
            order.holdTransaction = intent.settlement == .settled ? intent.settlementTransaction : nil
            let saved = try await save(order, over: stored, attentionAt: .some(order.holdTransaction == nil ? gateway.now() + Self.pendingMoveSeconds : nil))
            try await markSold(order, market)
            return (order, saved)
        case .requiresPaymentMethod, .canceled:
            guard order.machine.status == .paymentPending else { return (order, stored) }
            do { try order.machine.paymentFailed() } catch { throw CheckoutFailure.state(error) }
            return (order, try await save(order, over: stored))
        case .requiresAction, .processing, .requiresConfirmation, .requiresCapture:
            return (order, stored)
        }
    }

    /// The bid is paid and the listing sold.
    package func markSold(_ order: OrderRecord, _ market: Market) async throws {
        for _ in 0..<10 {
            var (bid, stored) = try await load(BidRecord.self, id: order.bid, in: market, what: "bid")
            guard bid.machine.status == .accepted else { break }
            try? bid.machine.paid()
            if (try? await save(bid, over: stored)) != nil { break }
        }
        for _ in 0..<10 {
            var (listing, stored) = try await load(ListingRecord.self, id: order.listing, in: market, what: "listing")
            guard listing.status != .sold else { break }
            listing.status = .sold
            if (try? await save(listing, over: stored)) != nil { break }
        }
    }

    /// A shipped order received (or its time passed): marked completed first (the version
    /// decides who releases), then the escrow pays out.
    package func complete(_ order: OrderRecord, _ stored: StoredObject, _ market: Market, by actor: CheckoutActor) async throws -> OrderRecord {
        var order = order
        guard order.holdTransaction != nil else {
            throw CheckoutFailure.conflict("escrow_pending", "The payment is still being moved into escrow; try again in a moment.")
        }
        do { _ = try order.machine.complete(by: actor) } catch { throw CheckoutFailure.state(error) }
        let saved = try await save(order, over: stored, attentionAt: .some(gateway.now() + Self.pendingMoveSeconds))
        let (seller, _) = try await load(CheckoutUserRecord.self, id: order.seller, in: market, what: "user")
        let released = try await release(order, seller: seller, marketplace: market.marketplace, merchant: market.merchant)
        order.releaseTransaction = released
        _ = try await save(
            order, over: saved, attentionAt: .some(nil),
            events: try escrowTransaction(.transfer, amount: marketplaceShare(order, market.marketplace), order: order, ledgerHash: released, merchant: market.merchant))
        return order
    }

    /// Refunds a payment intent through the gateway: (intent, amount, refund id, order, merchant).
    package typealias Refunder = @Sendable (String, Int64, String, String, MerchantRecord) async throws -> Void

    /// A paid order cancelled, its refund chosen: the escrow returns the held money (found on
    /// the ledger by its memo if it already did), the gateway refunds the whole total under the
    /// refund's id (unless the gateway already has that refund), the listing is free again.
    /// - Throws: ``StripeError`` 400 when the gateway refuses the refund (nothing refunded; the
    ///   returned money is in the settlement account).
    package func finishRefund(_ order: OrderRecord, _ stored: StoredObject, _ market: Market, refunder: Refunder, reader: (any LedgerReader)? = nil) async throws -> (OrderRecord, StoredObject) {
        var order = order
        var saved = stored
        guard let refundID = order.refund, let intentID = order.paymentIntent else { return (order, stored) }
        if order.returnTransaction == nil {
            let escrow = try AccountID(market.marketplace.escrowAccount)
            if let reader, let found = try await gateway.findOnLedger(memo: "tender escrow return \(order.id)", account: escrow, reader: reader) {
                order.returnTransaction = found.hash.hex
            } else {
                order.returnTransaction = try await returnFromEscrow(order, marketplace: market.marketplace, merchant: market.merchant)
            }
            saved = try await save(
                order, over: saved,
                events: try escrowTransaction(.adjustment, amount: order.totals.total, order: order, ledgerHash: order.returnTransaction!, merchant: market.merchant))
        }
        if try await gateway.store.object(id: refundID, kind: .refund, merchant: market.merchant.id) == nil {
            try await refunder(intentID, order.totals.total, refundID, order.id.rawValue, market.merchant)
        }
        saved = try await save(order, over: saved, attentionAt: .some(nil))
        // The item was never sent: the listing is available again.
        try await freeListing(order.listing, reservedFor: order.bid, market)
        return (order, saved)
    }

    /// How long an order marked paid or completed waits for its ledger move to be recorded
    /// before the janitor does it (the request doing it has died); at start-up, at once.
    package static let pendingMoveSeconds: Int64 = 86_400

    /// At start-up, before serving: every order marked paid (or completed) whose hold (or
    /// release) was not recorded is found on the ledger by its memo, or moved now, so each
    /// order's money moves into and out of escrow exactly once.
    package func recover(reader: any LedgerReader) async throws {
        for stored in try await gateway.store.dueObjects(kind: .checkoutOrder, now: .max, limit: 10_000) {
            let order = try gateway.records.decode(OrderRecord.self, stored)
            guard let merchant = try await gateway.store.merchant(id: stored.merchant) else { continue }
            let market = Market(merchant: merchant, marketplace: try await marketplace(merchant))
            if order.machine.status == .cancelled, order.refund != nil {
                // A refund needs the running server (the gateway's refund path): due at once, for
                // the janitor; no request is doing it any more.
                _ = try await save(order, over: stored, attentionAt: .some(gateway.now()))
                continue
            }
            try await finishMove(order, stored, market, reader: reader, beforeServing: true)
        }
    }

    /// The hold of a paid order, or the release of a completed one, that was not recorded:
    /// found on the escrow account's ledger history by its memo, or made now.
    package func finishMove(_ order: OrderRecord, _ stored: StoredObject, _ market: Market, reader: any LedgerReader, beforeServing: Bool) async throws {
        var order = order
        var movements: [StoredEvent] = []
        let escrow = try AccountID(market.marketplace.escrowAccount)
        let status = order.machine.status
        switch status {
        case .paid where order.holdTransaction == nil, .shipped where order.holdTransaction == nil:
            // The hold is the intent's settlement into escrow, which the gateway finishes first.
            guard let intentID = order.paymentIntent,
                  let intent = try await gateway.find(PaymentIntentRecord.self, id: PaymentIntentID(intentID), merchant: market.merchant),
                  intent.settlement == .settled, let settlement = intent.settlementTransaction else {
                gateway.logger.warning("checkout hold not settled yet", metadata: ["order.id": "\(order.id)"])
                return
            }
            order.holdTransaction = settlement
            gateway.logger.notice("checkout hold recovered", metadata: ["order.id": "\(order.id)"])
        case .completed where order.releaseTransaction == nil:
            if let found = try await gateway.findOnLedger(memo: "tender escrow release \(order.id)", account: escrow, reader: reader) {
                order.releaseTransaction = found.hash.hex
            } else {
                let (seller, _) = try await load(CheckoutUserRecord.self, id: order.seller, in: market, what: "user")
                order.releaseTransaction = try await release(order, seller: seller, marketplace: market.marketplace, merchant: market.merchant, beforeServing: beforeServing)
            }
            movements = try escrowTransaction(
                .transfer, amount: marketplaceShare(order, market.marketplace), order: order, ledgerHash: order.releaseTransaction!, merchant: market.merchant)
            gateway.logger.notice("checkout release recovered", metadata: ["order.id": "\(order.id)"])
        default:
            break
        }
        _ = try await save(order, over: stored, attentionAt: .some(order.machine.isPayable ? stored.attentionAt : nil), events: movements)
    }

    /// Cancels the order's intent at the gateway if it could still be paid, so that no payment
    /// for the old total can land after the order changes or ends. The intent's version decides
    /// against a payment at the same moment.
    /// - Returns: false when the intent was paid (or is being paid) instead.
    package func cancelOutstandingIntent(_ order: OrderRecord, _ market: Market, base: String) async throws -> Bool {
        guard let intentID = order.paymentIntent else { return true }
        var (intent, intentObject) = try await gateway.load(PaymentIntentRecord.self, id: PaymentIntentID(intentID), merchant: market.merchant)
        switch intent.machine.status {
        case .requiresPaymentMethod, .requiresConfirmation, .requiresAction:
            let action = try intent.machine.cancel(.abandoned)
            _ = try await gateway.perform(action, on: intent, over: intentObject, market.merchant, base: base)
            return true
        case .canceled:
            return true
        case .succeeded, .processing, .requiresCapture:
            return false
        }
    }

    /// Ends an unpaid order (the buyer cancels, or it expired): its intent canceled at the
    /// gateway first, so that a payment can never land afterwards (if the buyer paid at that
    /// very moment, the intent's version decides and the order is paid instead); then the
    /// listing is free again and the bid withdrawn.
    package func endUnpaid(_ order: OrderRecord, _ stored: StoredObject, _ market: Market, expire: Bool, base: String) async throws -> OrderRecord {
        var (order, stored) = try await sync(order, stored, market)
        if try await !cancelOutstandingIntent(order, market, base: base) {
            // Paid (or being paid) meanwhile: not ended.
            (order, stored) = try await sync(order, stored, market)
            throw CheckoutFailure.conflict("order_paid", "The payment went through; the order is \(order.machine.status.rawValue).")
        }
        do { _ = expire ? try order.machine.expire() : try order.machine.cancel() } catch { throw CheckoutFailure.state(error) }
        _ = try await save(order, over: stored, attentionAt: .some(nil))
        for _ in 0..<10 {
            var (bid, bidObject) = try await load(BidRecord.self, id: order.bid, in: market, what: "bid")
            guard bid.machine.status == .accepted else { break }
            try? bid.machine.withdraw(by: .marketplace)
            if (try? await save(bid, over: bidObject)) != nil { break }
        }
        try await freeListing(order.listing, reservedFor: order.bid, market)
        return order
    }

    /// The listing on sale again, if it is still reserved for (or sold to) `bid`.
    package func freeListing(_ id: ListingID, reservedFor bid: BidID, _ market: Market) async throws {
        for _ in 0..<10 {
            var (listing, stored) = try await load(ListingRecord.self, id: id, in: market, what: "listing")
            guard listing.status != .available, listing.bid == bid else { return }
            listing.status = .available
            listing.bid = nil
            if (try? await save(listing, over: stored)) != nil { return }
        }
    }



    /// Pays the caller's order: the order as it stands after, the page to send the buyer to,
    /// or the card's refusal.
    package func pay(_ caller: Caller, orderID: OrderID, method requested: String?, card: String?, returnURL: String, base: String) async throws -> (order: OrderRecord, redirect: String?, declined: String?) {
        var (order, stored) = try await visibleOrder(orderID, caller)
        guard order.buyer == caller.user.id else { throw CheckoutFailure.forbidden("Only the buyer pays.") }
        (order, stored) = try await sync(order, stored, caller.market)
        guard order.machine.isPayable else { return (order, nil, nil) }
        if let name = requested, name != order.machine.paymentMethod.rawValue {
            guard let method = CheckoutPaymentMethod(rawValue: name) else { throw CheckoutFailure.invalid("payment_method_invalid", "payment_method is card, ideal or bancontact.") }
            let (bid, _) = try await visibleBid(order.bid, caller)
            let (listing, _) = try await load(ListingRecord.self, id: order.listing, in: caller, what: "listing")
            do {
                try order.machine.choose(method)
                order.totals = try Self.totals(bid, listing, caller.user, Choices(delivery: order.delivery, address: order.address, payment: method), caller.marketplace)
            } catch let error as TotalsError {
                throw CheckoutFailure.totals(error)
            } catch let error as CheckoutStateError {
                throw CheckoutFailure.state(error)
            }
        }
        let merchant = caller.merchant
        let method = order.machine.paymentMethod
        // The payment method: the buyer's saved card, or the bank's.
        let paymentMethodID: PaymentMethodID
        if method == .card {
            guard let card else { throw CheckoutFailure.invalid("card_missing", "Paying by card needs one of the buyer's saved cards (card: pm_...).") }
            let (saved, _) = try await gateway.load(PaymentMethodRecord.self, id: PaymentMethodID(card), merchant: merchant)
            guard saved.customer?.rawValue == caller.user.customer, saved.type == .card else { throw CheckoutFailure.notFound("card") }
            paymentMethodID = saved.id
        } else {
            paymentMethodID = try await gateway.createPaymentMethod(NewPaymentMethod(type: PaymentMethodType(rawValue: method.rawValue)!), merchant: merchant).id
        }
        // The intent: the last one if it can still take this payment, else a new one (the old
        // one canceled, so it can never be paid as well).
        var intentID: String?
        if let last = order.paymentIntent {
            let (intent, _) = try await gateway.load(PaymentIntentRecord.self, id: PaymentIntentID(last), merchant: merchant)
            let reusable = intent.machine.amount == order.totals.total && intent.paymentMethodTypes.contains(PaymentMethodType(rawValue: method.rawValue)!)
                && (intent.machine.status == .requiresPaymentMethod || intent.machine.status == .requiresConfirmation)
            if reusable {
                intentID = last
            } else if try await !cancelOutstandingIntent(order, caller.market, base: base) {
                // Paid at the bank a moment ago: the order is paid, not paid again.
                return (try await sync(order, stored, caller.market).0, nil, nil)
            }
        }
        if intentID == nil {
            let new = NewPaymentIntent(
                amount: order.totals.total, currency: CheckoutService.euro, paymentMethodTypes: [PaymentMethodType(rawValue: method.rawValue)!],
                fields: IntentFields(customer: CustomerID(caller.user.customer), metadata: ["order": order.id.rawValue]), escrowAccount: caller.marketplace.escrowAccount)
            intentID = try await gateway.createPaymentIntent(new, merchant: merchant, idempotency: nil, base: base).id.rawValue
        }
        order.paymentIntent = intentID
        do { try order.machine.paymentStarted() } catch { throw CheckoutFailure.state(error) }
        stored = try await save(order, over: stored)
        var declined: String?
        do {
            _ = try await gateway.confirmPaymentIntent(
                PaymentIntentID(intentID!), IntentConfirmation(paymentMethod: paymentMethodID, returnURL: returnURL), merchant: merchant, key: .secret, base: base)
        } catch {
            // A decline leaves the order payable; any other failure is the request's.
            guard error.category == .card else { throw error }
            declined = error.message
        }
        (order, stored) = try await sync(order, stored, caller.market)
        let (intent, _) = try await gateway.load(PaymentIntentRecord.self, id: PaymentIntentID(intentID!), merchant: merchant)
        let redirect = intent.machine.status == .requiresAction ? GatewayObjects.actionPage(intent, base: base) : nil
        return (order, redirect, declined)
    }

    /// A paid order cancelled before it shipped (by the buyer or the seller): the escrow returns
    /// the buyer's whole payment to the marketplace's settlement account and the gateway refunds
    /// it from there (no fee was taken: that happens at release), so a refund can always be
    /// paid, from a marketplace's first sale. Claimed by the order's version first; if the refund
    /// is refused all the same (the balance was paid out at that very moment), the money goes
    /// back into escrow and the order stays paid.
    package func refundPaid(_ order: OrderRecord, _ stored: StoredObject, _ caller: Caller) async throws -> OrderRecord {
        var order = order
        let paid = order.machine
        guard order.holdTransaction != nil else {
            throw CheckoutFailure.conflict("escrow_pending", "The payment is still being moved into escrow; try again in a moment.")
        }
        do { _ = try order.machine.cancel() } catch { throw CheckoutFailure.state(error) }
        guard order.paymentIntent != nil else { throw CheckoutFailure.state(CheckoutStateError(code: "order_unexpected_state", message: "A paid order without a payment.")) }
        // Claimed by the order's version, with the refund's id chosen and the order due a day
        // on, so that a stop from here on is finished once (``CheckoutService/finishRefund``).
        order.refund = gateway.newID("re")
        let claimed = try await save(order, over: stored, attentionAt: .some(gateway.now() + CheckoutService.pendingMoveSeconds))
        do {
            order = try await finishRefund(order, claimed, caller.market, refunder: refunder).0
        } catch let failure as GatewayFailure where failure.category == .invalidRequest {
            // The refund was refused (the balance moved meanwhile): the money goes back into
            // escrow and the order is paid again.
            let held = try await hold(order, marketplace: caller.marketplace, merchant: caller.merchant)
            var (current, currentStored) = try await load(OrderRecord.self, id: order.id, in: caller, what: "order")
            current.machine = paid
            current.refund = nil
            current.returnTransaction = nil
            _ = try await save(
                current, over: currentStored, attentionAt: .some(nil),
                events: try escrowTransaction(.adjustment, amount: -order.totals.total, order: order, ledgerHash: held, merchant: caller.merchant))
            throw CheckoutFailure.conflict("marketplace_balance_insufficient", "The refund could not be paid; the order is still paid and its money in escrow.")
        }
        return order
    }

    /// The gateway's refund of an intent, for the checkout (its own id, reason and metadata).
    /// The gateway's refund of an intent, for the checkout (its own id, reason and metadata).
    package var refunder: CheckoutService.Refunder {
        let gateway = self.gateway
        return { intentID, amount, refundID, order, merchant in
            _ = try await gateway.refund(
                NewRefund(paymentIntent: PaymentIntentID(intentID), amount: amount, reason: "requested_by_customer", metadata: ["order": order]), id: RefundID(refundID), merchant: merchant)
        }
    }

    /// The seller sends the order (released by the janitor if the buyer never confirms).
    package func ship(_ caller: Caller, orderID: OrderID) async throws -> OrderRecord {
        var (order, stored) = try await visibleOrder(orderID, caller)
        do { try order.machine.ship(by: order.seller == caller.user.id ? .seller : .buyer) } catch { throw CheckoutFailure.state(error) }
        order.shippedAt = gateway.now()
        _ = try await save(order, over: stored, attentionAt: .some(order.shippedAt! + caller.marketplace.releaseAfterSeconds))
        return order
    }

    /// The buyer has the item: the escrow pays the seller, the marketplace and the gateway.
    package func confirmReceipt(_ caller: Caller, orderID: OrderID) async throws -> OrderRecord {
        let (order, stored) = try await visibleOrder(orderID, caller)
        let actor: CheckoutActor = order.buyer == caller.user.id ? .buyer : .seller
        return try await complete(order, stored, caller.market, by: actor)
    }

    /// The order as the gateway says it stands, for a caller who may see it.
    package func currentOrder(_ caller: Caller, orderID: OrderID) async throws -> OrderRecord {
        let (order, stored) = try await visibleOrder(orderID, caller)
        return try await sync(order, stored, caller.market).0
    }

    /// Cancels an order: an unpaid one by its buyer (its intent canceled at the gateway first),
    /// a paid one by either party (refunded in full).
    package func cancel(_ caller: Caller, orderID: OrderID, base: String) async throws -> OrderRecord {
        var (order, stored) = try await visibleOrder(orderID, caller)
        (order, stored) = try await sync(order, stored, caller.market)
        if order.machine.isPayable {
            guard order.buyer == caller.user.id else { throw CheckoutFailure.forbidden("Only the buyer cancels an unpaid order.") }
            return try await endUnpaid(order, stored, caller.market, expire: false, base: base)
        }
        return try await refundPaid(order, stored, caller)
    }
}
