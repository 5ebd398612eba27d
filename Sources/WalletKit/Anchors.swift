import Anchor
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StellarBase

/// What an anchor's stellar.toml says of its services (SEP-1).
public struct AnchorToml: Sendable, Equatable {
    public var networkPassphrase: String?
    public var webAuthEndpoint: String?
    public var signingKey: String?
    public var kycServer: String?
    public var transferServer: String?
    public var transferServerSEP24: String?
    public var quoteServer: String?
    /// The `[[CURRENCIES]]`: code and issuer.
    public var currencies: [(code: String, issuer: String)]

    public static func == (a: AnchorToml, b: AnchorToml) -> Bool {
        a.networkPassphrase == b.networkPassphrase && a.webAuthEndpoint == b.webAuthEndpoint && a.signingKey == b.signingKey
            && a.kycServer == b.kycServer && a.transferServer == b.transferServer && a.transferServerSEP24 == b.transferServerSEP24
            && a.quoteServer == b.quoteServer && a.currencies.map(\.code) == b.currencies.map(\.code) && a.currencies.map(\.issuer) == b.currencies.map(\.issuer)
    }

    /// Reads the keys a wallet needs from a toml's text: top-level string keys, and each
    /// currency table's `code` and `issuer`.
    public static func parse(_ text: String) -> AnchorToml {
        var toml = AnchorToml(currencies: [])
        var table = ""
        var currency: (code: String?, issuer: String?) = (nil, nil)
        func closeCurrency() {
            if table == "[[CURRENCIES]]", let code = currency.code, let issuer = currency.issuer { toml.currencies.append((code, issuer)) }
            currency = (nil, nil)
        }
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") || line.isEmpty { continue }
            if line.hasPrefix("[") {
                closeCurrency()
                table = line
                continue
            }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            var value = parts[1]
            guard value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 else { continue }
            value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"").replacingOccurrences(of: "\\\\", with: "\\")
            if table == "[[CURRENCIES]]" {
                if parts[0] == "code" { currency.code = value }
                if parts[0] == "issuer" { currency.issuer = value }
                continue
            }
            guard table.isEmpty else { continue }
            switch parts[0] {
            case "NETWORK_PASSPHRASE": toml.networkPassphrase = value
            case "WEB_AUTH_ENDPOINT": toml.webAuthEndpoint = value
            case "SIGNING_KEY": toml.signingKey = value
            case "KYC_SERVER": toml.kycServer = value
            case "TRANSFER_SERVER": toml.transferServer = value
            case "TRANSFER_SERVER_SEP0024": toml.transferServerSEP24 = value
            case "ANCHOR_QUOTE_SERVER": toml.quoteServer = value
            default: break
            }
        }
        closeCurrency()
        return toml
    }
}

/// Why talking to an anchor failed.
public struct AnchorError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The toml cannot be read or lacks the service.
        case serviceMissing = "anchor_service_missing"
        /// The challenge is not one to sign (a rule of SEP-10, or not signed by the toml's key).
        case challengeInvalid = "anchor_challenge_invalid"
        /// The anchor refused the request (its `error`).
        case refused = "anchor_refused"
        /// SEP-6 or SEP-12: the customer must give more information first.
        case customerInfoNeeded = "anchor_customer_info_needed"
        /// The anchor answered something that is not the SEP's shape.
        case invalidAnswer = "anchor_answer_invalid"
    }

    public let code: Code
    public let status: Int?
    public let description: String

    public init(_ code: Code, status: Int? = nil, _ description: String) {
        self.code = code
        self.status = status
        self.description = description
    }
}

/// A transfer as SEP-24 and SEP-6 report it.
public struct AnchorTransaction: Sendable, Equatable, Decodable {
    public let id: String
    public let kind: String
    public let status: String
    public let amountIn: String?
    public let amountOut: String?
    public let amountFee: String?
    public let stellarTransactionID: String?
    public let moreInfoURL: String?
    public let message: String?
    public let withdrawAnchorAccount: String?
    public let withdrawMemo: String?

    enum CodingKeys: String, CodingKey {
        case id, kind, status, message
        case amountIn = "amount_in", amountOut = "amount_out", amountFee = "amount_fee", stellarTransactionID = "stellar_transaction_id"
        case moreInfoURL = "more_info_url", withdrawAnchorAccount = "withdraw_anchor_account", withdrawMemo = "withdraw_memo"
    }

