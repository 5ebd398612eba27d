import Foundation
import Hummingbird
import HummingbirdTesting
import Ledger
import StellarBase
import TenderServer
import TenderTesting
import Testing

/// Every parameter of every route, GET and POST, with every boundary value: each answer is a
/// 2xx, or a 4xx problem+json, and the server stays up with its ledger unchanged.
extension HorizonRoutesTests {
    /// A route to try: its path (placeholders in braces), a query that makes it do real work, and
    /// the parameters to replace one at a time.
    struct RouteCase {
        var path: String
        var query: [(String, String)] = []
        var parameters: [String] = []
    }

    @Test func boundaryValuesInEveryParameterOfEveryRoute() async throws {
        let configuration = configuration()
        let srt = configuration.testAnchor.currency(code: "SRT")!
        let issuer = srt.keyPair.accountID.strKey
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            // A ledger with history, a trustline and an offer, so the reads and paths do real work.
            _ = try await get(client, "/friendbot?addr=\(alice.accountID.strKey)")
            _ = try await get(client, "/friendbot?addr=\(bob.accountID.strKey)")
            let trust = Transaction(
                sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: try await sequence(client, alice) + 1,
                operations: [StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: srt.asset)))])
            let (trustStatus, trustBody) = try await submit(client, trust.signed(by: [alice], on: .standalone))
            #expect(trustStatus == .ok)
            let hash = try #require(trustBody["hash"] as? String)
            #expect(try await get(client, "/friendbot?addr=\(alice.accountID.strKey)&asset=SRT").0 == .ok)
            let offer = Transaction(
                sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: try await sequence(client, alice) + 1,
                operations: [StellarBase.Operation(.manageSellOffer(ManageSellOfferOperation(
                    selling: srt.asset, buying: .native, amount: 100 * Amount.stroopsPerUnit, price: Price(n: 2, d: 1))))])
            #expect(try await submit(client, offer.signed(by: [alice], on: .standalone)).0 == .ok)

            let page = ["cursor", "limit", "order"]
            let history = page + ["include_failed", "for_account"]
            let assets = ["selling", "buying"].flatMap { ["\($0)", "\($0)_asset_type", "\($0)_asset_code", "\($0)_asset_issuer"] }
            let account = alice.accountID.strKey
            let routes: [RouteCase] = [
                RouteCase(path: "/"),
                RouteCase(path: "/accounts/{account}", parameters: ["{account}"]),
                RouteCase(path: "/accounts/{account}/transactions", parameters: ["{account}"] + page + ["include_failed"]),
                RouteCase(path: "/accounts/{account}/operations", parameters: ["{account}"] + page + ["include_failed"]),
                RouteCase(path: "/accounts/{account}/payments", parameters: ["{account}"] + page + ["include_failed"]),
                RouteCase(path: "/accounts/{account}/offers", parameters: ["{account}"] + page),
                RouteCase(path: "/transactions", parameters: history),
                RouteCase(path: "/operations", parameters: history),
                RouteCase(path: "/payments", parameters: history),
                RouteCase(path: "/transactions/{hash}", parameters: ["{hash}"]),
                RouteCase(path: "/transactions/{hash}/operations", parameters: ["{hash}"] + page),
                RouteCase(path: "/transactions/{hash}/payments", parameters: page),
                RouteCase(path: "/ledgers", parameters: page),
                RouteCase(path: "/ledgers/{sequence}", parameters: ["{sequence}"]),
                RouteCase(path: "/operations/{id}", parameters: ["{id}"]),
                RouteCase(path: "/offers", parameters: page + ["seller"] + assets),
                RouteCase(path: "/offers/{id}", parameters: ["{id}"]),
                RouteCase(
                    path: "/order_book",
                    query: [("selling_asset_type", "credit_alphanum4"), ("selling_asset_code", "SRT"), ("selling_asset_issuer", issuer), ("buying_asset_type", "native")],
                    parameters: assets + ["limit"]),
                RouteCase(
                    path: "/paths/strict-send",
                    query: [("source_asset_type", "native"), ("source_amount", "10"), ("destination_assets", "SRT:\(issuer)")],
                    parameters: ["source_asset_type", "source_asset_code", "source_asset_issuer", "source_amount", "destination_assets", "destination_account"]),
                RouteCase(
                    path: "/paths/strict-receive",
                    query: [("destination_asset_type", "credit_alphanum4"), ("destination_asset_code", "SRT"), ("destination_asset_issuer", issuer), ("destination_amount", "10"), ("source_account", account)],
                    parameters: ["destination_asset_type", "destination_asset_code", "destination_asset_issuer", "destination_amount", "source_assets", "source_account"]),
                RouteCase(path: "/fee_stats"),
                RouteCase(path: "/friendbot", query: [("addr", account)], parameters: ["addr", "asset"]),
                RouteCase(path: "/.well-known/stellar.toml"),
            ]
            // Paged routes again in descending order: cursors are compared the other way there.
            let descending = routes.filter { $0.parameters.contains("order") }.map { route in
                RouteCase(path: route.path, query: route.query + [("order", "desc")], parameters: route.parameters.filter { $0 != "order" })
            }
            let values = BoundaryValues.all.map(BoundaryValues.percentEncoded) + BoundaryValues.rawEscapes
            let before = try await get(client, "/ledgers?order=desc&limit=1").1

            func check(_ uri: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws {
                try await client.execute(uri: uri, method: method, headers: headers, body: body) { response in
                    let status = response.status.code
                    let shown = uri.count > 120 ? String(uri.prefix(120)) + "..." : uri
                    #expect((200..<300).contains(status) || (400..<500).contains(status), "\(method) \(shown) answered \(status)")
                    if status >= 400 {
                        #expect(response.headers[.contentType]?.hasPrefix("application/problem+json") == true, "\(shown): \(status) without problem+json")
                        let problem = try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                        #expect(problem?["status"] as? Int == status, "\(shown): the problem's status")
                    }
                }
            }

            func uri(_ route: RouteCase, replacing parameter: String? = nil, with value: String = "") -> String {
                var path = route.path
                for (placeholder, real) in [("{account}", account), ("{hash}", hash), ("{sequence}", "2"), ("{id}", "1")] {
                    path = path.replacingOccurrences(of: placeholder, with: parameter == placeholder ? value : real)
                }
                var query = route.query.filter { $0.0 != parameter }.map { "\($0.0)=\(BoundaryValues.percentEncoded($0.1))" }
                if let parameter, !parameter.hasPrefix("{") { query.append("\(parameter)=\(value)") }
                return query.isEmpty ? path : path + "?" + query.joined(separator: "&")
            }

            var requests = 0
            for route in routes + descending {
                try await check(uri(route))
                for parameter in route.parameters {
                    for value in values {
                        try await check(uri(route, replacing: parameter, with: value))
                        requests += 1
                    }
                }
            }
            // Friendbot also answers POST; submissions are forms (url-encoded or multipart).
            for value in values {
                try await check("/friendbot?addr=\(value)", method: .post)
                let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
                try await check("/transactions", method: .post, headers: form, body: ByteBuffer(string: "tx=\(value)"))
                try await check("/transactions", method: .post, headers: form, body: ByteBuffer(string: value))
                let boundary = "tender-\(requests)"
                let multipart = "--\(boundary)\r\nContent-Disposition: form-data; name=\"tx\"\r\n\r\n\(value)\r\n--\(boundary)--\r\n"
                try await check("/transactions", method: .post, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"], body: ByteBuffer(string: multipart))
                try await check("/transactions", method: .post, headers: [.contentType: "multipart/form-data; boundary=\(value)"], body: ByteBuffer(string: multipart))
                requests += 5
            }
            print("boundary values: \(values.count) values, \(requests) requests")
            #expect(requests > 5_000)
            let after = try await get(client, "/ledgers?order=desc&limit=1").1
            #expect(String(buffer: before) == String(buffer: after), "bad input moved the ledger")
            #expect(try await get(client, "/").0 == .ok)
        }
    }
}

