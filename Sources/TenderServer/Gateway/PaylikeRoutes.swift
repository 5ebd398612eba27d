import Crypto
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import Logging
import NIOCore
import StellarBase
import TenderJSON

/// An error in Paylike's shape, `{code, message, errors}`, with its HTTP status.
struct PaylikeProblem: Error, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var errors: [String] = []

    init(_ code: PaylikeCode, _ message: String, errors: [String] = []) {
        status = .init(code: code.httpStatus)
        self.code = code.rawValue
        self.message = message
        self.errors = errors
    }

    init(status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The gateway core's failure in Paylike's shape: a code of Paylike's own (a refused
    /// payment) with its status, any other with the core's status and its code in capitals.
    init(_ failure: GatewayFailure) {
        if let code = failure.code.flatMap({ PaylikeCode(rawValue: $0.rawValue) }) {
            self.init(code, failure.message)
        } else {
            self.init(status: failure.httpStatus, code: (failure.code?.rawValue ?? PaylikeCode.requestInvalid.rawValue).uppercased(), message: failure.message)
        }
        if let parameter = failure.parameter { errors = [parameter] }
    }

    static func invalid(_ field: String, _ message: String) -> PaylikeProblem {
        PaylikeProblem(.requestInvalid, message, errors: [field])
    }

    var response: Response {
        let json: JSONValue = .object([("code", .string(code)), ("message", .string(message)), ("errors", .array(errors.map(JSONValue.string)))])
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json.compactBytes())))
    }
}

/// Failures under `/paylike` in Paylike's shape: an unknown path is ENDPOINT_NOT_FOUND, a body
/// too large BODY_INVALID, the gateway's own refusals keep their status and code, anything else
/// is INTERNAL_ERROR.
struct PaylikeErrorShape: APIErrorShape {
    var area: String { "paylike" }

    func answer(_ error: any Error, to request: Request) -> Response? {
        if let problem = error as? PaylikeProblem { return problem.response }
        if let error = error as? StripeError {
            return PaylikeProblem(status: error.status, code: (error.code ?? "REQUEST_INVALID").uppercased(), message: error.message).response
        }
        if let failure = error as? GatewayFailure, failure.category != .internal { return PaylikeProblem(failure).response }
        return nil
    }

    func tooLarge() -> Response { PaylikeProblem(.bodyInvalid, "The body is larger than \(PaylikeRoutes.maxBodyBytes) bytes.").response }

    func notFound(_ request: Request) -> Response {
        PaylikeProblem(.endpointNotFound, "No such endpoint: \(request.method.rawValue) \(request.uri.path.prefix(200)).").response
    }

    func http(_ status: HTTPResponse.Status, _ message: String) -> Response {
        PaylikeProblem(status: status, code: PaylikeCode.requestInvalid.rawValue, message: message).response
    }

    func unexpected() -> Response { PaylikeProblem(.internalError, "An error occurred on Tender's side; the same request can be sent again.").response }
}

/// A payment as `POST /payments` carries it, checked: the integration key, the amount, the
/// card's tokens and expiry, the test object (with the Swift client's spellings), text, custom
/// data, and the hints. `digest` binds the hints to everything but the hints.
struct PaylikePaymentRequest {
    let key: String
    let amount: PaymentAmount
    let numberToken: String
    let codeToken: String
    let expiryMonth: Int
    let expiryYear: Int
    let test: PaylikeTest?
    let text: String?
    let custom: String?
    /// The payment plan as Tender keeps it (compact JSON, RFC 3339 dates), and who may start
    /// unplanned payments: recorded with the authorization, never executed (as Paylike).
    let plan: String?
    let unplanned: [String]?
    let hints: [String]
    let digest: [UInt8]

    static let maxHints = 32

