import Crypto
import Foundation
import GatewayCore
import Synchronization

/// Who a console session belongs to: the operator (the data directory's admin key), who sees
/// every merchant, or one merchant (its secret key), who sees only its own.
enum ConsoleRole: Equatable, Sendable {
    case admin
    case merchant(String)
}

/// A console session, kept in the browser as a signed cookie (HMAC-SHA256 under a key of the
/// server's own) and never stored: its role, when it expires and a random id, which also keys its
/// CSRF token. Pure: time and randomness come from the caller.
struct ConsoleSession: Equatable, Sendable {
    let role: ConsoleRole
    /// Unix seconds.
    let expires: Int64
    /// 16 random bytes, base64url.
    let id: String

    /// How long a session lasts: eight hours, a working day.
    static let lifetime: Int64 = 8 * 3_600
    static let cookieName = "tender_console"
    /// Before sign-in: a random value in a cookie that the sign-in form must also carry (a
    /// forged cross-site sign-in has the form but not the cookie).
    static let signInCookieName = "tender_console_signin"

    /// The cookie's value: the session's fields and their MAC.
    func token(key: [UInt8]) -> String {
        let subject = switch role {
        case .admin: "operator"
        case .merchant(let id): "merchant:" + id
        }
        let payload = "v1|\(subject)|\(expires)|\(id)"
        return PaylikeRoutes.base64url(Array(payload.utf8)) + "." + Self.mac(payload, key: key)
    }

    /// The session a cookie's value names, if its MAC is right and it has not expired.
    static func read(_ token: String, key: [UInt8], now: Int64) -> ConsoleSession? {
        guard token.utf8.count <= 512 else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let bytes = PaylikeRoutes.unbase64url(String(parts[0])), let payload = String(bytes: bytes, encoding: .utf8),
              GatewayService.constantTimeEqual(mac(payload, key: key), String(parts[1])) else { return nil }
        let fields = payload.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 4, fields[0] == "v1", let expires = Int64(fields[2]), expires > now else { return nil }
        let role: ConsoleRole
        if fields[1] == "operator" {
            role = .admin
        } else if fields[1].hasPrefix("merchant:"), fields[1].count > "merchant:".count {
            role = .merchant(String(fields[1].dropFirst("merchant:".count)))
        } else {
            return nil
        }
        return ConsoleSession(role: role, expires: expires, id: fields[3])
    }

    /// The token every form of this session posts, bound to the session.
    func csrfToken(key: [UInt8]) -> String { Self.mac("csrf|" + id, key: key) }

    func acceptsCSRF(_ token: String?, key: [UInt8]) -> Bool {
        guard let token else { return false }
        return GatewayService.constantTimeEqual(csrfToken(key: key), token)
    }

    /// The sign-in form's token for the value of its cookie.
    static func signInToken(_ cookie: String, key: [UInt8]) -> String { mac("sign-in|" + cookie, key: key) }

    // MARK: Encoding

    static func mac(_ text: String, key: [UInt8]) -> String {
        PaylikeRoutes.base64url(Array(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: SymmetricKey(data: key))))
    }
}

/// Sessions signed out before they expire: a signed cookie cannot be taken back, so the ids of
/// signed-out sessions are kept until they would have expired anyway.
final class ConsoleSignOuts: Sendable {
    private let revoked = Mutex<[String: Int64]>([:])

    func revoke(_ session: ConsoleSession, now: Int64) {
        revoked.withLock { ids in
            ids = ids.filter { $0.value > now }
            ids[session.id] = session.expires
        }
    }

    func isRevoked(_ session: ConsoleSession) -> Bool { revoked.withLock { $0[session.id] != nil } }
}
