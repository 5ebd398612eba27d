import Foundation
import HummingbirdTesting
import Logging
import PostgresStore
import StellarBase
import TenderServer
import TenderTesting
import Testing
import WalletKit

/// A wallet's payment stream on a node that reads from a hot standby (`--read-database`): it
/// shows a payment only once the standby has replayed it, and in order, never going back.
@Suite("A payment stream on a standby node", .tags(.slow), TestSpeed.slowSuites)
struct StandbyStreamTests {
    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var payments: [WalletPayment] = []
        func add(_ payment: WalletPayment) { lock.withLock { payments.append(payment) } }
        var all: [WalletPayment] { lock.withLock { payments } }
    }

    @Test func aStreamShowsWhatTheStandbyHasReplayedInOrder() async throws {
        try await TemporaryPostgres.withStandby { primary, standby in try await run(primary: primary, standby: standby) }
    }

    func run(primary: String, standby: String) async throws {
        let temporary = TemporaryDirectory("standby-stream")
        defer { temporary.remove() }
        let root = URL(fileURLWithPath: temporary.path)
        var configuration = TenderConfiguration(port: 0, dataDirectory: root.appendingPathComponent("server").path, closeInterval: .zero)
        configuration.database = primary
        var reading = configuration
        reading.readDatabase = standby
        let frozen = reading
        let replay = try PostgresDatabase(url: standby, logger: Logger(label: "test"))
        defer { replay.shutdown() }

        let leader = try await buildApplication(configuration)
        try await leader.test(.live) { leaderClient in
            let node = try await buildApplication(frozen)
            try await node.test(.live) { nodeClient in
                let onLeader = HorizonClient(baseURL: URL(string: "http://127.0.0.1:\(leaderClient.port!)")!)
                let onNode = HorizonClient(baseURL: URL(string: "http://127.0.0.1:\(nodeClient.port!)")!)
                func wallet(_ name: String, _ horizon: HorizonClient) -> Wallet {
                    Wallet(horizon: horizon, network: .standalone,
                           keystore: Keystore(storage: FileKeystoreStorage(url: root.appendingPathComponent("\(name)/keystore.json")), cost: .testing),
                           contacts: ContactBook(storage: FileKeystoreStorage(url: root.appendingPathComponent("\(name)/contacts.json"))))
                }
                let alice = wallet("alice", onLeader), bob = wallet("bob", onNode)
                try alice.keystore.create(KeyPair.random(), pin: "111111")
                try bob.keystore.create(KeyPair.random(), pin: "222222")
                let bobAddress = try bob.keystore.address()
                _ = try await onLeader.friendbot(try alice.keystore.address())
                _ = try await onLeader.friendbot(bobAddress)
                // Bob's funding, once the standby has it.
                var funding: String?
                for _ in 0..<100 where funding == nil {
                    funding = try? await onNode.payments(for: bobAddress, limit: 1).records.first?.pagingToken
                    if funding == nil { try await Task.sleep(for: .milliseconds(50)) }
                }
                let cursor = try #require(funding)

                let received = Received()
                let updates = try bob.paymentUpdates(cursor: cursor)
                let watcher = Task {
                    for try await payment in updates {
                        received.add(payment)
                        if received.all.count == 3 { return }
                    }
                }
                let deadline = Task {
                    try await Task.sleep(for: .seconds(30))
                    Issue.record("the stream did not deliver three payments within 30 s")
                    watcher.cancel()
                }
                // The standby's replay paused: two payments commit on the primary, none shows.
                try await replay.execute("SELECT pg_wal_replay_pause()")
                _ = try await alice.pay(to: bobAddress, amount: "1", pin: "111111")
                _ = try await alice.pay(to: bobAddress, amount: "2", pin: "111111")
                try await Task.sleep(for: .milliseconds(600))
                #expect(received.all.isEmpty, "nothing the standby has not replayed: \(received.all)")
                // Resumed: they arrive, then a third, in order.
                try await replay.execute("SELECT pg_wal_replay_resume()")
                _ = try await alice.pay(to: bobAddress, amount: "3", pin: "111111")
                try await watcher.value
                deadline.cancel()
                #expect(received.all.map(\.amount) == ["1.0000000", "2.0000000", "3.0000000"])
                let ids = received.all.compactMap { Int64($0.id) }
                #expect(ids.count == 3 && ids == ids.sorted(), "in order: \(ids)")
            }
        }
    }
}
