import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Ledger
import LedgerService
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOPosix
import StellarBase
import Store
import TenderTesting
import Testing
@testable import TenderServer

/// `POST /transactions` answered inside the connection's pipeline (issue 30: ten thousand
/// submissions a second on two cores) with the route's own answers, and everything it must
/// leave to the application.
@Suite("The transaction fast path")
struct TransactionFastPathTests {
    let root = LedgerState.rootKeyPair(network: .standalone)
    let temporary = TemporaryDirectory("txfastpath")

    /// A writer on a new network, the route over it, and the path answering with that route.
    struct Parts {
        let writer: LedgerWriter
        let routes: TransactionRoutes
        let submission: TransactionFastPath.Submission
        let resources = HorizonResources(base: "http://h", network: .standalone)

        init(_ directory: String) async throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let store = try SQLiteLedgerStore(path: directory + "/ledger.sqlite")
            let logger = Logger(label: "test")
            writer = try await LedgerWriter(store: store, configuration: .init(network: .standalone, closeInterval: .zero), logger: logger, now: { 1_700_000_000 })
            let configuration = TenderConfiguration(port: 0, dataDirectory: directory)
            let reads = ReadParts(configuration, reader: store, commits: writer.commits, metrics: ServerMetrics(), logger: logger, writer: writer)
            routes = TransactionRoutes(
                writer: writer, horizon: reads.horizon, history: store, deadlines: SubmissionDeadlines(timeout: .seconds(30), clock: ContinuousClock()))
            submission = .init(routes: routes, resources: reads.horizon.resources(authority:), metrics: reads.metrics, logger: logger)
        }