    /// The body as JSON decodes it: strict about types (a fraction or a string is not an
    /// integer, 1 is not a boolean).
    struct Wire: Decodable {
        struct Integration: Decodable { let key: String }
        struct Money: Decodable { let currency: String; let exponent: Int; let value: Int64 }
        struct Token: Decodable { let token: String }
        struct Expiry: Decodable { let month: Int; let year: Int }
        struct Card: Decodable { let number: Token; let code: Token; let expiry: Expiry }
        struct TestCard: Decodable { let scheme: String?; let code: String?; let status: String?; let limit: Money?; let balance: Money? }
        struct TDS: Decodable { let fingerprint: String?; let fingerPrint: String?; let challenge: Bool?; let status: String? }
        struct Test: Decodable { let card: TestCard?; let fingerprint: String?; let fingerPrint: String?; let tds: TDS? }
        /// A date as RFC 3339 text (Paylike's JS client) or a number of seconds since 2001-01-01
        /// (Foundation's default, which Paylike's Swift client sends): unix seconds.
        struct When: Decodable {
            let unix: Int64
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let seconds = try? container.decode(Double.self) {
                    guard seconds.isFinite, abs(seconds) < 1e11 else {
                        throw DecodingError.dataCorruptedError(in: container, debugDescription: "a date out of range")
                    }
                    unix = Int64(seconds.rounded(.down)) + 978_307_200
                    return
                }
                let text = try container.decode(String.self)
                let formatter = ISO8601DateFormatter()
                var date = formatter.date(from: text)
                if date == nil {
                    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                    date = formatter.date(from: text)
                }
                guard let date else { throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 date") }
                unix = Int64(date.timeIntervalSince1970.rounded(.down))
            }
        }
        struct Interval: Decodable { let unit: String; let value: Int? }
        struct Repeat: Decodable { let first: When?; let count: Int?; let interval: Interval }
        struct PlanComponent: Decodable { let amount: Money; let scheduled: When?; let `repeat`: Repeat? }
        /// Who may start unplanned payments later: `customer` (the Swift client writes
        /// `constumer`, Paylike's docs `costumer`) and `merchant`.
        struct Unplanned: Decodable { let customer: Bool?; let constumer: Bool?; let costumer: Bool?; let merchant: Bool? }
        let integration: Integration
        let amount: Money?
        let card: Card
        let test: Test?
        let text: String?
        let plan: [PlanComponent]?
        let unplanned: Unplanned?
        let hints: [String]?
    }

