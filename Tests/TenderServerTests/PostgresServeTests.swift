import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresStore
import StellarBase
import TenderTesting
import Testing
@testable import TenderServer

/// `tender serve` with `--database postgres://...`: the ledger, Horizon's API and the gateway
/// on a throwaway PostgreSQL, a restart reloading everything from it, and a second server on the
/// same database following the first (reads of its own, the rest forwarded to the leader).
@Suite("tender serve on PostgreSQL", .tags(.slow), TestSpeed.slowSuites)
struct PostgresServeTests {
    let temporary = TemporaryDirectory("postgres-serve")

    @Test func servesTheLedgerAndTheGatewayFromPostgreSQLAndRestarts() async throws {
        try await TestDatabase.postgres.with { url in try await run(url: try #require(url)) }
    }

    /// The leader answers `GET /accounts/{id}` and takes `POST /transactions` in each
    /// connection's pipeline, as a lone server on SQLite does (issue 30: without them a
    /// PostgreSQL leader read 37,000 cached accounts a second where SQLite's read 62,000); a
    /// follower has no writer's memory or writer, so its connections get none.
    @Test func theLeaderAnswersInTheConnectionsPipelineAndAFollowerDoesNot() async throws {
        try await TestDatabase.postgres.with { url in
            let url = try #require(url)
            var configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: temporary.file("leader"), closeInterval: .zero)
            configuration.database = url
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            let leader = try await ClusterNode.start(configuration, url: url, environment: .system, logger: logger)
            var followerConfiguration = configuration
            followerConfiguration.dataDirectory = temporary.file("follower")
            try FileManager.default.createDirectory(atPath: followerConfiguration.dataDirectory, withIntermediateDirectories: true)
            let follower = try await ClusterNode.start(followerConfiguration, url: url, environment: .system, logger: logger)
            let leading = leader.channelHandlers(), following = follower.channelHandlers()
            for node in [leader, follower] {
                await node.session.close()
                try? await node.forwarder.client.shutdown()
                node.database.shutdown()
            }
            #expect(leading.bytes.map { "\(type(of: $0))" } == ["AccountBytePath"])
            #expect(leading.parts.map { "\(type(of: $0))" } == ["AccountFastPath", "TransactionFastPath"])
            #expect(following.bytes.isEmpty && following.parts.isEmpty)
        }
    }

    func run(url: String) async throws {
        let directory = temporary.file("data")
        var configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        configuration.database = url
        let alice = try KeyPair(seed: Array(repeating: 21, count: 32)).accountID.strKey
        final class Box: @unchecked Sendable { var intent = ""; var ledger = 0 }
        let box = Box()

        let frozen = configuration
        let first = try await buildApplication(configuration)
        try await first.test(.live) { client in
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

            // A second server on the same database follows the first.
            try await follow(frozen, alice: alice, key: key, leaderLedger: box.ledger)
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

        // A database that would acknowledge commits before they are durable is refused.
        let admin = try PostgresDatabase(url: url)
        defer { admin.shutdown() }
        try await admin.execute("ALTER DATABASE postgres SET synchronous_commit = off")
        let refused = await #expect(throws: PostgresCluster.NotDurable.self) { _ = try await buildApplication(configuration) }
        #expect(refused?.description.contains("synchronous_commit = off") == true)
        try await admin.execute("ALTER DATABASE postgres SET synchronous_commit = on")
    }

    /// A follower: Horizon's reads from the database, its root following the leader's ledgers,
    /// friendbot and the gateway forwarded to the leader.
    func follow(_ configuration: TenderConfiguration, alice: String, key: String, leaderLedger: Int) async throws {
        let follower = try await buildApplication(configuration)
        try await follower.test(.live) { client in
            let account = try await client.execute(uri: "/accounts/\(alice)", method: .get) { response in
                (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]
            }
            #expect(account?["account_id"] as? String == alice, "read from the database")
            // Friendbot is a submission: the leader applies it, the follower answers after its ledger committed.
            let bob = try KeyPair(seed: Array(repeating: 22, count: 32)).accountID.strKey
            let funded = try await client.execute(uri: "/friendbot?addr=\(bob)", method: .get) { response in
                (response.status, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any])
            }
            #expect(funded.0 == .ok, "\(funded.1 ?? [:])")
            let ledger = try #require(funded.1?["ledger"] as? Int)
            #expect(ledger > leaderLedger)
            let bobsAccount = try await client.execute(uri: "/accounts/\(bob)", method: .get) { $0.status }
            #expect(bobsAccount == .ok, "committed before the answer, so readable at once")
            // The follower's latest ledger catches up with the notification.
            var latest = 0
            for _ in 0..<50 where latest < ledger {
                latest = try await client.execute(uri: "/", method: .get) { response in
                    ((try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any])?["history_latest_ledger"] as? Int ?? 0
                }
                if latest < ledger { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(latest >= ledger)
            // The gateway through the follower.
            let balance = try await GatewayRoutesTests.call(client, .get, "/v1/balance", key: key)
            #expect(balance.status == .ok, "\(balance.json)")
            let refused = try await GatewayRoutesTests.call(client, .get, "/v1/balance", key: "sk_test_nobody")
            #expect(refused.status == .unauthorized, "the leader's own answer, forwarded")
            // Bad input through the follower: the leader's answers, or the follower's own for a
            // body too large to forward; never a crash.
            let garbage = try await client.execute(
                uri: "/transactions", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "tx=AAAA%%")
            ) { $0.status }
            #expect(garbage == .badRequest)
            let huge = try await client.execute(
                uri: "/v1/customers", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(repeating: UInt8(ascii: "a"), count: 2 << 20)
            ) { response in (response.status, String(buffer: response.body)) }
            #expect(huge.0 == .badRequest && huge.1.contains("larger than"), "\(huge.1.prefix(200))")
            for path in ["/%00", "/v1/\(String(repeating: "x", count: 5_000))", "/checkout/v1/nothing?x=%F0%9F%92%B8", "/friendbot?addr=" + String(Int64.min)] {
                let status = try await client.execute(uri: path, method: .get) { $0.status }
                #expect(status.code < 500, "\(path.prefix(40)): \(status)")
            }
        }
    }
}

/// A node that reads Horizon's answers from a streaming hot standby (`--read-database`): its
/// reads come from the standby (a paused replay holds them back), they never go back, and it
/// catches up when the standby does; its writes still reach the leader on the primary.
@Suite("A node reading from a hot standby", .tags(.slow), TestSpeed.slowSuites)
struct StandbyReadTests {
    let temporary = TemporaryDirectory("postgres-standby")

    @Test func readsComeFromTheStandbyAndNeverGoBack() async throws {
        try await TemporaryPostgres.withStandby { primary, standby in try await run(primary: primary, standby: standby) }
    }

    static func latest(_ client: some TestClientProtocol) async throws -> Int {
        try await client.execute(uri: "/", method: .get) { response in
            ((try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any])?["history_latest_ledger"] as? Int ?? 0
        }
    }

    func run(primary: String, standby: String) async throws {
        var configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: temporary.file("data"), closeInterval: .zero)
        configuration.database = primary
        var reading = configuration
        reading.readDatabase = standby
        let frozen = reading
        let alice = try KeyPair(seed: Array(repeating: 51, count: 32)).accountID.strKey
        let bob = try KeyPair(seed: Array(repeating: 52, count: 32)).accountID.strKey
        let replay = try PostgresDatabase(url: standby)
        defer { replay.shutdown() }

        let leader = try await buildApplication(configuration)
        try await leader.test(.live) { leaderClient in
            let node = try await buildApplication(frozen)
            try await node.test(.live) { client in
                var seen: [Int] = []
                // A write through the node reaches the leader; the standby replays it soon after.
                let funded = try await client.execute(uri: "/friendbot?addr=\(alice)", method: .get) { $0.status }
                #expect(funded == .ok)
                var found = HTTPResponse.Status.notFound
                for _ in 0..<100 where found != .ok {
                    found = try await client.execute(uri: "/accounts/\(alice)", method: .get) { $0.status }
                    seen.append(try await Self.latest(client))
                    if found != .ok { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(found == .ok)

                // Replay paused: the leader goes on, the node's reads stay where the standby is.
                try await replay.execute("SELECT pg_wal_replay_pause()")
                try await Task.sleep(for: .milliseconds(200))
                let held = try await Self.latest(client)
                let paid = try await leaderClient.execute(uri: "/friendbot?addr=\(bob)", method: .get) { $0.status }
                #expect(paid == .ok)
                let leaderLatest = try await Self.latest(leaderClient)
                #expect(leaderLatest > held)
                for _ in 0..<5 {
                    try await Task.sleep(for: .milliseconds(100))
                    seen.append(try await Self.latest(client))
                    #expect(seen.last == held, "nothing the standby has not replayed")
                    #expect(try await client.execute(uri: "/accounts/\(bob)", method: .get) { $0.status } == .notFound)
                }

                // Replay resumed: the node catches up.
                try await replay.execute("SELECT pg_wal_replay_resume()")
                var caughtUp = 0
                for _ in 0..<100 where caughtUp < leaderLatest {
                    caughtUp = try await Self.latest(client)
                    seen.append(caughtUp)
                    if caughtUp < leaderLatest { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(caughtUp >= leaderLatest)
                #expect(try await client.execute(uri: "/accounts/\(bob)", method: .get) { $0.status } == .ok)
                #expect(seen == seen.sorted(), "the node's latest ledger never went back: \(seen)")
            }
        }
    }
}
