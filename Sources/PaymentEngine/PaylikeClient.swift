import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where Paylike's protocol is served: Paylike's own hosts, or Tender's one base URL
/// (`/paylike` for payments, `/paylike/vault` for the vault).
public struct PaylikeHosts: Sendable, Equatable {
    public var payments: URL
    public var vault: URL

    public init(payments: URL, vault: URL) {
        self.payments = payments
        self.vault = vault
    }

    public static let paylike = PaylikeHosts(payments: URL(string: "https://b.paylike.io")!, vault: URL(string: "https://vault.paylike.io")!)

    /// A `tender serve` at `base` (http://127.0.0.1:8000).
    public static func tender(_ base: URL) -> PaylikeHosts {
        PaylikeHosts(payments: base.appendingPathComponent("paylike"), vault: base.appendingPathComponent("paylike/vault"))
    }
}

/// How the client reaches the hosts: JSON posts, and the form posts that load a frame. A
/// protocol so an app (or a test) can put its own HTTP layer in, as Paylike's client allows.
public protocol PaylikeTransport: Sendable {
    func postJSON(_ url: URL, body: Data, headers: [String: String]) async throws -> (status: Int, body: Data)
    func postForm(_ url: URL, fields: [(String, String)]) async throws -> (status: Int, body: Data)
}

/// The transport over URLSession (FoundationNetworking on Linux).
public struct URLSessionPaylikeTransport: PaylikeTransport {
    let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func postJSON(_ url: URL, body: Data, headers: [String: String]) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await send(request)
    }

    public func postForm(_ url: URL, fields: [(String, String)]) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        request.httpBody = Data(fields.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&").utf8)
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> (status: Int, body: Data) {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error { continuation.resume(throwing: error); return }
                continuation.resume(returning: ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()))
            }.resume()
        }
    }
}

/// Paylike's `test` object (test mode only): what the test acquirer should do.
public struct PaymentTest: Codable, Sendable, Equatable {
    public struct Money: Codable, Sendable, Equatable {
        public var currency: String
        public var exponent: Int
        public var value: Int64
        public init(_ amount: PaymentAmount) {
            currency = amount.currency
            exponent = amount.exponent
            value = amount.value
        }
    }

    public struct Card: Codable, Sendable, Equatable {
        public var scheme: String?
        public var code: String?
        public var status: String?
        public var limit: Money?
        public var balance: Money?
        public init(scheme: String? = nil, code: String? = nil, status: String? = nil, limit: Money? = nil, balance: Money? = nil) {
            self.scheme = scheme
            self.code = code
            self.status = status
            self.limit = limit
            self.balance = balance
        }
    }

    public struct TDS: Codable, Sendable, Equatable {
        public var fingerprint: String?
        public var challenge: Bool?
        public var status: String?
        public init(fingerprint: String? = nil, challenge: Bool? = nil, status: String? = nil) {
            self.fingerprint = fingerprint
            self.challenge = challenge
            self.status = status
        }
    }

    public var card: Card?
    public var fingerprint: String?
    public var tds: TDS?

    public init(card: Card? = nil, fingerprint: String? = nil, tds: TDS? = nil) {
        self.card = card
        self.fingerprint = fingerprint
        self.tds = tds
    }
}

/// What `POST /payments` carries.
public struct PaylikePaymentBody: Encodable, Sendable, Equatable {
    struct Integration: Encodable, Sendable, Equatable { var key: String }
    struct Token: Encodable, Sendable, Equatable { var token: String }
    struct Expiry: Encodable, Sendable, Equatable { var month: Int; var year: Int }
    struct Card: Encodable, Sendable, Equatable { var number: Token; var code: Token; var expiry: Expiry }
    struct Amount: Encodable, Sendable, Equatable { var currency: String; var exponent: Int; var value: Int64 }

    var integration: Integration
    var amount: Amount?
    var card: Card
    var test: PaymentTest?
    var text: String?
    var custom: CustomData?
    var hints: [String]

    public init(key: String, amount: PaymentAmount?, card: CardTokens, test: PaymentTest?, text: String?, custom: CustomData? = nil, hints: [String]) {
        integration = Integration(key: key)
        self.amount = amount.map { Amount(currency: $0.currency, exponent: $0.exponent, value: $0.value) }
        self.card = Card(number: Token(token: card.number), code: Token(token: card.code), expiry: Expiry(month: card.expiryMonth, year: card.expiryYear))
        self.test = test
        self.text = text
        self.custom = custom
        self.hints = hints
    }
}

