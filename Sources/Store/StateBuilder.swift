import Foundation
import Ledger

/// Builds a ledger state from stored entries on a thread of its own while the caller goes on
/// reading the next rows.
///
/// Loading a large state is two halves of about equal cost: reading the rows (the database's
/// pages, the kernel's copies) and decoding each entry and filing it in the state's tables.
/// With the two on different threads they overlap on two cores. Rows travel in batches, and
/// at most `maxQueued` batches wait, so memory stays bounded however large the state.
///
/// The thread is a `Thread`, not a task: it waits on a condition, which must not happen on
/// Swift's cooperative pool. The caller's side (``add(_:_:)``, ``finish()``) runs on the
/// database's own queue for the same reason.
final class StateBuilder: @unchecked Sendable {
    /// Rows in a batch.
    let batchRows: Int
    /// Batches read but not yet filed, at most.
    let maxQueued: Int

    private struct Batch {
        var kind: StoredEntryKind
        var rows: [[UInt8]] = []
    }

    private let condition = NSCondition()
    // Guarded by `condition`:
    private var queued: [Batch] = []
    private var readingDone = false
    private var abandoned = false
    private var outcome: Result<LedgerState, any Error>?
    /// The state handed over, until the thread takes it (so only one reference exists when it
    /// is filled: a second would copy its reserved tables on the first write).
    private var initial: LedgerState?
    // The reading side's own:
    private var current: Batch?

    /// Starts the building thread with `state` (a header, tables reserved to size).
    init(_ state: consuming LedgerState, batchRows: Int = 4_096, maxQueued: Int = 4) {
        precondition(batchRows > 0 && maxQueued > 0, "a batch holds a row and one batch may wait")
        self.batchRows = batchRows
        self.maxQueued = maxQueued
        initial = state
        let thread = Thread { [self] in build() }
        thread.name = "tender.load"
        thread.start()
    }

    /// Hands over one stored entry of `kind`, in Tender's storage encoding.
    /// - Throws: the error that stopped the building thread (an entry that did not decode).
    func add(_ kind: StoredEntryKind, _ bytes: [UInt8]) throws {
        if let batch = current, batch.kind != kind { try send() }
        if current == nil { current = Batch(kind: kind) }
        current!.rows.append(bytes)
        if current!.rows.count == batchRows { try send() }
    }

    /// Waits for every entry handed over to be filed and answers the state.
    /// - Throws: the first entry that did not decode.
    func finish() throws -> LedgerState {
        try send()
        condition.lock()
        defer { condition.unlock() }
        readingDone = true
        condition.broadcast()
        while outcome == nil { condition.wait() }
        return try outcome!.get()
    }

    /// Stops the building thread without a state: reading failed. Batches not yet filed are
    /// dropped and the thread ends (it would otherwise wait for rows for ever).
    func abandon() {
        current = nil
        condition.lock()
        defer { condition.unlock() }
        queued = []
        readingDone = true
        abandoned = true
        condition.broadcast()
    }

    /// What ``finish()`` throws after ``abandon()``.
    struct Abandoned: Error {}

    private func send() throws {
        guard let batch = current, !batch.rows.isEmpty else { return }
        current = nil
        condition.lock()
        defer { condition.unlock() }
        while queued.count >= maxQueued && outcome == nil { condition.wait() }
        if case .failure(let error) = outcome { throw error }
        queued.append(batch)
        condition.broadcast()
    }

    private func build() {
        condition.lock()
        var state = initial.take()!
        condition.unlock()
        let result: Result<LedgerState, any Error>
        do {
            while let batch = next() {
                for row in batch.rows { try state.restore(batch.kind, xdrBytes: row) }
            }
            result = isAbandoned ? .failure(Abandoned()) : .success(state)
        } catch {
            result = .failure(error)
        }
        condition.lock()
        outcome = result
        condition.broadcast()
        condition.unlock()
    }

    private var isAbandoned: Bool {
        condition.lock()
        defer { condition.unlock() }
        return abandoned
    }

    /// The next batch, waiting for one; nil once reading is done and nothing is left.
    private func next() -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        while queued.isEmpty && !readingDone { condition.wait() }
        guard !queued.isEmpty else { return nil }
        let batch = queued.removeFirst()
        condition.broadcast()
        return batch
    }
}
