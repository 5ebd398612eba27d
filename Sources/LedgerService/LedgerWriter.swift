import Dispatch
import Foundation
import Ledger
import Logging
import StellarBase

/// The outcome of a submission.
public enum SubmissionResult: Sendable {
    /// In a committed ledger, durable: successful or failed with its fee taken.
    case applied(StoredTransaction)
    /// Refused before entering a ledger; nothing changed.
    case rejected(TransactionResult)

    public var result: TransactionResult {
        switch self {
        case .applied(let stored): stored.result
        case .rejected(let result): result
        }
    }
}

/// Why the writer cannot take submissions, or why it stopped.
public struct LedgerWriterError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A ledger could not be committed: the writer stopped (fail-stop).
        public static let commitFailed = Code(rawValue: "ledger_commit_failed")
        /// The writer is shutting down gracefully and takes nothing new.
        public static let shuttingDown = Code(rawValue: "ledger_writer_shutting_down")
        /// The writer's loop has ended.
        public static let stopped = Code(rawValue: "ledger_writer_stopped")
        /// The writer's configuration is out of bounds.
        public static let invalidConfiguration = Code(rawValue: "ledger_writer_invalid_configuration")
    }

    public let code: Code
    public let message: String
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code): \(message)" }
}

/// The single writer of the ledger: queues submissions, closes ledgers and commits each one
/// before answering the transactions in it.
///
/// The queue and the sets of waiting and committing transactions are a pure
/// ``LedgerWriterStateMachine``; ``run()`` is the one loop that performs what it asks: it waits
/// for a wake-up (a submission that wants a ledger now, the close interval's tick, a graceful
/// shutdown), applies a batch, commits it, answers, and asks again.
///
/// With a close interval of zero it runs in group-commit mode: a ledger closes as soon as
/// transactions are waiting and the previous ledger has committed, so whatever arrives during
/// one commit shares the next ledger. Otherwise a ledger closes every interval, and a full batch
/// closes one at once.
public actor LedgerWriter {
    public struct Configuration: Sendable {
        /// Transactions a ledger may hold: Horizon's TOIDs keep a transaction's place in its
        /// ledger in 20 bits.
        public static let batchLimits = 1...((1 << 20) - 1)

        public var network: Network
        /// Zero: group commit.
        public var closeInterval: Duration
        /// The most transactions in one ledger.
        public var batchLimit: Int

        /// - Throws: ``LedgerWriterError`` (`invalidConfiguration`) for a batch limit outside
        ///   ``batchLimits`` or a negative close interval.
        public init(network: Network, closeInterval: Duration = .seconds(1), batchLimit: Int = 1000) throws(LedgerWriterError) {
            guard Self.batchLimits.contains(batchLimit) else {
                throw LedgerWriterError(code: .invalidConfiguration, message: "the batch limit must be 1 to \(Self.batchLimits.upperBound) transactions (a ledger numbers its transactions in 20 bits), not \(batchLimit)")
            }
            guard closeInterval >= .zero else {
                throw LedgerWriterError(code: .invalidConfiguration, message: "the close interval cannot be negative")
            }
            self.network = network
            self.closeInterval = closeInterval
            self.batchLimit = batchLimit
        }
    }

    /// Answers one submission.
    typealias Reply = @Sendable (Result<SubmissionResult, any Error>) -> Void

    /// What wakes the loop.
    private enum WakeUp: Sendable {
        case work, tick, shutdown
    }

    public nonisolated let configuration: Configuration
    /// Signatures made in this process by its own desks, not verified again when submitted.
    public nonisolated let ownSignatures = OwnSignatures()
    /// Announces every committed ledger, for streams waiting for new records.
    public nonisolated let commits: LedgerCommits
    /// Counters and timings of the writer, for `/metrics`.
    public nonisolated let metrics: LedgerWriterMetrics
    private let store: any LedgerStore
    private let logger: Logger
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> UInt64
    /// The ledger state and the accounts memory is ahead of the disk for; other threads read
    /// accounts from it between the writer's changes.
    public nonisolated let committedAccounts: CommittedAccounts
    private var machine: LedgerWriterStateMachine<Reply>
    private let wakeUps: AsyncStream<WakeUp>
    private let wakeUp: AsyncStream<WakeUp>.Continuation

    /// Opens the ledger in `store`, or starts a new network at genesis and commits it.
    /// - Parameters:
    ///   - clock: what the close interval and the streams' heartbeat are measured on.
    ///   - now: the close time of new ledgers, in seconds since 1970.
    /// - Throws: when the store cannot be read or written.
    public init(
        store: any LedgerStore, configuration: Configuration, logger: Logger, metrics: LedgerWriterMetrics = LedgerWriterMetrics(),
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> UInt64
    ) async throws {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
        self.now = now
        self.machine = LedgerWriterStateMachine(isGroupCommit: configuration.closeInterval == .zero, batchLimit: configuration.batchLimit)
        (wakeUps, wakeUp) = AsyncStream.makeStream(of: WakeUp.self)
        if let state = try await store.loadState() {
            self.committedAccounts = CommittedAccounts(state)
            self.commits = LedgerCommits(header: state.header, orderBook: OrderBookSnapshot(state))
            logger.info("ledger opened", metadata: ["ledger.sequence": "\(state.header.sequence)"])
        } else {
            let (genesis, closed) = try LedgerState.genesisLedger(network: configuration.network, closeTime: now())
            try await store.commit(closed)
            self.committedAccounts = CommittedAccounts(genesis)
            self.commits = LedgerCommits(header: genesis.header, orderBook: OrderBookSnapshot(genesis))
            logger.info("new network at genesis", metadata: ["ledger.sequence": "\(genesis.header.sequence)"])
        }
    }

    /// The header of the last closed ledger.
    public var header: LedgerHeader { committedAccounts.withHeld { $0.state.header } }

    /// A read of the current in-memory state (for the writer's own clients: friendbot and the
    /// test anchor read their sequence numbers here; Horizon's reads use the store and the
    /// published snapshots).
    public func read<T: Sendable>(_ body: @Sendable (LedgerState) -> T) -> T { committedAccounts.withHeld { body($0.state) } }

    /// An account as the last committed ledger left it, read from memory when memory holds that:
    /// always, except for the accounts of a ledger applied but still being committed (then
    /// ``CommittedAccount/unknown``: read the store, which has the committed one).
    public func committedAccount(_ id: AccountID) -> CommittedAccount {
        committedAccounts.withHeld { $0.account(id) }
    }

    /// Submits a transaction and returns once its ledger is committed, or at once if it is
    /// refused. The same transaction submitted again gets the stored result.
    /// - Throws: ``LedgerWriterError`` when the writer has failed or is shutting down; a store
    ///   error when reading the history fails.
    public nonisolated func submit(_ envelope: TransactionEnvelope) async throws -> SubmissionResult {
        // Hashing and signature checks run here, on the caller's thread, in parallel with
        // other submissions; only the apply is serialized.
        let prepared = PreparedTransaction.prepare(envelope, network: configuration.network, own: ownSignatures)
        let result = try await enqueue(prepared)
        return try await replayIfApplied(prepared, result)
    }

    /// ``submit(_:)``, answering nil when the deadline `deadlines` sets passes first. The
    /// transaction goes on all the same: its ledger still commits, and its result can be found
    /// by hash.
    /// - Throws: as ``submit(_:)``.
    public nonisolated func submit(_ envelope: TransactionEnvelope, within deadlines: SubmissionDeadlines) async throws -> SubmissionResult? {
        let prepared = PreparedTransaction.prepare(envelope, network: configuration.network, own: ownSignatures)
        guard let result = try await enqueue(prepared, within: deadlines) else { return nil }
        return try await replayIfApplied(prepared, result)
    }

    /// Submits transactions that must be applied in the given order (consecutive sequence
    /// numbers of one account, say): they are queued together, so none overtakes another.
    /// With `closeAtOnce` a ledger closes without waiting for the close interval.
    /// - Throws: as ``submit(_:)``.
    public nonisolated func submitInOrder(_ envelopes: [TransactionEnvelope], closeAtOnce: Bool = false) async throws -> [SubmissionResult] {
        let prepared = envelopes.map { PreparedTransaction.prepare($0, network: configuration.network, own: ownSignatures) }
        let results = try await enqueueInOrder(prepared, closeAtOnce: closeAtOnce)
        var answers: [SubmissionResult] = []
        for (transaction, result) in zip(prepared, results) {
            answers.append(try await replayIfApplied(transaction, result))
        }
        return answers
    }

    /// Applies `envelopes` in order, closing ledgers at once, before ``run()`` has started
    /// (setting up a network before serving it: the test anchor's issuers). The same steps as
    /// the loop, driven here.
    /// - Throws: ``LedgerWriterError`` when a commit fails.
    public func applyBeforeServing(_ envelopes: [TransactionEnvelope]) async throws -> [SubmissionResult] {
        precondition(!commits.isWriterRunning, "the loop closes ledgers once it runs")
        let prepared = envelopes.map { PreparedTransaction.prepare($0, network: configuration.network) }
        let collector = ReplyCollector(count: prepared.count)
        nonisolated(unsafe) var outcome: Result<[SubmissionResult], any Error>?
        collector.onComplete = { outcome = $0 }
        for (index, transaction) in prepared.enumerated() {
            register(transaction, closeAtOnce: true) { collector.set(index, $0) }
        }
        while case .close(let batch) = machine.nextStep() {
            try await closeAndCommit(batch)
        }
        guard let outcome else { preconditionFailure("every transaction is answered once its ledger has closed") }
        return try outcome.get()
    }

    /// Runs `body` with the loop running beside it (a benchmark, a test), then shuts the loop
    /// down gracefully and waits for it.
    /// - Throws: what `body` throws, or the loop's ``LedgerWriterError``.
    public nonisolated func running<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.run() }
            let value: T
            do {
                value = try await body()
            } catch {
                shutDownGracefully()
                group.cancelAll()
                throw error
            }
            shutDownGracefully()
            try await group.waitForAll()
            return value
        }
    }

    /// Asks the loop to finish what is queued and return. Safe to call from anywhere, any time.
    public nonisolated func shutDownGracefully() {
        wakeUp.yield(.shutdown)
    }

    private func enqueueInOrder(_ prepared: [PreparedTransaction], closeAtOnce: Bool) async throws -> [SubmissionResult] {
        // Every transaction is queued in this one actor turn, so nothing comes between them.
        let collector = ReplyCollector(count: prepared.count)
        return try await withCheckedThrowingContinuation { continuation in
            collector.onComplete = { continuation.resume(with: $0) }
            for (index, transaction) in prepared.enumerated() {
                register(transaction, closeAtOnce: closeAtOnce) { collector.set(index, $0) }
            }
        }
    }

    private nonisolated func replayIfApplied(_ prepared: PreparedTransaction, _ result: SubmissionResult) async throws -> SubmissionResult {
        // A transaction already in the ledger comes back with a bad sequence number (its
        // sequence was consumed); only then is history read, so the common path stays off disk.
        if case .rejected(let rejection) = result, rejection.code == .badSequence,
           let stored = try await store.transaction(hash: prepared.hash) {
            return .applied(stored)
        }
        return result
    }

    /// Queues one transaction and waits for its answer. A cancelled caller stops waiting at once
    /// (with `CancellationError`); the transaction is queued all the same (even when the caller
    /// was cancelled before it got here) and applied, and its result can be found by hash.
    private func enqueue(_ prepared: PreparedTransaction) async throws -> SubmissionResult {
        try await wait(for: prepared, answer: AnswerOnce<SubmissionResult>()) { $0 }
    }

    /// ``enqueue(_:)``, answering nil when `deadlines` calls time first.
    private func enqueue(_ prepared: PreparedTransaction, within deadlines: SubmissionDeadlines) async throws -> SubmissionResult? {
        let answer = AnswerOnce<SubmissionResult?>()
        let ticket = deadlines.add { answer.resume(with: .success(nil)) }
        defer { deadlines.remove(ticket) }
        return try await wait(for: prepared, answer: answer) { $0 }
    }

    /// Queues `prepared` and waits for `answer`: the writer's (through `value`), a cancellation,
    /// or whatever else resumes it first.
    private func wait<Value: Sendable>(
        for prepared: PreparedTransaction, answer: AnswerOnce<Value>, _ value: @escaping @Sendable (SubmissionResult) -> Value
    ) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.arm(continuation)
                // Once the caller has been answered (cancelled), the writer's answer is dropped.
                register(prepared, closeAtOnce: false) { answer.resume(with: $0.map(value)) }
            }
        } onCancel: {
            answer.resume(with: .failure(CancellationError()))
        }
    }

    private func register(_ prepared: PreparedTransaction, closeAtOnce: Bool, reply: @escaping Reply) {
        switch machine.submit(prepared, closeAtOnce: closeAtOnce, reply: reply) {
        case .queued(let wakeLoop):
            metrics.queueDepth(machine.queueDepth)
            if wakeLoop { wakeUp.yield(.work) }
        case .refused(let error):
            reply(.failure(error))
        }
    }

    private func answer(_ answers: [LedgerWriterStateMachine<Reply>.Answer]) {
        for (reply, result) in answers { reply(result.mapError { $0 }) }
    }

    /// The writer's loop: closes ledgers as the state machine asks until a graceful shutdown has
    /// drained the queue, or the task is cancelled. Beside it, one timer task ticks the close
    /// interval and one sends the streams' heartbeat; both end with the loop.
    /// - Throws: ``LedgerWriterError`` (`commitFailed`) when a commit failed: the writer stops
    ///   for good, and the process should exit and be restarted from its last durable ledger;
    ///   (`stopped`) when the loop has already run: it runs once per writer.
    public func run() async throws {
        // One loop per writer: when it ends, the commit broadcast closes for good.
        switch machine.phase {
        case .running: break
        case .failed(let error): throw error
        case .draining, .stopped: throw LedgerWriterError(code: .stopped, message: "the ledger writer's loop has already run")
        }
        commits.writerStarted()
        defer { commits.close() }
        let clock = self.clock
        let interval = configuration.closeInterval
        let wakeUp = self.wakeUp
        let commits = self.commits
        try await withThrowingTaskGroup(of: Void.self) { group in
            if interval > .zero {
                group.addTask {
                    while true {
                        try await clock.sleep(for: interval)
                        wakeUp.yield(.tick)
                    }
                }
            }
            group.addTask {
                while true {
                    try await clock.sleep(for: LedgerCommits.heartbeatInterval)
                    commits.heartbeat()
                }
            }
            defer { group.cancelAll() }
            try await loop()
        }
    }

    private func loop() async throws {
        for await event in wakeUps {
            switch event {
            case .work: break
            case .tick: _ = machine.timerFired()
            case .shutdown: _ = machine.shutdownRequested()
            }
            while true {
                switch machine.nextStep() {
                case .close(let batch):
                    try await closeAndCommit(batch)
                    continue
                case .wait:
                    break
                case .stop:
                    if case .failed(let error) = machine.phase { throw error }
                    return
                }
                break
            }
        }
        // Cancelled: nothing more will be closed; whoever waits is told so.
        answer(machine.cancelled(LedgerWriterError(code: .stopped, message: "the ledger writer has stopped")))
    }

    private func closeAndCommit(_ batch: [PreparedTransaction]) async throws {
        let closed: ClosedLedger
        let applyStarted = ContinuousClock.now
        let closeTime = now()
        do {
            // The accounts it touches are marked in the same hold: no reader sees the state
            // ahead of the disk without knowing it.
            closed = try committedAccounts.withHeld { held in
                let closed = try held.state.closeLedger(batch, closeTime: closeTime)
                held.uncommitted = closed.changes.touchedAccounts
                return closed
            }
        } catch {
            let sequence = committedAccounts.withHeld { $0.state.header.sequence } + 1
            logger.critical("ledger did not close: \(error)", metadata: ["ledger.sequence": "\(sequence)"])
            answer(machine.ledgerFailedToClose())
            return
        }
        answer(machine.ledgerClosed(closed))
        let commitStarted = ContinuousClock.now
        let touched = closed.changes.touchedAccounts
        do {
            try await store.commit(closed)
            committedAccounts.withHeld { $0.uncommitted = [] }
        } catch {
            // Memory is now ahead of the disk: stop for good. A restart reloads the last
            // committed ledger, which does not hold these transactions; none was answered as applied.
            let failure = LedgerWriterError(code: .commitFailed, message: "ledger \(closed.header.sequence) was not committed: \(error)")
            logger.critical("\(failure.message)", metadata: ["ledger.sequence": "\(closed.header.sequence)"])
            answer(machine.commitFailed(failure))
            throw failure
        }
        let committed = ContinuousClock.now
        // Only the markets this ledger touched are read again; the state is still the one just
        // committed (the next ledger closes only after this).
        let poolsChanged = !closed.changes.liquidityPools.isEmpty
        let orderBook = closed.changes.offerMarkets.isEmpty && !poolsChanged
            ? nil : committedAccounts.withHeld { commits.orderBook.updating(closed.changes.offerMarkets, poolsChanged: poolsChanged, from: $0.state) }
        commits.publish(closed.header, touched: touched, orderBook: orderBook)
        answer(machine.ledgerCommitted())
        metrics.ledgerClosed(closed, applyDuration: commitStarted - applyStarted, commitDuration: committed - commitStarted, queueDepth: machine.queueDepth)
        logger.debug("ledger committed", metadata: [
            "ledger.sequence": "\(closed.header.sequence)", "ledger.transactions": "\(batch.count)",
            "ledger.commit_duration": "\(committed - commitStarted)",
        ])
    }
}

