import Foundation
import HummingbirdCore
import Ledger
@testable import LedgerService
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import StellarBase
import Testing
@testable import TenderServer

/// The one request shape read from a connection's bytes (issue 30: GET beside nginx), and
/// everything it leaves to HTTP/1's decoder.
@Suite("Account requests read from bytes")
struct AccountRequestScanTests {
    static let address = "GAAAIBO5QXWGD3OZOUBPQNAUW75VBBABKY4FKQX5AFBJAPXWB44GVIXG"

    func scan(_ text: String) -> AccountRequestScan {
        Array(text.utf8).withUnsafeBytes(AccountRequestScan.scan)
    }

    @Test func aWholeRequestIsReadWithItsHostAndLength() {
        let request = "GET /accounts/\(Self.address) HTTP/1.1\r\nHost: h:8000\r\nUser-Agent: python-requests/2.32\r\nAccept: */*\r\n\r\n"
        #expect(scan(request + "GET /ledgers HTTP/1.1\r\n") == .account(address: Self.address, authority: "h:8000", length: request.utf8.count))
        #expect(scan("GET /accounts/\(Self.address) HTTP/1.1\r\n\r\n") == .account(address: Self.address, authority: nil, length: 83))
        // Names in any case, values trimmed, `keep-alive` in any case and among empty elements.
        #expect(scan("GET /accounts/\(Self.address) HTTP/1.1\r\nHOST:\th \r\nconnection: Keep-Alive, \r\n\r\n")
            == .account(address: Self.address, authority: "h", length: 119))
        #expect(scan("GET /accounts/\(Self.address) HTTP/1.1\r\nHost: [::1]:80\r\nX-Text: caf\u{e9}\r\n\r\n")
            == .account(address: Self.address, authority: "[::1]:80", length: 114))
    }

    /// Every start of a request is waited on; past the limit it is the decoder's.
    @Test func theStartOfARequestWaitsForTheRest() {
        let request = "GET /accounts/\(Self.address) HTTP/1.1\r\nHost: h\r\n\r\n"
        let bytes = Array(request.utf8)
        for end in 0..<bytes.count {
            #expect(bytes[..<end].withUnsafeBytes(AccountRequestScan.scan) == .incomplete, "\(end)")
        }
        let long = "GET /accounts/\(Self.address) HTTP/1.1\r\nX-Long: " + String(repeating: "x", count: AccountRequestScan.limit)
        #expect(scan(long) == .other)
        let justUnder = String(decoding: long.utf8.prefix(AccountRequestScan.limit - 1), as: UTF8.self)
        #expect(justUnder.utf8.count == AccountRequestScan.limit - 1)
        #expect(scan(justUnder) == .incomplete)
    }

    @Test(arguments: [
        "GET /accounts/GAAAIBO5QXWGD3OZOUBPQNAUW75VBBABKY4FKQX5AFBJAPXWB44GVIX HTTP/1.1\r\n\r\n",  // 55 characters
        "GET /accounts/GAAAIBO5QXWGD3OZOUBPQNAUW75VBBABKY4FKQX5AFBJAPXWB44GVIXGA HTTP/1.1\r\n\r\n",  // 57
        "GET /accounts/gaaaibo5qxwgd3ozoubpqnauw75vbbabky4fkqx5afbjapxwb44gvixg HTTP/1.1\r\n\r\n",
        "GET /accounts/MAAAIBO5QXWGD3OZOUBPQNAUW75VBBABKY4FKQX5AFBJAPXWB44GVIXG HTTP/1.1\r\n\r\n",
        "GET /accounts/GAAAIBO5QXWGD3OZOUBPQNAUW75VBBABKY4FKQX5AFBJAPXWB44GVIX1 HTTP/1.1\r\n\r\n",
        "GET /accounts/\(address)?x=1 HTTP/1.1\r\n\r\n",
        "GET /accounts/\(address)/payments HTTP/1.1\r\n\r\n",
        "GET http://h/accounts/\(address) HTTP/1.1\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.0\r\n\r\n",
        "HEAD /accounts/\(address) HTTP/1.1\r\n\r\n",
        "POST /accounts/\(address) HTTP/1.1\r\n\r\n",
        "GET /ledgers HTTP/1.1\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nOrigin: https://wallet.example\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nConnection: close\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nConnection: keep-alive, upgrade\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nHost: h\r\nhost: h\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nHost:\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nHost: h/x\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nUpgrade: h2c\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nExpect: 100-continue\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nHost : h\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\n: h\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\nHost: h\n\n",
        "GET /accounts/\(address) HTTP/1.1\r\nHost: h\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nHost: h\r\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nX: a\u{7}b\r\n\r\n",
        "GET /accounts/\(address) HTTP/1.1\r\nX: a\u{7f}\r\n\r\n",
    ])
    func everythingElseIsTheDecoders(_ request: String) {
        #expect(scan(request) == .other)
    }
}

