import TenderJSON
import Foundation
import Gateway
import Hummingbird
import Ledger
import LedgerService
import Logging
import ServiceLifecycle
import StellarBase
import PostgresStore
import Store

/// The version Tender reports at `GET /`.
public let tenderVersion = "0.1.0"

/// Builds the HTTP application that `tender serve` runs and that the tests start: opens (or
/// creates at genesis) the ledger under the data directory, creates the test anchor's issuers
/// if they are missing, runs the writer as a service, and serves Horizon's API, friendbot and
/// the anchor's stellar.toml.
/// - Throws: when the data directory or the ledger database cannot be opened, or the test
///   anchor cannot be set up.
public func buildApplication(
    _ configuration: TenderConfiguration,
    logger: Logger = Logger(label: "tender"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
    if let url = configuration.database {
        // Everything in PostgreSQL (one node: the server's lock refuses a second). The data
        // directory keeps the server's key and the admin key.
        let database = try PostgresDatabase(url: url, logger: logger)
        do {
            let lock = try await database.lockForServer(url: url)
            let store = try await PostgresLedgerStore(database)
            let gatewayStore = try await PostgresGatewayStore(database)
            return try await buildApplication(
                configuration, store: store, gatewayStore: gatewayStore, logger: logger, onServerRunning: onServerRunning,
                closing: [DatabaseCloser { await lock.release(); database.shutdown() }])
        } catch {
            database.shutdown()
            throw error
        }
    }
    let store = try SQLiteLedgerStore(path: configuration.databasePath)
    return try await buildApplication(configuration, store: store, logger: logger, onServerRunning: onServerRunning)
}

/// Closes the database after every other service has stopped (the service group stops its
/// services in reverse order, and this one comes first), so the writer's last commit is in.
struct DatabaseCloser: Service {
    let close: @Sendable () async -> Void

    func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}

/// ``buildApplication(_:logger:onServerRunning:)`` on a store of the caller's (a test's store
/// that fails on purpose, say): the routes and the writer know only its protocols.
/// - Throws: when the ledger cannot be opened or the test anchor cannot be set up.
public func buildApplication(
    _ configuration: TenderConfiguration,
    store: any LedgerStore & LedgerReader,
    gatewayStore: (any GatewayStore)? = nil,
    clock: any Clock<Duration> = ContinuousClock(),
    logger: Logger = Logger(label: "tender"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
    closing: [any Service] = []
) async throws -> some ApplicationProtocol {
    let metrics = ServerMetrics()
    let writer = try await LedgerWriter(
        store: store,
        configuration: .init(network: configuration.network, closeInterval: configuration.closeInterval, batchLimit: configuration.batchLimit),
        logger: logger, metrics: metrics.writer, clock: clock, now: { UInt64(Date().timeIntervalSince1970) })
    let anchor = configuration.testAnchor
    let feeAccount = GatewayService.feeAccount(anchorSeed: configuration.anchorSeed)
    // One transaction at genesis, so the root account's sequence number moves once.
    try await anchor.install(on: writer, trusting: [feeAccount])

    let router = Router()
    let accountCache = AccountCache(commits: writer.commits)
    let horizon = HorizonRoutes(reader: store, writer: writer, configuration: configuration, logger: logger, accountCache: accountCache, metrics: metrics,
        pathFinding: configuration.maxPathFindingRequests > 0
            ? PathFindingLimiter(rate: configuration.maxPathFindingRequests, maxWait: configuration.pathFindingMaxWait, clock: ContinuousClock())
            : nil)
    router.add(middleware: MetricsMiddleware<BasicRequestContext>(metrics: metrics))
    router.add(middleware: ProblemMiddleware(logger: logger))
    router.add(middleware: CORSMiddleware(
        allowOrigin: .all, allowHeaders: [.accept, .contentType, .origin, .init("X-Client-Name")!, .init("X-Client-Version")!],
        allowMethods: [.get, .post, .head, .options], exposedHeaders: ["Date", "Latest-Ledger"], maxAge: .seconds(3600)))
    router.get("/") { request, _ in
        let header = writer.commits.header
        let resources = horizon.resources(for: request)
        let root: JSONValue = .object([
            ("_links", .object([
                ("account", resources.link("/accounts/{account_id}", templated: true)),
                ("accounts", resources.link("/accounts{?signer,sponsor,asset,liquidity_pool,cursor,limit,order}", templated: true)),
                ("fee_stats", resources.link("/fee_stats")),
                ("friendbot", resources.link("/friendbot{?addr}", templated: true)),
                ("ledger", resources.link("/ledgers/{sequence}", templated: true)),
                ("ledgers", resources.link("/ledgers{?cursor,limit,order}", templated: true)),
                ("offer", resources.link("/offers/{offer_id}", templated: true)),
                ("offers", resources.link("/offers/{?selling,buying,seller,cursor,limit,order}", templated: true)),
                ("operation", resources.link("/operations/{id}", templated: true)),
                ("operations", resources.link("/operations{?cursor,limit,order,include_failed}", templated: true)),
                ("order_book", resources.link("/order_book{?selling_asset_type,selling_asset_code,selling_asset_issuer,buying_asset_type,buying_asset_code,buying_asset_issuer,limit}", templated: true)),
                ("payments", resources.link("/payments{?cursor,limit,order,include_failed}", templated: true)),
                ("self", resources.link("/")),
                ("strict_receive_paths", resources.link("/paths/strict-receive{?source_assets,source_account,destination_account,destination_asset_type,destination_asset_issuer,destination_asset_code,destination_amount}", templated: true)),
                ("strict_send_paths", resources.link("/paths/strict-send{?destination_account,destination_assets,source_asset_type,source_asset_issuer,source_asset_code,source_amount}", templated: true)),
                ("transaction", resources.link("/transactions/{hash}", templated: true)),
                ("transactions", resources.link("/transactions{?cursor,limit,order}", templated: true)),
            ])),
            ("horizon_version", .string("tender-\(tenderVersion)")),
            ("core_version", .string("tender-\(tenderVersion)")),
            ("ingest_latest_ledger", .number(Int64(header.sequence))),
            ("history_latest_ledger", .number(Int64(header.sequence))),
            ("history_latest_ledger_closed_at", .string(HorizonResources.time(header.closeTime))),
            ("history_elder_ledger", 1),
            ("core_latest_ledger", .number(Int64(header.sequence))),
            ("network_passphrase", .string(configuration.network.passphrase)),
            ("network_id", .string(configuration.network.networkID.hex)),
            ("current_protocol_version", .number(Int64(header.protocolVersion))),
            ("supported_protocol_version", .number(Int64(LedgerHeader.currentProtocolVersion))),
            ("core_supported_protocol_version", .number(Int64(LedgerHeader.currentProtocolVersion))),
            ("name", "Tender"),
            ("version", .string(tenderVersion)),
        ])
        return try horizon.json(root)
    }
    TransactionRoutes(writer: writer, horizon: horizon, timeout: configuration.submissionTimeout).register(on: router)
    horizon.register(on: router)
    let local = LocalNetworkRoutes(horizon: horizon, anchor: anchor)
    local.register(on: router)
    // The server is its store's only writer, so what it has read can be kept in memory.
    let gatewayStore = CachingGatewayStore(try gatewayStore ?? SQLiteGatewayStore(path: configuration.gatewayDatabasePath))
    let secrets = try ServerSecrets.load(directory: configuration.dataDirectory)
    let webhookWakeup = WakeupSignal()
    let gateway = GatewayService(
        store: gatewayStore, writer: writer, anchor: anchor,
        secrets: secrets, fees: configuration.fees, expiries: configuration.expiries,
        rootDesk: local.friendbot, issuerDesks: local.anchorDesks, feeAccount: feeAccount,
        settlementDesks: SettlementDesks(maxPending: configuration.fundingQueueLimit), webhookWakeup: webhookWakeup,
        now: { Int64(Date().timeIntervalSince1970) }, random: GatewayService.systemRandom, logger: logger)
    try await gateway.recover(reader: store)
    let gatewayRoutes = GatewayRoutes(service: gateway, adminKey: try GatewayService.loadAdminKey(directory: configuration.dataDirectory), logger: logger)
    gatewayRoutes.register(on: router)
    PaylikeRoutes(service: gateway, routes: gatewayRoutes, logger: logger).register(on: router)
    PaymentPage(service: gateway, routes: gatewayRoutes).register(on: router)
    let checkout = CheckoutService(gateway: gateway, keys: await CheckoutService.tokenKeys(secrets))
    try await checkout.recover(reader: store)
    let checkoutRoutes = CheckoutRoutes(service: checkout, routes: gatewayRoutes, logger: logger)
    checkoutRoutes.register(on: router)
    ShopPages(routes: checkoutRoutes).register(on: router)
    metrics.register(on: router, commits: writer.commits, reader: store)
    return Application(
        responder: CachedAccountResponder(router: router.buildResponder(), cache: accountCache, metrics: metrics, resources: { horizon.resources(for: $0) }),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Tender"),
        services: closing + [
            LedgerWriterService(writer: writer),
            GatewayJanitor(service: gateway, base: "http://\(configuration.host):\(configuration.port)", clock: clock, interval: .seconds(1), logger: logger),
            CheckoutJanitor(service: checkout, reader: store, refunder: checkoutRoutes.refunder, base: "http://\(configuration.host):\(configuration.port)", clock: clock, interval: .seconds(1), logger: logger),
            WebhookDeliverer(
                store: gatewayStore, secrets: secrets, policy: configuration.webhookRetry, wakeup: webhookWakeup,
                now: { Int64(Date().timeIntervalSince1970) }, clock: clock, send: WebhookDeliverer.urlSessionSend, logger: logger),
        ],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

extension TenderConfiguration {
    /// The test anchor of this configuration's network.
    public var testAnchor: TestAnchor { TestAnchor(seed: anchorSeed, homeDomain: anchorHomeDomain) }
}

/// Runs the ledger writer's loop. On graceful shutdown the writer finishes what is queued and
/// returns (the HTTP server, shut down first, takes no more submissions by then). If a commit
/// fails, `run()` throws: the application's service group stops, `tender serve` exits non-zero,
/// and a supervisor restarts it from the last durable ledger (fail-stop).
struct LedgerWriterService: Service {
    let writer: LedgerWriter

    func run() async throws {
        // High priority: when reads and the ledger both wait for the cooperative pool, the
        // ledger goes first (its timers inherit this).
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(priority: .high) {
                try await withGracefulShutdownHandler {
                    try await writer.run()
                } onGracefulShutdown: {
                    writer.shutDownGracefully()
                }
            }
            try await group.waitForAll()
        }
    }
}