    /// Whether the transfer has ended (completed, error, refunded, expired).
    public var isFinal: Bool { ["completed", "error", "refunded", "expired"].contains(status) }
}

/// A SEP-12 customer's status and the fields still asked for.
public struct AnchorCustomer: Sendable, Equatable {
    public let id: String?
    public let status: String
    public let missingFields: [String]
}

/// A SEP-38 firm quote.
public struct AnchorQuote: Sendable, Equatable, Decodable {
    public let id: String
    public let expiresAt: String
    public let price: String
    public let totalPrice: String
    public let sellAsset: String
    public let sellAmount: String
    public let buyAsset: String
    public let buyAmount: String

    enum CodingKeys: String, CodingKey {
        case id, price
        case expiresAt = "expires_at", totalPrice = "total_price", sellAsset = "sell_asset", sellAmount = "sell_amount", buyAsset = "buy_asset", buyAmount = "buy_amount"
    }
}

/// An anchor's SEPs from the wallet's side, as SwiftBasicPay's transfer screens use them: the
/// toml (SEP-1), sign-in (SEP-10: the challenge checked to be well formed and signed by the
/// toml's SIGNING_KEY before it is signed), KYC (SEP-12), interactive and programmatic
/// transfers (SEP-24, SEP-6) and quotes (SEP-38). Opening an interactive URL is the app's job.
public struct AnchorClient: Sendable {
    public let domain: String
    let transport: any HorizonTransport
    let now: @Sendable () -> UInt64

    public init(domain: String, transport: any HorizonTransport = URLSessionTransport(), now: @escaping @Sendable () -> UInt64 = { UInt64(Date().timeIntervalSince1970) }) {
        self.domain = domain
        self.transport = transport
        self.now = now
    }

    var scheme: String { domain.lowercased().hasPrefix("localhost") || domain.hasPrefix("127.0.0.1") ? "http" : "https" }

    public func toml() async throws -> AnchorToml {
        guard let url = URL(string: "\(scheme)://\(domain)/.well-known/stellar.toml") else { throw AnchorError(.serviceMissing, "\(domain) is not a domain") }
        let (status, body) = try await transport.send(URLRequest(url: url))
        guard status == 200 else { throw AnchorError(.serviceMissing, status: status, "\(domain) serves no stellar.toml (\(status))") }
        return AnchorToml.parse(String(decoding: body, as: UTF8.self))
    }

    // MARK: SEP-10

    /// Signs in as `keyPair`'s account (or `account`, a muxed one of it; with `memo` for one
    /// user of a shared account) and returns the token.
    /// - Throws: ``AnchorError`` `challengeInvalid` when the challenge breaks a rule of SEP-10 or is
    ///   not signed by the toml's key; `refused` when the anchor does not take the signed one.
    public func signIn(_ keyPair: KeyPair, account: String? = nil, memo: UInt64? = nil) async throws -> String {
        let toml = try await toml()
        guard let endpoint = toml.webAuthEndpoint, let signing = toml.signingKey.flatMap({ try? AccountID($0) }),
              let passphrase = toml.networkPassphrase, var components = URLComponents(string: endpoint), let host = components.host else {
            throw AnchorError(.serviceMissing, "\(domain)'s toml names no WEB_AUTH_ENDPOINT, SIGNING_KEY and NETWORK_PASSPHRASE")
        }
        let webAuthDomain = components.port.map { "\(host):\($0)" } ?? host
        let address = account ?? keyPair.accountID.strKey
        components.queryItems = [URLQueryItem(name: "account", value: address), URLQueryItem(name: "home_domain", value: domain)]
            + (memo.map { [URLQueryItem(name: "memo", value: String($0))] } ?? [])
        let answer = try await json(URLRequest(url: components.url!))
        guard let text = answer["transaction"] as? String else { throw AnchorError(.invalidAnswer, "the challenge answer has no transaction") }
        let network = Network(passphrase: passphrase)
        let challenge: WebAuthChallenge
        do {
            challenge = try WebAuth.read(text, server: signing, homeDomains: [domain], webAuthDomain: webAuthDomain, now: now(), network: network)
        } catch {
            throw AnchorError(.challengeInvalid, error.description)
        }
        guard challenge.client.description == address, challenge.memo == memo else {
            throw AnchorError(.challengeInvalid, "the challenge is for \(challenge.subject), not \(address)")
        }
        guard challenge.envelope.signatures.contains(where: { challenge.envelope.isSignature($0, validFor: KeyPair(accountID: signing), on: network) }) else {
            throw AnchorError(.challengeInvalid, "the challenge is not signed by \(domain)'s SIGNING_KEY")
        }
        var envelope = challenge.envelope
        envelope.sign(with: keyPair, on: network)
        var post = URLRequest(url: URL(string: endpoint)!)
        post.httpMethod = "POST"
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        post.httpBody = try JSONSerialization.data(withJSONObject: ["transaction": envelope.xdrBase64])
        guard let token = try await json(post)["token"] as? String else { throw AnchorError(.invalidAnswer, "the sign-in answer has no token") }
        return token
    }

