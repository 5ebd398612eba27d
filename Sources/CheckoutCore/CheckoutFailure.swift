import Checkout

/// Why the checkout's core refused or could not finish a request: the only error it throws.
/// A stable code (the checkout API's), a message, and what kind of failure it is; the HTTP
/// status and the wire shape are the edge's (`CheckoutError`). Another user's bid, order or
/// address is `notFound` (nothing disclosed), an action the user may not take on something they
/// can see `forbidden`, a race lost `conflict`. The gateway's own failures pass through as
/// ``GatewayFailure`` (they keep their codes).
package struct CheckoutFailure: Error, Sendable, CustomStringConvertible {
    package enum Category: Sendable, Equatable {
        case invalid, notFound, forbidden, conflict, unauthorized, `internal`
    }

    package var category: Category
    package var code: String
    package var message: String
    package var underlying: (any Error)?

    package init(_ category: Category, code: String, message: String, underlying: (any Error)? = nil) {
        self.category = category
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    package var description: String { "\(code): \(message)" }

    package static func invalid(_ code: String, _ message: String) -> CheckoutFailure { CheckoutFailure(.invalid, code: code, message: message) }
    package static func notFound(_ what: String) -> CheckoutFailure { CheckoutFailure(.notFound, code: "not_found", message: "No such \(what).") }
    package static func forbidden(_ message: String) -> CheckoutFailure { CheckoutFailure(.forbidden, code: "forbidden", message: message) }
    package static func conflict(_ code: String, _ message: String) -> CheckoutFailure { CheckoutFailure(.conflict, code: code, message: message) }
    package static let unauthorized = CheckoutFailure(.unauthorized, code: "unauthorized", message: "Give the user's token (or the marketplace's key) as a Bearer token.")

    package static func state(_ error: CheckoutStateError) -> CheckoutFailure {
        CheckoutFailure(.conflict, code: error.code, message: error.message)
    }

    package static func totals(_ error: TotalsError) -> CheckoutFailure {
        switch error {
        case .pickupNotOffered: .invalid("pickup_not_offered", "The seller does not offer pickup.")
        case .methodNotOffered(let name): .invalid("delivery_not_offered", "The seller does not offer \(name.prefix(40)) delivery.")
        case .countryNotServed(let method, let country): .invalid("country_not_served", "\(method.prefix(40)) delivery does not go to \(country.prefix(2)).")
        case .addressNeeded: .invalid("address_needed", "Delivery needs an address.")
        case .amountTooLarge: .invalid("amount_too_large", "The total would be more than 99,999,999 minor units.")
        }
    }
}
