import TenderJSON
import AnchorCore
import Foundation
import Gateway
import CheckoutCore
import GatewayCore
import Hummingbird
import HummingbirdCore
import Ledger
import LedgerService
import Logging
import NIOCore
import ServiceLifecycle
import StellarBase
import PostgresStore
import Store

/// The version Tender reports at `GET /`.
public let tenderVersion = "0.1.0"

/// What a server reads of the world outside it: the wall-clock time (seconds since 1970, for
/// ledger close times, expiries and the janitors' due dates), random bytes (ids, secrets,
/// nonces) and the clock its timers sleep on (the writer's close interval, the janitors' and the
/// webhook deliverer's passes). `tender serve` runs on ``system``; a test passes its own, moves
/// time by hand and asserts at once instead of waiting.
public struct ServerEnvironment: Sendable {
    public var now: @Sendable () -> Int64
    public var random: @Sendable (Int) -> [UInt8]
    public var clock: any Clock<Duration>

    public init(now: @escaping @Sendable () -> Int64, random: @escaping @Sendable (Int) -> [UInt8], clock: any Clock<Duration>) {
        self.now = now
        self.random = random
        self.clock = clock
    }

    /// The machine's: its clock, its cryptographically secure generator.
    public static let system = ServerEnvironment(
        now: { Int64(Date().timeIntervalSince1970) }, random: GatewayService.systemRandom, clock: ContinuousClock())
}

