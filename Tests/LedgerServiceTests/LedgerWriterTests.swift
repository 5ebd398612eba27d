import Foundation
import Logging
import Testing
import StellarBase
import Ledger
import LedgerService
import ServiceLifecycle
import Store
import TenderTesting

@Suite("The ledger writer: queue, close, commit")
struct LedgerWriterTests {
    let directory = TemporaryDirectory("writer")
    var path: String { directory.file("ledger.sqlite") }
    let root = LedgerState.rootKeyPair(network: .standalone)

    func writer(closeInterval: Duration = .zero, store: (any LedgerStore)? = nil, clock: any Clock<Duration> = ContinuousClock()) async throws -> LedgerWriter {
        try await LedgerWriter(
            store: store ?? SQLiteLedgerStore(path: path), configuration: .init(network: .standalone, closeInterval: closeInterval),
            logger: Logger(label: "test"), clock: clock, now: { 1_700_000_000 })
    }

    func createAccounts(_ count: Int, sequence: Int64) -> ([KeyPair], TransactionEnvelope) {
        let keys = (0..<count).map { try! KeyPair(seed: [UInt8(($0 + 1) & 0xff), UInt8($0 >> 8)] + Array(repeating: 3, count: 30)) }
        let ops = keys.map { StellarBase.Operation(.createAccount(CreateAccountOperation(destination: $0.accountID, startingBalance: 100 * Amount.stroopsPerUnit))) }
        let tx = Transaction(sourceAccount: .ed25519(root.accountID), fee: UInt32(100 * count), sequenceNumber: sequence + 1, operations: ops)
        return (keys, tx.signed(by: [root], on: .standalone))
    }

    @Test func submissionsAreDurableAndAnsweredOnce() async throws {
        let writer = try await writer()
        try await writer.running { try await submissionsAreDurableAndAnsweredOnce(writer) }
    }