extension HorizonRoutesTests {
    @Test func pathSearchesOverTheirBoundsAre400AndBooksShowCommittedOffers() async throws {
        var configuration = configuration()
        let srt = configuration.testAnchor.currency(code: "SRT")!
        let query = "/paths/strict-send?source_asset_type=native&source_amount=10&destination_assets=SRT:\(srt.keyPair.accountID.strKey)"
        let book = "/order_book?selling_asset_type=credit_alphanum4&selling_asset_code=SRT&selling_asset_issuer=\(srt.keyPair.accountID.strKey)&buying_asset_type=native"
        func offerAndSearch(_ configuration: TenderConfiguration) async throws -> (HTTPResponse.Status, [String: Any]) {
            var configuration = configuration
            configuration.dataDirectory = self.configuration().dataDirectory
            let app = try await buildApplication(configuration)
            return try await app.test(.router) { client in
                _ = try await get(client, "/friendbot?addr=\(alice.accountID.strKey)")
                let trust = Transaction(
                    sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: try await sequence(client, alice) + 1,
                    operations: [StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: srt.asset)))])
                _ = try await submit(client, trust.signed(by: [alice], on: .standalone))
                _ = try await get(client, "/friendbot?addr=\(alice.accountID.strKey)&asset=SRT")
                let emptyBody = try await get(client, query).1
                #expect((try? records(emptyBody))?.isEmpty == true, "\(String(buffer: emptyBody))")
                #expect((try json(try await get(client, book).1)["asks"] as? [Any])?.isEmpty == true)
                let offer = Transaction(
                    sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: try await sequence(client, alice) + 1,
                    operations: [StellarBase.Operation(.manageSellOffer(ManageSellOfferOperation(
                        selling: srt.asset, buying: .native, amount: 100 * Amount.stroopsPerUnit, price: Price(n: 2, d: 1))))])
                #expect(try await submit(client, offer.signed(by: [alice], on: .standalone)).0 == .ok)
                // Answered once its ledger committed, the offer is in the published book.
                let asks = try #require(try json(try await get(client, book).1)["asks"] as? [[String: Any]])
                #expect(asks.first?["amount"] as? String == "100.0000000")
                let (status, body, _) = try await get(client, query)
                return (status, try json(body))
            }
        }
        let (found, paths) = try await offerAndSearch(configuration)
        #expect(found == .ok)
        #expect(((paths["_embedded"] as? [String: Any])?["records"] as? [[String: Any]])?.first?["destination_amount"] as? String == "5.0000000")

        configuration.pathSearchTimeLimit = .zero
        let (late, lateBody) = try await offerAndSearch(configuration)
        #expect(late == .badRequest)
        #expect((lateBody["detail"] as? String)?.contains("time limit") == true)

        configuration.pathSearchTimeLimit = .seconds(1)
        configuration.pathSearchLimits.maxOffersCrossed = 0
        let (crowded, crowdedBody) = try await offerAndSearch(configuration)
        #expect(crowded == .badRequest)
        #expect((crowdedBody["detail"] as? String)?.contains("crossed more than 0 offers") == true)
    }
}
