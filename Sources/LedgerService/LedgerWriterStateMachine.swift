import Ledger
import StellarBase

/// What the ledger writer does, as a pure state machine (postgres-nio's pattern): the writer's
/// loop feeds it events (a submission, a timer tick, a closed ledger, a commit's outcome, a
/// shutdown) and performs the actions it returns. It holds the queue and the sets of waiting and
/// committing transactions; it does no I/O, reads no clock and starts no task, so it is tested
/// on its own.
///
/// `Reply` is whatever answers one submitter (a continuation in the writer, a number in tests).
struct LedgerWriterStateMachine<Reply> {
    /// A queued transaction and everyone who submitted it.
    struct Waiting {
        var prepared: PreparedTransaction
        var replies: [Reply]
    }

    /// An answer to hand to a submitter.
    typealias Answer = (reply: Reply, result: Result<SubmissionResult, LedgerWriterError>)

    enum Phase: Equatable {
        /// Taking submissions and closing ledgers.
        case running
        /// Shutting down gracefully: what is queued is closed, nothing new is taken.
        case draining
        /// A commit failed: memory is ahead of the disk, nothing more is done.
        case failed(LedgerWriterError)
        /// Done; the loop has returned.
        case stopped
    }

    /// What the writer does with a submission.
    enum SubmitAction {
        /// Queued (or joined to the same transaction already queued or committing); wake the
        /// loop if asked, so it closes a ledger now.
        case queued(wakeLoop: Bool)
        /// Not taken: answer the submitter with this error at once.
        case refused(LedgerWriterError)
    }

    /// What the loop does next.
    enum Step {
        /// Apply these transactions in a new ledger, then report ``ledgerClosed(_:)`` (or
        /// ``ledgerFailedToClose()``) and, after the commit, ``ledgerCommitted()`` or
        /// ``commitFailed(_:)``.
        case close([PreparedTransaction])
        /// Nothing to do until the next event.
        case wait
        /// Return from the loop.
        case stop
    }

    /// Zero close interval: close as soon as transactions wait (group commit).
    let isGroupCommit: Bool
    let batchLimit: Int

    private(set) var phase: Phase = .running
    private var queue: [Bytes32] = []
    private var waiting: [Bytes32: Waiting] = [:]
    /// The batch being applied and committed, in ledger order.
    private var inFlight: [Waiting] = []
    /// Transactions applied in the ledger being committed, with their answers.
    private var committing: [Bytes32: [Reply]] = [:]
    private var appliedInFlight: [(Bytes32, StoredTransaction)] = []
    private var isLedgerInFlight = false
    /// A submitter asked for a ledger at once.
    private var isCloseRequested = false
    /// The close interval passed (timer mode).
    private var isTickPending = false
    /// A wake-up is already on its way to the loop: don't send another.
    private var isWakePending = false

    init(isGroupCommit: Bool, batchLimit: Int) {
        precondition(LedgerWriter.Configuration.batchLimits.contains(batchLimit), "the batch limit is checked where the writer is configured")
        self.isGroupCommit = isGroupCommit
        self.batchLimit = batchLimit
    }

    /// How many transactions wait for a ledger.
    var queueDepth: Int { queue.count }

    // MARK: Events

    mutating func submit(_ prepared: PreparedTransaction, closeAtOnce: Bool, reply: Reply) -> SubmitAction {
        switch phase {
        case .running: break
        case .draining, .stopped: return .refused(LedgerWriterError(code: .shuttingDown, message: "the ledger writer is shutting down"))
        case .failed(let error): return .refused(error)
        }
        if committing[prepared.hash] != nil {
            committing[prepared.hash]!.append(reply)
            return .queued(wakeLoop: false)
        }
        if waiting[prepared.hash] != nil {
            waiting[prepared.hash]!.replies.append(reply)
            return .queued(wakeLoop: false)
        }
        waiting[prepared.hash] = Waiting(prepared: prepared, replies: [reply])
        queue.append(prepared.hash)
        if closeAtOnce { isCloseRequested = true }
        return .queued(wakeLoop: wantsToClose && wake())
    }

    /// The close interval passed. Returns whether to wake the loop.
    mutating func timerFired() -> Bool {
        guard phase == .running, !isGroupCommit else { return false }
        isTickPending = true
        return wake()
    }

    /// Graceful shutdown: finish what is queued, take nothing new. Returns whether to wake the loop.
    mutating func shutdownRequested() -> Bool {
        guard phase == .running else { return false }
        phase = .draining
        return wake()
    }

