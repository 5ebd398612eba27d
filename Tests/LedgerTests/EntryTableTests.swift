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
