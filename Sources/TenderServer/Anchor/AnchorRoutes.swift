import AnchorCore
import Foundation
import Hummingbird
import Logging
import MultipartKit
import Anchor
import AsyncHTTPClient
import StellarBase
import TenderJSON

/// The test anchor's SEP routes: SEP-10's `/auth`. They only adapt: the query or body in, one
/// call to the anchor's core, its answer or failure out as the SEPs write them
/// (`{"error": ...}`, 400 for a bad request, 403 for a missing or invalid token), open to any
/// origin as SEP-1 asks.
struct AnchorRoutes: Sendable {
    let webAuth: WebAuthService
    let customers: CustomerService
    let logger: Logger
    static let maxBodyBytes = 64 * 1024

    func register(on router: Router<BasicRequestContext>) {
        router.get("/auth") { request, _ in
            await answer {
                let query = Self.query(request)
                let challenge = try await webAuth.challenge(
                    account: query["account"], memo: query["memo"], homeDomain: query["home_domain"], clientDomain: query["client_domain"],
                    host: Self.host(request))
                return .object([("transaction", .string(challenge)), ("network_passphrase", .string(webAuth.network.passphrase))])
            }
        }
        router.post("/auth") { request, _ in
            var request = request
            return await answer {
                let fields = try await Self.body(&request)
                let token = try await webAuth.token(transaction: fields["transaction"], host: Self.host(request), issuer: Self.base(request) + "/auth")
                return .object([("token", .string(token))])
            }
        }
        router.get("/kyc/customer") { request, _ in
            await answer {
                let user = try await user(request)
                let query = Self.query(request)
                let view = try await customers.get(user, id: query["id"], account: query["account"], memo: query["memo"], memoType: query["memo_type"])
                return Self.customer(view)
            }
        }
        router.put("/kyc/customer") { request, _ in
            var request = request
            return await answer(status: .accepted) {
                let user = try await user(request)
                var fields = try await Self.body(&request)
                var meta: [String: String] = [:]
                for name in ["id", "account", "memo", "memo_type", "type", "transaction_id", "lang"] { meta[name] = fields.removeValue(forKey: name) }
                let id = try await customers.put(
                    user, id: meta["id"], account: meta["account"], memo: meta["memo"], memoType: meta["memo_type"], type: meta["type"], values: fields)
                return .object([("id", .string(id))])
            }
        }
        router.delete("/kyc/customer/:account") { request, context in
            await answer {
                let user = try await user(request)
                let query = Self.query(request)
                try await customers.delete(user, account: context.parameters.get("account") ?? "", memo: query["memo"], memoType: query["memo_type"])
                return .object([])
            }
        }
        for path in ["/auth", "/kyc/customer", "/kyc/customer/:account"] {
            router.on(RouterPath(path), method: .options) { _, _ in Self.response(.noContent, body: nil) }
        }
    }

    /// A client domain's SIGNING_KEY, from its stellar.toml (plain http for localhost and
    /// 127.0.0.1, as a local network serves it; https otherwise), fetched with a 10-second limit.
    static let clientDomainKey: @Sendable (String) async throws -> AccountID = { domain in
        let local = domain.lowercased().hasPrefix("localhost") || domain.hasPrefix("127.0.0.1")
        let request = HTTPClientRequest(url: "\(local ? "http" : "https")://\(domain)/.well-known/stellar.toml")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        guard response.status == .ok else { throw AnchorFailure.notFound("no stellar.toml") }
        let body = try await response.body.collect(upTo: 100 * 1024)
        guard let key = stellarTomlValue("SIGNING_KEY", in: String(buffer: body)), let id = try? AccountID(key) else { throw AnchorFailure.notFound("no SIGNING_KEY") }
        return id
    }