/// Paylike's client protocol: the vault, and the `/payments` loop through challenges and hints
/// until a frame must be shown or the payment is done.
public struct PaylikeClient: Sendable {
    public let hosts: PaylikeHosts
    public let transport: any PaylikeTransport
    /// Sent as `X-Client`, as Paylike's clients identify themselves.
    public var clientName = "swift-1-tender"
    /// The most calls one step may make before it gives up (a server going in circles).
    public static let maxCalls = 32

    public init(hosts: PaylikeHosts, transport: any PaylikeTransport = URLSessionPaylikeTransport()) {
        self.hosts = hosts
        self.transport = transport
    }

    var headers: [String: String] { ["Accept-Version": "1", "X-Client": clientName, "Content-Type": "application/json"] }

    /// A card number (`pcn`) or security code (`pcsc`) exchanged for a token.
    public func tokenize(_ type: String, _ value: String) async throws(EngineError) -> String {
        struct Request: Encodable { var type: String; var value: String }
        struct Answer: Decodable { var token: String }
        let body = try encode(Request(type: type, value: value))
        let (status, data) = try await post(hosts.vault, body)
        guard status == 200 else { throw Self.problem(status, data) }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data) else { throw .transport("the vault's answer has no token") }
        return answer.token
    }

    /// One step of the payment: `/payments`, its challenges and hints, until a frame (with the
    /// HTML its form post loads) or the authorization.
    public func pay(_ body: PaylikePaymentBody) async throws(EngineError) -> PaymentCallAnswer {
        var body = body
        var url = hosts.payments.appendingPathComponent("payments")
        for _ in 0..<Self.maxCalls {
            let (status, data) = try await post(url, try encode(body))
            guard status == 200 else { throw Self.problem(status, data) }
            guard let answer = try? JSONDecoder().decode(PaymentsAnswer.self, from: data) else { throw .transport("the payment answer cannot be read") }
            for hint in answer.hints ?? [] where !body.hints.contains(hint) { body.hints.append(hint) }
            if let id = answer.authorizationId { return .authorized(id: id, hints: body.hints) }
            if let id = answer.transactionId { return .transaction(id: id, hints: body.hints) }
            if let action = answer.action, let fields = answer.fields {
                guard let target = URL(string: action), target.scheme == "http" || target.scheme == "https" else { throw .unexpectedAnswer("a frame action that is not a URL") }
                let html: (status: Int, body: Data)
                do {
                    html = try await transport.postForm(target, fields: fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
                } catch {
                    throw .transport("\(error)")
                }
                guard html.status == 200 else { throw .transport("the frame's page answered \(html.status)") }
                return .frame(html: String(decoding: html.body, as: UTF8.self), hints: body.hints)
            }
            if let challenges = answer.challenges, !challenges.isEmpty {
                // Paylike's order: a fetch first, then the fingerprint frame, then the first.
                let challenge = challenges.first { $0.type == "fetch" }
                    ?? challenges.first { $0.type == "background-iframe" && $0.name == "tds-fingerprint" }
                    ?? challenges[0]
                url = hosts.payments.appendingPathComponent(challenge.path.hasPrefix("/") ? String(challenge.path.dropFirst()) : challenge.path)
                continue
            }
            guard answer.hints != nil else { throw .unexpectedAnswer("an answer with nothing to do") }
            url = hosts.payments.appendingPathComponent("payments")
        }
        throw .unexpectedAnswer("more than \(Self.maxCalls) calls for one step")
    }

    struct PaymentsAnswer: Decodable {
        struct Challenge: Decodable { var name: String; var type: String; var path: String }
        var challenges: [Challenge]?
        var hints: [String]?
        var action: String?
        var fields: [String: String]?
        var authorizationId: String?
        var transactionId: String?
    }

    private func encode(_ value: some Encodable) throws(EngineError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw .transport("the request cannot be written: \(error)")
        }
    }

    private func post(_ url: URL, _ body: Data) async throws(EngineError) -> (Int, Data) {
        do {
            let answer = try await transport.postJSON(url, body: body, headers: headers)
            return (answer.status, answer.body)
        } catch {
            throw .transport("\(error)")
        }
    }

    /// Paylike's error body, `{code, message, errors}`.
    static func problem(_ status: Int, _ data: Data) -> EngineError {
        struct Problem: Decodable { var code: String?; var message: String? }
        let problem = try? JSONDecoder().decode(Problem.self, from: data)
        return .payment(code: problem?.code ?? "HTTP_\(status)", message: problem?.message ?? "the server answered \(status)")
    }
}