    // MARK: Requests

    func json(_ request: URLRequest, accepting statuses: ClosedRange<Int> = 200...299) async throws -> [String: Any] {
        let (status, body) = try await transport.send(request)
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        guard statuses.contains(status) else {
            throw AnchorError(.refused, status: status, object?["error"] as? String ?? "the anchor answered \(status)")
        }
        guard let object else { throw AnchorError(.invalidAnswer, status: status, "the anchor's answer is not a JSON object") }
        return object
    }

    func request(_ base: String?, _ path: String, token: String?, query: [(String, String)] = [], method: String = "GET", form: [String: String]? = nil) throws -> URLRequest {
        guard let base, var components = URLComponents(string: base + path) else { throw AnchorError(.serviceMissing, "\(domain) offers no such service") }
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let form {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: form)
        }
        return request
    }

    func decode<T: Decodable>(_ type: T.Type, _ object: Any) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: JSONSerialization.data(withJSONObject: object))
        } catch {
            throw AnchorError(.invalidAnswer, "the anchor's answer is not SEP's shape: \(error)")
        }
    }

    // MARK: SEP-12

    public func putCustomer(token: String, fields: [String: String]) async throws -> String {
        let answer = try await json(try request(try await toml().kycServer, "/customer", token: token, method: "PUT", form: fields))
        guard let id = answer["id"] as? String else { throw AnchorError(.invalidAnswer, "the customer answer has no id") }
        return id
    }

    public func customer(token: String) async throws -> AnchorCustomer {
        let answer = try await json(try request(try await toml().kycServer, "/customer", token: token))
        return AnchorCustomer(
            id: answer["id"] as? String, status: answer["status"] as? String ?? "",
            missingFields: ((answer["fields"] as? [String: Any]) ?? [:]).filter { (($0.value as? [String: Any])?["optional"] as? Bool) != true }.keys.sorted())
    }

    // MARK: SEP-24 and SEP-6

    /// SEP-24: starts a deposit or withdrawal; returns its id and the URL the user opens.
    public func interactive(_ kind: String, token: String, assetCode: String, account: String? = nil) async throws -> (id: String, url: String) {
        var form = ["asset_code": assetCode]
        if let account { form["account"] = account }
        let answer = try await json(try request(try await toml().transferServerSEP24, "/transactions/\(kind == "withdraw" ? "withdraw" : "deposit")/interactive", token: token, method: "POST", form: form))
        guard let id = answer["id"] as? String, let url = answer["url"] as? String else { throw AnchorError(.invalidAnswer, "no interactive url") }
        return (id, url)
    }

    /// SEP-6: a deposit of `amount`; returns its id and where to pay.
    public func deposit(token: String, assetCode: String, amount: String, account: String? = nil) async throws -> (id: String, paymentURL: String) {
        var query = [("asset_code", assetCode), ("amount", amount)]
        if let account { query.append(("account", account)) }
        let answer = try await sep6("/deposit", token: token, query: query)
        guard let id = answer["id"] as? String, let url = ((answer["instructions"] as? [String: Any])?["payment_url"] as? [String: Any])?["value"] as? String else {
            throw AnchorError(.invalidAnswer, "the deposit answer has no id and payment_url")
        }
        return (id, url)
    }

    /// SEP-6: a withdrawal of `amount`; returns its id and where to send the asset, with which memo.
    public func withdraw(token: String, assetCode: String, amount: String) async throws -> (id: String, account: String, memo: UInt64) {
        let answer = try await sep6("/withdraw", token: token, query: [("asset_code", assetCode), ("type", "bank_account"), ("amount", amount)])
        guard let id = answer["id"] as? String, let account = answer["account_id"] as? String, let memo = (answer["memo"] as? String).flatMap(UInt64.init) else {
            throw AnchorError(.invalidAnswer, "the withdrawal answer has no id, account_id and id memo")
        }
        return (id, account, memo)
    }

    func sep6(_ path: String, token: String, query: [(String, String)]) async throws -> [String: Any] {
        let (status, body) = try await transport.send(try request(try await toml().transferServer, path, token: token, query: query))
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        if status == 403, let type = object["type"] as? String {
            let detail = type == "non_interactive_customer_info_needed"
                ? "the anchor needs \(((object["fields"] as? [String]) ?? []).joined(separator: ", ")) first (SEP-12)"
                : "the customer's information is \(object["status"] as? String ?? "not accepted")"
            throw AnchorError(.customerInfoNeeded, status: status, detail)
        }
        guard (200...299).contains(status) else { throw AnchorError(.refused, status: status, object["error"] as? String ?? "the anchor answered \(status)") }
        return object
    }

    public func transaction(token: String, id: String) async throws -> AnchorTransaction {
        let answer = try await json(try request(try await toml().transferServerSEP24, "/transaction", token: token, query: [("id", id)]))
        guard let record = answer["transaction"] else { throw AnchorError(.invalidAnswer, "no transaction") }
        return try decode(AnchorTransaction.self, record)
    }

    public func transactions(token: String, assetCode: String) async throws -> [AnchorTransaction] {
        let answer = try await json(try request(try await toml().transferServerSEP24, "/transactions", token: token, query: [("asset_code", assetCode)]))
        return try decode([AnchorTransaction].self, answer["transactions"] ?? [])
    }

    /// Follows a transfer until it ends: each status it passes through, once, every `interval`
    /// of `clock` (no more than `limit` reads).
    public func follow(token: String, id: String, interval: Duration = .seconds(1), clock: any Clock<Duration> = ContinuousClock(), limit: Int = 3_600) -> AsyncThrowingStream<AnchorTransaction, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var last: String?
                do {
                    for _ in 0..<limit {
                        let record = try await transaction(token: token, id: id)
                        if record.status != last {
                            continuation.yield(record)
                            last = record.status
                        }
                        if record.isFinal { break }
                        try await clock.sleep(for: interval)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: SEP-38

    /// An indicative price (SEP-38 `GET /price`): what `sellAmount` of `sell` buys of `buy`.
    public func price(sell: String, buy: String, sellAmount: String) async throws -> (price: String, buyAmount: String, fee: String) {
        let answer = try await json(try request(try await toml().quoteServer, "/price", token: nil, query: [
            ("sell_asset", sell), ("buy_asset", buy), ("sell_amount", sellAmount), ("context", "sep6"),
        ]))
        guard let price = answer["price"] as? String, let bought = answer["buy_amount"] as? String,
              let fee = (answer["fee"] as? [String: Any])?["total"] as? String else { throw AnchorError(.invalidAnswer, "the price answer lacks price, buy_amount or fee") }
        return (price, bought, fee)
    }

    /// What `sellAmount` of `sell` buys of each asset traded for it (SEP-38 `GET /prices`).
    public func prices(sell: String, sellAmount: String) async throws -> [(asset: String, price: String)] {
        let answer = try await json(try request(try await toml().quoteServer, "/prices", token: nil, query: [("sell_asset", sell), ("sell_amount", sellAmount)]))
        return ((answer["buy_assets"] as? [[String: Any]]) ?? []).compactMap { entry in
            guard let asset = entry["asset"] as? String, let price = entry["price"] as? String else { return nil }
            return (asset, price)
        }
    }

    public func quote(token: String, sell: String, buy: String, sellAmount: String? = nil, buyAmount: String? = nil) async throws -> AnchorQuote {
        var form = ["sell_asset": sell, "buy_asset": buy, "context": "sep6"]
        if let sellAmount { form["sell_amount"] = sellAmount }
        if let buyAmount { form["buy_amount"] = buyAmount }
        return try decode(AnchorQuote.self, try await json(try request(try await toml().quoteServer, "/quote", token: token, method: "POST", form: form)))
    }
}
