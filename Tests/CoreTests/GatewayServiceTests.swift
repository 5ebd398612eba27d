import Foundation
import Gateway
import GatewayCore
import Ledger
import LedgerService
import Logging
import StellarBase
import Store
import TenderTesting
import Testing

/// The gateway's core on a real ledger writer and store, without HTTP: what the routes, the
/// pages, Paylike's protocol and the checkout call.
struct CoreWorld {
    let gateway: GatewayService
    let writer: LedgerWriter
    let merchant: MerchantRecord
    /// The committed ledgers, as Horizon reads them.
    let reader: any LedgerReader

    static let base = "http://127.0.0.1:8000"

    /// A gateway on a fresh ledger (the test anchor installed) and one merchant; `body` runs
    /// while the writer's loop does.
    static func with(_ body: @Sendable (CoreWorld) async throws -> Void) async throws {
        let directory = TemporaryDirectory("gateway-core")
        let network = Network.standalone
        let store = try SQLiteLedgerStore(path: directory.file("ledger.sqlite"))
        let writer = try await LedgerWriter(
            store: store, configuration: .init(network: network, closeInterval: .zero),
            logger: Logger(label: "test"), now: { 1_800_000_000 })
        let anchor = TestAnchor(seed: "core tests", homeDomain: "localhost")
        let feeAccount = GatewayService.feeAccount(anchorSeed: "core tests")
        let secrets = ServerSecrets(master: Array(repeating: 7, count: 32))
        let random = LockedRandom(SplitMix64(seed: 42))
        // Before the writer's loop runs, as a server does at start-up.
        try await anchor.install(on: writer, trusting: [feeAccount])
        try await writer.running {
            let gateway = GatewayService(
                store: try SQLiteGatewayStore(path: directory.file("gateway.sqlite")), writer: writer, anchor: anchor, secrets: secrets,
                fees: FeeSchedule(), expiries: GatewayExpiries(),
                rootDesk: LedgerDesk(writer: writer, keyPair: LedgerState.rootKeyPair(network: network), maxPending: 100),
                issuerDesks: Dictionary(uniqueKeysWithValues: anchor.currencies.map { ($0.code, LedgerDesk(writer: writer, keyPair: $0.keyPair, maxPending: 100)) }),
                feeAccount: feeAccount, desks: LedgerDesks(writer: writer, secrets: secrets, maxPending: 100), webhookWakeup: WakeupSignal(),
                now: { 1_800_000_000 }, random: { random.bytes($0) }, logger: Logger(label: "test"))
            let merchant = try await gateway.createMerchant(name: "Core").record
            try await body(CoreWorld(gateway: gateway, writer: writer, merchant: merchant, reader: store))
        }
    }

    func card(_ number: String) async throws -> PaymentMethodID {
        try await gateway.createPaymentMethod(NewPaymentMethod(type: .card, card: CardDetails(number: number, expMonth: "12", expYear: "2040", cvc: "123")), merchant: merchant).id
    }

    /// Every balance transaction of `merchant`, newest first, through the core's pages.
    func balanceTransactions(of merchant: MerchantRecord) async throws -> [BalanceTransactionRecord] {
        var all: [BalanceTransactionRecord] = []
        var page = ListRequest(limit: 3)
        while true {
            let (records, hasMore) = try await gateway.balanceTransactions(merchant: merchant, page: page, type: nil, source: nil)
            all += records
            guard hasMore, let last = records.last else { return all }
            page.startingAfter = last.id.rawValue
        }
    }

    /// The merchant's euros on the ledger.
    func euros() async throws -> Int64 {
        try await euros(of: merchant.settlementAccount)
    }

    /// An account's euros on the ledger, in cents.
    func euros(of account: String) async throws -> Int64 {
        let asset = gateway.anchor.currency(code: "EUR")!.asset
        let id = try AccountID(account)
        let stroops = await writer.read { $0.trustLine(id, asset)?.balance ?? 0 }
        return stroops / 100_000
    }
}

/// A deterministic random source behind a lock, for the core's ids.
final class LockedRandom: @unchecked Sendable {
    private let lock = NSLock()
    private var source: SplitMix64
    init(_ source: SplitMix64) { self.source = source }
    func bytes(_ count: Int) -> [UInt8] {
        lock.withLock { (0..<count).map { _ in UInt8(truncatingIfNeeded: source.next()) } }
    }
}

