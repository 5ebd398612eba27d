import Testing
import StellarBase
@testable import Ledger

private let xlm = TestLedger.xlm

@Suite("CreateAccount, Payment, ChangeTrust, ManageData, BumpSequence: every result code")
struct AccountOperationTests {
    @Test func createAccount() {
        var ledger = TestLedger()
        let alice = ledger.account(10)
        let fresh = ledger.keyPair()
        func create(_ destination: KeyPair, _ amount: Int64, from: KeyPair) -> [String] {
            codes(ledger.submit(from, .createAccount(CreateAccountOperation(destination: destination.accountID, startingBalance: amount))))
        }
        #expect(create(alice, xlm, from: alice) == ["tx_failed", "op_malformed"])
        #expect(create(fresh, -1, from: alice) == ["tx_failed", "op_malformed"])
        #expect(create(fresh, xlm - 1, from: alice) == ["tx_failed", "op_low_reserve"])
        #expect(create(fresh, 9 * xlm, from: alice) == ["tx_failed", "op_underfunded"])
        #expect(create(fresh, 2 * xlm, from: alice) == ["tx_success", "op_success"])
        #expect(create(fresh, 2 * xlm, from: alice) == ["tx_failed", "op_already_exists"])
        let account = ledger.state.account(fresh.accountID)!
        #expect(account.balance == 2 * xlm)
        #expect(account.sequenceNumber == Int64(ledger.state.header.sequence - 1) << 32)
        #expect(account.thresholds == Thresholds(masterWeight: 1, low: 0, medium: 0, high: 0))
    }

    @Test func paymentCodes() {
        var ledger = TestLedger()
        let issuer = ledger.account(100)
        let alice = ledger.account(100)
        let bob = ledger.account(100)
        let usd = ledger.asset("USD", issuer: issuer)
        func pay(_ from: KeyPair, _ to: AccountID, _ asset: Asset, _ amount: Int64) -> [String] {
            codes(ledger.submit(from, .payment(PaymentOperation(destination: .ed25519(to), asset: asset, amount: amount))))
        }
        #expect(pay(alice, bob.accountID, .native, 0) == ["tx_failed", "op_malformed"])
        #expect(pay(alice, bob.accountID, .native, -5) == ["tx_failed", "op_malformed"])
        let badAsset = try! Asset(xdrBytes: [0, 0, 0, 1, 0x55, 0, 0x44, 0] + issuer.accountID.xdrBytes)
        #expect(pay(alice, bob.accountID, badAsset, 1) == ["tx_failed", "op_malformed"])
        // XLM: the reserve (1 XLM) and the fee stay behind.
        #expect(pay(alice, bob.accountID, .native, 99 * xlm) == ["tx_failed", "op_underfunded"])
        #expect(pay(alice, ledger.keyPair().accountID, .native, xlm) == ["tx_failed", "op_no_destination"])
        // stellar-core credits the destination first, so the destination's problems come first.
        #expect(pay(alice, bob.accountID, usd, xlm) == ["tx_failed", "op_no_trust"])
        #expect(pay(alice, issuer.accountID, usd, xlm) == ["tx_failed", "op_src_no_trust"])
        #expect(pay(issuer, bob.accountID, usd, xlm) == ["tx_failed", "op_no_trust"])
        ledger.trust(bob, usd, limit: 10 * xlm)
        #expect(pay(issuer, bob.accountID, usd, 11 * xlm) == ["tx_failed", "op_line_full"])
        #expect(pay(issuer, bob.accountID, usd, 10 * xlm) == ["tx_success", "op_success"])
        ledger.trust(alice, usd)
        #expect(pay(alice, bob.accountID, usd, xlm) == ["tx_failed", "op_line_full"])
        #expect(pay(alice, issuer.accountID, usd, xlm) == ["tx_failed", "op_underfunded"])
        #expect(pay(bob, alice.accountID, usd, 4 * xlm) == ["tx_success", "op_success"])
        #expect(ledger.balance(bob, usd) == 6 * xlm)
        #expect(ledger.balance(alice, usd) == 4 * xlm)
        // Back to the issuer: the supply shrinks.
        #expect(pay(alice, issuer.accountID, usd, 4 * xlm) == ["tx_success", "op_success"])
        #expect(ledger.balance(alice, usd) == 0)
        // To oneself in XLM: success without change but the fee.
        let before = ledger.balance(alice)!
        #expect(pay(alice, alice.accountID, .native, xlm) == ["tx_success", "op_success"])
        #expect(ledger.balance(alice) == before - 100)
    }

    @Test func authorizationRequired() {
        var ledger = TestLedger()
        let issuer = ledger.account(100)
        let alice = ledger.account(100)
        let bob = ledger.account(100)
        #expect(codes(ledger.submit(issuer, .setOptions(SetOptionsOperation(setFlags: AccountFlags.authRequired)))) == ["tx_success", "op_success"])
        let gold = ledger.asset("GOLD", issuer: issuer)
        ledger.trust(alice, gold)
        ledger.trust(bob, gold)
        #expect(ledger.state.trustLine(alice.accountID, gold)?.isAuthorized == false)
        // Without AllowTrust or SetTrustLineFlags the lines stay unauthorized.
        #expect(codes(ledger.submit(issuer, .payment(PaymentOperation(destination: .ed25519(alice.accountID), asset: gold, amount: 1)))) == ["tx_failed", "op_not_authorized"])
        #expect(codes(ledger.submit(alice, .payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: gold, amount: 1)))) == ["tx_failed", "op_not_authorized"])
        #expect(codes(ledger.submit(alice, .payment(PaymentOperation(destination: .ed25519(issuer.accountID), asset: gold, amount: 1)))) == ["tx_failed", "op_src_not_authorized"])
    }

