import Crypto
import Foundation
import Gateway
import Ledger
import LedgerService
import Logging
import StellarBase
import TenderJSON

/// An intent's steps as its state machine asks for them: stored with their events, settled on
/// the ledger, refunds recorded against it and failed back, the janitor's due times.
extension GatewayService {
    // MARK: Moving intents

    /// Stores an intent's new state and does what its state machine asked: settle on the ledger
    /// (stored as pending first, answered once its ledger committed), emit the event, or answer
    /// a decline as a card failure with the intent. `base` is the server's URL (for the links in
    /// the events). `stored` is the intent as read; with `isNew` it is not stored yet and is
    /// inserted (with `events`, its `payment_intent.created`) in the same write as its new state.
    /// Returns the intent as it stands after.
    /// - Throws: ``GatewayFailure``: a card failure for a decline (the intent stored as declined),
    ///   `lock_timeout` when another request moved the intent first.
    package func perform(
        _ action: PaymentIntentStateMachine.Action, on intent: PaymentIntentRecord, over stored: StoredObject, _ merchant: MerchantRecord, base: String,
        isNew: Bool = false, events: [StoredEvent] = []
    ) async throws -> PaymentIntentRecord {
        var intent = intent
        let now = now()
        if intent.machine.status == .requiresAction, intent.actionSince == nil { intent.actionSince = now }
        if intent.machine.status == .requiresCapture, intent.authorizedAt == nil { intent.authorizedAt = now }
        if intent.machine.status == .processing, intent.reconcileAt == nil { intent.reconcileAt = now + 1 }
        if intent.machine.status == .canceled, intent.canceledAt == nil { intent.canceledAt = now }
        if case .settle(let amount) = action { (intent.settlement, intent.settlementAmount) = (.pending, amount) }
        let json = { (intent: PaymentIntentRecord) in GatewayObjects.paymentIntent(intent, base: base) }
        // The event that reports this step is written with it (a settlement's, once settled).
        var reported: GatewayEventType?
        switch action {
        case .failed: reported = .paymentIntentPaymentFailed
        case .requiresAction: reported = .paymentIntentRequiresAction
        case .authorized: reported = .paymentIntentAmountCapturableUpdated
        case .release, .canceled: reported = .paymentIntentCanceled
        case .settle, .none, .askAcquirerLater, .refund: reported = nil
        }
        // The charge this step makes or moves, reported with it (a settlement's once settled,
        // with the intent's).
        let chargeEvent = intent.recordCharge(for: action, now: now)?.event
        if case .settle = action { intent.settlementChargeEvent = chargeEvent?.type }
        var events = events
        if let reported { events.append(try await event(reported, json(intent), merchant: merchant)) }
        let settles = if case .settle = action { true } else { false }
        let authorizes = if case .authorized = action { true } else { false }
        if let (type, charge) = chargeEvent, !settles {
            events.append(try await event(type, GatewayObjects.charge(charge, of: intent), merchant: merchant))
        }
        // Paid, and asked to: the method is saved for the intent's customer for later payments.
        if settles || authorizes { try await saveForLater(intent, merchant: merchant) }
        // A pending settlement is the request's to finish; if it is still pending a minute on,
        // the janitor looks for it on the ledger (``completeSettlementFound(_:over:merchant:reader:base:)``).
        let saved = try await save(
            intent, over: stored, attentionAt: .some(intent.settlement == .pending ? now + Self.pendingSettlementGrace : attentionTime(intent)),
            isNew: isNew, events: events)
        switch action {
        case .settle(let amount):
            let pending = intent
            intent.recordSettlement(try await settle(intent, amount: amount, merchant: merchant))
            let settled = try await settledEvents(intent, amount: amount, merchant: merchant, base: base, charge: chargeEvent)
            do {
                _ = try await save(intent, over: saved, attentionAt: .some(nil), events: settled)
            } catch let failure as GatewayFailure where failure.category == .conflict {
                // Changed since the pending write, so this write came over a minute late: the
                // janitor looked for the settlement on the ledger. Found, it completed it, and
                // its record is the answer; not found yet, it only put its next look off, and
                // this write goes over that. Anything else that changed it is still a conflict.
                let (current, currentStored) = try await load(PaymentIntentRecord.self, id: intent.id, merchant: merchant)
                if current.settlement == .settled, current.settlementTransaction == intent.settlementTransaction { return current }
                guard current == pending else { throw failure }
                _ = try await save(intent, over: currentStored, attentionAt: .some(nil), events: settled)
            }
        case .failed(let failure):
            throw GatewayFailure(
                .card, code: GatewayFailure.Code(rawValue: failure.code), message: failure.message, declineCode: failure.declineCode, paymentIntent: intent)
        case .requiresAction, .authorized, .release, .canceled, .none, .askAcquirerLater, .refund:
            break
        }
        return intent
    }

    /// What reports a settlement once its ledger committed, in this order: `payment_intent.succeeded`,
    /// the balance transaction, the checkout session's completion (if the intent has one), and
    /// the charge's event.
    func settledEvents(
        _ intent: PaymentIntentRecord, amount: Int64, merchant: MerchantRecord, base: String, charge: (type: GatewayEventType, charge: ChargeAttempt)?
    ) async throws -> [StoredEvent] {
        var settled = [try await event(.paymentIntentSucceeded, GatewayObjects.paymentIntent(intent, base: base), merchant: merchant)]
        settled += try settlementTransaction(intent, amount: amount, source: Self.settlementSource(intent), merchant: merchant)
        settled += try await sessionCompleted(intent, merchant: merchant, base: base)
        if let (type, charge) = charge { settled.append(try await event(type, GatewayObjects.charge(charge, of: intent), merchant: merchant)) }
        return settled
    }