@Suite("The gateway's core, without HTTP")
struct GatewayServiceTests {
    /// An intent's life: made, confirmed by a card, settled on the ledger less the fee, refunded
    /// in part, each step a typed record.
    @Test func anIntentsLife() async throws {
        try await CoreWorld.with { world in
            let gateway = world.gateway
            let new = NewPaymentIntent(amount: 10_000, currency: GatewayCurrency.named("eur")!, paymentMethod: try await world.card("4242424242424242"))
            let made = try await gateway.createPaymentIntent(new, merchant: world.merchant, idempotency: nil, base: CoreWorld.base)
            #expect(made.machine.status == .requiresConfirmation && made.machine.amount == 10_000)
            let paid = try await gateway.confirmPaymentIntent(made.id, IntentConfirmation(), merchant: world.merchant, key: .secret, base: CoreWorld.base)
            #expect(paid.machine.status == .succeeded && paid.settlement == .settled && paid.settlementTransaction != nil)
            // 1.5% + 0.25 of 100.00 is 1.75.
            #expect(try await world.euros() == 10_000 - 175)
            let refund = try await gateway.createRefund(NewRefund(paymentIntent: made.id, amount: 2_500), merchant: world.merchant, idempotency: nil)
            #expect(refund.status == .succeeded && refund.amount == 2_500)
            #expect(try await world.euros() == 10_000 - 175 - 2_500)
            let after = try await gateway.retrieve(PaymentIntentRecord.self, id: made.id, merchant: world.merchant)
            #expect(after.machine.amountRefunded == 2_500)
            // Refunding more than is left is refused in the core's terms, and nothing moves.
            do {
                _ = try await gateway.createRefund(NewRefund(paymentIntent: made.id, amount: 7_501), merchant: world.merchant, idempotency: nil)
                Issue.record("refunded more than was paid")
            } catch let error as GatewayFailure {
                #expect(error.category == .invalidRequest && error.code == .amountTooLarge && error.parameter == "amount")
            }
            #expect(try await world.euros() == 10_000 - 175 - 2_500)
        }
    }

    /// Each failure the core throws is a GatewayFailure with its category and code: a rule
    /// (the pure rules' codes), a missing object, a decline (with the intent, stored declined).
    @Test func failuresAreTyped() async throws {
        try await CoreWorld.with { world in
            let gateway = world.gateway
            let eur = GatewayCurrency.named("eur")!, usd = GatewayCurrency.named("usd")!
            let cases: [(NewPaymentIntent, GatewayFailure.Category, GatewayFailure.Code, String)] = [
                (NewPaymentIntent(amount: 49, currency: eur), .invalidRequest, .amountTooSmall, "amount"),
                (NewPaymentIntent(amount: 100_000_000, currency: eur), .invalidRequest, .amountTooLarge, "amount"),
                (NewPaymentIntent(amount: 1_000, currency: usd, paymentMethodTypes: [.ideal]), .invalidRequest, .invalidCurrency, "currency"),
                (NewPaymentIntent(amount: 1_000, currency: eur, paymentMethodTypes: [.ideal], captureMethod: .manual), .invalidRequest, .parameterInvalid, "capture_method"),
                (NewPaymentIntent(amount: 1_000, currency: eur, paymentMethod: PaymentMethodID("pm_nothere")), .notFound, .resourceMissing, "payment_method"),
            ]
            for (new, category, code, parameter) in cases {
                do {
                    _ = try await gateway.createPaymentIntent(new, merchant: world.merchant, idempotency: nil, base: CoreWorld.base)
                    Issue.record("\(code) not refused")
                } catch let error as GatewayFailure {
                    #expect(error.category == category && error.code == code && error.parameter == parameter, "\(error)")
                }
            }
            let declined = NewPaymentIntent(amount: 1_000, currency: eur, paymentMethod: try await world.card("4000000000009995"), confirm: true)
            do {
                _ = try await gateway.createPaymentIntent(declined, merchant: world.merchant, idempotency: nil, base: CoreWorld.base)
                Issue.record("a declining card paid")
            } catch let error as GatewayFailure {
                #expect(error.category == .card && error.code?.rawValue == "card_declined" && error.declineCode == "insufficient_funds")
                let intent = try #require(error.paymentIntent)
                #expect(intent.machine.status == .requiresPaymentMethod)
                let stored = try await gateway.retrieve(PaymentIntentRecord.self, id: intent.id, merchant: world.merchant)
                #expect(stored.machine.status == .requiresPaymentMethod, "the declined intent exists")
            }
            #expect(try await world.euros() == 0, "nothing settled")
        }
    }