        func channel() async throws -> NIOAsyncTestingChannel {
            try await TransactionFastPathTests.channel(submission)
        }
    }

    /// A channel with the path answering as `submission` does, after `counter` when given.
    static func channel(
        _ submission: TransactionFastPath.Submission, after counter: ReadCounter? = nil, before completes: ReadCompleteCounter? = nil
    ) async throws -> NIOAsyncTestingChannel {
        try await NIOAsyncTestingChannel { channel in
            if let counter { try channel.pipeline.syncOperations.addHandler(counter) }
            try channel.pipeline.syncOperations.addHandler(TransactionFastPath(submission: submission, serverName: "Tender", defaultAuthority: "127.0.0.1:8000"))
            if let completes { try channel.pipeline.syncOperations.addHandler(completes) }
        }
    }

    /// Counts the read-completes that reach the application's side (Hummingbird's channel hands
    /// the requests read on only then).
    final class ReadCompleteCounter: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = Any
        var completes = 0
        func channelReadComplete(context: ChannelHandlerContext) {
            completes += 1
            context.fireChannelReadComplete()
        }
    }

    /// The root account creating one account, Alice's, with sequence number `sequence` (the
    /// root's first is 1 on a bare writer's network and 2 on a server's, whose test anchor took 1).
    func createAlice(_ sequence: Int64) -> TransactionEnvelope {
        let alice = try! KeyPair(seed: Array(repeating: 11, count: 32))
        return Transaction(sourceAccount: .ed25519(root.accountID), fee: 100, sequenceNumber: sequence,
                           operations: [StellarBase.Operation(.createAccount(CreateAccountOperation(destination: alice.accountID, startingBalance: 100 * Amount.stroopsPerUnit)))])
            .signed(by: [root], on: .standalone)
    }

    func form(_ envelope: TransactionEnvelope) -> ByteBuffer {
        ByteBuffer(string: "tx=" + envelope.xdrBase64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
    }

    func head(_ uri: String = "/transactions", _ fields: HTTPHeaders = [:], method: HTTPMethod = .POST, version: HTTPVersion = .http1_1) -> HTTPServerRequestPart {
        var headers = fields
        if !headers.contains(name: "host") { headers.add(name: "Host", value: "h") }
        if method == .POST, !headers.contains(name: "content-type") { headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded") }
        return .head(HTTPRequestHead(version: version, method: method, uri: uri, headers: headers))
    }

    /// Writes a whole request, its body in `chunks`.
    func send(_ channel: NIOAsyncTestingChannel, _ head: HTTPServerRequestPart, _ chunks: [ByteBuffer]) async throws {
        try await channel.writeInbound(head)
        for chunk in chunks { try await channel.writeInbound(HTTPServerRequestPart.body(chunk)) }
        try await channel.writeInbound(HTTPServerRequestPart.end(nil))
    }

    /// The next answer written: head, body, end.
    func answer(_ channel: NIOAsyncTestingChannel) async throws -> (HTTPResponseHead, ByteBuffer) {
        guard case .head(let head) = try await channel.waitForOutboundWrite(as: HTTPServerResponsePart.self),
              case .body(.byteBuffer(let body)) = try await channel.waitForOutboundWrite(as: HTTPServerResponsePart.self),
              case .end(nil) = try await channel.waitForOutboundWrite(as: HTTPServerResponsePart.self) else {
            throw TestFailure("an answer is a head, a body and an end")
        }
        return (head, body)
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
    }

    /// An applied submission is answered here with the route's bytes for it (the transaction
    /// resource, linked to the request's host), the route's headers and the path's `Date` and
    /// `Server`; the request never reaches the application. The same envelope again gets the
    /// same answer (the writer answers it from history), also with `Connection: keep-alive`.
    @Test func anAppliedSubmissionIsAnsweredWithTheRoutesAnswer() async throws {
        let parts = try await Parts(temporary.file("applied"))
        try await parts.writer.running {
            let channel = try await parts.channel()
            let created = createAlice(1)
            try await send(channel, head(), [form(created)])
            let (head, body) = try await answer(channel)
            #expect(head.status == .ok && head.version == .http1_1)
            #expect(head.headers["Content-Type"] == ["application/hal+json; charset=utf-8"])
            #expect(head.headers["Content-Length"] == [String(body.readableBytes)])
            #expect(head.headers["Server"] == ["Tender"] && head.headers["Date"].first?.hasSuffix(" GMT") == true)
            let fields = try json(body)
            #expect(fields["hash"] as? String == created.hash(on: .standalone).hex && fields["successful"] as? Bool == true)
            let links = try #require(fields["_links"] as? [String: Any])
            #expect((links["self"] as? [String: Any])?["href"] as? String == "http://h/transactions/\(created.hash(on: .standalone).hex)")
            #expect(try await channel.readInbound(as: HTTPServerRequestPart.self) == nil)
            // The route answers the same envelope with the same bytes; so does the path, again.
            let routes = try await parts.routes.answer(body: form(created), contentType: nil, resources: parts.resources)
            #expect(routes.status == 200 && routes.body == body)
            // With `Connection: keep-alive`, as Python's requests sends it, too.
            try await send(channel, self.head("/transactions", ["Connection": "keep-alive"]), [form(created)])
            #expect(try await answer(channel).1 == body)
        }
    }

    /// Refusals are the route's, byte for byte: a transaction the ledger fails (400 with its
    /// result codes), one it refuses before applying, an envelope that does not decode, a
    /// body without `tx`, and a body over the limit (sent in pieces; never 413).
    @Test func refusalsAreTheRoutes() async throws {
        let parts = try await Parts(temporary.file("refusals"))
        try await parts.writer.running {
            let channel = try await parts.channel()
            try await send(channel, head(), [form(createAlice(1))])
            _ = try await answer(channel)
            let half = ByteBuffer(repeating: UInt8(ascii: "a"), count: TransactionRoutes.maxBodyBytes / 2 + 1)
            let cases: [(body: [ByteBuffer], expected: ByteBuffer?, type: String)] = [
                ([form(createAlice(2))], form(createAlice(2)), "transaction_failed"),  // the account exists: op_already_exists
                ([form(createAlice(9))], form(createAlice(9)), "transaction_failed"),  // a bad sequence number: tx_bad_seq
                ([ByteBuffer(string: "tx=AAAA")], ByteBuffer(string: "tx=AAAA"), "transaction_malformed"),
                ([ByteBuffer(string: "memo=x")], ByteBuffer(string: "memo=x"), "bad_request"),
                ([half, half], nil, "bad_request"),
            ]
            for (body, expected, type) in cases {
                try await send(channel, head(), body)
                let (head, bytes) = try await answer(channel)
                #expect(head.status == .badRequest && head.headers["Content-Type"] == ["application/problem+json; charset=utf-8"])
                #expect(try json(bytes)["type"] as? String == "https://stellar.org/horizon-errors/\(type)", "\(String(buffer: bytes).prefix(200))")
                let routes = try await parts.routes.answer(body: expected, contentType: "application/x-www-form-urlencoded", resources: parts.resources)
                #expect(routes.status == 400 && routes.body == bytes)
            }
        }
    }

    /// Once the writer has stopped, a submission is answered 500 as the application answers
    /// it (the server is about to restart), not left waiting.
    @Test func aStoppedWriterIsAnswered500() async throws {
        let parts = try await Parts(temporary.file("stopped"))
        try await parts.writer.running {}
        let channel = try await parts.channel()
        try await send(channel, head(), [form(createAlice(1))])
        let (head, bytes) = try await answer(channel)
        #expect(head.status == .internalServerError)
        #expect(try json(bytes)["detail"] as? String == Problem.unavailable.detail)
    }

    /// Counts the reads asked of the channel (on its event loop; read after a hop to it).
    final class ReadCounter: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = Any
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    /// Answers the bodies it is given in turn, each once the test lets it.
    actor Gate {
        private var opened = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []
        private(set) var bodies: [String] = []

        func pass(_ body: ByteBuffer?) async {
            bodies.append(body.map { String(buffer: $0) } ?? "")
            if opened > 0 {
                opened -= 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func open() {
            if waiting.isEmpty { opened += 1 } else { waiting.removeFirst().resume() }
        }
    }

    /// Requests behind a submission being answered here wait, and the connection reads no
    /// more: once the answer is written they go on, in order (a pipelined GET to the
    /// application, and a second submission behind it, which is then the application's too:
    /// the path answers only when nothing is owed before it), and the held read is asked for.
    @Test func requestsBehindASubmissionWaitInOrder() async throws {
        let gate = Gate()
        let submission = TransactionFastPath.Submission(metrics: ServerMetrics()) { body, _, _ in
            await gate.pass(body)
            return TransactionRoutes.Answer(body: ByteBuffer(string: "{}"))
        }
        let counter = ReadCounter(), completes = ReadCompleteCounter()
        let channel = try await Self.channel(submission, after: counter, before: completes)
        func reads() async throws -> Int { try await channel.testingEventLoop.executeInContext { counter.reads } }
        func readCompletes() async throws -> Int { try await channel.testingEventLoop.executeInContext { completes.completes } }
        let before = try await reads()
        try await send(channel, head(), [ByteBuffer(string: "tx=first")])
        try await send(channel, head("/ledgers", method: .GET), [])
        try await send(channel, head(), [ByteBuffer(string: "tx=second")])
        channel.read()
        #expect(try await channel.readInbound(as: HTTPServerRequestPart.self) == nil)
        #expect(try await reads() == before)
        #expect(try await channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
        let completesBefore = try await readCompletes()
        await gate.open()
        let first = try await answer(channel)
        #expect(first.0.status == .ok && first.1 == ByteBuffer(string: "{}"))
        var uris: [String] = []
        while let part = try await channel.readInbound(as: HTTPServerRequestPart.self) {
            if case .head(let head) = part { uris.append(head.uri) }
        }
        #expect(uris == ["/ledgers", "/transactions"])
        // What went on is followed by a read-complete (without it Hummingbird never sees it).
        #expect(try await readCompletes() == completesBefore + 1)
        #expect(try await reads() == before + 1)
        #expect(await gate.bodies == ["tx=first"])
        #expect(try await channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
    }

    /// Two submissions in a row on one connection are both answered here, in order, the
    /// second read only once the first is written.
    @Test func submissionsInARowAreAnsweredInOrder() async throws {
        let gate = Gate()
        let submission = TransactionFastPath.Submission(metrics: ServerMetrics()) { body, _, _ in
            await gate.pass(body)
            return TransactionRoutes.Answer(body: body ?? ByteBuffer())
        }
        let channel = try await Self.channel(submission)
        try await send(channel, head(), [ByteBuffer(string: "tx=first")])
        try await send(channel, head(), [ByteBuffer(string: "tx="), ByteBuffer(string: "second")])
        await gate.open()
        #expect(try await answer(channel).1 == ByteBuffer(string: "tx=first"))
        await gate.open()
        #expect(try await answer(channel).1 == ByteBuffer(string: "tx=second"))
        #expect(await gate.bodies == ["tx=first", "tx=second"])
        #expect(try await channel.readInbound(as: HTTPServerRequestPart.self) == nil)
    }

    /// A request the path must pass on, whole.
    struct PassedOn: Sendable, CustomTestStringConvertible {
        var uri = "/transactions"
        var fields: HTTPHeaders = [:]
        var method: HTTPMethod = .POST
        var version: HTTPVersion = .http1_1
        var testDescription: String { "\(method) \(uri) \(fields) \(version)" }
    }

    @Test(arguments: [
        PassedOn(method: .GET),
        PassedOn(uri: "/transactions?x=1"),
        PassedOn(uri: "/transactions_async"),
        PassedOn(uri: "http://h/transactions"),
        PassedOn(fields: ["Origin": "https://wallet.example"]),
        PassedOn(fields: ["Connection": "close"]),
        PassedOn(fields: ["Connection": "keep-alive, upgrade"]),
        PassedOn(fields: ["Expect": "100-continue"]),
        PassedOn(fields: ["Content-Type": "multipart/form-data; boundary=x"]),
        PassedOn(fields: ["Host": "h", "host": "h"]),
        PassedOn(version: .http1_0),
    ])
    func everythingElseGoesToTheApplication(_ request: PassedOn) async throws {
        let parts = try await Parts(temporary.file(UUID().uuidString))
        let channel = try await parts.channel()
        try await send(channel, head(request.uri, request.fields, method: request.method, version: request.version), [ByteBuffer(string: "tx=x")])
        guard case .head(let forwarded)? = try await channel.readInbound(as: HTTPServerRequestPart.self) else {
            Issue.record("the request was not passed on")
            return
        }
        #expect(forwarded.uri == request.uri)
        #expect(try await channel.readInbound(as: HTTPServerRequestPart.self) == .body(ByteBuffer(string: "tx=x")))
        #expect(try await channel.readInbound(as: HTTPServerRequestPart.self) == .end(nil))
        #expect(try await channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
    }

    /// A submission behind a request the application is still answering is the application's.
    @Test func aSubmissionBehindTheApplicationsAnswerIsTheApplications() async throws {
        let parts = try await Parts(temporary.file("behind"))
        let channel = try await parts.channel()
        try await send(channel, head("/ledgers", method: .GET), [])
        try await send(channel, head(), [form(createAlice(1))])
        var uris: [String] = []
        while let part = try await channel.readInbound(as: HTTPServerRequestPart.self) {
            if case .head(let head) = part { uris.append(head.uri) }
        }
        #expect(uris == ["/ledgers", "/transactions"])
        #expect(try await channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
    }

    /// Over real sockets, with the account fast path before it, a server answers submissions
    /// from the pipeline as the route does (an SDK's form, a failure) and counts them in the
    /// metrics under the route's own name; a browser's submission (with `Origin`) still gets
    /// the application's CORS headers.
    @Test func theServerAnswersSubmissionsFromThePipeline() async throws {
        let app = try await buildApplication(TenderConfiguration(port: 0, dataDirectory: temporary.file("live"), closeInterval: .zero))
        try await app.test(.live) { client in
            let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let created = createAlice(2)
            let (status, body) = try await client.execute(uri: "/transactions", method: .post, headers: headers, body: form(created)) { ($0.status, $0.body) }
            let hash = try json(body)["hash"] as? String
            #expect(status == .ok && hash == created.hash(on: .standalone).hex)
            let failed = try await client.execute(uri: "/transactions", method: .post, headers: headers, body: form(createAlice(3))) { $0.status }
            #expect(failed == .badRequest)
            var browser = headers
            browser[.origin] = "https://wallet.example"
            let cors = try await client.execute(uri: "/transactions", method: .post, headers: browser, body: form(createAlice(4))) { $0.headers[.accessControlAllowOrigin] }
            #expect(cors == "*")
            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            let lines = metrics.split(separator: "\n").filter { $0.hasPrefix("tender_http_requests_total") && $0.contains(#"route="/transactions""#) }
            #expect(lines.contains { $0.contains(#"status="200""#) && $0.hasSuffix(" 1") }, "\(lines)")
            #expect(lines.contains { $0.contains(#"status="400""#) && $0.hasSuffix(" 2") }, "\(lines)")
        }
    }

    /// Over a real socket, requests pipelined behind a submission answered here are all
    /// answered, in order: the submission (here), a GET (the application's), a second
    /// submission behind it (the application's), an account (either path's).
    @Test func pipelinedRequestsAreAllAnsweredInOrder() async throws {
        let app = try await buildApplication(TenderConfiguration(port: 0, dataDirectory: temporary.file("pipelined"), closeInterval: .zero))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let root = LedgerState.rootKeyPair(network: .standalone).accountID.strKey
            func post(_ body: String) -> String {
                "POST /transactions HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
            }
            let requests = post("tx=AAAA") + "GET /ledgers?limit=1 HTTP/1.1\r\nHost: h\r\n\r\n" + post("memo=1")
                + "GET /accounts/\(root) HTTP/1.1\r\nHost: h\r\n\r\n"
            let answers = try await RawHTTP.exchange(port: port, requests, answers: 4)
            #expect(answers.map(\.status) == [400, 200, 400, 200], "\(answers)")
            #expect(answers[0].body.contains("transaction_malformed") && answers[2].body.contains("bad_request"), "\(answers)")
            #expect(answers[1].body.contains(#""_embedded""#) && answers[3].body.contains(#""account_id":"\#(root)""#), "\(answers)")
        }
    }

    /// A form body read in one pass (``FormBody``) gives what splitting it at `&` and each
    /// pair at its first `=` gives, for edge cases and random bodies over a small alphabet.
    @Test func aFormBodyReadInOnePassIsTheSplitForm() {
        func reference(_ bytes: [UInt8]) -> [String: String] {
            var fields: [String: String] = [:]
            for pair in bytes.split(separator: UInt8(ascii: "&")) {
                let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = parts.first.flatMap(FormBody.decode) else { continue }
                fields[name] = parts.count > 1 ? FormBody.decode(parts[1]) ?? "" : ""
            }
            return fields
        }
        let cases = ["", "&", "a", "a=", "=b", "a=b&a=c", "a=%zz", "a+b=c%20d", "&&a=1&&", "a==b", "tx=AAAA%2B%2F%3D&x", "%ff=1", "a=%e2%82%ac"]
        for text in cases {
            #expect(FormBody(bytes: Array(text.utf8)).fields == reference(Array(text.utf8)), "\(text)")
            #expect(FormBody(bytes: ByteBuffer(string: text).readableBytesView).fields == reference(Array(text.utf8)), "\(text)")
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab=&%+2f".utf8)
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...16, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            #expect(FormBody(bytes: bytes).fields == reference(bytes), "\(String(decoding: bytes, as: UTF8.self))")
        }
    }
}

/// Raw HTTP/1.1 over one socket: requests written at once, answers read by `Content-Length`.
enum RawHTTP {
    struct Answer: CustomStringConvertible {
        let status: Int
        let body: String
        var description: String { "\(status) \(body.prefix(120))" }
    }

    /// Collects what the server sends until `answers` whole answers have come (or it closes).
    final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        private var received = ByteBuffer()
        private let expected: Int
        private var finished = false
        let done: EventLoopPromise<[Answer]>

        init(expected: Int, done: EventLoopPromise<[Answer]>) {
            (self.expected, self.done) = (expected, done)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            received.writeBuffer(&bytes)
            let answers = Self.parse(String(buffer: received))
            if answers.count >= expected { finish(answers) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(Self.parse(String(buffer: received)))
        }

        /// A server that never sends them all fails the test instead of hanging it.
        func handlerAdded(context: ChannelHandlerContext) {
            context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(20)) { self.finish(Self.parse(String(buffer: self.received))) }
        }

        private func finish(_ answers: [Answer]) {
            guard !finished else { return }
            finished = true
            done.succeed(answers)
        }

        static func parse(_ text: String) -> [Answer] {
            var answers: [Answer] = []
            var rest = Substring(text)
            while let headEnd = rest.range(of: "\r\n\r\n") {
                let head = rest[..<headEnd.lowerBound]
                let lines = head.split(separator: "\r\n")
                guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ")[1]) else { break }
                let length = lines.dropFirst().compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    return parts.count == 2 && parts[0].lowercased() == "content-length" ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
                }.first ?? 0
                let bodyStart = headEnd.upperBound
                guard rest.utf8.distance(from: bodyStart, to: rest.endIndex) >= length else { break }
                let bodyEnd = rest.utf8.index(bodyStart, offsetBy: length)
                answers.append(Answer(status: status, body: String(rest[bodyStart..<bodyEnd])))
                rest = rest[bodyEnd...]
            }
            return answers
        }
    }

    static func exchange(port: Int, _ requests: String, answers: Int) async throws -> [Answer] {
        let group = MultiThreadedEventLoopGroup.singleton
        let done = group.next().makePromise(of: [Answer].self)
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(expected: answers, done: done)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: requests))
        let result = try await done.futureResult.get()
        try? await channel.close()
        return result
    }
}
