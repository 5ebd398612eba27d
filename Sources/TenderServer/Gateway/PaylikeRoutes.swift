import Crypto
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import Logging
import NIOCore
import StellarBase
import TenderJSON

/// Paylike's protocols under `/paylike`: the client protocol (the vault at `/paylike/vault`,
/// payments at `/paylike/payments`, the 3-D Secure frames) and the merchant API at
/// `/paylike/api`. A payment is a gateway payment intent with manual capture: the same store,
/// state machine, test acquirer and settlement as `/v1`.
struct PaylikeRoutes: Sendable {
    let service: GatewayService
    let routes: GatewayRoutes
    let logger: Logger
    static let maxBodyBytes = 64 * 1024

    func register(on router: Router<BasicRequestContext>) {
        let paylike = router.group("paylike")
        paylike.add(middleware: APIErrorMiddleware(shape: PaylikeErrorShape(), logger: logger))
        paylike.post("vault") { request, _ in try await tokenize(request) }
        paylike.post("payments") { request, _ in try await payment(request, challenge: nil) }
        paylike.post("payments/challenges/:name") { request, context in
            let name = try context.parameters.require("name")
            guard let challenge = PaylikeFlow.Challenge(rawValue: name) else { throw PaylikeProblem(.challengeUnavailable, "No such challenge.") }
            return try await payment(request, challenge: challenge)
        }
        paylike.post("3dsecure/v2/method") { request, _ in try await methodPage(request) }
        paylike.post("3dsecure/v2/challenge") { request, _ in try await challengePage(request) }
        PaylikeMerchantAPI(service: service, routes: routes).register(on: paylike.group("api"))
        for method in [HTTPRequest.Method.get, .post, .put, .delete] {
            paylike.on("**", method: method) { request, _ -> Response in
                throw PaylikeProblem(.endpointNotFound, "No such endpoint: \(request.method.rawValue) \(request.uri.path.prefix(200)).")
            }
        }
    }

    func json(_ value: JSONValue) -> Response { routes.json(value) }

    /// Paylike's clients send `Accept-Version: 1`.
    func checkVersion(_ request: Request) throws {
        guard let version = request.headers[HTTPFields.headerName("Accept-Version")] else {
            throw PaylikeProblem(.versionMissing, "The Accept-Version header is missing.")
        }
        guard version.trimmingCharacters(in: .whitespaces) == "1" else { throw PaylikeProblem(.versionUnsupported, "Accept-Version \(version.prefix(20)) is not supported: use 1.") }
    }