    /// Under an idempotency key the intent's id comes from the key: a request the server stopped
    /// in the middle of finds the intent it made (and confirms it, once) instead of making
    /// another; replays of the answer come from the claim.
    @Test func idempotencyReplays() async throws {
        try await CoreWorld.with { world in
            let gateway = world.gateway
            let new = NewPaymentIntent(amount: 2_000, currency: GatewayCurrency.named("eur")!, paymentMethod: try await world.card("4242424242424242"), confirm: true)
            guard case .run(let first) = try await gateway.claimIdempotencyKey("order-1", merchant: world.merchant, requestHash: [1]) else {
                Issue.record("a new key is not run"); return
            }
            let made = try await gateway.createPaymentIntent(new, merchant: world.merchant, idempotency: first, base: CoreWorld.base)
            #expect(made.machine.status == .succeeded)
            // The same request, resumed after a stop (its answer never recorded): the same intent.
            let resumed = Idempotency(merchant: first.merchant, key: first.key, created: first.created, resumed: true)
            let again = try await gateway.createPaymentIntent(new, merchant: world.merchant, idempotency: resumed, base: CoreWorld.base)
            #expect(again.id == made.id && again.machine.status == .succeeded)
            #expect(try await world.euros() == 2_000 - 55, "settled once: 1.5% + 0.25 of 20.00 is 0.55")
            try await gateway.recordIdempotentAnswer(first, status: 200, body: Array("{}".utf8))
            guard case .replay(let status, let body) = try await gateway.claimIdempotencyKey("order-1", merchant: world.merchant, requestHash: [1]) else {
                Issue.record("an answered key is not replayed"); return
            }
            #expect(status == 200 && body == Array("{}".utf8))
            // The same key with other parameters, or a malformed one: idempotency failures.
            for (key, hash): (String, [UInt8]) in [("order-1", [2]), ("", [1]), (String(repeating: "k", count: 256), [1])] {
                do {
                    _ = try await gateway.claimIdempotencyKey(key, merchant: world.merchant, requestHash: hash)
                    Issue.record("claimed \(key.prefix(10))")
                } catch let error as GatewayFailure {
                    #expect(error.category == .idempotency)
                }
            }
        }
    }
}

@Suite("Webhook endpoints in the gateway's core")
struct WebhookEndpointCoreTests {
    /// A disabled endpoint is sent nothing; enabled again, it is; its events and URL can change
    /// and are checked as at creation.
    @Test func disabledEndpointsGetNoDeliveries() async throws {
        try await CoreWorld.with { world in
            let gateway = world.gateway
            let made = try await gateway.createWebhookEndpoint(url: "https://shop.example/hook", events: ["*"], description: "the shop", merchant: world.merchant)
            #expect(made.endpoint.description == "the shop" && made.secret.hasPrefix("whsec_"))
            func deliveries() async throws -> Int {
                try await gateway.event(.paymentIntentCreated, .object([]), merchant: world.merchant).deliveries.count
            }
            #expect(try await deliveries() == 1)
            let disabled = try await gateway.updateWebhookEndpoint(made.endpoint.id, url: nil, events: nil, disabled: true, description: nil, merchant: world.merchant)
            #expect(disabled.disabled == true)
            #expect(try await deliveries() == 0, "a disabled endpoint is sent nothing")
            _ = try await gateway.updateWebhookEndpoint(made.endpoint.id, url: nil, events: ["charge.refunded"], disabled: false, description: nil, merchant: world.merchant)
            #expect(try await deliveries() == 0, "enabled, but not for this type")
            _ = try await gateway.updateWebhookEndpoint(made.endpoint.id, url: nil, events: ["payment_intent.created"], disabled: nil, description: nil, merchant: world.merchant)
            #expect(try await deliveries() == 1)
            for (url, events) in [("ftp://x", nil), (nil, ["nope"]), (nil, [String]())] as [(String?, [String]?)] {
                do {
                    _ = try await gateway.updateWebhookEndpoint(made.endpoint.id, url: url, events: events, disabled: nil, description: nil, merchant: world.merchant)
                    Issue.record("\(String(describing: url)) \(String(describing: events)) taken")
                } catch let error as GatewayFailure {
                    #expect(error.category == .invalidRequest)
                }
            }
            do {
                _ = try await gateway.updateWebhookEndpoint(WebhookEndpointID("we_nothere"), url: nil, events: nil, disabled: true, description: nil, merchant: world.merchant)
                Issue.record("an unknown endpoint was changed")
            } catch let error as GatewayFailure {
                #expect(error.category == .notFound)
            }
        }
    }
}
