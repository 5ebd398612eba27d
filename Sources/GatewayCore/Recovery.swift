import Crypto
import Foundation
import Gateway
import Ledger
import LedgerService
import Logging
import StellarBase
import TenderJSON

/// What a stopped server left half-done, finished before serving: settlements, refunds and
/// captures found on the ledger by their memos or made now, each exactly once.
extension GatewayService {
    // MARK: Recovery

    /// At start-up, before serving: every settlement a stopped server left pending is found on
    /// the ledger (by its memo, in the latest transactions of the account it paid) or made now,
    /// so each captured payment is settled exactly once; keys of requests that were running are
    /// marked so their retries finish them. Each is written with what its request would have
    /// written: a settlement's `payment_intent.succeeded`, balance transaction, checkout
    /// session's completion and charge's event; a capture's balance transaction, the intent's
    /// event and `charge.captured`. `base` is the server's URL (for the links in the events).
    package func recover(reader: any LedgerReader, base: String) async throws {
        try await store.markInterruptedIdempotencyKeys()
        for stored in try await store.dueObjects(kind: .paymentIntent, now: .max, limit: 10_000) {
            let intent = try records.decode(PaymentIntentRecord.self, stored)
            guard intent.settlement == .pending, let merchant = try await store.merchant(id: stored.merchant),
                  let (amount, found) = try await findSettlement(of: intent, merchant: merchant, reader: reader) else { continue }
            let hash = if let found { found.hash.hex } else { try await settle(intent, amount: amount, merchant: merchant, beforeServing: true) }
            _ = try await finishSettlement(intent, hash: hash, amount: amount, over: stored, merchant: merchant, base: base)
            logger.notice("gateway settlement recovered", metadata: ["payment.intent.id": "\(intent.id)", "found.on.ledger": "\(found != nil)"])
        }
        for stored in try await store.dueObjects(kind: .refund, now: .max, limit: 10_000) {
            var refund = try records.decode(RefundRecord.self, stored)
            guard refund.status == .pending, let merchant = try await store.merchant(id: stored.merchant) else { continue }
            let account = try AccountID(merchant.settlementAccount)
            if let found = try await findOnLedger(memo: "tender refund \(refund.id)", account: account, reader: reader) {
                refund.ledgerTransaction = found.hash.hex
                refund.status = .succeeded
                _ = try await save(refund, over: stored, attentionAt: .some(nil), events: [try refundTransaction(refund, merchant: merchant)])
            } else {
                do {
                    refund.ledgerTransaction = try await payBack(refund, merchant: merchant, beforeServing: true)
                    refund.status = .succeeded
                    _ = try await save(refund, over: stored, attentionAt: .some(nil), events: [try refundTransaction(refund, merchant: merchant)])
                } catch is GatewayFailure {
                    try await failRefund(refund, over: stored, merchant: merchant)
                }
            }
            logger.notice("gateway refund recovered", metadata: ["refund.id": "\(refund.id)", "refund.status": "\(refund.status.rawValue)"])
        }
        for stored in try await store.dueObjects(kind: .capture, now: .max, limit: 10_000) {
            var capture = try records.decode(CaptureRecord.self, stored)
            guard capture.status == .pending, let merchant = try await store.merchant(id: stored.merchant),
                  let intentObject = try await store.object(id: capture.paymentIntent.rawValue, kind: .paymentIntent, merchant: merchant.id) else { continue }
            let intent = try records.decode(PaymentIntentRecord.self, intentObject)
            let memo = "tender capture \(capture.id)"
            let method = intent.machine.paymentMethodType ?? .card
            let paid = try settlementAccount(intent, amount: capture.amount, method: method, merchant: merchant)
            if let found = try await findOnLedger(memo: memo, account: paid, reader: reader) {
                capture.ledgerTransaction = found.hash.hex
            } else {
                capture.ledgerTransaction = try await settle(intent, amount: capture.amount, merchant: merchant, memo: memo, beforeServing: true)
            }
            capture.status = .succeeded
            _ = try await save(
                capture, over: stored, attentionAt: .some(nil),
                events: try settlementTransaction(intent, amount: capture.amount, source: capture.id.rawValue, merchant: merchant))
            await announceCapture(of: intent, merchant: merchant, base: base)
            logger.notice("gateway capture recovered", metadata: ["capture.id": "\(capture.id)", "payment.intent.id": "\(intent.id)"])
        }
    }

