import Anchor
import Crypto
import Foundation
import JWTKit
import Ledger
import StellarBase
import Synchronization

/// Why the anchor refused a request, in terms the SEP routes translate once: a bad request with
/// a stable code, or a missing or invalid token (SEP's 403).
public enum AnchorFailure: Error, Equatable, Sendable, CustomStringConvertible {
    case badRequest(code: String, message: String)
    case unauthorized(String)
    case notFound(String)

    init(_ error: WebAuthError) { self = .badRequest(code: error.code.rawValue, message: error.message) }

    public var description: String {
        switch self {
        case .badRequest(let code, let message): "\(code): \(message)"
        case .unauthorized(let message): "unauthorized: \(message)"
        case .notFound(let message): "not_found: \(message)"
        }
    }
}

/// Who a SEP-10 token names: the account (its `G...`), and the memo or muxed id that tells
/// apart the users of one shared account.
public struct AnchorUser: Sendable, Equatable, Hashable {
    public let account: AccountID
    public let memo: UInt64?
    public let muxedID: UInt64?
    /// The token's `sub`.
    public let subject: String
    public let clientDomain: String?

    public init(account: AccountID, memo: UInt64?, muxedID: UInt64?, subject: String, clientDomain: String?) {
        self.account = account
        self.memo = memo
        self.muxedID = muxedID
        self.subject = subject
        self.clientDomain = clientDomain
    }
}

/// SEP-10 web authentication: challenges made and signed with the anchor's signing key, signed
/// challenges checked against the client's account on the ledger and exchanged once for a JWT,
/// and tokens verified for the other SEPs. Time and randomness are injected.
public final class WebAuthService: Sendable {
    public let signingKey: KeyPair
    public let network: Network
    /// The home domains a challenge may name besides the host it is asked of.
    public let homeDomains: Set<String>
    let reader: any LedgerReader
    let keys: JWTKeyCollection
    let now: @Sendable () -> UInt64
    let random: @Sendable (Int) -> [UInt8]
    /// A client domain's SIGNING_KEY, read from its stellar.toml (nil: client domains refused).
    let clientDomainKey: (@Sendable (String) async throws -> AccountID)?
    /// How long a token lasts: a day.
    public static let tokenLifetime: UInt64 = 86_400
    /// The challenges already exchanged for a token, until they expire (then their time bounds refuse them).
    private let used = Mutex<[Bytes32: UInt64]>([:])

    public init(
        signingKey: KeyPair, network: Network, homeDomains: Set<String>, tokenKey: [UInt8], reader: any LedgerReader,
        now: @escaping @Sendable () -> UInt64, random: @escaping @Sendable (Int) -> [UInt8],
        clientDomainKey: (@Sendable (String) async throws -> AccountID)? = nil
    ) async {
        self.clientDomainKey = clientDomainKey
        self.signingKey = signingKey
        self.network = network
        self.homeDomains = homeDomains
        self.reader = reader
        self.now = now
        self.random = random
        let key = Array(HMAC<SHA256>.authenticationCode(for: Array("anchor tokens".utf8), using: SymmetricKey(data: tokenKey)))
        keys = await JWTKeyCollection().add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
    }

