import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Ledger
import Logging
@testable import LedgerService
import NIOCore
import NIOEmbedded
import NIOHTTP1
import HummingbirdCore
import StellarBase
import TenderTesting
import Testing
@testable import TenderServer

/// `GET /accounts/{id}` answered from the cache inside the connection's pipeline (issue 30: the
/// hottest read beside nginx), and everything it must leave to the application.
@Suite("The account fast path")
struct AccountFastPathTests {
    let address = "GAAAIBO5QXWGD3OZOUBPQNAUW75VBBABKY4FKQX5AFBJAPXWB44GVIXG"
    let body = ByteBuffer(string: #"{"id":"GAAAIBO5QXWGD3OZOUBPQNAUW75VBBABKY4FKQX5AFBJAPXWB44GVIXG"}"#)

    /// A channel with only the fast path, over a cache holding `address`'s answer for host `h`.
    func channel() throws -> EmbeddedChannel {
        EmbeddedChannel(handler: fastPath())
    }

    /// The path over a cache holding `address`'s answer for host `h`.
    func fastPath() -> AccountFastPath {
        let state = LedgerState.genesis(network: .standalone, closeTime: 1)
        let cache = AccountCache(commits: LedgerCommits(header: state.header, orderBook: OrderBookSnapshot(state)))
        // Read twice: an address's first miss only opens the cache's door.
        cache.store(body, for: address, base: "http://h", readAt: state.header.sequence)
        cache.store(body, for: address, base: "http://h", readAt: state.header.sequence)
        return AccountFastPath(cache: cache, metrics: ServerMetrics(), serverName: "Tender", defaultAuthority: "127.0.0.1:8000")
    }

    /// In Hummingbird's HTTP/1 pipeline the path sits right after the request decoder: the
    /// request's bytes in, the whole answer's bytes out (the application's side of the channel
    /// is never run here, so any answer is the path's). A miss goes on and nothing is written.
    @Test func thePathSitsRightAfterTheRequestDecoder() async throws {
        let channel = EmbeddedChannel()
        let http1 = HTTP1ChannelWithEarlyHandlers(
            http1: HTTP1Channel(responder: { _, _, _ in }),
            handlers: { .init(parts: [fastPath()]) })
        _ = try await http1.setup(channel: channel, logger: Logger(label: "test")).get()
        try channel.writeInbound(ByteBuffer(string: "GET /accounts/\(address) HTTP/1.1\r\nHost: h\r\n\r\n"))
        var written = ByteBuffer()
        while var part = try channel.readOutbound(as: ByteBuffer.self) { written.writeBuffer(&part) }
        let text = String(buffer: written)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: application/hal+json; charset=utf-8\r\nContent-Length: \(body.readableBytes)\r\nDate: "), "\(text)")
        #expect(text.hasSuffix("GMT\r\nServer: Tender\r\n\r\n" + String(buffer: body)), "\(text)")
        try channel.writeInbound(ByteBuffer(string: "GET /accounts/GBOTHER HTTP/1.1\r\nHost: h\r\n\r\n"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
    }

    /// The path over an empty cache and a writer's memory holding a new network's state.
    struct WithMemory {
        let state = LedgerState.genesis(network: .standalone, closeTime: 1)
        let accounts: CommittedAccounts
        let cache: AccountCache
        let channel: EmbeddedChannel
        var root: AccountID { LedgerState.rootKeyPair(network: .standalone).accountID }

        init() {
            accounts = CommittedAccounts(state)
            let commits = LedgerCommits(header: state.header, orderBook: OrderBookSnapshot(state))
            cache = AccountCache(commits: commits)
            channel = EmbeddedChannel(handler: AccountFastPath(
                cache: cache, memory: .init(accounts: accounts, commits: commits, resources: { HorizonResources(base: "http://\($0)", network: .standalone) }),
                metrics: ServerMetrics(), serverName: "Tender", defaultAuthority: "127.0.0.1:8000"))
        }

        /// What the route renders for `id`'s record on host `h`.
        func rendered(_ id: AccountID) throws -> ByteBuffer {
            let record = try #require(state.accountRecord(id))
            return ByteBuffer(bytes: HorizonResources(base: "http://h", network: .standalone).account(record).compactBytes())
        }
    }

    /// A miss is answered from the writer's memory, with the bytes the route renders for the
    /// same record and host, and cached from the address's second miss: the next read is the
    /// cache's even while the writer holds its state, when memory itself is not read.
    @Test func aMissIsAnsweredFromTheWritersMemoryAndCached() throws {
        let memory = WithMemory()
        let address = memory.root.strKey
        #expect(memory.cache.body(for: address, base: "http://h") == nil)
        let rendered = try memory.rendered(memory.root)
        var bytes = ByteBuffer()
        for read in 1...2 {
            try memory.channel.writeInbound(get("/accounts/\(address)"))
            try memory.channel.writeInbound(HTTPServerRequestPart.end(nil))
            let head: HTTPResponseHead
            (head, bytes) = try #require(try answer(memory.channel))
            #expect(head.status == .ok && bytes == rendered)
            #expect(String(buffer: bytes).contains(#""account_id":"\#(address)""#))
            #expect(try memory.channel.readInbound(as: HTTPServerRequestPart.self) == nil)
            // The first read's answer is not kept, the second's is.
            #expect((memory.cache.body(for: address, base: "http://h") == bytes) == (read == 2))
        }
        try memory.accounts.withHeld { _ in
            try memory.channel.writeInbound(get("/accounts/\(address)"))
            try memory.channel.writeInbound(HTTPServerRequestPart.end(nil))
            #expect(try answer(memory.channel)?.1 == bytes)
        }
    }

    /// Answers rendered from memory are written from one buffer the connection keeps: an answer
    /// not yet taken by the socket keeps its own bytes while the next is rendered (three
    /// accounts' misses pipelined in one read, nothing read out between them, on the byte path
    /// and on the parts' path), and once the socket has taken one the next is written into the
    /// same memory.
    @Test func answersFromMemoryShareTheConnectionsBufferOnlyOnceItIsFree() throws {
        var state = LedgerState.genesis(network: .standalone, closeTime: 1)
        let others = try (1...2).map { try KeyPair(seed: Array(repeating: UInt8($0), count: 32)).accountID }
        for (index, id) in others.enumerated() {
            state.setAccount(AccountEntry(accountID: id, balance: Int64(index + 1) * 10_000_000, sequenceNumber: 7, lastModifiedLedger: 1))
        }
        let commits = LedgerCommits(header: state.header, orderBook: OrderBookSnapshot(state))
        let resources: @Sendable (String) -> HorizonResources = { HorizonResources(base: "http://\($0)", network: .standalone) }
        let answers = AccountAnswers(cache: AccountCache(commits: commits), memory: .init(accounts: CommittedAccounts(state), commits: commits, resources: resources),
                                     metrics: ServerMetrics(), serverName: "Tender", defaultAuthority: "127.0.0.1:8000")
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([AccountBytePath(answers), ByteToMessageHandler(HTTPRequestDecoder()), AccountFastPath(answers)])
        let ids = [LedgerState.rootKeyPair(network: .standalone).accountID] + others
        func rendered(_ id: AccountID) throws -> String {
            String(decoding: resources("h").account(try #require(state.accountRecord(id))).compactBytes(), as: UTF8.self)
        }
        func request(_ id: AccountID, _ extra: String = "") -> String { "GET /accounts/\(id.strKey) HTTP/1.1\r\nHost: h\r\n\(extra)\r\n" }
        // The byte path: each answer whole in one buffer.
        try channel.writeInbound(ByteBuffer(string: ids.map { request($0) }.joined()))
        for id in ids {
            let written = String(buffer: try #require(try channel.readOutbound(as: ByteBuffer.self)))
            let expected = try rendered(id)
            #expect(written.hasSuffix("\r\n\r\n" + expected), "\(written)")
        }
        func start(_ buffer: ByteBuffer) -> Int { buffer.withUnsafeReadableBytes { Int(bitPattern: $0.baseAddress) } }
        try channel.writeInbound(ByteBuffer(string: request(others[0])))
        let first = start(try #require(try channel.readOutbound(as: ByteBuffer.self)))
        try channel.writeInbound(ByteBuffer(string: request(others[1])))
        #expect(start(try #require(try channel.readOutbound(as: ByteBuffer.self))) == first)
        // The parts' path (a `Content-Length` leaves the connection to the decoder): the body
        // goes to the encoder as a buffer of its own.
        try channel.writeInbound(ByteBuffer(string: ids.map { request($0, "Content-Length: 0\r\n") }.joined()))
        for id in ids {
            let (head, body) = try #require(try answer(channel))
            let expected = try rendered(id)
            #expect(head.status == .ok && String(buffer: body) == expected)
        }
    }

    /// What memory cannot answer for now goes to the application, and nothing is cached: the
    /// writer changing its state (the path does not wait for it), an account whose ledger is
    /// still being committed, no such account, an address not in its canonical form.
    @Test func whatMemoryCannotAnswerForNowGoesToTheApplication() throws {
        let memory = WithMemory()
        let root = memory.root.strKey
        let stranger = try KeyPair(seed: Array(repeating: 9, count: 32)).accountID.strKey
        let muxed = MuxedAccount.muxed(id: 7, memory.root).strKey
        func passedOn(_ address: String, _ line: SourceLocation = #_sourceLocation) throws {
            try memory.channel.writeInbound(get("/accounts/\(address)"))
            try memory.channel.writeInbound(HTTPServerRequestPart.end(nil))
            #expect(try answer(memory.channel) == nil, sourceLocation: line)
            guard case .head(let forwarded)? = try memory.channel.readInbound(as: HTTPServerRequestPart.self) else {
                Issue.record("not passed on", sourceLocation: line)
                return
            }
            #expect(forwarded.uri == "/accounts/\(address)", sourceLocation: line)
            _ = try memory.channel.readInbound(as: HTTPServerRequestPart.self)
            #expect(memory.cache.body(for: address, base: "http://h") == nil, sourceLocation: line)
            // The application's answer ends; the path may answer the next request.
            try memory.channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
            try memory.channel.writeOutbound(HTTPServerResponsePart.end(nil))
            while try memory.channel.readOutbound(as: HTTPServerResponsePart.self) != nil {}
        }
        try memory.accounts.withHeld { _ in try passedOn(root) }
        memory.accounts.withHeld { $0.uncommitted = [memory.root] }
        try passedOn(root)
        memory.accounts.withHeld { $0.uncommitted = [] }
        try passedOn(stranger)
        try passedOn(muxed)
        try passedOn(root.lowercased())
        // And once memory can, the path answers.
        try memory.channel.writeInbound(get("/accounts/\(root)"))
        try memory.channel.writeInbound(HTTPServerRequestPart.end(nil))
        let rendered = try memory.rendered(memory.root)
        #expect(try answer(memory.channel)?.1 == rendered)
    }

    func get(_ path: String, _ fields: HTTPHeaders = [:], method: HTTPMethod = .GET, version: HTTPVersion = .http1_1) -> HTTPServerRequestPart {
        var headers = fields
        if !headers.contains(name: "host") { headers.add(name: "Host", value: "h") }
        return .head(HTTPRequestHead(version: version, method: method, uri: path, headers: headers))
    }

    /// The answer written, if any: head, body, end.
    func answer(_ channel: EmbeddedChannel) throws -> (HTTPResponseHead, ByteBuffer)? {
        guard case .head(let head)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else { return nil }
        guard case .body(.byteBuffer(let bytes))? = try channel.readOutbound(as: HTTPServerResponsePart.self),
              case .end(nil)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("an answer is a head, a body and an end")
            return nil
        }
        return (head, bytes)
    }

    @Test func aCachedAccountIsAnsweredInThePipeline() throws {
        let channel = try channel()
        try channel.writeInbound(get("/accounts/\(address)"))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        let (head, bytes) = try #require(try answer(channel))
        #expect(head.status == .ok && head.version == .http1_1 && bytes == body)
        #expect(head.headers["Content-Type"] == ["application/hal+json; charset=utf-8"])
        #expect(head.headers["Content-Length"] == [String(body.readableBytes)])
        #expect(head.headers["Server"] == ["Tender"])
        // The request never reaches the application.
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil)
        // `Connection: keep-alive` (Python's requests sends it) is HTTP/1.1's default: answered too.
        try channel.writeInbound(get("/accounts/\(address)", ["Connection": "keep-alive"]))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try answer(channel)?.1 == body)
        // The date as HTTP writes it, and now.
        let date = try #require(head.headers.first(name: "Date"))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let parsed = try #require(formatter.date(from: date), "\(date)")
        #expect(abs(parsed.timeIntervalSinceNow) < 5 && formatter.string(from: parsed) == date)
    }

    /// A request the path must pass on.
    struct PassedOn: Sendable, CustomTestStringConvertible {
        var path: String
        var fields: HTTPHeaders = [:]
        var method: HTTPMethod = .GET
        var version: HTTPVersion = .http1_1
        var testDescription: String { "\(method) \(path.prefix(30)) \(fields) \(version)" }
    }

    static let cached = "/accounts/GAAAIBO5QXWGD3OZOUBPQNAUW75VBBABKY4FKQX5AFBJAPXWB44GVIXG"

    @Test(arguments: [
        PassedOn(path: "/accounts/GBOTHER"),  // not cached
        PassedOn(path: cached + "?x=1"),
        PassedOn(path: cached + "/payments"),
        PassedOn(path: cached, fields: ["Origin": "https://wallet.example"]),
        PassedOn(path: cached, fields: ["connection": "close"]),
        PassedOn(path: cached, fields: ["connection": "keep-alive, upgrade"]),
        PassedOn(path: cached, fields: ["Host": "other"]),  // cached for host h only
        PassedOn(path: cached, fields: ["Host": "h", "host": "h"]),
        PassedOn(path: "http://h" + cached),  // absolute form: the application's
        PassedOn(path: cached, version: .http1_0),
        PassedOn(path: cached, method: .HEAD),
        PassedOn(path: cached, method: .POST),
        PassedOn(path: "/ledgers"),
    ])
    func everythingElseGoesToTheApplication(_ request: PassedOn) throws {
        let (path, fields, method) = (request.path, request.fields, request.method)
        let channel = try channel()
        try channel.writeInbound(get(path, fields, method: method, version: request.version))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try answer(channel) == nil)
        guard case .head(let forwarded)? = try channel.readInbound(as: HTTPServerRequestPart.self) else {
            Issue.record("the request was not passed on")
            return
        }
        #expect(forwarded.uri == path)
        guard case .end? = try channel.readInbound(as: HTTPServerRequestPart.self) else {
            Issue.record("the request's end was not passed on")
            return
        }
    }

    /// A pipelined request waits behind one the application is still answering: answers keep
    /// the order of requests. Once that answer has ended, the path answers again.
    @Test func answersKeepTheOrderOfRequests() throws {
        let channel = try channel()
        try channel.writeInbound(get("/ledgers"))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        try channel.writeInbound(get("/accounts/\(address)"))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try answer(channel) == nil)
        for path in ["/ledgers", "/accounts/\(address)"] {
            guard case .head(let forwarded)? = try channel.readInbound(as: HTTPServerRequestPart.self) else {
                Issue.record("\(path) was not passed on")
                return
            }
            #expect(forwarded.uri == path)
            _ = try channel.readInbound(as: HTTPServerRequestPart.self)
        }
        // The application answers both; then a third request is the path's again.
        for _ in 0..<2 {
            try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
            try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        }
        while try channel.readOutbound(as: HTTPServerResponsePart.self) != nil {}
        try channel.writeInbound(get("/accounts/\(address)"))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try answer(channel)?.1 == body)
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil)
    }

