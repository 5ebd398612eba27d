import Foundation
import Ledger
import StellarBase
@testable import TenderJSON
import Testing
@testable import TenderServer

/// `GET /accounts/{id}`'s answer written straight into bytes (``HorizonResources/accountBytes(_:)``)
/// and the tree the console and the collections read (``HorizonResources/account(_:)``) come
/// from one rendering through two ``JSONWriter``s: they must be the same document.
@Suite("Account rendering")
struct AccountRenderingTests {
    let resources = HorizonResources(base: "http://h:8000", network: .standalone)

    static func id(_ seed: UInt8) throws -> AccountID {
        try KeyPair(seed: Array(repeating: seed, count: 32)).accountID
    }

    /// An account using every field the rendering shows: signers (one sponsored), trustlines
    /// out of order (one sponsored, one clawback-enabled, a 12-character code), data whose name
    /// needs escaping, a home domain, an inflation destination, liabilities and a sponsor.
    static func richRecord() throws -> AccountRecord {
        let holder = try id(1), issuer = try id(2), sponsor = try id(3)
        var account = AccountEntry(accountID: holder, balance: 123_456_789_012, sequenceNumber: 42_949_672_961, lastModifiedLedger: 77)
        account.numSubEntries = 6
        account.flags = AccountFlags.authRequired | AccountFlags.authClawbackEnabled
        account.thresholds = Thresholds(masterWeight: 2, low: 1, medium: 2, high: 3)
        account.sequenceLedger = 70
        account.sequenceTime = 1_700_000_000
        account.inflationDestination = issuer
        account.homeDomain = Array("example.com".utf8)
        let signer = SignerKey.ed25519(try id(4).publicKey), other = SignerKey.hashX(Bytes32(Array(repeating: 7, count: 32)))
        account.signers = [Signer(key: signer, weight: 5), Signer(key: other, weight: 1)]
        account.signerSponsors = [signer: sponsor]
        account.buyingLiabilities = 10
        account.sellingLiabilities = 20
        account.numSponsoring = 1
        account.numSponsored = 2
        account.sponsor = sponsor
        var usd = TrustLineEntry(accountID: holder, asset: try Asset(code: "USD", issuer: issuer), balance: 5_000_000, limit: Int64.max, flags: TrustLineFlags.authorized, lastModifiedLedger: 60)
        usd.sponsor = sponsor
        let long = TrustLineEntry(accountID: holder, asset: try Asset(code: "LONGASSET12X", issuer: issuer), balance: 1, limit: 100,
                                  flags: TrustLineFlags.authorized | TrustLineFlags.clawbackEnabled, lastModifiedLedger: 61)
        let eur = TrustLineEntry(accountID: holder, asset: try Asset(code: "EUR", issuer: issuer), balance: 0, limit: 10_000_000, flags: 0, lastModifiedLedger: 62)
        let data = [
            DataEntry(accountID: holder, name: Array("name \"quoted\"\n".utf8), value: [0, 1, 2, 250], lastModifiedLedger: 63),
            DataEntry(accountID: holder, name: Array("plain".utf8), value: Array("value".utf8), lastModifiedLedger: 64),
        ]
        return AccountRecord(account: account, trustLines: [usd, long, eur], data: data)
    }

    @Test func theBytesAreTheTreesCompactForm() throws {
        for record in [try Self.richRecord(), AccountRecord(account: AccountEntry(accountID: try Self.id(5), balance: 1, sequenceNumber: 0, lastModifiedLedger: 1), trustLines: [], data: [])] {
            let bytes = resources.accountBytes(record)
            #expect(bytes == resources.account(record).compactBytes(), "\(String(decoding: bytes, as: UTF8.self))")
            // And it is JSON.
            #expect(try JSONSerialization.jsonObject(with: Data(bytes)) is [String: Any])
        }
    }

    /// A balance's asset written field by field is the asset's fields every other answer
    /// shows (effects, operations), for each kind of asset.
    @Test func aBalancesAssetIsTheAssetsFields() throws {
        let issuer = try Self.id(2)
        for asset in [Asset.native, try Asset(code: "USD", issuer: issuer), try Asset(code: "LONGASSET12X", issuer: issuer)] {
            let written = JSONTreeWriter.document { writer in writer.object { HorizonResources.writeAssetFields(asset, to: &$0) } }
            #expect(written.compactBytes() == JSONValue.object(HorizonResources.assetFields(asset)).compactBytes(), "\(asset)")
        }
    }

