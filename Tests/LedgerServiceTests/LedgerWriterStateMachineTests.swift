import Ledger
@testable import LedgerService
import StellarBase
import Testing

/// The writer's queue, waiting and committing sets, without I/O: events in, actions out.
@Suite("The ledger writer's state machine")
struct LedgerWriterStateMachineTests {
    typealias Machine = LedgerWriterStateMachine<String>
    let root = LedgerState.rootKeyPair(network: .standalone)

    /// Root pays `amount` stroops to itself at `sequence` (a valid payment at sequence 1, a
    /// refused one at any other).
    func payment(sequence: Int64, amount: Int64 = 1) -> PreparedTransaction {
        let tx = Transaction(sourceAccount: .ed25519(root.accountID), fee: 100, sequenceNumber: sequence,
                             operations: [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(root.accountID), asset: .native, amount: amount)))])
        return PreparedTransaction.prepare(tx.signed(by: [root], on: .standalone), network: .standalone)
    }

    func wakes(_ action: Machine.SubmitAction) -> Bool? {
        if case .queued(let wake) = action { return wake }
        return nil
    }

    func refusal(_ action: Machine.SubmitAction) -> LedgerWriterError.Code? {
        if case .refused(let error) = action { return error.code }
        return nil
    }

    func batch(_ step: Machine.Step) -> [Bytes32]? {
        if case .close(let batch) = step { return batch.map(\.hash) }
        return nil
    }

    func isWait(_ step: Machine.Step) -> Bool { if case .wait = step { true } else { false } }
    func isStop(_ step: Machine.Step) -> Bool { if case .stop = step { true } else { false } }

    /// The replies and whether each was applied, refused or failed.
    func outcomes(_ answers: [Machine.Answer]) -> [String: String] {
        var outcomes: [String: String] = [:]
        for (reply, result) in answers {
            switch result {
            case .success(.applied): outcomes[reply, default: ""] += "applied"
            case .success(.rejected(let result)): outcomes[reply, default: ""] += result.code.name
            case .failure(let error): outcomes[reply, default: ""] += error.code.rawValue
            }
        }
        return outcomes
    }

    @Test func groupCommitClosesAsSoonAsTransactionsWaitAndJoinsDuplicates() throws {
        var machine = Machine(isGroupCommit: true, batchLimit: 1000)
        var state = LedgerState.genesis(network: .standalone, closeTime: 1)
        let good = payment(sequence: 1), stale = payment(sequence: 7)
        #expect(wakes(machine.submit(good, closeAtOnce: false, reply: "a")) == true)
        // One wake-up is on its way already.
        #expect(wakes(machine.submit(stale, closeAtOnce: false, reply: "b")) == false)
        #expect(wakes(machine.submit(good, closeAtOnce: false, reply: "a2")) == false)
        #expect(machine.queueDepth == 2)
        let step = machine.nextStep()
        #expect(batch(step) == [good.hash, stale.hash])
        guard case .close(let transactions) = step else { return }
        let closed = try state.closeLedger(transactions, closeTime: 2)

        // The refused one is answered at once; the applied one waits for the commit.
        #expect(outcomes(machine.ledgerClosed(closed)) == ["b": "tx_bad_seq"])
        // While it commits: the same transaction joins it, a new one waits for the next ledger.
        #expect(wakes(machine.submit(good, closeAtOnce: false, reply: "a3")) == false)
        let next = payment(sequence: 2)
        #expect(wakes(machine.submit(next, closeAtOnce: false, reply: "c")) == true)
        #expect(outcomes(machine.ledgerCommitted()) == ["a": "applied", "a2": "applied", "a3": "applied"])
        #expect(batch(machine.nextStep()) == [next.hash])
    }

    @Test func timerModeClosesOnTheTickOnAFullBatchOrWhenAsked() {
        var machine = Machine(isGroupCommit: false, batchLimit: 2)
        #expect(wakes(machine.submit(payment(sequence: 1), closeAtOnce: false, reply: "a")) == false)
        #expect(isWait(machine.nextStep()))
        #expect(Bool(machine.timerFired()))
        #expect(batch(machine.nextStep())?.count == 1)
        _ = machine.ledgerFailedToClose()
        // A tick with nothing queued still closes a ledger (an empty one), as a network does.
        #expect(Bool(machine.timerFired()))
        #expect(batch(machine.nextStep()) == [])
        _ = machine.ledgerFailedToClose()
        // A full batch closes at once; what is past the limit waits for the next ledger.
        #expect(wakes(machine.submit(payment(sequence: 2), closeAtOnce: false, reply: "b")) == false)
        #expect(wakes(machine.submit(payment(sequence: 3), closeAtOnce: false, reply: "c")) == true)
        #expect(wakes(machine.submit(payment(sequence: 4), closeAtOnce: false, reply: "d")) == false)
        #expect(batch(machine.nextStep())?.count == 2)
        _ = machine.ledgerFailedToClose()
        #expect(isWait(machine.nextStep()))
        // A submitter may ask for a ledger now (the test anchor's setup does).
        #expect(wakes(machine.submit(payment(sequence: 5), closeAtOnce: true, reply: "e")) == true)
        #expect(batch(machine.nextStep())?.count == 2)
    }

    @Test func aLedgerThatDoesNotCloseAnswersItsBatchWithAnInternalError() {
        var machine = Machine(isGroupCommit: true, batchLimit: 10)
        _ = machine.submit(payment(sequence: 1), closeAtOnce: false, reply: "a")
        _ = machine.nextStep()
        #expect(outcomes(machine.ledgerFailedToClose()) == ["a": "tx_internal_error"])
        #expect(machine.phase == .running)
    }

    @Test func aFailedCommitFailsEveryoneAndStopsForGood() throws {
        var machine = Machine(isGroupCommit: true, batchLimit: 1)
        var state = LedgerState.genesis(network: .standalone, closeTime: 1)
        _ = machine.submit(payment(sequence: 1), closeAtOnce: false, reply: "a")
        _ = machine.submit(payment(sequence: 2), closeAtOnce: false, reply: "b")
        guard case .close(let transactions) = machine.nextStep() else { Issue.record("no ledger"); return }
        _ = machine.ledgerClosed(try state.closeLedger(transactions, closeTime: 2))
        let failure = LedgerWriterError(code: .commitFailed, message: "disk full")
        #expect(outcomes(machine.commitFailed(failure)) == ["a": "ledger_commit_failed", "b": "ledger_commit_failed"])
        #expect(machine.phase == .failed(failure))
        #expect(refusal(machine.submit(payment(sequence: 3), closeAtOnce: false, reply: "c")) == .commitFailed)
        #expect(!Bool(machine.timerFired()))
        #expect(isStop(machine.nextStep()))
    }

    @Test func gracefulShutdownDrainsTheQueueAndTakesNothingNew() {
        var machine = Machine(isGroupCommit: false, batchLimit: 2)
        for sequence in 1...3 { _ = machine.submit(payment(sequence: Int64(sequence)), closeAtOnce: false, reply: "t\(sequence)") }
        // A wake-up is already pending (the full batch asked for one), so none is needed.
        #expect(!Bool(machine.shutdownRequested()))
        #expect(machine.phase == .draining)
        #expect(refusal(machine.submit(payment(sequence: 9), closeAtOnce: false, reply: "late")) == .shuttingDown)
        #expect(batch(machine.nextStep())?.count == 2)
        _ = machine.ledgerFailedToClose()
        #expect(batch(machine.nextStep())?.count == 1)
        _ = machine.ledgerFailedToClose()
        #expect(isStop(machine.nextStep()))
        #expect(machine.phase == .stopped)
    }

    @Test func cancellationAnswersWhoeverStillWaits() {
        var machine = Machine(isGroupCommit: false, batchLimit: 10)
        _ = machine.submit(payment(sequence: 1), closeAtOnce: false, reply: "a")
        let stopped = LedgerWriterError(code: .stopped, message: "stopped")
        #expect(outcomes(machine.cancelled(stopped)) == ["a": "ledger_writer_stopped"])
        #expect(refusal(machine.submit(payment(sequence: 2), closeAtOnce: false, reply: "b")) == .shuttingDown)
    }
}
