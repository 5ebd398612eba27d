import Foundation
import HummingbirdTesting
import Ledger
import StellarBase
import TenderServer
import TenderTesting
import Testing
import WalletKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The dashboard's caching rules, against a real server, with a clock moved by hand and a
/// transport that counts what reaches the network.
@Suite("Dashboard")
struct DashboardTests {
    final class CountingTransport: HorizonTransport, @unchecked Sendable {
        private let inner = URLSessionTransport()
        private let lock = NSLock()
        private var paths: [String] = []

        func send(_ request: URLRequest) async throws -> (status: Int, body: Data) {
            lock.withLock { paths.append(request.url!.path) }
            return try await inner.send(request)
        }

        func stream(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error> { inner.stream(request) }

        /// The requests since the last call, as `account` and `payments`.
        func take() -> [String] {
            lock.withLock {
                defer { paths.removeAll() }
                return paths.map { $0.hasSuffix("/payments") ? "payments" : "account" }
            }
        }
    }

    final class ManualClock: @unchecked Sendable {
        private let lock = NSLock()
        private var instant = ContinuousClock.now
        var now: ContinuousClock.Instant { lock.withLock { instant } }
        func advance(_ duration: Duration) { lock.withLock { instant += duration } }
    }

    @Test func cachesAsTheReferenceAppDoes() async throws {
        let temporary = TemporaryDirectory("dashboard")
        defer { temporary.remove() }
        let root = URL(fileURLWithPath: temporary.path)
        defer { try? FileManager.default.removeItem(at: root) }
        let app = try await buildApplication(TenderConfiguration(port: 0, dataDirectory: root.appendingPathComponent("server").path, closeInterval: .zero))
        try await app.test(.live) { client in
            let transport = CountingTransport()
            let clock = ManualClock()
            let wallet = Wallet(
                horizon: HorizonClient(baseURL: URL(string: "http://127.0.0.1:\(client.port!)")!, transport: transport), network: .standalone,
                keystore: Keystore(storage: FileKeystoreStorage(url: root.appendingPathComponent("w/keystore.json")), cost: .testing),
                contacts: ContactBook(storage: FileKeystoreStorage(url: root.appendingPathComponent("w/contacts.json"))))
            try wallet.keystore.create(KeyPair.random(), pin: "123456")
            let dashboard = Dashboard(wallet: wallet, now: { clock.now })

            // Unfunded: "account not found", remembered for 60 s.
            #expect(try await dashboard.load().accountExists == false)
            #expect(transport.take() == ["account"])
            clock.advance(.seconds(59))
            #expect(try await dashboard.load().accountExists == false)
            #expect(transport.take() == [])
            clock.advance(.seconds(1))
            _ = try await dashboard.load()
            #expect(transport.take() == ["account"])

            // Funding forgets the absence; the 2 s since the last refresh still hold the network back.
            _ = try await dashboard.fund()
            _ = transport.take()
            #expect(try await dashboard.load().accountExists == false)
            #expect(transport.take() == [])
            clock.advance(.seconds(2))
            let funded = try await dashboard.load()
            #expect(funded.accountExists)
            #expect(funded.balances.first?.balance == "10000.0000000")
            #expect(funded.recentPayments.map(\.type) == ["create_account"])
            #expect(transport.take() == ["account", "payments"])

            // Payments are kept 20 s, balances 30 s.
            clock.advance(.seconds(19))
            _ = try await dashboard.load()
            #expect(transport.take() == [])
            clock.advance(.seconds(1))
            _ = try await dashboard.load()
            #expect(transport.take() == ["payments"])
            clock.advance(.seconds(10))
            _ = try await dashboard.load()
            #expect(transport.take() == ["account"])

            // A forced refresh asks at once, even twice within 2 s.
            _ = try await dashboard.load(force: true)
            _ = try await dashboard.load(force: true)
            #expect(transport.take() == ["account", "payments", "account", "payments"])

            // After the wallet pays, invalidation fetches again, but not more than once per 2 s.
            _ = try await wallet.pay(to: KeyPair.random().accountID.strKey, amount: "5", pin: "123456")
            _ = transport.take()
            await dashboard.invalidate()
            #expect(try await dashboard.load().recentPayments.count == 1)
            #expect(transport.take() == [])
            clock.advance(.seconds(2))
            let paid = try await dashboard.load()
            #expect(paid.recentPayments.first?.direction == .sent)
            #expect(paid.recentPayments.count == 2)
            #expect(transport.take() == ["account", "payments"])
        }
    }
}
