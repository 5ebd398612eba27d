import AnchorCore
import Foundation
import Hummingbird
import Logging
import TenderJSON

/// The test anchor's SEP routes: SEP-10's `/auth`. They only adapt: the query or body in, one
/// call to the anchor's core, its answer or failure out as the SEPs write them
/// (`{"error": ...}`, 400 for a bad request, 403 for a missing or invalid token), open to any
/// origin as SEP-1 asks.
struct AnchorRoutes: Sendable {
    let webAuth: WebAuthService
    let logger: Logger
    static let maxBodyBytes = 64 * 1024

    func register(on router: Router<BasicRequestContext>) {
        router.get("/auth") { request, _ in
            await answer {
                let query = Self.query(request)
                let challenge = try webAuth.challenge(
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
        for path in ["/auth"] {
            router.on(RouterPath(path), method: .options) { _, _ in Self.response(.noContent, body: nil) }
        }
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
        if request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false {
            guard let object = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any] else {
                throw AnchorFailure.badRequest(code: "invalid_request", message: "the body is not a JSON object")
            }
            return object.compactMapValues { $0 as? String }
        }
        var fields: [String: String] = [:]
        for pair in String(decoding: bytes, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
            if let key = parts.first, !key.isEmpty { fields[key] = parts.count == 2 ? parts[1] : "" }
        }
        return fields
    }

    /// Runs `body`: its JSON with 200, or the failure as the SEPs write it.
    func answer(_ body: () async throws -> JSONValue) async -> Response {
        do {
            return Self.response(.ok, body: try await body())
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