/// Builds the HTTP application that `tender serve` runs and that the tests start: opens (or
/// creates at genesis) the ledger under the data directory, creates the test anchor's issuers
/// if they are missing, runs the writer as a service, and serves Horizon's API, friendbot and
/// the anchor's stellar.toml. With ``TenderConfiguration/database`` set, the server is a node of
/// a PostgreSQL cluster instead (``ClusterNode``): the leader, or a follower until it leads.
/// - Throws: when the data directory or the ledger database cannot be opened, or the test
///   anchor cannot be set up.
public func buildApplication(
    _ configuration: TenderConfiguration,
    environment: ServerEnvironment = .system,
    logger: Logger = Logger(label: "tender"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
    if let url = configuration.database {
        let node = try await ClusterNode.start(configuration, url: url, environment: environment, logger: logger)
        return application(configuration, responder: node.responder, services: node.services, logger: logger, channelHandlers: node.channelHandlers) { port in
            node.serving(port: port)
            await onServerRunning(port)
        }
    }
    let store = try await SQLiteLedgerStore.opening(
        path: configuration.databasePath, walRestartFrames: configuration.sqliteWALPages, writerCacheMebibytes: configuration.sqliteCacheMebibytes
    ) { pending in
        logger.notice("upgrading the ledger database before serving (on a large network this can take minutes)", metadata: [
            "path": "\(configuration.databasePath)", "migrations": "\(pending.joined(separator: ", "))",
        ])
    }
    let leader = try await LeaderParts.make(configuration, store: store, gatewayStore: nil, environment: environment, logger: logger)
    return application(
        configuration, responder: leader.responder, services: leader.services, logger: logger, channelHandlers: leader.channelHandlers,
        onServerRunning: onServerRunning)
}

/// ``buildApplication(_:environment:logger:onServerRunning:)`` on a store of the caller's (a test's store
/// that fails on purpose, say): the routes and the writer know only its protocols.
/// - Throws: when the ledger cannot be opened or the test anchor cannot be set up.
public func buildApplication(
    _ configuration: TenderConfiguration,
    store: any LedgerStore & LedgerReader,
    gatewayStore: (any GatewayStore)? = nil,
    environment: ServerEnvironment = .system,
    logger: Logger = Logger(label: "tender"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    let leader = try await LeaderParts.make(configuration, store: store, gatewayStore: gatewayStore, environment: environment, logger: logger)
    return application(
        configuration, responder: leader.responder, services: leader.services, logger: logger, channelHandlers: leader.channelHandlers,
        onServerRunning: onServerRunning)
}

/// The one shape of application every server has, whatever answers its requests.
private func application(
    _ configuration: TenderConfiguration, responder: AnyResponder, services: [any Service], logger: Logger,
    channelHandlers: @escaping @Sendable () -> HTTP1ChannelWithEarlyHandlers.Handlers = { .init() },
    onServerRunning: @escaping @Sendable (Int) async -> Void
) -> some ApplicationProtocol {
    Application(
        responder: responder,
        server: HTTPServerBuilder { HTTP1ChannelWithEarlyHandlers(http1: HTTP1Channel(responder: $0), handlers: channelHandlers) },
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: serverName),
        services: services,
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

/// The `Server` header of every answer.
let serverName = "Tender"

/// A responder behind a closure: the leader's router, or a cluster node's choice between its
/// own reads and the leader.
struct AnyResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let respond: @Sendable (Request, BasicRequestContext) async throws -> Response

    init(_ respond: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response) {
        self.respond = respond
    }

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        try await respond(request, context)
    }
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

/// What every server reads from: Horizon's routes on a reader and the commits it follows, the
/// server's root document, metrics and health, with their middleware and the account cache.
struct ReadParts {
    let router: Router<BasicRequestContext>
    let horizon: HorizonRoutes
    let accountCache: AccountCache
    let metrics: ServerMetrics
    /// The writer's accounts, when the reads are of its own store.
    let committedAccounts: CommittedAccounts?

    /// - Parameter writer: the writer of the store `reader` reads, whose memory answers for
    ///   accounts (nil when the reads are of another store: a hot standby lags, and its answers
    ///   must not go back after memory's).
    init(
        _ configuration: TenderConfiguration, reader: any LedgerReader, commits: LedgerCommits, metrics: ServerMetrics, logger: Logger,
        writer: LedgerWriter? = nil
    ) {
        let router = Router()
        let accountCache = AccountCache(commits: commits)
        let horizon = HorizonRoutes(reader: reader, commits: commits, configuration: configuration, logger: logger, accountCache: accountCache, metrics: metrics,
            committedAccount: writer.map { writer in { @Sendable id in
                // Without waiting when the writer is between changes; else between them.
                if let account = writer.committedAccounts.accountIfAvailable(id) { return account }
                return await writer.committedAccount(id)
            } },
            pathFinding: configuration.maxPathFindingRequests > 0
                ? PathFindingLimiter(rate: configuration.maxPathFindingRequests, maxWait: configuration.pathFindingMaxWait, clock: ContinuousClock())
                : nil)
        router.add(middleware: MetricsMiddleware<BasicRequestContext>(metrics: metrics))
        router.add(middleware: ProblemMiddleware(logger: logger))
        router.add(middleware: CORSMiddleware(
            allowOrigin: .all, allowHeaders: [.accept, .contentType, .origin, .init("X-Client-Name")!, .init("X-Client-Version")!],
            allowMethods: [.get, .post, .head, .options], exposedHeaders: ["Date", "Latest-Ledger"], maxAge: .seconds(3600)))
        Self.registerRoot(on: router, commits: commits, horizon: horizon, configuration: configuration)
        horizon.register(on: router)
        metrics.register(on: router, commits: commits, reader: reader)
        self.router = router
        self.horizon = horizon
        self.accountCache = accountCache
        self.metrics = metrics
        self.committedAccounts = writer?.committedAccounts
    }

    /// The router's responder with `GET /accounts/{id}` answered from the cache first.
    func responder() -> AnyResponder {
        let horizon = self.horizon
        let responder = CachedAccountResponder(router: router.buildResponder(), cache: accountCache, metrics: metrics, resources: { horizon.resources(for: $0) })
        return AnyResponder { try await responder.respond(to: $0, context: $1) }
    }

    /// A new connection's ``AccountBytePath`` and ``AccountFastPath`` (cached accounts answered in
    /// the pipeline) and,
    /// on a server that writes the ledger, its ``TransactionFastPath``.
    func channelHandlers(_ configuration: TenderConfiguration, submission: TransactionFastPath.Submission? = nil) -> @Sendable () -> HTTP1ChannelWithEarlyHandlers.Handlers {
        let (cache, metrics) = (accountCache, self.metrics)
        let horizon = self.horizon
        let memory = committedAccounts.map { AccountFastPath.Memory(accounts: $0, commits: horizon.commits, resources: horizon.resources(authority:)) }
        let authority = "\(configuration.host):\(configuration.port)"
        return {
            let accounts = AccountAnswers(cache: cache, memory: memory, metrics: metrics, serverName: serverName, defaultAuthority: authority)
            var handlers = HTTP1ChannelWithEarlyHandlers.Handlers(bytes: [AccountBytePath(accounts)], parts: [AccountFastPath(accounts)])
            if let submission {
                handlers.parts.append(TransactionFastPath(submission: submission, serverName: serverName, defaultAuthority: authority))
            }
            return handlers
        }
    }

    /// `GET /`: Horizon's root document.
    static func registerRoot(on router: Router<BasicRequestContext>, commits: LedgerCommits, horizon: HorizonRoutes, configuration: TenderConfiguration) {
        router.get("/") { request, _ in
            // A browser (which asks for HTML first) is led to the console; JSON clients get Horizon's root.
            if let accept = request.headers[.accept], accept.hasPrefix("text/html") {
                var headers = HTTPFields()
                headers[.location] = "/console"
                return Response(status: .seeOther, headers: headers)
            }
            let header = commits.header
            let resources = horizon.resources(for: request)
            // The oldest ledger history holds (the genesis ledger is never stored).
            let elder = (try? await horizon.reader.ledgers(PageRequest(limit: 1)).first?.header.sequence) ?? header.sequence
            let root: JSONValue = .object([
                ("_links", .object([
                    ("account", resources.link("/accounts/{account_id}", templated: true)),
                    ("accounts", resources.link("/accounts{?signer,sponsor,asset,liquidity_pool,cursor,limit,order}", templated: true)),
                    ("account_transactions", resources.link("/accounts/{account_id}/transactions{?cursor,limit,order}", templated: true)),
                    ("assets", resources.link("/assets{?asset_code,asset_issuer,cursor,limit,order}", templated: true)),
                    ("claimable_balances", resources.link("/claimable_balances{?asset,sponsor,claimant}", templated: true)),
                    ("effects", resources.link("/effects{?cursor,limit,order}", templated: true)),
                    ("fee_stats", resources.link("/fee_stats")),
                    ("friendbot", resources.link("/friendbot{?addr}", templated: true)),
                    ("ledger", resources.link("/ledgers/{sequence}", templated: true)),
                    ("ledgers", resources.link("/ledgers{?cursor,limit,order}", templated: true)),
                    ("liquidity_pools", resources.link("/liquidity_pools{?reserves,account,cursor,limit,order}", templated: true)),
                    ("offer", resources.link("/offers/{offer_id}", templated: true)),
                    ("offers", resources.link("/offers/{?selling,buying,seller,sponsor,cursor,limit,order}", templated: true)),
                    ("operation", resources.link("/operations/{id}", templated: true)),
                    ("operations", resources.link("/operations{?cursor,limit,order,include_failed}", templated: true)),
                    ("order_book", resources.link("/order_book{?selling_asset_type,selling_asset_code,selling_asset_issuer,buying_asset_type,buying_asset_code,buying_asset_issuer,limit}", templated: true)),
                    ("payments", resources.link("/payments{?cursor,limit,order,include_failed}", templated: true)),
                    ("self", resources.link("/")),
                    ("strict_receive_paths", resources.link("/paths/strict-receive{?source_assets,source_account,destination_account,destination_asset_type,destination_asset_issuer,destination_asset_code,destination_amount}", templated: true)),
                    ("strict_send_paths", resources.link("/paths/strict-send{?destination_account,destination_assets,source_asset_type,source_asset_issuer,source_asset_code,source_amount}", templated: true)),
                    ("transaction", resources.link("/transactions/{hash}", templated: true)),
                    ("trades", resources.link("/trades?{base_asset_type,base_asset_code,base_asset_issuer,counter_asset_type,counter_asset_code,counter_asset_issuer}", templated: true)),
                    ("trade_aggregations", resources.link("/trade_aggregations?{base_asset_type,base_asset_code,base_asset_issuer,counter_asset_type,counter_asset_code,counter_asset_issuer}", templated: true)),
                    ("transactions", resources.link("/transactions{?cursor,limit,order}", templated: true)),
                ])),
                ("horizon_version", .string("tender-\(tenderVersion)")),
                ("core_version", .string("tender-\(tenderVersion)")),
                ("ingest_latest_ledger", .number(Int64(header.sequence))),
                ("history_latest_ledger", .number(Int64(header.sequence))),
                ("history_latest_ledger_closed_at", .string(HorizonResources.time(header.closeTime))),
                ("history_elder_ledger", .number(Int64(elder))),
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
    }
}

/// Everything a server that writes the ledger runs: the writer on its store, the test anchor,
/// the gateway and the checkout with their routes, and the services behind them (the writer's
/// loop, the janitors, webhook deliveries). A single server is this; in a cluster, the leader.
struct LeaderParts {
    let responder: AnyResponder
    /// Handlers for each connection's pipeline: the account and transaction fast paths.
    let channelHandlers: @Sendable () -> HTTP1ChannelWithEarlyHandlers.Handlers
    let services: [any Service]

    static func make(
        _ configuration: TenderConfiguration, store: any LedgerStore & LedgerReader, gatewayStore: (any GatewayStore)?,
        environment: ServerEnvironment, logger: Logger, advertised: String? = nil,
        reading: (reader: any LedgerReader, commits: LedgerCommits)? = nil
    ) async throws -> LeaderParts {
        let metrics = ServerMetrics()
        let clock = environment.clock
        let now = environment.now
        let writer = try await LedgerWriter(
            store: store,
            configuration: .init(network: configuration.network, closeInterval: configuration.closeInterval, batchLimit: configuration.batchLimit),
            logger: logger, metrics: metrics.writer, clock: clock, now: { UInt64(clamping: now()) })
        let anchor = configuration.testAnchor
        let feeAccount = GatewayService.feeAccount(anchorSeed: configuration.anchorSeed)
        // One transaction at genesis, so the root account's sequence number moves once.
        try await anchor.install(on: writer, trusting: [feeAccount])

        // Horizon's reads: from the store and the writer's commits, or (a cluster node reading
        // a hot standby) from the standby and the ledgers it has replayed.
        // Accounts come from the writer's memory when the reads are of its own store (a hot
        // standby lags, and its answers must not go back after memory's).
        let reads = ReadParts(
            configuration, reader: reading?.reader ?? store, commits: reading?.commits ?? writer.commits, metrics: metrics, logger: logger,
            writer: reading == nil ? writer : nil)
        let router = reads.router
        let horizon = reads.horizon
        let transactions = TransactionRoutes(
            writer: writer, horizon: horizon, history: store,
            deadlines: SubmissionDeadlines(timeout: configuration.submissionTimeout, clock: clock))
        transactions.register(on: router)
        let local = LocalNetworkRoutes(horizon: horizon, writer: writer, anchor: anchor)
        local.register(on: router)
        // The server is its store's only writer (in a cluster, the leader is), so what it has
        // read can be kept in memory.
        // Opening the gateway's SQLite file reads and may migrate its schema: off the pool.
        let gatewayPath = configuration.gatewayDatabasePath
        let opened: any GatewayStore
        if let gatewayStore { opened = gatewayStore } else { opened = try await offThePool { try SQLiteGatewayStore(path: gatewayPath) } }
        let gatewayStore = CachingGatewayStore(opened)
        let secrets = try ServerSecrets.load(directory: configuration.dataDirectory)
        let webhookWakeup = WakeupSignal()
        let gateway = GatewayService(
            store: gatewayStore, writer: writer, anchor: anchor,
            secrets: secrets, fees: configuration.fees, expiries: configuration.expiries,
            rootDesk: local.friendbot, issuerDesks: local.anchorDesks, feeAccount: feeAccount,
            desks: LedgerDesks(writer: writer, secrets: secrets, maxPending: configuration.fundingQueueLimit), webhookWakeup: webhookWakeup,
            now: now, random: environment.random, logger: logger)
        // Links the recovery and the janitors hand out point at this server (in a cluster, the
        // address it advertises).
        let base = advertised ?? "http://\(configuration.host):\(configuration.port)"
        try await gateway.recover(reader: store, base: base)
        let gatewayRoutes = GatewayRoutes(service: gateway, adminKey: try GatewayService.loadAdminKey(directory: configuration.dataDirectory), logger: logger)
        gatewayRoutes.register(on: router)
        PaylikeRoutes(service: gateway, routes: gatewayRoutes, logger: logger).register(on: router)
        PaymentPage(service: gateway, routes: gatewayRoutes).register(on: router)
        let checkout = CheckoutService(gateway: gateway, keys: await CheckoutService.tokenKeys(secrets))
        try await checkout.recover(reader: store)
        let checkoutRoutes = CheckoutRoutes(service: checkout, routes: gatewayRoutes, logger: logger)
        checkoutRoutes.register(on: router)
        ShopPages(routes: checkoutRoutes).register(on: router)
        ConsoleRoutes(service: gateway, checkout: checkout, horizon: horizon, adminKey: gatewayRoutes.adminKey, logger: logger, clock: clock).register(on: router)
        let webAuth = await WebAuthService(
            signingKey: anchor.signingKey, network: configuration.network, homeDomains: [anchor.homeDomain], tokenKey: secrets.anchorKeyBytes,
            reader: reads.horizon.reader, now: { UInt64(clamping: now()) }, random: environment.random, clientDomainKey: AnchorRoutes.clientDomainKey)
        let customers = CustomerService(store: gatewayStore, secrets: secrets, now: now, random: environment.random)
        let anchorRoutes = AnchorRoutes(webAuth: webAuth, customers: customers, logger: logger)
        anchorRoutes.register(on: router)
        let transfers = TransferService(gateway: gateway, reader: store, logger: logger)
        TransferRoutes(transfers: transfers, quotes: QuoteService(transfers: transfers), customers: customers, anchor: anchorRoutes, key: secrets.anchorKeyBytes, logger: logger)
            .register(on: router)
        return LeaderParts(
            responder: reads.responder(),
            channelHandlers: reads.channelHandlers(configuration, submission: TransactionFastPath.Submission(
                routes: transactions, resources: horizon.resources(authority:), metrics: metrics, logger: logger)),
            services: [
                LedgerWriterService(writer: writer),
                GatewayJanitor(service: gateway, reader: store, base: base, clock: clock, interval: .seconds(1), logger: logger),
                CheckoutJanitor(service: checkout, reader: store, refunder: checkout.refunder, base: base, clock: clock, interval: .seconds(1), logger: logger),
                AnchorJanitor(transfers: transfers, clock: clock, interval: .seconds(1), logger: logger),
                WebhookDeliverer(
                    store: gatewayStore, secrets: secrets, policy: configuration.webhookRetry, wakeup: webhookWakeup,
                    now: now, clock: clock, send: WebhookDeliverer.urlSessionSend, logger: logger),
            ])
    }
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
