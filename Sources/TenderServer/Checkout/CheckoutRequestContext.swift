import CheckoutCore
import Hummingbird

/// A request under `/checkout/v1` as the checkout's routes see it: its bearer token, and the
/// user that token names, read once by ``CheckoutAuthenticator`` before any handler runs. A
/// marketplace's secret key or the admin key is a bearer token too, which names no user; the
/// routes that take those read ``bearer``.
struct CheckoutRequestContext: ChildRequestContext {
    typealias ParentContext = BasicRequestContext
    var coreContext: CoreRequestContextStorage
    var bearer: String?
    var caller: Result<CheckoutService.Caller, CheckoutFailure>?

    init(context: BasicRequestContext) throws {
        // The parent's storage as it is: the logger and the path's parameters the router found.
        coreContext = context.coreContext
    }

    /// The user whose token the request presents.
    /// - Throws: ``CheckoutFailure/unauthorized`` for no token, or one that names no user.
    func requireCaller() throws -> CheckoutService.Caller {
        switch caller {
        case .success(let caller): return caller
        case .failure(let failure): throw failure
        case nil: throw CheckoutFailure.unauthorized
        }
    }
}

/// Reads the bearer token of every request under `/checkout/v1` and, when it is a user's token
/// (a JWT: three parts), the user it names.
struct CheckoutAuthenticator: RouterMiddleware {
    typealias Context = CheckoutRequestContext
    let service: CheckoutService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.bearer = CheckoutRoutes.bearer(request)
        if let token = context.bearer, token.split(separator: ".", omittingEmptySubsequences: false).count == 3 {
            do {
                context.caller = .success(try await service.authenticateUser(token: token))
            } catch let failure as CheckoutFailure {
                context.caller = .failure(failure)
            }
        }
        return try await next(request, context)
    }
}
