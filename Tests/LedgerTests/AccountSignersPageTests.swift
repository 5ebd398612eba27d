import Ledger
import StellarBase
import Testing

/// `/accounts?signer=`'s pages: the stored signer rows with the key's own account merged in
/// (a store keeps no row for a master key), against the whole list sorted and cut.
@Suite("The accounts a key signs for, its own account merged in")
struct AccountSignersPageTests {
    static func id(_ byte: UInt8) -> AccountID { AccountID(publicKey: Bytes32([byte] + Array(repeating: 0, count: 31))) }
    static func record(_ byte: UInt8, masterWeight: UInt8 = 1) -> AccountRecord {
        var entry = AccountEntry(accountID: id(byte), balance: 1, sequenceNumber: 1, lastModifiedLedger: 1)
        entry.thresholds = Thresholds(masterWeight: masterWeight, low: 0, medium: 0, high: 0)
        return AccountRecord(account: entry, trustLines: [], data: [])
    }

    /// The accounts naming the key among their signers, and the key's own (5: in their midst).
    static let others: [UInt8] = [2, 4, 6, 8]
    static let own: UInt8 = 5

    @Test(arguments: [false, true])
    func everyPageMatchesTheWholeListCut(descending: Bool) {
        for masterWeight: UInt8 in [0, 1, 255] {
            let signs = (Self.others + (masterWeight > 0 ? [Self.own] : [])).sorted(by: descending ? (>) : (<))
            for after in [nil] + (1...9).map({ UInt8($0) }) {
                for limit in 1...6 {
                    let page = KeyedPage(after: after.map(Self.id), limit: limit, descending: descending)
                    let bounded = { (key: UInt8) in after.map { descending ? key < $0 : key > $0 } ?? true }
                    let expected = signs.filter(bounded).prefix(limit).map { $0 }
                    // What a store reads: its rows past the bound, in order, up to the limit.
                    let stored = Self.others.sorted(by: descending ? (>) : (<)).filter(bounded).prefix(limit).map { Self.record($0) }
                    let merged = AccountSigners.page(stored: stored, own: Self.record(Self.own, masterWeight: masterWeight), page)
                    #expect(merged.map(\.account.accountID) == expected.map(Self.id), "weight \(masterWeight), after \(after as Any), limit \(limit)")
                }
            }
        }
    }

    @Test func noAccountOrOneAlreadyListedAddsNothing() {
        let stored = [Self.record(2), Self.record(5)]
        #expect(AccountSigners.page(stored: stored, own: nil, KeyedPage()).map(\.account.accountID) == [Self.id(2), Self.id(5)])
        #expect(AccountSigners.page(stored: stored, own: Self.record(5), KeyedPage()).map(\.account.accountID) == [Self.id(2), Self.id(5)])
        #expect(AccountSigners.page(stored: [], own: Self.record(5), KeyedPage()).map(\.account.accountID) == [Self.id(5)])
    }

    /// Only ed25519 signers of weight above 0 are stored; the master key never is.
    @Test func theStoredKeysLeaveOutTheMasterKey() {
        var entry = Self.record(5, masterWeight: 3).account
        entry.signers = [Signer(key: .ed25519(Self.id(7).publicKey), weight: 1), Signer(key: .ed25519(Self.id(9).publicKey), weight: 0), Signer(key: .hashX(.zero), weight: 1)]
        #expect(AccountSigners.keys(entry) == [Self.id(7)])
        #expect(AccountSigners.keys(nil).isEmpty)
        // A change of the master key's weight alone is no change of the stored keys.
        var masterOff = entry
        masterOff.thresholds.masterWeight = 0
        #expect(AccountSigners.changes(before: [entry.accountID: entry], after: [entry.accountID: masterOff]).isEmpty)
    }
}