/// The byte path in a connection's pipeline, before the request decoder and the
/// ``AccountFastPath`` it shares its connection's answers with.
@Suite("The account byte path")
struct AccountBytePathTests {
    let address = AccountRequestScanTests.address
    let other = "GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H"
    let body = ByteBuffer(string: #"{"id":"GAAAIBO5QXWGD3OZOUBPQNAUW75VBBABKY4FKQX5AFBJAPXWB44GVIXG"}"#)

    /// A channel of the byte path, the decoder and the parts' path over a cache holding
    /// `address`'s answer for host `h`, and no memory: `other` is a miss.
    func channel() throws -> EmbeddedChannel {
        let state = LedgerState.genesis(network: .standalone, closeTime: 1)
        let cache = AccountCache(commits: LedgerCommits(header: state.header, orderBook: OrderBookSnapshot(state)))
        // Read twice: an address's first miss only opens the cache's door.
        cache.store(body, for: address, base: "http://h", readAt: state.header.sequence)
        cache.store(body, for: address, base: "http://h", readAt: state.header.sequence)
        let answers = AccountAnswers(cache: cache, memory: nil, metrics: ServerMetrics(), serverName: "Tender", defaultAuthority: "127.0.0.1:8000")
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            AccountBytePath(answers), ByteToMessageHandler(HTTPRequestDecoder()), AccountFastPath(answers),
        ])
        return channel
    }

    func get(_ address: String, host: String = "h") -> String {
        "GET /accounts/\(address) HTTP/1.1\r\nHost: \(host)\r\nAccept: */*\r\n\r\n"
    }

    /// The answers written as bytes, one string each.
    func answers(_ channel: EmbeddedChannel) throws -> [String] {
        var answers: [String] = []
        while let bytes = try channel.readOutbound(as: ByteBuffer.self) { answers.append(String(buffer: bytes)) }
        return answers
    }

    /// The request heads that reached the application, by path.
    func passedOn(_ channel: EmbeddedChannel) throws -> [String] {
        var paths: [String] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
            if case .head(let head) = part { paths.append(head.uri) }
        }
        return paths
    }

    /// The application answers one request.
    func applicationAnswers(_ channel: EmbeddedChannel) throws {
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        while try channel.readOutbound(as: HTTPServerResponsePart.self) != nil {}
    }

    @Test func aCachedAccountIsAnsweredFromTheBytes() throws {
        let channel = try channel()
        try channel.writeInbound(ByteBuffer(string: get(address)))
        let written = try answers(channel)
        #expect(written.count == 1)
        let text = try #require(written.first)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: application/hal+json; charset=utf-8\r\nContent-Length: \(body.readableBytes)\r\nDate: "), "\(text)")
        #expect(text.hasSuffix("GMT\r\nServer: Tender\r\n\r\n" + String(buffer: body)), "\(text)")
        #expect(try passedOn(channel) == [])
    }

    /// Pipelined requests in one read are answered in turn; a request split across reads is
    /// held until its end arrives, wherever it is split.
    @Test func pipelinedAndSplitRequests() throws {
        let channel = try channel()
        try channel.writeInbound(ByteBuffer(string: get(address) + get(address) + get(address)))
        #expect(try answers(channel).count == 3)
        let bytes = Array((get(address) + get(address)).utf8)
        for split in 1..<bytes.count {
            try channel.writeInbound(ByteBuffer(bytes: bytes[..<split]))
            try channel.writeInbound(ByteBuffer(bytes: bytes[split...]))
            #expect(try answers(channel).count == 2, "split at \(split)")
        }
        #expect(try passedOn(channel) == [])
    }

    /// A request dribbled in more reads than the path waits for is the decoder's, and so is
    /// everything after it; the parts' path answers them.
    @Test func aRequestInManyReadsIsTheDecoders() throws {
        let channel = try channel()
        let bytes = Array(get(address).utf8)
        let reads = AccountBytePath.readsARequest
        // A byte a read for as many reads as the path waits, then the rest.
        for read in 0...reads {
            let end = read == reads ? bytes.count : read + 1
            try channel.writeInbound(ByteBuffer(bytes: bytes[read..<end]))
        }
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) != nil)
        #expect(try passedOn(channel) == [])
        while try channel.readOutbound(as: HTTPServerResponsePart.self) != nil {}
        try channel.writeInbound(ByteBuffer(string: get(address)))
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) != nil)
    }

    /// Answers keep the order of requests. A miss goes on to the decoder as exactly its own
    /// bytes; a cached account pipelined behind it waits for the application's answer (it goes
    /// on too); once the application has answered both, the byte path answers again: the
    /// decoder was left between requests.
    @Test func aMissGoesOnAndTheNextWaitsItsTurn() throws {
        let channel = try channel()
        try channel.writeInbound(ByteBuffer(string: get(other) + get(address)))
        #expect(try answers(channel) == [])
        #expect(try passedOn(channel) == ["/accounts/\(other)", "/accounts/\(address)"])
        try applicationAnswers(channel)
        try channel.writeInbound(ByteBuffer(string: get(address)))
        #expect(try answers(channel) == [])
        #expect(try passedOn(channel) == ["/accounts/\(address)"])
        try applicationAnswers(channel)
        try applicationAnswers(channel)
        try channel.writeInbound(ByteBuffer(string: get(address)))
        #expect(try answers(channel).count == 1)
        #expect(try passedOn(channel) == [])
    }

    /// Anything else, and everything after it on the connection, is the decoder's.
    @Test func anythingElseAndWhatFollowsIsTheDecoders() throws {
        let channel = try channel()
        try channel.writeInbound(ByteBuffer(string: get(address) + "POST /transactions HTTP/1.1\r\nContent-Length: 2\r\n\r\nab" + get(address)))
        #expect(try answers(channel).count == 1)
        #expect(try passedOn(channel) == ["/transactions", "/accounts/\(address)"])
        try applicationAnswers(channel)
        try applicationAnswers(channel)
        // The parts' path answers what follows, not the byte path.
        try channel.writeInbound(ByteBuffer(string: get(address)))
        guard case .head(let head)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("the parts' path did not answer")
            return
        }
        #expect(head.status == .ok)
    }

    /// The start of a request when the peer stops sending is the decoder's to refuse.
    @Test func aRequestCutShortIsTheDecoders() throws {
        let channel = try channel()
        try channel.writeInbound(ByteBuffer(string: String(get(address).prefix(40))))
        #expect(try passedOn(channel) == [])
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(throws: HTTPParserError.self) { try channel.throwIfErrorCaught() }
        #expect(try answers(channel) == [])
    }

    /// The byte path writes the bytes NIO's encoder writes for the parts' path's answer.
    @Test func theBytesAreTheEncodersBytes() throws {
        var answers = EarlyAnswers(serverName: "Tender")
        let encoder = EmbeddedChannel()
        try encoder.pipeline.syncOperations.addHandlers([HTTPResponseEncoder(), Spot()])
        let context = try encoder.pipeline.syncOperations.context(handlerType: Spot.self)
        // A connection's `Date` is made again once a second: both within one second.
        var encoded = "", bytes = "x"
        for _ in 0..<3 where encoded != bytes {
            var written = ByteBuffer()
            answers.writeHead(.ok, contentType: "application/hal+json; charset=utf-8", contentLength: body.readableBytes, to: &written)
            written.writeImmutableBuffer(body)
            answers.write(.ok, contentType: "application/hal+json; charset=utf-8", body: body, context: context)
            var all = ByteBuffer()
            while var part = try encoder.readOutbound(as: ByteBuffer.self) { all.writeBuffer(&part) }
            (encoded, bytes) = (String(buffer: all), String(buffer: written))
        }
        #expect(encoded == bytes)
        #expect(bytes.hasSuffix("\r\n\r\n" + String(buffer: body)))
    }

    /// In Hummingbird's HTTP/1 pipeline the byte path sits before the response encoder: the
    /// request's bytes in, the whole answer's bytes out, as one buffer (the encoder would take
    /// no buffer, and the decoder would give the path no bytes).
    @Test func theBytePathSitsBeforeTheEncoder() async throws {
        let state = LedgerState.genesis(network: .standalone, closeTime: 1)
        let cache = AccountCache(commits: LedgerCommits(header: state.header, orderBook: OrderBookSnapshot(state)))
        cache.store(body, for: address, base: "http://h", readAt: state.header.sequence)
        cache.store(body, for: address, base: "http://h", readAt: state.header.sequence)
        let channel = EmbeddedChannel()
        let http1 = HTTP1ChannelWithEarlyHandlers(http1: HTTP1Channel(responder: { _, _, _ in }), handlers: {
            let answers = AccountAnswers(cache: cache, memory: nil, metrics: ServerMetrics(), serverName: "Tender", defaultAuthority: "127.0.0.1:8000")
            return .init(bytes: [AccountBytePath(answers)], parts: [AccountFastPath(answers)])
        })
        _ = try await http1.setup(channel: channel, logger: Logger(label: "test")).get()
        try channel.writeInbound(ByteBuffer(string: get(address)))
        let text = try #require(try channel.readOutbound(as: ByteBuffer.self)).getString(at: 0, length: 17)
        #expect(text == "HTTP/1.1 200 OK\r\n")
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
    }
}

/// A place in a pipeline to write from.
private final class Spot: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
}
