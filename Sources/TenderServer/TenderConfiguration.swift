import Gateway
import GatewayCore
import Ledger
import StellarBase
import Store

/// Everything `tender serve` needs to start, after flags, environment and defaults are merged.
public struct TenderConfiguration: Sendable {
    /// The address to listen on; 127.0.0.1 unless asked otherwise.
    public var host: String
    /// The TCP port; 0 picks a free one (tests use this).
    public var port: Int
    /// The directory that holds the ledger database (`ledger.sqlite`).
    public var dataDirectory: String
    /// The network the ledger belongs to.
    public var network: Network
    /// How often a ledger closes; zero is group-commit mode (close as soon as transactions wait).
    public var closeInterval: Duration
    /// The most transactions in one ledger; a full batch closes a ledger at once.
    public var batchLimit: Int
    /// How long `POST /transactions` waits for the ledger before answering 504 with the hash.
    public var submissionTimeout: Duration
    /// The seed the test anchor's issuer keys are derived from.
    public var anchorSeed: String
    /// The home domain set on the test anchor's issuers.
    public var anchorHomeDomain: String
    /// How much work one `GET /paths/...` may do (assets reached, offers crossed).
    public var pathSearchLimits = PathSearchLimits()
    /// The most friendbot (or test anchor) fundings waiting for a ledger, per funding account;
    /// past it a funding is a 503.
    public var fundingQueueLimit = 1_000
    /// How long one path search may run before it is a 400.
    public var pathSearchTimeLimit: Duration = .milliseconds(500)
    /// The most path searches a second (Horizon's `--max-path-finding-requests`); 0 is no limit.
    /// A search that comes early waits for its turn, at most ``pathFindingMaxWait``; past that it
    /// is a 503. Waiting costs no CPU: a client asking as fast as it can is slowed instead of
    /// taking the cores the ledger needs.
    public var maxPathFindingRequests = 0
    /// `tender serve`'s default for ``maxPathFindingRequests``.
    public static let defaultMaxPathFindingRequests = 0
    /// How long a path search may wait for its turn under ``maxPathFindingRequests``.
    public var pathFindingMaxWait: Duration = .milliseconds(100)
    /// The gateway's fees on captured payments.
    public var fees = FeeSchedule()
    /// How long a redirect and an authorisation may wait.
    public var expiries = GatewayExpiries()
    /// How failed webhook deliveries are tried again.
    public var webhookRetry = WebhookRetryPolicy()
    /// A PostgreSQL database (`postgres://user[:password]@host[:port]/database`) for the ledger
    /// and the gateway instead of the SQLite files under the data directory; nil: SQLite.
    public var database: String?
    /// In a cluster on ``database``: how often a follower tries to take the lead, and how often
    /// the leader checks the session that holds its lock (a probe must answer within it).
    public var failoverInterval: Duration = .seconds(1)
    /// Called when a cluster leader loses the lead, as its services begin to stop (fail-stop):
    /// `tender serve` makes sure the process ends even if stopping hangs. Nil in tests.
    public var onLostLead: (@Sendable (String) -> Void)?
    /// A PostgreSQL hot standby of ``database`` that this node reads Horizon's answers from
    /// (writes stay on ``database``); nil reads from ``database``.
    public var readDatabase: String?
    /// The most page cache (MiB) the SQLite ledger's writing connection keeps: commits to a
    /// grown database read the index pages a payment's accounts land on, and those the cache
    /// holds cost no system call. Unused with ``database``.
    public var sqliteCacheMebibytes = SQLiteLedgerStore.defaultWriterCacheMebibytes
    /// The WAL frames (pages) of the SQLite ledger past which a checkpoint rewinds the WAL, so
    /// the next commits write it from its start again. Unused with ``database``.
    public var sqliteWALPages = SQLiteLedgerStore.defaultWALRestartFrames
    /// In a cluster: the address the other nodes forward to while this node leads; nil is
    /// `http://HOST:PORT` of this server.
    public var advertiseURL: String?

    public init(
        host: String = "127.0.0.1", port: Int = 8000, dataDirectory: String = ".tender",
        network: Network = .standalone, closeInterval: Duration = .seconds(1), batchLimit: Int = 1000,
        submissionTimeout: Duration = .seconds(30), anchorSeed: String = "tender", anchorHomeDomain: String = "localhost:8000"
    ) {
        self.anchorSeed = anchorSeed
        self.anchorHomeDomain = anchorHomeDomain
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.network = network
        self.closeInterval = closeInterval
        self.batchLimit = batchLimit
        self.submissionTimeout = submissionTimeout
    }

    /// The SQLite file of the ledger.
    public var databasePath: String { dataDirectory + "/ledger.sqlite" }

    /// The SQLite file of the gateway's merchants, payments and idempotency keys.
    public var gatewayDatabasePath: String { dataDirectory + "/gateway.sqlite" }
}
