import Foundation
import GRDB
import TenderTesting
import Testing
@testable import Store

@Suite("Group commit of small writes")
struct GroupCommitWriterTests {
    let temporary = TemporaryDirectory("group-commit")

    /// 2,000 concurrent writes, every tenth failing: each caller gets its own outcome, the failed
    /// ones leave nothing behind, the others are all there, in fewer transactions than writes.
    @Test func concurrentWritesShareTransactionsAndFailAlone() async throws {
        let pool = try DatabasePool(path: temporary.file("db.sqlite"))
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t (n INTEGER PRIMARY KEY)") }
        let writer = GroupCommitWriter(database: pool)
        let transactions = Counter()
        pool.add(transactionObserver: transactions)
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for n in 0..<2_000 {
                group.addTask {
                    do {
                        try await writer.write { db in
                            try db.execute(sql: "INSERT INTO t (n) VALUES (?)", arguments: [n])
                            if n % 10 == 0 { throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "refused on purpose") }
                        }
                        return (n, true)
                    } catch {
                        return (n, false)
                    }
                }
            }
            var outcomes: [Int: Bool] = [:]
            for await (n, ok) in group { outcomes[n] = ok }
            return outcomes
        }
        #expect(outcomes.count == 2_000)
        #expect(outcomes.allSatisfy { $0.value == ($0.key % 10 != 0) })
        let stored = try await pool.read { db in try Int.fetchAll(db, sql: "SELECT n FROM t ORDER BY n") }
        #expect(stored == (0..<2_000).filter { $0 % 10 != 0 })
        #expect(transactions.commits < 2_000, "\(transactions.commits) transactions for 2,000 writes")
        // A value comes back out of the transaction.
        #expect(try await writer.write { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1_800)
    }
}

/// Counts committed transactions.
final class Counter: TransactionObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var commits: Int { lock.withLock { count } }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { lock.withLock { count += 1 } }
    func databaseDidRollback(_ db: Database) {}
}
