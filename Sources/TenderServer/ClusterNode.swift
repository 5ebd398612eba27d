import GatewayCore
import AsyncHTTPClient
import Foundation
import Hummingbird
import HTTPTypes
import Ledger
import LedgerService
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import PostgresStore
import ServiceLifecycle
import StellarBase
import Synchronization

/// A `tender serve` on a PostgreSQL database, one of any number sharing it.
///
/// The node that holds the leader's lock (``LeaderSession``) is a whole server: it closes the
/// ledgers and runs the gateway, the checkout and their background services, as a lone server
/// does. Every other node follows: it answers Horizon's reads from the database, following the
/// ledgers as they commit (``PostgresLedgerFollower``), and forwards everything else, each
/// submission among them, to the leader's advertised address over HTTP (``LeaderForwarder``);
/// the leader answers a submission once its ledger has committed. A follower tries the lock
/// every ``TenderConfiguration/failoverInterval``; when it takes it, it loads the state of the
/// last committed ledger and leads. A leader that loses its lock's session stops at once: its
/// commits are fenced and the process exits (fail-stop).
final class ClusterNode: Sendable {
    let configuration: TenderConfiguration
    let environment: ServerEnvironment
    let logger: Logger
    let database: PostgresDatabase
    /// The hot standby Horizon's reads come from, if any.
    let readDatabase: PostgresDatabase?
    let session: LeaderSession
    /// Reads from the database and the ledgers followed; nil on a node that led from the start.
    let following: Following?
    let forwarder: LeaderForwarder
    private let state: Mutex<State>

    private struct State {
        var leader: AnyResponder?
        /// The leader's handlers for a new connection's pipeline (its account and transaction
        /// fast paths), as a lone server's.
        var leaderChannelHandlers: (@Sendable () -> HTTP1ChannelWithEarlyHandlers.Handlers)?
        var leaderServices: [any Service] = []
        var fence: LeaderFence?
        /// The fence a probe won, until the loop leads with it.
        var won: LeaderFence?
    }
    /// What moves the node's leadership (``LeadershipStateMachine``), in the order it happens:
    /// the probes' answers, the session's loss, the server listening, the shutdown.
    private let events: AsyncStream<LeadershipStateMachine.Event>
    private let report: AsyncStream<LeadershipStateMachine.Event>.Continuation

    struct Following: Sendable {
        let follower: PostgresLedgerFollower
        let reader: PostgresLedgerStore
        let commits: LedgerCommits
        let responder: AnyResponder
        /// Whether the ledgers are heard by LISTEN (a primary) or asked for (a standby).
        let listens: Bool

        /// Follows the latest committed ledger now, if it is newer than the last one followed.
        func catchUp() async {
            guard let sequence = try? await follower.latestSequence(), sequence > commits.latest,
                  let (header, offers, pools) = try? await follower.latest() else { return }
            follow(header, offers, pools)
        }

        /// A ledger read from the database: its header and the order books as of it.
        func follow(_ header: LedgerHeader, _ offers: [LedgerOffer], _ pools: [LiquidityPoolEntry]) {
            commits.follow(header, orderBook: Self.orderBook(header, offers, pools))
        }

        /// The order books of the offers, and the pools, as of `header`.
        static func orderBook(_ header: LedgerHeader, _ offers: [LedgerOffer], _ pools: [LiquidityPoolEntry]) -> OrderBookSnapshot {
            OrderBookSnapshot(LedgerState(header: header, accounts: [], trustLines: [], offers: offers, data: [], liquidityPools: pools))
        }
    }

    /// Opens the database (migrating it), then leads at once if no other node does: a lone
    /// server is ready to write before it listens, as on SQLite.
    static func start(_ configuration: TenderConfiguration, url: String, environment: ServerEnvironment, logger: Logger) async throws -> ClusterNode {
        let database = try PostgresDatabase(url: url, logger: logger)
        var readDatabase: PostgresDatabase?
        do {
            try await PostgresCluster.checkDurability(database)
            let reader = try await PostgresLedgerStore(database)
            _ = try await PostgresGatewayStore(database)
            // Reads from a standby: its own store (the primary is migrated) and its ledgers.
            var readFrom = (database: database, url: url, reader: reader)
            if let readURL = configuration.readDatabase {
                let standby = try PostgresDatabase(url: readURL, logger: logger)
                readDatabase = standby
                readFrom = (standby, readURL, try await PostgresLedgerStore(standby, migrate: false))
            }
            let session = try await LeaderSession(url: url, logger: logger)
            do {
                let fence = try await session.tryLead()
                var following: Following?
                if fence == nil || readDatabase != nil {
                    following = try await Self.following(
                        configuration, database: readFrom.database, reader: readFrom.reader, url: readFrom.url, listens: readDatabase == nil, logger: logger)
                }
                let node = ClusterNode(
                    configuration: configuration, environment: environment, logger: logger, database: database, readDatabase: readDatabase, session: session, following: following)
                if let fence {
                    try await node.lead(fence)
                } else {
                    logger.notice("this node follows: another node leads the cluster", metadata: [
                        "ledger.sequence": "\(following?.commits.latest ?? 0)", "reads": "\(readDatabase == nil ? "primary" : "standby")",
                    ])
                }
                return node
            } catch {
                await session.close()
                throw error
            }
        } catch {
            database.shutdown()
            readDatabase?.shutdown()
            throw error
        }
    }

