import Foundation
import Hummingbird
import HummingbirdTesting
import StellarBase
import TenderTesting
import Testing
@testable import TenderServer

/// `tender serve` with `--database postgres://...`: the ledger, Horizon's API and the gateway
/// on a throwaway PostgreSQL, a restart reloading everything from it, and a second server on the
/// same database refused.
@Suite("tender serve on PostgreSQL")
struct PostgresServeTests {
    let temporary = TemporaryDirectory("postgres-serve")

    @Test func servesTheLedgerAndTheGatewayFromPostgreSQLAndRestarts() async throws {
        let server = try await TemporaryPostgres.start()
        do {
            try await run(url: server.url)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func run(url: String) async throws {
        let directory = temporary.file("data")
        var configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        configuration.database = url
        let alice = try KeyPair(seed: Array(repeating: 21, count: 32)).accountID.strKey
        final class Box: @unchecked Sendable { var intent = ""; var ledger = 0 }
        let box = Box()

        let first = try await buildApplication(configuration)
        // While the first holds the database, a second server is refused.
        let refused = await #expect(throws: (any Error).self) { _ = try await buildApplication(configuration) }
        #expect("\(refused.map { "\($0)" } ?? "")".contains("another tender serve is using this database"))
        try await first.test(.router) { client in
            let funded = try await client.execute(uri: "/friendbot?addr=\(alice)", method: .get) { $0.status }
            #expect(funded == .ok)
            let account = try await client.execute(uri: "/accounts/\(alice)", method: .get) { response in
                (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]
            }
            #expect((account?["balances"] as? [[String: Any]])?.first?["balance"] as? String == "10000.0000000")
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let key = try #require(try await GatewayRoutesTests.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=Shop").json["secret_key"] as? String)
            let method = try #require(try await GatewayRoutesTests.call(
                client, .post, "/v1/payment_methods", key: key,
                body: "type=card&card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2040&card[cvc]=123").json["id"] as? String)
            let intent = try await GatewayRoutesTests.call(
                client, .post, "/v1/payment_intents", key: key, body: "amount=1099&currency=eur&payment_method=\(method)&confirm=true").json
            #expect(intent["status"] as? String == "succeeded", "\(intent)")
            box.intent = try #require(intent["id"] as? String)
            let balance = try await GatewayRoutesTests.call(client, .get, "/v1/balance", key: key).json
            let available = (balance["available"] as? [[String: Any]])?.first { $0["currency"] as? String == "eur" }
            #expect((available?["amount"] as? Int ?? 0) > 1_000, "1099 less the fee, on the ledger")
            let root = try await client.execute(uri: "/", method: .get) { response in
                (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]
            }
            box.ledger = try #require(root?["history_latest_ledger"] as? Int)
        }

        // A restart: the ledger and the gateway's objects come back from PostgreSQL.
        let second = try await buildApplication(configuration)
        try await second.test(.router) { client in
            let account = try await client.execute(uri: "/accounts/\(alice)", method: .get) { $0.status }
            #expect(account == .ok)
            let root = try await client.execute(uri: "/", method: .get) { response in
                (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]
            }
            #expect((root?["history_latest_ledger"] as? Int ?? 0) >= box.ledger)
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let merchants = try await GatewayRoutesTests.call(client, .get, "/v1/admin/merchants", key: admin).json
            #expect((merchants["data"] as? [[String: Any]])?.count == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: configuration.databasePath), "no SQLite ledger was made")
    }
}
