import Crypto
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import Logging
import NIOCore
import StellarBase
import TenderJSON

/// An error in Paylike's shape, `{code, message, errors}`, with its HTTP status.
struct PaylikeProblem: Error, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var errors: [String] = []

    init(_ code: PaylikeCode, _ message: String, errors: [String] = []) {
        status = .init(code: code.httpStatus)
        self.code = code.rawValue
        self.message = message
        self.errors = errors
    }

    init(status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The gateway core's failure in Paylike's shape: a code of Paylike's own (a refused
    /// payment) with its status, any other with the core's status and its code in capitals.
    init(_ failure: GatewayFailure) {
        if let code = failure.code.flatMap({ PaylikeCode(rawValue: $0.rawValue) }) {
            self.init(code, failure.message)
        } else {
            self.init(status: failure.httpStatus, code: (failure.code?.rawValue ?? PaylikeCode.requestInvalid.rawValue).uppercased(), message: failure.message)
        }
    }

    static func invalid(_ field: String, _ message: String) -> PaylikeProblem {
        PaylikeProblem(.requestInvalid, message, errors: [field])
    }

    var response: Response {
        let json: JSONValue = .object([("code", .string(code)), ("message", .string(message)), ("errors", .array(errors.map(JSONValue.string)))])
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json.compactBytes())))
    }
}

/// Failures under `/paylike` in Paylike's shape: an unknown path is ENDPOINT_NOT_FOUND, a body
/// too large BODY_INVALID, the gateway's own refusals keep their status and code, anything else
/// is INTERNAL_ERROR.
struct PaylikeErrorShape: APIErrorShape {
    var area: String { "paylike" }

    func answer(_ error: any Error, to request: Request) -> Response? {
        if let problem = error as? PaylikeProblem { return problem.response }
        if let error = error as? StripeError {
            return PaylikeProblem(status: error.status, code: (error.code ?? "REQUEST_INVALID").uppercased(), message: error.message).response
        }
        if let failure = error as? GatewayFailure, failure.category != .internal { return PaylikeProblem(failure).response }
        return nil
    }

    func tooLarge() -> Response { PaylikeProblem(.bodyInvalid, "The body is larger than \(PaylikeRoutes.maxBodyBytes) bytes.").response }

    func notFound(_ request: Request) -> Response {
        PaylikeProblem(.endpointNotFound, "No such endpoint: \(request.method.rawValue) \(request.uri.path.prefix(200)).").response
    }

    func http(_ status: HTTPResponse.Status, _ message: String) -> Response {
        PaylikeProblem(status: status, code: PaylikeCode.requestInvalid.rawValue, message: message).response
    }

    func unexpected() -> Response { PaylikeProblem(.internalError, "An error occurred on Tender's side; the same request can be sent again.").response }
}
