import Foundation
import StellarBase
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the client reaches Horizon: one request, one answer. ``URLSessionTransport`` is the real
/// one; tests and apps can put anything behind it.
public protocol HorizonTransport: Sendable {
    /// Sends a request and returns the status code and body of the answer.
    func send(_ request: URLRequest) async throws -> (status: Int, body: Data)

    /// Opens a long-lived request (a server-sent event stream) and yields the body in chunks as
    /// they arrive, until the server closes it or the consumer stops iterating.
    /// - Throws: ``HorizonProblem`` for an answer that is not 2xx.
    func stream(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error>
}

/// Horizon over URLSession (FoundationNetworking on Linux).
public struct URLSessionTransport: HorizonTransport {
    let session: URLSession

    public init(session: URLSession = .shared) { self.session = session }

    /// A cancelled caller still waits for the answer: FoundationNetworking's async
    /// `data(for:)` can deadlock when a task is cancelled while its answer is being delivered
    /// (the cancellation holds the task's lock and waits for the session's queue, which waits
    /// for that lock to resume the task), so the request goes through a completion handler.
    public func send(_ request: URLRequest) async throws -> (status: Int, body: Data) {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()))
                }
            }.resume()
        }
    }
}

/// A Horizon error answer (problem+json), with the result codes of a failed transaction.
public struct HorizonProblem: Error, Sendable, CustomStringConvertible {
    public let status: Int
    /// The last part of the problem type: `not_found`, `bad_request`, `transaction_failed`...
    public let type: String
    public let title: String
    public let detail: String
    public let invalidField: String?
    public let transactionCode: String?
    public let operationCodes: [String]
    public let resultXDR: String?

    public var description: String {
        if let transactionCode {
            return "\(title): \(([transactionCode] + operationCodes).joined(separator: ", "))"
        }
        return detail.isEmpty ? title : detail
    }

    /// The problem a Horizon answer with `status` and a problem+json `body` describes (a body
    /// that is not problem+json gives `http_STATUS`).
    public init(status: Int, body: Data) {
        self.status = status
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        type = (object["type"] as? String).map { String($0.split(separator: "/").last ?? "") } ?? "http_\(status)"
        title = object["title"] as? String ?? "HTTP \(status)"
        detail = object["detail"] as? String ?? ""
        let extras = object["extras"] as? [String: Any] ?? [:]
        invalidField = extras["invalid_field"] as? String
        let codes = extras["result_codes"] as? [String: Any] ?? [:]
        transactionCode = codes["transaction"] as? String
        operationCodes = codes["operations"] as? [String] ?? []
        resultXDR = extras["result_xdr"] as? String
    }
}

/// One balance of an account.
public struct HorizonBalance: Decodable, Sendable, Equatable {
    public let balance: String
    public let limit: String?
    public let assetType: String
    public let assetCode: String?
    public let assetIssuer: String?
    public let buyingLiabilities: String?
    public let sellingLiabilities: String?

    /// The balance's asset.
    public var asset: Asset? {
        if assetType == "native" { return .native }
        guard let code = assetCode, let issuer = assetIssuer.flatMap({ try? AccountID($0) }) else { return nil }
        return try? Asset(code: code, issuer: issuer)
    }
}

/// An account as `GET /accounts/{id}` shows it.
public struct HorizonAccount: Decodable, Sendable {
    public struct Signer: Decodable, Sendable, Equatable {
        public let key: String
        public let weight: Int
        public let type: String
    }

    public let accountId: String
    /// The sequence number (a string in JSON, parsed).
    public let sequence: Int64
    public let subentryCount: Int
    public let balances: [HorizonBalance]
    public let signers: [Signer]
    public let data: [String: String]
    public let homeDomain: String?

    enum CodingKeys: String, CodingKey {
        case accountId, sequence, subentryCount, balances, signers, data, homeDomain
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accountId = try container.decode(String.self, forKey: .accountId)
        let sequenceText = try container.decode(String.self, forKey: .sequence)
        guard let sequence = Int64(sequenceText) else {
            throw DecodingError.dataCorruptedError(forKey: .sequence, in: container, debugDescription: "not a sequence number: \(sequenceText)")
        }
        self.sequence = sequence
        subentryCount = try container.decode(Int.self, forKey: .subentryCount)
        balances = try container.decode([HorizonBalance].self, forKey: .balances)
        signers = try container.decode([Signer].self, forKey: .signers)
        data = try container.decodeIfPresent([String: String].self, forKey: .data) ?? [:]
        homeDomain = try container.decodeIfPresent(String.self, forKey: .homeDomain)
    }

