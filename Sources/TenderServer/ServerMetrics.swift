import Hummingbird
import LedgerService
import Ledger
import Metrics
import Prometheus
import TenderJSON

/// The server's metrics, in a Prometheus registry of its own (each application, and each test,
/// has its own): HTTP requests by route, method and status with their latency, open streams,
/// and the ledger writer's figures (``LedgerWriterMetrics``). `GET /metrics` prints them in
/// Prometheus' text format.
struct ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    let writer: LedgerWriterMetrics
    /// Streams of server-sent events open now.
    let openStreams: Meter
    /// `GET /accounts/{account}` answered 200 before the router (from the account cache or the
    /// writer's memory), made once (the hottest read would otherwise look its metrics up by name
    /// at every answer).
    private let earlyAccountCount: Metrics.Counter
    private let earlyAccountTime: Metrics.Timer
    /// `POST /transactions` answered before the router (``TransactionFastPath``) with its usual
    /// statuses (200, 400, 504), made once.
    private let earlySubmissions: [Int: (count: Metrics.Counter, time: Metrics.Timer)]

    init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Request latencies from 100 µs to 10 s; ledger closes and commits are far below a second.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2.5), .seconds(10),
        ]
        self.factory = factory
        writer = LedgerWriterMetrics(factory: factory)
        openStreams = Meter(label: "tender_streams_open", factory: factory)
        let dimensions = Self.dimensions(route: AccountCache.route, method: .get, status: 200)
        earlyAccountCount = Counter(label: "tender_http_requests_total", dimensions: dimensions, factory: factory)
        earlyAccountTime = Timer(label: "tender_http_request_duration_seconds", dimensions: dimensions, factory: factory)
        earlySubmissions = Dictionary(uniqueKeysWithValues: [200, 400, 504].map { status in
            let dimensions = Self.dimensions(route: TransactionFastPath.route, method: .post, status: status)
            return (status, (
                Counter(label: "tender_http_requests_total", dimensions: dimensions, factory: factory),
                Timer(label: "tender_http_request_duration_seconds", dimensions: dimensions, factory: factory)))
        })
    }

    private static func dimensions(route: String, method: HTTPRequest.Method, status: Int) -> [(String, String)] {
        [("route", route), ("method", method.rawValue), ("status", String(status))]
    }

    /// ``record(route:method:status:duration:)`` for an account answered before the router.
    func accountAnsweredEarly(duration: Duration) {
        earlyAccountCount.increment()
        earlyAccountTime.record(duration: duration)
    }

    /// ``record(route:method:status:duration:)`` for a submission answered before the router.
    func transactionAnsweredEarly(status: Int, duration: Duration) {
        guard let metrics = earlySubmissions[status] else {
            return record(route: TransactionFastPath.route, method: .post, status: status, duration: duration)
        }
        metrics.count.increment()
        metrics.time.record(duration: duration)
    }

    /// Counts one answered request and records how long it took.
    func record(route: String, method: HTTPRequest.Method, status: Int, duration: Duration) {
        let dimensions = Self.dimensions(route: route, method: method, status: status)
        Counter(label: "tender_http_requests_total", dimensions: dimensions, factory: factory).increment()
        Timer(label: "tender_http_request_duration_seconds", dimensions: dimensions, factory: factory)
            .record(duration: duration)
    }

    /// `GET /metrics` (Prometheus' text format) and `GET /health` (200 when the ledger writer runs
    /// and the store answers, 503 otherwise: a supervisor's probe, not a Horizon route).
    func register(on router: Router<BasicRequestContext>, commits: LedgerCommits, reader: any LedgerReader) {
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        router.get("/health") { _, _ in
            var problems: [String] = []
            if !commits.isWriterRunning { problems.append("the ledger writer is not running") }
            var stored: UInt32?
            var connected = true
            do {
                stored = try await reader.latestLedgerSequence()
            } catch {
                connected = false
                problems.append("the store does not answer: \(error)")
            }
            // Horizon's three fields first (its own `/health`), then Tender's detail.
            let fields: [(String, JSONValue)] = [
                ("database_connected", .bool(connected)),
                ("core_up", .bool(commits.isWriterRunning)),
                ("core_synced", .bool(commits.isWriterRunning && connected)),
                ("status", .string(problems.isEmpty ? "ok" : "unavailable")),
                ("ledger", .number(Int64(commits.latest))),
                ("stored_ledger", stored.map { .number(Int64($0)) } ?? .null),
                ("problems", .array(problems.map { .string($0) })),
            ]
            return Response(
                status: problems.isEmpty ? .ok : .serviceUnavailable, headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONValue.object(fields).compactBytes())))
        }
    }
}

/// Records every request the router answers in ``ServerMetrics``, by the route that matched
/// (`NotFound` when none did). It sits outside ``ProblemMiddleware``, which turns every error
/// into an answer, so it sees every answer.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        metrics.record(route: context.endpointPath ?? "NotFound", method: request.method, status: response.status.code, duration: ContinuousClock.now - started)
        return response
    }
}