    /// SEP-10's token claims.
    struct Token: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        var jti: IDClaim
        var client_domain: String?
        var home_domain: String?
        // Expiry is checked against the service's clock, not the machine's (``user(token:)``).
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// `GET /auth`: a challenge for `account` (`G...` or `M...`), with an id `memo`, for
    /// `homeDomain` (default: `host`, the domain the request came to), asked of `host`.
    /// - Throws: ``AnchorFailure/badRequest(code:message:)`` naming what is wrong.
    public func challenge(account: String?, memo: String?, homeDomain: String?, clientDomain: String?, host: String) async throws(AnchorFailure) -> String {
        guard let account, !account.isEmpty else { throw .badRequest(code: "invalid_request", message: "account is required (G... or M...)") }
        guard let client = try? MuxedAccount(account) else { throw .badRequest(code: "invalid_request", message: "account \(account) is not a G... or M... address") }
        var memoID: UInt64?
        if let memo, !memo.isEmpty {
            guard let id = UInt64(memo), String(id) == memo else { throw .badRequest(code: "invalid_memo", message: "memo is an id memo: a whole number from 0 to 18446744073709551615") }
            memoID = id
        }
        let domain = homeDomain.flatMap { $0.isEmpty ? nil : $0 } ?? host
        guard domain == host || homeDomains.contains(domain) else {
            throw .badRequest(code: WebAuthError.Code.invalidHomeDomain.rawValue, message: "home_domain \(domain) is not served here; ask for \(([host] + homeDomains.sorted()).joined(separator: " or "))")
        }
        var domainKey: (domain: String, key: AccountID)?
        if let clientDomain, !clientDomain.isEmpty {
            guard let lookup = clientDomainKey else {
                throw .badRequest(code: "client_domain_not_supported", message: "this anchor does not verify client domains; ask without client_domain")
            }
            guard clientDomain.utf8.count <= 64, clientDomain.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:".contains($0)) }) else {
                throw .badRequest(code: "invalid_client_domain", message: "client_domain is a domain name, such as wallet.example.com")
            }
            do {
                domainKey = (clientDomain, try await lookup(clientDomain))
            } catch {
                throw .badRequest(code: "invalid_client_domain", message: "client_domain \(clientDomain)'s stellar.toml names no SIGNING_KEY that can be read")
            }
        }
        do {
            return try WebAuth.challenge(
                server: signingKey, client: client, memo: memoID, homeDomain: domain, webAuthDomain: host, clientDomain: domainKey,
                nonce: random(WebAuth.nonceLength), now: now(), network: network
            ).xdrBase64
        } catch {
            throw AnchorFailure(error)
        }
    }

    /// `POST /auth`: the signed challenge, checked rule by rule and against the client's
    /// account on the ledger (its signers and medium threshold, or its master key if it does
    /// not exist yet), exchanged once for a token issued by `issuer` (the endpoint's URL).
    /// - Throws: ``AnchorFailure/badRequest(code:message:)`` with the refused rule's code.
    public func token(transaction: String?, host: String, issuer: String) async throws -> String {
        guard let transaction, !transaction.isEmpty else { throw AnchorFailure.badRequest(code: "invalid_request", message: "transaction (the signed challenge, base64 XDR) is required") }
        let time = now()
        let challenge: WebAuthChallenge
        do {
            challenge = try WebAuth.read(transaction, server: signingKey.accountID, homeDomains: homeDomains.union([host]), webAuthDomain: host, now: time, network: network)
        } catch {
            throw AnchorFailure(error)
        }
        let account = try await reader.account(challenge.client.accountID).map { record in
            WebAuthAccount(
                masterWeight: record.account.thresholds.masterWeight,
                signers: Dictionary(record.account.signers.compactMap { signer in
                    if case .ed25519(let key) = signer.key { (key, UInt8(clamping: signer.weight)) } else { nil }
                }, uniquingKeysWith: { a, _ in a }),
                mediumThreshold: record.account.thresholds.medium)
        }
        do {
            _ = try WebAuth.verifySignatures(challenge, server: signingKey.accountID, account: account, network: network)
        } catch {
            throw AnchorFailure(error)
        }
        let fresh = used.withLock { used -> Bool in
            used = used.filter { $0.value >= time }
            guard used[challenge.hash] == nil else { return false }
            used[challenge.hash] = challenge.timeBounds.maxTime
            return true
        }
        guard fresh else { throw AnchorFailure.badRequest(code: WebAuthError.Code.alreadyUsed.rawValue, message: "this challenge was already exchanged for a token; ask for a new one") }
        let issued = Date(timeIntervalSince1970: TimeInterval(time))
        return try await keys.sign(Token(
            iss: IssuerClaim(value: issuer), sub: SubjectClaim(value: challenge.subject), iat: IssuedAtClaim(value: issued),
            exp: ExpirationClaim(value: issued.addingTimeInterval(TimeInterval(Self.tokenLifetime))), jti: IDClaim(value: challenge.hash.hex),
            client_domain: challenge.clientDomain, home_domain: challenge.homeDomain))
    }

    /// The user a token names, from an `Authorization: Bearer` header's token.
    /// - Throws: ``AnchorFailure/unauthorized(_:)`` for a missing, forged or expired token.
    public func user(token: String?) async throws(AnchorFailure) -> AnchorUser {
        guard let token, !token.isEmpty else { throw .unauthorized("an Authorization: Bearer token from SEP-10 (/auth) is required") }
        guard let payload = try? await keys.verify(token, as: Token.self) else { throw .unauthorized("the token is not one this anchor issued") }
        guard payload.exp.value.timeIntervalSince1970 > TimeInterval(now()) else { throw .unauthorized("the token expired; sign in again with SEP-10") }
        let subject = payload.sub.value
        let parts = subject.split(separator: ":", maxSplits: 1).map(String.init)
        guard let muxed = try? MuxedAccount(parts[0]) else { throw .unauthorized("the token's subject is not an account") }
        var memo: UInt64?
        if parts.count == 2 {
            guard let id = UInt64(parts[1]) else { throw .unauthorized("the token's memo is not an id") }
            memo = id
        }
        let muxedID: UInt64? = if case .muxed(let id, _) = muxed { id } else { nil }
        return AnchorUser(account: muxed.accountID, memo: memo, muxedID: muxedID, subject: subject, clientDomain: payload.client_domain)
    }
}
