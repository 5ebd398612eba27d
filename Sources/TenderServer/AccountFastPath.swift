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
/// (``CommittedAccounts``) when the writer is between changes, rendered here and cached.
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

    private let cache: AccountCache
    private let memory: Memory?
    private let metrics: ServerMetrics
    private let contentType: String
    /// `host:port` for requests without a `Host` header (as ``HorizonRoutes`` links).
    private let defaultAuthority: String
    /// Requests passed on whose answer has not been written to its end.
    private var passedOn = 0
    /// The rest of a request answered here (its body and end) is dropped.
    private var dropping = false
    private var answers: EarlyAnswers
    /// Plain accounts' answers for the authority last answered on this connection, and that
    /// authority (a connection's `Host` rarely changes).
    private var template: (authority: String, answer: AccountAnswer)?
    /// The bytes of the answer being rendered, kept between requests so a miss allocates only
    /// the buffer it sends.
    private var scratch: [UInt8] = []

    init(cache: AccountCache, memory: Memory? = nil, metrics: ServerMetrics, serverName: String, defaultAuthority: String) {
        self.cache = cache
        self.memory = memory
        self.metrics = metrics
        contentType = HorizonRoutes.jsonHeaders[.contentType]!
        answers = EarlyAnswers(serverName: serverName)
        self.defaultAuthority = defaultAuthority
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let started = ContinuousClock.now
            if passedOn == 0, let body = answer(request, allocator: context.channel.allocator) {
                dropping = true
                write(body, context: context)
                metrics.accountAnsweredEarly(duration: ContinuousClock.now - started)
                return
            }
            dropping = false
            passedOn += 1
            context.fireChannelRead(data)
        case .body, .end:
            if !dropping { context.fireChannelRead(data) }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }

    /// The answer to `request`, when it is one this path may answer: cached, or from memory.
    private func answer(_ request: HTTPRequestHead, allocator: ByteBufferAllocator) -> ByteBuffer? {
        guard request.method == .GET, let address = AccountCache.address(inPath: request.uri),
              let authority = request.fastPathAuthority(default: defaultAuthority) else { return nil }
        if let body = cache.body(for: address, authority: authority) { return body }
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
        let body: ByteBuffer
        if template!.answer.render(record, address: address, to: &scratch) {
            body = allocator.buffer(bytes: scratch)
        } else {
            body = ByteBuffer(bytes: memory.resources(authority).accountBytes(record, address: address))
        }
        cache.store(body, for: address, base: template!.answer.base, readAt: readAt)
        return body
    }

    private func write(_ body: ByteBuffer, context: ChannelHandlerContext) {
        answers.write(.ok, contentType: contentType, body: body, context: context)
    }
}

/// Hummingbird's HTTP/1 child channel with handlers of Tender's own placed right after the
/// request decoder (Hummingbird's own option places them after its conversion into
/// swift-http-types, a step the ``AccountFastPath`` skips): they see NIO's HTTP/1 parts.
struct HTTP1ChannelWithEarlyHandlers: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel
    let handlers: @Sendable () -> [any RemovableChannelHandler]

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandlers(handlers(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
