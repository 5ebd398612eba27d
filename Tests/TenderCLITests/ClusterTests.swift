import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Ledger
import Logging
import NIOCore
import PostgresStore
import StellarBase
import TenderTesting
import Testing

/// Several `tender serve` processes on one throwaway PostgreSQL: the leader killed with SIGKILL
/// in the middle of a load of payments sent through all of them, and a leader cut from the
/// database.
@Suite("A cluster of tender serve on PostgreSQL", .serialized, .tags(.slow), TestSpeed.slowSuites)
struct ClusterTests {
    static let network = Network.standalone

    static func nodeArguments(data: String, url: String) -> [String] {
        ["serve", "--port", "0", "--data", data, "--close-interval", "0", "--database", url, "--failover-interval", "0.25"]
    }

    /// The status of `POST /transactions`, nil when the node did not answer.
    static func post(_ base: String, _ envelope: TransactionEnvelope) async -> Int? {
        var request = URLRequest(url: URL(string: base + "/transactions")!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let encoded = envelope.xdrBase64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        request.httpBody = Data("tx=\(encoded)".utf8)
        request.timeoutInterval = 60
        guard let (_, response) = try? await URLSession.shared.data(for: request) else { return nil }
        return (response as? HTTPURLResponse)?.statusCode
    }

    /// Submits `envelope` until a node answers 200, starting with `nodes[first]` and moving to the
    /// next after a refusal or no answer, as a client of the cluster would; the same envelope each
    /// time, so it applies once whatever happened to an earlier try. False after 60 s.
    static func submit(_ envelope: TransactionEnvelope, nodes: [String], first: Int) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        var index = first
        while ContinuousClock.now < deadline {
            if await post(nodes[index % nodes.count], envelope) == 200 { return true }
            index += 1
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    static func get(_ url: String) async -> (Int, [String: Any])? {
        guard let (body, response) = try? await URLSession.shared.data(from: URL(string: url)!) else { return nil }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:])
    }

    /// Starts `count` nodes on a throwaway PostgreSQL (the first leads; each next one starts once
    /// the one before listens), runs `body` with them and their addresses, then kills what is
    /// left and stops the database.
    static func withCluster(
        _ count: Int, _ name: String, _ body: ([Tender.Server], [String], String, TemporaryDirectory) async throws -> Void
    ) async throws {
        let temporary = TemporaryDirectory(name)
        defer { temporary.remove() }
        try await TestDatabase.postgres.with { url in
            let url = try #require(url)
            var nodes: [Tender.Server] = []
            defer { for node in nodes { node.signal(SIGKILL) } }
            var bases: [String] = []
            for index in 0..<count {
                nodes.append(try await Tender.start(nodeArguments(data: temporary.path, url: url), errorLog: temporary.file("node\(index).log")))
                bases.append(try await nodes[index].waitForURL())
            }
            try await body(nodes, bases, url, temporary)
        }
    }

    @Test func killMinus9OfTheLeaderLosesNoPaymentAndTheSurvivorsFinish() async throws {
        try await Self.withCluster(3, "cluster-failover") { nodes, bases, url, temporary in
            try await load(nodes: nodes, bases: bases, url: url, temporary: temporary)
        }
    }

