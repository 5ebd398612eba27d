import Foundation
import GRDB

/// Group commit for a database's small writes: the writes that arrive while a transaction is
/// being committed wait, then run together in the next one, each in a savepoint of its own (one
/// failing rolls back only itself), and all are answered once that transaction is durable. Many
/// concurrent requests then share one fsync instead of queueing for one each.
final class GroupCommitWriter: @unchecked Sendable {
    /// One write: `run` inside the shared transaction, `finish` after it (with the commit's
    /// outcome), which resumes its caller.
    private struct Job: @unchecked Sendable {
        let run: (Database) -> Void
        let finish: (Result<Void, any Error>) -> Void
    }

    private let database: DatabasePool
    private let lock = NSLock()
    private var pending: [Job] = []
    private var committing = false
    /// The most writes in one transaction.
    static let batchLimit = 512

    init(database: DatabasePool) { self.database = database }

    /// Runs `body` in a savepoint of the next group transaction; returns its result once that
    /// transaction has committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let outcome = Outcome<T>()
            let job = Job(
                run: { db in
                    do {
                        var value: T?
                        try db.inSavepoint {
                            value = try body(db)
                            return .commit
                        }
                        outcome.result = .success(value!)
                    } catch {
                        outcome.result = .failure(error)
                    }
                },
                finish: { commit in
                    switch (commit, outcome.result) {
                    case (.failure(let error), _): continuation.resume(throwing: error)
                    case (.success, let result?): continuation.resume(with: result)
                    case (.success, nil): continuation.resume(throwing: DatabaseError(resultCode: .SQLITE_ABORT, message: "the write did not run"))
                    }
                })
            let start: Bool = lock.withLock {
                pending.append(job)
                guard !committing else { return false }
                committing = true
                return true
            }
            if start { commitNext() }
        }
    }

    /// Commits what is pending in one transaction, then again while more arrived meanwhile.
    private func commitNext() {
        let batch: [Job] = lock.withLock {
            let batch = Array(pending.prefix(Self.batchLimit))
            pending.removeFirst(batch.count)
            if batch.isEmpty { committing = false }
            return batch
        }
        guard !batch.isEmpty else { return }
        database.asyncWrite({ db in
            for job in batch { job.run(db) }
        }, completion: { [self] _, result in
            let commit = result.map { _ in () }
            for job in batch { job.finish(commit) }
            commitNext()
        })
    }

    /// A write's own result, set inside the transaction and read after it (both on GRDB's
    /// writer queue, one after the other).
    private final class Outcome<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }
}
