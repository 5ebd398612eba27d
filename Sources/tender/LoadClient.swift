import NIOCore
import NIOHTTP1
import NIOPosix

/// A minimal HTTP/1.1 keep-alive connection for load generation: one request in flight at a
/// time, as a browser or SDK connection behaves.
final class LoadConnection: @unchecked Sendable {
    private let channel: any Channel
    private let handler: ResponseCollector
    private let host: String

    private init(channel: any Channel, handler: ResponseCollector, host: String) {
        self.channel = channel
        self.handler = handler
        self.host = host
    }

    static func connect(host: String, port: Int, group: any EventLoopGroup) async throws -> LoadConnection {
        let handler = ResponseCollector()
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: host, port: port).get()
        return LoadConnection(channel: channel, handler: handler, host: "\(host):\(port)")
    }

    /// Sends a request and returns the status and body of its answer.
    func send(_ method: HTTPMethod, _ path: String, form: String? = nil, headers: [(String, String)] = []) async throws -> (status: Int, body: String) {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: host)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        var body: ByteBuffer?
        if let form {
            let buffer = channel.allocator.buffer(string: form)
            head.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            head.headers.add(name: "Content-Length", value: String(buffer.readableBytes))
            body = buffer
        }
        let promise = channel.eventLoop.makePromise(of: (Int, String).self)
        channel.eventLoop.execute { [channel, handler] in
            handler.expect(promise)
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        }
        let (status, text) = try await promise.futureResult.get()
        return (status, text)
    }

    func close() async {
        try? await channel.close()
    }
}

/// Gathers one response at a time and completes the waiting promise with it.
private final class ResponseCollector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    private var promise: EventLoopPromise<(Int, String)>?
    private var status = 0
    private var body = ""

    func expect(_ promise: EventLoopPromise<(Int, String)>) {
        self.promise = promise
        status = 0
        body = ""
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = Int(head.status.code)
        case .body(let buffer): body += String(buffer: buffer)
        case .end:
            promise?.succeed((status, body))
            promise = nil
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise?.fail(error)
        promise = nil
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(ChannelError.ioOnClosedChannel)
        promise = nil
    }
}

/// Sends a fixed list of requests over one connection, one at a time, entirely on the
/// connection's event loop: each answer's end sends the next request at once, with no task
/// switch, so the load generator spends as little of the machine as it can.
final class RequestStream: ChannelDuplexHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Never
    typealias OutboundOut = HTTPClientRequestPart

    struct Outcome: Sendable {
        var latenciesMS: [Double] = []
        var statuses: [Int: Int] = [:]
    }

    private let requests: [(HTTPRequestHead, ByteBuffer)]
    private var next = 0
    private var status = 0
    private var sentAt: NIODeadline = .now()
    private var outcome = Outcome()
    private let done: EventLoopPromise<Outcome>
    private let start: EventLoopFuture<Void>

    /// `requests` go out, in order, once `start` succeeds.
    init(requests: [(HTTPRequestHead, ByteBuffer)], start: EventLoopFuture<Void>, done: EventLoopPromise<Outcome>) {
        self.requests = requests
        self.start = start
        self.done = done
        outcome.latenciesMS.reserveCapacity(requests.count)
    }

    func channelActive(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        start.hop(to: context.eventLoop).whenSuccess { [self] in sendNext(loopBound.value) }
        context.fireChannelActive()
    }

    private func sendNext(_ context: ChannelHandlerContext) {
        guard next < requests.count else {
            done.succeed(outcome)
            context.close(promise: nil)
            return
        }
        sentAt = .now()
        let (head, body) = requests[next]
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        next += 1
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = Int(head.status.code)
        case .body: break
        case .end:
            outcome.latenciesMS.append(Double((NIODeadline.now() - sentAt).nanoseconds) / 1_000_000)
            outcome.statuses[status, default: 0] += 1
            sendNext(context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if next < requests.count { done.fail(ChannelError.ioOnClosedChannel) }
    }

    /// Connects and returns the stream's outcome once every request is answered.
    static func run(host: String, port: Int, requests: [(HTTPRequestHead, ByteBuffer)], start: EventLoopFuture<Void>, group: any EventLoopGroup) async throws -> EventLoopFuture<Outcome> {
        let loop = group.next()
        let done = loop.makePromise(of: Outcome.self)
        _ = try await ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(RequestStream(requests: requests, start: start, done: done))
                }
            }
            .connect(host: host, port: port).get()
        return done.futureResult
    }

    /// What a measured run gave: its duration from the first request out, every latency
    /// (sorted) and the count of each status.
    struct Measurement {
        let elapsedSeconds: Double
        let latenciesMS: [Double]
        let statuses: [Int: Int]

        /// The latency below which a fraction `p` of the answers came.
        func percentile(_ p: Double) -> Double {
            latenciesMS.isEmpty ? 0 : latenciesMS[min(latenciesMS.count - 1, Int(Double(latenciesMS.count) * p))]
        }
    }

    /// Opens one connection per element of `work` first, then starts the clock and sends each
    /// connection's requests in order, one in flight on each.
    static func measure(host: String, port: Int, work: [[(HTTPRequestHead, ByteBuffer)]], group: any EventLoopGroup) async throws -> Measurement {
        let starter = group.next().makePromise(of: Void.self)
        var streams: [EventLoopFuture<Outcome>] = []
        for requests in work {
            streams.append(try await run(host: host, port: port, requests: requests, start: starter.futureResult, group: group))
        }
        let clock = ContinuousClock()
        let started = clock.now
        starter.succeed()
        var outcomes: [Outcome] = []
        for stream in streams { outcomes.append(try await stream.get()) }
        let elapsed = (clock.now - started) / .seconds(1)
        var statuses: [Int: Int] = [:]
        for outcome in outcomes { statuses.merge(outcome.statuses, uniquingKeysWith: +) }
        return Measurement(elapsedSeconds: elapsed, latenciesMS: outcomes.flatMap(\.latenciesMS).sorted(), statuses: statuses)
    }

    /// A `GET`, ready to send.
    static func get(_ path: String, host: String) -> (HTTPRequestHead, ByteBuffer) {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Host", value: host)
        head.headers.add(name: "Content-Length", value: "0")
        return (head, ByteBuffer())
    }

    /// A `POST` of a form, ready to send.
    static func post(_ path: String, host: String, form: String, headers: [(String, String)] = []) -> (HTTPRequestHead, ByteBuffer) {
        let body = ByteBuffer(string: form)
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
        head.headers.add(name: "Host", value: host)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        head.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        head.headers.add(name: "Content-Length", value: String(body.readableBytes))
        return (head, body)
    }
}