    /// The balance of `asset` in stroops, or nil when the account does not hold it.
    public func balance(of asset: Asset) -> Int64? {
        balances.first { $0.asset == asset }.flatMap { try? Amount.parse($0.balance) }
    }
}

/// A payment-like operation: create_account, payment, both path payments or account_merge.
public struct HorizonPayment: Decodable, Sendable {
    public let id: String
    public let pagingToken: String
    public let type: String
    public let createdAt: String
    public let transactionHash: String
    public let transactionSuccessful: Bool
    public let sourceAccount: String
    // payment and path payments
    public let from: String?
    public let to: String?
    public let amount: String?
    public let assetType: String?
    public let assetCode: String?
    public let assetIssuer: String?
    public let sourceAmount: String?
    public let sourceAssetType: String?
    public let sourceAssetCode: String?
    public let sourceAssetIssuer: String?
    // create_account
    public let funder: String?
    public let account: String?
    public let startingBalance: String?
    // account_merge
    public let into: String?
}

/// A page of a collection and where the next one starts.
public struct HorizonPage<Record: Decodable & Sendable>: Sendable {
    public let records: [Record]
    /// The cursor of the last record, for the following page.
    public let nextCursor: String?
}

/// A payment path as Horizon's path finding returns it.
public struct HorizonPath: Decodable, Sendable {
    public struct PathAsset: Decodable, Sendable {
        public let assetType: String
        public let assetCode: String?
        public let assetIssuer: String?
    }

    public let sourceAssetType: String
    public let sourceAssetCode: String?
    public let sourceAssetIssuer: String?
    public let sourceAmount: String
    public let destinationAssetType: String
    public let destinationAssetCode: String?
    public let destinationAssetIssuer: String?
    public let destinationAmount: String
    public let path: [PathAsset]

    static func asset(_ type: String, _ code: String?, _ issuer: String?) -> Asset? {
        if type == "native" { return .native }
        guard let code, let issuer = issuer.flatMap({ try? AccountID($0) }) else { return nil }
        return try? Asset(code: code, issuer: issuer)
    }

    public var sourceAsset: Asset? { Self.asset(sourceAssetType, sourceAssetCode, sourceAssetIssuer) }
    public var destinationAsset: Asset? { Self.asset(destinationAssetType, destinationAssetCode, destinationAssetIssuer) }
    public var intermediateAssets: [Asset] { path.compactMap { Self.asset($0.assetType, $0.assetCode, $0.assetIssuer) } }
}

/// A submitted, successful transaction.
public struct HorizonSubmission: Decodable, Sendable {
    public let hash: String
    public let ledger: Int
    public let successful: Bool
}

/// A typed client of Horizon's API: Tender's or any real Horizon.
public struct HorizonClient: Sendable {
    public let baseURL: URL
    let transport: any HorizonTransport

    public init(baseURL: URL, transport: any HorizonTransport = URLSessionTransport()) {
        self.baseURL = baseURL
        self.transport = transport
    }

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    private func url(_ path: String, _ query: [(String, String)] = []) -> URL {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        return components.url!
    }

    /// GETs `path` and decodes the answer.
    /// - Throws: ``HorizonProblem`` for an error answer; a decoding error for a body that is not the resource.
    func get<T: Decodable>(_ type: T.Type, _ path: String, _ query: [(String, String)] = []) async throws -> T {
        var request = URLRequest(url: url(path, query))
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (status, body) = try await transport.send(request)
        guard (200..<300).contains(status) else { throw HorizonProblem(status: status, body: body) }
        return try Self.decoder.decode(T.self, from: body)
    }

    /// The network passphrase the server reports.
    public func networkPassphrase() async throws -> String {
        struct Root: Decodable { let networkPassphrase: String }
        return try await get(Root.self, "/").networkPassphrase
    }

    /// The account, or nil when it does not exist (404).
    public func account(_ id: String) async throws -> HorizonAccount? {
        do {
            return try await get(HorizonAccount.self, "/accounts/\(id)")
        } catch let problem as HorizonProblem where problem.status == 404 {
            return nil
        }
    }

