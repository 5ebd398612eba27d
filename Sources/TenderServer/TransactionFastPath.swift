import Foundation
import LedgerService
import Logging
import NIOCore
import NIOHTTP1

/// Answers `POST /transactions` in the channel pipeline, right after HTTP/1's request decoder
/// (as ``AccountFastPath`` answers accounts), with the route's own answer
/// (``TransactionRoutes/answer(body:contentType:resources:)``): the body is gathered here, the
/// submission runs in a task of its own, and the answer is written back on the connection's
/// event loop.
///
/// Through the application, each submission crossed Hummingbird's conversion of the request
/// into swift-http-types, its request body stream, the router and its middleware, and its
/// response writer: about a tenth of the server's time per payment (issue 30, `perf` of
/// `tender bench submit`). Everything else passes through untouched: any other method or path,
/// a query string, multipart bodies, an `Expect` header, what no fast path answers
/// (``HTTPRequestHead/fastPathAuthority(default:)``), and any request while an earlier one on
/// the connection is still being answered by the application. Requests that arrive while a
/// submission here is being answered wait, in order, and the connection reads no more until
/// it is written (answers keep the order of requests).
final class TransactionFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What answers: the route's answer to a body and its content type, for requests made to
    /// an authority (any error already answered as the application answers it), and the metrics.
    struct Submission: Sendable {
        let answer: @Sendable (_ body: ByteBuffer?, _ contentType: String?, _ authority: String) async -> TransactionRoutes.Answer
        let metrics: ServerMetrics

        init(metrics: ServerMetrics, answer: @escaping @Sendable (ByteBuffer?, String?, String) async -> TransactionRoutes.Answer) {
            (self.metrics, self.answer) = (metrics, answer)
        }

        /// `routes`' answers, linked with `resources` for the request's authority.
        init(routes: TransactionRoutes, resources: @escaping @Sendable (String) -> HorizonResources, metrics: ServerMetrics, logger: Logger) {
            self.init(metrics: metrics) { body, contentType, authority in
                do {
                    return try await routes.answer(body: body, contentType: contentType, resources: resources(authority))
                } catch {
                    return TransactionRoutes.Answer(Problem.answering(error, method: "POST", path: TransactionFastPath.route, logger: logger))
                }
            }
        }
    }

    /// The route's name in the metrics, as the router names it.
    static let route = "/transactions"

    private enum State {
        case idle
        /// A submission's head was taken here: its body, nil once past the limit.
        case gathering(authority: String, contentType: String?, body: ByteBuffer?, started: ContinuousClock.Instant)
        /// Its answer is being made.
        case answering
    }

    private let submission: Submission
    private let defaultAuthority: String
    private var state = State.idle
    /// Requests passed on whose answer has not been written to its end.
    private var passedOn = 0
    /// Parts that arrived while a submission was answered here, in order.
    private var waiting: [NIOAny] = []
    /// A read asked for while answering, to ask for once the answer is written.
    private var readHeld = false
    private var answers: EarlyAnswers

    init(submission: Submission, serverName: String, defaultAuthority: String) {
        self.submission = submission
        answers = EarlyAnswers(serverName: serverName)
        self.defaultAuthority = defaultAuthority
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .answering = state {
            waiting.append(data)
            return
        }
        take(data, context: context)
    }

    private func take(_ data: NIOAny, context: ChannelHandlerContext) {
        let part = unwrapInboundIn(data)
        switch (state, part) {
        case (.idle, .head(let head)):
            if passedOn == 0, let authority = authority(ifTaken: head) {
                state = .gathering(authority: authority, contentType: head.headers.first(name: "content-type"), body: ByteBuffer(), started: .now)
                return
            }
            passedOn += 1
            context.fireChannelRead(data)
        case (.gathering(let authority, let contentType, var body, let started), .body(var chunk)):
            state = .answering  // the body is held here alone while it grows
            if let held = body, held.readableBytes + chunk.readableBytes <= TransactionRoutes.maxBodyBytes {
                if held.readableBytes == 0 { body = chunk } else { body!.writeBuffer(&chunk) }
            } else {
                body = nil
            }
            state = .gathering(authority: authority, contentType: contentType, body: body, started: started)
        case (.gathering(let authority, let contentType, let body, let started), .end):
            state = .answering
            answer(authority: authority, contentType: contentType, body: body, started: started, context: context)
        default:
            // The rest of a request passed on.
            context.fireChannelRead(data)
        }
    }

    /// The authority to link answers to, when `head` is a submission this path answers.
    private func authority(ifTaken head: HTTPRequestHead) -> String? {
        guard head.method == .POST, head.uri == Self.route, !head.headers.contains(name: "expect"),
              head.headers.first(name: "content-type")?.lowercased().hasPrefix("multipart/") != true else { return nil }
        return head.fastPathAuthority(default: defaultAuthority)
    }

    private func answer(authority: String, contentType: String?, body: ByteBuffer?, started: ContinuousClock.Instant, context: ChannelHandlerContext) {
        let submission = self.submission
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        Task {
            let answer = await submission.answer(body, contentType, authority)
            bound.eventLoop.execute {
                bound.value.handler.write(answer, started: started, context: bound.value.context)
            }
        }
    }

    private func write(_ answer: TransactionRoutes.Answer, started: ContinuousClock.Instant, context: ChannelHandlerContext) {
        answers.write(HTTPResponseStatus(statusCode: answer.status), contentType: answer.contentType, body: answer.body, context: context)
        submission.metrics.transactionAnsweredEarly(status: answer.status, duration: ContinuousClock.now - started)
        state = .idle
        // What arrived meanwhile, in order, until one of it is a submission answered here again;
        // what goes on is followed by a read-complete, as if just read (the application's
        // channel hands reads on only then).
        let replaying = !waiting.isEmpty
        defer { if replaying { context.fireChannelReadComplete() } }
        while !waiting.isEmpty {
            if case .answering = state { return }
            take(waiting.removeFirst(), context: context)
        }
        if case .answering = state { return }
        if readHeld {
            readHeld = false
            context.read()
        }
    }

    func read(context: ChannelHandlerContext) {
        if case .answering = state {
            readHeld = true
            return
        }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }
}

