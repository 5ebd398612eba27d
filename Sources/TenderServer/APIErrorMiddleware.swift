import GatewayCore
import Hummingbird
import Logging
import NIOCore

/// How one API writes its errors: its own error types, and the failures every route can meet
/// (a body too large, an unknown route, Hummingbird's other errors, anything unexpected).
protocol APIErrorShape: Sendable {
    /// What the log line of an unexpected failure names (`gateway`, `paylike`, `checkout`).
    var area: String { get }
    /// The answer for an error the API knows (its own, or another API's it maps), else nil.
    func answer(_ error: any Error, to request: Request) -> Response?
    func tooLarge() -> Response
    func notFound(_ request: Request) -> Response
    func http(_ status: HTTPResponse.Status, _ message: String) -> Response
    func unexpected() -> Response
}

/// Answers every failure under a route group in its API's shape: never a crash, and an
/// unexpected error is logged (its type only) and answered as the API's 500.
struct APIErrorMiddleware<Context: RequestContext, Shape: APIErrorShape>: RouterMiddleware {
    let shape: Shape
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return apiErrorAnswer(error, to: request, in: shape, logger: logger)
        }
    }
}

/// The answer to a failure in an API's shape.
func apiErrorAnswer(_ error: any Error, to request: Request, in shape: some APIErrorShape, logger: Logger) -> Response {
    if let answer = shape.answer(error, to: request) { return answer }
    switch error {
    case is NIOTooManyBytesError:
        return shape.tooLarge()
    case let error as HTTPError where error.status == .notFound:
        return shape.notFound(request)
    case let error as HTTPError:
        return shape.http(error.status, error.body ?? error.status.reasonPhrase)
    default:
        // The type only (a description could carry what the request sent); a core's internal
        // failure names the type of the error underneath.
        let underlying = (error as? GatewayFailure)?.underlying.map { String(reflecting: type(of: $0)) }
        logger.error("\(shape.area) request failed", metadata: ["http.method": "\(request.method.rawValue)", "http.path": "\(request.uri.path)", "error": "\(underlying ?? String(reflecting: type(of: error)))"])
        return shape.unexpected()
    }
}

/// The API whose shape a path's failures take when no route of it answered (an unknown route
/// or method under `/v1`, `/paylike` or `/checkout/v1`): that API's, never Horizon's.
func errorShape(forPath path: String) -> (any APIErrorShape)? {
    func under(_ prefix: String) -> Bool { path == prefix || path.hasPrefix(prefix + "/") }
    if under("/v1") { return StripeErrorShape() }
    if under("/paylike") { return PaylikeErrorShape() }
    if under("/checkout/v1") { return CheckoutErrorShape() }
    return nil
}