    init(body: [UInt8], now: Int64) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw PaylikeProblem(.bodyInvalid, "The body must be a JSON object.")
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(body))
        } catch let error as DecodingError {
            let field = error.fieldPath
            throw PaylikeProblem.invalid(field, "\(field.isEmpty ? "the body" : field) is missing or has the wrong type.")
        }
        func checked(_ value: String, _ field: String, maxLength: Int) throws -> String {
            guard !value.isEmpty, value.utf8.count <= maxLength else { throw PaylikeProblem.invalid(field, "\(field) must be 1 to \(maxLength) bytes.") }
            return value
        }
        func money(_ money: Wire.Money, _ field: String) throws -> PaymentAmount {
            do {
                return try PaymentAmount(currency: money.currency, value: money.value, exponent: money.exponent)
            } catch {
                throw PaylikeProblem.invalid(field, error == .invalidCurrency ? "\(field).currency must be three capital letters." : "\(field).exponent must be 0 to 18.")
            }
        }
        key = try checked(wire.integration.key, "integration.key", maxLength: 255)
        guard let amount = wire.amount else {
            throw PaylikeProblem.invalid("amount", "Tender authorizes amounts: a payment without one (saving a card) is not supported.")
        }
        self.amount = try money(amount, "amount")
        numberToken = try checked(wire.card.number.token, "card.number.token", maxLength: 512)
        codeToken = try checked(wire.card.code.token, "card.code.token", maxLength: 512)
        guard (1...12).contains(wire.card.expiry.month) else { throw PaylikeProblem.invalid("card.expiry.month", "card.expiry.month must be 1 to 12.") }
        guard (0...9999).contains(wire.card.expiry.year) else { throw PaylikeProblem.invalid("card.expiry.year", "card.expiry.year must have 2 or 4 digits.") }
        expiryMonth = wire.card.expiry.month
        expiryYear = wire.card.expiry.year
        test = try wire.test.map { wireTest in
            func choice<T: RawRepresentable<String>>(_ value: String?, _ field: String, _ type: T.Type, aliases: [String: String] = [:]) throws -> T? {
                guard let value else { return nil }
                guard let parsed = T(rawValue: aliases[value] ?? value) else { throw PaylikeProblem.invalid(field, "\(field) has no value \"\(value.prefix(40))\".") }
                return parsed
            }
            var test = PaylikeTest()
            if let card = wireTest.card {
                test.scheme = try choice(card.scheme, "test.card.scheme", PaylikeTest.Scheme.self, aliases: ["unsuppported": "unsupported"]) ?? .supported
                test.code = try choice(card.code, "test.card.code", PaylikeTest.SecurityCode.self) ?? .valid
                test.status = try choice(card.status, "test.card.status", PaylikeTest.CardStatus.self) ?? .valid
                test.limit = try card.limit.map { try money($0, "test.card.limit") }
                test.balance = try card.balance.map { try money($0, "test.card.balance") }
            }
            test.fingerprint = try choice(wireTest.fingerprint ?? wireTest.fingerPrint, "test.fingerprint", PaylikeTest.Fingerprint.self) ?? .success
            if let tds = wireTest.tds {
                test.tds = PaylikeTest.TDS(
                    fingerprint: try choice(tds.fingerprint ?? tds.fingerPrint, "test.tds.fingerprint", PaylikeTest.TDSFingerprint.self) ?? .success,
                    challenge: tds.challenge ?? true,
                    status: try choice(tds.status, "test.tds.status", PaylikeTest.TDSStatus.self) ?? .authenticated)
            }
            return test
        }
        text = try wire.text.map { try checked($0, "text", maxLength: 1024) }
        if let wirePlan = wire.plan {
            var components: [PaylikePlanComponent] = []
            for (index, part) in wirePlan.enumerated() {
                var component = PaylikePlanComponent(amount: try money(part.amount, "plan.\(index).amount"), scheduled: part.scheduled?.unix)
                if let repetition = part.repeat {
                    guard let unit = PaylikePlanComponent.Unit(rawValue: repetition.interval.unit) else {
                        throw PaylikePaymentRequest.invalidPlan("plan.\(index).repeat.interval.unit")
                    }
                    component.repeat = .init(first: repetition.first?.unix, count: repetition.count, unit: unit, value: repetition.interval.value ?? 1)
                }
                components.append(component)
            }
            if let field = PaylikePlan.problem(components, now: now) { throw Self.invalidPlan(field) }
            plan = Self.planJSON(components)
        } else {
            plan = nil
        }
        if let flags = wire.unplanned {
            let customer = flags.customer ?? flags.constumer ?? flags.costumer ?? false
            unplanned = (customer ? ["customer"] : []) + (flags.merchant == true ? ["merchant"] : [])
        } else {
            unplanned = nil
        }
        if let custom = object["custom"] {
            guard let data = try? JSONSerialization.data(withJSONObject: custom, options: [.sortedKeys, .fragmentsAllowed]), data.count <= 16_384 else {
                throw PaylikeProblem.invalid("custom", "custom must be JSON of at most 16 KiB.")
            }
            self.custom = String(decoding: data, as: UTF8.self)
        } else {
            custom = nil
        }
        let hints = wire.hints ?? []
        guard hints.count <= Self.maxHints, hints.allSatisfy({ $0.utf8.count <= 200 }) else {
            throw PaylikeProblem.invalid("hints", "hints must be at most \(Self.maxHints) strings of at most 200 bytes.")
        }
        self.hints = hints
        var rest = object
        rest["hints"] = nil
        guard let canonical = try? JSONSerialization.data(withJSONObject: rest, options: [.sortedKeys]) else {
            throw PaylikeProblem(.bodyInvalid, "The body cannot be read as JSON.")
        }
        digest = Array(SHA256.hash(data: canonical))
    }

    static func invalidPlan(_ field: String) -> PaylikeProblem {
        PaylikeProblem.invalid(field, "\(field) breaks the plan's rules: each component due once (scheduled) or repeated, a count of at least 1 (optional only in the last), an interval of at least 1 day, week, month or year, and dates in order.")
    }

    static func planJSON(_ plan: [PaylikePlanComponent]) -> String {
        let formatter = ISO8601DateFormatter()
        func date(_ unix: Int64) -> JSONValue { .string(formatter.string(from: Date(timeIntervalSince1970: TimeInterval(unix)))) }
        return JSONValue.array(plan.map { component in
            var fields: [(String, JSONValue)] = [("amount", .object([
                ("currency", .string(component.amount.currency)), ("exponent", .number(Int64(component.amount.exponent))), ("value", .number(component.amount.value)),
            ]))]
            if let scheduled = component.scheduled { fields.append(("scheduled", date(scheduled))) }
            if let repetition = component.repeat {
                var repeatFields: [(String, JSONValue)] = []
                if let first = repetition.first { repeatFields.append(("first", date(first))) }
                if let count = repetition.count { repeatFields.append(("count", .number(Int64(count)))) }
                repeatFields.append(("interval", .object([("unit", .string(repetition.unit.rawValue)), ("value", .number(Int64(repetition.value)))])))
                fields.append(("repeat", .object(repeatFields)))
            }
            return .object(fields)
        }).compact()
    }
}

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
        let base = routes.baseURL(request) + "/paylike"
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
                intentID: intentID, methodID: derivedID("pm", payment.digest), clientSecret: intentID + "_secret_" + String(derivedID("s", payment.digest).dropFirst(2)),
                amount: minor, currency: currency,
                card: PaymentMethodRecord.Card(
                    brand: brand, last4: String(digits.suffix(4)), expMonth: expiry.month, expYear: expiry.year, country: "NL",
                    fingerprint: service.secrets.fingerprint(cardDigits: digits), outcome: TestAcquirer.outcome(forCardDigits: digits)),
                text: payment.text, custom: payment.custom, plan: payment.plan, unplanned: payment.unplanned, flow: flow,
                challengeAnswer: names.count > 7 ? names[7] : nil)
            return json(.object([("authorizationId", .string(try await service.authorize(authorization, merchant: merchant, base: request.baseURL)))]))
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
        guard let answer = try form.string("answer", maxLength: 20) else { return PaylikeFrames.challenge(token: token) }
        guard answer == "authenticated" || answer == "failed" else { throw PaylikeProblem.invalid("answer", "answer must be authenticated or failed.") }
        return PaylikeFrames.posting(hints: [hint("tds-challenge-\(answer)", at: 7, digest: digest)], title: "3-D Secure", nonce: service.random(16))
    }
}

