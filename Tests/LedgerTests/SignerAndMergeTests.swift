import Testing
import StellarBase
@testable import Ledger

private let xlm = TestLedger.xlm

@Suite("SetOptions, signers and AccountMerge: every result code")
struct SignerAndMergeTests {
    func setOptions(_ ledger: inout TestLedger, _ who: KeyPair, _ op: SetOptionsOperation, signers: [KeyPair]? = nil) -> [String] {
        codes(ledger.submit(who, .setOptions(op), signers: signers))
    }

    @Test func setOptionsCodes() {
        var ledger = TestLedger()
        let alice = ledger.account(10)
        let bob = ledger.account(10)
        #expect(setOptions(&ledger, alice, SetOptionsOperation(clearFlags: 1, setFlags: 1)) == ["tx_failed", "op_bad_flags"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(setFlags: 0x10)) == ["tx_failed", "op_unknown_flag"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(masterWeight: 256)) == ["tx_failed", "op_threshold_out_of_range"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(highThreshold: 1000)) == ["tx_failed", "op_threshold_out_of_range"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(signer: Signer(key: .ed25519(alice.accountID.publicKey), weight: 1))) == ["tx_failed", "op_bad_signer"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(signer: Signer(key: .ed25519(bob.accountID.publicKey), weight: 256))) == ["tx_failed", "op_bad_signer"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(homeDomain: Array("bad\ndomain".utf8))) == ["tx_failed", "op_invalid_home_domain"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(inflationDestination: ledger.keyPair().accountID)) == ["tx_failed", "op_invalid_inflation"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(setFlags: AccountFlags.authClawbackEnabled)) == ["tx_failed", "op_auth_revocable_required"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(setFlags: AccountFlags.authClawbackEnabled | AccountFlags.authRevocable)) == ["tx_success", "op_success"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(homeDomain: Array("example.com".utf8))) == ["tx_success", "op_success"])
        #expect(ledger.state.account(alice.accountID)!.homeDomain == Array("example.com".utf8))
        #expect(setOptions(&ledger, alice, SetOptionsOperation(setFlags: AccountFlags.authImmutable)) == ["tx_success", "op_success"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(clearFlags: AccountFlags.authRevocable)) == ["tx_failed", "op_cant_change"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(setFlags: AccountFlags.authRequired)) == ["tx_failed", "op_cant_change"])
    }

    @Test func signersAndReserves() {
        var ledger = TestLedger()
        let alice = ledger.account(3)
        var keys: [KeyPair] = []
        for _ in 0..<21 { keys.append(ledger.keyPair()) }
        // 3 XLM: base 1 XLM, fees, and room for 3 more subentries (0.5 XLM each).
        for index in 0..<3 {
            #expect(setOptions(&ledger, alice, SetOptionsOperation(signer: Signer(key: .ed25519(keys[index].accountID.publicKey), weight: 1))) == ["tx_success", "op_success"])
        }
        #expect(setOptions(&ledger, alice, SetOptionsOperation(signer: Signer(key: .ed25519(keys[3].accountID.publicKey), weight: 1))) == ["tx_failed", "op_low_reserve"])
        // Weight 0 removes a signer and frees its reserve.
        #expect(setOptions(&ledger, alice, SetOptionsOperation(signer: Signer(key: .ed25519(keys[0].accountID.publicKey), weight: 0))) == ["tx_success", "op_success"])
        #expect(ledger.state.account(alice.accountID)!.signers.count == 2)
        #expect(ledger.state.account(alice.accountID)!.numSubEntries == 2)

        let rich = ledger.account(100)
        for index in 0..<20 {
            #expect(setOptions(&ledger, rich, SetOptionsOperation(signer: Signer(key: .ed25519(keys[index].accountID.publicKey), weight: 1))) == ["tx_success", "op_success"])
        }
        #expect(setOptions(&ledger, rich, SetOptionsOperation(signer: Signer(key: .ed25519(keys[20].accountID.publicKey), weight: 1))) == ["tx_failed", "op_too_many_signers"])
        let signers = ledger.state.account(rich.accountID)!.signers
        #expect(signers.map(\.key) == signers.map(\.key).sorted { $0.xdrBytes.lexicographicallyPrecedes($1.xdrBytes) })
    }