    /// The user an `Authorization: Bearer` token names.
    func user(_ request: Request) async throws(AnchorFailure) -> AnchorUser {
        let header = request.headers[.authorization] ?? ""
        let token = header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces) : nil
        return try await webAuth.user(token: token)
    }

    /// SEP-12's answer for a customer.
    static func customer(_ view: CustomerView) -> JSONValue {
        func field(_ field: KYC.Field, status: KYC.Status?) -> (String, JSONValue) {
            var values: [(String, JSONValue)] = [("type", .string(field.type)), ("description", .string(field.description)), ("optional", .bool(field.optional))]
            if let choices = field.choices { values.append(("choices", .array(choices.map(JSONValue.string)))) }
            if let status { values.append(("status", .string(status == .needsInfo ? KYC.Status.processing.rawValue : status.rawValue))) }
            return (field.name, .object(values))
        }
        var values: [(String, JSONValue)] = []
        if let id = view.id { values.append(("id", .string(id))) }
        values.append(("status", .string(view.status.rawValue)))
        if !view.fields.isEmpty { values.append(("fields", .object(view.fields.map { field($0, status: nil) }))) }
        if !view.provided.isEmpty { values.append(("provided_fields", .object(view.provided.map { field($0, status: view.status) }))) }
        if let message = view.message { values.append(("message", .string(message))) }
        return .object(values)
    }

    /// The host the request came to (`host:port`): the web auth domain and default home domain.
    static func host(_ request: Request) -> String { request.head.authority ?? "localhost" }

    static func base(_ request: Request) -> String { "http://\(host(request))" }

    static func query(_ request: Request) -> [String: String] {
        var fields: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { fields[String(key)] = String(value) }
        return fields
    }

    /// A JSON object's string fields, or a form's.
    static func body(_ request: inout Request) async throws -> [String: String] {
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maxBodyBytes)
        } catch {
            throw AnchorFailure.badRequest(code: "invalid_request", message: "the body is larger than \(maxBodyBytes) bytes")
        }
        let bytes = Data(buffer: buffer)
        let contentType = request.headers[.contentType] ?? ""
        if contentType.lowercased().hasPrefix("multipart/form-data") {
            guard let boundary = TransactionRoutes.multipartBoundary(contentType),
                  let fields = try? FormDataDecoder().decode([String: String].self, from: buffer, boundary: boundary) else {
                throw AnchorFailure.badRequest(code: "invalid_request", message: "the multipart body cannot be read (its parts are text fields)")
            }
            return fields
        }
        if contentType.lowercased().hasPrefix("application/json") {
            guard let object = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any] else {
                throw AnchorFailure.badRequest(code: "invalid_request", message: "the body is not a JSON object")
            }
            return object.compactMapValues { value in
                if let text = value as? String { return text }
                if let number = value as? NSNumber { return number.stringValue }
                return nil
            }
        }
        return FormBody(bytes: buffer.readableBytesView).fields.filter { !$0.key.isEmpty }
    }

    /// Runs `body`: its JSON with `status`, or the failure as the SEPs write it.
    func answer(status: HTTPResponse.Status = .ok, _ body: () async throws -> JSONValue) async -> Response {
        do {
            return Self.response(status, body: try await body())
        } catch let failure as AnchorFailure {
            switch failure {
            case .badRequest(let code, let message): return Self.response(.badRequest, body: .object([("error", .string(message)), ("code", .string(code))]))
            case .unauthorized(let message): return Self.response(.forbidden, body: .object([("error", .string(message)), ("code", .string("unauthorized"))]))
            case .notFound(let message): return Self.response(.notFound, body: .object([("error", .string(message)), ("code", .string("not_found"))]))
            }
        } catch {
            logger.error("anchor request failed: \(error)")
            return Self.response(.internalServerError, body: .object([("error", .string("the anchor could not answer; try again")), ("code", .string("internal_error"))]))
        }
    }

    static func response(_ status: HTTPResponse.Status, body: JSONValue?) -> Response {
        var headers: HTTPFields = [.accessControlAllowOrigin: "*"]
        headers[.accessControlAllowHeaders] = "Authorization, Content-Type"
        headers[.accessControlAllowMethods] = "GET, POST, PUT, DELETE, OPTIONS"
        guard let body else { return Response(status: status, headers: headers) }
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.compactBytes())))
    }
}
