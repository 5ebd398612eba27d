import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the client reaches `tender serve`: a protocol so an app (or a test) can put its own HTTP
/// layer in, as WalletKit's and PaymentEngine's clients allow.
public protocol CheckoutTransport: Sendable {
    func send(_ method: String, _ url: URL, body: Data?, token: String) async throws -> (status: Int, body: Data)
}

/// The transport over URLSession (FoundationNetworking on Linux).
public struct URLSessionCheckoutTransport: CheckoutTransport {
    let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func send(_ method: String, _ url: URL, body: Data?, token: String) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error { continuation.resume(throwing: error); return }
                continuation.resume(returning: ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()))
            }.resume()
        }
    }
}

/// An error of the checkout API (its stable code and message), or of the way there.
public enum CheckoutClientError: Error, Equatable, Sendable {
    case api(status: Int, code: String, message: String)
    case transport(String)
}

// MARK: The API's objects

public struct CheckoutAddress: Codable, Equatable, Sendable {
    public let id: String
    public let name: String
    public let line1: String
    public let postal_code: String
    public let city: String
    public let country: String
}

public struct CheckoutUser: Codable, Equatable, Sendable {
    public let id: String
    public let name: String
    public let business: Bool
    public let addresses: [CheckoutAddress]
    public let customer: String
}

public struct CheckoutDeliveryMethod: Codable, Equatable, Sendable {
    public let name: String
    public let costs: [String: Int64]
}

public struct CheckoutListing: Codable, Equatable, Sendable {
    public let id: String
    public let seller: String
    public let title: String
    public let price: Int64
    public let currency: String
    public let buy_now: Bool
    public let pickup: Bool
    public let delivery: [CheckoutDeliveryMethod]
    public let status: String
}

public struct CheckoutBid: Codable, Equatable, Sendable {
    public let id: String
    public let listing: String
    public let buyer: String
    public let amount: Int64
    public let buy_now: Bool
    public let status: String
    public let order: String?
}

public struct CheckoutLine: Codable, Equatable, Sendable {
    public let kind: String
    public let amount: Int64
}

public struct CheckoutTotals: Codable, Equatable, Sendable {
    public let delivery: String
    public let address: String?
    public let payment_method: String
    public let lines: [CheckoutLine]
    public let total: Int64
}

public struct CheckoutOrder: Codable, Equatable, Sendable {
    public let id: String
    public let bid: String
    public let status: String
    public let payable: Bool
    public let payment_method: String
    public let total: Int64
    public let held_in_escrow: Int64
}

/// The buyer's choices on the payment screen.
public struct CheckoutChoices: Equatable, Sendable {
    /// `pickup` or a delivery method's name.
    public var delivery: String?
    public var address: String?
    /// `card`, `ideal` or `bancontact`.
    public var paymentMethod: String

    public init(delivery: String? = nil, address: String? = nil, paymentMethod: String = "ideal") {
        self.delivery = delivery
        self.address = address
        self.paymentMethod = paymentMethod
    }
}

/// What paying answered: the order, and the page to send the buyer to (3-D Secure or the bank),
/// or the card's refusal.
public struct CheckoutPayment: Equatable, Sendable {
    public let order: CheckoutOrder
    public let redirect: URL?
    public let error: String?
}

/// The API's error body, `{"error": {code, message}}`.
struct APIProblem: Decodable {
    struct Inner: Decodable { let code: String; let message: String }
    let error: Inner
}

/// The checkout API for a marketplace's app, as one user (their token).
public struct CheckoutClient: Sendable {
    public let base: URL
    public let token: String
    public let transport: any CheckoutTransport

    public init(base: URL, token: String, transport: any CheckoutTransport = URLSessionCheckoutTransport()) {
        self.base = base
        self.token = token
        self.transport = transport
    }

