import Testing
import StellarBase
@testable import Ledger

/// How the state holds accounts and trustlines: each key once, the fields few entries use out of
/// line (issue 30: the whole state lives in memory, so these sizes are what ten million cost).
@Suite("Entry tables and entry layout")
struct EntryTableTests {
    func id(_ byte: UInt8) -> AccountID { AccountID(publicKey: Bytes32(Array(repeating: byte, count: 32))) }

    @Test func theTableGivesBackWholeEntriesAndWhatTheyReplaced() {
        var table = EntryTable<AccountEntry>()
        let first = AccountEntry(accountID: id(1), balance: 10, sequenceNumber: 1, lastModifiedLedger: 2)
        #expect(table.update(first) == nil)
        var second = first
        second.balance = 20
        second.signers = [Signer(key: .ed25519(id(9).publicKey), weight: 1)]
        #expect(table.update(second) == first)
        #expect(table[id(1)] == second && table[id(1)]?.accountID == id(1) && table[id(1)]?.signers.count == 1)
        #expect(table.count == 1 && table.contains(id(1)) && !table.contains(id(2)))
        // A change declined leaves the entry as it was; one made gives back the old entry.
        #expect(table.modify(id(1)) { $0.balance = 99; return false } == nil)
        #expect(table[id(1)]?.balance == 20)
        #expect(table.modify(id(2)) { _ in true } == nil)
        #expect(table.modify(id(1)) { $0.balance += 1; return true } == second)
        #expect(table[id(1)]?.balance == 21)
        #expect(Array(table.values.map(\.balance)) == [21] && table.map(\.key) == [id(1)])
        #expect(table.remove(id(1))?.balance == 21 && table.isEmpty && table.remove(id(1)) == nil)
    }

    @Test func slotsAreThePowerOfTwoTheTableHolds() {
        var table = EntryTable<AccountEntry>()
        #expect(table.slots == 0)
        table.reserveCapacity(1_000_000)
        // 1,000,000 entries at most three quarters full: 2^21 slots.
        #expect(table.slots == 1 << 21 && table.capacity >= 1_000_000)
        table.reserveCapacity(3)
        #expect(table.slots == 1 << 21)
        var small = EntryTable<TrustLineEntry>()
        small.reserveCapacity(6)
        #expect(small.slots == 8)
    }

    @Test func rareFieldsLiveOutOfLineAndVanishWhenBackToTheirDefaults() throws {
        // The sizes the scale figures rest on: an account's body 56 bytes, a trustline's 32.
        #expect(MemoryLayout<AccountBody>.stride == 56)
        #expect(MemoryLayout<TrustLineBody>.stride == 32)
        let plain = AccountEntry(accountID: id(3), balance: 5, sequenceNumber: 7, lastModifiedLedger: 1)
        var account = plain
        account.homeDomain = Array("example.com".utf8)
        account.sellingLiabilities = 4
        account.sponsor = id(4)
        #expect(account != plain && account.body.rare != nil && account.hasSponsors)
        // Encoded and decoded, the rare fields come back.
        #expect(try AccountEntry(xdrBytes: account.xdrBytes) == account)
        account.homeDomain = []
        account.sellingLiabilities = 0
        account.sponsor = nil
        #expect(account == plain && account.body.rare == nil && !account.hasSponsors)

        let asset = try Asset(code: "USD", issuer: id(5))
        let line = TrustLineEntry(accountID: id(3), asset: asset, balance: 1, limit: 10, flags: TrustLineFlags.authorized, lastModifiedLedger: 1)
        var busy = line
        busy.buyingLiabilities = 2
        busy.liquidityPoolUseCount = 1
        #expect(busy.body.rare != nil && busy.key == line.key && busy.accountID == id(3) && busy.asset == asset)
        #expect(try TrustLineEntry(xdrBytes: busy.xdrBytes) == busy)
        busy.buyingLiabilities = 0
        busy.liquidityPoolUseCount = 0
        #expect(busy == line && busy.body.rare == nil)
    }
}

/// `GET /accounts/{id}` from memory: an account's trustlines found by asking for each asset the
/// ledger holds trustlines of, kept counted through changes and rollbacks.
@Suite("Accounts read from memory")
struct AccountRecordFromMemoryTests {
    @Test func trustedAssetsFollowTrustlinesThroughRollbacks() throws {
        var ledger = TestLedger()
        let issuer = ledger.account(), alice = ledger.account(), bob = ledger.account()
        let usd = ledger.asset("USD", issuer: issuer), eur = ledger.asset("EUR", issuer: issuer)
        ledger.trust(alice, usd)
        ledger.trust(bob, usd)
        ledger.trust(alice, eur)
        #expect(ledger.state.trustedAssets == [usd: 2, eur: 1])
        // A transaction that made a trustline and then failed leaves no count behind.
        let failed = ledger.submit(bob, [
            Operation(.changeTrust(ChangeTrustOperation(asset: eur, limit: .max))),
            Operation(.payment(PaymentOperation(destination: .ed25519(alice.accountID), asset: usd, amount: 1))),
        ])
        #expect(codes(failed).contains("op_underfunded"))
        #expect(ledger.state.trustedAssets == [usd: 2, eur: 1] && ledger.state.trustLine(bob.accountID, eur) == nil)
        // Removed: the asset leaves the count when its last trustline goes.
        ledger.submit(alice, .changeTrust(ChangeTrustOperation(asset: eur, limit: 0)))
        #expect(ledger.state.trustedAssets == [usd: 2])
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    @Test func memoryGivesAnAccountWithItsTrustlinesOrDeclines() throws {
        var ledger = TestLedger()
        let issuer = ledger.account(), alice = ledger.account(), carol = ledger.account()
        let usd = ledger.asset("USD", issuer: issuer), eur = ledger.asset("EUR", issuer: issuer)
        ledger.trust(alice, usd)
        ledger.trust(alice, eur)
        ledger.pay(issuer, alice, usd, 5)
        let record = try #require(ledger.state.accountRecord(alice.accountID))
        #expect(record.account == ledger.state.account(alice.accountID))
        #expect(Set(record.trustLines.map(\.asset)) == [usd, eur] && record.trustLines.first { $0.asset == usd }?.balance == 5)
        // Signers are in the account itself: still from memory.
        ledger.submit(alice, .setOptions(SetOptionsOperation(signer: Signer(key: .ed25519(carol.accountID.publicKey), weight: 1))))
        #expect(ledger.state.accountRecord(alice.accountID)?.trustLines.count == 2)
        // A data entry cannot be found by key: memory declines, the store answers.
        ledger.submit(alice, .manageData(ManageDataOperation(name: Array("note".utf8), value: [1])))
        #expect(ledger.state.accountRecord(alice.accountID) == nil)
        // More assets than memory will look through: declines too.
        #expect(ledger.state.accountRecord(carol.accountID)?.trustLines.isEmpty == true)
        ledger.trust(carol, usd)
        #expect(ledger.state.accountRecord(carol.accountID, assetLimit: 1) == nil)
        #expect(ledger.state.accountRecord(carol.accountID, assetLimit: 2)?.trustLines.count == 1)
        #expect(ledger.state.accountRecord(ledger.keyPair().accountID) == nil)
    }
}