/// The frame pages: tiny, escaped, nothing loaded from elsewhere, their one script allowed by
/// a nonce.
enum PaylikeFrames {
    static func response(_ html: String, nonce: String?) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        let script = nonce.map { "script-src 'nonce-\($0)'" } ?? "script-src 'none'"
        headers[HTTPFields.headerName("Content-Security-Policy")] = "default-src 'none'; \(script); style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'"
        headers[HTTPFields.headerName("Referrer-Policy")] = "no-referrer"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func document(_ title: String, _ body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(GatewayTestPages.escape(title))</title>
        <style>body{font-family:system-ui,sans-serif;margin:1rem}button{font-size:1rem;margin:.25rem}</style>
        </head><body>
        \(body)
        </body></html>
        """
    }

    /// A page whose script posts `{hints}` to the parent window, as Paylike's frames end; its
    /// script allowed by a CSP nonce made of `nonce`'s bytes.
    static func posting(hints: [String], title: String, nonce bytes: [UInt8]) -> Response {
        let nonce = PaylikeRoutes.base64url(bytes)
        let message = JSONValue.object([("hints", .array(hints.map(JSONValue.string)))]).compact()
        // The JSON is safe inside a script: hints are names and base64url, and "<" is escaped.
        let script = message.replacingOccurrences(of: "<", with: "\\u003c")
        return response(document(title, """
            <p id="done">Done.</p>
            <script nonce="\(nonce)">var message = \(script); (window.parent !== window ? window.parent : window).postMessage(message, "*");</script>
            """), nonce: nonce)
    }

    static func challenge(token: String) -> Response {
        let value = GatewayTestPages.escape(token)
        return response(document("3-D Secure test challenge", """
            <h1>3-D Secure test challenge</h1>
            <p>Authenticate this payment?</p>
            <form method="post" action="challenge"><input type="hidden" name="creq" value="\(value)"><input type="hidden" name="answer" value="authenticated"><button id="complete" type="submit">Complete</button></form>
            <form method="post" action="challenge"><input type="hidden" name="creq" value="\(value)"><input type="hidden" name="answer" value="failed"><button id="fail" type="submit">Fail</button></form>
            """), nonce: nil)
    }
}

extension DecodingError {
    /// The field at fault, as a dotted path (`card.expiry.month`, `plan.0.amount`); empty for
    /// the body itself.
    var fieldPath: String {
        let path: [CodingKey]
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): path = context.codingPath
        case .keyNotFound(let key, let context): path = context.codingPath + [key]
        @unknown default: path = []
        }
        return path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