    /// How long a settlement may stay pending before the janitor looks for it on the ledger: the
    /// request that made it finishes it within seconds, so one still pending a minute on most
    /// likely lost its last write (the store failed after the ledger committed).
    package static let pendingSettlementGrace: Int64 = 60
    /// How long the janitor waits to look again for a pending settlement it did not find.
    package static let pendingSettlementRecheck: Int64 = 3_600

    /// For the janitor: a settlement still pending ``pendingSettlementGrace`` after its request
    /// wrote it. Found on the ledger by its memo, it is completed as its request would have
    /// completed it (the transaction recorded, `payment_intent.succeeded`, the balance
    /// transaction and the charge's event written; nothing paid again), and the intent is
    /// returned. Not found, it is looked at again an hour on, and the next start-up's recovery
    /// pays it if it is still not on the ledger: paying it from a running server could pay twice
    /// while its request still waits for its ledger. Returns nil then.
    /// - Throws: ``GatewayFailure`` `lock_timeout` when the request finished it meanwhile.
    package func completeSettlementFound(
        _ intent: PaymentIntentRecord, over stored: StoredObject, merchant: MerchantRecord, reader: any LedgerReader, base: String
    ) async throws -> PaymentIntentRecord? {
        guard intent.settlement == .pending, let (amount, found) = try await findSettlement(of: intent, merchant: merchant, reader: reader) else { return nil }
        guard let found else {
            _ = try await save(intent, over: stored, attentionAt: .some(now() + Self.pendingSettlementRecheck))
            logger.warning("gateway settlement still pending, not on the ledger", metadata: ["payment.intent.id": "\(intent.id)"])
            return nil
        }
        let settled = try await finishSettlement(intent, hash: found.hash.hex, amount: amount, over: stored, merchant: merchant, base: base)
        logger.notice("gateway settlement completed from the ledger", metadata: ["payment.intent.id": "\(intent.id)", "ledger.transaction": "\(found.hash.hex)"])
        return settled
    }

    /// `intent`'s pending settlement recorded as done by the ledger transaction `hash`, written
    /// over `stored` with what its request writes once the ledger committed (``settledEvents(_:amount:merchant:base:charge:)``,
    /// the charge's event the one kept with the pending settlement). Returns the intent settled.
    /// - Throws: ``GatewayFailure`` `lock_timeout` when the intent changed since `stored`.
    func finishSettlement(
        _ intent: PaymentIntentRecord, hash: String, amount: Int64, over stored: StoredObject, merchant: MerchantRecord, base: String
    ) async throws -> PaymentIntentRecord {
        let charge = intent.settlementChargeEvent.flatMap { type in intent.succeededCharge.map { (type: type, charge: $0) } }
        var settled = intent
        settled.recordSettlement(hash)
        _ = try await save(
            settled, over: stored, attentionAt: .some(nil), events: try await settledEvents(settled, amount: amount, merchant: merchant, base: base, charge: charge))
        return settled
    }

    /// What a pending settlement of `intent` settles (a multicapture's last part is less than all
    /// received), and its transaction if the ledger has it (found by the memo ``settle(_:amount:merchant:memo:beforeServing:)``
    /// gives it, in the account its money went to); nil for an intent without a payment method.
    func findSettlement(of intent: PaymentIntentRecord, merchant: MerchantRecord, reader: any LedgerReader) async throws -> (amount: Int64, found: StoredTransaction?)? {
        guard let method = intent.machine.paymentMethodType else { return nil }
        let amount = intent.settlementAmount ?? intent.machine.amountReceived
        let paid = try settlementAccount(intent, amount: amount, method: method, merchant: merchant)
        return (amount, try await findOnLedger(memo: "tender settlement \(intent.id)", account: paid, reader: reader))
    }

    /// The transaction with this memo among the latest 10,000 of `account`, if any.
    package func findOnLedger(memo text: String, account: AccountID, reader: any LedgerReader) async throws -> StoredTransaction? {
        let memo = Memo.hash(Bytes32(Array(SHA256.hash(data: Array(text.utf8)))))
        var cursor: Int64?
        for _ in 0..<50 {
            let page = try await reader.transactions(PageRequest(cursor: cursor, limit: 200, descending: true), account: account, includeFailed: false)
            if let found = page.first(where: { $0.envelope.transaction.memo == memo }) { return found }
            guard let last = page.last, page.count == 200 else { return nil }
            cursor = last.id
        }
        return nil
    }

}
