import Foundation
import Gateway
import StellarBase

/// A refund to make.
package struct NewRefund: Sendable {
    /// The intent refunded: given, or the one `charge` belongs to.
    package var paymentIntent: PaymentIntentID?
    /// The charge refunded, which must be its intent's succeeded one.
    package var charge: ChargeID?
    /// All that is left to refund when nil.
    package var amount: Int64?
    /// `duplicate`, `fraudulent` or `requested_by_customer`.
    package var reason: String?
    package var metadata: [String: String]
    /// Paylike's descriptor for the refund, kept in the intent's trail.
    package var descriptor: String?

    package init(paymentIntent: PaymentIntentID? = nil, charge: ChargeID? = nil, amount: Int64? = nil, reason: String? = nil, metadata: [String: String] = [:], descriptor: String? = nil) {
        self.paymentIntent = paymentIntent
        self.charge = charge
        self.amount = amount
        self.reason = reason
        self.metadata = metadata
        self.descriptor = descriptor
    }
}

/// A payout to make.
package struct NewPayout: Sendable {
    package var amount: Int64
    package var currency: GatewayCurrency
    /// A Stellar account address of the merchant's that trusts the anchor's asset.
    package var destination: String
    package var metadata: [String: String]
    package var description: String?

    package init(amount: Int64, currency: GatewayCurrency, destination: String, metadata: [String: String] = [:], description: String? = nil) {
        self.description = description
        self.amount = amount
        self.currency = currency
        self.destination = destination
        self.metadata = metadata
    }
}

/// Money going back: refunds to the card, payouts to the merchant, and the balance they come
/// from.
extension GatewayService {
    /// The reasons a merchant may give for a refund.
    package static let refundReasons: Set<String> = ["duplicate", "fraudulent", "requested_by_customer"]

    /// Refunds an intent's captures, under an id that comes from the idempotency key when there
    /// is one (a retry after a stop finds the refund the stopped request recorded, finished at
    /// start-up, instead of refunding again).
    /// - Throws: ``GatewayFailure``: an unknown reason, an amount the intent does not allow
    ///   (`amount_too_large`, `charge_not_refundable`), a balance that cannot cover it
    ///   (`balance_insufficient`: the refund failed, nothing moved).
    package func createRefund(_ new: NewRefund, merchant: MerchantRecord, idempotency: Idempotency?) async throws(GatewayFailure) -> RefundRecord {
        try await failing { () async throws -> RefundRecord in
            if let reason = new.reason, !Self.refundReasons.contains(reason) {
                throw GatewayFailure.invalid("reason", "Invalid reason: must be duplicate, fraudulent or requested_by_customer.")
            }
            let id = RefundID(idempotency.map { derivedID("re", from: $0) } ?? newID("re"))
            if idempotency?.resumed == true, let existing = try await store.object(id: id.rawValue, kind: .refund, merchant: merchant.id) {
                let refund = try records.decode(RefundRecord.self, existing)
                guard refund.status != .failed else {
                    throw GatewayFailure.invalid("amount", "The merchant's balance could not cover this refund.", code: .balanceInsufficient)
                }
                return refund
            }
            return try await refund(new, id: id, merchant: merchant)
        }
    }

    /// Refunds `new.amount` (all that is left when nil) of an intent's captures under the refund
    /// id `id`: recorded against the intent (so two refunds can never exceed what was captured),
    /// paid back on the ledger, marked succeeded; if the ledger refuses, the intent's refunded
    /// amount is taken back and the refund is failed.
    /// - Throws: ``GatewayFailure`` for an amount the intent does not allow or a balance that
    ///   cannot cover it (the refund failed, nothing moved).
    package func refund(_ new: NewRefund, id: RefundID, merchant: MerchantRecord) async throws(GatewayFailure) -> RefundRecord {
        try await failing { () async throws -> RefundRecord in
            var (intent, stored) = try await refunded(new, merchant: merchant)
            let action: PaymentIntentStateMachine.Action
            do {
                action = try intent.machine.refund(new.amount)
            } catch let error as PaymentIntentStateError {
                throw GatewayFailure.invalid(error.parameter, error.message, code: error.code == .invalidAmount ? .amountTooLarge : .chargeNotRefundable)
            }
            guard case .refund(let refunded) = action else { preconditionFailure("a refund answers .refund") }
            var refund = RefundRecord(
                id: id, paymentIntent: intent.id, amount: refunded, currency: intent.currency, created: now(), status: .pending,
                reason: new.reason, metadata: new.metadata)
            refund.charge = intent.succeededCharge.map { intent.id.charge($0.number) }
            intent.trail = (intent.trail ?? []) + [TrailEntry(kind: .refund, amount: refunded, created: refund.created, descriptor: new.descriptor)]
            // The intent's refunded amount and the pending refund are written together; the
            // refund is due for the start-up recovery should the server stop before it is paid back.
            stored = try await recordRefund(refund, intent: intent, over: stored, merchant: merchant)
            let (_, storedRefund) = try await load(RefundRecord.self, id: id, merchant: merchant)
            do {
                refund.ledgerTransaction = try await payBack(refund, merchant: merchant)
                refund.status = .succeeded
                _ = try await save(refund, over: storedRefund, attentionAt: .some(nil), events: [try refundTransaction(refund, merchant: merchant)])
                let refundedIntent = try await load(PaymentIntentRecord.self, id: intent.id, merchant: merchant).0
                if let charge = refundedIntent.succeededCharge {
                    await emit(.chargeRefunded, GatewayObjects.charge(charge, of: refundedIntent), merchant: merchant)
                }
                return refund
            } catch let failure as GatewayFailure {
                try await failRefund(refund, over: storedRefund, merchant: merchant)
                throw failure
            }
        }
    }