    @Test func twoOfTwoMultiSignature() {
        var ledger = TestLedger()
        let alice = ledger.account(100)
        let cosigner = ledger.keyPair()
        let bob = ledger.account(10)
        let setup = SetOptionsOperation(lowThreshold: 2, mediumThreshold: 2, highThreshold: 2, signer: Signer(key: .ed25519(cosigner.accountID.publicKey), weight: 1))
        #expect(setOptions(&ledger, alice, setup) == ["tx_success", "op_success"])
        let pay = OperationBody.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: xlm))
        #expect(codes(ledger.submit(alice, pay)) == ["tx_bad_auth"])
        #expect(codes(ledger.submit(alice, pay, signers: [cosigner])) == ["tx_bad_auth"])
        #expect(codes(ledger.submit(alice, pay, signers: [alice, cosigner])) == ["tx_success", "op_success"])
        #expect(codes(ledger.submit(alice, pay, signers: [cosigner, alice])) == ["tx_success", "op_success"])
        // A high threshold above the signers' weight locks changes behind more signatures.
        #expect(setOptions(&ledger, alice, SetOptionsOperation(highThreshold: 3), signers: [alice, cosigner]) == ["tx_success", "op_success"])
        #expect(setOptions(&ledger, alice, SetOptionsOperation(highThreshold: 1), signers: [alice, cosigner]) == ["tx_failed", "op_bad_auth"])
        // A medium-threshold operation still works.
        #expect(codes(ledger.submit(alice, pay, signers: [alice, cosigner])) == ["tx_success", "op_success"])
    }

    @Test func preAuthorizedTransactionAndHashX() {
        var ledger = TestLedger()
        let alice = ledger.account(100)
        let bob = ledger.account(10)
        let next = ledger.sequence(alice) + 2
        let payment = Transaction(
            sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: next,
            operations: [Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: xlm)))])
        let hash = payment.hash(on: ledger.network)
        #expect(setOptions(&ledger, alice, SetOptionsOperation(signer: Signer(key: .preAuthTx(hash), weight: 1))) == ["tx_success", "op_success"])
        #expect(ledger.state.account(alice.accountID)!.numSubEntries == 1)
        #expect(codes(ledger.submit(TransactionEnvelope.v1(payment, signatures: []))) == ["tx_success", "op_success"])
        // The pre-authorization is used up.
        #expect(ledger.state.account(alice.accountID)!.signers.isEmpty)
        #expect(ledger.state.account(alice.accountID)!.numSubEntries == 0)

        let preimage: [UInt8] = Array("open sesame".utf8)
        let hashX = sha256Digest(preimage)
        #expect(setOptions(&ledger, alice, SetOptionsOperation(signer: Signer(key: .hashX(hashX), weight: 1))) == ["tx_success", "op_success"])
        let bump = Transaction(sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: ledger.sequence(alice) + 1, operations: [Operation(.bumpSequence(bumpTo: 0))])
        let revealed = TransactionEnvelope.v1(bump, signatures: [DecoratedSignature(hint: hashX.lastFourBytes, signature: preimage)])
        #expect(codes(ledger.submit(revealed)) == ["tx_success", "op_success"])
    }

    @Test func accountMergeCodes() {
        var ledger = TestLedger()
        let alice = ledger.account(100)
        let bob = ledger.account(10)
        let issuer = ledger.account(10)
        func merge(_ source: KeyPair, into destination: AccountID) -> [String] {
            codes(ledger.submit(source, .accountMerge(destination: .ed25519(destination))))
        }
        #expect(merge(alice, into: alice.accountID) == ["tx_failed", "op_malformed"])
        #expect(merge(alice, into: ledger.keyPair().accountID) == ["tx_failed", "op_no_account"])
        let usd = ledger.asset("USD", issuer: issuer)
        ledger.trust(alice, usd)
        #expect(merge(alice, into: bob.accountID) == ["tx_failed", "op_has_sub_entries"])
        #expect(codes(ledger.submit(alice, .changeTrust(ChangeTrustOperation(asset: usd, limit: 0)))) == ["tx_success", "op_success"])
        // Signers do not stop a merge.
        #expect(setOptions(&ledger, alice, SetOptionsOperation(signer: Signer(key: .ed25519(bob.accountID.publicKey), weight: 1))) == ["tx_success", "op_success"])
        let aliceBalance = ledger.balance(alice)!
        let bobBalance = ledger.balance(bob)!
        let result = ledger.submit(alice, .accountMerge(destination: .ed25519(bob.accountID)))
        #expect(codes(result) == ["tx_success", "op_success"])
        #expect(result.result.outcome.operationResults?.first == .inner(.accountMerge(.success, sourceAccountBalance: aliceBalance - 100)))
        #expect(ledger.state.account(alice.accountID) == nil)
        #expect(ledger.balance(bob) == bobBalance + aliceBalance - 100)

        let locked = ledger.account(10)
        #expect(setOptions(&ledger, locked, SetOptionsOperation(setFlags: AccountFlags.authImmutable)) == ["tx_success", "op_success"])
        #expect(merge(locked, into: bob.accountID) == ["tx_failed", "op_immutable_set"])

        let jumper = ledger.account(10)
        #expect(codes(ledger.submit(jumper, .bumpSequence(bumpTo: Int64(ledger.state.header.sequence + 10) << 32))) == ["tx_success", "op_success"])
        #expect(merge(jumper, into: bob.accountID) == ["tx_failed", "op_seq_num_too_far"])
    }

    @Test func mergeIntoAFullAccount() {
        var ledger = TestLedger()
        let issuer = ledger.account(100)
        let whale = ledger.account(100)
        let small = ledger.account(10)
        let tokens = ledger.asset("TOKEN", issuer: issuer)
        ledger.trust(whale, tokens)
        // An offer buying almost all the XLM there could ever be leaves no room to receive more.
        let room = Int64.max - ledger.balance(whale)! - 5 * xlm
        let amount = room / 10
        ledger.pay(issuer, whale, tokens, amount)
        _ = ledger.offer(whale, selling: tokens, buying: .native, amount: amount, price: Price(n: 10, d: 1))
        let account = ledger.state.account(whale.accountID)!
        #expect(Int64.max - account.balance - account.buyingLiabilities < 6 * xlm)
        #expect(codes(ledger.submit(small, .accountMerge(destination: .ed25519(whale.accountID)))) == ["tx_failed", "op_dest_full"])
    }
}
