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

/// Why the writer cannot take submissions.
public struct LedgerWriterError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// The single writer of the ledger: queues submissions, closes ledgers and commits each one
/// before answering the transactions in it.
///
/// With a close interval of zero it runs in group-commit mode: a ledger closes as soon as
/// transactions are waiting and the previous ledger has committed, so whatever arrives during
/// one commit shares the next ledger. Otherwise ``run()`` closes a ledger every interval, and a
/// full batch closes one at once.
public actor LedgerWriter {
    public struct Configuration: Sendable {
        public var network: Network
        /// Zero: group commit.
        public var closeInterval: Duration
        /// The most transactions in one ledger.
        public var batchLimit: Int

        public init(network: Network, closeInterval: Duration = .seconds(1), batchLimit: Int = 1000) {
            self.network = network
            self.closeInterval = closeInterval
            self.batchLimit = batchLimit
        }
    }

    /// Answers one submission.
    typealias Reply = @Sendable (Result<SubmissionResult, any Error>) -> Void

    private struct Waiting {
        var prepared: PreparedTransaction
        var replies: [Reply]
    }

    public nonisolated let configuration: Configuration
    /// Announces every committed ledger, for streams waiting for new records.
    public nonisolated let commits: LedgerCommits
    private let store: any LedgerStore
    private let logger: Logger
    private let now: @Sendable () -> UInt64
    private var state: LedgerState
    private var queue: [Bytes32] = []
    private var waiting: [Bytes32: Waiting] = [:]
    /// Transactions applied in a ledger whose commit has not finished yet.
    private var committing: [Bytes32: [Reply]] = [:]
    private var isClosing = false
    private var failure: LedgerWriterError?

    /// Opens the ledger in `store`, or starts a new network at genesis and commits it.
    /// - Throws: when the store cannot be read or written.
    public init(store: any LedgerStore, configuration: Configuration, logger: Logger, now: @escaping @Sendable () -> UInt64) async throws {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.now = now
        if let state = try await store.loadState() {
            self.state = state
            self.commits = LedgerCommits(header: state.header, orderBook: OrderBookSnapshot(state))
            logger.info("ledger opened", metadata: ["ledger.sequence": "\(state.header.sequence)"])
        } else {
            var genesis = LedgerState.genesis(network: configuration.network, closeTime: now())
            let closed = try genesis.closeLedger([], closeTime: now())
            try await store.commit(closed)
            self.state = genesis
            self.commits = LedgerCommits(header: genesis.header, orderBook: OrderBookSnapshot(genesis))
            logger.info("new network at genesis", metadata: ["ledger.sequence": "\(genesis.header.sequence)"])
        }
    }

    /// The header of the last closed ledger.
    public var header: LedgerHeader { state.header }

    /// A read of the current in-memory state.
    public func read<T: Sendable>(_ body: @Sendable (LedgerState) -> T) -> T { body(state) }

    /// Submits a transaction and returns once its ledger is committed, or at once if it is
    /// refused. The same transaction submitted again gets the stored result.
    /// - Throws: ``LedgerWriterError`` when the writer has failed; a store error when reading
    ///   the history fails.
    public nonisolated func submit(_ envelope: TransactionEnvelope) async throws -> SubmissionResult {
        // Hashing and signature checks run here, on the caller's thread, in parallel with
        // other submissions; only the apply is serialized.
        let prepared = PreparedTransaction.prepare(envelope, network: configuration.network)
        let result = try await enqueue(prepared, closeAtOnce: false)
        return try await replayIfApplied(prepared, result)
    }

    /// Submits transactions that must be applied in the given order (consecutive sequence
    /// numbers of one account, say): they are queued together, so none overtakes another.
    /// With `closeAtOnce` a ledger closes without waiting for the close interval.
    /// - Throws: as ``submit(_:)``.
    public nonisolated func submitInOrder(_ envelopes: [TransactionEnvelope], closeAtOnce: Bool = false) async throws -> [SubmissionResult] {
        let prepared = envelopes.map { PreparedTransaction.prepare($0, network: configuration.network) }
        let results = try await enqueueInOrder(prepared, closeAtOnce: closeAtOnce)
        var answers: [SubmissionResult] = []
        for (transaction, result) in zip(prepared, results) {
            answers.append(try await replayIfApplied(transaction, result))
        }
        return answers
    }

    private func enqueueInOrder(_ prepared: [PreparedTransaction], closeAtOnce: Bool) async throws -> [SubmissionResult] {
        if let failure { throw failure }
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

    private func enqueue(_ prepared: PreparedTransaction, closeAtOnce: Bool) async throws -> SubmissionResult {
        if let failure { throw failure }
        return try await withCheckedThrowingContinuation { continuation in
            register(prepared, closeAtOnce: closeAtOnce) { continuation.resume(with: $0) }
        }
    }

    private func register(_ prepared: PreparedTransaction, closeAtOnce: Bool, reply: @escaping Reply) {
        if committing[prepared.hash] != nil {
            committing[prepared.hash]!.append(reply)
            return
        }
        if waiting[prepared.hash] != nil {
            waiting[prepared.hash]!.replies.append(reply)
            return
        }
        waiting[prepared.hash] = Waiting(prepared: prepared, replies: [reply])
        queue.append(prepared.hash)
        if closeAtOnce || configuration.closeInterval == .zero || queue.count >= configuration.batchLimit {
            startClosing()
        }
    }

    private func startClosing() {
        guard !isClosing, failure == nil else { return }
        isClosing = true
        Task { await self.closeLedgers() }
    }

    /// Closes ledgers while there is work: the queue in group-commit mode, one ledger otherwise.
    private func closeLedgers() async {
        repeat {
            await closeOneLedger()
        } while failure == nil && !queue.isEmpty && (configuration.closeInterval == .zero || queue.count >= configuration.batchLimit)
        isClosing = false
    }

    private func closeOneLedger() async {
        let hashes = Array(queue.prefix(configuration.batchLimit))
        queue.removeFirst(hashes.count)
        var batch: [Waiting] = []
        batch.reserveCapacity(hashes.count)
        for hash in hashes { batch.append(waiting.removeValue(forKey: hash)!) }

        let closed: ClosedLedger
        do {
            closed = try state.closeLedger(batch.map(\.prepared), closeTime: now())
        } catch {
            logger.critical("ledger did not close: \(error)", metadata: ["ledger.sequence": "\(state.header.sequence + 1)"])
            for item in batch {
                for reply in item.replies {
                    reply(.success(.rejected(TransactionResult(feeCharged: 0, outcome: .code(.internalError)))))
                }
            }
            return
        }

        // Rejected transactions are answered at once; applied ones after the commit.
        var applied: [(Waiting, StoredTransaction)] = []
        var order = 0
        for (item, transaction) in zip(batch, closed.transactions) {
            switch transaction.application {
            case .rejected(let result):
                for reply in item.replies { reply(.success(.rejected(result))) }
            case .applied(let result):
                order += 1
                let stored = StoredTransaction(
                    hash: item.prepared.hash, ledger: closed.header.sequence, applicationOrder: order,
                    envelope: item.prepared.envelope, result: result, closeTime: closed.header.closeTime)
                committing[item.prepared.hash] = item.replies
                applied.append((item, stored))
            }
        }

        let store = self.store
        let started = ContinuousClock.now
        let outcome: Result<Void, any Error>
        do {
            try await store.commit(closed)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        logger.debug("ledger committed", metadata: [
            "ledger.sequence": "\(closed.header.sequence)", "ledger.transactions": "\(batch.count)",
            "ledger.commit_duration": "\(ContinuousClock.now - started)",
        ])
        switch outcome {
        case .success:
            // Only the markets this ledger touched are read again; the state is still the one
            // just committed (the next ledger closes only after this).
            let orderBook = closed.changes.offerMarkets.isEmpty ? nil : commits.orderBook.updating(closed.changes.offerMarkets, from: state)
            commits.publish(closed.header, changes: closed.changes, orderBook: orderBook)
            for (item, stored) in applied {
                for reply in committing.removeValue(forKey: item.prepared.hash) ?? [] {
                    reply(.success(.applied(stored)))
                }
            }
        case .failure(let error):
            // Memory is now ahead of the disk: stop taking work. A restart reloads the last
            // committed ledger, which does not hold these transactions.
            let failure = LedgerWriterError(message: "ledger \(closed.header.sequence) was not committed: \(error)")
            logger.critical("\(failure.message)")
            self.failure = failure
            for (item, _) in applied {
                for reply in committing.removeValue(forKey: item.prepared.hash) ?? [] { reply(.failure(failure)) }
            }
            for hash in queue {
                for reply in waiting.removeValue(forKey: hash)?.replies ?? [] { reply(.failure(failure)) }
            }
            queue = []
        }
    }

    /// Closes a ledger every close interval until cancelled, then closes the ledger in flight.
    /// In group-commit mode it only waits for cancellation.
    /// - Throws: ``LedgerWriterError`` when a commit failed.
    public func run() async throws {
        defer { commits.close() }
        while !Task.isCancelled {
            if let failure { throw failure }
            if configuration.closeInterval == .zero {
                try? await Task.sleep(for: .seconds(3600))
                continue
            }
            try? await Task.sleep(for: configuration.closeInterval)
            if !isClosing {
                isClosing = true
                await closeOneLedger()
                isClosing = false
            }
        }
        while isClosing || !queue.isEmpty {
            if !isClosing {
                isClosing = true
                await closeOneLedger()
                isClosing = false
            } else {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
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

/// The sequence of the last committed ledger, and a way to wait for the next one.
public final class LedgerCommits: @unchecked Sendable {
    private let lock = NSLock()
    private var latestSequence: UInt32
    private var latestHeader: LedgerHeader
    private var latestOrderBook: OrderBookSnapshot
    private var waiters: [Int: CheckedContinuation<UInt32, Never>] = [:]
    private var nextWaiter = 0
    private var closed = false
    private var listeners: [@Sendable (UInt32, Set<AccountID>) -> Void] = []

    public init(header: LedgerHeader, orderBook: OrderBookSnapshot) {
        latestSequence = header.sequence
        latestHeader = header
        latestOrderBook = orderBook
    }

    /// The header of the last committed ledger.
    public var header: LedgerHeader {
        lock.lock()
        defer { lock.unlock() }
        return latestHeader
    }

    /// The offers of every market as of the last committed ledger that changed any: order books
    /// and path searches read this, never the writer's state.
    public var orderBook: OrderBookSnapshot {
        lock.lock()
        defer { lock.unlock() }
        return latestOrderBook
    }

    /// The last committed ledger.
    public var latest: UInt32 {
        lock.lock()
        defer { lock.unlock() }
        return latestSequence
    }

    /// Whether the writer has stopped: no more ledgers will come.
    public var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    /// Ends every wait; called when the writer stops.
    public func close() {
        lock.lock()
        closed = true
        let ready = waiters
        waiters = [:]
        let latest = latestSequence
        lock.unlock()
        for waiter in ready.values { waiter.resume(returning: latest) }
    }

    /// Calls `listener` with every committed ledger's sequence and the accounts whose entry,
    /// trustlines or data it changed, before ``latest`` moves to that ledger.
    public func observe(_ listener: @escaping @Sendable (UInt32, Set<AccountID>) -> Void) {
        lock.lock()
        listeners.append(listener)
        lock.unlock()
    }

    func publish(_ header: LedgerHeader, changes: LedgerChanges, orderBook: OrderBookSnapshot?) {
        let sequence = header.sequence
        lock.lock()
        let listeners = self.listeners
        lock.unlock()
        if !listeners.isEmpty {
            var accounts = Set(changes.accounts.keys)
            for key in changes.trustLines.keys { accounts.insert(key.accountID) }
            for key in changes.data.keys { accounts.insert(key.accountID) }
            for listener in listeners { listener(sequence, accounts) }
        }
        lock.lock()
        latestSequence = sequence
        latestHeader = header
        if let orderBook { latestOrderBook = orderBook }
        let ready = waiters
        waiters = [:]
        lock.unlock()
        for waiter in ready.values { waiter.resume(returning: sequence) }
    }

    /// Waits until a ledger after `sequence` is committed, or `timeout` passes; returns the
    /// latest committed sequence either way.
    public func wait(after sequence: UInt32, timeout: Duration) async -> UInt32 {
        await withCheckedContinuation { continuation in
            lock.lock()
            if latestSequence > sequence || closed {
                let latest = latestSequence
                lock.unlock()
                continuation.resume(returning: latest)
                return
            }
            let id = nextWaiter
            nextWaiter += 1
            waiters[id] = continuation
            lock.unlock()
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        lock.lock()
        let waiter = waiters.removeValue(forKey: id)
        let latest = latestSequence
        lock.unlock()
        waiter?.resume(returning: latest)
    }
}
