import Foundation
import Ledger
import StellarBase
import Testing
@testable import TenderServer

/// A plain account's answer from ``AccountAnswer``'s runs of bytes is byte for byte what the
/// general writer (``HorizonResources/accountBytes(_:address:)``) gives, and any other account
/// is left to the general writer.
@Suite("Account answer")
struct AccountAnswerTests {
    /// A plain account with random figures (from the full ranges, with the edges often) and
    /// 0-3 trustlines to random issued assets of one of two issuers, in random order.
    static func plainRecord(_ rng: inout some RandomNumberGenerator) throws -> AccountRecord {
        func figure<T: FixedWidthInteger>(_: T.Type) -> T {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: 0
            case 1: T.max
            case 2: T.min
            case 3: T(truncatingIfNeeded: Int.random(in: 0...99, using: &rng))
            default: T.random(in: T.min...T.max, using: &rng)
            }
        }
        let holder = try KeyPair(seed: (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }).accountID
        var account = AccountEntry(accountID: holder, balance: figure(Int64.self), sequenceNumber: figure(Int64.self), lastModifiedLedger: figure(UInt32.self))
        account.sequenceLedger = figure(UInt32.self)
        account.sequenceTime = figure(UInt64.self)
        account.flags = UInt32.random(in: 0...15, using: &rng)
        account.thresholds = Thresholds(masterWeight: figure(UInt8.self), low: figure(UInt8.self), medium: figure(UInt8.self), high: figure(UInt8.self))
        if Bool.random(using: &rng) {
            account.buyingLiabilities = figure(Int64.self)
            account.sellingLiabilities = figure(Int64.self)
            account.numSponsoring = figure(UInt32.self)
            account.numSponsored = figure(UInt32.self)
        }
        let issuers = [try KeyPair(seed: Array(repeating: 2, count: 32)).accountID, try KeyPair(seed: Array(repeating: 3, count: 32)).accountID]
        let codes = ["USD", "EUR", "A", "SCALE", "LONGASSET12X", "B2"]
        let lines = try (0..<Int.random(in: 0...3, using: &rng)).map { _ in
            TrustLineEntry(accountID: holder, asset: try Asset(code: codes.randomElement(using: &rng)!, issuer: issuers.randomElement(using: &rng)!),
                           balance: figure(Int64.self), limit: figure(Int64.self), flags: UInt32.random(in: 0...7, using: &rng), lastModifiedLedger: figure(UInt32.self))
        }
        account.numSubEntries = UInt32(lines.count)
        return AccountRecord(account: account, trustLines: lines, data: [])
    }

    @Test(arguments: ["http://127.0.0.1:8000", "http://h\"o\\st\u{1}:1"])
    func aPlainAccountsAnswerIsTheGeneralWritersBytes(base: String) throws {
        let resources = HorizonResources(base: base, network: .standalone)
        var answer = AccountAnswer(base: base)
        var rng = SystemRandomNumberGenerator()
        var out: [UInt8] = Array("left".utf8)
        for _ in 0..<2_000 {
            let record = try Self.plainRecord(&rng)
            let address = record.account.accountID.strKey
            out.removeAll(keepingCapacity: true)
            #expect(answer.render(record, address: address, to: &out))
            let expected = resources.accountBytes(record, address: address)
            #expect(out == expected, "\(String(decoding: out, as: UTF8.self))\n\(String(decoding: expected, as: UTF8.self))")
        }
        #expect(try JSONSerialization.jsonObject(with: Data(out)) is [String: Any])
    }

    /// Each field that makes an account other than plain sends it to the general writer, with
    /// nothing written.
    @Test func anyOtherAccountIsDeclined() throws {
        let rich = try AccountRenderingTests.richRecord()
        let issuer = try AccountRenderingTests.id(2), sponsor = try AccountRenderingTests.id(3)
        let plain = AccountRecord(account: AccountEntry(accountID: try AccountRenderingTests.id(1), balance: 1, sequenceNumber: 1, lastModifiedLedger: 1),
                                  trustLines: [], data: [])
        var others: [AccountRecord] = [rich]
        var changed = plain
        changed.account.inflationDestination = issuer
        others.append(changed)
        changed = plain
        changed.account.homeDomain = Array("example.com".utf8)
        others.append(changed)
        changed = plain
        changed.account.signers = [Signer(key: .ed25519(issuer.publicKey), weight: 1)]
        others.append(changed)
        changed = plain
        changed.account.sponsor = sponsor
        others.append(changed)
        changed = plain
        changed.data = rich.data
        others.append(changed)
        changed = plain
        var line = TrustLineEntry(accountID: plain.account.accountID, asset: try Asset(code: "USD", issuer: issuer), balance: 1, limit: 2, flags: 1, lastModifiedLedger: 1)
        line.sponsor = sponsor
        changed.trustLines = [line]
        others.append(changed)
        var answer = AccountAnswer(base: "http://h:1")
        for record in others {
            var out: [UInt8] = [1, 2]
            #expect(!answer.render(record, address: record.account.accountID.strKey, to: &out))
            #expect(out == [1, 2])
        }
        var out: [UInt8] = []
        #expect(answer.render(plain, address: plain.account.accountID.strKey, to: &out))
    }
}