    /// The document's fields as Horizon gives them, read back from the bytes.
    @Test func theBytesSayWhatHorizonSays() throws {
        let record = try Self.richRecord()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(resources.accountBytes(record))) as? [String: Any])
        let id = try Self.id(1).strKey
        #expect(object["id"] as? String == id && object["account_id"] as? String == id && object["paging_token"] as? String == id)
        #expect(object["sequence"] as? String == "42949672961")
        #expect(object["sequence_time"] as? String == "1700000000")
        #expect(object["home_domain"] as? String == "example.com")
        #expect(object["sponsor"] as? String == (try Self.id(3).strKey))
        let links = try #require(object["_links"] as? [String: [String: Any]])
        #expect(links["self"]?["href"] as? String == "http://h:8000/accounts/\(id)")
        #expect(links["self"]?["templated"] == nil)
        #expect(links["payments"]?["href"] as? String == "http://h:8000/accounts/\(id)/payments{?cursor,limit,order}")
        #expect(links["payments"]?["templated"] as? Bool == true)
        #expect(links["data"]?["href"] as? String == "http://h:8000/accounts/\(id)/data/{key}")
        let balances = try #require(object["balances"] as? [[String: Any]])
        // Issued assets by their description (code, then issuer), XLM last.
        #expect(balances.map { $0["asset_code"] as? String ?? "native" } == ["EUR", "LONGASSET12X", "USD", "native"])
        #expect(balances[1]["asset_type"] as? String == "credit_alphanum12" && balances[1]["is_clawback_enabled"] as? Bool == true)
        #expect(balances[2]["sponsor"] as? String == (try Self.id(3).strKey) && balances[2]["limit"] as? String == "922337203685.4775807")
        #expect(balances[0]["is_authorized"] as? Bool == false && balances[0]["sponsor"] == nil)
        #expect(balances[3]["balance"] as? String == "12345.6789012" && balances[3]["selling_liabilities"] as? String == "0.0000020")
        let signers = try #require(object["signers"] as? [[String: Any]])
        #expect(signers.map { $0["weight"] as? Int } == [5, 1, 2])
        #expect(signers.last?["key"] as? String == id && signers.last?["type"] as? String == "ed25519_public_key")
        #expect(signers[0]["sponsor"] as? String == (try Self.id(3).strKey) && signers[1]["sponsor"] == nil)
        let data = try #require(object["data"] as? [String: String])
        #expect(data == ["name \"quoted\"\n": "AAEC+g==", "plain": "dmFsdWU="])
        let flags = try #require(object["flags"] as? [String: Bool])
        #expect(flags == ["auth_required": true, "auth_revocable": false, "auth_immutable": false, "auth_clawback_enabled": true])
        let thresholds = try #require(object["thresholds"] as? [String: Int])
        #expect(thresholds == ["low_threshold": 1, "med_threshold": 2, "high_threshold": 3])
    }

    /// The two writers on their own: nesting, empty containers, escaping in keys and values,
    /// a string in three parts, numbers at their limits, a tree spliced in, links with and
    /// without a template and links below an address, plain and needing escapes (the bytes
    /// writer's own shorter ways).
    @Test func theWritersAgree() throws {
        func write<Writer: JSONWriter>(_ writer: inout Writer) {
            writer.object { writer in
                writer.field("a\"b", "x\\y\u{1}")
                writer.key("empty object")
                writer.object { _ in }
                writer.key("empty array")
                writer.array { _ in }
                writer.key("nested")
                writer.array { writer in
                    writer.number(Int64.min)
                    writer.number(Int64.max)
                    writer.bool(true)
                    writer.array { writer in writer.string("one", "\n", "three") }
                    writer.object { writer in writer.field("k", false) }
                    writer.value(.object([("t", .null), ("u", .unsigned(UInt64.max))]))
                }
                writer.key("links")
                writer.array { writer in
                    writer.link("http://h:1", "/a\"b", "{?x}", templated: true)
                    writer.link("", "/plain", "", templated: false)
                }
                writer.key("below")
                writer.links(below: "http://h", "/x/", "id", [JSONLink("self"), JSONLink("t", tail: "/t{?c}", templated: true)])
                writer.key("escaped below")
                writer.links(below: "http://\"q", "/x/", "i\\d", [JSONLink("n\"m", tail: "\n")])
                writer.field("last", Int64(0))
            }
        }
        var bytes = JSONBytesWriter()
        write(&bytes)
        var tree = JSONTreeWriter()
        write(&tree)
        let expected = #"{"a\"b":"x\\y\u0001","empty object":{},"empty array":[],"nested":[-9223372036854775808,9223372036854775807,true,["one\nthree"],{"k":false},{"t":null,"u":18446744073709551615}],"links":[{"href":"http://h:1/a\"b{?x}","templated":true},{"href":"/plain"}],"below":{"self":{"href":"http://h/x/id"},"t":{"href":"http://h/x/id/t{?c}","templated":true}},"escaped below":{"n\"m":{"href":"http://\"q/x/i\\d\n"}},"last":0}"#
        #expect(String(decoding: bytes.bytes, as: UTF8.self) == expected)
        #expect(String(decoding: try #require(tree.result).compactBytes(), as: UTF8.self) == expected)
    }
}

