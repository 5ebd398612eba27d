import Foundation
import Ledger
import Logging
import NIOCore
import PostgresNIO
import StellarBase
import Synchronization

/// Several `tender serve` on one PostgreSQL database: who leads, how the leader's ledger
/// commits are fenced, and how the other nodes hear of them.
///
/// - The leader holds a session advisory lock on a connection of its own. Taking it, a node
///   moves the epoch in `tender_leader` on by one and records its session's pid; the row's
///   update waits for any commit of an earlier leader still running, and every ledger commit
///   checks the epoch inside its own transaction (``LeaderFence``), so a leader that lost the
///   lock never commits after another has taken it.
/// - Each ledger's commit sends `NOTIFY tender_ledger` in its transaction; PostgreSQL delivers
///   it when it commits, and followers (``PostgresLedgerFollower``) read the new header then.
/// - The leader writes the address other nodes forward submissions to in `tender_leader`.
public enum PostgresCluster {
    /// The advisory lock the leader holds ("tender" and 1).
    static let leaderLockKey: Int64 = 0x74656E646572_01
    /// The channel each ledger commit notifies.
    static let ledgerChannel = "tender_ledger"

    static let migrations: [PostgresMigrations.Migration] = [
        .init(number: 201, name: "leader", statements: [
            """
            CREATE TABLE tender_leader (
                id INTEGER PRIMARY KEY CHECK (id = 1), epoch BIGINT NOT NULL, url TEXT, pid INTEGER, since TIMESTAMPTZ NOT NULL DEFAULT now())
            """,
            "INSERT INTO tender_leader (id, epoch) VALUES (1, 0)",
        ]),
    ]

    /// Creates the cluster's table when missing.
    public static func migrate(_ database: PostgresDatabase) async throws {
        try await PostgresMigrations.migrate(database, migrations)
    }

    /// Refuses a database whose commits could be acknowledged before they are durable: a ledger
    /// is answered once its transaction has committed, which means something only with
    /// `synchronous_commit` on (or stronger: remote_write, remote_apply).
    public static func checkDurability(_ database: PostgresDatabase) async throws {
        let setting = try await database.rows("SHOW synchronous_commit") { try $0.decode(String.self) }.first ?? ""
        guard ["on", "remote_write", "remote_apply"].contains(setting) else {
            throw NotDurable(setting: setting)
        }
    }

    /// The database acknowledges commits before they are durable.
    public struct NotDurable: Error, CustomStringConvertible {
        public let setting: String
        public var description: String {
            "the database has synchronous_commit = \(setting): a ledger answered as committed could be lost in a crash; set it to on"
        }
    }

    /// The leader's advertised address, if a leader has written one.
    public static func leaderURL(_ database: PostgresDatabase) async throws -> String? {
        try await database.rows("SELECT url FROM tender_leader WHERE id = 1") { try $0.decode(String?.self) }.first ?? nil
    }

    /// The backend pid of the current leader's lock session (the partition test cuts it).
    public static func leaderPID(_ database: PostgresDatabase) async throws -> Int32? {
        try await database.rows("SELECT pid FROM tender_leader WHERE id = 1") { try $0.decode(Int32?.self) }.first ?? nil
    }

    /// The epoch of the current leader (0 before any).
    public static func epoch(_ database: PostgresDatabase) async throws -> Int64 {
        try await database.rows("SELECT epoch FROM tender_leader WHERE id = 1") { try $0.decode(Int64.self) }.first ?? 0
    }
}

/// A leader's right to commit ledgers: its epoch, and whether it has lost its lock. Ledger
/// commits check both (``PostgresLedgerStore``).
public final class LeaderFence: Sendable {
    public let epoch: Int64
    private let lost = Atomic<Bool>(false)

    public init(epoch: Int64) {
        self.epoch = epoch
    }

    /// From now on every commit is refused.
    public func lose() {
        lost.store(true, ordering: .sequentiallyConsistent)
    }

    public var isLost: Bool { lost.load(ordering: .sequentiallyConsistent) }

    /// Throws ``LeadershipLost`` once the lead is lost.
    public func check() throws {
        if isLost { throw LeadershipLost(reason: "its lock's session ended") }
    }
}

/// A commit refused because this node no longer leads.
public struct LeadershipLost: Error, CustomStringConvertible {
    public let reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { "this node no longer leads the cluster: \(reason)" }
}

