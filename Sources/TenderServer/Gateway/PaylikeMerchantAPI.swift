import Foundation
import Gateway
import GatewayCore
import Hummingbird
import TenderJSON

/// Paylike's merchant API (api-docs) under `/paylike/api`: a transaction is a payment intent
/// that was authorized; captures, refunds and voids move it through the gateway's state
/// machine and settle on the ledger as `/v1` does. Basic auth with the merchant's secret key
/// as the password (an empty user name, as Paylike's clients send it).
struct PaylikeMerchantAPI: Sendable {
    let service: GatewayService
    let routes: GatewayRoutes

    func register(on parent: RouterGroup<BasicRequestContext>) {
        let api = parent.group(context: PaylikeRequestContext.self)
        api.add(middleware: PaylikeAuthenticator(service: service))
        api.get("transactions/:id") { request, context in
            let merchant = try context.merchant()
            let (intent, _) = try await transaction(try context.parameters.require("id"), merchant)
            return try await answer(intent, merchant, status: .ok)
        }
        api.post("transactions/:id/captures") { request, context in
            let merchant = try context.merchant()
            let fields = try await body(request)
            let (intent, _) = try await transaction(try context.parameters.require("id"), merchant)
            let amount = try Self.amount(fields)
            if let code = fields.currency {
                guard code.uppercased() == intent.currency.uppercased() else {
                    throw PaylikeProblem.invalid("currency", "The currency must be the transaction's, \(intent.currency.uppercased()).")
                }
            }
            do {
                return try await answer(
                    try await service.capture(amount, of: intent.id, descriptor: fields.descriptor, merchant: merchant, base: request.baseURL), merchant, status: .created)
            } catch let failure as GatewayFailure where failure.category == .invalidRequest {
                throw PaylikeProblem.invalid(failure.parameter ?? "amount", failure.message)
            }
        }
        api.post("transactions/:id/refunds") { request, context in
            let merchant = try context.merchant()
            let fields = try await body(request)
            let id = try context.parameters.require("id")
            _ = try await transaction(id, merchant)
            let amount = try Self.amount(fields)
            do {
                _ = try await service.refund(
                    NewRefund(paymentIntent: PaymentIntentID(id), amount: amount, descriptor: fields.descriptor), id: RefundID(service.newID("re")), merchant: merchant)
            } catch let error as GatewayFailure where error.category == .invalidRequest {
                throw PaylikeProblem(status: .badRequest, code: PaylikeCode.requestInvalid.rawValue, message: error.message)
            }
            return try await answer(try await transaction(id, merchant).0, merchant, status: .created)
        }
        api.post("transactions/:id/voids") { request, context in
            let merchant = try context.merchant()
            let fields = try await body(request)
            let (intent, _) = try await transaction(try context.parameters.require("id"), merchant)
            let amount = try Self.amount(fields)
            do {
                return try await answer(try await service.void(amount, of: intent.id, merchant: merchant, base: request.baseURL), merchant, status: .created)
            } catch let failure as GatewayFailure where failure.category == .invalidRequest {
                throw PaylikeProblem.invalid(failure.parameter ?? "amount", failure.message)
            }
        }
        api.get("merchants/:merchant/transactions") { request, context in
            let merchant = try context.merchant()
            guard try context.parameters.require("merchant") == merchant.id else {
                throw PaylikeProblem(status: .forbidden, code: "FORBIDDEN", message: "This key does not belong to that merchant.")
            }
            let query = try StripeForm(body: request.uri.query ?? "")
            guard let limitText = try query.string("limit", maxLength: 4), limitText.utf8.allSatisfy({ (48...57).contains($0) }),
                  let limit = Int(limitText), (1...1000).contains(limit) else {
                throw PaylikeProblem.invalid("limit", "limit (1 to 1000) is required.")
            }
            let before = try query.string("before", maxLength: 255)
            // Newest first, authorized intents only, a page at a time.
            var found: [JSONValue] = []
            var cursor = before
            while found.count < limit {
                let page = try await service.list(PaymentIntentRecord.self, merchant: merchant, ListRequest(limit: 100, startingAfter: cursor))
                for intent in page.records where Self.isTransaction(intent) && found.count < limit {
                    found.append(try await transactionJSON(intent, merchant))
                }
                guard page.hasMore, let last = page.records.last else { break }
                cursor = last.id.rawValue
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: JSONValue.array(found).compactBytes())))
        }
    }

    /// What captures, refunds and voids take, strictly typed (JSON's integers only).
    struct Fields: Decodable {
        var amount: Int64?
        var currency: String?
        var descriptor: String?
    }

    /// A JSON object body (Paylike's clients send JSON; an empty body is no fields).
    func body(_ request: Request) async throws -> Fields {
        var request = request
        let buffer = try await request.collectBody(upTo: PaylikeRoutes.maxBodyBytes)
        guard buffer.readableBytes > 0 else { return Fields() }
        do {
            return try JSONDecoder().decode(Fields.self, from: Data(buffer.readableBytesView))
        } catch {
            throw PaylikeProblem(.bodyInvalid, "The body must be a JSON object with amount (whole minor units), currency and descriptor (strings).")
        }
    }

    /// `amount` in minor units: a whole number from 1 up.
    static func amount(_ fields: Fields) throws -> Int64 {
        guard let value = fields.amount, value >= 1 else {
            throw PaylikeProblem.invalid("amount", "amount must be a whole number of minor units, at least 1.")
        }
        return value
    }

    /// Whether an intent is a Paylike transaction: something was authorized or captured.
    static func isTransaction(_ intent: PaymentIntentRecord) -> Bool {
        intent.machine.amountAuthorized != nil || intent.machine.amountReceived > 0
    }

    func transaction(_ id: String, _ merchant: MerchantRecord) async throws -> (PaymentIntentRecord, StoredObject) {
        let notFound = PaylikeProblem(status: .notFound, code: "NOT_FOUND", message: "No such transaction.")
        let found: (PaymentIntentRecord, StoredObject)
        do {
            found = try await service.intent(PaymentIntentID(id), merchant: merchant)
        } catch {
            guard error.category == .notFound else { throw error }
            throw notFound
        }
        guard Self.isTransaction(found.0) else { throw notFound }
        return found
    }

    func answer(_ intent: PaymentIntentRecord, _ merchant: MerchantRecord, status: HTTPResponse.Status) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let body = JSONValue.object([("transaction", try await transactionJSON(intent, merchant))])
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.compactBytes())))
    }

    static func date(_ seconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// A transaction in Paylike's shape: the amounts from the state machine, the card as kept.
    func transactionJSON(_ intent: PaymentIntentRecord, _ merchant: MerchantRecord) async throws -> JSONValue {
        let machine = intent.machine
        var fields: [(String, JSONValue)] = [
            ("id", .string(intent.id.rawValue)), ("merchantId", .string(merchant.id)), ("test", true), ("created", .string(Self.date(intent.created))),
            ("currency", .string(intent.currency.uppercased())), ("amount", .number(machine.amountAuthorized ?? machine.amountReceived)),
            ("pendingAmount", .number(machine.amountCapturable)), ("capturedAmount", .number(machine.amountReceived)),
            ("refundedAmount", .number(machine.amountRefunded)), ("voidedAmount", .number(machine.amountReleased)),
            ("disputed", false), ("successful", true), ("error", false),
            ("text", intent.description.map(JSONValue.string) ?? .null),
            ("custom", intent.custom.map { .raw(Array($0.utf8)) } ?? .null),
        ]
        if let plan = intent.plan { fields.append(("plan", .raw(Array(plan.utf8)))) }
        if let unplanned = intent.unplanned { fields.append(("unplanned", .object(unplanned.map { ($0, .bool(true)) }))) }
        if let methodID = machine.paymentMethod,
           let card = try await service.find(PaymentMethodRecord.self, id: PaymentMethodID(methodID), merchant: merchant)?.card {
            fields.append(("card", .object([
                ("last4", .string(card.last4)), ("scheme", .string(card.brand.rawValue)),
                ("expiry", .string(String(format: "%04d-%02d", card.expYear, card.expMonth))), ("code", .object([("present", true)])),
            ])))
        }
        fields.append(("trail", .array((intent.trail ?? []).map { entry in
            var item: [(String, JSONValue)] = [(entry.kind.rawValue, true), ("amount", .number(entry.amount)), ("created", .string(Self.date(entry.created)))]
            if let descriptor = entry.descriptor { item.append(("descriptor", .string(descriptor))) }
            return .object(item)
        })))
        return .object(fields)
    }
}