    /// The balance transaction of a refund paid back.
    func refundTransaction(_ refund: RefundRecord, merchant: MerchantRecord) throws -> StoredEvent {
        try balanceTransaction(BalanceMovement(type: .refund, amount: -refund.amount, currency: refund.currency, source: refund.id.rawValue), merchant: merchant)
    }

    /// The intent a refund names, by its id or its charge's (which must be the one that took
    /// the money).
    /// - Throws: ``GatewayFailure``: neither given, an unknown intent or charge (naming the
    ///   parameter), a charge that is not the intent's or did not succeed.
    func refunded(_ new: NewRefund, merchant: MerchantRecord) async throws -> (PaymentIntentRecord, StoredObject) {
        guard let charge = new.charge else {
            guard let id = new.paymentIntent else { throw GatewayFailure.missing("payment_intent") }
            return try await load(PaymentIntentRecord.self, id: id, merchant: merchant, parameter: "payment_intent")
        }
        let missing = GatewayFailure.invalid("charge", "No such charge: '\(charge.rawValue.prefix(100))'", code: .resourceMissing)
        guard let attempt = charge.attempt else { throw missing }
        if let named = new.paymentIntent, named != attempt.paymentIntent {
            throw GatewayFailure.invalid("charge", "The charge \(charge.rawValue.prefix(100)) does not belong to the PaymentIntent \(named.rawValue.prefix(100)).")
        }
        guard let found = try await store.object(id: attempt.paymentIntent.rawValue, kind: .paymentIntent, merchant: merchant.id) else { throw missing }
        let intent = try records.decode(PaymentIntentRecord.self, found)
        guard let made = intent.chargeAttempts.first(where: { $0.number == attempt.number }) else { throw missing }
        guard made.status == .succeeded else {
            throw GatewayFailure.invalid("charge", "Charge \(charge.rawValue) has a status of \(made.status.rawValue): only a succeeded charge can be refunded.", code: .chargeNotRefundable)
        }
        return (intent, found)
    }

    /// Pays part of the balance out to a Stellar address of the merchant's (which must trust the
    /// test anchor's asset), in a ledger transaction from the settlement account. The payout is
    /// recorded once that ledger has committed; one the ledger refuses moves nothing.
    /// - Throws: ``GatewayFailure``: `amount_invalid`, `payout_destination_invalid`,
    ///   `balance_insufficient`.
    package func createPayout(_ new: NewPayout, merchant: MerchantRecord, idempotency: Idempotency?) async throws(GatewayFailure) -> PayoutRecord {
        try await failing { () async throws -> PayoutRecord in
            guard new.amount >= 1, new.amount <= FiatConversion.maxPaymentMinorUnits else {
                throw GatewayFailure.invalid("amount", "A payout is 1 to \(FiatConversion.maxPaymentMinorUnits) minor units.", code: .amountInvalid)
            }
            guard let destination = try? AccountID(new.destination) else {
                throw GatewayFailure.invalid("destination", "The destination must be a Stellar account address (G...).", code: .payoutDestinationInvalid)
            }
            let id = PayoutID(idempotency.map { derivedID("po", from: $0) } ?? newID("po"))
            let stored = try await payFromSettlement(new.amount, of: new.currency, to: destination, memo: "tender payout \(id)", merchant: merchant, parameter: "amount")
            var payout = PayoutRecord(
                id: id, amount: new.amount, currency: new.currency.code, destination: new.destination, created: now(),
                ledgerTransaction: stored.hash.hex, metadata: new.metadata)
            payout.description = new.description
            let movement = BalanceMovement(type: .payout, amount: -new.amount, currency: new.currency.code, source: id.rawValue, description: new.description)
            let unsaved = StoredObject(id: id.rawValue, merchant: merchant.id, kind: .payout, created: payout.created, body: [])
            _ = try await save(payout, over: unsaved, isNew: true, events: [try balanceTransaction(movement, merchant: merchant)])
            return payout
        }
    }
}