    func submissionsAreDurableAndAnsweredOnce(_ writer: LedgerWriter) async throws {
        let rootSequence = await writer.read { $0.account(LedgerState.rootKeyPair(network: .standalone).accountID)!.sequenceNumber }
        let (keys, create) = createAccounts(50, sequence: rootSequence)
        guard case .applied(let stored) = try await writer.submit(create) else { Issue.record("not applied"); return }
        #expect(stored.result.code == .success)
        // The same envelope again: the stored answer, not a second application.
        guard case .applied(let again) = try await writer.submit(create) else { Issue.record("resubmission not answered from history"); return }
        #expect(again == stored)

        // Fifty payments submitted at once share a few ledgers (group commit).
        let payments = keys.map { key in
            Transaction(sourceAccount: .ed25519(key.accountID), fee: 100, sequenceNumber: Int64(stored.ledger) << 32 + 1,
                        operations: [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(root.accountID), asset: .native, amount: Amount.stroopsPerUnit)))])
                .signed(by: [key], on: .standalone)
        }
        let results = try await withThrowingTaskGroup(of: SubmissionResult.self) { group in
            for payment in payments { group.addTask { try await writer.submit(payment) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var ledgers: Set<UInt32> = []
        for result in results {
            guard case .applied(let stored) = result else { Issue.record("payment not applied: \(result.result.code)"); continue }
            #expect(stored.result.code == .success)
            ledgers.insert(stored.ledger)
        }
        #expect(ledgers.count < 50)

        // A payment already applied, submitted again: its stored result, not a second payment.
        let firstHash = PreparedTransaction.prepare(payments[0], network: .standalone).hash
        guard case .applied(let replayed) = try await writer.submit(payments[0]) else {
            Issue.record("a resubmitted payment was not answered with its stored result")
            return
        }
        #expect(replayed.hash == firstHash)
        #expect(try await SQLiteLedgerStore(path: path).transaction(hash: firstHash) == replayed)

        // A new payment with a sequence number too far ahead is refused and changes nothing (its
        // ledger may still close, empty).
        let payer = keys[0].accountID
        let before = await writer.read { $0.account(payer) }
        let ahead = Transaction(sourceAccount: .ed25519(keys[0].accountID), fee: 100, sequenceNumber: Int64(stored.ledger) << 32 + 5,
                                operations: [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(root.accountID), asset: .native, amount: 1)))])
            .signed(by: [keys[0]], on: .standalone)
        guard case .rejected(let refused) = try await writer.submit(ahead) else {
            Issue.record("a payment with a bad sequence number was applied")
            return
        }
        #expect(refused.code == .badSequence)
        #expect(refused.feeCharged == 0)
        #expect(await writer.read { $0.account(payer) } == before)
    }

    @Test func aRestartedWriterHasTheCommittedState() async throws {
        let first = try await writer()
        let rootSequence = await first.read { $0.account(LedgerState.rootKeyPair(network: .standalone).accountID)!.sequenceNumber }
        let (_, create) = createAccounts(10, sequence: rootSequence)
        _ = try await first.running { try await first.submit(create) }
        let hash = await first.read { $0.stateHash() }
        let header = await first.header
        let second = try await writer()
        #expect(await second.read { $0.stateHash() } == hash)
        #expect(await second.header == header)
    }

    @Test func refusedTransactionsAreAnsweredAtOnce() async throws {
        let writer = try await writer()
        let stranger = try KeyPair(seed: Array(repeating: 42, count: 32))
        let tx = Transaction(sourceAccount: .ed25519(stranger.accountID), fee: 100, sequenceNumber: 1,
                             operations: [StellarBase.Operation(.bumpSequence(bumpTo: 0))])
        guard case .rejected(let result) = try await writer.running({ try await writer.submit(tx.signed(by: [stranger], on: .standalone)) }) else {
            Issue.record("applied")
            return
        }
        #expect(result.code == .noAccount)
        #expect(result.feeCharged == 0)
    }

    @Test func timerModeClosesLedgersOnItsOwn() async throws {
        let clock = ManualClock()
        let writer = try await writer(closeInterval: .seconds(1), clock: clock)
        let start = writer.commits.latest
        try await writer.running {
            // The close-interval timer and the streams' heartbeat are both armed.
            await clock.sleepers(atLeast: 2)
            for ledger in 1...3 {
                clock.advance(by: .seconds(1))
                var latest = writer.commits.latest
                while latest < start + UInt32(ledger) { latest = await writer.commits.wait(after: latest) }
                #expect(latest == start + UInt32(ledger))
                await clock.sleepers(atLeast: 2)
            }
            // Half an interval closes nothing; the other half closes the fourth ledger.
            clock.advance(by: .milliseconds(500))
            #expect(writer.commits.latest == start + 3)
            clock.advance(by: .milliseconds(500))
            var latest = writer.commits.latest
            while latest < start + 4 { latest = await writer.commits.wait(after: latest) }
        }
        #expect(writer.commits.latest == start + 4)
        #expect(writer.commits.isClosed)
    }

    @Test func aFailedCommitStopsTheWriterForGood() async throws {
        let store = FailingStore(try SQLiteLedgerStore(path: path))
        let writer = try await writer(store: store)
        let rootSequence = await writer.read { $0.account(root.accountID)!.sequenceNumber }
        let (_, first) = createAccounts(1, sequence: rootSequence)
        let (_, second) = createAccounts(2, sequence: rootSequence + 1)
        var durable = writer.commits.header
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await writer.run() }
                let committed = try await writer.submit(first)
                #expect(committed.result.isSuccess)
                durable = writer.commits.header
                store.failCommits()
                // The submitter of the ledger that failed is told so, not answered as applied.
                do {
                    _ = try await writer.submit(second)
                    Issue.record("a submission in a ledger that was not committed was answered")
                } catch let error as LedgerWriterError {
                    #expect(error.code == .commitFailed)
                }
                // The loop has thrown (fail-stop): nothing is taken any more.
                try await group.next()
            }
            Issue.record("the writer's loop went on after a failed commit")
        } catch let error as LedgerWriterError {
            #expect(error.code == .commitFailed)
        }
        await #expect(throws: LedgerWriterError.self) { try await writer.submit(second) }
        #expect(!writer.commits.isWriterRunning)

        // A restart loads the last durable ledger: the failed one is not there.
        let restarted = try await self.writer()
        #expect(await restarted.header == durable)
        #expect(await writer.header.sequence == durable.sequence + 1, "the failed ledger was applied in memory only")
        #expect(writer.commits.latest == durable.sequence, "the failed ledger was never published")
    }

    @Test func theWriterServiceStopsItsGroupWhenACommitFails() async throws {
        let store = FailingStore(try SQLiteLedgerStore(path: path))
        let writer = try await writer(store: store)
        store.failCommits()
        let rootSequence = await writer.read { $0.account(root.accountID)!.sequenceNumber }
        let (_, create) = createAccounts(1, sequence: rootSequence)
        let group = ServiceGroup(services: [WriterService(writer: writer), IdleService()], logger: Logger(label: "test"))
        await #expect(throws: (any Error).self) {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                tasks.addTask { _ = try? await writer.submit(create) }
                try await tasks.waitForAll()
            }
        }
    }

    /// A timer-mode writer on a manual clock: `waiting` submits an account's creation while no
    /// ledger closes; then the next ledger closes, and the creation must be in it.
    func creationAppliedAfterWaiting(_ waiting: @escaping @Sendable (LedgerWriter, TransactionEnvelope) async throws -> Void) async throws {
        let clock = ManualClock()
        let writer = try await writer(closeInterval: .seconds(1), clock: clock)
        let rootSequence = await writer.read { $0.account(root.accountID)!.sequenceNumber }
        let (_, create) = createAccounts(1, sequence: rootSequence)
        let hash = PreparedTransaction.prepare(create, network: .standalone).hash
        let start = writer.commits.latest
        try await writer.running {
            await clock.sleepers(atLeast: 2)
            try await waiting(writer, create)
            // The transaction stays queued: the next ledger applies it.
            clock.advance(by: .seconds(1))
            var latest = writer.commits.latest
            while latest < start + 1 { latest = await writer.commits.wait(after: latest) }
        }
        #expect(try await SQLiteLedgerStore(path: path).transaction(hash: hash)?.result.isSuccess == true)
    }

    @Test func aCancelledSubmitterStopsWaitingButItsTransactionIsApplied() async throws {
        try await creationAppliedAfterWaiting { writer, create in
            // No tick comes, so the submission waits; cancelled, it stops waiting at once.
            let submitter = Task { try await writer.submit(create) }
            submitter.cancel()
            await #expect(throws: CancellationError.self) { try await submitter.value }
        }
    }

    @Test func aSubmissionPastItsDeadlineIsAnsweredNilAndStillApplied() async throws {
        // The deadlines tick on a clock of their own, so the ledger's interval stays still.
        let deadlineClock = ManualClock()
        let deadlines = SubmissionDeadlines(timeout: .milliseconds(30), tick: .milliseconds(10), clock: deadlineClock)
        try await creationAppliedAfterWaiting { writer, create in
            let submitter = Task { try await writer.submit(create, within: deadlines) }
            for _ in 0..<4 {
                await deadlineClock.sleepers(atLeast: 1)
                deadlineClock.advance(by: .milliseconds(10))
            }
            let answer = try await submitter.value
            #expect(answer == nil)
            #expect(deadlines.waitingCount == 0)
        }
    }

    @Test func aSubmissionAnsweredBeforeItsDeadlineDropsIt() async throws {
        let writer = try await writer()
        // This clock never moves: only the ledger can answer.
        let deadlines = SubmissionDeadlines(timeout: .milliseconds(30), tick: .milliseconds(10), clock: ManualClock())
        let rootSequence = await writer.read { $0.account(root.accountID)!.sequenceNumber }
        let (_, create) = createAccounts(1, sequence: rootSequence)
        try await writer.running {
            guard case .applied(let stored) = try await writer.submit(create, within: deadlines) else { Issue.record("not applied"); return }
            #expect(stored.result.isSuccess)
            #expect(deadlines.waitingCount == 0)
            // Sent again: refused by the ledger at once and answered from history, deadline dropped.
            guard case .applied(let again) = try await writer.submit(create, within: deadlines) else { Issue.record("resubmission not answered"); return }
            #expect(again == stored)
            #expect(deadlines.waitingCount == 0)
        }
    }

    @Test func memoryAnswersForCommittedAccountsOnlyWhileALedgerIsBeingCommitted() async throws {
        let gated = GatedStore(try SQLiteLedgerStore(path: path))
        let writer = try await writer(store: gated)
        try await writer.running {
            let rootSequence = await writer.read { $0.account(root.accountID)!.sequenceNumber }
            let rootBefore = await writer.read { $0.account(root.accountID)! }
            #expect(await writer.committedAccount(root.accountID).account == rootBefore)
            let (keys, create) = createAccounts(2, sequence: rootSequence)
            gated.hold()
            // Released on every path, so a failed expectation cannot leave the writer waiting.
            defer { gated.release() }
            async let answer = writer.submit(create)
            // The ledger is applied in memory and waits at the store: memory is ahead for the
            // accounts it changed, so it does not answer for them; for the others it does.
            await gated.waitUntilHeld()
            #expect(await writer.read { $0.account(keys[0].accountID) } != nil)
            for id in [keys[0].accountID, root.accountID, keys[1].accountID] {
                guard case .unknown = await writer.committedAccount(id) else { Issue.record("memory answered for \(id) mid-commit"); continue }
                // Read by another thread without the writer's actor: the same answer.
                guard case .unknown? = writer.committedAccounts.accountIfAvailable(id) else { Issue.record("memory answered another thread for \(id) mid-commit"); continue }
            }
            let stranger = try KeyPair(seed: Array(repeating: 77, count: 32)).accountID
            guard case .missing = await writer.committedAccount(stranger) else { Issue.record("a stranger was found"); return }
            guard case .missing? = writer.committedAccounts.accountIfAvailable(stranger) else { Issue.record("another thread found a stranger"); return }
            gated.release()
            guard case .applied = try await answer else { Issue.record("not applied"); return }
            // Committed: memory answers again, the same as the store.
            let stored = try await SQLiteLedgerStore(path: path).account(keys[0].accountID)?.account
            #expect(await writer.committedAccount(keys[0].accountID).account == stored)
            #expect(writer.committedAccounts.accountIfAvailable(keys[0].accountID)?.account == stored)
            #expect(await writer.committedAccount(root.accountID).account != rootBefore)
        }
    }

    @Test func aTrustlineBeingCommittedKeepsItsHolderFromMemory() async throws {
        let gated = GatedStore(try SQLiteLedgerStore(path: path))
        let writer = try await writer(store: gated)
        try await writer.running {
            let rootSequence = await writer.read { $0.account(root.accountID)!.sequenceNumber }
            let (keys, create) = createAccounts(2, sequence: rootSequence)
            _ = try await writer.submit(create)
            let (issuer, holder) = (keys[0], keys[1])
            let usd = try Asset(code: "USD", issuer: issuer.accountID)
            let holderSequence = await writer.read { $0.account(holder.accountID)!.sequenceNumber }
            _ = try await writer.submit(Transaction(
                sourceAccount: .ed25519(holder.accountID), fee: 100, sequenceNumber: holderSequence + 1,
                operations: [StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: usd, limit: .max)))]).signed(by: [holder], on: .standalone))
            #expect(await writer.committedAccount(holder.accountID).account != nil)
            // A payment of USD changes the holder's trustline, not its account entry: while it is
            // being committed, memory still declines for the holder.
            gated.hold()
            defer { gated.release() }
            let issuerSequence = await writer.read { $0.account(issuer.accountID)!.sequenceNumber }
            async let paid = writer.submit(Transaction(
                sourceAccount: .ed25519(issuer.accountID), fee: 100, sequenceNumber: issuerSequence + 1,
                operations: [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(holder.accountID), asset: usd, amount: 70)))])
                .signed(by: [issuer], on: .standalone))
            await gated.waitUntilHeld()
            guard case .unknown = await writer.committedAccount(holder.accountID) else { Issue.record("memory answered mid-commit"); return }
            gated.release()
            guard case .applied = try await paid else { Issue.record("not applied"); return }
            guard case .record(let record) = await writer.committedAccount(holder.accountID) else { Issue.record("memory declined"); return }
            #expect(record.trustLines.map(\.balance) == [70] && record.trustLines.map(\.asset) == [usd])
        }
    }

    @Test func batchLimitsAreCheckedWhereTheWriterIsConfigured() throws {
        for limit in [0, -1, 1 << 20, Int.max, Int.min] {
            #expect(throws: LedgerWriterError.self) { try LedgerWriter.Configuration(network: .standalone, batchLimit: limit) }
        }
        #expect(throws: LedgerWriterError.self) { try LedgerWriter.Configuration(network: .standalone, closeInterval: .seconds(-1)) }
        #expect(try LedgerWriter.Configuration(network: .standalone, batchLimit: (1 << 20) - 1).batchLimit == (1 << 20) - 1)
        #expect(try LedgerWriter.Configuration(network: .standalone, batchLimit: 1).batchLimit == 1)
    }
}