    /// A body sent with a GET the path answered is dropped with it, not taken for a request.
    @Test func theRestOfARequestAnsweredHereIsDropped() throws {
        let channel = try channel()
        try channel.writeInbound(get("/accounts/\(address)"))
        try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "x")))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try answer(channel) != nil)
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil)
    }

    /// Over real sockets, the answer from the pipeline is the application's, byte for byte in
    /// its body and the same in its headers; and it counts in the metrics under the route's own name (the cache once counted under another).
    @Test func theServerAnswersTheSameFromThePipeline() async throws {
        let temporary = TemporaryDirectory("fastpath")
        let app = try await buildApplication(TenderConfiguration(port: 0, dataDirectory: temporary.file("data"), closeInterval: .zero))
        let alice = try KeyPair(seed: Array(repeating: 41, count: 32))
        try await app.test(.live) { client in
            _ = try await client.execute(uri: "/friendbot?addr=\(alice.accountID.strKey)", method: .get) { $0.status }
            var answers: [(HTTPFields, ByteBuffer)] = []
            for _ in 0..<3 {
                answers.append(try await client.execute(uri: "/accounts/\(alice.accountID.strKey)", method: .get) { ($0.headers, $0.body) })
            }
            for (headers, body) in answers.dropFirst() {
                #expect(body == answers[0].1)
                for name in [HTTPField.Name.contentType, .contentLength, .server] { #expect(headers[name] == answers[0].0[name]) }
                #expect(headers[.date] != nil)
            }
            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            let line = metrics.split(separator: "\n").first { $0.hasPrefix("tender_http_requests_total") && $0.contains(#"route="/accounts/{account}""#) && $0.contains(#"status="200""#) }
            #expect(line.map { $0.hasSuffix(" 3") } == true, "\(metrics.split(separator: "\n").filter { $0.hasPrefix("tender_http_requests_total") })")
        }
    }
}
