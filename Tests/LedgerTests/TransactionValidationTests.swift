import Testing
import StellarBase
@testable import Ledger

@Suite("Transaction validation: every tx_* code")
struct TransactionValidationTests {
    @Test func successTakesFeeAndSequence() {
        var ledger = TestLedger()
        let alice = ledger.account(100)
        let bob = ledger.account(100)
        let before = ledger.state.account(alice.accountID)!
        let result = ledger.submit(alice, .payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: 5 * TestLedger.xlm)))
        #expect(codes(result) == ["tx_success", "op_success"])
        #expect(result.isApplied)
        #expect(result.result.feeCharged == 100)
        let after = ledger.state.account(alice.accountID)!
        #expect(after.balance == before.balance - 5 * TestLedger.xlm - 100)
        #expect(after.sequenceNumber == before.sequenceNumber + 1)
        #expect(ledger.balance(bob) == 105 * TestLedger.xlm)
    }

    @Test func failedOperationsLeaveNoTraceButTakeFeeAndSequence() {
        var ledger = TestLedger()
        let alice = ledger.account(100)
        let bob = ledger.account(100)
        let before = ledger.state.account(alice.accountID)!
        let pay = Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: 10 * TestLedger.xlm)))
        let tooMuch = Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: 1000 * TestLedger.xlm)))
        let result = ledger.submit(alice, [pay, tooMuch, pay])
        #expect(codes(result) == ["tx_failed", "op_success", "op_underfunded", "op_success"])
        #expect(result.isApplied)
        #expect(result.result.feeCharged == 300)
        let after = ledger.state.account(alice.accountID)!
        #expect(after.balance == before.balance - 300)
        #expect(after.sequenceNumber == before.sequenceNumber + 1)
        #expect(ledger.balance(bob) == 100 * TestLedger.xlm)
    }

    @Test func rejectionsChangeNothing() {
        var ledger = TestLedger()
        let alice = ledger.account(100)
        let bob = ledger.account(100)
        let pay = Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: TestLedger.xlm)))
        let before = ledger.state.account(alice.accountID)!

        #expect(codes(ledger.submit(alice, [])) == ["tx_missing_operation"])
        #expect(codes(ledger.submit(alice, [pay], sequence: before.sequenceNumber + 2)) == ["tx_bad_seq"])
        #expect(codes(ledger.submit(alice, [pay], sequence: before.sequenceNumber)) == ["tx_bad_seq"])
        #expect(codes(ledger.submit(alice, [pay], fee: 99)) == ["tx_insufficient_fee"])
        #expect(codes(ledger.submit(alice, [pay, pay], fee: 150)) == ["tx_insufficient_fee"])
        #expect(codes(ledger.submit(alice, [pay], signers: [])) == ["tx_bad_auth"])
        #expect(codes(ledger.submit(alice, [pay], signers: [bob])) == ["tx_bad_auth"])
        #expect(codes(ledger.submit(alice, [pay], signers: [alice, bob])) == ["tx_bad_auth_extra"])
        #expect(codes(ledger.submit(alice, [pay], signers: [alice, alice])) == ["tx_bad_auth_extra"])
        let nobody = ledger.keyPair()
        #expect(codes(ledger.submit(nobody, [pay], sequence: 1)) == ["tx_no_source_account"])
        let now = ledger.closeTime
        #expect(codes(ledger.submit(alice, [pay], preconditions: .time(TimeBounds(minTime: now + 1000, maxTime: 0)))) == ["tx_too_early"])
        #expect(codes(ledger.submit(alice, [pay], preconditions: .time(TimeBounds(minTime: 0, maxTime: now - 1)))) == ["tx_too_late"])
        #expect(codes(ledger.submit(alice, [pay], preconditions: .v2(PreconditionsV2(ledgerBounds: LedgerBounds(minLedger: 1000, maxLedger: 0))))) == ["tx_too_early"])
        #expect(codes(ledger.submit(alice, [pay], preconditions: .v2(PreconditionsV2(ledgerBounds: LedgerBounds(minLedger: 0, maxLedger: 2))))) == ["tx_too_late"])
        let duplicate = SignerKey.ed25519(bob.accountID.publicKey)
        #expect(codes(ledger.submit(alice, [pay], preconditions: .v2(PreconditionsV2(extraSigners: [duplicate, duplicate])))) == ["tx_malformed"])
        #expect(codes(ledger.submit(alice, [pay], preconditions: .v2(PreconditionsV2(extraSigners: [duplicate])))) == ["tx_bad_auth"])
        #expect(codes(ledger.submit(alice, [pay], preconditions: .v2(PreconditionsV2(minSequenceAge: 4_000_000_000)))) == ["tx_bad_minseq_age_or_gap"])
        #expect(codes(ledger.submit(alice, [pay], preconditions: .v2(PreconditionsV2(minSequenceLedgerGap: 1000)))) == ["tx_bad_minseq_age_or_gap"])
        // An operation that is malformed refuses the whole transaction before it enters the ledger.
        let malformed = Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: 0)))
        let rejected = ledger.submit(alice, [pay, malformed])
        #expect(codes(rejected) == ["tx_failed", "op_success", "op_malformed"])
        #expect(!rejected.isApplied)
        #expect(rejected.result.feeCharged == 0)
        // Every one of those left the account as it was.
        #expect(ledger.state.account(alice.accountID)!.balance == before.balance)
        #expect(ledger.state.account(alice.accountID)!.sequenceNumber == before.sequenceNumber)
        // With the right conditions the same payment goes through.
        #expect(codes(ledger.submit(alice, [pay], signers: [alice], preconditions: .v2(PreconditionsV2(extraSigners: [duplicate])))) == ["tx_bad_auth"])
        #expect(codes(ledger.submit(alice, [pay], signers: [alice, bob], preconditions: .v2(PreconditionsV2(extraSigners: [duplicate])))) == ["tx_success", "op_success"])
    }

    @Test func insufficientBalanceForTheFee() {
        var ledger = TestLedger()
        let alice = ledger.account(1)
        let pay = Operation(.bumpSequence(bumpTo: 0))
        // A bare account holds exactly its 1 XLM reserve: nothing is left for a fee.
        #expect(codes(ledger.submit(alice, [pay])) == ["tx_insufficient_balance"])
    }

    @Test func minimumSequenceNumberRelaxesTheCheck() {
        var ledger = TestLedger()
        let alice = ledger.account(10)
        let current = ledger.sequence(alice)
        let bump = Operation(.bumpSequence(bumpTo: 0))
        let result = ledger.submit(alice, [bump], sequence: current + 5, preconditions: .v2(PreconditionsV2(minSequenceNumber: current)))
        #expect(codes(result) == ["tx_success", "op_success"])
        #expect(ledger.sequence(alice) == current + 5)
    }

    func feeBump(_ ledger: TestLedger, inner: Transaction, innerSigners: [KeyPair], feeSource: KeyPair, fee: Int64, outerSigners: [KeyPair]? = nil) -> TransactionEnvelope {
        var innerEnvelope = TransactionEnvelope.v1(inner, signatures: [])
        for signer in innerSigners { innerEnvelope.sign(with: signer, on: ledger.network) }
        var envelope = TransactionEnvelope.feeBump(
            FeeBumpTransaction(feeSource: .ed25519(feeSource.accountID), fee: fee, innerTransaction: inner, innerSignatures: innerEnvelope.signatures),
            signatures: [])
        for signer in outerSigners ?? [feeSource] { envelope.sign(with: signer, on: ledger.network) }
        return envelope
    }

    @Test func feeBumpAnotherAccountPays() throws {
        var ledger = TestLedger()
        let alice = ledger.account(10)
        let sponsor = ledger.account(100)
        let bob = ledger.account(10)
        let aliceBefore = ledger.state.account(alice.accountID)!
        let sponsorBefore = ledger.balance(sponsor)!
        let pay = Transaction(sourceAccount: .ed25519(alice.accountID), fee: 0, sequenceNumber: aliceBefore.sequenceNumber + 1,
                              operations: [Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: TestLedger.xlm)))])
        let result = ledger.submit(feeBump(ledger, inner: pay, innerSigners: [alice], feeSource: sponsor, fee: 200))
        #expect(result.result.code == .feeBumpInnerSuccess)
        #expect(result.result.code.name == "tx_fee_bump_inner_success")
        // The fee payer is one of the transaction's participants (its account's transactions
        // list it, as Horizon's do), though none of the operations names it.
        let history = LedgerHistory(try #require(ledger.lastLedger))
        let transactionID = try #require(history.transactions.first?.id)
        #expect(history.participations.map(\.account) == [alice.accountID, bob.accountID, sponsor.accountID])
        #expect(history.participations.map(\.id) == [transactionID + 1, transactionID + 1, transactionID])
        #expect(result.result.feeCharged == 200)
        #expect(ledger.balance(sponsor) == sponsorBefore - 200)
        #expect(ledger.balance(alice) == aliceBefore.balance - TestLedger.xlm)
        #expect(ledger.sequence(alice) == aliceBefore.sequenceNumber + 1)
        guard case .feeBumpInnerSuccess(let innerHash, let inner) = result.result.outcome else { return }
        #expect(innerHash == pay.hash(on: ledger.network))
        #expect(inner.outcome.operationResults == [.inner(.payment(.success))])
        // The result round-trips through XDR.
        #expect(try TransactionResult(xdrBytes: result.result.xdrBytes) == result.result)

        // A failing inner operation: the sponsor still pays, nothing else changes.
        let tooMuch = Transaction(sourceAccount: .ed25519(alice.accountID), fee: 0, sequenceNumber: ledger.sequence(alice) + 1,
                                  operations: [Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: 1000 * TestLedger.xlm)))])
        let failed = ledger.submit(feeBump(ledger, inner: tooMuch, innerSigners: [alice], feeSource: sponsor, fee: 200))
        #expect(codes(failed) == ["tx_fee_bump_inner_failed", "op_underfunded"])
        #expect(failed.isApplied)
        #expect(ledger.balance(sponsor) == sponsorBefore - 400)
    }

    @Test func feeBumpRejections() {
        var ledger = TestLedger()
        let alice = ledger.account(10)
        let sponsor = ledger.account(100)
        let poor = ledger.account(1)
        let nobody = ledger.keyPair()
        let bump = Transaction(sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: ledger.sequence(alice) + 1,
                               operations: [Operation(.bumpSequence(bumpTo: 0))])
        func submit(_ envelope: TransactionEnvelope) -> [String] {
            let result = ledger.submit(envelope)
            #expect(!result.isApplied)
            #expect(result.result.feeCharged == 0)
            return codes(result)
        }
        #expect(submit(feeBump(ledger, inner: bump, innerSigners: [alice], feeSource: sponsor, fee: 199)) == ["tx_insufficient_fee"])
        // The outer bid per operation must match the inner one: 2 × 150 for an inner 1 × 150.
        var pricier = bump
        pricier.fee = 150
        #expect(submit(feeBump(ledger, inner: pricier, innerSigners: [alice], feeSource: sponsor, fee: 299)) == ["tx_insufficient_fee"])
        #expect(submit(feeBump(ledger, inner: bump, innerSigners: [alice], feeSource: nobody, fee: 200)) == ["tx_no_source_account"])
        #expect(submit(feeBump(ledger, inner: bump, innerSigners: [alice], feeSource: sponsor, fee: 200, outerSigners: [alice])) == ["tx_bad_auth"])
        #expect(submit(feeBump(ledger, inner: bump, innerSigners: [alice], feeSource: sponsor, fee: 200, outerSigners: [sponsor, alice])) == ["tx_bad_auth_extra"])
        #expect(submit(feeBump(ledger, inner: bump, innerSigners: [alice], feeSource: poor, fee: 200)) == ["tx_insufficient_balance"])
        #expect(submit(feeBump(ledger, inner: bump, innerSigners: [], feeSource: sponsor, fee: 200)) == ["tx_fee_bump_inner_failed"])
        var stale = bump
        stale.sequenceNumber += 5
        let innerFailure = ledger.submit(feeBump(ledger, inner: stale, innerSigners: [alice], feeSource: sponsor, fee: 200))
        guard case .feeBumpInnerFailed(_, let inner) = innerFailure.result.outcome else { Issue.record("not an inner failure"); return }
        #expect(inner.outcome.code == .badSequence)
    }

    @Test func operationSourceAccounts() {
        var ledger = TestLedger()
        let alice = ledger.account(100)
        let bob = ledger.account(100)
        let carol = ledger.keyPair()
        let fromBob = Operation(sourceAccount: .ed25519(bob.accountID), .payment(PaymentOperation(destination: .ed25519(alice.accountID), asset: .native, amount: TestLedger.xlm)))
        #expect(codes(ledger.submit(alice, [fromBob], signers: [alice])) == ["tx_failed", "op_bad_auth"])
        #expect(codes(ledger.submit(alice, [fromBob], signers: [alice, bob])) == ["tx_success", "op_success"])
        // An operation whose source does not exist yet is valid if that key signed, and fails
        // when applied if the account still does not exist.
        let fromCarol = Operation(sourceAccount: .ed25519(carol.accountID), .bumpSequence(bumpTo: 0))
        #expect(codes(ledger.submit(alice, [fromCarol], signers: [alice])) == ["tx_failed", "op_bad_auth"])
        let applied = ledger.submit(alice, [fromCarol], signers: [alice, carol])
        #expect(codes(applied) == ["tx_failed", "op_no_source_account"])
        #expect(applied.isApplied)
        let create = Operation(.createAccount(CreateAccountOperation(destination: carol.accountID, startingBalance: 5 * TestLedger.xlm)))
        #expect(codes(ledger.submit(alice, [create, fromCarol], signers: [alice, carol])) == ["tx_success", "op_success", "op_success"])
    }

    @Test func duplicateSubmissionIsABadSequence() {
        var ledger = TestLedger()
        let alice = ledger.account(100)
        let tx = Transaction(sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: ledger.sequence(alice) + 1, operations: [Operation(.bumpSequence(bumpTo: 0))])
        let envelope = tx.signed(by: [alice], on: ledger.network)
        #expect(codes(ledger.submit(envelope)) == ["tx_success", "op_success"])
        #expect(codes(ledger.submit(envelope)) == ["tx_bad_seq"])
    }
}

