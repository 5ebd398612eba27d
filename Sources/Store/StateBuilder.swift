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
/// Swift's cooperative pool. The caller's side either runs on a queue of its own and waits on
/// the same condition (``add(_:_:)``, ``finish()``: SQLite's reads, on GRDB's queue), or runs in
/// a task and suspends instead (``handOver(_:rows:ends:)``, ``finished()``: PostgreSQL's rows, which
/// arrive in an asynchronous sequence, many entries a row).
package final class StateBuilder: @unchecked Sendable {
    /// Rows in a batch.
    let batchRows: Int
    /// Batches read but not yet filed, at most.
    let maxQueued: Int

    /// Rows of one kind laid end to end in one buffer, the `n`th ending at `ends[n]`.
    private struct Batch {
        var kind: StoredEntryKind
        var bytes: [UInt8] = []
        var ends: [Int] = []

        init(kind: StoredEntryKind, rows: Int) {
            self.kind = kind
            // Room for rows of a bulk account's size; a batch of larger ones grows.
            bytes.reserveCapacity(rows * 128)
            ends.reserveCapacity(rows)
        }

        init(kind: StoredEntryKind, bytes: [UInt8], ends: [Int]) {
            self.kind = kind
            self.bytes = bytes
            self.ends = ends
        }

        mutating func append(_ row: some Collection<UInt8>) {
            bytes.append(contentsOf: row)
            ends.append(bytes.count)
        }
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
    /// A reading task suspended until the thread moves on (takes a batch, or ends).
    private var waiter: CheckedContinuation<Bool, Never>?
    // The reading side's own:
    private var current: Batch?

    /// Starts the building thread with `state` (a header, tables reserved to size).
    package init(_ state: consuming LedgerState, batchRows: Int = 4_096, maxQueued: Int = 4) {
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
    package func add(_ kind: StoredEntryKind, _ bytes: some Collection<UInt8>) throws {
        if let batch = current, batch.kind != kind { try send() }
        if current == nil { current = Batch(kind: kind, rows: batchRows) }
        current!.append(bytes)
        if current!.ends.count == batchRows { try send() }
    }

    /// Hands over many stored entries of `kind` at once, from a reader in a task, as one batch:
    /// laid end to end in `bytes`, the `n`th ending at `ends[n]` (PostgreSQL's rows come so, a
    /// heap chunk's entries in one aggregate). When the thread is behind, the task suspends (its
    /// thread is free for other work) until a batch is taken.
    package func handOver(_ kind: StoredEntryKind, rows bytes: [UInt8], ends: [Int]) async throws {
        precondition(ends.last ?? 0 <= bytes.count, "the last row ends within the bytes")
        guard !ends.isEmpty else { return }
        try await sendSuspending()
        current = Batch(kind: kind, bytes: bytes, ends: ends)
        try await sendSuspending()
    }

    /// ``finish()`` for a reader in a task: suspends until every entry is filed.
    package func finished() async throws -> LedgerState {
        try await sendSuspending()
        condition.withLock {
            readingDone = true
            condition.broadcast()
        }
        await suspend { self.outcome != nil }
        return try condition.withLock { try outcome!.get() }
    }

    private func sendSuspending() async throws {
        guard let batch = current, !batch.ends.isEmpty else { return }
        current = nil
        await suspend { self.queued.count < self.maxQueued || self.outcome != nil }
        try condition.withLock {
            if case .failure(let error) = outcome { throw error }
            queued.append(batch)
            condition.broadcast()
        }
    }

    /// Suspends until `ready` (read under the lock) holds; the thread wakes the task whenever
    /// it takes a batch or ends, and the task looks again. Only the reading side makes
    /// `ready` true by waiting, so it still holds when the task goes on.
    private func suspend(until ready: () -> Bool) async {
        while true {
            let isReady = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                condition.lock()
                if ready() {
                    condition.unlock()
                    continuation.resume(returning: true)
                } else {
                    waiter = continuation
                    condition.unlock()
                }
            }
            if isReady { return }
        }
    }

    /// Waits for every entry handed over to be filed and answers the state.
    /// - Throws: the first entry that did not decode.
    package func finish() throws -> LedgerState {
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
    package func abandon() {
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
        guard let batch = current, !batch.ends.isEmpty else { return }
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
                try state.restore(batch.kind, rows: batch.bytes, ends: batch.ends)
            }
            result = isAbandoned ? .failure(Abandoned()) : .success(state)
        } catch {
            result = .failure(error)
        }
        condition.lock()
        outcome = result
        condition.broadcast()
        let waiting = waiter.take()
        condition.unlock()
        waiting?.resume(returning: false)
    }

    private var isAbandoned: Bool {
        condition.lock()
        defer { condition.unlock() }
        return abandoned
    }

    /// The next batch, waiting for one; nil once reading is done and nothing is left.
    private func next() -> Batch? {
        condition.lock()
        while queued.isEmpty && !readingDone { condition.wait() }
        guard !queued.isEmpty else {
            condition.unlock()
            return nil
        }
        let batch = queued.removeFirst()
        condition.broadcast()
        let waiting = waiter.take()
        condition.unlock()
        waiting?.resume(returning: false)
        return batch
    }
}
