import Foundation
import Gateway
import GatewayCore
import Hummingbird

/// A request under `/v1` as the gateway's routes see it: who its Authorization header says is
/// asking, read once by ``GatewayAuthenticator`` before any handler runs. A handler asks for the
/// caller it needs (``merchant(allowPublishable:)``, ``requireAdmin()``) and gets Stripe's
/// refusal when the request is not that.
struct GatewayRequestContext: ChildRequestContext {
    typealias ParentContext = BasicRequestContext
    var coreContext: CoreRequestContextStorage

    /// What the Authorization header presented.
    enum Credential: Sendable {
        case none
        /// Neither Bearer nor basic auth.
        case malformed
        /// A key nobody has (kept redacted, as Stripe shows it).
        case unknown(redacted: String)
        case merchant(MerchantRecord, KeyKind)
        /// The data directory's admin key.
        case admin
    }

    var credential: Credential = .none

    init(context: BasicRequestContext) throws {
        // The parent's storage as it is: the logger and the path's parameters the router found.
        coreContext = context.coreContext
    }

    /// The merchant whose key the request presents, and which key it is.
    /// - Throws: 401 authentication_error for a missing or unknown key; 403 permission_error for
    ///   a publishable key where only a secret one may be used.
    func merchant(allowPublishable: Bool) throws -> (MerchantRecord, KeyKind) {
        switch credential {
        case .merchant(let merchant, let kind):
            guard kind == .secret || allowPublishable else {
                throw StripeError.permission("This API call cannot be made with a publishable API key. Please use a secret API key.")
            }
            return (merchant, kind)
        case .none:
            throw StripeError.authentication("You did not provide an API key. Provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').")
        case .malformed:
            throw StripeError.authentication("Invalid Authorization header: use Bearer auth with your API key.")
        case .unknown(let redacted):
            throw StripeError.authentication("Invalid API Key provided: \(redacted)")
        case .admin:
            throw StripeError.authentication("Invalid API Key provided: the admin key makes merchants; use a merchant's key.")
        }
    }

    /// - Throws: 401 authentication_error unless the request presents the admin key.
    func requireAdmin() throws {
        guard case .admin = credential else {
            throw StripeError.authentication("The admin routes take the admin key of the data directory (admin.key) as a Bearer token.")
        }
    }
}

/// Reads the Authorization header of every request under `/v1` into its context: Bearer, or
/// basic auth with the key as the user name (as the stripe libraries send it); the admin key
/// compared in constant time; a merchant's key looked up by its hash.
struct GatewayAuthenticator: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let service: GatewayService
    let adminKey: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.credential = try await credential(request.headers[.authorization])
        return try await next(request, context)
    }

    func credential(_ header: String?) async throws -> GatewayRequestContext.Credential {
        guard let header else { return .none }
        guard let key = Self.key(header) else { return .malformed }
        if GatewayService.constantTimeEqual(key, adminKey) { return .admin }
        guard let (merchant, kind) = try await service.merchant(key: key) else { return .unknown(redacted: GatewayRoutes.redacted(key)) }
        return .merchant(merchant, kind)
    }

    /// The key an Authorization header carries: Bearer, or basic auth with the key as the user
    /// name; nil for anything else.
    static func key(_ header: String) -> String? {
        if let token = bearerToken(header) { return token }
        guard header.hasPrefix("Basic "), let decoded = Data(base64Encoded: String(header.dropFirst("Basic ".count))),
              let text = String(data: decoded, encoding: .utf8) else { return nil }
        return String(text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// Whether an Authorization header presents the admin key (compared in constant time).
    static func presentsAdminKey(_ header: String?, adminKey: String) -> Bool {
        guard let header, let key = key(header) else { return false }
        return GatewayService.constantTimeEqual(key, adminKey)
    }
}
