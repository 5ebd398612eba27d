import Foundation
import Hummingbird
import HummingbirdTesting
import Ledger
import StellarBase
import Store
import TenderServer
import TenderTesting
import Testing

/// What operators see: `/metrics` in Prometheus' text format and `/health`.
extension HorizonRoutesTests {
    /// Prometheus' text format: `name{labels} value` lines, comments skipped. Every sample line
    /// must parse.
    func samples(_ text: String) -> [(name: String, labels: [String: String], value: Double)]? {
        var samples: [(String, [String: String], Double)] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Double(parts[1]) else { return nil }
            var name = String(parts[0])
            var labels: [String: String] = [:]
            if let open = name.firstIndex(of: "{") {
                guard name.hasSuffix("}") else { return nil }
                for pair in name[name.index(after: open)..<name.index(before: name.endIndex)].split(separator: ",") {
                    let keyValue = pair.split(separator: "=", maxSplits: 1)
                    guard keyValue.count == 2, keyValue[1].hasPrefix("\""), keyValue[1].hasSuffix("\"") else { return nil }
                    labels[String(keyValue[0])] = String(keyValue[1].dropFirst().dropLast())
                }
                name = String(name[..<open])
            }
            samples.append((name, labels, value))
        }
        return samples
    }

    @Test func metricsAreScrapedInPrometheusFormatAndHealthAnswers() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            _ = try await get(client, "/friendbot?addr=\(alice.accountID.strKey)")
            _ = try await get(client, "/friendbot?addr=\(bob.accountID.strKey)")
            _ = try await pay(client, from: alice, to: bob, .native, Amount.stroopsPerUnit)
            _ = try await pay(client, from: alice, to: bob, .native, 1_000_000 * Amount.stroopsPerUnit)
            _ = try await get(client, "/ledgers?cursor=x")
            _ = try await get(client, "/no/such/route")

            let (healthStatus, healthBody, _) = try await get(client, "/health")
            #expect(healthStatus == .ok)
            #expect(try json(healthBody)["status"] as? String == "ok")

            let (status, body, headers) = try await get(client, "/metrics")
            #expect(status == .ok)
            #expect(headers[.contentType]?.hasPrefix("text/plain") == true)
            let parsed = try #require(samples(String(buffer: body)), "every line of /metrics parses")
            func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
                parsed.first { sample in sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value } }?.value
            }
            #expect(value("tender_http_requests_total", ["route": "/transactions", "method": "POST", "status": "200"]) == 1)
            #expect(value("tender_http_requests_total", ["route": "/transactions", "method": "POST", "status": "400"]) == 1)
            #expect(value("tender_http_requests_total", ["route": "/ledgers", "status": "400"]) == 1)
            #expect(value("tender_http_requests_total", ["route": "NotFound", "status": "404"]) == 1)
            #expect(value("tender_http_request_duration_seconds_count", ["route": "/friendbot", "method": "GET", "status": "200"]) == 2)
            // Two friendbot fundings, a payment and a failed one (its fee taken) were applied.
            #expect((value("tender_transactions_applied_total") ?? 0) >= 4)
            #expect(value("tender_transactions_failed_total") == 1)
            #expect((value("tender_ledgers_closed_total") ?? 0) >= 3)
            #expect((value("tender_ledger_close_seconds_count") ?? 0) >= 3)
            #expect((value("tender_store_commit_seconds_count") ?? 0) >= 3)
            #expect(value("tender_writer_queue_depth") == 0)
            #expect(value("tender_streams_open") == 0)
            #expect(value("tender_ledger_sequence").map { UInt32($0) } != nil)
        }
    }

    @Test func healthIs503OnceTheWriterHasStopped() async throws {
        let configuration = configuration()
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        let store = BreakableStore(try SQLiteLedgerStore(path: configuration.databasePath))
        let app = try await buildApplication(configuration, store: store)
        try await app.test(.router) { client in
            #expect(try await get(client, "/health").0 == .ok)
            store.breakCommits()
            // The commit of this funding fails: the writer stops for good (fail-stop), the
            // request is a 500 problem, and the probe says so.
            let (status, body, _) = try await get(client, "/friendbot?addr=\(alice.accountID.strKey)")
            #expect(status == .internalServerError)
            #expect(try json(body)["type"] as? String == "https://stellar.org/horizon-errors/server_error")
            let (health, healthBody, _) = try await get(client, "/health")
            #expect(health == .serviceUnavailable)
            #expect((try json(healthBody)["problems"] as? [String])?.contains("the ledger writer is not running") == true)
        }
    }
}

