import Foundation
import Logging
import Synchronization
@testable import PostgresStore
import TenderTesting
import Testing

/// The pooled client under Tender's stores on a real PostgreSQL.
@Suite("A PostgreSQL database's client", .tags(.slow), TestSpeed.slowSuites)
struct PostgresDatabaseTests {
    /// A statement asked for the moment the client is made finds it running: the pool's run
    /// begins before the initializer returns, so postgres-nio has no cause to warn that
    /// `PostgresClient.run()` was not called (it did, now and then, when the task that runs the
    /// pool had not begun by the first lease: under load, as in a full test run).
    @Test func aStatementAskedForAtOnceFindsTheClientRunning() async throws {
        try await TestDatabase.postgres.with { url in
            let url = try #require(url)
            let notices = RecordingLogHandler()
            let logger = Logger(label: "test") { _ in notices }
            // The cooperative pool's other threads kept busy, so that a task the client starts
            // cannot begin before this one first waits: the moment the warning came from. Held a
            // tenth of a second at most once they run (the first lease is asked for within
            // microseconds), so that the tests beside this one are not starved while the
            // statement waits for the pool (the wait for them to run bounded too, should other
            // tests hold the threads a while).
            let busy = BusyThreads(count: max(ProcessInfo.processInfo.activeProcessorCount - 1, 0))
            defer { busy.release() }
            busy.waitUntilRunning(seconds: 1)
            busy.release(after: .milliseconds(100))
            do {
                let database = try PostgresDatabase(url: url, logger: logger)
                defer { database.shutdown() }
                #expect(try await database.rows("SELECT 1", { try $0.decode(Int.self) }) == [1])
            }
            busy.release()
            for _ in 0..<20 {
                let database = try PostgresDatabase(url: url, logger: logger)
                defer { database.shutdown() }
                async let first = database.rows("SELECT 1", { try $0.decode(Int.self) })
                async let second = database.rows("SELECT 2", { try $0.decode(Int.self) })
                #expect(try await first + second == [1, 2])
            }
            #expect(!notices.messages.contains { $0.contains("hasn't been called") }, "\(notices.messages)")
        }
    }
}

/// Tasks that each hold a thread of the cooperative pool until released.
private final class BusyThreads: Sendable {
    private let running = Atomic<Int>(0)
    private let released = Atomic<Bool>(false)
    private let count: Int

    init(count: Int) {
        self.count = count
        for _ in 0..<count {
            Task.detached { [self] in
                running.add(1, ordering: .sequentiallyConsistent)
                while !released.load(ordering: .sequentiallyConsistent) {}
            }
        }
    }

    /// Spins (holding this thread too) until every task runs, or `seconds` pass.
    func waitUntilRunning(seconds: Double) {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while running.load(ordering: .sequentiallyConsistent) < count, ContinuousClock.now < deadline {}
    }

    func release() { released.store(true, ordering: .sequentiallyConsistent) }

    /// Releases them after `delay` from a thread outside the cooperative pool.
    func release(after delay: DispatchTimeInterval) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in release() }
    }
}