/// A request to Paylike's merchant API as its routes see it: the merchant its basic auth names,
/// read once by ``PaylikeAuthenticator``.
struct PaylikeRequestContext: ChildRequestContext {
    typealias ParentContext = BasicRequestContext
    var coreContext: CoreRequestContextStorage
    var credential: Result<MerchantRecord, PaylikeProblem> = .failure(PaylikeProblem(status: .unauthorized, code: "UNAUTHORIZED", message: "Use basic auth with your API key as the password."))

    init(context: BasicRequestContext) throws {
        // The parent's storage as it is: the logger and the path's parameters the router found.
        coreContext = context.coreContext
    }

    /// The merchant whose secret key the request presents.
    /// - Throws: Paylike's 401 `UNAUTHORIZED` for no basic auth or a key that is no merchant's secret key.
    func merchant() throws -> MerchantRecord { try credential.get() }
}

/// Reads the basic auth of every request to Paylike's merchant API: the merchant's secret key is
/// the password (or, as some clients send it, the user name).
struct PaylikeAuthenticator: RouterMiddleware {
    typealias Context = PaylikeRequestContext
    let service: GatewayService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let header = request.headers[.authorization], header.hasPrefix("Basic "),
           let decoded = Data(base64Encoded: String(header.dropFirst("Basic ".count))), let text = String(data: decoded, encoding: .utf8) {
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let key = parts.count == 2 && !parts[1].isEmpty ? parts[1] : parts[0]
            if let (merchant, kind) = try await service.merchant(key: key), kind == .secret {
                context.credential = .success(merchant)
            } else {
                context.credential = .failure(PaylikeProblem(status: .unauthorized, code: "UNAUTHORIZED", message: "Unknown API key."))
            }
        }
        return try await next(request, context)
    }
}