/// What memory knows of an account's committed state.
public enum CommittedAccount: Sendable {
    /// The account with its trustlines (it has no other subentries but signers).
    case record(AccountRecord)
    /// No such account in the committed ledger.
    case missing
    /// Memory is ahead of the disk for it, or cannot give all of it: read the store.
    case unknown

    /// The account, when memory gave it.
    public var account: AccountEntry? {
        if case .record(let record) = self { record.account } else { nil }
    }
}

/// Resumes a submitter's continuation once: with the writer's answer, or with a cancellation
/// (or a deadline) if that comes first.
private final class AnswerOnce<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?
    private var early: Result<Value, any Error>?
    private var isDone = false

    /// Hands over the continuation, resumed at once when the answer came first.
    func arm(_ continuation: CheckedContinuation<Value, any Error>) {
        let early: Result<Value, any Error>? = lock.withLock {
            if let early = self.early { return early }
            self.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(with result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>? = lock.withLock {
            guard !isDone else { return nil }
            isDone = true
            if self.continuation == nil { early = result }
            defer { self.continuation = nil }
            return self.continuation
        }
        continuation?.resume(with: result)
    }
}

/// Gathers the answers of transactions submitted together and hands them over when all are in.
private final class ReplyCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [SubmissionResult?]
    private var remaining: Int
    private var failed = false
    var onComplete: (@Sendable (Result<[SubmissionResult], any Error>) -> Void)?

    init(count: Int) {
        results = Array(repeating: nil, count: count)
        remaining = count
    }

    func set(_ index: Int, _ result: Result<SubmissionResult, any Error>) {
        lock.lock()
        let complete: Result<[SubmissionResult], any Error>?
        switch result {
        case .success(let value):
            results[index] = value
            remaining -= 1
            complete = remaining == 0 && !failed ? .success(results.map { $0! }) : nil
        case .failure(let error):
            complete = failed ? nil : .failure(error)
            failed = true
        }
        let onComplete = self.onComplete
        lock.unlock()
        if let complete { onComplete?(complete) }
    }
}
