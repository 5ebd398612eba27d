import Crypto
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import Logging
import NIOCore
import StellarBase
import TenderJSON

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
