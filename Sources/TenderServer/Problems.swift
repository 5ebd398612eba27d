import GatewayCore
import Hummingbird
import LedgerService
import Logging
import StellarBase
import TenderJSON

// The server's error model, in one place: every answer that is not a success is one of these
// problems, in Horizon's `application/problem+json` shape, whatever threw it.

/// Horizon's problem+json errors. `extras` is omitted rather than null (the Python SDK needs that).
struct Problem: Sendable {
    let type: String
    let title: String
    let status: Int
    let detail: String
    let extras: [(String, JSONValue)]?

    static func badRequest(_ detail: String, field: String) -> Problem {
        Problem(type: "https://stellar.org/horizon-errors/bad_request", title: "Bad Request", status: 400, detail: detail,
                extras: [("invalid_field", .string(field)), ("reason", .string(detail))])
    }

    /// A 400 that names no field: the request as a whole asks too much (a path search over its bounds).
    static func badRequest(_ detail: String) -> Problem {
        Problem(type: "https://stellar.org/horizon-errors/bad_request", title: "Bad Request", status: 400, detail: detail,
                extras: [("reason", .string(detail))])
    }

    static func transactionMalformed(_ envelope: String, detail: String) -> Problem {
        Problem(type: "https://stellar.org/horizon-errors/transaction_malformed", title: "Transaction Malformed", status: 400,
                detail: "Horizon could not decode the transaction envelope in this request: \(detail)",
                extras: [("envelope_xdr", .string(envelope))])
    }

    static func transactionFailed(envelope: String, result: TransactionResult) -> Problem {
        Problem(type: "https://stellar.org/horizon-errors/transaction_failed", title: "Transaction Failed", status: 400,
                detail: "The transaction failed when submitted to the stellar network. The `extras.result_codes` field on this response contains further details.",
                extras: [
                    ("envelope_xdr", .string(envelope)),
                    ("result_xdr", .string(result.xdrBase64)),
                    ("result_codes", resultCodes(result)),
                ])
    }

    /// `{"transaction": "tx_failed", "operations": [...]}`, the operations only when there are results.
    static func resultCodes(_ result: TransactionResult) -> JSONValue {
        var codes: [(String, JSONValue)] = [("transaction", .string(result.code.name))]
        if let operations = result.outcome.operationResults { codes.append(("operations", .array(operations.map { .string($0.name) }))) }
        return .object(codes)
    }

    static let notFound = Problem(
        type: "https://stellar.org/horizon-errors/not_found", title: "Resource Missing", status: 404,
        detail: "The resource at the url requested was not found.  This usually occurs for one of two reasons:  The url requested is not valid, or no data in our database could be found with the parameters provided.",
        extras: nil)

    static let methodNotAllowed = Problem(
        type: "https://stellar.org/horizon-errors/method_not_allowed", title: "Method Not Allowed", status: 405,
        detail: "This endpoint does not support the request method you used.", extras: nil)

    static let serverError = Problem(
        type: "https://stellar.org/horizon-errors/server_error", title: "Internal Server Error", status: 500,
        detail: "An error occurred while processing this request; it is logged on the server.", extras: nil)

    /// The writer has stopped (a failed commit): the process is about to exit and be restarted.
    static let unavailable = Problem(
        type: "https://stellar.org/horizon-errors/server_error", title: "Internal Server Error", status: 500,
        detail: "The ledger writer has stopped; the server is shutting down to restart from its last durable ledger.", extras: nil)

    /// Path finding is over its rate (`--max-path-finding-requests`), as Horizon answers it.
    static let serverOverCapacity = Problem(
        type: "https://stellar.org/horizon-errors/server_over_capacity", title: "Server Over Capacity", status: 503,
        detail: "This horizon server is currently overloaded.  Please wait for several minutes before trying your request again.",
        extras: nil)

    /// A cluster's follower could not reach a leader for a request it forwards.
    static func leaderUnavailable(_ detail: String) -> Problem {
        Problem(type: "https://stellar.org/horizon-errors/stale_history", title: "Leader Unavailable", status: 503, detail: detail,
                extras: [("reason", .string(detail))])
    }

    static func timeout(hash: String) -> Problem {
        Problem(type: "https://stellar.org/horizon-errors/transaction_submission_timeout", title: "Transaction Submission Timeout", status: 504,
                detail: "Your transaction submission request has timed out. It may still be applied; look it up by extras.hash.",
                extras: [("hash", .string(hash))])
    }

    var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string(type)), ("title", .string(title)), ("status", .number(Int64(status))), ("detail", .string(detail)),
        ]
        if let extras { fields.append(("extras", .object(extras))) }
        return .object(fields)
    }

    static let contentType = "application/problem+json; charset=utf-8"

    func response() -> Response {
        Response(
            status: .init(code: status), headers: [.contentType: Self.contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: json.compactBytes())))
    }

    /// The problem to answer for any error a handler threw: its own problem, Hummingbird's
    /// refusals mapped to Horizon's, and anything else a 500 that is logged with the request.
    static func answering(_ error: any Error, to request: Request, logger: Logger) -> Problem {
        answering(error, method: request.method.rawValue, path: request.uri.path, logger: logger)
    }

    /// ``answering(_:to:logger:)`` for a request answered before it became a `Request` (in the pipeline).
    static func answering(_ error: any Error, method: String, path: String, logger: Logger) -> Problem {
        switch error {
        case let error as ProblemError:
            return error.problem
        case let error as FundingError where error.code == .busy:
            return Problem(
                type: "https://stellar.org/horizon-errors/service_unavailable", title: "Service Unavailable", status: 503,
                detail: error.message, extras: nil)
        case let error as LedgerWriterError:
            logger.error("submission refused by the ledger writer", metadata: ["http.path": "\(path)", "error": "\(error)"])
            return .unavailable
        case let error as HTTPError:
            switch error.status {
            case .notFound: return .notFound
            case .methodNotAllowed: return .methodNotAllowed
            case _ where error.status.code >= 500:
                break
            default:
                return Problem(
                    type: "https://stellar.org/horizon-errors/bad_request", title: "Bad Request", status: 400,
                    detail: error.body ?? "The request you sent was invalid in some way.", extras: nil)
            }
        default:
            break
        }
        logger.error("request failed", metadata: [
            "http.method": "\(method)", "http.path": "\(path)", "error": "\(String(reflecting: error))",
        ])
        return .serverError
    }
}

/// A request's problem, answered as Horizon's problem+json.
struct ProblemError: Error {
    let problem: Problem
    init(_ problem: Problem) { self.problem = problem }

    static func invalid(_ field: String, _ detail: String) -> ProblemError { ProblemError(.badRequest(detail, field: field)) }
}

/// Answers whatever a route or the router throws as Horizon's problem+json: unknown routes, wrong
/// methods, a request's problem, and any other failure as a logged 500 (never Hummingbird's bare
/// one).
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            if let shape = errorShape(forPath: request.uri.path) { return apiErrorAnswer(error, to: request, in: shape, logger: logger) }
            return Problem.answering(error, to: request, logger: logger).response()
        }
    }
}