extension HorizonRoutesTests {
    @Test func aFullFundingQueueIs503() async throws {
        var configuration = configuration()
        configuration.fundingQueueLimit = 0
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let (status, body, _) = try await get(client, "/friendbot?addr=\(alice.accountID.strKey)")
            #expect(status == .serviceUnavailable)
            let problem = try json(body)
            #expect(problem["type"] as? String == "https://stellar.org/horizon-errors/service_unavailable")
            #expect((problem["detail"] as? String)?.contains("0 fundings are already waiting") == true)
            #expect(try await get(client, "/accounts/\(alice.accountID.strKey)").0 == .notFound)
        }
    }
}

/// A SQLite store whose commits fail once it is broken.
final class BreakableStore: LedgerStore, LedgerReader, @unchecked Sendable {
    struct Broken: Error {}
    let store: SQLiteLedgerStore
    private let lock = NSLock()
    private var broken = false

    init(_ store: SQLiteLedgerStore) { self.store = store }
    func breakCommits() { lock.withLock { broken = true } }

    func loadState() async throws -> LedgerState? { try await store.loadState() }
    func commit(_ ledger: ClosedLedger) async throws {
        if lock.withLock({ broken }) { throw Broken() }
        try await store.commit(ledger)
    }
    func account(_ id: AccountID) async throws -> AccountRecord? { try await store.account(id) }
    func accountExists(_ id: AccountID) async throws -> Bool { try await store.accountExists(id) }
    func ledgers(_ page: PageRequest) async throws -> [LedgerRecord] { try await store.ledgers(page) }
    func ledger(_ sequence: UInt32) async throws -> LedgerRecord? { try await store.ledger(sequence) }
    func latestLedgerSequence() async throws -> UInt32? { try await store.latestLedgerSequence() }
    func transactions(_ page: PageRequest, filter: TransactionFilter) async throws -> [StoredTransaction] {
        try await store.transactions(page, filter: filter)
    }
    func transaction(hash: Bytes32) async throws -> StoredTransaction? { try await store.transaction(hash: hash) }
    func operations(_ page: PageRequest, filter: OperationFilter) async throws -> [OperationRecord] { try await store.operations(page, filter: filter) }
    func operation(_ id: Int64) async throws -> OperationRecord? { try await store.operation(id) }
    func offers(_ page: PageRequest, seller: AccountID?, selling: Asset?, buying: Asset?, sponsor: AccountID?) async throws -> [LedgerOffer] {
        try await store.offers(page, seller: seller, selling: selling, buying: buying, sponsor: sponsor)
    }
    func offer(_ id: Int64) async throws -> LedgerOffer? { try await store.offer(id) }
    func assets(_ page: KeyedPage<AssetCursor>, code: String?, issuer: AccountID?) async throws -> [AssetStats] {
        try await store.assets(page, code: code, issuer: issuer)
    }
    func accounts(holding asset: Asset, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        try await store.accounts(holding: asset, page)
    }
    func accounts(signedBy signer: AccountID, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        try await store.accounts(signedBy: signer, page)
    }
    func accounts(sponsoredBy sponsor: AccountID, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] {
        try await store.accounts(sponsoredBy: sponsor, page)
    }
    func liquidityPools(_ page: KeyedPage<Bytes32>, filter: LiquidityPoolFilter) async throws -> [LiquidityPoolEntry] {
        try await store.liquidityPools(page, filter: filter)
    }
    func liquidityPool(_ id: Bytes32) async throws -> LiquidityPoolEntry? { try await store.liquidityPool(id) }
    func accounts(inPool pool: Bytes32, _ page: KeyedPage<AccountID>) async throws -> [AccountRecord] { try await store.accounts(inPool: pool, page) }
    func transactions(_ page: PageRequest, liquidityPool: Bytes32) async throws -> [StoredTransaction] {
        try await store.transactions(page, liquidityPool: liquidityPool)
    }
    func recentFees(ledgers: Int) async throws -> (charged: [Int64], offered: [Int64]) { try await store.recentFees(ledgers: ledgers) }
    func storedEffects(_ page: KeyedPage<EffectCursor>, filter: EffectFilter) async throws -> [EffectRecord] { try await store.storedEffects(page, filter: filter) }
    func trades(_ page: KeyedPage<EffectCursor>, filter: TradeFilter) async throws -> [TradeRecord] { try await store.trades(page, filter: filter) }
    func claimableBalances(_ page: KeyedPage<ClaimableBalanceCursor>, filter: ClaimableBalanceFilter) async throws -> [ClaimableBalanceEntry] {
        try await store.claimableBalances(page, filter: filter)
    }
    func claimableBalance(_ id: ClaimableBalanceID) async throws -> ClaimableBalanceEntry? { try await store.claimableBalance(id) }
    func transactions(_ page: PageRequest, claimableBalance: ClaimableBalanceID) async throws -> [StoredTransaction] {
        try await store.transactions(page, claimableBalance: claimableBalance)
    }
}
