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
            try await follower.run(heartbeat: .seconds(5), after: 0, onLedger: { header, _ in heard.add(header.sequence) }, onBeat: {})
        }
        let leading = try await PostgresLedgerStore(database, fence: firstFence)
        for ledger in ledgers.prefix(3) { try await leading.commit(ledger) }
        for _ in 0..<100 where heard.last < ledgers[2].header.sequence { try await Task.sleep(for: .milliseconds(20)) }
        #expect(heard.last == ledgers[2].header.sequence, "woken by NOTIFY well before the 5 s heartbeat")
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

final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var sequences: [UInt32] = []
    func add(_ sequence: UInt32) { lock.withLock { sequences.append(sequence) } }
    var last: UInt32 { lock.withLock { sequences.last ?? 0 } }
}
