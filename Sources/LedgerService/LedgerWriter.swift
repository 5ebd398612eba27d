import Dispatch
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

    private struct Waiting {
        var prepared: PreparedTransaction
        var continuations: [CheckedContinuation<SubmissionResult, any Error>]
    }

    public nonisolated let configuration: Configuration
    private let store: any LedgerStore
    private let logger: Logger
    private let now: @Sendable () -> UInt64
    private var state: LedgerState
    private var queue: [Bytes32] = []
    private var waiting: [Bytes32: Waiting] = [:]
    /// Transactions applied in a ledger whose commit has not finished yet.
    private var committing: [Bytes32: [CheckedContinuation<SubmissionResult, any Error>]] = [:]
    private var isClosing = false
    private var failure: LedgerWriterError?

    /// Opens the ledger in `store`, or starts a new network at genesis and commits it.
    /// - Throws: when the store cannot be read or written.
    public init(store: any LedgerStore, configuration: Configuration, logger: Logger, now: @escaping @Sendable () -> UInt64) throws {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.now = now
        if let state = try store.loadState() {
            self.state = state
            logger.info("ledger opened", metadata: ["ledger.sequence": "\(state.header.sequence)"])
        } else {
            var genesis = LedgerState.genesis(network: configuration.network, closeTime: now())
            let closed = try genesis.closeLedger([], closeTime: now())
            try store.commit(closed)
            self.state = genesis
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
        let result = try await enqueue(prepared)
        // A transaction already in the ledger comes back with a bad sequence number (its
        // sequence was consumed); only then is history read, so the common path stays off disk.
        if case .rejected(let rejection) = result, rejection.code == .badSequence,
           let stored = try store.transaction(hash: prepared.hash) {
            return .applied(stored)
        }
        return result
    }

    private func enqueue(_ prepared: PreparedTransaction) async throws -> SubmissionResult {
        if let failure { throw failure }
        return try await withCheckedThrowingContinuation { continuation in
            if committing[prepared.hash] != nil {
                committing[prepared.hash]!.append(continuation)
                return
            }
            if waiting[prepared.hash] != nil {
                waiting[prepared.hash]!.continuations.append(continuation)
                return
            }
            waiting[prepared.hash] = Waiting(prepared: prepared, continuations: [continuation])
            queue.append(prepared.hash)
            if configuration.closeInterval == .zero || queue.count >= configuration.batchLimit {
                startClosing()
            }
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
                for continuation in item.continuations {
                    continuation.resume(returning: .rejected(TransactionResult(feeCharged: 0, outcome: .code(.internalError))))
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
                for continuation in item.continuations { continuation.resume(returning: .rejected(result)) }
            case .applied(let result):
                order += 1
                let stored = StoredTransaction(
                    hash: item.prepared.hash, ledger: closed.header.sequence, applicationOrder: order,
                    envelope: item.prepared.envelope, result: result, closeTime: closed.header.closeTime)
                committing[item.prepared.hash] = item.continuations
                applied.append((item, stored))
            }
        }

        let store = self.store
        let started = ContinuousClock.now
        let outcome: Result<Void, any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { try store.commit(closed) })
            }
        }
        logger.debug("ledger committed", metadata: [
            "ledger.sequence": "\(closed.header.sequence)", "ledger.transactions": "\(batch.count)",
            "ledger.commit_duration": "\(ContinuousClock.now - started)",
        ])
        switch outcome {
        case .success:
            for (item, stored) in applied {
                for continuation in committing.removeValue(forKey: item.prepared.hash) ?? [] {
                    continuation.resume(returning: .applied(stored))
                }
            }
        case .failure(let error):
            // Memory is now ahead of the disk: stop taking work. A restart reloads the last
            // committed ledger, which does not hold these transactions.
            let failure = LedgerWriterError(message: "ledger \(closed.header.sequence) was not committed: \(error)")
            logger.critical("\(failure.message)")
            self.failure = failure
            for (item, _) in applied {
                for continuation in committing.removeValue(forKey: item.prepared.hash) ?? [] { continuation.resume(throwing: failure) }
            }
            for hash in queue {
                for continuation in waiting.removeValue(forKey: hash)?.continuations ?? [] { continuation.resume(throwing: failure) }
            }
            queue = []
        }
    }

    /// Closes a ledger every close interval until cancelled, then closes the ledger in flight.
    /// In group-commit mode it only waits for cancellation.
    /// - Throws: ``LedgerWriterError`` when a commit failed.
    public func run() async throws {
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
