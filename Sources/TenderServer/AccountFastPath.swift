import Foundation
import HummingbirdCore
import LedgerService
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import StellarBase

/// Answers `GET /accounts/{id}` on the connection's event loop, in the channel pipeline, right
/// after HTTP/1's request decoder, before the request is converted into swift-http-types' shapes
/// or reaches the application: from the ``AccountCache``, or else from the writer's memory
/// (``CommittedAccounts``) when the writer is between changes, rendered here and cached. The
/// connection's ``AccountBytePath`` answers the plainest of these before the decoder; this path
/// answers those it leaves to the decoder, with the same ``AccountAnswers``.
///
/// The API's hottest read otherwise travels from the event loop into Swift concurrency and back
/// (NIO's async channel, a task per connection, the responder chain): about half the server's
/// time per cached answer, measured (issue 30, GET beside nginx); sitting before Hummingbird's
/// conversion of each request head and answer head saves about a tenth more. A hit here is
/// written at once with the same bytes the application would answer (`Content-Type`,
/// `Content-Length`, `Date`, `Server`, the body). Past a hundred thousand accounts most reads
/// miss the cache, and a miss sent on to the application cost twice a hit (issue 30, ten
/// million accounts); memory gives the same answer the route would. Everything else passes
/// through untouched: an account memory cannot answer for now (the writer is changing the
/// state, the account's ledger is still being committed, it has subentries memory does not
/// render, or no such account), an address not in its canonical `G...` form, a query string, a browser's `Origin` (it needs CORS headers), a
/// `Connection` header other than `keep-alive`, HTTP/1.0, any other method or path, and any request while an earlier
/// one on the connection is still being answered by the application (answers keep the order of
/// requests).
final class AccountFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The writer's accounts, the commits that invalidate the cache, and the routes' resources
    /// for a request's authority (``HorizonRoutes/resources(authority:)``), which render the answers.
    struct Memory: Sendable {
        let accounts: CommittedAccounts
        let commits: LedgerCommits
        let resources: @Sendable (String) -> HorizonResources
    }

    private let connection: AccountAnswers
    /// The rest of a request answered here (its body and end) is dropped.
    private var dropping = false

    /// The path of a connection whose answers `connection` renders (shared with the
    /// connection's ``AccountBytePath``, if it has one).
    init(_ connection: AccountAnswers) {
        self.connection = connection
    }

    convenience init(cache: AccountCache, memory: Memory? = nil, metrics: ServerMetrics, serverName: String, defaultAuthority: String) {
        self.init(AccountAnswers(cache: cache, memory: memory, metrics: metrics, serverName: serverName, defaultAuthority: defaultAuthority))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let started = ContinuousClock.now
            if connection.passedOn == 0, let body = answer(request, allocator: context.channel.allocator) {
                dropping = true
                connection.answers.write(.ok, contentType: connection.contentType, body: body, context: context)
                connection.metrics.accountAnsweredEarly(duration: ContinuousClock.now - started)
                return
            }
            dropping = false
            connection.passedOn += 1
            context.fireChannelRead(data)
        case .body, .end:
            if !dropping { context.fireChannelRead(data) }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { connection.passedOn = max(0, connection.passedOn - 1) }
        context.write(data, promise: promise)
    }

    /// The answer to `request`, when it is one this path may answer: cached, or from memory.
    private func answer(_ request: HTTPRequestHead, allocator: ByteBufferAllocator) -> ByteBuffer? {
        guard request.method == .GET, let address = AccountCache.address(inPath: request.uri),
              let authority = request.fastPathAuthority(default: connection.defaultAuthority) else { return nil }
        return connection.body(address: address, authority: authority, allocator: allocator)
    }
}

