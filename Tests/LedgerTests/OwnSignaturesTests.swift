import StellarBase
import Testing
@testable import Ledger

@Suite("Signatures made here, not verified again")
struct OwnSignaturesTests {
    static func payment(_ ledger: TestLedger, from source: KeyPair, to destination: KeyPair, memo: Memo = .none) -> TransactionEnvelope {
        let transaction = Transaction(
            sourceAccount: .ed25519(source.accountID), fee: 100, sequenceNumber: ledger.sequence(source) + 1, preconditions: .none, memo: memo,
            operations: [Operation(.payment(PaymentOperation(destination: .ed25519(destination.accountID), asset: .native, amount: 5 * TestLedger.xlm)))])
        return .v1(transaction, signatures: [])
    }

    @Test func aSignatureMadeHereIsTakenOnceForItsKeyAndHash() {
        var ledger = TestLedger()
        let alice = ledger.account()
        let own = OwnSignatures()
        var envelope = Self.payment(ledger, from: ledger.root, to: alice)
        own.sign(&envelope, with: ledger.root, on: ledger.network)
        #expect(own.count == 1)
        let hash = envelope.hash(on: ledger.network)
        let signature = envelope.signatures[0].signature
        #expect(!own.take(key: alice.accountID.publicKey, hash: hash, signature: signature), "another key")
        #expect(!own.take(key: ledger.root.accountID.publicKey, hash: Bytes32([UInt8](repeating: 0, count: 32)), signature: signature), "another hash")
        #expect(own.take(key: ledger.root.accountID.publicKey, hash: hash, signature: signature))
        #expect(!own.take(key: ledger.root.accountID.publicKey, hash: hash, signature: signature), "used once")
    }

    @Test func preparedWithOwnSignaturesTheTransactionAppliesAsAnyOther() {
        var ledger = TestLedger()
        let alice = ledger.account()
        let own = OwnSignatures()
        var envelope = Self.payment(ledger, from: ledger.root, to: alice)
        own.sign(&envelope, with: ledger.root, on: ledger.network)
        let prepared = PreparedTransaction.prepare(envelope, network: ledger.network, own: own)
        #expect(own.count == 0, "the preparation took it instead of verifying")
        ledger.closeTime += 5
        let closed = try? ledger.state.closeLedger([prepared], closeTime: ledger.closeTime)
        #expect(closed?.transactions[0].application.result.code == .success)
        #expect(ledger.balance(alice) == 105 * TestLedger.xlm)
    }

    /// A signature made here over another transaction (the memo changed after signing) is not
    /// taken for this one: it is verified, and fails.
    @Test func aSignatureOverAnotherHashIsVerifiedAndRefused() {
        var ledger = TestLedger()
        let alice = ledger.account()
        let own = OwnSignatures()
        var signed = Self.payment(ledger, from: ledger.root, to: alice)
        own.sign(&signed, with: ledger.root, on: ledger.network)
        var altered = Self.payment(ledger, from: ledger.root, to: alice, memo: try! .text("changed"))
        altered.signatures = signed.signatures
        let prepared = PreparedTransaction.prepare(altered, network: ledger.network, own: own)
        #expect(own.count == 1, "nothing taken")
        ledger.closeTime += 5
        let closed = try? ledger.state.closeLedger([prepared], closeTime: ledger.closeTime)
        #expect(closed?.transactions[0].application.result.code == .badAuth)
        #expect(ledger.balance(alice) == 100 * TestLedger.xlm)
    }
}