/// The queue's checks before a ledger (`POST /transactions_async`): what apply would refuse
/// before charging a fee, found without changing anything.
@Suite("Prechecks")
struct PrecheckTests {
    @Test func aPrecheckRefusesWhatApplyWouldAndChangesNothing() {
        var ledger = TestLedger()
        let alice = ledger.account()
        let bob = ledger.account()
        let payment = Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: TestLedger.xlm)))
        func prepared(sequence: Int64, signers: [KeyPair]) -> PreparedTransaction {
            let tx = Transaction(sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: sequence, operations: [payment])
            return PreparedTransaction.prepare(tx.signed(by: signers, on: .standalone), network: .standalone)
        }
        let next = ledger.sequence(alice) + 1
        let before = ledger.state.stateHash()
        #expect(ledger.state.precheck(prepared(sequence: next, signers: [alice])) == nil)
        #expect(ledger.state.precheck(prepared(sequence: next + 1, signers: [alice]))?.code == .badSequence)
        #expect(ledger.state.precheck(prepared(sequence: next, signers: [bob]))?.code == .badAuth)
        #expect(ledger.state.precheck(prepared(sequence: next, signers: [alice, bob]))?.code == .badAuthExtra)
        #expect(ledger.state.stateHash() == before, "a precheck changes nothing")
        // What apply then does agrees.
        #expect(ledger.submit(prepared(sequence: next + 1, signers: [alice]).envelope).result.code == .badSequence)
        #expect(ledger.submit(prepared(sequence: next, signers: [alice]).envelope).result.code == .success)
    }
}