/// A store that commits through SQLite until told to fail.
final class FailingStore: LedgerStore, @unchecked Sendable {
    struct Failure: Error {}
    private let store: SQLiteLedgerStore
    private let lock = NSLock()
    private var failing = false

    init(_ store: SQLiteLedgerStore) { self.store = store }

    func failCommits() { lock.withLock { failing = true } }

    func loadState() async throws -> LedgerState? { try await store.loadState() }
    func transaction(hash: Bytes32) async throws -> StoredTransaction? { try await store.transaction(hash: hash) }
    func commit(_ ledger: ClosedLedger) async throws {
        if lock.withLock({ failing }) { throw Failure() }
        try await store.commit(ledger)
    }
}

/// A store whose commits can be held at the door until released.
final class GatedStore: LedgerStore, @unchecked Sendable {
    private let store: SQLiteLedgerStore
    private let lock = NSLock()
    private var holding = false
    private var held: CheckedContinuation<Void, Never>?
    private var watcher: CheckedContinuation<Void, Never>?

    init(_ store: SQLiteLedgerStore) { self.store = store }

    func hold() { lock.withLock { holding = true } }

    /// Returns once a commit is waiting.
    func waitUntilHeld() async {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> Bool in
                if held != nil { return true }
                watcher = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func release() {
        let waiting = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            holding = false
            defer { held = nil }
            return held
        }
        waiting?.resume()
    }

    func loadState() async throws -> LedgerState? { try await store.loadState() }
    func transaction(hash: Bytes32) async throws -> StoredTransaction? { try await store.transaction(hash: hash) }
    func commit(_ ledger: ClosedLedger) async throws {
        if lock.withLock({ holding }) {
            await withCheckedContinuation { continuation in
                let watching = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                    held = continuation
                    defer { watcher = nil }
                    return watcher
                }
                watching?.resume()
            }
        }
        try await store.commit(ledger)
    }
}

/// The writer as the server runs it, for a service group.
struct WriterService: Service {
    let writer: LedgerWriter
    func run() async throws {
        try await withGracefulShutdownHandler { try await writer.run() } onGracefulShutdown: { writer.shutDownGracefully() }
    }
}

/// A service that runs until cancelled or shut down (the HTTP server's stand-in).
struct IdleService: Service {
    func run() async throws {
        try await gracefulShutdown()
    }
}
