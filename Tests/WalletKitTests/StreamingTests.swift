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

/// Server-sent events: the parser, the reconnecting payment stream, and a wallet watching a
/// real server.
@Suite("Streaming")
struct StreamingTests {
    static let horizonLike = "retry: 1000\nevent: open\ndata: \"hello\"\n\n: keep-alive\n\nid: 42\ndata: {\"a\":1}\n\nid: 43\ndata: line one\ndata: line two\n\nevent: close\ndata: \"byebye\"\n\n"

    @Test func parsesHorizonsEvents() {
        var parser = ServerSentEventParser()
        let events = parser.feed(Array(Self.horizonLike.utf8))
        #expect(events == [
            ServerSentEvent(event: "open", data: "\"hello\"", retry: 1000),
            ServerSentEvent(id: "42", data: "{\"a\":1}"),
            ServerSentEvent(id: "43", data: "line one\nline two"),
            ServerSentEvent(event: "close", data: "\"byebye\""),
        ])
    }

    @Test func lineEndingsAndFieldsWithoutSpaceOrValue() {
        var parser = ServerSentEventParser()
        let events = parser.feed(Array("id:7\r\ndata\r\rdata:x\rretry: soon\n\nunknown: y\n\n".utf8))
        #expect(events == [ServerSentEvent(id: "7", data: ""), ServerSentEvent(data: "x")])
    }

    /// However the bytes are cut into chunks (a CR at the end of one and its LF at the start of
    /// the next included), the same events come out; random bytes never crash the parser.
    @Test func chunkBoundariesDoNotMatter() {
        var random = SystemRandomNumberGenerator()
        let text = Array(Self.horizonLike.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        var whole = ServerSentEventParser()
        let expected = whole.feed(text)
        #expect(expected.count == 4)
        for _ in 0..<500 {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            var rest = text[...]
            while !rest.isEmpty {
                let size = Int.random(in: 1...12, using: &random)
                events += parser.feed(rest.prefix(size))
                rest = rest.dropFirst(size)
            }
            #expect(events == expected)
        }
        for _ in 0..<2_000 {
            var parser = ServerSentEventParser()
            let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in
                [UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ":"), UInt8(ascii: "d"), 0xFF, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)!
            }
            _ = parser.feed(bytes)
        }
    }

    typealias ScriptedTransport = ScriptedHorizonTransport

    static func record(_ token: String) -> String {
        #"{"id":"\#(token)","paging_token":"\#(token)","type":"payment","created_at":"2026-11-22T00:00:00Z","transaction_hash":"ab","transaction_successful":true,"source_account":"GA","from":"GA","to":"GB","amount":"1.0000000","asset_type":"native"}"#
    }

    /// After the server closes the stream, and after a failed connection, the stream comes back
    /// from the last payment it delivered: nothing lost, nothing twice.
    @Test func reconnectsFromTheLastPayment() async throws {
        let transport = ScriptedTransport([
            .events("retry: 10\ndata: \"hello\"\n\nid: 100\ndata: \(Self.record("100"))\n\nid: 101\ndata: \(Self.record("101"))\n\n"),
            .failure,
            .events("id: 102\ndata: \(Self.record("102"))\n\nevent: close\ndata: \"byebye\"\n\n"),
        ])
        let client = HorizonClient(baseURL: URL(string: "http://horizon.invalid")!, transport: transport)
        let fast = HorizonClient.Reconnection(attempts: 3, firstDelay: .milliseconds(1), longestDelay: .milliseconds(5))
        var tokens: [String] = []
        for try await payment in client.paymentStream(for: "GA", cursor: "now", reconnection: fast) {
            tokens.append(payment.pagingToken)
            if tokens.count == 3 { break }
        }
        #expect(tokens == ["100", "101", "102"])
        let cursors = transport.urls.map { URLComponents(url: $0, resolvingAgainstBaseURL: false)!.queryItems?.first { $0.name == "cursor" }?.value }
        // After the third payment the consumer stops; the stream may already have reconnected
        // after the server's close, from the last payment (102), never from an earlier one.
        #expect(Array(cursors.prefix(3)) == ["now", "101", "101"] && cursors.dropFirst(3).allSatisfy { $0 == "102" }, "\(cursors)")
        #expect(transport.urls.first?.path == "/accounts/GA/payments")
        #expect(transport.unexpectedRequests.isEmpty)
    }

    @Test func givesUpAfterRepeatedFailuresAndOnAProblem() async throws {
        let fast = HorizonClient.Reconnection(attempts: 3, firstDelay: .milliseconds(1), longestDelay: .milliseconds(5))
        let failing = ScriptedTransport([.failure, .failure, .failure])
        do {
            for try await _ in HorizonClient(baseURL: URL(string: "http://horizon.invalid")!, transport: failing).paymentStream(for: "GA", reconnection: fast) {}
            Issue.record("the stream did not fail")
        } catch let error as URLError {
            #expect(error.code == .cannotConnectToHost)
        }
        #expect(failing.urls.count == 3)
        let refused = ScriptedTransport([.problem(400)])
        do {
            for try await _ in HorizonClient(baseURL: URL(string: "http://horizon.invalid")!, transport: refused).paymentStream(for: "GA", reconnection: fast) {}
            Issue.record("the stream did not fail")
        } catch let problem as HorizonProblem {
            #expect(problem.status == 400)
        }
        #expect(refused.urls.count == 1)
        #expect(failing.unexpectedRequests.isEmpty && refused.unexpectedRequests.isEmpty)
    }

    /// A wallet watching a real server sees a payment made after it started, from its own side
    /// and with the contact's name; stopping the iteration closes the connection.
    @Test(arguments: TestDatabase.allCases)
    func aWalletSeesAPaymentAsItHappens(_ database: TestDatabase) async throws {
        try await database.with { url in
            let temporary = TemporaryDirectory("stream")
            defer { temporary.remove() }
            let root = URL(fileURLWithPath: temporary.path)
            defer { try? FileManager.default.removeItem(at: root) }
            let app = try await buildApplication({ var configured = TenderConfiguration(port: 0, dataDirectory: root.appendingPathComponent("server").path, closeInterval: .zero); configured.database = url; return configured }())
            try await app.test(.live) { client in
                let horizon = HorizonClient(baseURL: URL(string: "http://127.0.0.1:\(client.port!)")!)
                func wallet(_ name: String) -> Wallet {
                    Wallet(horizon: horizon, network: .standalone,
                           keystore: Keystore(storage: FileKeystoreStorage(url: root.appendingPathComponent("\(name)/keystore.json")), cost: .testing),
                           contacts: ContactBook(storage: FileKeystoreStorage(url: root.appendingPathComponent("\(name)/contacts.json"))))
                }
                let alice = wallet("alice"), bob = wallet("bob")
                try alice.keystore.create(KeyPair.random(), pin: "111111")
                try bob.keystore.create(KeyPair.random(), pin: "222222")
                let aliceAddress = try alice.keystore.address()
                _ = try await horizon.friendbot(aliceAddress)
                _ = try await horizon.friendbot(try bob.keystore.address())
                try await bob.contacts.add(name: "Alice", address: aliceAddress) { _ in true }

                // From Bob's latest payment (friendbot's funding) on: the funding must not show, the
                // payment must, however soon the stream connects.
                let funding = try #require(try await horizon.payments(for: try bob.keystore.address(), limit: 1).records.first)
                let updates = try bob.paymentUpdates(cursor: funding.pagingToken)
                let watcher = Task { () -> WalletPayment? in
                    for try await payment in updates { return payment }
                    return nil
                }
                // A stream that never delivers fails the test instead of hanging it.
                let deadline = Task {
                    try await Task.sleep(for: .seconds(30))
                    Issue.record("no payment arrived on the stream within 30 s")
                    watcher.cancel()
                }
                _ = try await alice.pay(to: try bob.keystore.address(), amount: "7.5", memo: "dinner", pin: "111111")
                let seen = try await watcher.value
                deadline.cancel()
                let payment = try #require(seen)
                #expect(payment.type == "payment")
                #expect(payment.direction == .received)
                #expect(payment.amount == "7.5000000")
                #expect(payment.counterparty == aliceAddress)
                #expect(payment.contactName == "Alice")
            }
        }
    }
}
