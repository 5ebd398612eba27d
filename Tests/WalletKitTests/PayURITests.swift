import Foundation
import StellarBase
import Testing
import WalletKit

@Suite("SEP-7 pay URIs")
struct PayURITests {
    let destination = try! KeyPair(seed: Array(repeating: 7, count: 32)).accountID
    let issuer = try! KeyPair(seed: Array(repeating: 8, count: 32)).accountID

    @Test func roundTrip() throws {
        let usdc = try Asset(code: "USDC", issuer: issuer)
        let uri = PayURI(destination: destination, amount: 125_000_000, asset: usdc, memo: "dinner & a show", message: "thanks!", networkPassphrase: Network.standalone.passphrase)
        #expect(uri.uri.hasPrefix("web+stellar:pay?destination=\(destination.strKey)&amount=12.5&asset_code=USDC&asset_issuer=\(issuer.strKey)&memo=dinner%20%26%20a%20show&memo_type=MEMO_TEXT&msg=thanks%21"))
        #expect(try PayURI(parsing: uri.uri, network: .standalone) == uri)
        let native = PayURI(destination: destination, amount: 1)
        #expect(native.uri == "web+stellar:pay?destination=\(destination.strKey)&amount=0.0000001")
        #expect(try PayURI(parsing: native.uri).asset == .native)
        let open = try PayURI(parsing: "web+stellar:pay?destination=\(destination.strKey)")
        #expect(open.amount == nil && open.memo == .none)
        let id = try PayURI(parsing: "web+stellar:pay?destination=\(destination.strKey)&memo=18446744073709551615&memo_type=MEMO_ID")
        #expect(id.memo == .id(.max))
        let hash = Data(repeating: 9, count: 32).base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try PayURI(parsing: "web+stellar:pay?destination=\(destination.strKey)&memo=\(hash)&memo_type=MEMO_RETURN").memo == .return(Bytes32(Array(repeating: 9, count: 32))))
    }

    @Test func everyFieldIsChecked() {
        let base = "web+stellar:pay?destination=\(destination.strKey)"
        let bad: [(String, String)] = [
            ("web+stellar:tx?xdr=AAAA", "must start with"),
            ("https://example.com/pay?destination=\(destination.strKey)", "must start with"),
            ("web+stellar:pay?amount=5", "destination is required"),
            ("web+stellar:pay?destination=GABC", "not a Stellar address"),
            (base + "&destination=\(destination.strKey)", "given twice"),
            (base + "&amount=0", "positive number"), (base + "&amount=-1", "positive number"), (base + "&amount=1.00000001", "positive number"),
            (base + "&amount=922337203685.4775808", "positive number"), (base + "&amount=1e3", "positive number"), (base + "&amount=", "positive number"),
            (base + "&asset_code=USDC", "go together"), (base + "&asset_issuer=\(issuer.strKey)", "go together"),
            (base + "&asset_code=TOOLONGCODE123&asset_issuer=\(issuer.strKey)", "1 to 12"), (base + "&asset_code=USDC&asset_issuer=GXYZ", "asset_issuer"),
            (base + "&memo=" + String(repeating: "x", count: 29), "28 bytes"),
            (base + "&memo=18446744073709551616&memo_type=MEMO_ID", "whole number"), (base + "&memo=-1&memo_type=MEMO_ID", "whole number"),
            (base + "&memo=abc&memo_type=MEMO_HASH", "32 bytes"), (base + "&memo=x&memo_type=MEMO_WHAT", "memo_type must be"),
            (base + "&memo_type=MEMO_TEXT", "without a memo"), (base + "&msg=" + String(repeating: "m", count: 301), "300"),
            (base + "&network_passphrase=Public%20Global%20Stellar%20Network%20%3B%20September%202015", "for the network"),
            (base + "&broken", "is not a field"), (base + "&amount=%ZZ", "is not a field"),
            ("web+stellar:pay?" + String(repeating: "a", count: 5_000), "longer than 4096"),
        ]
        for (uri, detail) in bad {
            do {
                _ = try PayURI(parsing: uri, network: .standalone)
                Issue.record("accepted \(uri.prefix(120))")
            } catch {
                #expect(error.code == .invalidURI)
                #expect(error.message.contains(detail), "\(uri.prefix(120)): \(error.message)")
            }
        }
    }
}