    func load(nodes: [Tender.Server], bases: [String], url: String, temporary: TemporaryDirectory) async throws {
        let root = LedgerState.rootKeyPair(network: Self.network)
        let payers = (0..<30).map { try! KeyPair(seed: [UInt8($0), 0xC5] + Array(repeating: 2, count: 30)) }
        let create = Transaction(
            sourceAccount: .ed25519(root.accountID), fee: 100 * 30, sequenceNumber: 2,
            operations: payers.map { StellarBase.Operation(.createAccount(CreateAccountOperation(destination: $0.accountID, startingBalance: 1000 * Amount.stroopsPerUnit))) })
        // Through a follower: it forwards the submission to the leader.
        #expect(await Self.post(bases[1], create.signed(by: [root], on: Self.network)) == 200)
        let account = try #require(await Self.get(bases[2] + "/accounts/\(payers[0].accountID.strKey)"))
        #expect(account.0 == 200, "a follower reads what the leader committed before answering")
        let startSequence = try #require((account.1["sequence"] as? String).flatMap { Int64($0) })

        // Waves of payments, one per payer per wave, each sent to the three nodes in turn; the
        // leader is killed once 90 are acknowledged.
        let acknowledged = AcknowledgedHashes()
        let leader = nodes[0]
        let killer = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await acknowledged.wait(forCount: 90) }
                group.addTask { try? await Task.sleep(for: .seconds(60)) }
                await group.next()
                group.cancelAll()
            }
            leader.signal(SIGKILL)
        }
        let waves = 10
        var unfinished = 0
        var firstWave: [TransactionEnvelope] = []
        for wave in 1...waves {
            let envelopes = payers.enumerated().map { index, payer in
                Transaction(sourceAccount: .ed25519(payer.accountID), fee: 100, sequenceNumber: startSequence + Int64(wave),
                            operations: [StellarBase.Operation(.payment(PaymentOperation(
                                destination: .ed25519(payers[(index + wave) % payers.count].accountID), asset: .native, amount: Int64(wave))))])
                    .signed(by: [payer], on: Self.network)
            }
            if wave == 1 { firstWave = envelopes }
            let results = await withTaskGroup(of: (TransactionEnvelope, Bool).self) { group in
                for (index, envelope) in envelopes.enumerated() {
                    group.addTask { (envelope, await Self.submit(envelope, nodes: bases, first: index + wave)) }
                }
                var results: [(TransactionEnvelope, Bool)] = []
                for await result in group { results.append(result) }
                return results
            }
            for (envelope, done) in results {
                if done { await acknowledged.add(envelope.hash(on: Self.network)) } else { unfinished += 1 }
            }
        }
        _ = await killer.value
        #expect(await leader.waitForExit(timeout: 30))
        #expect(leader.terminationReason == .uncaughtSignal)
        #expect(unfinished == 0, "the load finished through the survivors")
        let answered = await acknowledged.hashes
        #expect(answered.count == payers.count * waves)

        // A survivor leads now, with a later epoch.
        let logger = Logger(label: "test")
        let database = try PostgresDatabase(url: url, logger: logger)
        defer { database.shutdown() }
        #expect(try await PostgresCluster.epoch(database) >= 2)
        let leaderURL = try await PostgresCluster.leaderURL(database)
        #expect(leaderURL == bases[1] || leaderURL == bases[2])

        // Every acknowledged payment is in the ledger exactly once; the money adds up.
        let store = try await PostgresLedgerStore(database)
        for hash in answered {
            let copies = try await database.rows("SELECT COUNT(*) FROM transactions WHERE hash = \(ByteBuffer(bytes: hash.bytes))") { try $0.decode(Int64.self) }
            #expect(copies == [1], "\(hash.hex) acknowledged but \(copies) times in the ledger")
        }
        let state = try #require(try await store.loadState())
        #expect(state.verifyAllInvariants() == nil)
        let payerBalances = payers.reduce(Int64(0)) { $0 + (state.account($1.accountID)?.balance ?? 0) }
        let payerFees = payers.reduce(Int64(0)) { $0 + ((state.account($1.accountID)?.sequenceNumber ?? 0) - startSequence) * 100 }
        #expect(payerFees == Int64(payers.count * waves * 100), "each payer's sequence moved once per wave: nothing applied twice")
        #expect(payerBalances == Int64(payers.count) * 1000 * Amount.stroopsPerUnit - payerFees)
        // The ledgers form one chain: no sequence twice, none missing.
        let (count, low, high) = try #require(try await database.rows("SELECT COUNT(*), MIN(sequence), MAX(sequence) FROM ledger_headers") {
            try $0.decode((Int64, Int64, Int64).self)
        }.first)
        #expect(count == high - low + 1)

        // A client retrying a payment the dead leader applied gets its stored result.
        let retried = try #require(firstWave.first)
        var request = URLRequest(url: URL(string: bases[2] + "/transactions")!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("tx=\(retried.xdrBase64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)".utf8)
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let answer = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let stored = try #require(try await store.transaction(hash: retried.hash(on: Self.network)))
        #expect(answer["hash"] as? String == stored.hash.hex)
        #expect(answer["ledger"] as? Int == Int(stored.ledger), "the ledger it was applied in, before the failover")
        let payerAfter = try #require(try await store.loadState()?.account(payers[0].accountID))
        #expect(payerAfter.sequenceNumber == startSequence + Int64(waves), "the retry applied nothing")

        // The survivors stop cleanly.
        for node in nodes.dropFirst() { node.signal(SIGTERM) }
        for node in nodes.dropFirst() {
            let exited = await node.waitForExit(timeout: 30)
            #expect(exited)
            if exited { #expect(node.terminationStatus == 0) }
        }
    }

    @Test func aLeaderCutFromTheDatabaseStopsAndAnotherLeads() async throws {
        try await Self.withCluster(2, "cluster-partition") { nodes, bases, url, temporary in
            try await partition(nodes: nodes, leader: bases[0], follower: bases[1], url: url, temporary: temporary)
        }
    }

    func partition(nodes: [Tender.Server], leader: String, follower: String, url: String, temporary: TemporaryDirectory) async throws {
        let alice = try KeyPair(seed: Array(repeating: 31, count: 32)).accountID.strKey
        #expect(await Self.get(follower + "/friendbot?addr=\(alice)")?.0 == 200)
        let logger = Logger(label: "test")
        let database = try PostgresDatabase(url: url, logger: logger)
        defer { database.shutdown() }
        #expect(try await PostgresCluster.leaderURL(database) == leader)
        let pid = try #require(try await PostgresCluster.leaderPID(database))
        let ledgersBefore = try await database.rows("SELECT MAX(sequence) FROM ledger_headers") { try $0.decode(Int64.self) }.first ?? 0

        // Cut the leader's lock session.
        try await database.execute("SELECT pg_terminate_backend(\(pid))")
        // Fail-stop: the old leader exits, with an error.
        #expect(await nodes[0].waitForExit(timeout: 15))
        #expect(nodes[0].terminationReason == .exit && nodes[0].terminationStatus != 0)
        let log = (try? String(contentsOfFile: temporary.file("node0.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("no longer leads"), "\(log.suffix(2000))")

        // The other node leads and goes on.
        let bob = try KeyPair(seed: Array(repeating: 32, count: 32)).accountID.strKey
        var funded: Int?
        for _ in 0..<100 where funded != 200 {
            funded = await Self.get(follower + "/friendbot?addr=\(bob)")?.0
            if funded != 200 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(funded == 200)
        #expect(try await PostgresCluster.epoch(database) == 2)
        #expect(try await PostgresCluster.leaderURL(database) == follower)
        #expect(try await PostgresCluster.leaderPID(database) != pid)
        let (count, low, high) = try #require(try await database.rows("SELECT COUNT(*), MIN(sequence), MAX(sequence) FROM ledger_headers") {
            try $0.decode((Int64, Int64, Int64).self)
        }.first)
        #expect(high > ledgersBefore)
        #expect(count == high - low + 1, "one chain of ledgers")
        #expect(await Self.get(follower + "/accounts/\(alice)")?.0 == 200)
        nodes[1].signal(SIGTERM)
        #expect(await nodes[1].waitForExit(timeout: 30))
    }
}