    /// An account's payments, newest first by default.
    public func payments(for account: String, limit: Int = 10, descending: Bool = true, cursor: String? = nil) async throws -> HorizonPage<HorizonPayment> {
        var query = [("limit", String(limit)), ("order", descending ? "desc" : "asc")]
        if let cursor { query.append(("cursor", cursor)) }
        struct Embedded: Decodable { let records: [HorizonPayment] }
        struct Page: Decodable { let _embedded: Embedded }
        let page = try await get(Page.self, "/accounts/\(account)/payments", query)
        return HorizonPage(records: page._embedded.records, nextCursor: page._embedded.records.last?.pagingToken)
    }

    /// How a stream reconnects: after the server closes it, after the delay the server asked
    /// for; after a failed connection, after twice the previous delay, giving up after
    /// `attempts` failures in a row.
    public struct Reconnection: Sendable {
        public var attempts: Int
        public var firstDelay: Duration
        public var longestDelay: Duration

        public init(attempts: Int = 5, firstDelay: Duration = .milliseconds(500), longestDelay: Duration = .seconds(8)) {
            self.attempts = attempts
            self.firstDelay = firstDelay
            self.longestDelay = longestDelay
        }
    }

    /// An account's payments as they happen, oldest first, from `cursor` (`now`: only new ones),
    /// over Horizon's server-sent events. The stream reconnects from the last payment it
    /// delivered, so none is lost or repeated, and runs until the consumer stops iterating.
    /// - Throws: ``HorizonProblem`` when Horizon refuses the stream; the connection's error after
    ///   `reconnection.attempts` failed connections in a row.
    public func paymentStream(for account: String, cursor: String = "now", reconnection: Reconnection = Reconnection()) -> AsyncThrowingStream<HorizonPayment, any Error> {
        let transport = self.transport
        let base = url("/accounts/\(account)/payments")
        return AsyncThrowingStream { continuation in
            let task = Task {
                var cursor = cursor
                var failures = 0
                var retry = Duration.seconds(1)
                while !Task.isCancelled {
                    var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
                    components.queryItems = [URLQueryItem(name: "cursor", value: cursor)]
                    var request = URLRequest(url: components.url!)
                    request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
                    var parser = ServerSentEventParser()
                    do {
                        for try await chunk in transport.stream(request) {
                            failures = 0
                            for event in parser.feed(chunk) {
                                if let milliseconds = event.retry { retry = .milliseconds(milliseconds) }
                                // The hello and byebye events carry a JSON string, records an object.
                                guard event.id != nil, event.data.hasPrefix("{") else { continue }
                                let payment = try Self.decoder.decode(HorizonPayment.self, from: Data(event.data.utf8))
                                cursor = payment.pagingToken
                                continuation.yield(payment)
                            }
                        }
                    } catch let problem as HorizonProblem {
                        continuation.finish(throwing: problem)
                        return
                    } catch let error as DecodingError {
                        continuation.finish(throwing: error)
                        return
                    } catch {
                        if Task.isCancelled { break }
                        failures += 1
                        if failures >= reconnection.attempts {
                            continuation.finish(throwing: error)
                            return
                        }
                    }
                    var delay = failures == 0 ? retry : reconnection.firstDelay
                    for _ in 1..<max(1, failures) { delay = min(delay * 2, reconnection.longestDelay) }
                    try? await Task.sleep(for: delay)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The base fee of the last ledger, in stroops, as the SDKs' `fetchBaseFee` reads it.
    public func baseFee() async throws -> Int64 {
        try await networkFees().baseFee
    }

    /// The base fee and base reserve of the last ledger, in stroops: what a wallet needs to
    /// work out the fee of a transaction and how much XLM an account must keep.
    /// - Throws: ``HorizonProblem`` or a transport error; ``HorizonProblem`` too when the
    ///   server lists no ledger or gives a value no network uses (below 1 or above UInt32.max).
    public func networkFees() async throws -> NetworkFees {
        struct Ledger: Decodable { let baseFeeInStroops: Int64; let baseReserveInStroops: Int64 }
        struct Embedded: Decodable { let records: [Ledger] }
        struct Page: Decodable { let _embedded: Embedded }
        let page = try await get(Page.self, "/ledgers", [("order", "desc"), ("limit", "1")])
        let bounds: ClosedRange<Int64> = 1...Int64(UInt32.max)
        guard let latest = page._embedded.records.first, bounds.contains(latest.baseFeeInStroops), bounds.contains(latest.baseReserveInStroops) else {
            let body = #"{"type": "invalid_ledger", "title": "No usable ledger", "detail": "the server's latest ledger has no usable base fee and base reserve"}"#
            throw HorizonProblem(status: 200, body: Data(body.utf8))
        }
        return NetworkFees(baseFee: latest.baseFeeInStroops, baseReserve: latest.baseReserveInStroops)
    }

    /// Submits a signed envelope and waits for its ledger.
    /// - Throws: ``HorizonProblem`` with the result codes when it fails.
    public func submit(_ envelope: TransactionEnvelope) async throws -> HorizonSubmission {
        var request = URLRequest(url: url("/transactions"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(("tx=" + envelope.xdrBase64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!).utf8)
        let (status, body) = try await transport.send(request)
        guard (200..<300).contains(status) else { throw HorizonProblem(status: status, body: body) }
        return try Self.decoder.decode(HorizonSubmission.self, from: body)
    }

    /// Funds a new account through friendbot, or with `asset` asks a local network's test
    /// anchor for some of that asset.
    public func friendbot(_ address: String, asset: String? = nil) async throws -> HorizonSubmission {
        var query = [("addr", address)]
        if let asset { query.append(("asset", asset)) }
        return try await get(HorizonSubmission.self, "/friendbot", query)
    }

    /// The `[[CURRENCIES]]` of the server's own `/.well-known/stellar.toml` (SEP-1), as a local
    /// network's test anchor lists them: code and issuer of each.
    public func anchorCurrencies() async throws -> [Asset] {
        let (status, body) = try await transport.send(URLRequest(url: url("/.well-known/stellar.toml")))
        guard status == 200 else { throw HorizonProblem(status: status, body: body) }
        var assets: [Asset] = []
        for block in String(decoding: body, as: UTF8.self).components(separatedBy: "[[CURRENCIES]]").dropFirst() {
            var fields: [String: String] = [:]
            for line in block.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2 { fields[parts[0]] = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            }
            if let code = fields["code"], let issuer = fields["issuer"].flatMap({ try? AccountID($0) }), let asset = try? Asset(code: code, issuer: issuer) {
                assets.append(asset)
            }
        }
        return assets
    }

    private static func assetQuery(_ asset: Asset, prefix: String) -> [(String, String)] {
        switch asset {
        case .native: [("\(prefix)_asset_type", "native")]
        case .alphanum4(let code, let issuer): [("\(prefix)_asset_type", "credit_alphanum4"), ("\(prefix)_asset_code", code.text), ("\(prefix)_asset_issuer", issuer.strKey)]
        case .alphanum12(let code, let issuer): [("\(prefix)_asset_type", "credit_alphanum12"), ("\(prefix)_asset_code", code.text), ("\(prefix)_asset_issuer", issuer.strKey)]
        }
    }

    private func paths(_ path: String, _ query: [(String, String)]) async throws -> [HorizonPath] {
        struct Embedded: Decodable { let records: [HorizonPath] }
        struct Page: Decodable { let _embedded: Embedded }
        return try await get(Page.self, path, query)._embedded.records
    }

    /// Paths that deliver something to `destination` for exactly `amount` of `source`, best first.
    public func strictSendPaths(source: Asset, amount: Int64, destinationAccount: String) async throws -> [HorizonPath] {
        try await paths("/paths/strict-send", Self.assetQuery(source, prefix: "source") + [("source_amount", Amount.format(amount)), ("destination_account", destinationAccount)])
    }

    /// Paths from `sourceAccount`'s assets that deliver exactly `amount` of `destination`, cheapest first.
    public func strictReceivePaths(sourceAccount: String, destination: Asset, amount: Int64) async throws -> [HorizonPath] {
        try await paths("/paths/strict-receive", Self.assetQuery(destination, prefix: "destination") + [("destination_amount", Amount.format(amount)), ("source_account", sourceAccount)])
    }
}

/// A network's fees, from its latest ledger, in stroops.
public struct NetworkFees: Sendable, Equatable {
    /// The least fee per operation.
    public var baseFee: Int64
    /// The XLM an account keeps per entry it owns (two for itself).
    public var baseReserve: Int64
}