    func call<Answer: Decodable>(_ method: String, _ path: String, _ body: [String: Any]? = nil, as type: Answer.Type) async throws(CheckoutClientError) -> Answer {
        let url = base.appendingPathComponent("checkout/v1").appendingPathComponent(path)
        let data: Data?
        do {
            data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        } catch {
            throw .transport("the request cannot be written")
        }
        let answer: (status: Int, body: Data)
        do {
            answer = try await transport.send(method, url, body: data, token: token)
        } catch {
            throw .transport("\(error)")
        }
        guard (200..<300).contains(answer.status) else {
            let problem = try? JSONDecoder().decode(APIProblem.self, from: answer.body)
            throw .api(status: answer.status, code: problem?.error.code ?? "http_\(answer.status)", message: problem?.error.message ?? "")
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: answer.body)
        } catch {
            throw .transport("the answer cannot be read: \(error)")
        }
    }

    static func body(_ bid: String, _ choices: CheckoutChoices) -> [String: Any] {
        var body: [String: Any] = ["bid": bid, "payment_method": choices.paymentMethod]
        if let delivery = choices.delivery { body["delivery"] = delivery }
        if let address = choices.address { body["address"] = address }
        return body
    }

    public func me() async throws(CheckoutClientError) -> CheckoutUser { try await call("GET", "me", as: CheckoutUser.self) }
    public func listing(_ id: String) async throws(CheckoutClientError) -> CheckoutListing { try await call("GET", "listings/\(id)", as: CheckoutListing.self) }
    public func bid(_ id: String) async throws(CheckoutClientError) -> CheckoutBid { try await call("GET", "bids/\(id)", as: CheckoutBid.self) }
    public func order(_ id: String) async throws(CheckoutClientError) -> CheckoutOrder { try await call("GET", "orders/\(id)", as: CheckoutOrder.self) }
    public func buyNow(_ listing: String) async throws(CheckoutClientError) -> CheckoutBid { try await call("POST", "listings/\(listing)/buy", as: CheckoutBid.self) }
    public func withdraw(_ bid: String) async throws(CheckoutClientError) -> CheckoutBid { try await call("POST", "bids/\(bid)/withdraw", as: CheckoutBid.self) }

    public func listings() async throws(CheckoutClientError) -> [CheckoutListing] {
        struct Page: Decodable { let data: [CheckoutListing] }
        return try await call("GET", "listings", as: Page.self).data
    }

    public func bid(on listing: String, amount: Int64) async throws(CheckoutClientError) -> CheckoutBid {
        try await call("POST", "listings/\(listing)/bids", ["amount": amount], as: CheckoutBid.self)
    }

    public func accept(_ bid: String) async throws(CheckoutClientError) -> CheckoutBid { try await call("POST", "bids/\(bid)/accept", as: CheckoutBid.self) }
    public func reject(_ bid: String) async throws(CheckoutClientError) -> CheckoutBid { try await call("POST", "bids/\(bid)/reject", as: CheckoutBid.self) }
    public func ship(_ order: String) async throws(CheckoutClientError) -> CheckoutOrder { try await call("POST", "orders/\(order)/ship", as: CheckoutOrder.self) }
    public func confirmReceipt(_ order: String) async throws(CheckoutClientError) -> CheckoutOrder { try await call("POST", "orders/\(order)/confirm", as: CheckoutOrder.self) }
    public func cancel(_ order: String) async throws(CheckoutClientError) -> CheckoutOrder { try await call("POST", "orders/\(order)/cancel", as: CheckoutOrder.self) }

    public func totals(_ bid: String, _ choices: CheckoutChoices) async throws(CheckoutClientError) -> CheckoutTotals {
        try await call("POST", "totals", Self.body(bid, choices), as: CheckoutTotals.self)
    }

    public func createOrder(_ bid: String, _ choices: CheckoutChoices) async throws(CheckoutClientError) -> CheckoutOrder {
        try await call("POST", "orders", Self.body(bid, choices), as: CheckoutOrder.self)
    }

    public func pay(_ order: String, paymentMethod: String, card: String?, returnURL: URL) async throws(CheckoutClientError) -> CheckoutPayment {
        struct Answer: Decodable {
            struct Next: Decodable { let url: String }
            let order: CheckoutOrder
            let next_action: Next?
            let payment_error: String?
        }
        var body: [String: Any] = ["payment_method": paymentMethod, "return_url": returnURL.absoluteString]
        if let card { body["card"] = card }
        let answer = try await call("POST", "orders/\(order)/pay", body, as: Answer.self)
        return CheckoutPayment(order: answer.order, redirect: answer.next_action.flatMap { URL(string: $0.url) }, error: answer.payment_error)
    }
}
