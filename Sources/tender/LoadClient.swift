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
/// switch, so the load generator spends as little of the machine as it can. Each request is
/// its bytes, made before the clock starts, written as one buffer; an answer is read from the
/// connection's bytes with no HTTP decoder (``ResponseFraming``: its status and where it ends).
/// The load generator shares the server's two cores: with NIO's HTTP/1 encoder and decoder
/// (their parts and header lists) it spent about 24 µs a payment of `tender bench submit`,
/// about 10 µs more than it does reading bytes, a tenth of a core at ten thousand a second
/// taken from the server it measures (issue 30).
final class RequestStream: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Outcome: Sendable {
        var latenciesMS: [Double] = []
        var statuses: [Int: Int] = [:]
    }

    private let requests: [ByteBuffer]
    private var next = 0
    /// What has arrived of the answer awaited.
    private var received: ByteBuffer?
    private var sentAt: NIODeadline = .now()
    private var outcome = Outcome()
    private let done: EventLoopPromise<Outcome>
    private let start: EventLoopFuture<Void>

    /// `requests` (each a whole request's bytes) go out, in order, once `start` succeeds.
    init(requests: [ByteBuffer], start: EventLoopFuture<Void>, done: EventLoopPromise<Outcome>) {
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
        context.writeAndFlush(wrapOutboundOut(requests[next]), promise: nil)
        next += 1
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if received == nil { received = bytes } else { received!.writeBuffer(&bytes) }
        do {
            guard let answer = try ResponseFraming.response(in: received!) else { return }
            // One request is in flight: nothing may follow its answer.
            guard answer.length == received!.readableBytes else { throw ResponseFraming.Malformed(reason: "bytes after an answer") }
            received = nil
            outcome.latenciesMS.append(Double((NIODeadline.now() - sentAt).nanoseconds) / 1_000_000)
            outcome.statuses[answer.status, default: 0] += 1
            sendNext(context)
        } catch {
            errorCaught(context: context, error: error)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if next < requests.count || received != nil { done.fail(ChannelError.ioOnClosedChannel) }
    }

    /// Connects and returns the stream's outcome once every request is answered.
    static func run(host: String, port: Int, requests: [ByteBuffer], start: EventLoopFuture<Void>, group: any EventLoopGroup) async throws -> EventLoopFuture<Outcome> {
        let loop = group.next()
        let done = loop.makePromise(of: Outcome.self)
        _ = try await ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
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
    static func measure(host: String, port: Int, work: [[ByteBuffer]], group: any EventLoopGroup) async throws -> Measurement {
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

    /// A `GET`'s bytes, ready to send.
    static func get(_ path: String, host: String) -> ByteBuffer {
        ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Length: 0\r\n\r\n")
    }

    /// A `POST` of a form, its bytes ready to send.
    static func post(_ path: String, host: String, form: String, headers: [(String, String)] = []) -> ByteBuffer {
        var head = "POST \(path) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n\r\n"
        return ByteBuffer(string: head + form)
    }
}

/// Where an HTTP/1.1 answer at the start of a connection's bytes ends, and its status: the
/// load generator's reading of answers, which need no more of them. An answer's body is framed
/// by its `Content-Length` (every answer Tender writes has one); one framed otherwise (chunked,
/// or until the connection closes) is refused rather than misread.
enum ResponseFraming {
    struct Malformed: Error, CustomStringConvertible {
        let reason: String
        var description: String { "not an answer the load generator reads: \(reason)" }
    }

    /// The status and the whole length (head and body) of the answer `buffer` starts with, or
    /// nil while its head or body has not all arrived. Reads the bytes where they are, with no
    /// copy: the load generator runs on the cores it measures.
    static func response(in buffer: ByteBuffer) throws -> (status: Int, length: Int)? {
        try buffer.withUnsafeReadableBytes { bytes -> (status: Int, length: Int)? in
            // The end (CR) of the line starting at `start`; nil until it has arrived.
            func lineEnd(from start: Int) throws -> Int? {
                var index = start
                while index + 1 < bytes.count {
                    if bytes[index] == 13, bytes[index + 1] == 10 { return index }
                    index += 1
                }
                if bytes.count > headLimit { throw Malformed(reason: "no end of the head in \(headLimit) bytes") }
                return nil
            }
            // Whether the line from `start` to `colon` names `name` (lowercase), in any case.
            func names(_ name: [UInt8], _ start: Int, _ colon: Int) -> Bool {
                colon - start == name.count && name.indices.allSatisfy { bytes[start + $0] | 0x20 == name[$0] }
            }
            guard let statusEnd = try lineEnd(from: 0) else { return nil }
            guard statusEnd >= 12, bytes.starts(with: statusPrefix), (9...11).allSatisfy({ (48...57).contains(bytes[$0]) }),
                  statusEnd == 12 || bytes[12] == 32 else {
                throw Malformed(reason: "no HTTP/1.1 status line")
            }
            let status = (9...11).reduce(0) { $0 * 10 + Int(bytes[$1] - 48) }
            var length: Int?
            var start = statusEnd + 2
            while true {
                guard let end = try lineEnd(from: start) else { return nil }
                if end == start { break }
                guard let colon = (start..<end).first(where: { bytes[$0] == 58 }) else { throw Malformed(reason: "a header line without a colon") }
                if names(transferEncoding, start, colon) { throw Malformed(reason: "Transfer-Encoding") }
                if names(contentLength, start, colon) {
                    // Digits between optional spaces or tabs.
                    var first = colon + 1, last = end
                    while first < last, bytes[first] == 32 || bytes[first] == 9 { first += 1 }
                    while last > first, bytes[last - 1] == 32 || bytes[last - 1] == 9 { last -= 1 }
                    guard last > first, last - first <= 12, (first..<last).allSatisfy({ (48...57).contains(bytes[$0]) }) else {
                        throw Malformed(reason: "a Content-Length that is not a number")
                    }
                    let value = (first..<last).reduce(0) { $0 * 10 + Int(bytes[$1] - 48) }
                    guard length == nil || length == value else { throw Malformed(reason: "two Content-Lengths") }
                    length = value
                }
                start = end + 2
            }
            let headLength = start + 2
            let body = length ?? ((100...199).contains(status) || status == 204 || status == 304 ? 0 : nil)
            guard let body else { throw Malformed(reason: "an answer without Content-Length") }
            return bytes.count >= headLength + body ? (status, headLength + body) : nil
        }
    }

    private static let headLimit = 16 * 1024
    private static let statusPrefix = Array("HTTP/1.1 ".utf8)
    private static let contentLength = Array("content-length".utf8)
    private static let transferEncoding = Array("transfer-encoding".utf8)
}