/// JSON strings' escaping: the word-at-a-time test for what needs escaping, against the byte
/// by byte one, with each special byte at every place of strings crossing word boundaries.
@Suite("JSON string escaping")
struct JSONEscapingTests {
    static func needsEscapingBytewise(_ bytes: [UInt8]) -> Bool {
        bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }

    @Test func theWordTestFindsEverySpecialByteAndOnlyThem() {
        for length in 0...20 {
            // Plain text (ASCII and UTF-8 continuation bytes) with one byte of each value in turn at each place.
            let plain: [UInt8] = (0..<length).map { (index: Int) -> UInt8 in index % 2 == 0 ? UInt8(0x61 + index % 26) : UInt8(0xC3 + index % 3) }
            #expect(plain.withUnsafeBufferPointer { JSONValue.needsEscaping($0) } == false)
            for place in 0..<length {
                for value in 0...255 {
                    var bytes = plain
                    bytes[place] = UInt8(value)
                    let expected = Self.needsEscapingBytewise(bytes)
                    // A word the test flags goes to the exact escaping, so a false alarm only costs time;
                    // a miss would send a quote or a control character out unescaped.
                    let found = bytes.withUnsafeBufferPointer { JSONValue.needsEscaping($0) }
                    #expect(!expected || found, "length \(length), byte \(value) at \(place)")
                    // With a single special byte among plain text, no false alarms either.
                    #expect(expected || !found, "length \(length), byte \(value) at \(place)")
                }
            }
        }
    }

    @Test func escapedStringsAreValidJSON() throws {
        for value in 0...0x7F {
            let text = "abcdefgh" + String(UnicodeScalar(UInt8(value))) + "ijklmnop é"
            let bytes = JSONValue.array([.string(text)]).compactBytes()
            let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String]
            #expect(parsed == [text], "\(value)")
        }
    }
}

/// An applied `POST /transactions`' answer written straight into bytes
/// (``HorizonResources/transactionBytes(_:)``) and the tree the collections, the streams and
/// the console read (``HorizonResources/transaction(_:)``) come from one rendering: the same
/// document for transactions using every field it shows.
@Suite("Transaction rendering")
struct TransactionRenderingTests {
    let resources = HorizonResources(base: "http://h:8000", network: .standalone)

    static func stored(_ envelope: TransactionEnvelope, _ result: TransactionResult) -> StoredTransaction {
        StoredTransaction(hash: envelope.hash(on: .standalone), ledger: 9, applicationOrder: 3, envelope: envelope, result: result, closeTime: 1_700_000_123)
    }

