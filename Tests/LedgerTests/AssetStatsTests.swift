import Testing
import StellarBase
@testable import Ledger

/// Horizon's asset statistics as each closed ledger's changes carry them: added up ledger by
/// ledger they equal a count of the trustlines the state holds.
@Suite("Asset statistics")
struct AssetStatsTests {
    /// Every trustline of the state, counted from scratch.
    static func recount(_ state: LedgerState) -> [Asset: AssetTally] {
        var tallies: [Asset: AssetTally] = [:]
        for line in state.trustLines.values { tallies[line.asset, default: AssetTally()].count(line, sign: 1) }
        return tallies
    }

    @Test func eachLedgersChangesAddUpToTheTrustlinesHeld() {
        var ledger = TestLedger()
        var kept: [Asset: AssetTally] = [:]
        func keep(_ ledger: TestLedger) {
            for (asset, change) in ledger.lastChanges.assets { kept[asset, default: AssetTally()] = kept[asset, default: AssetTally()] + change }
            kept = kept.filter { !$0.value.isZero }
        }
        let open = ledger.account(), strict = ledger.account(), alice = ledger.account(), bob = ledger.account()
        let usd = ledger.asset("USD", issuer: open), eur = ledger.asset("EURSTRICT", issuer: strict)
        #expect(ledger.submit(strict, .setOptions(SetOptionsOperation(setFlags: AccountFlags.authRequired))).result.code == .success)
        keep(ledger)
        for (holder, asset) in [(alice, usd), (bob, usd), (alice, eur)] {
            ledger.trust(holder, asset)
            keep(ledger)
        }
        #expect(kept[usd] == AssetTally(accounts: [2, 0, 0], balances: [0, 0, 0]))
        // The strict issuer has not authorized alice: her trustline counts as unauthorized.
        #expect(kept[eur] == AssetTally(accounts: [0, 0, 1], balances: [0, 0, 0]))
        ledger.pay(open, alice, usd, 30 * TestLedger.xlm)
        keep(ledger)
        ledger.pay(alice, bob, usd, 12 * TestLedger.xlm)
        keep(ledger)
        #expect(ledger.lastChanges.assets[usd] == AssetTally(accounts: [0, 0, 0], balances: [0, 0, 0]) || ledger.lastChanges.assets[usd] == nil,
                "a payment between holders moves no total")
        #expect(kept[usd] == AssetTally(accounts: [2, 0, 0], balances: [30 * Int128(TestLedger.xlm), 0, 0]))
        // Bob pays back and gives the trustline up; alice gives up the strict one: it leaves.
        ledger.pay(bob, open, usd, 12 * TestLedger.xlm)
        keep(ledger)
        ledger.trust(bob, usd, limit: 0)
        keep(ledger)
        ledger.trust(alice, eur, limit: 0)
        keep(ledger)
        #expect(kept[usd] == AssetTally(accounts: [1, 0, 0], balances: [18 * Int128(TestLedger.xlm), 0, 0]))
        #expect(kept[eur] == nil)
        #expect(kept == Self.recount(ledger.state))
    }

    @Test func changesSkipTrustlinesThatMoveNoTotal() throws {
        let issuer = try KeyPair(seed: Array(repeating: 1, count: 32)).accountID
        let holder = try KeyPair(seed: Array(repeating: 2, count: 32)).accountID
        let asset = try Asset(code: "USD", issuer: issuer)
        let line = TrustLineEntry(accountID: holder, asset: asset, balance: 5, limit: 100, flags: TrustLineFlags.authorized, lastModifiedLedger: 3)
        var later = line
        later.limit = 50
        later.lastModifiedLedger = 4
        #expect(AssetTally.changes(before: [line.key: line], after: [line.key: later]).isEmpty)
        var revoked = later
        revoked.flags = TrustLineFlags.authorizedToMaintainLiabilities
        #expect(AssetTally.changes(before: [line.key: line], after: [line.key: revoked])[asset] == AssetTally(accounts: [-1, 1, 0], balances: [-5, 5, 0]))
        #expect(AssetTally.changes(before: [line.key: nil], after: [line.key: line])[asset] == AssetTally(accounts: [1, 0, 0], balances: [5, 0, 0]))
        #expect(AssetTally.changes(before: [line.key: line], after: [line.key: nil])[asset] == AssetTally(accounts: [-1, 0, 0], balances: [-5, 0, 0]))
    }

    @Test func totalsBeyondAnInt64AreExact() {
        var tally = AssetTally()
        let issuer = try! KeyPair(seed: Array(repeating: 1, count: 32)).accountID
        let asset = try! Asset(code: "BIG", issuer: issuer)
        for seed in UInt8(2)...4 {
            let holder = try! KeyPair(seed: Array(repeating: seed, count: 32)).accountID
            tally.count(TrustLineEntry(accountID: holder, asset: asset, balance: .max, limit: .max, flags: TrustLineFlags.authorized, lastModifiedLedger: 1), sign: 1)
        }
        #expect(tally[balance: .authorized] == 3 * Int128(Int64.max))
        #expect(Amount.format(tally[balance: .authorized]) == "2767011611056.4327421")
        #expect(Amount.format(Int128(-1)) == "-0.0000001")
        #expect(Amount.format(-3 * Int128(Int64.max)) == "-2767011611056.4327421")
    }

    @Test func signingKeysChangeOnlyWhenTheSignersDo() {
        var ledger = TestLedger()
        let alice = ledger.account(), bob = ledger.account()
        #expect(ledger.lastChanges.signers.isEmpty, "a new account's master key is not stored: its entry tells it")
        ledger.pay(alice, bob, .native, TestLedger.xlm)
        #expect(ledger.lastChanges.signers.isEmpty, "a payment changes no signers")
        #expect(ledger.submit(alice, .setOptions(SetOptionsOperation(signer: Signer(key: .ed25519(bob.accountID.publicKey), weight: 1)))).result.code == .success)
        #expect(ledger.lastChanges.signers == [alice.accountID: [bob.accountID]])
        #expect(ledger.submit(alice, .setOptions(SetOptionsOperation(masterWeight: 0))).result.code == .success)
        #expect(ledger.lastChanges.signers.isEmpty, "the master key's weight is read from the account's entry")
        #expect(ledger.submit(alice, .setOptions(SetOptionsOperation(signer: Signer(key: .ed25519(bob.accountID.publicKey), weight: 0))), signers: [bob]).result.code == .success)
        #expect(ledger.lastChanges.signers == [alice.accountID: []], "a signer removed")
    }
}
