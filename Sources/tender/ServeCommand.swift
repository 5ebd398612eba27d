import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StellarBase
import Store
import TenderServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Tender server.",
        discussion: """
            Listens on --host:--port (127.0.0.1:8000 by default) and keeps its data under --data. \
            Every flag can also be set with an environment variable: TENDER_HOST, TENDER_PORT, \
            TENDER_DATA, TENDER_PASSPHRASE, TENDER_CLOSE_INTERVAL, TENDER_BATCH_LIMIT, TENDER_ANCHOR_SEED, TENDER_ANCHOR_DOMAIN, TENDER_MAX_PATH_FINDING_REQUESTS. The ledger lives in \
            DATA/ledger.sqlite (created at genesis on first run). Stop it with Ctrl-C (SIGINT) or \
            SIGTERM: the ledger in flight is finished first. If a ledger cannot be committed, it \
            exits with status 1 at once (fail-stop), so a supervisor restarts it from the last \
            durable ledger.
            """
    )

    @Option(help: "The address to listen on. [env: TENDER_HOST] (default: 127.0.0.1)")
    var host: String?

    @Option(help: "The TCP port to listen on; 0 picks a free one. [env: TENDER_PORT] (default: 8000)")
    var port: Int?

    @Option(help: "The directory for Tender's data, created if missing. [env: TENDER_DATA] (default: .tender)")
    var data: String?

    @Option(help: "The network passphrase. [env: TENDER_PASSPHRASE] (default: \"Standalone Network ; February 2017\")")
    var passphrase: String?

    @Option(help: "Seconds between ledger closes; 0 closes a ledger as soon as transactions wait and the previous one has committed (group commit). [env: TENDER_CLOSE_INTERVAL] (default: 1)")
    var closeInterval: Double?

    @Option(help: "The most transactions in one ledger; a full batch closes a ledger at once. [env: TENDER_BATCH_LIMIT] (default: 1000)")
    var batchLimit: Int?

    @Option(help: "The seed the test anchor's issuer keys (USDC, SRT, EUR) are derived from. [env: TENDER_ANCHOR_SEED] (default: tender)")
    var anchorSeed: String?

    @Option(help: "The home domain set on the test anchor's issuers when the network is created. [env: TENDER_ANCHOR_DOMAIN] (default: localhost:8000)")
    var anchorDomain: String?

    @Option(help: "The most path searches (GET /paths/...) a second, as Horizon's flag of the name; a search that comes early waits up to 0.1 s for its turn, then is a 503. 0 is no limit. [env: TENDER_MAX_PATH_FINDING_REQUESTS] (default: \(TenderConfiguration.defaultMaxPathFindingRequests))")
    var maxPathFindingRequests: Int?

    @Option(help: "A PostgreSQL database for the ledger and the gateway (postgres://user[:password]@host[:port]/database) instead of the SQLite files under --data; several servers on one database form a cluster: one leads and writes, the others serve reads and forward the rest to it. [env: TENDER_DATABASE]")
    var database: String?

    @Option(help: "With --database: seconds between a follower's tries to take the lead, and between the leader's checks of the session that holds its lock. [env: TENDER_FAILOVER_INTERVAL] (default: 1)")
    var failoverInterval: Double?

    @Option(help: "With --database: a hot standby of that database to read Horizon's answers from (writes stay on --database; reads lag by the replication delay, never going back). [env: TENDER_READ_DATABASE]")
    var readDatabase: String?

    @Option(help: "With --database: the address other nodes forward requests to while this server leads. [env: TENDER_ADVERTISE_URL] (default: http://HOST:PORT)")
    var advertiseURL: String?

    @Option(help: "MiB of page cache for the SQLite ledger's writing connection (1-65536); more keeps a grown database's index pages in memory for commits. [env: TENDER_SQLITE_CACHE] (default: \(SQLiteLedgerStore.defaultWriterCacheMebibytes))")
    var sqliteCache: Int?

    @Option(help: "WAL pages of the SQLite ledger past which a checkpoint rewinds the WAL (\(SQLiteWAL.pages.lowerBound)-\(SQLiteWAL.pages.upperBound)); the WAL file is cut back to twice that after a rewind. [env: TENDER_SQLITE_WAL_PAGES] (default: \(SQLiteLedgerStore.defaultWALRestartFrames))")
    var sqliteWALPages: Int?

    @Option(help: "The least important log messages written to standard error: trace, debug, info, notice, warning, error or critical. (default: info)")
    var logLevel: String = "info"

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let portText = environment["TENDER_PORT"]
        let resolvedPort: Int
        if let port {
            resolvedPort = port
        } else if let portText {
            guard let parsed = Int(portText) else { throw CommandFailure("TENDER_PORT=\(portText) is not a port number") }
            resolvedPort = parsed
        } else {
            resolvedPort = 8000
        }
        guard (0...65535).contains(resolvedPort) else { throw CommandFailure("the port \(resolvedPort) is not between 0 and 65535") }
        let interval = try closeInterval ?? environment["TENDER_CLOSE_INTERVAL"].map {
            guard let value = Double($0) else { throw CommandFailure("TENDER_CLOSE_INTERVAL=\($0) is not a number of seconds") }
            return value
        } ?? 1
        guard interval >= 0, interval <= 3600 else { throw CommandFailure("the close interval \(interval) is not between 0 and 3600 seconds") }
        let batch = try batchLimit ?? environment["TENDER_BATCH_LIMIT"].map {
            guard let value = Int($0) else { throw CommandFailure("TENDER_BATCH_LIMIT=\($0) is not a number") }
            return value
        } ?? 1000
        guard (1...10_000).contains(batch) else { throw CommandFailure("the batch limit \(batch) is not between 1 and 10000") }
        let pathFindingRate = try maxPathFindingRequests ?? environment["TENDER_MAX_PATH_FINDING_REQUESTS"].map {
            guard let value = Int($0) else { throw CommandFailure("TENDER_MAX_PATH_FINDING_REQUESTS=\($0) is not a number") }
            return value
        } ?? TenderConfiguration.defaultMaxPathFindingRequests
        guard (0...1_000_000).contains(pathFindingRate) else { throw CommandFailure("the path finding limit \(pathFindingRate) is not between 0 and 1000000 a second") }
        var configuration = TenderConfiguration(
            host: host ?? environment["TENDER_HOST"] ?? "127.0.0.1",
            port: resolvedPort,
            dataDirectory: data ?? environment["TENDER_DATA"] ?? ".tender",
            network: Network(passphrase: passphrase ?? environment["TENDER_PASSPHRASE"] ?? Network.standalone.passphrase),
            closeInterval: .milliseconds(Int64(interval * 1000)), batchLimit: batch,
            anchorSeed: anchorSeed ?? environment["TENDER_ANCHOR_SEED"] ?? "tender",
            anchorHomeDomain: anchorDomain ?? environment["TENDER_ANCHOR_DOMAIN"] ?? "localhost:8000")
        configuration.maxPathFindingRequests = pathFindingRate
        let cache = try sqliteCache ?? environment["TENDER_SQLITE_CACHE"].map {
            guard let value = Int($0) else { throw CommandFailure("TENDER_SQLITE_CACHE=\($0) is not a number of MiB") }
            return value
        } ?? SQLiteLedgerStore.defaultWriterCacheMebibytes
        guard (1...65_536).contains(cache) else { throw CommandFailure("the SQLite cache \(cache) MiB is not between 1 and 65536") }
        configuration.sqliteCacheMebibytes = cache
        configuration.sqliteWALPages = try sqliteWALPages.map(SQLiteWAL.checked) ?? SQLiteWAL.pages(environment)
        configuration.database = database ?? environment["TENDER_DATABASE"]
        let failover = try failoverInterval ?? environment["TENDER_FAILOVER_INTERVAL"].map {
            guard let value = Double($0) else { throw CommandFailure("TENDER_FAILOVER_INTERVAL=\($0) is not a number of seconds") }
            return value
        } ?? 1
        guard failover >= 0.05, failover <= 600 else { throw CommandFailure("the failover interval \(failover) is not between 0.05 and 600 seconds") }
        configuration.failoverInterval = .milliseconds(Int64(failover * 1000))
        configuration.advertiseURL = advertiseURL ?? environment["TENDER_ADVERTISE_URL"]
        configuration.readDatabase = readDatabase ?? environment["TENDER_READ_DATABASE"]
        // Fail-stop means stop: the services get a few seconds to end, then the process does.
        configuration.onLostLead = { reason in
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 5)
                FileHandle.standardError.write(Data("tender: the server stopped: \(reason) (forced after 5 s)\n".utf8))
                Foundation.exit(1)
            }
        }
        if configuration.readDatabase != nil, configuration.database == nil { throw CommandFailure("--read-database needs --database (the primary)") }
        guard configuration.anchorHomeDomain.utf8.count <= 32 else { throw CommandFailure("the anchor domain has more than 32 bytes") }

        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        LoggingSystem.bootstrap { label in ServerLogHandler(label: label, level: level) }
        let app = try await makeApplication(configuration)
        do {
            try await app.runService()
        } catch {
            throw CommandFailure("the server stopped: \(error)")
        }
    }

    private func makeApplication(_ configuration: TenderConfiguration) async throws -> some ApplicationProtocol {
        do {
            return try await buildApplication(configuration) { port in
                let url = "http://\(configuration.host):\(port)"
                let assets = configuration.testAnchor.currencies
                    .map { "  \($0.code.padding(toLength: 5, withPad: " ", startingAt: 0)) issued by \($0.keyPair.accountID.strKey)" }
                    .joined(separator: "\n")
                let banner = """
                    Tender \(tenderVersion) is listening on \(url)
                    network passphrase: \(configuration.network.passphrase)
                    horizon:            \(url)
                    friendbot:          \(url)/friendbot?addr=G...
                    test anchor:        \(url)/.well-known/stellar.toml (GET /friendbot?addr=G...&asset=CODE pays 1000 to a trustline)
                    \(assets)
                    gateway:            \(url)/v1 (Stripe's API; make a merchant with `tender gateway merchants create NAME --data \(configuration.dataDirectory) --url \(url)`)
                    operators:          \(url)/metrics (Prometheus), \(url)/health
                    data directory:     \(configuration.dataDirectory)\(configuration.database == nil ? "" : " (ledger and gateway in PostgreSQL; this node leads or follows)")
                    ledger closes:      \(configuration.closeInterval == .zero ? "as soon as transactions wait (group commit)" : "every \(configuration.closeInterval)"), at most \(configuration.batchLimit) transactions each

                    """
                FileHandle.standardOutput.write(Data(banner.utf8))
            }
        } catch {
            throw CommandFailure("cannot open the ledger in \(configuration.dataDirectory): \(error)")
        }
    }
}

/// The SQLite ledger's WAL rewind threshold as `tender serve` and the benchmarks that open a
/// ledger themselves take it (`--sqlite-wal-pages`, `TENDER_SQLITE_WAL_PAGES`).
enum SQLiteWAL {
    /// From 1 MiB of WAL (1 KiB pages) to 16 GiB.
    static let pages = 1_024...16_777_216

    static func checked(_ value: Int) throws -> Int {
        guard pages.contains(value) else { throw CommandFailure("the SQLite WAL limit \(value) pages is not between \(pages.lowerBound) and \(pages.upperBound)") }
        return value
    }

    /// `TENDER_SQLITE_WAL_PAGES` in `environment`, or the store's default.
    static func pages(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int {
        guard let text = environment["TENDER_SQLITE_WAL_PAGES"] else { return SQLiteLedgerStore.defaultWALRestartFrames }
        guard let value = Int(text) else { throw CommandFailure("TENDER_SQLITE_WAL_PAGES=\(text) is not a number of pages") }
        return try checked(value)
    }
}