    /// The loop woke (or finished a ledger): what to do now.
    mutating func nextStep() -> Step {
        isWakePending = false
        precondition(!isLedgerInFlight, "one ledger at a time")
        switch phase {
        case .failed, .stopped:
            return .stop
        case .draining:
            if queue.isEmpty {
                phase = .stopped
                return .stop
            }
            return .close(takeBatch())
        case .running:
            guard wantsToClose else { return .wait }
            isTickPending = false
            return .close(takeBatch())
        }
    }

    /// The batch was applied in memory: refused transactions are answered at once, applied ones
    /// wait for the commit.
    mutating func ledgerClosed(_ closed: ClosedLedger) -> [Answer] {
        precondition(isLedgerInFlight && closed.transactions.count == inFlight.count, "the closed ledger is the batch in flight")
        var answers: [Answer] = []
        var order = 0
        for (item, transaction) in zip(inFlight, closed.transactions) {
            switch transaction.application {
            case .rejected(let result):
                for reply in item.replies { answers.append((reply, .success(.rejected(result)))) }
            case .applied(let result):
                order += 1
                let stored = StoredTransaction(
                    hash: item.prepared.hash, ledger: closed.header.sequence, applicationOrder: order,
                    envelope: item.prepared.envelope, result: result, closeTime: closed.header.closeTime)
                committing[item.prepared.hash] = item.replies
                appliedInFlight.append((item.prepared.hash, stored))
            }
        }
        inFlight = []
        return answers
    }

    /// The ledger did not close (an invariant failed, and the state rolled back): every
    /// transaction of the batch is answered with an internal error and nothing changed.
    mutating func ledgerFailedToClose() -> [Answer] {
        precondition(isLedgerInFlight, "a ledger is in flight")
        let internalError = TransactionResult(feeCharged: 0, outcome: .code(.internalError))
        let answers = inFlight.flatMap { item in item.replies.map { ($0, Result<SubmissionResult, LedgerWriterError>.success(.rejected(internalError))) } }
        inFlight = []
        isLedgerInFlight = false
        return answers
    }

    /// The ledger is durable: its applied transactions are answered.
    mutating func ledgerCommitted() -> [Answer] {
        precondition(isLedgerInFlight && inFlight.isEmpty, "a closed ledger is being committed")
        var answers: [Answer] = []
        for (hash, stored) in appliedInFlight {
            for reply in committing.removeValue(forKey: hash) ?? [] { answers.append((reply, .success(.applied(stored)))) }
        }
        appliedInFlight = []
        isLedgerInFlight = false
        return answers
    }

    /// The commit failed: memory is now ahead of the disk. Everyone waiting is answered with the
    /// failure and the writer stops for good (a restart reloads the last durable ledger).
    mutating func commitFailed(_ error: LedgerWriterError) -> [Answer] {
        phase = .failed(error)
        isLedgerInFlight = false
        appliedInFlight = []
        return failAll(error)
    }

    /// The loop was cancelled: whoever still waits is answered with `error`.
    mutating func cancelled(_ error: LedgerWriterError) -> [Answer] {
        if case .failed = phase {} else { phase = .stopped }
        return failAll(error)
    }

    // MARK: Helpers

    private var wantsToClose: Bool {
        isTickPending || (!queue.isEmpty && (isGroupCommit || isCloseRequested || queue.count >= batchLimit))
    }

    private mutating func wake() -> Bool {
        if isWakePending { return false }
        isWakePending = true
        return true
    }

    private mutating func takeBatch() -> [PreparedTransaction] {
        let count = min(queue.count, batchLimit)
        inFlight = queue.prefix(count).map { waiting.removeValue(forKey: $0)! }
        queue.removeFirst(count)
        if queue.isEmpty { isCloseRequested = false }
        isLedgerInFlight = true
        return inFlight.map(\.prepared)
    }

    private mutating func failAll(_ error: LedgerWriterError) -> [Answer] {
        var answers: [Answer] = []
        for item in inFlight { for reply in item.replies { answers.append((reply, .failure(error))) } }
        for replies in committing.values { for reply in replies { answers.append((reply, .failure(error))) } }
        for hash in queue { for reply in waiting[hash]?.replies ?? [] { answers.append((reply, .failure(error))) } }
        inFlight = []
        committing = [:]
        queue = []
        waiting = [:]
        return answers
    }
}
