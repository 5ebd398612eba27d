import Gateway
import GatewayCore
import Hummingbird
import Logging
import NIOCore
import TenderJSON

/// An error of the gateway's API in Stripe's shape (`{"error": {type, code, message, param}}`)
/// with the HTTP status the stripe libraries turn into their exceptions: 400 and 404
/// invalid_request_error, 401 authentication_error, 402 card_error, 403 permission_error,
/// 409 idempotency_error for a key still in use, 500 api_error.
struct StripeError: Error, Sendable {
    enum Kind: String, Sendable {
        case invalidRequest = "invalid_request_error"
        case card = "card_error"
        case authentication = "authentication_error"
        case permission = "permission_error"
        case idempotency = "idempotency_error"
        case api = "api_error"
    }

    var status: HTTPResponse.Status
    var kind: Kind
    var code: String?
    var message: String
    var parameter: String?
    var declineCode: String?
    /// The intent a card error belongs to, rendered whole as Stripe does.
    var paymentIntent: JSONValue?
    var setupIntent: JSONValue?

    static func invalid(_ parameter: String?, _ message: String, code: String = "parameter_invalid") -> StripeError {
        StripeError(status: .badRequest, kind: .invalidRequest, code: code, message: message, parameter: parameter)
    }

    static func missing(_ parameter: String) -> StripeError {
        StripeError(status: .badRequest, kind: .invalidRequest, code: "parameter_missing", message: "Missing required param: \(parameter).", parameter: parameter)
    }

    static func notFound(_ kind: String, _ id: String, parameter: String = "id") -> StripeError {
        StripeError(status: .notFound, kind: .invalidRequest, code: "resource_missing", message: "No such \(kind): '\(id.prefix(100))'", parameter: parameter)
    }

    static func authentication(_ message: String) -> StripeError {
        StripeError(status: .unauthorized, kind: .authentication, code: nil, message: message)
    }

    static func permission(_ message: String) -> StripeError {
        StripeError(status: .forbidden, kind: .permission, code: nil, message: message)
    }

    static func card(_ error: CardCheckError) -> StripeError {
        StripeError(status: .init(code: 402, reasonPhrase: "Payment Required"), kind: .card, code: error.code.rawValue, message: error.message, parameter: error.parameter)
    }

    static func state(_ error: PaymentIntentStateError, intent: JSONValue? = nil) -> StripeError {
        StripeError(status: .badRequest, kind: .invalidRequest, code: error.code.rawValue, message: error.message, parameter: error.parameter, paymentIntent: intent)
    }

    var json: JSONValue {
        var fields: [(String, JSONValue)] = [("type", .string(kind.rawValue)), ("message", .string(message))]
        if let code { fields.append(("code", .string(code))) }
        if let parameter { fields.append(("param", .string(parameter))) }
        if let declineCode { fields.append(("decline_code", .string(declineCode))) }
        if let paymentIntent { fields.append(("payment_intent", paymentIntent)) }
        if let setupIntent { fields.append(("setup_intent", setupIntent)) }
        return .object([("error", .object(fields))])
    }

    var response: Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json.compactBytes())))
    }
}

extension StripeError {
    /// The core's failure in Stripe's shape: the one place a gateway failure gets its HTTP
    /// status and Stripe's error type. `base` is the server's URL, for the intent it carries.
    init(_ failure: GatewayFailure, base: String) {
        let kind: Kind = switch failure.category {
        case .invalidRequest, .notFound, .conflict: .invalidRequest
        case .card: .card
        case .authentication: .authentication
        case .permission: .permission
        case .idempotency, .idempotencyInUse: .idempotency
        case .internal: .api
        }
        self.init(
            status: failure.httpStatus, kind: kind, code: failure.code?.rawValue, message: failure.message, parameter: failure.parameter,
            declineCode: failure.declineCode, paymentIntent: failure.paymentIntent.map { GatewayObjects.paymentIntent($0, base: base) },
            setupIntent: failure.setupIntent.map { GatewayObjects.setupIntent($0, base: base) })
    }
}

/// Failures under `/v1` in Stripe's shape: a ``StripeError`` as it is, Hummingbird's own errors
/// (an unknown route, a body too large) as invalid_request_error, and anything else as a 500
/// api_error.
struct StripeErrorShape: APIErrorShape {
    var area: String { "gateway" }

    func answer(_ error: any Error, to request: Request) -> Response? {
        if let error = error as? StripeError { return error.response }
        if let failure = error as? GatewayFailure, failure.category != .internal { return StripeError(failure, base: request.baseURL).response }
        return nil
    }

    func tooLarge() -> Response {
        StripeError(status: .contentTooLarge, kind: .invalidRequest, code: "request_too_large", message: "The request body is larger than \(GatewayRoutes.maxBodyBytes) bytes.").response
    }

    func notFound(_ request: Request) -> Response {
        StripeError(status: .notFound, kind: .invalidRequest, code: nil, message: "Unrecognized request URL (\(request.method.rawValue): \(request.uri.path.prefix(200))).").response
    }

    func http(_ status: HTTPResponse.Status, _ message: String) -> Response {
        StripeError(status: status, kind: status.code < 500 ? .invalidRequest : .api, code: nil, message: message).response
    }

    func unexpected() -> Response {
        StripeError(status: .internalServerError, kind: .api, code: nil, message: "An error occurred on Tender's side; the request can be retried with the same Idempotency-Key.").response
    }
}

extension GatewayFailure {
    /// The HTTP status every API of the gateway answers this failure with: the one mapping
    /// from the core's categories to HTTP (Stripe's, which Paylike's and the checkout's shapes
    /// share).
    var httpStatus: HTTPResponse.Status {
        switch category {
        case .invalidRequest, .idempotency: .badRequest
        case .notFound: .notFound
        case .conflict, .idempotencyInUse: .conflict
        case .card: .init(code: 402, reasonPhrase: "Payment Required")
        case .authentication: .unauthorized
        case .permission: .forbidden
        case .internal: .internalServerError
        }
    }
}

extension Request {
    /// The server's URL as this request reached it, for the links in answers and events.
    var baseURL: String { "http://\(head.authority ?? "127.0.0.1")" }
}

extension HTTPFields {
    /// A header name of the gateway's (Idempotency-Key, Content-Security-Policy...): literal and
    /// valid, so the force unwrap cannot fail.
    static func headerName(_ name: String) -> HTTPFields.Element.Name {
        HTTPFields.Element.Name(name)!
    }
}
