import Foundation
import Ledger
import Logging
@testable import PostgresStore
import StellarBase
import TenderTesting
import Testing

/// The cluster's leadership on a real PostgreSQL: one session holds the lead at a time, taking
/// it moves the epoch on, a leader that lost it never commits again, followers hear each commit.
@Suite("A cluster's leader and its fence", .tags(.slow), TestSpeed.slowSuites)
struct LeaderFenceTests {
    @Test func oneLeadsAtATimeAndAnOldLeaderNeverCommitsAgain() async throws {
        try await TestDatabase.postgres.with { url in try await run(url: try #require(url)) }
    }

    func run(url: String) async throws {
        let logger = Logger(label: "test")
        let database = try PostgresDatabase(url: url, logger: logger)
        defer { database.shutdown() }
        let ledgers = try LedgerStoreContractTests.ledgers().ledgers
        _ = try await PostgresLedgerStore(database)

        let first = try await LeaderSession(url: url, logger: logger)
        let second = try await LeaderSession(url: url, logger: logger)
        // Closed however the test ends (a connection must be closed before it goes).
        defer { Task { await first.close(); await second.close() } }
        let firstFence = try #require(try await first.tryLead())
        #expect(firstFence.epoch == 1)
        #expect(try await second.tryLead() == nil, "the lock is taken")
        try await first.advertise("http://127.0.0.1:1", fence: firstFence)
        #expect(try await PostgresCluster.leaderURL(database) == "http://127.0.0.1:1")

        // A follower hears the leader's commits.
        let follower = PostgresLedgerFollower(database, url: url, logger: logger)
        #expect(try await follower.latest() == nil, "nothing before genesis")
        let heard = Heard()
        let following = Task {
            try await follower.run(heartbeat: .seconds(5), after: 0, onLedger: { header, _, _ in heard.add(header.sequence) }, onBeat: {})
        }
        let leading = try await PostgresLedgerStore(database, fence: firstFence)
        for ledger in ledgers.prefix(3) { try await leading.commit(ledger) }
        // Heard by NOTIFY: the 5 s heartbeat would come too late for the deadline.
        let woken = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { await heard.wait(for: ledgers[2].header.sequence); return true }
            group.addTask {
                try await Task.sleep(for: .seconds(4))
                heard.releaseWaits()
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        #expect(woken && heard.last == ledgers[2].header.sequence, "woken by NOTIFY well before the 5 s heartbeat")
        following.cancel()

        // The first leader's session ends (as if its process died): the second takes the lead.
        await first.close()
        var secondFence: LeaderFence?
        for _ in 0..<50 where secondFence == nil {
            secondFence = try await second.tryLead()
            if secondFence == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(secondFence?.epoch == 2)
        #expect(try await PostgresCluster.leaderURL(database) == nil, "the old address is cleared")
        // The old leader's store, not yet aware: its next commit is refused inside its transaction.
        let refused = await #expect(throws: LeadershipLost.self) { try await leading.commit(ledgers[3]) }
        #expect(refused?.description.contains("another node took the lead") == true)
        #expect(firstFence.isLost)
        #expect(try await database.rows("SELECT COUNT(*) FROM ledger_headers") { try $0.decode(Int64.self) }.first == 3)
        // The new leader goes on from the last committed ledger.
        let newLeader = try await PostgresLedgerStore(database, fence: try #require(secondFence))
        #expect(try await newLeader.loadState()?.header == ledgers[2].header)
        try await newLeader.commit(ledgers[3])
        // A fence lost (its session seen closing) refuses before writing anything, in the
        // gateway's store too.
        let gateway = try await PostgresGatewayStore(database, fence: try #require(secondFence))
        try await gateway.markInterruptedIdempotencyKeys()
        secondFence?.lose()
        await #expect(throws: LeadershipLost.self) { try await gateway.markInterruptedIdempotencyKeys() }
        await #expect(throws: LeadershipLost.self) { try await newLeader.commit(ledgers[4]) }
        #expect(try await database.rows("SELECT COUNT(*) FROM ledger_headers") { try $0.decode(Int64.self) }.first == 4)
    }

    /// The watch's probe answered within its timeout whatever the probe does: one that never
    /// ends and ignores its cancellation (a query on a connection that stopped reading) is
    /// answered by the timeout; one that ends, by its own answer. Before session 61 the probe
    /// and its timer were a task group's children, and the group waited for the probe.
    @Test(.timeLimit(.minutes(1))) func aProbeThatNeverEndsIsAnsweredByTheTimeout() async throws {
        let gate = Gate()
        let stuck = await LeaderSession.failure(within: .milliseconds(50)) { await gate.wait() }
        #expect(stuck?.contains("did not answer within") == true, "\(stuck ?? "nil")")
        gate.open()
        #expect(await LeaderSession.failure(within: .seconds(30)) {} == nil)
        struct Refused: Error {}
        let failed = await LeaderSession.failure(within: .seconds(30)) { throw Refused() }
        #expect(failed?.contains("failed: Refused") == true, "\(failed ?? "nil")")
    }

    @Test func aLeaderWhoseSessionIsTerminatedStopsAtOnce() async throws {
        try await TestDatabase.postgres.with { url in
            let url = try #require(url)
            let logger = Logger(label: "test")
            let database = try PostgresDatabase(url: url, logger: logger)
            defer { database.shutdown() }
            _ = try await PostgresLedgerStore(database)
            let session = try await LeaderSession(url: url, logger: logger)
            defer { Task { await session.close() } }
            let fence = try #require(try await session.tryLead())
            let watching = Task { try await session.watch(fence, every: .milliseconds(100)) }
            let pid = try #require(try await PostgresCluster.leaderPID(database))
            try await database.execute("SELECT pg_terminate_backend(\(pid))")
            let result = await watching.result
            #expect(throws: LeadershipLost.self) { try result.get() }
            #expect(fence.isLost)
        }
    }
}

/// The ledgers a follower heard, and a wait for one: no polling.
final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var sequences: [UInt32] = []
    private var waiters: [(UInt32, CheckedContinuation<Void, Never>)] = []

    func add(_ sequence: UInt32) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            sequences.append(sequence)
            let ready = waiters.filter { $0.0 <= sequence }.map(\.1)
            waiters.removeAll { $0.0 <= sequence }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    var last: UInt32 { lock.withLock { sequences.last ?? 0 } }

    /// Lets every wait return (a deadline passed).
    func releaseWaits() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            defer { waiters = [] }
            return waiters.map(\.1)
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Returns once a ledger of `sequence` or later was heard (or ``releaseWaits()``).
    func wait(for sequence: UInt32) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let heard = lock.withLock { () -> Bool in
                if (sequences.last ?? 0) >= sequence { return true }
                waiters.append((sequence, continuation))
                return false
            }
            if heard { continuation.resume() }
        }
    }
}

/// A wait that ignores cancellation, until opened.
final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if isOpen { return true }
                waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            isOpen = true
            defer { waiting = [] }
            return waiting
        }
        for continuation in ready { continuation.resume() }
    }
}