    private init(
        configuration: TenderConfiguration, environment: ServerEnvironment, logger: Logger, database: PostgresDatabase, readDatabase: PostgresDatabase?,
        session: LeaderSession, following: Following?
    ) {
        self.configuration = configuration
        self.environment = environment
        self.logger = logger
        self.database = database
        self.readDatabase = readDatabase
        self.session = session
        self.following = following
        forwarder = LeaderForwarder(database: database, retryWindow: configuration.submissionTimeout + configuration.failoverInterval * 10, logger: logger)
        state = Mutex(State())
        (events, report) = AsyncStream.makeStream(of: LeadershipStateMachine.Event.self)
    }

    /// A follower's reads: the latest ledger (waiting for the leader's genesis on a new
    /// database) and Horizon's read routes on it.
    private static func following(
        _ configuration: TenderConfiguration, database: PostgresDatabase, reader: PostgresLedgerStore, url: String, listens: Bool, logger: Logger
    ) async throws -> Following {
        let follower = PostgresLedgerFollower(database, url: url, logger: logger)
        guard let (header, offers, pools) = try await follower.firstLedger(listen: listens, timeout: .seconds(60)) else {
            throw LeadershipLost(reason: "no leader created the ledger within 60 seconds")
        }
        let commits = LedgerCommits(header: header, orderBook: Following.orderBook(header, offers, pools))
        let reads = ReadParts(configuration, reader: reader, commits: commits, metrics: ServerMetrics(), logger: logger)
        return Following(follower: follower, reader: reader, commits: commits, responder: reads.responder(), listens: listens)
    }

    /// Builds the leader's server on a fenced store, loading the last committed ledger.
    private func lead(_ fence: LeaderFence) async throws {
        let store = try await PostgresLedgerStore(database, fence: fence)
        let gatewayStore = try await PostgresGatewayStore(database, fence: fence)
        // With a standby to read from, Horizon's reads stay on it (and on the ledgers it has).
        let reading = readDatabase == nil ? nil : following.map { (reader: $0.reader as any LedgerReader, commits: $0.commits) }
        let parts = try await LeaderParts.make(
            configuration, store: store, gatewayStore: gatewayStore, environment: environment, logger: logger, reading: reading)
        state.withLock {
            $0.leader = parts.responder
            $0.leaderChannelHandlers = parts.channelHandlers
            $0.leaderServices = parts.services
            $0.fence = fence
        }
        logger.notice("this node leads the cluster", metadata: ["epoch": "\(fence.epoch)"])
    }

    /// The server is listening on `port`.
    func serving(port: Int) {
        report.yield(.listening(port: port))
    }

