import Checkout
import Foundation
import GatewayCore
import Hummingbird
import Logging
import NIOCore
import TenderJSON

/// An error of the checkout API: `{"error": {"code", "message"}}` with its status. Another
/// user's bid, order or address is 404 (nothing disclosed), an action the user may not take on
/// something they can see 403, a race lost 409.
struct CheckoutError: Error, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String

    static func invalid(_ code: String, _ message: String) -> CheckoutError { CheckoutError(status: .badRequest, code: code, message: message) }
    static func notFound(_ what: String) -> CheckoutError { CheckoutError(status: .notFound, code: "not_found", message: "No such \(what).") }
    static func forbidden(_ message: String) -> CheckoutError { CheckoutError(status: .forbidden, code: "forbidden", message: message) }
    static func conflict(_ code: String, _ message: String) -> CheckoutError { CheckoutError(status: .conflict, code: code, message: message) }
    static let unauthorized = CheckoutError(status: .unauthorized, code: "unauthorized", message: "Give the user's token (or the marketplace's key) as a Bearer token.")

    static func state(_ error: CheckoutStateError) -> CheckoutError {
        CheckoutError(status: .conflict, code: error.code, message: error.message)
    }

    static func totals(_ error: TotalsError) -> CheckoutError {
        switch error {
        case .pickupNotOffered: .invalid("pickup_not_offered", "The seller does not offer pickup.")
        case .methodNotOffered(let name): .invalid("delivery_not_offered", "The seller does not offer \(name.prefix(40)) delivery.")
        case .countryNotServed(let method, let country): .invalid("country_not_served", "\(method.prefix(40)) delivery does not go to \(country.prefix(2)).")
        case .addressNeeded: .invalid("address_needed", "Delivery needs an address.")
        case .amountTooLarge: .invalid("amount_too_large", "The total would be more than 99,999,999 minor units.")
        }
    }

    var response: Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let body: JSONValue = .object([("error", .object([("code", .string(code)), ("message", .string(message))]))])
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.compactBytes())))
    }
}

extension CheckoutError {
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
        if let error = error as? StripeError { return CheckoutError(status: error.status, code: error.code ?? "invalid_request", message: error.message).response }
        if let failure = error as? GatewayFailure, failure.category != .internal { return CheckoutError(failure).response }
        return nil
    }

    func tooLarge() -> Response { CheckoutError(status: .contentTooLarge, code: "request_too_large", message: "The body is too large.").response }
    func notFound(_ request: Request) -> Response { CheckoutError.notFound("route").response }
    func http(_ status: HTTPResponse.Status, _ message: String) -> Response { CheckoutError(status: status, code: "invalid_request", message: message).response }
    func unexpected() -> Response { CheckoutError(status: .internalServerError, code: "internal_error", message: "An error occurred on Tender's side.").response }
}
