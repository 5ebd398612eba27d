import Foundation
import Hummingbird
import HummingbirdTesting
import Ledger
import StellarBase
import TenderServer
import TenderTesting
import Testing

/// Horizon's read API, friendbot and the test anchor, through the router.
@Suite("Horizon API")
struct HorizonRoutesTests {
    let alice = try! KeyPair(seed: Array(repeating: 21, count: 32))
    let bob = try! KeyPair(seed: Array(repeating: 22, count: 32))

    /// Removed with everything in it when the test ends.
    let temporary = TemporaryDirectory("horizon")

    func configuration() -> TenderConfiguration {
        let directory = temporary.file(UUID().uuidString)
        return TenderConfiguration(port: 0, dataDirectory: directory, closeInterval: .zero)
    }

    func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
    }

    func records(_ buffer: ByteBuffer) throws -> [[String: Any]] {
        let embedded = try #require(try json(buffer)["_embedded"] as? [String: Any])
        return try #require(embedded["records"] as? [[String: Any]])
    }

    func get(_ client: some TestClientProtocol, _ uri: String, headers: HTTPFields = [:]) async throws -> (HTTPResponse.Status, ByteBuffer, HTTPFields) {
        try await client.execute(uri: uri, method: .get, headers: headers) { ($0.status, $0.body, $0.headers) }
    }

    func submit(_ client: some TestClientProtocol, _ envelope: TransactionEnvelope) async throws -> (HTTPResponse.Status, [String: Any]) {
        let body = ByteBuffer(string: "tx=" + envelope.xdrBase64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        return try await client.execute(uri: "/transactions", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: body) {
            ($0.status, try json($0.body))
        }
    }

    func sequence(_ client: some TestClientProtocol, _ account: KeyPair) async throws -> Int64 {
        let (_, body, _) = try await get(client, "/accounts/\(account.accountID.strKey)")
        return Int64(try #require(try json(body)["sequence"] as? String))!
    }

    func pay(_ client: some TestClientProtocol, from: KeyPair, to: KeyPair, _ asset: Asset, _ amount: Int64) async throws -> [String: Any] {
        let tx = Transaction(
            sourceAccount: .ed25519(from.accountID), fee: 100, sequenceNumber: try await sequence(client, from) + 1,
            operations: [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(to.accountID), asset: asset, amount: amount)))])
        return try await submit(client, tx.signed(by: [from], on: .standalone)).1
    }

    @Test func accountsFriendbotAndTheTestAnchor() async throws {
        let configuration = configuration()
        let anchor = configuration.testAnchor
        let srt = anchor.currency(code: "SRT")!.asset
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let address = alice.accountID.strKey
            #expect(try await get(client, "/accounts/\(address)").0 == .notFound)
            let (badStatus, badBody, _) = try await get(client, "/accounts/GABC")
            #expect(badStatus == .badRequest)
            #expect((try json(badBody)["extras"] as? [String: Any])?["invalid_field"] as? String == "account_id")

            let (funded, fundedBody, _) = try await get(client, "/friendbot?addr=\(address)")
            #expect(funded == .ok)
            #expect(try json(fundedBody)["successful"] as? Bool == true)
            let (again, againBody, _) = try await get(client, "/friendbot?addr=\(address)")
            #expect(again == .badRequest)
            #expect((try json(againBody)["detail"] as? String)?.contains("already funded") == true)
            #expect(try await get(client, "/friendbot").0 == .badRequest)

            let (_, accountBody, _) = try await get(client, "/accounts/\(address)")
            let account = try json(accountBody)
            #expect(account["id"] as? String == address)
            #expect(account["sequence"] is String)
            #expect((account["data"] as? [String: Any])?.isEmpty == true)
            let balances = try #require(account["balances"] as? [[String: Any]])
            #expect(balances.last?["asset_type"] as? String == "native")
            #expect(balances.last?["balance"] as? String == "10000.0000000")

            // The test anchor pays only to a trustline, and only its own assets.
            let (noTrust, noTrustBody, _) = try await get(client, "/friendbot?addr=\(address)&asset=SRT")
            #expect(noTrust == .badRequest)
            #expect((try json(noTrustBody)["detail"] as? String)?.contains("trust") == true)
            #expect(try await get(client, "/friendbot?addr=\(address)&asset=DOGE").0 == .badRequest)
            let trust = Transaction(
                sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: try await sequence(client, alice) + 1,
                operations: [StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: srt)))])
            #expect(try await submit(client, trust.signed(by: [alice], on: .standalone)).0 == .ok)
            #expect(try await get(client, "/friendbot?addr=\(address)&asset=srt").0 == .ok)
            let (_, trustedBody, _) = try await get(client, "/accounts/\(address)")
            let line = try #require((try json(trustedBody)["balances"] as? [[String: Any]])?.first)
            #expect(line["asset_code"] as? String == "SRT")
            #expect(line["balance"] as? String == "1000.0000000")
            #expect(line["limit"] as? String == "922337203685.4775807")

            let (_, toml, tomlHeaders) = try await get(client, "/.well-known/stellar.toml")
            let text = String(buffer: toml)
            #expect(tomlHeaders[.accessControlAllowOrigin] == "*")
            #expect(text.contains("NETWORK_PASSPHRASE=\"Standalone Network ; February 2017\""))
            for currency in anchor.currencies {
                #expect(text.contains("issuer=\"\(currency.keyPair.accountID.strKey)\""))
            }
            let (_, issuerBody, _) = try await get(client, "/accounts/\(anchor.currencies[0].keyPair.accountID.strKey)")
            #expect(try json(issuerBody)["home_domain"] as? String == configuration.anchorHomeDomain)
        }
    }

    @Test func historyPagesAndLinks() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            _ = try await get(client, "/friendbot?addr=\(alice.accountID.strKey)")
            _ = try await get(client, "/friendbot?addr=\(bob.accountID.strKey)")
            var hashes: [String] = []
            for amount in 1...5 {
                let body = try await pay(client, from: alice, to: bob, .native, Int64(amount) * Amount.stroopsPerUnit)
                hashes.append(try #require(body["hash"] as? String))
            }
            // A failed payment: in history with include_failed only.
            let failed = try await pay(client, from: alice, to: bob, .native, 1_000_000 * Amount.stroopsPerUnit)
            #expect(((failed["extras"] as? [String: Any])?["result_codes"] as? [String: Any])?["operations"] as? [String] == ["op_underfunded"])

            let path = "/accounts/\(bob.accountID.strKey)/payments"
            let (_, firstPage, _) = try await get(client, path + "?limit=3")
            let first = try records(firstPage)
            #expect(first.map { $0["type"] as? String } == ["create_account", "payment", "payment"])
            #expect(first[1]["amount"] as? String == "1.0000000")
            #expect(first[1]["from"] as? String == alice.accountID.strKey)
            let links = try #require(try json(firstPage)["_links"] as? [String: [String: Any]])
            let next = try #require(links["next"]?["href"] as? String)
            #expect(next.contains("cursor=\(first[2]["paging_token"] as! String)"))
            let nextPath = String(next[next.range(of: "/accounts")!.lowerBound...])
            let second = try records(try await get(client, nextPath).1)
            #expect(second.map { $0["amount"] as? String } == ["3.0000000", "4.0000000", "5.0000000"])
            let descending = try records(try await get(client, path + "?order=desc&limit=2").1)
            #expect(descending.map { $0["amount"] as? String } == ["5.0000000", "4.0000000"])

            let transactions = try records(try await get(client, "/accounts/\(alice.accountID.strKey)/transactions?limit=200").1)
            // Friendbot's creation and the five payments; the failed one only on request.
            #expect(transactions.count == 6)
            let withFailed = try records(try await get(client, "/accounts/\(alice.accountID.strKey)/transactions?limit=200&include_failed=true").1)
            #expect(withFailed.count == 7)
            #expect(withFailed.last?["successful"] as? Bool == false)

            let (_, transactionBody, _) = try await get(client, "/transactions/\(hashes[0])")
            #expect(try json(transactionBody)["hash"] as? String == hashes[0])
            #expect(try await get(client, "/transactions/\(String(repeating: "0", count: 64))").0 == .notFound)
            #expect(try await get(client, "/transactions/xyz").0 == .badRequest)
            let operations = try records(try await get(client, "/transactions/\(hashes[0])/operations").1)
            let operationID = try #require(operations.first?["id"] as? String)
            let (_, operationBody, _) = try await get(client, "/operations/\(operationID)")
            #expect(try json(operationBody)["transaction_hash"] as? String == hashes[0])

            let ledgers = try records(try await get(client, "/ledgers?order=desc&limit=1").1)
            let latest = try #require(ledgers.first?["sequence"] as? Int)
            #expect(ledgers.first?["base_fee_in_stroops"] as? Int == 100)
            let (_, ledgerBody, _) = try await get(client, "/ledgers/\(latest)")
            #expect(try json(ledgerBody)["hash"] as? String == ledgers.first?["hash"] as? String)
            #expect(try await get(client, "/ledgers/\(latest + 100)").0 == .notFound)
            let (_, feeBody, _) = try await get(client, "/fee_stats")
            #expect((try json(feeBody)["fee_charged"] as? [String: Any])?["p50"] as? String == "100")
        }
    }

    @Test func badParametersAre400WithTheField() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            let cases: [(String, String)] = [
                ("/payments?limit=0", "limit"), ("/payments?limit=201", "limit"), ("/transactions?order=up", "order"),
                ("/operations?cursor=abc", "cursor"), ("/ledgers?cursor=-5", "cursor"), ("/payments?include_failed=maybe", "include_failed"),
                ("/offers?seller=GXYZ", "seller"), ("/order_book?selling_asset_type=native", "buying_asset_type"),
                ("/order_book?selling_asset_type=credit_alphanum4&selling_asset_code=SRT&buying_asset_type=native", "selling_asset_issuer"),
                ("/paths/strict-send?source_asset_type=native&source_amount=10", "destination_assets"),
                ("/paths/strict-send?source_asset_type=native&source_amount=-1&destination_assets=native", "source_amount"),
                ("/paths/strict-receive?destination_asset_type=native&destination_amount=1&source_assets=FOO", "source_assets"),
            ]
            for (uri, field) in cases {
                let (status, body, headers) = try await get(client, uri)
                #expect(status == .badRequest, "\(uri)")
                #expect(headers[.contentType] == "application/problem+json; charset=utf-8")
                #expect((try json(body)["extras"] as? [String: Any])?["invalid_field"] as? String == field, "\(uri)")
            }
            let (missing, missingBody, _) = try await get(client, "/no/such/route")
            #expect(missing == .notFound)
            #expect(try json(missingBody)["type"] as? String == "https://stellar.org/horizon-errors/not_found")
        }
    }

    @Test func randomQueriesNeverCrashOrChangeTheLedger() async throws {
        var random = SplitMix64(seed: 2026_11_22)
        let paths = ["/payments", "/operations", "/transactions", "/ledgers", "/offers", "/order_book", "/paths/strict-send", "/paths/strict-receive", "/friendbot", "/fee_stats", "/accounts/\(alice.accountID.strKey)/payments"]
        let names = ["cursor", "limit", "order", "include_failed", "seller", "selling", "buying", "selling_asset_type", "buying_asset_type", "source_amount", "destination_assets", "source_assets", "addr", "asset", "for_account"]
        let values = ["", "0", "-1", "1", "200", "201", "now", "asc", "desc", "true", "native", "credit_alphanum4", "SRT:GABC", "%00", "%FF%FE", "9999999999999999999999", "1e5", "G" + String(repeating: "A", count: 55), "native,native", "..", "null"]
            + BoundaryValues.all.map(BoundaryValues.percentEncoded) + BoundaryValues.rawEscapes
        var uris: [String] = []
        for _ in 0..<400 {
            var query: [String] = []
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                query.append("\(names.randomElement(using: &random)!)=\(values.randomElement(using: &random)!)")
            }
            uris.append(paths.randomElement(using: &random)! + "?" + query.joined(separator: "&"))
        }
        let requests = uris
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            let before = try await get(client, "/ledgers?order=desc&limit=1").1
            for uri in requests {
                let status = try await client.execute(uri: uri, method: .get) { $0.status }
                #expect([.ok, .badRequest, .notFound].contains(status), "\(uri.prefix(200)) answered \(status)")
            }
            let after = try await get(client, "/ledgers?order=desc&limit=1").1
            #expect(String(buffer: before) == String(buffer: after))
        }
    }

    @Test func cachedAccountsFollowEveryChange() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            let path = "/accounts/\(bob.accountID.strKey)"
            _ = try await get(client, "/friendbot?addr=\(alice.accountID.strKey)")
            #expect(try await get(client, path).0 == .notFound)
            _ = try await get(client, "/friendbot?addr=\(bob.accountID.strKey)")
            func balance() async throws -> String? {
                let (_, body, _) = try await get(client, path)
                return (try json(body)["balances"] as? [[String: Any]])?.last?["balance"] as? String
            }
            // The first read fills the cache, the second is served from it; both agree.
            #expect(try await balance() == "10000.0000000")
            #expect(try await balance() == "10000.0000000")
            for amount in 1...3 {
                _ = try await pay(client, from: alice, to: bob, .native, Int64(amount) * Amount.stroopsPerUnit)
                #expect(try await balance() == "\(10000 + (1...amount).reduce(0, +)).0000000")
            }
            // A browser's request still gets its CORS headers.
            let (status, _, headers) = try await get(client, path, headers: [.origin: "https://wallet.example"])
            #expect(status == .ok)
            #expect(headers[.accessControlAllowOrigin] == "*")
        }
    }

    @Test func corsAnswersBrowsers() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            let (_, _, headers) = try await get(client, "/fee_stats", headers: [.origin: "https://wallet.example"])
            #expect(headers[.accessControlAllowOrigin] == "*")
            let preflight = try await client.execute(
                uri: "/transactions", method: .options,
                headers: [.origin: "https://wallet.example", .accessControlRequestMethod: "POST"]
            ) { $0.headers }
            #expect(preflight[.accessControlAllowMethods]?.contains("POST") == true)
        }
    }
}