    var responder: AnyResponder {
        AnyResponder { [self] request, context in
            if let leader = state.withLock({ $0.leader }) { return try await leader.respond(request, context) }
            if let following, FollowerRouting.servesLocally(method: request.method, path: request.uri.path) {
                return try await following.responder.respond(request, context)
            }
            var request = request
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: LeaderForwarder.maxBodyBytes)
            } catch {
                return Problem.badRequest("the request body is larger than \(LeaderForwarder.maxBodyBytes) bytes").response()
            }
            switch await forwarder.forward(request.head, body: body, localLeader: { [self] in state.withLock { $0.leader } }) {
            case .answered(let response):
                // What the leader committed before answering is what this node shows next (read
                // your writes), not a moment later when the notification comes.
                if request.method != .get || request.uri.path.hasPrefix("/friendbot") { await following?.catchUp() }
                return response
            case .leadingHere(let leader):
                // This node took the lead while the request waited for one.
                return try await leader.respond(Request(head: request.head, body: .init(buffer: body)), context)
            }
        }
    }

    /// A new connection's early handlers: the leader's (`GET /accounts/{id}` answered from the
    /// writer's memory and cache, `POST /transactions` handed to the writer, both in the
    /// pipeline, as on a lone server) once this node leads, none while it follows (everything
    /// then goes through ``responder``, which reads from the database or forwards). A node that
    /// leads never follows again (a lost lead stops the process), so a connection keeps the
    /// handlers it was given; one opened while following stays on the responder, which leads too.
    var channelHandlers: @Sendable () -> HTTP1ChannelWithEarlyHandlers.Handlers {
        { [self] in state.withLock { $0.leaderChannelHandlers }?() ?? .init() }
    }

    var services: [any Service] {
        [
            DatabaseCloser { [self] in
                await session.close()
                try? await forwarder.client.shutdown()
                database.shutdown()
                readDatabase?.shutdown()
            },
            NodeService(node: self),
        ]
    }

    /// Follows the ledgers (a follower), waits for the lead, then runs the leader's services
    /// while watching the lock's session. Returns on graceful shutdown; throws when the lead is
    /// lost, which stops the server.
    struct NodeService: Service {
        let node: ClusterNode

        func run() async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                if let following = node.following {
                    group.addTask {
                        following.commits.followingStarted()
                        try await following.follower.run(
                            heartbeat: LedgerCommits.heartbeatInterval, after: following.commits.latest, listen: following.listens,
                            onLedger: { header, offers, pools in following.follow(header, offers, pools) },
                            onBeat: { following.commits.heartbeat() })
                    }
                }
                group.addTask { try await node.drive() }
                // The leader's part ends the node: on shutdown it returns, on a lost lead it throws.
                try await group.next()
                group.cancelAll()
            }
        }
    }

    /// The one loop that moves the node's leadership: each event reported goes through the
    /// state machine, and the loop does what it answers (probe again later, lead, advertise,
    /// stop leading, or fail). Returns on graceful shutdown; throws when the lead is lost or
    /// cannot be taken, which stops the server.
    func drive() async throws {
        let started = state.withLock { $0.fence }
        var machine = LeadershipStateMachine(leadingAt: started?.epoch)
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                var leading: (fence: LeaderFence, run: Task<Void, any Error>, group: ServiceGroup)?
                func perform(_ actions: [LeadershipStateMachine.Action]) async throws {
                    for action in actions {
                        switch action {
                        case .probeLater:
                            tasks.addTask { [self] in
                                try await Task.sleep(for: configuration.failoverInterval)
                                await probe()
                            }
                        case .lead(let epoch):
                            let fence = try await takeLead(epoch: epoch)
                            let group = ServiceGroup(configuration: .init(
                                services: state.withLock { $0.leaderServices }.map { .init(service: $0) }, gracefulShutdownSignals: [], logger: logger))
                            let run = Task { try await group.run() }
                            leading = (fence, run, group)
                            tasks.addTask { [report] in
                                do { try await run.value } catch { report.yield(.servicesFailed(reason: "the leader's services failed: \(error)")) }
                            }
                            tasks.addTask { [self] in
                                do {
                                    try await session.watch(fence, every: configuration.failoverInterval)
                                } catch let lost as LeadershipLost {
                                    report.yield(.fenceLost(reason: lost.reason))
                                }
                            }
                        case .advertise(let port):
                            guard let fence = leading?.fence else { continue }
                            let address = configuration.advertiseURL ?? "http://\(configuration.host):\(port)"
                            try await session.advertise(address, fence: fence)
                            logger.info("the leader's address is advertised", metadata: ["url": "\(address)"])
                        case .stopLeading:
                            if let leading {
                                await leading.group.triggerGracefulShutdown()
                                try await leading.run.value
                            }
                        case .fail(let reason):
                            let lost = LeadershipLost(reason: reason)
                            logger.critical("this node stops: \(lost)")
                            configuration.onLostLead?(lost.description)
                            leading?.run.cancel()
                            throw lost
                        }
                    }
                }
                try await perform(started.map { [.lead(epoch: $0.epoch)] } ?? [.probeLater])
                for await event in events {
                    try await perform(machine.handle(event))
                    if machine.phase == .stopped { break }
                }
                tasks.cancelAll()
            }
        } onGracefulShutdown: { [report] in
            report.yield(.stop)
        }
    }

    /// Tries the leader's lock once and reports what it found.
    private func probe() async {
        do {
            if let fence = try await session.tryLead() {
                state.withLock { $0.won = fence }
                report.yield(.lockWon(epoch: fence.epoch))
            } else {
                report.yield(.probeAnswered)
            }
        } catch {
            // Taking the lead half-way is not safe to leave: the machine stops the node.
            logger.error("taking the lead failed", metadata: ["error": "\(error)"])
            report.yield(.probeFailed(reason: "taking the lead failed: \(error)"))
        }
    }

    /// The fence of `epoch`, the leader's parts built with it unless they were at start-up.
    private func takeLead(epoch: Int64) async throws -> LeaderFence {
        if let fence = state.withLock({ $0.fence }), fence.epoch == epoch { return fence }
        guard let won = state.withLock({ $0.won }), won.epoch == epoch else {
            preconditionFailure("the machine leads only with the fence a probe won")
        }
        try await lead(won)
        return won
    }
}

