import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers `GET /accounts/{id}` from the ``AccountCache`` on the connection's event loop, in the
/// channel pipeline, right after HTTP/1's request decoder: before the request is converted into
/// swift-http-types' shapes or reaches the application.
///
/// The API's hottest read otherwise travels from the event loop into Swift concurrency and back
/// (NIO's async channel, a task per connection, the responder chain): about half the server's
/// time per cached answer, measured (issue 30, GET beside nginx); sitting before Hummingbird's
/// conversion of each request head and answer head saves about a tenth more. A hit here is
/// written at once with the same bytes the application would answer (`Content-Type`,
/// `Content-Length`, `Date`, `Server`, the cached body). Everything else passes through
/// untouched: a miss, a query string, a browser's `Origin` (it needs CORS headers), a
/// `Connection` header, HTTP/1.0, any other method or path, and any request while an earlier
/// one on the connection is still being answered by the application (answers keep the order of
/// requests).
final class AccountFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let cache: AccountCache
    private let metrics: ServerMetrics
    private let contentType: String
    private let serverName: String
    /// `host:port` for requests without a `Host` header (as ``HorizonRoutes`` links).
    private let defaultAuthority: String
    /// Requests passed on whose answer has not been written to its end.
    private var passedOn = 0
    /// The rest of a request answered here (its body and end) is dropped.
    private var dropping = false
    private var dateSecond = -1
    private var dateText = ""

    init(cache: AccountCache, metrics: ServerMetrics, serverName: String, defaultAuthority: String) {
        self.cache = cache
        self.metrics = metrics
        contentType = HorizonRoutes.jsonHeaders[.contentType]!
        self.serverName = serverName
        self.defaultAuthority = defaultAuthority
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let started = ContinuousClock.now
            if passedOn == 0, let body = cachedBody(request) {
                dropping = true
                write(body, context: context)
                metrics.cachedAccountAnswered(duration: ContinuousClock.now - started)
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

    /// The cached answer for `request`, when it is one this path may answer.
    private func cachedBody(_ request: HTTPRequestHead) -> ByteBuffer? {
        guard request.method == .GET, request.version == .http1_1,
              !request.headers.contains(name: "origin"), !request.headers.contains(name: "connection"),
              let address = AccountCache.address(inPath: request.uri) else { return nil }
        let hosts = request.headers["host"]
        guard hosts.count <= 1 else { return nil }
        return cache.body(for: address, authority: hosts.first ?? defaultAuthority)
    }

    private func write(_ body: ByteBuffer, context: ChannelHandlerContext) {
        let headers = HTTPHeaders([
            ("Content-Type", contentType), ("Content-Length", String(body.readableBytes)), ("Date", date()), ("Server", serverName),
        ])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// The `Date` header (RFC 9110's IMF-fixdate), made again once a second.
    private func date() -> String {
        var now = time(nil)
        guard Int(now) != dateSecond else { return dateText }
        var parts = tm()
        gmtime_r(&now, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        dateText = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        dateSecond = Int(now)
        return dateText
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
