import Foundation
import HummingbirdTesting
import StellarBase
import TenderServer
import TenderTesting
import Testing

/// The anchor's routes on a time the test moves: a SEP-38 quote is honoured by SEP-6 until it
/// expires, and refused after.
@Suite("The anchor's routes")
struct AnchorRoutesTests {
    let temporary = TemporaryDirectory("anchor-routes")

    @Test func aQuoteIsHonouredUntilItExpires() async throws {
        let time = ManualTime.forServer()
        let configuration = TenderConfiguration(port: 0, dataDirectory: temporary.file("data"), closeInterval: .zero)
        let app = try await buildApplication(configuration, environment: time.environment)
        try await app.test(.router) { client in
            let alice = KeyPair.random()
            // Signed in with SEP-10: the challenge signed by alice's master key (her account does not exist yet).
            let challenge = try await GatewayRoutesTests.call(client, .get, "/auth?account=\(alice.accountID.strKey)", key: nil)
            var envelope = try TransactionEnvelope(xdrBase64: try #require(challenge.json["transaction"] as? String))
            envelope.sign(with: alice, on: .standalone)
            let signed = envelope.xdrBase64.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let token = try #require(try await GatewayRoutesTests.call(client, .post, "/auth", key: nil, body: "transaction=\(signed)").json["token"] as? String)
            #expect(try await GatewayRoutesTests.call(client, .put, "/kyc/customer", key: token, body: "first_name=A&last_name=B&email_address=a%40example.com").status == .accepted)

            let toml = try await client.execute(uri: "/.well-known/stellar.toml", method: .get) { String(buffer: $0.body) }
            let issuer = try #require(toml.firstMatch(of: /code="EUR"\nissuer="(G[A-Z2-7]{55})"/)?.1)
            let eur = "stellar:EUR:\(issuer)"
            func quote() async throws -> String {
                let answer = try await GatewayRoutesTests.call(client, .post, "/sep38/quote", key: token, body: "sell_asset=\(eur)&buy_asset=iso4217:USD&sell_amount=5.00&context=sep6")
                #expect(answer.status == .created, "\(answer.json)")
                return try #require(answer.json["id"] as? String)
            }
            func exchange(_ quote: String) async throws -> GatewayRoutesTests.Answer {
                try await GatewayRoutesTests.call(client, .get, "/sep6/withdraw-exchange?source_asset=EUR&destination_asset=iso4217:USD&amount=5.00&type=bank_account&quote_id=\(quote)", key: token)
            }
            let expiring = try await quote()
            #expect(try await GatewayRoutesTests.call(client, .get, "/sep38/quote/\(expiring)", key: token).json["expires_at"] as? String != nil)
            await time.advance(seconds: 301)
            let late = try await exchange(expiring)
            #expect(late.status == .badRequest && late.json["code"] as? String == "quote_expired", "\(late.json)")
            let fresh = try await quote()
            await time.advance(seconds: 299)
            let honoured = try await exchange(fresh)
            #expect(honoured.status == .ok && honoured.json["memo_type"] as? String == "id", "\(honoured.json)")
            let twice = try await exchange(fresh)
            #expect(twice.status == .badRequest && twice.json["code"] as? String == "invalid_quote")
        }
    }
}