    @Test func changeTrust() {
        var ledger = TestLedger()
        let issuer = ledger.account(100)
        let alice = ledger.account(100)
        let usd = ledger.asset("USD", issuer: issuer)
        func trust(_ who: KeyPair, _ asset: Asset, _ limit: Int64) -> [String] {
            codes(ledger.submit(who, .changeTrust(ChangeTrustOperation(asset: asset, limit: limit))))
        }
        #expect(trust(alice, usd, -1) == ["tx_failed", "op_malformed"])
        #expect(trust(alice, .native, 100) == ["tx_failed", "op_malformed"])
        // Since protocol 16 trusting one's own asset is malformed (SELF_NOT_ALLOWED before).
        #expect(trust(issuer, usd, 100) == ["tx_failed", "op_malformed"])
        #expect(trust(alice, ledger.asset("USD", issuer: ledger.keyPair()), 100) == ["tx_failed", "op_no_issuer"])
        #expect(trust(alice, usd, 0) == ["tx_failed", "op_invalid_limit"])
        let reserveBefore = ledger.state.minimumBalance(ledger.state.account(alice.accountID)!)
        #expect(trust(alice, usd, 100 * xlm) == ["tx_success", "op_success"])
        #expect(ledger.state.minimumBalance(ledger.state.account(alice.accountID)!) == reserveBefore + 5_000_000)
        ledger.pay(issuer, alice, usd, 50 * xlm)
        #expect(trust(alice, usd, 49 * xlm) == ["tx_failed", "op_invalid_limit"])
        #expect(trust(alice, usd, 0) == ["tx_failed", "op_invalid_limit"])
        #expect(trust(alice, usd, 50 * xlm) == ["tx_success", "op_success"])
        ledger.pay(alice, issuer, usd, 50 * xlm)
        #expect(trust(alice, usd, 0) == ["tx_success", "op_success"])
        #expect(ledger.state.trustLine(alice.accountID, usd) == nil)
        #expect(ledger.state.account(alice.accountID)!.numSubEntries == 0)
        // A new line needs 0.5 XLM of reserve above what the account must keep.
        let poor = ledger.account(1)
        ledger.pay(ledger.root, poor, .native, 400) // enough for fees, not for a reserve
        #expect(trust(poor, usd, 100) == ["tx_failed", "op_low_reserve"])
    }

    @Test func manageData() {
        var ledger = TestLedger()
        let alice = ledger.account(3)
        func data(_ name: String, _ value: [UInt8]?) -> [String] {
            codes(ledger.submit(alice, .manageData(ManageDataOperation(name: Array(name.utf8), value: value))))
        }
        #expect(data("", [1]) == ["tx_failed", "op_data_invalid_name"])
        #expect(data("bad\u{7}name", [1]) == ["tx_failed", "op_data_invalid_name"])
        #expect(data("missing", nil) == ["tx_failed", "op_data_name_not_found"])
        #expect(data("config.memo_required", Array("1".utf8)) == ["tx_success", "op_success"])
        #expect(ledger.state.data(alice.accountID, Array("config.memo_required".utf8))?.value == [0x31])
        #expect(data("config.memo_required", Array("0".utf8)) == ["tx_success", "op_success"])
        #expect(ledger.state.account(alice.accountID)!.numSubEntries == 1)
        #expect(data("second", [2]) == ["tx_success", "op_success"])
        // 3 XLM: 1 base + 2 entries × 0.5 = 2 XLM reserved, fees taken; a third entry would need 2.5.
        #expect(data("third", [3]) == ["tx_success", "op_success"])
        #expect(data("fourth", [4]) == ["tx_failed", "op_low_reserve"])
        #expect(data("second", nil) == ["tx_success", "op_success"])
        #expect(ledger.state.account(alice.accountID)!.numSubEntries == 2)
    }

    @Test func bumpSequence() {
        var ledger = TestLedger()
        let alice = ledger.account(10)
        #expect(codes(ledger.submit(alice, .bumpSequence(bumpTo: -1))) == ["tx_failed", "op_bad_seq"])
        let current = ledger.sequence(alice)
        #expect(codes(ledger.submit(alice, .bumpSequence(bumpTo: current + 100))) == ["tx_success", "op_success"])
        #expect(ledger.sequence(alice) == current + 100)
        // Bumping to a lower number only consumes the transaction's own sequence number.
        #expect(codes(ledger.submit(alice, .bumpSequence(bumpTo: 5))) == ["tx_success", "op_success"])
        #expect(ledger.sequence(alice) == current + 101)
    }
}