/// A node's session for the leader's lock: it tries the lock, and once it has it, watches the
/// session so that losing it stops the node at once.
public final class LeaderSession: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    /// Opens the session's own connection (the lock lives as long as it does).
    public init(url: String, logger: Logger) async throws {
        connection = try await PostgresDatabase.connect(url: url, id: 1, logger: logger)
        self.logger = logger
    }

    /// Takes the leader's lock if it is free: then moves the epoch on (waiting for an earlier
    /// leader's commit in flight, which the new epoch then fences out), records this session's
    /// pid and clears the advertised address. Nil when another node leads.
    public func tryLead() async throws -> LeaderFence? {
        let taken = try await connection.rows(
            "SELECT pg_try_advisory_lock(\(PostgresCluster.leaderLockKey))", { try $0.decode(Bool.self) }, logger: logger).first ?? false
        guard taken else { return nil }
        let epoch = try await connection.rows(
            "UPDATE tender_leader SET epoch = epoch + 1, url = NULL, pid = pg_backend_pid(), since = now() WHERE id = 1 RETURNING epoch",
            { try $0.decode(Int64.self) }, logger: logger).first
        guard let epoch else { throw LeadershipLost(reason: "the table tender_leader has no row") }
        return LeaderFence(epoch: epoch)
    }

    /// Writes where the other nodes reach this leader, if it still leads with `fence`'s epoch.
    public func advertise(_ url: String, fence: LeaderFence) async throws {
        try await connection.execute("UPDATE tender_leader SET url = \(url) WHERE id = 1 AND epoch = \(fence.epoch)", logger: logger)
    }

    /// Returns (by throwing ``LeadershipLost``) when the lock's session is gone: its connection
    /// closed, a probe (every `interval`) failed, or a probe not answered within `timeout`. The
    /// fence is lost before it returns, so no commit starts after. A slow answer is not a lost
    /// lock (a busy machine must not stop its leader): the timeout is for a connection that no
    /// longer answers at all, and every ledger commit checks the epoch in any case.
    public func watch(_ fence: LeaderFence, every interval: Duration, timeout: Duration? = nil) async throws -> Never {
        let timeout = timeout ?? max(interval * 10, .seconds(10))
        connection.closeFuture.whenComplete { _ in fence.lose() }
        while true {
            try await Task.sleep(for: interval)
            if fence.isLost { throw LeadershipLost(reason: "the connection holding the leader's lock closed") }
            let connection = self.connection, logger = self.logger
            let answer = await Self.failure(within: timeout) { try await connection.execute("SELECT 1", logger: logger) }
            if let answer {
                fence.lose()
                throw LeadershipLost(reason: answer)
            }
        }
    }

    /// Why `probe` failed, or that it did not end within `timeout`; nil when it succeeded in
    /// time. The answer does not wait for a probe that ignores its cancellation: a query on a
    /// connection whose peer went away while it stopped reading may never end, and a task group
    /// waits for every child, so a group's timeout never answered there (a terminated leader's
    /// watch hung in CI beside a busy machine, in session 61).
    static func failure(within timeout: Duration, of probe: @escaping @Sendable () async throws -> Void) async -> String? {
        let answer = FirstAnswer()
        return await withCheckedContinuation { continuation in
            answer.wait(continuation)
            let timer = Task {
                try? await Task.sleep(for: timeout)
                answer.give("the connection holding the leader's lock did not answer within \(timeout)")
            }
            let running = Task {
                do {
                    try await probe()
                    answer.give(nil)
                } catch {
                    answer.give("the connection holding the leader's lock failed: \(error)")
                }
                timer.cancel()
            }
            answer.onAnswer { running.cancel() }
        }
    }

    /// Closes the session (a held lock is released with it).
    public func close() async {
        try? await connection.close()
    }
}

/// A follower's view of the ledgers the leader commits: woken by `NOTIFY tender_ledger` (and
/// every `heartbeat` in case a notification is missed), it reads the latest header and the
/// order books as of it, in one snapshot.
public final class PostgresLedgerFollower: Sendable {
    let database: PostgresDatabase
    let url: String
    let logger: Logger

    public init(_ database: PostgresDatabase, url: String, logger: Logger) {
        self.database = database
        self.url = url
        self.logger = logger
    }

    /// The latest committed ledger's header and its offers (one repeatable-read snapshot), or
    /// nil before genesis.
    public func latest() async throws -> (LedgerHeader, [LedgerOffer], [LiquidityPoolEntry])? {
        try await database.transaction { transaction in
            try await transaction.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            guard let header = try await transaction.rows("SELECT header FROM ledger_headers ORDER BY sequence DESC LIMIT 1", PostgresLedgerStore.bytes).first else {
                return nil
            }
            let offers = try await transaction.rows("SELECT entry FROM offers", PostgresLedgerStore.bytes).map { try LedgerOffer(xdrBytes: $0) }
            let pools = try await transaction.rows("SELECT entry FROM liquidity_pools", PostgresLedgerStore.bytes).map { try LiquidityPoolEntry(xdrBytes: $0) }
            return (try LedgerHeader(xdrBytes: header), offers, pools)
        }
    }