extension HTTPRequestHead {
    /// The authority a fast path links its answer to (the `Host`, or `defaultAuthority`
    /// without one), when the request is one a fast path may answer at all: HTTP/1.1, no
    /// `Origin` (a browser's request needs CORS headers), no `Connection` header but
    /// `keep-alive` (HTTP/1.1's default, which Python's `requests` and Node's agents send with
    /// every request: anything else, `close` or an upgrade, needs connection handling), at most
    /// one `Host`. Otherwise nil: the application's.
    func fastPathAuthority(default defaultAuthority: String) -> String? {
        guard version == .http1_1, !headers.contains(name: "origin"),
              headers[canonicalForm: "connection"].allSatisfy({ $0.lowercased() == "keep-alive" }) else { return nil }
        let hosts = headers["host"]
        guard hosts.count <= 1 else { return nil }
        return hosts.first ?? defaultAuthority
    }
}

/// The answers a connection's fast path writes itself, with the headers the application
/// gives them: `Content-Type`, `Content-Length`, `Date` (RFC 9110's IMF-fixdate, made again
/// once a second) and `Server`.
struct EarlyAnswers {
    let serverName: String
    private var second = -1
    private var dateText = ""

    init(serverName: String) {
        self.serverName = serverName
    }

    /// Writes the head, the body and the end, and flushes.
    mutating func write(_ status: HTTPResponseStatus, contentType: String, body: ByteBuffer, context: ChannelHandlerContext) {
        let headers = HTTPHeaders([
            ("Content-Type", contentType), ("Content-Length", String(body.readableBytes)), ("Date", date()), ("Server", serverName),
        ])
        context.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
    }

    /// Appends the bytes NIO's response encoder writes for ``write(_:contentType:body:context:)``'s
    /// head, for a body of `contentLength` bytes, to `buffer`: the answer's body follows them.
    mutating func writeHead(_ status: HTTPResponseStatus, contentType: String, contentLength: Int, to buffer: inout ByteBuffer) {
        buffer.writeStaticString("HTTP/1.1 ")
        buffer.writeString(String(status.code))
        buffer.writeStaticString(" ")
        buffer.writeString(status.reasonPhrase)
        buffer.writeStaticString("\r\nContent-Type: ")
        buffer.writeString(contentType)
        buffer.writeStaticString("\r\nContent-Length: ")
        buffer.writeString(String(contentLength))
        buffer.writeStaticString("\r\nDate: ")
        buffer.writeString(date())
        buffer.writeStaticString("\r\nServer: ")
        buffer.writeString(serverName)
        buffer.writeStaticString("\r\n\r\n")
    }

    private mutating func date() -> String {
        var now = time(nil)
        guard Int(now) != second else { return dateText }
        var parts = tm()
        gmtime_r(&now, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        dateText = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        second = Int(now)
        return dateText
    }
}