/// Answers `GET /accounts/{id}` from a connection's bytes, before HTTP/1's decoder: the
/// ``AccountFastPath`` without the decoding of each request into NIO's parts and the encoding of
/// each answer from them (about half of what is left of the server's time per cached answer
/// beside the socket's own, measured by perf: issue 30, GET beside nginx). It reads only the
/// one narrow shape ``AccountRequestScan`` recognises, and writes the whole answer, head and
/// body, as one buffer with the same bytes the encoder would write.
///
/// The decoder and the encoder never see a request answered here, so they stay paired: every
/// request the decoder reads is answered through the encoder. Answers keep the order of
/// requests: a request is answered here only when no earlier one on the connection is still the
/// application's (``AccountAnswers/passedOn``, counted by the ``AccountFastPath`` after the
/// decoder). An account request this path may not answer (for now) goes on to the decoder as
/// exactly its own bytes, so the decoder is left between requests and the next one may be
/// answered here again; the start of one is held until the rest arrives (up to
/// ``AccountRequestScan/limit`` bytes in ``readsARequest`` reads). Anything else, and everything after it on the
/// connection, goes on to the decoder untouched: its framing is the decoder's to know.
final class AccountBytePath: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let connection: AccountAnswers
    /// Everything goes on to the decoder from now on.
    private var passing = false
    /// The start of a request, waiting for its end, and the reads it came in.
    private var held: ByteBuffer?
    private var heldReads = 0
    /// Reads a request may come in and still be answered here. Each read scans the request from
    /// its start again, so a request dribbled a byte a read is the decoder's, which reads on
    /// from where it stopped.
    static let readsARequest = 4

    init(_ connection: AccountAnswers) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !passing else { return context.fireChannelRead(data) }
        var buffer = unwrapInboundIn(data)
        if var earlier = held {
            held = nil
            earlier.writeBuffer(&buffer)
            buffer = earlier
        }
        var answered = false
        defer { if answered { context.flush() } }
        while buffer.readableBytes > 0 {
            let started = ContinuousClock.now
            switch buffer.withUnsafeReadableBytes(AccountRequestScan.scan) {
            case .account(let address, let authority, let length):
                heldReads = 0
                let request = buffer.readSlice(length: length)!
                if connection.passedOn == 0,
                   let answer = connection.answer(address: address, authority: authority ?? connection.defaultAuthority, allocator: context.channel.allocator) {
                    context.write(wrapOutboundOut(answer), promise: nil)
                    answered = true
                    connection.metrics.accountAnsweredEarly(duration: ContinuousClock.now - started)
                } else {
                    context.fireChannelRead(wrapInboundOut(request))
                }
            case .incomplete:
                heldReads += 1
                guard heldReads >= Self.readsARequest else {
                    held = buffer
                    return
                }
                return passEverything(from: buffer, context: context)
            case .other:
                return passEverything(from: buffer, context: context)
            }
        }
    }

    /// A request left unfinished when the peer stops sending is the decoder's to refuse.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent, let earlier = held {
            held = nil
            passEverything(from: earlier, context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// `bytes` and everything after them on the connection go on to the decoder.
    private func passEverything(from bytes: ByteBuffer, context: ChannelHandlerContext) {
        passing = true
        context.fireChannelRead(wrapInboundOut(bytes))
    }
}

/// What a connection's ``AccountBytePath`` and ``AccountFastPath`` share: the answers they
/// render, from the ``AccountCache`` or else from the writer's memory (``CommittedAccounts``)
/// when the writer is between changes, and how many requests the connection's application
/// still has to answer. Both handlers run on the connection's event loop.
///
/// An answer rendered from memory is written from a buffer the connection keeps (``outgoing``):
/// once the socket has taken the previous answer the buffer is the connection's alone again and
/// is refilled in place, so a miss allocates nothing of its own; a copy is made only for an
/// answer the cache keeps. At ten million accounts nearly every read is a miss, and the body
/// allocated, copied and freed for each of them (too large for the allocator's per-thread
/// cache) was about an eighth of what a miss cost the server beyond a hit (perf, issue 30).
final class AccountAnswers {
    let cache: AccountCache
    let memory: AccountFastPath.Memory?
    let metrics: ServerMetrics
    let contentType: String
    /// `host:port` for requests without a `Host` header (as ``HorizonRoutes`` links).
    let defaultAuthority: String
    var answers: EarlyAnswers
    /// Requests passed on to the application whose answer has not been written to its end.
    var passedOn = 0
    /// Plain accounts' answers for the authority last answered on this connection, and that
    /// authority (a connection's `Host` rarely changes).
    private var template: (authority: String, answer: AccountAnswer)?
    /// The bytes of the answer being rendered, kept between requests.
    private var scratch: [UInt8] = []
    /// The buffer answers are written from (see the type's discussion); nil until the first.
    private var outgoing: ByteBuffer?