    /// The latest committed ledger, waiting up to `timeout` for the first one (the leader's
    /// genesis, on a new database): heard by `NOTIFY` on a primary (listening starts before the
    /// first look, so a genesis committed in between is not missed); a hot standby, which
    /// cannot LISTEN, is asked every `poll`. Nil when none came in time.
    public func firstLedger(listen: Bool, poll: Duration = .milliseconds(100), timeout: Duration) async throws -> (LedgerHeader, [LedgerOffer], [LiquidityPoolEntry])? {
        let url = self.url, logger = self.logger
        return try await withThrowingTaskGroup(of: (LedgerHeader, [LedgerOffer], [LiquidityPoolEntry])?.self) { group in
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            group.addTask {
                if listen {
                    let connection = try await PostgresDatabase.connect(url: url, id: 3, logger: logger)
                    defer { Task { try? await connection.close() } }
                    let notifications = try await connection.listen(PostgresCluster.ledgerChannel)
                    if let latest = try await self.latest() { return latest }
                    for try await _ in notifications {
                        if let latest = try await self.latest() { return latest }
                    }
                    return nil
                }
                while true {
                    if let latest = try await self.latest() { return latest }
                    try await Task.sleep(for: poll)
                }
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// The latest committed ledger's sequence (a cheap check before ``latest()``).
    public func latestSequence() async throws -> UInt32? {
        try await database.rows("SELECT MAX(sequence) FROM ledger_headers") { try $0.decode(Int64?.self) }.first.flatMap { $0 }.map(UInt32.init)
    }

    /// Calls `onLedger` with each newer ledger and `onBeat` at least every `heartbeat`, until
    /// the task is cancelled. A lost listening connection is opened again. A hot standby cannot
    /// LISTEN (notifications are not replicated): with `listen` false it is asked every `poll`.
    public func run(
        heartbeat: Duration, after sequence: UInt32, listen: Bool = true, poll: Duration = .milliseconds(100),
        onLedger: @escaping @Sendable (LedgerHeader, [LedgerOffer], [LiquidityPoolEntry]) -> Void, onBeat: @escaping @Sendable () -> Void
    ) async throws {
        let (ticks, tick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let url = self.url, logger = self.logger
        try await withThrowingTaskGroup(of: Void.self) { group in
            if listen { group.addTask {
                while !Task.isCancelled {
                    do {
                        let connection = try await PostgresDatabase.connect(url: url, id: 2, logger: logger)
                        defer { Task { try? await connection.close() } }
                        let notifications = try await connection.listen(PostgresCluster.ledgerChannel)
                        tick.yield()
                        for try await _ in notifications { tick.yield() }
                    } catch {
                        logger.warning("listening for new ledgers failed; trying again", metadata: ["error": "\(error)"])
                    }
                    try await Task.sleep(for: heartbeat)
                }
            } }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: listen ? heartbeat : min(poll, heartbeat))
                    tick.yield()
                }
            }
            var latest = sequence
            var lastBeat = ContinuousClock.now
            for await _ in ticks {
                if Task.isCancelled { break }
                do {
                    // The sequence first: a poll that finds nothing new reads nothing else.
                    if let newest = try await self.latestSequence(), newest > latest,
                       let (header, offers, pools) = try await self.latest(), header.sequence > latest {
                        latest = header.sequence
                        onLedger(header, offers, pools)
                    }
                } catch {
                    logger.warning("reading the latest ledger failed", metadata: ["error": "\(error)"])
                }
                if listen || ContinuousClock.now - lastBeat >= heartbeat {
                    lastBeat = ContinuousClock.now
                    onBeat()
                }
            }
            group.cancelAll()
        }
    }
}

/// The first of several answers to one wait, given once: later ones are dropped.
private final class FirstAnswer: Sendable {
    private struct State {
        var continuation: CheckedContinuation<String?, Never>?
        var answered = false
        var whenAnswered: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    func wait(_ continuation: CheckedContinuation<String?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Runs `action` once an answer is given (at once if one was).
    func onAnswer(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.answered { return true }
            state.whenAnswered = action
            return false
        }
        if now { action() }
    }

    func give(_ answer: String?) {
        let taken = state.withLock { state -> (CheckedContinuation<String?, Never>, (@Sendable () -> Void)?)? in
            guard !state.answered, let continuation = state.continuation else { return nil }
            state.answered = true
            state.continuation = nil
            defer { state.whenAnswered = nil }
            return (continuation, state.whenAnswered)
        }
        guard let (continuation, action) = taken else { return }
        continuation.resume(returning: answer)
        action?()
    }
}
