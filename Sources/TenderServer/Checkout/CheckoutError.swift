import Checkout
import CheckoutCore
import Foundation
import GatewayCore
import Hummingbird
import Logging
import NIOCore
import TenderJSON

/// An error of the checkout API: `{"error": {"code", "message"}}` with its status, made from
/// the core's ``CheckoutFailure`` (another user's bid, order or address 404, an action the user
/// may not take on something they can see 403, a race lost 409) or the gateway's failure.
struct CheckoutError: Error, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String

    static func notFound(_ what: String) -> CheckoutError { CheckoutError(CheckoutFailure.notFound(what)) }
    static let unauthorized = CheckoutError(CheckoutFailure.unauthorized)

    var response: Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let body: JSONValue = .object([("error", .object([("code", .string(code)), ("message", .string(message))]))])
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.compactBytes())))
    }
}

extension CheckoutError {
    /// The checkout core's failure in the API's shape: the one place its categories get HTTP
    /// statuses.
    init(_ failure: CheckoutFailure) {
        let status: HTTPResponse.Status = switch failure.category {
        case .invalid: .badRequest
        case .notFound: .notFound
        case .forbidden: .forbidden
        case .conflict: .conflict
        case .unauthorized: .unauthorized
        case .internal: .internalServerError
        }
        self.init(status: status, code: failure.code, message: failure.message)
    }

    /// The gateway core's failure in the checkout's shape.
    init(_ failure: GatewayFailure) {
        self.init(status: failure.httpStatus, code: failure.code?.rawValue ?? "invalid_request", message: failure.message)
    }
}

/// Failures under `/checkout/v1` and `/shop` in the checkout's shape.
struct CheckoutErrorShape: APIErrorShape {
    var area: String { "checkout" }

    func answer(_ error: any Error, to request: Request) -> Response? {
        if let error = error as? CheckoutError { return error.response }
        if let failure = error as? CheckoutFailure, failure.category != .internal { return CheckoutError(failure).response }
        if let error = error as? StripeError { return CheckoutError(status: error.status, code: error.code ?? "invalid_request", message: error.message).response }
        if let failure = error as? GatewayFailure, failure.category != .internal { return CheckoutError(failure).response }
        return nil
    }

    func tooLarge() -> Response { CheckoutError(status: .contentTooLarge, code: "request_too_large", message: "The body is too large.").response }
    func notFound(_ request: Request) -> Response { CheckoutError.notFound("route").response }
    func http(_ status: HTTPResponse.Status, _ message: String) -> Response { CheckoutError(status: status, code: "invalid_request", message: message).response }
    func unexpected() -> Response { CheckoutError(status: .internalServerError, code: "internal_error", message: "An error occurred on Tender's side.").response }
}
