import Crypto
import Foundation
import Gateway
import Ledger
import LedgerService
import Logging
import StellarBase
import TenderJSON

/// The gateway's work behind the routes: merchants with their settlement accounts, payment
/// methods, payment intents moved by their state machine, and the settlement of captured money
/// on the ledger. Time and randomness are injected. No HTTP: the routes, pages and the other
/// cores call it with typed commands and get typed records back.
package struct GatewayService: Sendable {
    package let store: any GatewayStore
    package let writer: LedgerWriter
    package let anchor: TestAnchor
    package let secrets: ServerSecrets
    package let fees: FeeSchedule
    package let expiries: GatewayExpiries
    /// The root account's desk (creates settlement accounts) and each anchor issuer's (settles).
    package let rootDesk: LedgerDesk
    package let issuerDesks: [String: LedgerDesk]
    package let feeAccount: KeyPair
    /// One desk per account a product pays from: merchants' settlement accounts (refunds,
    /// payouts, holds), marketplaces' escrow accounts (made on first use).
    package let desks: LedgerDesks
    /// Wakes the webhook deliverer when an event is stored.
    package let webhookWakeup: WakeupSignal
    package let now: @Sendable () -> Int64
    package let random: @Sendable (Int) -> [UInt8]
    package let logger: Logger
    /// Stored objects' records decoded once per body.
    package let records = RecordMemo()

    package init(
        store: any GatewayStore, writer: LedgerWriter, anchor: TestAnchor, secrets: ServerSecrets, fees: FeeSchedule, expiries: GatewayExpiries,
        rootDesk: LedgerDesk, issuerDesks: [String: LedgerDesk], feeAccount: KeyPair, desks: LedgerDesks, webhookWakeup: WakeupSignal,
        now: @escaping @Sendable () -> Int64, random: @escaping @Sendable (Int) -> [UInt8], logger: Logger
    ) {
        self.store = store
        self.writer = writer
        self.anchor = anchor
        self.secrets = secrets
        self.fees = fees
        self.expiries = expiries
        self.rootDesk = rootDesk
        self.issuerDesks = issuerDesks
        self.feeAccount = feeAccount
        self.desks = desks
        self.webhookWakeup = webhookWakeup
        self.now = now
        self.random = random
        self.logger = logger
    }

    /// Random bytes from the system's generator (cryptographically secure on Linux and macOS).
    package static let systemRandom: @Sendable (Int) -> [UInt8] = { count in
        // Eight bytes from each 64-bit draw: each draw is a system call.
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count { withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) } }
        return Array(bytes.prefix(count))
    }

    /// The admin routes' bearer token, from `admin.key` in the data directory (created on first
    /// run, readable by its owner only): whoever can read the data directory may make merchants.
    package static func loadAdminKey(directory: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent("admin.key")
        if let data = FileManager.default.contents(atPath: path) {
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let key = GatewayIDs.make("admin", random: systemRandom, length: 32)
        guard FileManager.default.createFile(atPath: path, contents: Data((key + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw GatewayError(code: "admin_key_unwritable", message: "cannot create \(path)")
        }
        return key
    }

    package static let settlementStartingBalance: Int64 = 10 * Amount.stroopsPerUnit

    /// The account that collects Tender's fees, derived from the anchor's seed.
    package static func feeAccount(anchorSeed: String) -> KeyPair {
        try! KeyPair(seed: Array(SHA256.hash(data: Array("tender gateway fees \(anchorSeed)".utf8))))
    }

    /// Trustlines to every currency the gateway settles in, each operation sourced by `account`.
    package static func trustOperations(for account: AccountID, anchor: TestAnchor) -> [StellarBase.Operation] {
        GatewayCurrency.supported.compactMap { currency in
            anchor.currency(code: currency.assetCode).map { anchorCurrency in
                StellarBase.Operation(sourceAccount: .ed25519(account), .changeTrust(ChangeTrustOperation(asset: anchorCurrency.asset)))
            }
        }
    }

    // MARK: Merchants

    package struct NewMerchant: Sendable {
        package let record: MerchantRecord
        package let secretKey: String
        package let publishableKey: String
    }

    /// Makes a merchant: two keys (returned once; only their hashes are kept) and a settlement
    /// account on the ledger that trusts the anchor's currencies, its seed sealed.
    package func createMerchant(name: String) async throws -> NewMerchant {
        let id = GatewayIDs.make("acct", random: random, length: 16)
        let secretKey = GatewayIDs.make("sk_test", random: random, length: 32)
        let publishableKey = derivedPublishableKey(merchantID: id)
        let seed = random(32)
        let settlement = try KeyPair(seed: seed)
        let operations = [StellarBase.Operation(.createAccount(CreateAccountOperation(destination: settlement.accountID, startingBalance: Self.settlementStartingBalance)))]
            + Self.trustOperations(for: settlement.accountID, anchor: anchor)
        let result = try await rootDesk.submit(operations, cosigners: [settlement])
        guard result.result.isSuccess else {
            throw GatewayError(code: "settlement_account_not_created", message: "the settlement account was not created: \(result.result.code.name)")
        }
        let record = MerchantRecord(
            id: id, name: name,
            secretKeyHash: GatewayIDs.hash(key: secretKey), publishableKeyHash: GatewayIDs.hash(key: publishableKey),
            settlementAccount: settlement.accountID.strKey, sealedSettlementSeed: try secrets.seal(seed), created: now())
        try await store.insertMerchant(record)
        logger.info("gateway merchant created", metadata: ["merchant.id": "\(record.id)", "merchant.settlement": "\(record.settlementAccount)"])
        return NewMerchant(record: record, secretKey: secretKey, publishableKey: publishableKey)
    }

    /// A merchant's publishable key, derived from its id under the server's key: publishable
    /// keys are public (a payment page shows its own), so the server can give one back without
    /// storing it. Only its hash is stored, as for every key.
    package func derivedPublishableKey(merchantID: String) -> String {
        let bytes = Array(HMAC<SHA256>.authenticationCode(for: Array("publishable key \(merchantID)".utf8), using: SymmetricKey(data: secrets.idKeyBytes)))
        return GatewayIDs.make("pk_test", random: { count in Array((bytes + bytes).prefix(count)) }, length: 32)
    }

    /// The merchant's publishable key, for its payment pages; nil for a merchant made before
    /// keys were derived (its key was random and is not kept).
    package func publishableKey(of merchant: MerchantRecord) -> String? {
        let key = derivedPublishableKey(merchantID: merchant.id)
        return GatewayIDs.hash(key: key) == merchant.publishableKeyHash ? key : nil
    }

    // MARK: Objects

    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// The merchant's record `id` of its type's kind, as read.
    /// - Throws: ``GatewayFailure`` `resource_missing` (naming `parameter`) when there is none.
    package func load<Record: StoredRecord>(_ type: Record.Type, id: String, merchant: MerchantRecord, parameter: String = "id") async throws -> (Record, StoredObject) {
        guard id.utf8.count <= 255, let stored = try await store.object(id: id, kind: Record.kind, merchant: merchant.id) else {
            throw GatewayFailure.notFound(Record.kind.rawValue, id, parameter: parameter)
        }
        return (try records.decode(Record.self, stored), stored)
    }

    /// Stores a new object; returns it as stored (version 0), for an update that follows.
    @discardableResult
    package func insert<Record: StoredRecord>(_ record: Record, id: String, merchant: MerchantRecord, customer: String? = nil) async throws -> StoredObject {
        let object = StoredObject(id: id, merchant: merchant.id, kind: Record.kind, customer: customer, created: now(), body: Array(try Self.encoder.encode(record)))
        try await store.insert(object)
        return object
    }

    /// Writes `record` over `stored` if nobody changed it since it was read (or, `isNew`, as a new
    /// object), with `events` in the same write; wakes the deliverer when they have deliveries.
    /// - Throws: ``GatewayFailure`` `lock_timeout` (a conflict) when another request moved it first.
    package func save(
        _ record: some Encodable, over stored: StoredObject, customer: String?? = nil, attentionAt: Int64?? = nil,
        isNew: Bool = false, events: [StoredEvent] = []
    ) async throws -> StoredObject {
        var updated = stored
        updated.body = Array(try Self.encoder.encode(record))
        if let customer { updated.customer = customer }
        if let attentionAt { updated.attentionAt = attentionAt }
        let written = events.isEmpty && !isNew ? try await store.update(updated) : try await store.write(updated, isNew: isNew, events: events)
        guard written else {
            throw GatewayFailure.changedMeanwhile
        }
        if events.contains(where: { !$0.deliveries.isEmpty }) { webhookWakeup.signal() }
        if !isNew { updated.version += 1 }
        return updated
    }

    /// An id derived from an idempotency key (and when it was claimed, so a key reused after
    /// its 24 hours makes a new object), keyed by the server's secret.
    package func derivedID(_ prefix: String, from scope: Idempotency) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(prefix) \(scope.merchant) \(scope.created) \(scope.key)".utf8), using: SymmetricKey(data: secrets.idKeyBytes))
        let bytes = Array(mac)
        return GatewayIDs.make(prefix, random: { count in Array((bytes + bytes).prefix(count)) })
    }

    // MARK: Recovery

    /// At start-up, before serving: every settlement a stopped server left pending is found on
    /// the ledger (by its memo, in the latest transactions of the account it paid) or made now,
    /// so each captured payment is settled exactly once; keys of requests that were running are
    /// marked so their retries finish them.
    package func recover(reader: any LedgerReader) async throws {
        try await store.markInterruptedIdempotencyKeys()
        for stored in try await store.dueObjects(kind: .paymentIntent, now: .max, limit: 10_000) {
            var intent = try records.decode(PaymentIntentRecord.self, stored)
            guard intent.settlement == .pending, let merchant = try await store.merchant(id: stored.merchant),
                  let method = intent.machine.paymentMethodType else { continue }
            let amount = intent.machine.amountReceived
            let paid = settlementFee(intent, amount: amount, method: method) < amount ? try AccountID(merchant.settlementAccount) : feeAccount.accountID
            let found = try await findOnLedger(memo: "tender settlement \(intent.id)", account: paid, reader: reader)
            if let found {
                intent.settlementTransaction = found.hash.hex
            } else {
                intent.settlementTransaction = try await settle(intent, amount: amount, merchant: merchant, beforeServing: true)
            }
            intent.settlement = .settled
            _ = try await save(intent, over: stored, attentionAt: .some(nil))
            logger.notice("gateway settlement recovered", metadata: ["payment.intent.id": "\(intent.id)", "found.on.ledger": "\(found != nil)"])
        }
        for stored in try await store.dueObjects(kind: .refund, now: .max, limit: 10_000) {
            var refund = try records.decode(RefundRecord.self, stored)
            guard refund.status == .pending, let merchant = try await store.merchant(id: stored.merchant) else { continue }
            let account = try AccountID(merchant.settlementAccount)
            if let found = try await findOnLedger(memo: "tender refund \(refund.id)", account: account, reader: reader) {
                refund.ledgerTransaction = found.hash.hex
                refund.status = .succeeded
                _ = try await save(refund, over: stored, attentionAt: .some(nil))
            } else {
                do {
                    refund.ledgerTransaction = try await payBack(refund, merchant: merchant, beforeServing: true)
                    refund.status = .succeeded
                    _ = try await save(refund, over: stored, attentionAt: .some(nil))
                } catch is GatewayFailure {
                    try await failRefund(refund, over: stored, merchant: merchant)
                }
            }
            logger.notice("gateway refund recovered", metadata: ["refund.id": "\(refund.id)", "refund.status": "\(refund.status.rawValue)"])
        }
        for stored in try await store.dueObjects(kind: .capture, now: .max, limit: 10_000) {
            var capture = try records.decode(CaptureRecord.self, stored)
            guard capture.status == .pending, let merchant = try await store.merchant(id: stored.merchant),
                  let intentObject = try await store.object(id: capture.paymentIntent, kind: .paymentIntent, merchant: merchant.id) else { continue }
            let intent = try records.decode(PaymentIntentRecord.self, intentObject)
            let memo = "tender capture \(capture.id)"
            let method = intent.machine.paymentMethodType ?? .card
            let paid = settlementFee(intent, amount: capture.amount, method: method) < capture.amount ? try AccountID(merchant.settlementAccount) : feeAccount.accountID
            if let found = try await findOnLedger(memo: memo, account: paid, reader: reader) {
                capture.ledgerTransaction = found.hash.hex
            } else {
                capture.ledgerTransaction = try await settle(intent, amount: capture.amount, merchant: merchant, memo: memo, beforeServing: true)
            }
            capture.status = .succeeded
            _ = try await save(capture, over: stored, attentionAt: .some(nil))
            logger.notice("gateway capture recovered", metadata: ["capture.id": "\(capture.id)", "payment.intent.id": "\(intent.id)"])
        }
    }

    /// A capture that is not the intent's last: the intent (its captured amount raised) and the
    /// pending capture are written together, then the capture is settled on the ledger under
    /// its own memo and marked succeeded. Returns the intent as it stands after.
    /// - Throws: ``GatewayFailure`` `lock_timeout` when the intent changed meanwhile.
    package func capturePart(_ amount: Int64, of intent: PaymentIntentRecord, over stored: StoredObject, merchant: MerchantRecord, base: String) async throws -> PaymentIntentRecord {
        var capture = CaptureRecord(
            id: GatewayIDs.make("cap", random: random), paymentIntent: intent.id, amount: amount, currency: intent.currency,
            created: now(), status: .pending)
        var updated = stored
        updated.body = Array(try Self.encoder.encode(intent))
        updated.attentionAt = attentionTime(intent)
        let record = StoredObject(
            id: capture.id, merchant: merchant.id, kind: .capture, created: capture.created,
            body: Array(try Self.encoder.encode(capture)), attentionAt: now() + 86_400)
        guard try await store.update(updated, inserting: record) else {
            throw GatewayFailure.changedMeanwhile
        }
        capture.ledgerTransaction = try await settle(intent, amount: amount, merchant: merchant, memo: "tender capture \(capture.id)")
        capture.status = .succeeded
        var storedCapture = record
        storedCapture.version = 0
        _ = try await save(capture, over: storedCapture, attentionAt: .some(nil))
        let json = GatewayObjects.paymentIntent(intent, base: base)
        await emit(intent.machine.status == .succeeded ? .paymentIntentSucceeded : .paymentIntentAmountCapturableUpdated, json, merchant: merchant)
        return intent
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

    // MARK: Refunds

    /// Writes the intent (its refunded amount raised) and the pending refund in one write.
    /// - Throws: ``GatewayFailure`` `lock_timeout` when the intent changed meanwhile.
    package func recordRefund(_ refund: RefundRecord, intent: PaymentIntentRecord, over stored: StoredObject, merchant: MerchantRecord) async throws -> StoredObject {
        var updated = stored
        updated.body = Array(try Self.encoder.encode(intent))
        let record = StoredObject(
            id: refund.id, merchant: merchant.id, kind: .refund, created: refund.created,
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
        if case .settle = action { intent.settlement = .pending }
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
        var events = events
        if let reported { events.append(try await event(reported, json(intent), merchant: merchant)) }
        // A pending settlement is due for the start-up recovery (a running server never picks
        // it up: the request that made it finishes it).
        let saved = try await save(
            intent, over: stored, attentionAt: .some(intent.settlement == .pending ? now + 86_400 : attentionTime(intent)), isNew: isNew, events: events)
        switch action {
        case .settle(let amount):
            intent.settlementTransaction = try await settle(intent, amount: amount, merchant: merchant)
            intent.settlement = .settled
            _ = try await save(intent, over: saved, attentionAt: .some(nil), events: [try await event(.paymentIntentSucceeded, json(intent), merchant: merchant)])
        case .failed(let failure):
            throw GatewayFailure(
                .card, code: GatewayFailure.Code(rawValue: failure.code), message: failure.message, declineCode: failure.declineCode, paymentIntent: intent)
        case .requiresAction, .authorized, .release, .canceled, .none, .askAcquirerLater, .refund:
            break
        }
        return intent
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

    // MARK: Events

    /// An event about `object` with a delivery to each of the merchant's endpoints that wants
    /// it, to be stored with the change it reports.
    package func event(_ type: GatewayEventType, _ object: JSONValue, merchant: MerchantRecord) async throws -> StoredEvent {
        let endpoints = try await store.list(kind: .webhookEndpoint, merchant: merchant.id, ListRequest(limit: 100)).objects
            .map { try records.decode(WebhookEndpointRecord.self, $0) }
            .filter { $0.wants(type.rawValue) }
        let id = GatewayIDs.make("evt", random: random)
        let created = now()
        let event: JSONValue = .object([
            ("id", .string(id)), ("object", "event"), ("api_version", "2024-06-20"), ("created", .number(created)),
            ("data", .object([("object", object)])), ("livemode", false), ("pending_webhooks", .number(Int64(endpoints.count))),
            ("request", .object([("id", .null), ("idempotency_key", .null)])), ("type", .string(type.rawValue)),
        ])
        let deliveries = endpoints.map { endpoint in
            WebhookDelivery(id: GatewayIDs.make("whd", random: random), merchant: merchant.id, event: id, endpoint: endpoint.id, nextAttemptAt: created)
        }
        return StoredEvent(object: StoredObject(id: id, merchant: merchant.id, kind: .event, created: created, body: event.compactBytes()), deliveries: deliveries)
    }

    /// Stores an event about a change already stored, and wakes the deliverer. An event that
    /// cannot be stored is logged, never turned into a failure of the payment it reports (that
    /// is already done).
    package func emit(_ type: GatewayEventType, _ object: JSONValue, merchant: MerchantRecord) async {
        do {
            let event = try await event(type, object, merchant: merchant)
            try await store.insertEvent(event.object, deliveries: event.deliveries)
            if !event.deliveries.isEmpty { webhookWakeup.signal() }
        } catch {
            logger.error("gateway event not stored", metadata: ["event.type": "\(type.rawValue)", "merchant.id": "\(merchant.id)", "error": "\(error)"])
        }
    }

    // MARK: Settlement

    /// Pays a captured amount to the merchant's settlement account from the anchor's issuer of
    /// its currency, less the fee, which goes to the fee account: one ledger transaction, with a
    /// memo naming the intent so that the settlement can be found again. Returns once its
    /// ledger has committed.
    package func settle(_ intent: PaymentIntentRecord, amount: Int64, merchant: MerchantRecord, memo memoText: String? = nil, beforeServing: Bool = false) async throws -> String {
        guard let currency = GatewayCurrency.named(intent.currency), let anchorCurrency = anchor.currency(code: currency.assetCode),
              let desk = issuerDesks[anchorCurrency.code], let method = intent.machine.paymentMethodType else {
            throw GatewayError(code: "settlement_impossible", message: "intent \(intent.id) cannot be settled in \(intent.currency)")
        }
        let fee = settlementFee(intent, amount: amount, method: method)
        let merchantAccount = try AccountID(merchant.settlementAccount)
        var operations: [StellarBase.Operation] = []
        for (destination, minor) in [(merchantAccount, amount - fee), (feeAccount.accountID, fee)] where minor > 0 {
            operations.append(StellarBase.Operation(.payment(PaymentOperation(
                destination: .ed25519(destination), asset: anchorCurrency.asset,
                amount: try FiatConversion.stroops(minorUnits: minor, exponent: currency.exponent)))))
        }
        let memo = Memo.hash(Bytes32(Array(SHA256.hash(data: Array((memoText ?? "tender settlement \(intent.id)").utf8)))))
        let result: SubmissionResult
        if beforeServing {
            result = try await applyBeforeServing(operations, from: anchorCurrency.keyPair, memo: memo)
        } else {
            result = try await desk.submit(operations, memo: memo)
        }
        guard case .applied(let stored) = result, stored.result.isSuccess else {
            throw GatewayError(code: "settlement_failed", message: "the settlement of \(intent.id) failed: \(result.result.code.name)")
        }
        logger.info("gateway payment settled", metadata: ["payment.intent.id": "\(intent.id)", "payment.amount": "\(amount)", "payment.fee": "\(fee)", "ledger.sequence": "\(stored.ledger)"])
        return stored.hash.hex
    }

    /// The fee taken when `amount` of `intent` settles: none for a marketplace order's payment
    /// (taken when its escrow releases it), else the schedule's.
    package func settlementFee(_ intent: PaymentIntentRecord, amount: Int64, method: PaymentMethodType) -> Int64 {
        intent.feeAtRelease == true ? 0 : fees.fee(on: amount, method: method)
    }

    /// Pays `amount` of a refund back from the merchant's settlement account to the issuer of
    /// its currency (which takes the money out of circulation, as the card network's refund
    /// leaves the merchant's balance). Returns once its ledger has committed.
    /// - Throws: ``GatewayFailure`` `balance_insufficient` when the settlement account cannot
    ///   cover it (nothing moved).
    package func payBack(_ refund: RefundRecord, merchant: MerchantRecord, beforeServing: Bool = false) async throws -> String {
        guard let currency = GatewayCurrency.named(refund.currency), let anchorCurrency = anchor.currency(code: currency.assetCode) else {
            throw GatewayError(code: "refund_impossible", message: "refund \(refund.id) cannot be paid in \(refund.currency)")
        }
        let stored = try await payFromSettlement(
            refund.amount, of: currency, to: anchorCurrency.keyPair.accountID, memo: "tender refund \(refund.id)", merchant: merchant,
            parameter: "amount", beforeServing: beforeServing)
        logger.info("gateway refund paid", metadata: ["refund.id": "\(refund.id)", "payment.intent.id": "\(refund.paymentIntent)", "ledger.sequence": "\(stored.ledger)"])
        return stored.hash.hex
    }

    /// Pays `amount` minor units of `currency` from the merchant's settlement account to
    /// `destination`, with a memo hash of `memo`, and returns once its ledger has committed.
    /// - Throws: ``GatewayFailure``: `balance_insufficient` when the account cannot cover it,
    ///   `payout_destination_invalid` when the destination does not exist or does not trust the
    ///   asset (nothing moved either way).
    package func payFromSettlement(_ amount: Int64, of currency: GatewayCurrency, to destination: AccountID, memo: String, merchant: MerchantRecord, parameter: String, beforeServing: Bool = false) async throws -> StoredTransaction {
        guard let anchorCurrency = anchor.currency(code: currency.assetCode) else {
            throw GatewayError(code: "currency_unsettled", message: "\(currency.code) has no ledger asset")
        }
        let operation = StellarBase.Operation(.payment(PaymentOperation(
            destination: .ed25519(destination), asset: anchorCurrency.asset,
            amount: try FiatConversion.stroops(minorUnits: amount, exponent: currency.exponent))))
        let memoHash = Memo.hash(Bytes32(Array(SHA256.hash(data: Array(memo.utf8)))))
        let result: SubmissionResult
        if beforeServing {
            let account = try KeyPair(seed: try secrets.open(merchant.sealedSettlementSeed))
            result = try await applyBeforeServing([operation], from: account, memo: memoHash)
        } else {
            let desk = try await desks.desk(for: merchant.settlementAccount, sealedSeed: merchant.sealedSettlementSeed)
            result = try await desk.submit([operation], memo: memoHash)
        }
        guard case .applied(let stored) = result, stored.result.isSuccess else {
            let codes = result.result.outcome.operationResults?.map(\.name) ?? [result.result.code.name]
            if codes.contains(where: { ["op_no_destination", "op_no_trust", "op_not_authorized", "op_line_full"].contains($0) }) {
                throw GatewayFailure.invalid("destination", "The destination cannot receive \(anchorCurrency.code) (\(codes.joined(separator: ", "))): it must exist and trust \(anchorCurrency.code):\(anchorCurrency.keyPair.accountID.strKey).", code: .payoutDestinationInvalid)
            }
            throw GatewayFailure.invalid(parameter, "The merchant's balance cannot cover this (\(codes.joined(separator: ", "))).", code: .balanceInsufficient)
        }
        return stored
    }

    /// At start-up, before the writer's loop runs (the recovery): `operations` in one transaction
    /// from `source`, at its next sequence number, closed into a ledger directly, as the test
    /// anchor's genesis transaction is.
    package func applyBeforeServing(_ operations: [StellarBase.Operation], from source: KeyPair, memo: Memo) async throws -> SubmissionResult {
        let (sequence, baseFee) = await writer.read { state in (state.account(source.accountID)?.sequenceNumber ?? 0, state.header.baseFee) }
        var envelope = TransactionEnvelope.v1(Transaction(
            sourceAccount: .ed25519(source.accountID), fee: baseFee * UInt32(operations.count), sequenceNumber: sequence + 1,
            preconditions: .none, memo: memo, operations: operations), signatures: [])
        envelope.sign(with: source, on: writer.configuration.network)
        return try await writer.applyBeforeServing([envelope])[0]
    }

    /// The merchant's settlement balances on the ledger, in minor units per currency.
    package func balances(_ merchant: MerchantRecord) async throws -> [(GatewayCurrency, Int64)] {
        let account = try AccountID(merchant.settlementAccount)
        let assets = GatewayCurrency.supported.compactMap { currency in anchor.currency(code: currency.assetCode).map { (currency, $0.asset) } }
        return await writer.read { state in
            assets.map { currency, asset in
                let stroops = state.trustLine(account, asset)?.balance ?? 0
                // Settlements and refunds move whole minor units, so the division is exact.
                return (currency, stroops / (FiatConversion.stroopsPerUnit / Int64(pow(10, Double(currency.exponent)))))
            }
        }
    }
}

/// How long an intent may wait: for the customer to come back from a redirect (Stripe: an
/// hour here, configurable) and for a manual capture (Stripe: 7 days).
public struct GatewayExpiries: Sendable, Equatable {
    public var redirectSeconds: Int64
    public var authorizationSeconds: Int64

    public init(redirectSeconds: Int64 = 3_600, authorizationSeconds: Int64 = 7 * 24 * 3_600) {
        precondition(redirectSeconds >= 1 && authorizationSeconds >= 1, "an expiry is at least a second")
        self.redirectSeconds = redirectSeconds
        self.authorizationSeconds = authorizationSeconds
    }
}

/// The desks of the accounts the gateway's products pay from (the merchants' settlement
/// accounts, the marketplaces' escrow accounts), each made once with its unsealed seed, so that
/// one account's transactions take consecutive sequence numbers.
package actor LedgerDesks {
    private var desks: [String: LedgerDesk] = [:]
    private let writer: LedgerWriter
    private let secrets: ServerSecrets
    private let maxPending: Int

    package init(writer: LedgerWriter, secrets: ServerSecrets, maxPending: Int) {
        self.writer = writer
        self.secrets = secrets
        self.maxPending = maxPending
    }

    /// The desk of `account`, whose seed `sealedSeed` holds sealed by the server's key.
    package func desk(for account: String, sealedSeed: [UInt8]) throws -> LedgerDesk {
        if let desk = desks[account] { return desk }
        let desk = LedgerDesk(writer: writer, keyPair: try KeyPair(seed: try secrets.open(sealedSeed)), maxPending: maxPending)
        desks[account] = desk
        return desk
    }
}