    static func transactions() throws -> [StoredTransaction] {
        let alice = try KeyPair(seed: Array(repeating: 1, count: 32)), bob = try KeyPair(seed: Array(repeating: 2, count: 32))
        let pay = StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: 5)))
        let success = TransactionResult(feeCharged: 100, outcome: .success([]))
        let failed = TransactionResult(feeCharged: 200, outcome: .code(.badSequence))
        let hash = Bytes32(Array(repeating: 9, count: 32))
        let plain = Transaction(sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: 7, operations: [pay])
        var muxed = plain
        muxed.sourceAccount = .muxed(id: 42, alice.accountID)
        muxed.memo = .text(Array("dinner \"for\" two".utf8))
        muxed.preconditions = .time(TimeBounds(minTime: 1_600_000_000, maxTime: 0))
        var bounded = plain
        bounded.memo = .id(UInt64.max)
        bounded.preconditions = .v2(PreconditionsV2(
            timeBounds: TimeBounds(minTime: 1, maxTime: 1_800_000_000), ledgerBounds: LedgerBounds(minLedger: 2, maxLedger: 90), minSequenceNumber: 3,
            minSequenceAge: 60, minSequenceLedgerGap: 4, extraSigners: [.ed25519(bob.accountID.publicKey)]))
        var hashed = plain
        hashed.memo = .hash(hash)
        var returned = plain
        returned.memo = .return(hash)
        let inner = TransactionEnvelope.v1(plain, signatures: []).transaction
        let innerSigned = plain.signed(by: [alice], on: .standalone)
        let bump = FeeBumpTransaction(feeSource: .muxed(id: 7, bob.accountID), fee: 400, innerTransaction: inner, innerSignatures: innerSigned.signatures)
        let bumped = TransactionEnvelope.feeBump(bump, signatures: innerSigned.signatures)
        return [
            stored(plain.signed(by: [alice], on: .standalone), success),
            stored(muxed.signed(by: [alice, bob], on: .standalone), success),
            stored(bounded.signed(by: [alice], on: .standalone), failed),
            stored(hashed.signed(by: [alice], on: .standalone), success),
            stored(returned.signed(by: [alice], on: .standalone), success),
            stored(bumped, TransactionResult(feeCharged: 300, outcome: .code(.insufficientFee))),
        ]
    }

    @Test func theBytesAreTheTreesCompactForm() throws {
        for stored in try Self.transactions() {
            let bytes = resources.transactionBytes(stored)
            #expect(bytes == resources.transaction(stored).compactBytes(), "\(String(decoding: bytes, as: UTF8.self))")
            _ = try JSONSerialization.jsonObject(with: Data(bytes))
        }
    }

    /// What Horizon says: links, the fields in its order, muxed sources, memos, preconditions, a fee bump.
    @Test func theBytesSayWhatHorizonSays() throws {
        let all = try Self.transactions()
        let plain = try #require(JSONSerialization.jsonObject(with: Data(resources.transactionBytes(all[0]))) as? [String: Any])
        let hash = all[0].hash.hex
        let links = try #require(plain["_links"] as? [String: [String: Any]])
        #expect(links["self"]?["href"] as? String == "http://h:8000/transactions/\(hash)")
        #expect(links["operations"]?["href"] as? String == "http://h:8000/transactions/\(hash)/operations{?cursor,limit,order}" && links["operations"]?["templated"] as? Bool == true)
        #expect(links["precedes"]?["href"] as? String == "http://h:8000/transactions?order=asc&cursor=\(all[0].id)")
        #expect(links["ledger"]?["href"] as? String == "http://h:8000/ledgers/9")
        #expect(plain["paging_token"] as? String == String(all[0].id) && plain["ledger"] as? Int == 9 && plain["successful"] as? Bool == true)
        #expect(plain["created_at"] as? String == "2023-11-14T22:15:23Z" && plain["fee_charged"] as? String == "100" && plain["max_fee"] as? String == "100")
        #expect(plain["memo_type"] as? String == "none" && plain["memo"] == nil && (plain["signatures"] as? [String])?.count == 1)
        let muxed = try #require(JSONSerialization.jsonObject(with: Data(resources.transactionBytes(all[1]))) as? [String: Any])
        #expect(muxed["account_muxed_id"] as? String == "42" && muxed["memo"] as? String == "dinner \"for\" two")
        #expect(muxed["valid_after"] as? String == "2020-09-13T12:26:40Z" && muxed["valid_before"] == nil)
        let bounded = try #require(JSONSerialization.jsonObject(with: Data(resources.transactionBytes(all[2]))) as? [String: Any])
        let preconditions = try #require(bounded["preconditions"] as? [String: Any])
        #expect((preconditions["ledgerbounds"] as? [String: Int])?["max_ledger"] == 90 && preconditions["min_account_sequence_age"] as? String == "60")
        #expect(bounded["memo"] as? String == String(UInt64.max) && bounded["successful"] as? Bool == false)
        let bumped = try #require(JSONSerialization.jsonObject(with: Data(resources.transactionBytes(all[5]))) as? [String: Any])
        #expect(bumped["fee_account_muxed_id"] as? String == "7" && bumped["max_fee"] as? String == "400")
        #expect((bumped["inner_transaction"] as? [String: Any])?["max_fee"] as? String == "100")
    }
}