    /// Where an answer's body is.
    private enum Found {
        /// The cache's copy.
        case cached(ByteBuffer)
        /// Rendered from memory into ``scratch``.
        case rendered
    }

    init(cache: AccountCache, memory: AccountFastPath.Memory?, metrics: ServerMetrics, serverName: String, defaultAuthority: String) {
        self.cache = cache
        self.memory = memory
        self.metrics = metrics
        contentType = HorizonRoutes.jsonHeaders[.contentType]!
        answers = EarlyAnswers(serverName: serverName)
        self.defaultAuthority = defaultAuthority
    }

    /// The body of `address`'s answer for `authority`, cached or from memory, if either has it.
    func body(address: String, authority: String, allocator: ByteBufferAllocator) -> ByteBuffer? {
        switch find(address: address, authority: authority, allocator: allocator) {
        case nil: return nil
        case .cached(let body): return body
        case .rendered: return refill(allocator) { $0.writeBytes(scratch) }
        }
    }

    /// The whole answer to `address` for `authority`, head and body, as one buffer: the bytes
    /// NIO's response encoder writes for the head ``EarlyAnswers/write(_:contentType:body:context:)``
    /// writes, then the body.
    func answer(address: String, authority: String, allocator: ByteBufferAllocator) -> ByteBuffer? {
        switch find(address: address, authority: authority, allocator: allocator) {
        case nil:
            return nil
        case .cached(let body):
            return refill(allocator) { buffer in
                answers.writeHead(.ok, contentType: contentType, contentLength: body.readableBytes, to: &buffer)
                buffer.writeImmutableBuffer(body)
            }
        case .rendered:
            return refill(allocator) { buffer in
                answers.writeHead(.ok, contentType: contentType, contentLength: scratch.count, to: &buffer)
                buffer.writeBytes(scratch)
            }
        }
    }

    /// ``outgoing`` emptied (in place when nothing else holds it) and filled by `fill`.
    private func refill(_ allocator: ByteBufferAllocator, _ fill: (inout ByteBuffer) -> Void) -> ByteBuffer {
        var buffer = outgoing ?? allocator.buffer(capacity: 4096)
        outgoing = nil
        buffer.clear()
        fill(&buffer)
        outgoing = buffer
        return buffer
    }

    /// `address`'s answer for `authority`: the cache's, or rendered from memory into ``scratch``
    /// (and offered to the cache), or nil when neither has it.
    private func find(address: String, authority: String, allocator: ByteBufferAllocator) -> Found? {
        if let body = cache.body(for: address, authority: authority) { return .cached(body) }
        // Decoding refuses any text but the canonical one, so the address is the id's own.
        guard let memory, let id = try? AccountID(address) else { return nil }
        // As the route does: the ledger the cache may keep the answer for is read first, so a
        // commit between it and the read only makes the answer stale sooner.
        let readAt = memory.commits.latest
        guard case .record(let record)? = memory.accounts.accountIfAvailable(id) else { return nil }
        if template?.authority != authority {
            template = (authority, AccountAnswer(base: memory.resources(authority).base))
        }
        scratch.removeAll(keepingCapacity: true)
        if !template!.answer.render(record, address: address, to: &scratch) {
            scratch = memory.resources(authority).accountBytes(record, address: address)
        }
        cache.store(for: address, base: template!.answer.base, readAt: readAt) { allocator.buffer(bytes: scratch) }
        return .rendered
    }
}

/// Hummingbird's HTTP/1 child channel with handlers of Tender's own placed before its response
/// encoder (they see the connection's bytes) and right after its request decoder (Hummingbird's
/// own option places handlers after its conversion into swift-http-types, a step the
/// ``AccountFastPath`` skips): they see NIO's HTTP/1 parts.
struct HTTP1ChannelWithEarlyHandlers: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    /// A connection's handlers: those reading its bytes, and those reading its requests' parts.
    struct Handlers {
        var bytes: [any RemovableChannelHandler] = []
        var parts: [any RemovableChannelHandler] = []
    }

    let http1: HTTP1Channel
    let handlers: @Sendable () -> Handlers

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let handlers = handlers()
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandlers(handlers.parts, position: .after(decoder))
            let encoder = try pipeline.handler(type: HTTPResponseEncoder.self)
            try pipeline.addHandlers(handlers.bytes, position: .before(encoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
