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
        let id = newID("acct", length: 16)
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

    /// Records as stored: keys in their declaration order (the synthesized encoders' order,
    /// the same every time), not sorted, which would cost a sort of every object's keys on
    /// every write.
    package static let encoder = JSONEncoder()

    /// The merchant's record `id` of its type's kind, as read.
    /// - Throws: ``GatewayFailure`` `resource_missing` (naming `parameter`) when there is none.
    package func load<Record: StoredRecord>(_ type: Record.Type, id: RecordID<Record>, merchant: MerchantRecord, parameter: String = "id") async throws -> (Record, StoredObject) {
        guard id.rawValue.utf8.count <= 255, let stored = try await store.object(id: id.rawValue, kind: Record.kind, merchant: merchant.id) else {
            throw GatewayFailure.notFound(Record.kind.rawValue, id.rawValue, parameter: parameter)
        }
        return (try records.decode(Record.self, stored), stored)
    }

    /// Stores a new object; returns it as stored (version 0), for an update that follows.
    @discardableResult
    package func insert<Record: StoredRecord>(_ record: Record, id: RecordID<Record>, merchant: MerchantRecord, customer: String? = nil) async throws -> StoredObject {
        let object = StoredObject(id: id.rawValue, merchant: merchant.id, kind: Record.kind, customer: customer, created: now(), body: Array(try Self.encoder.encode(record)))
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

    /// A new object's id, made now (its first characters tell when, see ``GatewayIDs/make(_:random:at:length:)``).
    package func newID(_ prefix: String, length: Int = 24) -> String {
        GatewayIDs.make(prefix, random: random, at: now(), length: length)
    }

    /// An id derived from an idempotency key (and when it was claimed, so a key reused after
    /// its 24 hours makes a new object), keyed by the server's secret.
    package func derivedID(_ prefix: String, from scope: Idempotency) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(prefix) \(scope.merchant) \(scope.created) \(scope.key)".utf8), using: SymmetricKey(data: secrets.idKeyBytes))
        let bytes = Array(mac)
        return GatewayIDs.make(prefix, random: { count in Array((bytes + bytes).prefix(count)) }, at: scope.created)
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