    func body(_ request: Request) async throws -> [UInt8] {
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maxBodyBytes)
        return Array(buffer.readableBytesView)
    }

    // MARK: Keys derived from the server's secret

    func mac(_ text: String, length: Int = 16) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: SymmetricKey(data: service.secrets.idKeyBytes))).prefix(length).map { $0 }
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func unbase64url(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }

    /// A hint: its name and a MAC binding it to this payment and its position.
    func hint(_ name: String, at position: Int, digest: [UInt8]) -> String {
        name + "." + Self.base64url(mac("paylike hint \(Hex.encode(digest)) \(position) \(name)"))
    }

    /// The names of the hints held, each checked against its position.
    /// - Throws: REQUEST_INVALID for a hint this server did not give for this payment there.
    func hintNames(_ hints: [String], flow: PaylikeFlow, digest: [UInt8]) throws -> [String] {
        let slots = flow.slots
        guard hints.count <= slots.count else { throw PaylikeProblem.invalid("hints", "There are more hints than this payment has.") }
        return try hints.enumerated().map { position, hint in
            guard let dot = hint.lastIndex(of: "."), case let name = String(hint[..<dot]), slots[position].contains(name),
                  GatewayService.constantTimeEqual(hint, self.hint(name, at: position, digest: digest)) else {
                throw PaylikeProblem.invalid("hints", "Hint \(position + 1) does not belong to this payment.")
            }
            return name
        }
    }

    /// An id derived from the payment, so the same payment replayed finds its authorization.
    func derivedID(_ prefix: String, _ digest: [UInt8]) -> String {
        let bytes = mac("paylike \(prefix) \(Hex.encode(digest))", length: 32)
        return GatewayIDs.make(prefix, random: { count in Array((bytes + bytes + bytes).prefix(count)) })
    }

    // MARK: The vault

    /// `{type: pcn|pcsc, value}` → `{token}`: the value sealed with the server's key. Tokens
    /// are never stored; a payment opens them, keeps the card's brand, last four digits and
    /// fingerprint, and lets the number go.
    func tokenize(_ request: Request) async throws -> Response {
        try checkVersion(request)
        struct Wire: Decodable { let type: String; let value: String }
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(try await body(request))) else {
            throw PaylikeProblem.invalid("type", "The vault takes {type: \"pcn\" or \"pcsc\", value: String}.")
        }
        let value: String
        switch wire.type {
        case "pcn":
            guard let digits = CardRules.sanitise(wire.value), (12...19).contains(digits.count) else {
                throw PaylikeProblem(.cardNumberInvalid, "The card number must have 12 to 19 digits.", errors: ["value"])
            }
            value = digits
        case "pcsc":
            guard (3...4).contains(wire.value.utf8.count), wire.value.utf8.allSatisfy({ (48...57).contains($0) }) else {
                throw PaylikeProblem(.cardSecurityCodeInvalid, "The security code must have 3 or 4 digits.", errors: ["value"])
            }
            value = wire.value
        default:
            throw PaylikeProblem.invalid("type", "type must be pcn (card number) or pcsc (security code).")
        }
        let sealed = try service.secrets.seal(Array("\(wire.type):\(value)".utf8))
        return json(.object([("token", .string(Self.base64url(sealed)))]))
    }

    /// Opens a vault token of `type`.
    /// - Throws: TOKEN_INVALID for a token this server did not make; TOKEN_TYPE_UNEXPECTED for
    ///   a security code's token where a number's goes, or the reverse.
    func open(_ token: String, type: String) throws -> String {
        guard let sealed = Self.unbase64url(token), let opened = try? service.secrets.open(sealed),
              let text = String(bytes: opened, encoding: .utf8), let colon = text.firstIndex(of: ":") else {
            throw PaylikeProblem(.tokenInvalid, "The token was not made by this vault.")
        }
        guard text[..<colon] == type else { throw PaylikeProblem(.tokenTypeUnexpected, "A \(text[..<colon]) token was given where a \(type) token goes.") }
        return String(text[text.index(after: colon)...])
    }

    // MARK: Payments

    /// `/payments` and its challenges: the payment checked, the hints checked, then the next
    /// challenge, a challenge's answer, or the authorization.
    func payment(_ request: Request, challenge: PaylikeFlow.Challenge?) async throws -> Response {
        try checkVersion(request)
        let payment = try PaylikePaymentRequest(body: try await body(request), now: service.now())
        guard let (merchant, kind) = try await service.merchant(key: payment.key), kind == .publishable else {
            throw PaylikeProblem(.integrationKeyUnknown, "No such integration key.", errors: ["integration.key"])
        }
        // Every key of Tender's is a test key: a payment without the test object is a live
        // payment made with a test key.
        guard payment.test != nil else {
            throw PaylikeProblem(.testModeMixed, "This integration key is in test mode: a payment with it must carry the test object.", errors: ["test"])
        }
        let digits = try open(payment.numberToken, type: "pcn")
        // Any security code: the test object's card.code decides whether it is valid.
        _ = try open(payment.codeToken, type: "pcsc")
        // Test mode: any number and expiry; the test object decides the outcome.
        let brand: CardBrand, expiry: YearMonth
        switch PaylikeFlow.testModeCard(digits: digits, expiryMonth: payment.expiryMonth, expiryYear: payment.expiryYear) {
        case .success(let card): (brand, expiry) = card
        case .failure(.cardNumberInvalid): throw PaylikeProblem(.cardNumberInvalid, "The card number must have 12 to 19 digits.", errors: ["card.number"])
        case .failure(let code): throw PaylikeProblem(code, "The card's expiry must be a month of 1 to 12 and a year.", errors: ["card.expiry"])
        }
        guard let currency = GatewayCurrency.named(payment.amount.currency.lowercased()) else {
            throw PaylikeProblem.invalid("amount.currency", "Tender's test anchor issues EUR and USD.")
        }
        guard let minor = payment.amount.value(atExponent: currency.exponent), minor >= 1, minor <= FiatConversion.maxPaymentMinorUnits else {
            throw PaylikeProblem.invalid("amount", "The amount must be 1 to \(FiatConversion.maxPaymentMinorUnits) minor units of \(currency.code.uppercased()), with at most \(currency.exponent) decimals.")
        }
        let flow = PaylikeFlow(test: payment.test, card: TestAcquirer.outcome(forCardDigits: digits), amount: payment.amount)
        let names = try hintNames(payment.hints, flow: flow, digest: payment.digest)
        let base = request.baseURL + "/paylike"
        if let challenge {
            let answer: PaylikeFlow.ChallengeAnswer
            do { answer = try flow.answer(challenge, hints: names.count) } catch {
                throw PaylikeProblem(error, "The challenge \(challenge.rawValue) is not the one this payment is at.")
            }
            switch answer {
            case .hints(let new):
                return json(.object([("hints", .array(new.enumerated().map { .string(hint($1, at: names.count + $0, digest: payment.digest)) }))]))
            case .methodFrame(let new, _):
                return json(.object([
                    ("hints", .array(new.enumerated().map { .string(hint($1, at: names.count + $0, digest: payment.digest)) })),
                    ("action", .string(base + "/3dsecure/v2/method")), ("method", "POST"),
                    ("fields", .object([("threeDSMethodData", .string(frameToken(payment.digest, fingerprint: flow.threeDSecure?.fingerprint ?? .success)))])),
                    ("timeout", 10_000),
                ]))
            case .challengeFrame:
                return json(.object([
                    ("action", .string(base + "/3dsecure/v2/challenge")), ("method", "POST"),
                    ("fields", .object([("creq", .string(frameToken(payment.digest, fingerprint: flow.threeDSecure?.fingerprint ?? .success)))])),
                ]))
            }
        }
        switch flow.paymentsAnswer(hints: names.count) {
        case .challenge(let next):
            return json(.object([("challenges", .array([.object([("name", .string(next.rawValue)), ("type", .string(next.type)), ("path", .string("/payments/challenges/\(next.rawValue)"))])]))]))
        case .authorize:
            let intentID = derivedID("pi", payment.digest)
            let authorization = PaylikeAuthorization(
                intentID: PaymentIntentID(intentID), methodID: PaymentMethodID(derivedID("pm", payment.digest)), clientSecret: intentID + "_secret_" + String(derivedID("s", payment.digest).dropFirst(2)),
                amount: minor, currency: currency,
                card: PaymentMethodRecord.Card(
                    brand: brand, last4: String(digits.suffix(4)), expMonth: expiry.month, expYear: expiry.year, country: "NL",
                    fingerprint: service.secrets.fingerprint(cardDigits: digits), outcome: TestAcquirer.outcome(forCardDigits: digits)),
                text: payment.text, custom: payment.custom, plan: payment.plan, unplanned: payment.unplanned, flow: flow,
                challengeAnswer: names.count > 7 ? names[7] : nil)
            return json(.object([("authorizationId", .string(try await service.authorize(authorization, merchant: merchant, base: request.baseURL).rawValue))]))
        }
    }

    // MARK: Frames

    /// What a frame's form carries: the payment's digest and the test's fingerprint outcome,
    /// with a MAC so that a page answers only for payments this server started.
    func frameToken(_ digest: [UInt8], fingerprint: PaylikeTest.TDSFingerprint) -> String {
        let encoded = Self.base64url(digest)
        return "\(encoded).\(fingerprint.rawValue).\(Self.base64url(mac("paylike frame \(encoded) \(fingerprint.rawValue)")))"
    }

    func openFrameToken(_ token: String) throws -> (digest: [UInt8], fingerprint: PaylikeTest.TDSFingerprint) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let digest = Self.unbase64url(parts[0]), digest.count == 32,
              let fingerprint = PaylikeTest.TDSFingerprint(rawValue: parts[1]),
              GatewayService.constantTimeEqual(parts[2], Self.base64url(mac("paylike frame \(parts[0]) \(parts[1])"))) else {
            throw PaylikeProblem(.tdsParesInvalid, "This frame was not started by this server.")
        }
        return (digest, fingerprint)
    }

    func form(_ request: Request) async throws -> StripeForm {
        try StripeForm(body: String(decoding: try await body(request), as: UTF8.self))
    }

    /// The 3-D Secure method frame: the issuer's fingerprint of the browser, done at once; the
    /// page hands its two hints to the parent.
    func methodPage(_ request: Request) async throws -> Response {
        let form = try await form(request)
        let (digest, fingerprint) = try openFrameToken(try form.string("threeDSMethodData", maxLength: 512) ?? "")
        let hints = [hint("tds-method-posted", at: 4, digest: digest), hint("tds-method-\(fingerprint.rawValue)", at: 5, digest: digest)]
        return PaylikeFrames.posting(hints: hints, title: "3-D Secure method", nonce: service.random(16))
    }

    /// The 3-D Secure challenge frame: Complete and Fail; the answer's page hands its hint to
    /// the parent.
    func challengePage(_ request: Request) async throws -> Response {
        let form = try await form(request)
        let token = try form.string("creq", maxLength: 512) ?? ""
        let (digest, _) = try openFrameToken(token)
        guard let answer = try form.string("answer", maxLength: 20) else { return PaylikeFrames.challenge(token: token, GatewayTestPages.text(request)) }
        guard answer == "authenticated" || answer == "failed" else { throw PaylikeProblem.invalid("answer", "answer must be authenticated or failed.") }
        return PaylikeFrames.posting(hints: [hint("tds-challenge-\(answer)", at: 7, digest: digest)], title: "3-D Secure", nonce: service.random(16))
    }
}