/// Which requests a follower answers from its own reads: Horizon's GETs of the ledger and its
/// history (and the server's root, metrics and health). Everything else goes to the leader:
/// submissions, friendbot, the test anchor, the gateway, Paylike, the checkout and their pages.
enum FollowerRouting {
    static let localRoots: Set<Substring> = [
        "", "accounts", "assets", "ledgers", "transactions", "operations", "payments", "offers", "order_book", "paths", "fee_stats", "metrics", "health",
    ]

    static func servesLocally(method: HTTPRequest.Method, path: String) -> Bool {
        guard method == .get || method == .head || method == .options else { return false }
        let first = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true).first ?? ""
        return localRoots.contains(first)
    }
}

/// Hands a request to the leader over HTTP and its answer back, as it came.
///
/// A request whose repetition changes nothing (a GET or HEAD, or `POST /transactions`: a
/// transaction already applied answers its stored result) is tried again while the leader
/// changes, within the retry window; any other is tried again only when it never reached a
/// leader (the connection was refused), so a payment is never sent twice.
final class LeaderForwarder: Sendable {
    let database: PostgresDatabase
    let client: HTTPClient
    let retryWindow: Duration
    let logger: Logger
    private let cachedURL = Mutex<String?>(nil)
    /// The largest request body forwarded.
    static let maxBodyBytes = 1 << 20
    static let hopByHop: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "content-length"]

    init(database: PostgresDatabase, retryWindow: Duration, logger: Logger) {
        self.database = database
        self.retryWindow = retryWindow
        self.logger = logger
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        // A dead leader's address fails at once, so the next try can find the new leader.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(2)
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
    }

    enum Outcome {
        case answered(Response)
        case leadingHere(AnyResponder)
    }

    func forward(_ request: HTTPRequest, body: ByteBuffer, localLeader: @Sendable () -> AnyResponder?) async -> Outcome {
        let path = request.path ?? "/"
        let repeatable = request.method == .get || request.method == .head || (request.method == .post && path.split(separator: "?").first == "/transactions")
        let deadline = ContinuousClock.now + retryWindow
        var lastError = "no leader has advertised its address"
        while ContinuousClock.now < deadline {
            if let leader = localLeader() { return .leadingHere(leader) }
            guard let base = await leaderURL() else {
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            var outgoing = HTTPClientRequest(url: base + path)
            outgoing.method = .init(rawValue: request.method.rawValue)
            for field in request.headerFields where !Self.hopByHop.contains(field.name.canonicalName) {
                outgoing.headers.add(name: field.name.canonicalName, value: field.value)
            }
            outgoing.body = .bytes(body)
            do {
                let response = try await client.execute(outgoing, deadline: .now() + .seconds(Int64(retryWindow.components.seconds) + 1))
                var headers = HTTPFields()
                for (name, value) in response.headers where !Self.hopByHop.contains(name.lowercased()) {
                    if let fieldName = HTTPField.Name(name) { headers.append(.init(name: fieldName, value: value)) }
                }
                if let length = response.headers.first(name: "content-length") { headers[.contentLength] = length }
                return .answered(Response(
                    status: .init(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase),
                    headers: headers, body: ResponseBody(asyncSequence: response.body)))
            } catch {
                forget(base)
                lastError = "\(error)"
                guard repeatable || Self.neverReached(error) else {
                    return .answered(Problem.leaderUnavailable("the leader did not answer (\(lastError)); the request may or may not have been applied").response())
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        return .answered(Problem.leaderUnavailable("no leader answered within \(retryWindow): \(lastError)").response())
    }

    /// Whether the error means the request never reached a server.
    static func neverReached(_ error: any Error) -> Bool {
        if error is NIOConnectionError { return true }
        if let error = error as? HTTPClientError, error == .connectTimeout { return true }
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED { return true }
        return false
    }

    private func leaderURL() async -> String? {
        if let url = cachedURL.withLock({ $0 }) { return url }
        guard let url = try? await PostgresCluster.leaderURL(database) else { return nil }
        cachedURL.withLock { $0 = url }
        return url
    }

    private func forget(_ url: String) {
        cachedURL.withLock { if $0 == url { $0 = nil } }
    }
}