    /// A paid intent's method saved for its customer (Stripe's `setup_future_usage`), marked set
    /// up for payments without them: authenticated now if its issuer asked. Nothing without a
    /// customer, or for a bank's method (saved as a SEPA mandate by Stripe, which Tender has not).
    func saveForLater(_ intent: PaymentIntentRecord, merchant: MerchantRecord) async throws {
        guard let usage = intent.setupFutureUsage, let customer = intent.customer, let methodID = intent.machine.paymentMethod else { return }
        var (method, stored) = try await load(PaymentMethodRecord.self, id: PaymentMethodID(methodID), merchant: merchant, parameter: "payment_method")
        guard method.type == .card, method.customer == nil || method.customer == customer else { return }
        guard method.customer != customer || method.setUpForLater != usage else { return }
        method.customer = customer
        method.setUpForLater = method.setUpForLater == .offSession ? .offSession : usage
        _ = try await save(method, over: stored, customer: .some(customer.rawValue))
    }

    /// When the janitor must look at an intent next: a redirect's expiry, an authorisation's
    /// expiry, the next question to an acquirer that did not answer; nil when nothing waits.
    package func attentionTime(_ intent: PaymentIntentRecord) -> Int64? {
        switch intent.machine.status {
        case .requiresAction: (intent.actionSince ?? now()) + expiries.redirectSeconds
        case .requiresCapture: (intent.authorizedAt ?? now()) + expiries.authorizationSeconds
        case .processing: intent.reconcileAt ?? now()
        case .requiresPaymentMethod, .requiresConfirmation, .succeeded, .canceled: nil
        }
    }


    // MARK: Refunds

    /// Writes the intent (its refunded amount raised) and the pending refund in one write.
    /// - Throws: ``GatewayFailure`` `lock_timeout` when the intent changed meanwhile.
    package func recordRefund(_ refund: RefundRecord, intent: PaymentIntentRecord, over stored: StoredObject, merchant: MerchantRecord) async throws -> StoredObject {
        var updated = stored
        updated.body = Array(try Self.encoder.encode(intent))
        let record = StoredObject(
            id: refund.id.rawValue, merchant: merchant.id, kind: .refund, created: refund.created,
            body: Array(try Self.encoder.encode(refund)), attentionAt: now() + 86_400)
        guard try await store.update(updated, inserting: record) else {
            throw GatewayFailure.changedMeanwhile
        }
        updated.version += 1
        return updated
    }

    /// A refund the ledger refused: its amount goes back to the intent, and it is kept as failed.
    package func failRefund(_ refund: RefundRecord, over stored: StoredObject, merchant: MerchantRecord) async throws {
        for _ in 0..<100 {
            let (loaded, loadedStored) = try await load(PaymentIntentRecord.self, id: refund.paymentIntent, merchant: merchant)
            var current = loaded
            current.machine.refundFailed(refund.amount)
            if let index = current.trail?.lastIndex(where: { $0.kind == .refund && $0.amount == refund.amount && $0.created == refund.created }) {
                current.trail?.remove(at: index)
            }
            if (try? await save(current, over: loadedStored)) != nil { break }
        }
        var failed = refund
        failed.status = .failed
        failed.failureReason = "insufficient_funds"
        _ = try await save(failed, over: stored, attentionAt: .some(nil))
    }

    /// A capture that is not the intent's last: the intent (its captured amount raised) and the
    /// pending capture are written together, then the capture is settled on the ledger under
    /// its own memo and marked succeeded. Returns the intent as it stands after.
    /// - Throws: ``GatewayFailure`` `lock_timeout` when the intent changed meanwhile.
    package func capturePart(_ amount: Int64, of intent: PaymentIntentRecord, over stored: StoredObject, merchant: MerchantRecord, base: String) async throws -> PaymentIntentRecord {
        var capture = CaptureRecord(
            id: CaptureID(newID("cap")), paymentIntent: intent.id, amount: amount, currency: intent.currency,
            created: now(), status: .pending)
        var updated = stored
        updated.body = Array(try Self.encoder.encode(intent))
        updated.attentionAt = attentionTime(intent)
        let record = StoredObject(
            id: capture.id.rawValue, merchant: merchant.id, kind: .capture, created: capture.created,
            body: Array(try Self.encoder.encode(capture)), attentionAt: now() + 86_400)
        guard try await store.update(updated, inserting: record) else {
            throw GatewayFailure.changedMeanwhile
        }
        capture.ledgerTransaction = try await settle(intent, amount: amount, merchant: merchant, memo: "tender capture \(capture.id)")
        capture.status = .succeeded
        var storedCapture = record
        storedCapture.version = 0
        _ = try await save(
            capture, over: storedCapture, attentionAt: .some(nil),
            events: try settlementTransaction(intent, amount: amount, source: capture.id.rawValue, merchant: merchant))
        await announceCapture(of: intent, merchant: merchant, base: base)
        return intent
    }

    /// The events of a capture settled on the ledger: the intent's (succeeded once its last
    /// part is captured, its capturable amount changed before) and `charge.captured`.
    func announceCapture(of intent: PaymentIntentRecord, merchant: MerchantRecord, base: String) async {
        let json = GatewayObjects.paymentIntent(intent, base: base)
        await emit(intent.machine.status == .succeeded ? .paymentIntentSucceeded : .paymentIntentAmountCapturableUpdated, json, merchant: merchant)
        if let charge = intent.succeededCharge { await emit(.chargeCaptured, GatewayObjects.charge(charge, of: intent), merchant: merchant) }
    }
}
