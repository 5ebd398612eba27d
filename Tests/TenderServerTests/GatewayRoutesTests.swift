import Foundation
import Gateway
import GatewayCore
import Hummingbird
import HummingbirdTesting
import Store
import TenderTesting
import Testing
@testable import TenderServer

@Suite("Stripe's form encoding")
struct StripeFormTests {
    @Test func bracketsNestAndIndexedOrEmptyBracketsMakeLists() throws {
        let form = try StripeForm(body: "amount=1099&metadata[order]=7&metadata[note]=a+b%26c&payment_method_types[]=card&payment_method_types[]=ideal&card[number]=4242&x[0]=a&x[1]=b")
        #expect(try form.integer("amount") == 1099)
        #expect(try form.metadata() == ["order": "7", "note": "a b&c"])
        #expect(try form.stringList("payment_method_types") == ["card", "ideal"])
        #expect(try form.stringList("x") == ["a", "b"])
        #expect(try form.hash("card")?.string("number") == "4242")
        #expect(try form.string("missing") == nil)
    }

    @Test func refusals() throws {
        for body in ["a[b=1", "a[b]x=1", "=1", "a=1&a[b]=2", "a[b]=1&a=2", "%zz=1", "a=%C3%28", "a[b][c][d][e][f]=1", String(repeating: "a=1&", count: 1001)] {
            #expect(throws: StripeError.self, "\(body.prefix(40))") { try StripeForm(body: body) }
        }
        let form = try! StripeForm(body: "amount=1e3&n=-0&big=9223372036854775808&neg=-9223372036854775808&flag=yes&list[a]=1&arabic=%D9%A1")
        #expect(throws: StripeError.self) { try form.integer("amount") }
        #expect(try form.integer("n") == 0)
        #expect(throws: StripeError.self) { try form.integer("big") }
        #expect(try form.integer("neg") == Int64.min)
        #expect(throws: StripeError.self) { try form.integer("arabic") }
        #expect(throws: StripeError.self) { try form.boolean("flag") }
        #expect(throws: StripeError.self) { try form.stringList("list") }
        #expect(throws: StripeError.self) { try form.hash("amount") }
        #expect(throws: StripeError.self) { try form.refuseUnknown(["amount"]) }
    }
}

/// Counts the writes that reach the gateway's store, to show that a refused request changed
/// nothing; told to, runs something before one write, or fails it as a full disk would.
final class CountingGatewayStore: GatewayStore, @unchecked Sendable {
    let base: SQLiteGatewayStore
    private let lock = NSLock()
    private var count = 0
    private var intercept: (match: @Sendable (StoredObject) -> Bool, action: @Sendable () async throws -> Void)?
    private var follow: (match: @Sendable (StoredObject) -> Bool, action: @Sendable () async -> Void)?
    var writes: Int { lock.withLock { count } }

    struct InjectedFailure: Error {}

    init(path: String) throws { base = try SQLiteGatewayStore(path: path) }
    private func counted() { lock.withLock { count += 1 } }

    /// The next `write` of an object `match` picks runs `action` first (once); if it throws,
    /// the write throws that and writes nothing.
    func beforeNextWrite(where match: @escaping @Sendable (StoredObject) -> Bool, _ action: @escaping @Sendable () async throws -> Void) {
        lock.withLock { intercept = (match, action) }
    }

    /// The next `write` of an object `match` picks runs `action` once it has written (once).
    func afterNextWrite(where match: @escaping @Sendable (StoredObject) -> Bool, _ action: @escaping @Sendable () async -> Void) {
        lock.withLock { follow = (match, action) }
    }

    /// The intent's first write in a settlement: pending, before the ledger is asked.
    static func pendingIntent(_ object: StoredObject) -> Bool {
        object.kind == "payment_intent" && String(decoding: object.body, as: UTF8.self).contains(#""settlement":"pending""#)
    }

    /// The intent's last write in a settlement: the one that records its ledger transaction.
    static func settledIntent(_ object: StoredObject) -> Bool {
        object.kind == "payment_intent" && String(decoding: object.body, as: UTF8.self).contains("settlementTransaction")
    }

    func insertMerchant(_ merchant: MerchantRecord) async throws { try await base.insertMerchant(merchant); counted() }
    func merchant(keyHash: [UInt8]) async throws -> (MerchantRecord, KeyKind)? { try await base.merchant(keyHash: keyHash) }
    func merchants() async throws -> [MerchantRecord] { try await base.merchants() }
    func merchant(id: String) async throws -> MerchantRecord? { try await base.merchant(id: id) }
    func insert(_ object: StoredObject) async throws { try await base.insert(object); counted() }
    func object(id: String, kind: String, merchant: String) async throws -> StoredObject? { try await base.object(id: id, kind: kind, merchant: merchant) }
    func object(id: String, kind: String) async throws -> StoredObject? { try await base.object(id: id, kind: kind) }
    func write(_ object: StoredObject, isNew: Bool, events: [StoredEvent]) async throws -> Bool {
        let action = lock.withLock { () -> (@Sendable () async throws -> Void)? in
            guard let intercept, intercept.match(object) else { return nil }
            self.intercept = nil
            return intercept.action
        }
        try await action?()
        let written = try await base.write(object, isNew: isNew, events: events)
        if written { counted() }
        let then = lock.withLock { () -> (@Sendable () async -> Void)? in
            guard written, let follow, follow.match(object) else { return nil }
            self.follow = nil
            return follow.action
        }
        await then?()
        return written
    }
    func retire(_ object: StoredObject, as kind: String) async throws -> Bool {
        let retired = try await base.retire(object, as: kind)
        if retired { counted() }
        return retired
    }

    func update(_ object: StoredObject) async throws -> Bool {
        let updated = try await base.update(object)
        if updated { counted() }
        return updated
    }
    func update(_ update: StoredObject, inserting insert: StoredObject) async throws -> Bool {
        let updated = try await base.update(update, inserting: insert)
        if updated { counted() }
        return updated
    }
    func list(kind: String, merchant: String, _ request: ListRequest) async throws -> (objects: [StoredObject], hasMore: Bool) { try await base.list(kind: kind, merchant: merchant, request) }
    func claimIdempotencyKey(_ key: String, merchant: String, requestHash: [UInt8], now: Int64, expiresBefore: Int64) async throws -> IdempotencyClaim {
        try await base.claimIdempotencyKey(key, merchant: merchant, requestHash: requestHash, now: now, expiresBefore: expiresBefore)
    }
    func recordIdempotentAnswer(_ key: String, merchant: String, status: Int, body: [UInt8]) async throws { try await base.recordIdempotentAnswer(key, merchant: merchant, status: status, body: body) }
    func interruptIdempotencyKey(_ key: String, merchant: String) async throws { try await base.interruptIdempotencyKey(key, merchant: merchant) }
    func markInterruptedIdempotencyKeys() async throws { try await base.markInterruptedIdempotencyKeys() }
    func insertEvent(_ event: StoredObject, deliveries: [WebhookDelivery]) async throws { try await base.insertEvent(event, deliveries: deliveries); counted() }
    func dueObjects(kind: String, now: Int64, limit: Int) async throws -> [StoredObject] { try await base.dueObjects(kind: kind, now: now, limit: limit) }
    func dueDeliveries(now: Int64, limit: Int) async throws -> [WebhookDelivery] { try await base.dueDeliveries(now: now, limit: limit) }
    func nextDeliveryTime() async throws -> Int64? { try await base.nextDeliveryTime() }
    func updateDelivery(_ delivery: WebhookDelivery) async throws { try await base.updateDelivery(delivery) }
    func deliveries(event: String) async throws -> [WebhookDelivery] { try await base.deliveries(event: event) }
    func deliveries(endpoint: String, limit: Int) async throws -> [WebhookDelivery] { try await base.deliveries(endpoint: endpoint, limit: limit) }
}

@Suite("The gateway's routes")
struct GatewayRoutesTests {
    let temporary = TemporaryDirectory("gateway")

    struct Answer {
        let status: HTTPResponse.Status
        let json: [String: Any]
    }

    static func call(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, key: String?, body: String = "") async throws -> Answer {
        var headers = HTTPFields()
        if let key { headers[.authorization] = "Bearer \(key)" }
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: body)) { response in
            let json = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]
            return Answer(status: response.status, json: json ?? ["unparsed": String(buffer: response.body)])
        }
    }

    /// 20,000 requests: every parameter of every route with each boundary value, then random
    /// and mutated bodies. Each answer is a 200 or a JSON error in Stripe's shape with a type and
    /// a status under 500; a refused request writes nothing (but a 402 decline moves its intent
    /// and a refund the ledger refused is kept as failed); the server is up afterwards.
    @Test func boundaryValuesAndMutatedBodiesNeverCrashOrChangeAnything() async throws {
        let directory = temporary.file("data")
        var configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        configuration.fundingQueueLimit = 1_000
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try CountingGatewayStore(path: directory + "/gateway.sqlite")
        let app = try await buildApplication(configuration, store: try SQLiteLedgerStore(path: configuration.databasePath), gatewayStore: store)
        try await app.test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let merchant = try await Self.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=Fuzz")
            let key = try #require(merchant.json["secret_key"] as? String)
            let card = "type=card&card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2034&card[cvc]=123"
            let pm = try #require(try await Self.call(client, .post, "/v1/payment_methods", key: key, body: card).json["id"] as? String)
            let held = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=5000&currency=eur&capture_method=manual&confirm=true&payment_method=\(pm)")
            let heldID = try #require(held.json["id"] as? String)
            let open = try #require(try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=5000&currency=eur").json["id"] as? String)

            // Valid bodies for each route, whose parameters are then replaced one at a time.
            let routes: [(String, [(String, String)])] = [
                ("/v1/payment_methods", [("type", "card"), ("card[number]", "4242424242424242"), ("card[exp_month]", "12"), ("card[exp_year]", "2034"), ("card[cvc]", "123")]),
                ("/v1/payment_methods", [("type", "ideal"), ("ideal[bank]", "ing"), ("metadata[a]", "b")]),
                ("/v1/payment_intents", [("amount", "1000"), ("currency", "eur"), ("payment_method_types[]", "card"), ("payment_method", pm), ("capture_method", "manual"), ("description", "d"), ("metadata[k]", "v"), ("return_url", "https://a.example/")]),
                ("/v1/payment_intents/\(open)", [("amount", "1200"), ("description", "x"), ("metadata[k]", "v"), ("payment_method", pm)]),
                ("/v1/payment_intents/\(open)/confirm", [("payment_method", pm), ("return_url", "https://a.example/")]),
                ("/v1/payment_intents/\(heldID)/capture", [("amount_to_capture", "100")]),
                ("/v1/payment_intents/\(open)/cancel", [("cancellation_reason", "duplicate")]),
                ("/v1/payouts", [("amount", "100"), ("currency", "eur"), ("destination", merchant.json["settlement_account"] as! String)]),
                ("/v1/refunds", [("payment_intent", heldID), ("amount", "100"), ("reason", "duplicate")]),
                ("/v1/payment_links", [("amount", "1000"), ("currency", "eur"), ("description", "d"), ("theme[primary]", "#fff"), ("theme[radius]", "4"), ("metadata[k]", "v")]),
            ]
            let values = BoundaryValues.all.map(BoundaryValues.percentEncoded) + BoundaryValues.rawEscapes
            var bodies: [(String, String)] = []
            for (path, parameters) in routes {
                for index in parameters.indices {
                    for value in values {
                        var changed = parameters
                        changed[index].1 = value
                        bodies.append((path, changed.map { "\($0.0)=\($0.1)" }.joined(separator: "&")))
                    }
                }
            }
            var random = SplitMix64(seed: 20_261_123)
            let alphabet = Array("abc019-+.e[]%&=_ \u{0}é".utf8)
            while bodies.count < 20_000 {
                let (path, parameters) = routes[Int(random.next() % UInt64(routes.count))]
                var bytes = Array(parameters.map { "\($0.0)=\($0.1)" }.joined(separator: "&").utf8)
                for _ in 0..<(1 + random.next() % 4) {
                    let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
                    switch random.next() % 4 {
                    case 0 where !bytes.isEmpty: bytes.remove(at: position)
                    case 1: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: position)
                    case 2 where !bytes.isEmpty: bytes[position] = UInt8(truncatingIfNeeded: random.next())
                    default: bytes = Array(bytes.prefix(position))
                    }
                }
                bodies.append((path, String(decoding: bytes, as: UTF8.self)))
            }
            var statuses: [Int: Int] = [:]
            for (path, body) in bodies {
                let writesBefore = store.writes
                let answer = try await Self.call(client, .post, path, key: key, body: body)
                statuses[answer.status.code, default: 0] += 1
                if answer.status == .ok { continue }
                let error = answer.json["error"] as? [String: Any]
                #expect(answer.status.code < 500 && error?["type"] is String, "\(path) \(body.prefix(200)) → \(answer.status) \(answer.json)")
                // A refund the ledger refused is kept, as Stripe keeps it, with status failed.
                let keptFailedRefund = path == "/v1/refunds" && error?["code"] as? String == "balance_insufficient"
                if answer.status.code != 402 && !keptFailedRefund {
                    #expect(store.writes == writesBefore, "a refused \(path) wrote: \(body.prefix(200)) → \(answer.json)")
                }
            }
            #expect(bodies.count >= 20_000)
            #expect(statuses[400, default: 0] > 1_000, "\(statuses)")
            // Boundary values in the query strings of the GET routes.
            for value in values {
                for uri in ["/v1/payment_intents?limit=\(value)", "/v1/payment_intents?starting_after=\(value)", "/v1/payment_intents/\(value)",
                            "/v1/payment_methods/\(value)", "/v1/test/3ds/\(open)?client_secret=\(value)", "/v1/test/bank/\(value)?client_secret=x",
                            "/pay/\(value)", "/pay/\(open)_secret_\(value)", "/v1/payment_links/\(value)"] {
                    let answer = try await Self.call(client, .get, uri, key: key)
                    #expect(answer.status.code < 500, "\(uri.prefix(200)) → \(answer.status)")
                }
            }
            #expect(try await Self.call(client, .get, "/v1/balance", key: key).status == .ok)
            // A body over the limit is refused in Stripe's shape, not a 500.
            let huge = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "description=" + String(repeating: "x", count: 300_000))
            #expect(huge.status == .contentTooLarge && (huge.json["error"] as? [String: Any])?["code"] as? String == "request_too_large", "\(huge.status)")
        }
    }

    /// An unknown route or method answers in the API's own shape under `/v1`, `/paylike` and
    /// `/checkout/v1` (the stripe library reads Stripe's error, not "Invalid response object"),
    /// and in Horizon's elsewhere.
    @Test func unknownRoutesAnswerInTheirAPIsShape() async throws {
        let directory = temporary.file("unknown-routes")
        let app = try await buildApplication(TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero))
        try await app.test(.router) { client in
            for (method, uri) in [(HTTPRequest.Method.get, "/v1/nothing"), (.delete, "/v1/payment_intents"), (.put, "/v1/balance"), (.get, "/v1")] {
                let answer = try await Self.call(client, method, uri, key: nil)
                let error = answer.json["error"] as? [String: Any]
                #expect(answer.status == .notFound && error?["type"] as? String == "invalid_request_error"
                        && (error?["message"] as? String)?.hasPrefix("Unrecognized request URL (\(method.rawValue): \(uri))") == true, "\(uri): \(answer.json)")
            }
            for uri in ["/paylike/nothing", "/paylike"] {
                let answer = try await Self.call(client, .get, uri, key: nil)
                #expect(answer.status == .notFound && answer.json["code"] as? String == "ENDPOINT_NOT_FOUND" && answer.json["errors"] is [Any], "\(uri): \(answer.json)")
            }
            let checkout = try await Self.call(client, .get, "/checkout/v1/nothing", key: nil)
            #expect(checkout.status == .notFound && checkout.json["type"] == nil && (checkout.json["error"] as? [String: Any])?["code"] != nil, "\(checkout.json)")
            let horizon = try await Self.call(client, .get, "/nothing", key: nil)
            #expect(horizon.status == .notFound && horizon.json["type"] as? String == "https://stellar.org/horizon-errors/not_found")
            let v1ish = try await Self.call(client, .get, "/v1x", key: nil)
            #expect(v1ish.json["type"] as? String == "https://stellar.org/horizon-errors/not_found", "only /v1 and below are Stripe's")
        }
    }

    /// Stripe's own answers where Tender's differed (issue 26's defects): an unknown parameter is
    /// `parameter_unknown`, on a retrieve as on a list or a create; a customer that does not
    /// exist is 400 `resource_missing` naming `customer`, and the intent is not made.
    @Test func unknownParametersAndMissingCustomersAsStripeAnswersThem() async throws {
        let directory = temporary.file("stripe-codes")
        let app = try await buildApplication(TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero))
        try await app.test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let key = try await Self.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=A").json["secret_key"] as! String
            func error(_ answer: Answer) -> [String: Any] { answer.json["error"] as? [String: Any] ?? [:] }
            let made = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=1000&currency=eur&colour=red")
            #expect(made.status == .badRequest && error(made)["code"] as? String == "parameter_unknown" && error(made)["param"] as? String == "colour")
            let intent = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=1000&currency=eur").json
            let id = try #require(intent["id"] as? String)
            for uri in ["/v1/payment_intents/\(id)?colour=red", "/v1/payment_intents?colour=red", "/v1/customers/cus_x?colour=red"] {
                let answer = try await Self.call(client, .get, uri, key: key)
                #expect(answer.status == .badRequest && error(answer)["code"] as? String == "parameter_unknown", "\(uri): \(answer.json)")
            }
            #expect(try await Self.call(client, .get, "/v1/payment_intents/\(id)", key: key).status == .ok)
            let before = (try await Self.call(client, .get, "/v1/payment_intents", key: key).json["data"] as? [Any])?.count
            let nobody = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=1000&currency=eur&customer=cus_doesnotexist")
            #expect(nobody.status == .badRequest && error(nobody)["code"] as? String == "resource_missing" && error(nobody)["param"] as? String == "customer", "\(nobody.json)")
            #expect((try await Self.call(client, .get, "/v1/payment_intents", key: key).json["data"] as? [Any])?.count == before, "nothing made")
            let updated = try await Self.call(client, .post, "/v1/payment_intents/\(id)", key: key, body: "customer=cus_doesnotexist")
            #expect(updated.status == .badRequest && error(updated)["param"] as? String == "customer")
            let customer = try #require(try await Self.call(client, .post, "/v1/customers", key: key, body: "name=Ada").json["id"] as? String)
            let known = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=1000&currency=eur&customer=\(customer)")
            #expect(known.status == .ok && known.json["customer"] as? String == customer)
        }
    }

    @Test func keysAndOtherMerchantsData() async throws {
        let directory = temporary.file("keys")
        let configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try await Self.call(client, .post, "/v1/admin/merchants", key: nil, body: "name=A").status == .unauthorized)
            #expect(try await Self.call(client, .post, "/v1/admin/merchants", key: admin + "x", body: "name=A").status == .unauthorized)
            let a = try await Self.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=A").json
            let b = try await Self.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=B").json
            let (secretA, publishableA, secretB) = (a["secret_key"] as! String, a["publishable_key"] as! String, b["secret_key"] as! String)
            #expect(try await Self.call(client, .get, "/v1/payment_intents", key: nil).status == .unauthorized)
            #expect(try await Self.call(client, .get, "/v1/payment_intents", key: "sk_test_unknown").json["error"].map { ($0 as! [String: Any])["type"] as? String } == "authentication_error")
            #expect(try await Self.call(client, .get, "/v1/payment_intents", key: publishableA).status == .forbidden)
            #expect(try await Self.call(client, .get, "/v1/balance", key: publishableA).status == .forbidden)
            let intent = try await Self.call(client, .post, "/v1/payment_intents", key: secretA, body: "amount=1000&currency=eur").json
            let id = intent["id"] as! String
            let secret = intent["client_secret"] as! String
            // B sees nothing of A's and changes nothing.
            for (method, uri) in [(HTTPRequest.Method.get, "/v1/payment_intents/\(id)"), (.post, "/v1/payment_intents/\(id)"), (.post, "/v1/payment_intents/\(id)/cancel"), (.post, "/v1/payment_intents/\(id)/confirm")] {
                let answer = try await Self.call(client, method, uri, key: secretB, body: method == .post ? "" : "")
                #expect(answer.status == .notFound, "\(uri)")
            }
            #expect((try await Self.call(client, .get, "/v1/payment_intents", key: secretB).json["data"] as? [Any])?.isEmpty == true)
            #expect(try await Self.call(client, .get, "/v1/payment_intents/\(id)", key: secretA).json["status"] as? String == "requires_payment_method")
            // A publishable key reads an intent only with its client secret.
            #expect(try await Self.call(client, .get, "/v1/payment_intents/\(id)", key: publishableA).status == .badRequest)
            #expect(try await Self.call(client, .get, "/v1/payment_intents/\(id)?client_secret=\(secret)x", key: publishableA).status == .badRequest)
            #expect(try await Self.call(client, .get, "/v1/payment_intents/\(id)?client_secret=\(secret)", key: publishableA).status == .ok)
            // Basic auth with the key as the user name works as Bearer does.
            var headers = HTTPFields()
            headers[.authorization] = "Basic " + Data("\(secretA):".utf8).base64EncodedString()
            try await client.execute(uri: "/v1/payment_intents/\(id)", method: .get, headers: headers) { response in
                #expect(response.status == .ok)
            }
            // Keys are stored hashed: neither appears in the database.
            let database = try Data(contentsOf: URL(fileURLWithPath: directory + "/gateway.sqlite"))
                + ((try? Data(contentsOf: URL(fileURLWithPath: directory + "/gateway.sqlite-wal"))) ?? Data())
            for key in [secretA, publishableA, secretB] { #expect(database.range(of: Data(key.utf8)) == nil) }
        }
    }

    @Test func idempotencyKeys() async throws {
        let directory = temporary.file("idempotency")
        let configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let key = try await Self.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=A").json["secret_key"] as! String
            func post(_ body: String, idempotencyKey: String) async throws -> (HTTPResponse.Status, String, Bool) {
                var headers = HTTPFields()
                headers[.authorization] = "Bearer \(key)"
                headers[HTTPFields.headerName("Idempotency-Key")] = idempotencyKey
                return try await client.execute(uri: "/v1/payment_intents", method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
                    (response.status, String(buffer: response.body), response.headers[HTTPFields.headerName("Idempotent-Replayed")] == "true")
                }
            }
            let first = try await post("amount=1000&currency=eur", idempotencyKey: "k1")
            let again = try await post("amount=1000&currency=eur", idempotencyKey: "k1")
            #expect(first.0 == .ok && again.0 == .ok && first.1 == again.1 && again.2 && !first.2)
            let other = try await post("amount=1001&currency=eur", idempotencyKey: "k1")
            #expect(other.0 == .badRequest && other.1.contains("idempotency_error"))
            // An error is kept and replayed too.
            let refused = try await post("amount=1&currency=eur", idempotencyKey: "k2")
            let refusedAgain = try await post("amount=1&currency=eur", idempotencyKey: "k2")
            #expect(refused.0 == .badRequest && refused.1 == refusedAgain.1 && refusedAgain.2)
            #expect(try await post("amount=1000&currency=eur", idempotencyKey: String(repeating: "k", count: 256)).0 == .badRequest)
            #expect(try await post("amount=1000&currency=eur", idempotencyKey: String(repeating: "k", count: 255)).0 == .ok)
            let list = try await Self.call(client, .get, "/v1/payment_intents?limit=100", key: key).json["data"] as? [Any]
            #expect(list?.count == 2)
        }
    }

    /// A merchant, a card and what a test of a settlement's last write asks of the server.
    struct SettlementScene {
        let client: any TestClientProtocol
        let key: String
        let method: String

        static func make(_ client: some TestClientProtocol, directory: String) async throws -> SettlementScene {
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let key = try #require(try await GatewayRoutesTests.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=A").json["secret_key"] as? String)
            let card = "type=card&card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2034&card[cvc]=123"
            let method = try #require(try await GatewayRoutesTests.call(client, .post, "/v1/payment_methods", key: key, body: card).json["id"] as? String)
            return SettlementScene(client: client, key: key, method: method)
        }

        /// 20.00 EUR paid at once under the key `order-7`.
        func pay() async throws -> (status: HTTPResponse.Status, json: [String: Any], replayed: Bool) {
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(key)"
            headers[.contentType] = "application/x-www-form-urlencoded"
            headers[HTTPFields.headerName("Idempotency-Key")] = "order-7"
            return try await client.execute(
                uri: "/v1/payment_intents", method: .post, headers: headers,
                body: ByteBuffer(string: "amount=2000&currency=eur&confirm=true&payment_method=\(method)")
            ) { response in
                let json = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]
                return (response.status, json ?? [:], response.headers[HTTPFields.headerName("Idempotent-Replayed")] == "true")
            }
        }

        /// The merchant's euros on the ledger, in cents.
        func euros() async throws -> Int? {
            let balance = try await GatewayRoutesTests.call(client, .get, "/v1/balance", key: key).json
            return ((balance["available"] as? [[String: Any]])?.first { $0["currency"] as? String == "eur" })?["amount"] as? Int
        }

        func list(_ path: String) async throws -> [[String: Any]] {
            try #require(try await GatewayRoutesTests.call(client, .get, path, key: key).json["data"] as? [[String: Any]])
        }

        /// The bookkeeping of the one payment: its intents, balance transactions (amount, fee,
        /// net) and its events' types.
        func books() async throws -> (intents: [String], balance: [[Int]], events: [String]) {
            let intents = try await list("/v1/payment_intents?limit=100").compactMap { $0["id"] as? String }
            let balance = try await list("/v1/balance_transactions?limit=100").map { [$0["amount"] as? Int ?? -1, $0["fee"] as? Int ?? -1, $0["net"] as? Int ?? -1] }
            let events = try await list("/v1/events?limit=100").compactMap { $0["type"] as? String }
            return (intents, balance, events)
        }
    }

    /// A server on manual time over a store that can fail or hold a write, with a merchant and
    /// a card: the scene of a settlement's last write.
    func withSettlementScene(_ name: String, _ body: @Sendable (SettlementScene, CountingGatewayStore, ManualTime) async throws -> Void) async throws {
        let directory = temporary.file(name)
        let configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try CountingGatewayStore(path: directory + "/gateway.sqlite")
        let time = ManualTime.forServer()
        let app = try await buildApplication(
            configuration, store: try SQLiteLedgerStore(path: configuration.databasePath), gatewayStore: store, environment: time.environment)
        try await app.test(.router) { client in
            try await body(try await SettlementScene.make(client, directory: directory), store, time)
        }
    }

    /// The store fails the last write of a payment the ledger has settled (a full disk, say):
    /// the answer is a 500; the retry Stripe's libraries send with the same key, seconds later,
    /// answers the intent, succeeded, and charges nothing again (the key is left interrupted:
    /// when it was freed, the retry's new claim time derived a new intent's id and paid a second
    /// time). A minute on, the janitor finds the settlement on the ledger and writes what the
    /// request could not (its balance transaction and events), once.
    @Test func aRetryAfterAFailedLastWriteAnswersThePaymentAndTheJanitorCompletesIt() async throws {
        try await withSettlementScene("failed-last-write") { scene, store, time in
            store.beforeNextWrite(where: CountingGatewayStore.settledIntent) { throw CountingGatewayStore.InjectedFailure() }
            let failed = try await scene.pay()
            #expect(failed.status == .internalServerError && (failed.json["error"] as? [String: Any])?["type"] as? String == "api_error", "\(failed)")
            // Settled on the ledger all the same: 20.00 less 1.5% + 0.25.
            #expect(try await scene.euros() == 2_000 - 55)
            await time.advance(seconds: 3)
            let retried = try await scene.pay()
            #expect(retried.status == .ok && retried.json["status"] as? String == "succeeded" && !retried.replayed, "\(retried)")
            let id = try #require(retried.json["id"] as? String)
            var books = try await scene.books()
            #expect(books.intents == [id] && books.balance.isEmpty && !books.events.contains("payment_intent.succeeded"), "\(books)")
            #expect(try await scene.euros() == 2_000 - 55, "paid once")
            // A minute after its pending write: completed from the ledger, exactly once.
            await time.advance(seconds: 60)
            books = try await scene.books()
            #expect(books.balance == [[2_000, 55, 1_945]], "\(books)")
            #expect(books.events.filter { $0 == "payment_intent.succeeded" }.count == 1 && books.events.filter { $0 == "charge.succeeded" }.count == 1, "\(books)")
            await time.advance(seconds: 3_600)
            let later = try await scene.books()
            #expect(later.balance == books.balance && later.events == books.events && later.intents == [id], "\(later)")
            #expect(try await scene.euros() == 2_000 - 55)
            let replayed = try await scene.pay()
            #expect(replayed.status == .ok && replayed.replayed && replayed.json["id"] as? String == id)
        }
    }

    /// The store fails a settlement's last write and the server stops before the janitor's
    /// minute: the next start finds the settlement on the ledger and writes what its request
    /// could not, as the janitor would have: its balance transaction, `payment_intent.succeeded`
    /// and `charge.succeeded`, once (it wrote the balance transaction alone before).
    @Test func aSettlementLeftPendingByAStopIsCompletedAtStartUpWithItsEvents() async throws {
        let directory = temporary.file("pending-at-stop")
        let configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try CountingGatewayStore(path: directory + "/gateway.sqlite")
        let first = try await buildApplication(
            configuration, store: try SQLiteLedgerStore(path: configuration.databasePath), gatewayStore: store, environment: ManualTime.forServer().environment)
        let (key, method) = try await first.test(.router) { client in
            let scene = try await SettlementScene.make(client, directory: directory)
            store.beforeNextWrite(where: CountingGatewayStore.settledIntent) { throw CountingGatewayStore.InjectedFailure() }
            #expect(try await scene.pay().status == .internalServerError)
            let books = try await scene.books()
            #expect(books.intents.count == 1 && books.balance.isEmpty && !books.events.contains("payment_intent.succeeded"), "\(books)")
            #expect(try await scene.euros() == 2_000 - 55, "settled on the ledger all the same")
            return (scene.key, scene.method)
        }
        let second = try await buildApplication(configuration, environment: ManualTime.forServer().environment)
        try await second.test(.router) { client in
            let scene = SettlementScene(client: client, key: key, method: method)
            let books = try await scene.books()
            #expect(books.intents.count == 1 && books.balance == [[2_000, 55, 1_945]], "\(books)")
            for type in ["payment_intent.succeeded", "charge.succeeded"] {
                #expect(books.events.filter { $0 == type }.count == 1, "\(type): \(books.events)")
            }
            #expect(try await scene.euros() == 2_000 - 55, "paid once")
            let paid = try await scene.pay()
            #expect(paid.status == .ok && paid.json["status"] as? String == "succeeded" && paid.json["id"] as? String == books.intents.first, "\(paid)")
            #expect(try await scene.euros() == 2_000 - 55, "a retry pays nothing again")
        }
    }

    /// A settlement's last write later than the janitor's minute: whether the janitor found the
    /// settlement on the ledger and completed it first (the request then answers the intent as
    /// the janitor left it), or looked before the ledger had it and put its next look off (the
    /// request's write then goes over that), the answer is the intent, succeeded, not a
    /// conflict, and everything is written once.
    @Test func aLastWriteLaterThanTheJanitorsLookAnswersThePayment() async throws {
        for janitorFindsIt in [true, false] {
            try await withSettlementScene("late-last-write-\(janitorFindsIt)") { scene, store, time in
                if janitorFindsIt {
                    store.beforeNextWrite(where: CountingGatewayStore.settledIntent) { await time.advance(seconds: 61) }
                } else {
                    store.afterNextWrite(where: CountingGatewayStore.pendingIntent) { await time.advance(seconds: 61) }
                }
                let paid = try await scene.pay()
                #expect(paid.status == .ok && paid.json["status"] as? String == "succeeded", "\(janitorFindsIt): \(paid)")
                let id = try #require(paid.json["id"] as? String)
                await time.advance(seconds: 3_600)
                let books = try await scene.books()
                #expect(books.intents == [id] && books.balance == [[2_000, 55, 1_945]], "\(janitorFindsIt): \(books)")
                #expect(books.events.filter { $0 == "payment_intent.succeeded" }.count == 1 && books.events.filter { $0 == "charge.succeeded" }.count == 1, "\(books)")
                #expect(try await scene.euros() == 2_000 - 55)
            }
        }
    }

    /// A refund the settlement account cannot cover (the fee was taken from the payment) is
    /// refused with nothing moved, and the amount can be refunded again later.
    @Test func aRefundTheBalanceCannotCoverMovesNothing() async throws {
        let directory = temporary.file("refunds")
        let configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let key = try await Self.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=A").json["secret_key"] as! String
            let pm = try await Self.call(client, .post, "/v1/payment_methods", key: key, body: "type=card&card[number]=4242424242424242&card[exp_month]=1&card[exp_year]=2040").json["id"] as! String
            let intent = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=1000&currency=eur&confirm=true&payment_method=\(pm)").json
            #expect(intent["status"] as? String == "succeeded")
            let id = intent["id"] as! String
            func balance() async throws -> Int? {
                let available = try await Self.call(client, .get, "/v1/balance", key: key).json["available"] as? [[String: Any]]
                return available?.first { $0["currency"] as? String == "eur" }?["amount"] as? Int
            }
            #expect(try await balance() == 960)  // 1000 less 1.5% + 25
            let refused = try await Self.call(client, .post, "/v1/refunds", key: key, body: "payment_intent=\(id)")
            #expect(refused.status == .badRequest)
            #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "balance_insufficient")
            #expect(try await balance() == 960)
            let refunds = try await Self.call(client, .get, "/v1/refunds", key: key).json["data"] as? [[String: Any]]
            #expect(refunds?.map { $0["status"] as? String } == ["failed"])
            #expect(try await Self.call(client, .get, "/v1/payment_intents/\(id)", key: key).json["amount_refunded"] as? Int == 0)
            let partial = try await Self.call(client, .post, "/v1/refunds", key: key, body: "payment_intent=\(id)&amount=960")
            #expect(partial.json["status"] as? String == "succeeded")
            #expect(try await balance() == 0)
        }
    }

    /// The janitor: a payment whose acquirer did not answer is settled once the acquirer is asked
    /// again (exactly once: the balance holds one settlement); a redirect nobody came back from
    /// is canceled as abandoned; an authorisation never captured is released.
    @Test func theJanitorReconcilesAndExpires() async throws {
        let directory = temporary.file("janitor")
        var configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        configuration.expiries = GatewayExpiries(redirectSeconds: 60, authorizationSeconds: 120)
        let time = ManualTime.forServer()
        let app = try await buildApplication(configuration, environment: time.environment)
        try await app.test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let key = try await Self.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=A").json["secret_key"] as! String
            func method(_ number: String) async throws -> String {
                try await Self.call(client, .post, "/v1/payment_methods", key: key, body: "type=card&card[number]=\(number)&card[exp_month]=1&card[exp_year]=2040").json["id"] as! String
            }
            func status(_ id: String) async throws -> String? {
                try await Self.call(client, .get, "/v1/payment_intents/\(id)", key: key).json["status"] as? String
            }
            let silent = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=1000&currency=eur&confirm=true&payment_method=\(try await method("4000000000000408"))").json
            #expect(silent["status"] as? String == "processing")
            let silentID = silent["id"] as! String
            // Confirming again while the answer is unknown is refused: nothing is charged twice.
            #expect(try await Self.call(client, .post, "/v1/payment_intents/\(silentID)/confirm", key: key).status == .badRequest)
            let ideal = try await Self.call(client, .post, "/v1/payment_methods", key: key, body: "type=ideal").json["id"] as! String
            let left = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=1000&currency=eur&payment_method_types[]=ideal&confirm=true&return_url=https://shop.example/&payment_method=\(ideal)").json["id"] as! String
            let held = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=1000&currency=eur&capture_method=manual&confirm=true&payment_method=\(try await method("4242424242424242"))").json["id"] as! String

            // A second on: the acquirer is asked (no answer yet); two more, it answers.
            await time.advance(seconds: 1)
            #expect(try await status(silentID) == "processing")
            await time.advance(seconds: 2)
            let settled = try await Self.call(client, .get, "/v1/payment_intents/\(silentID)", key: key).json
            #expect(settled["status"] as? String == "succeeded" && settled["amount_received"] as? Int == 1000)
            // The redirect is left for its hour (here a minute), not a second less.
            await time.advance(seconds: 56)
            #expect(try await status(left) == "requires_action")
            await time.advance(seconds: 1)
            let abandoned = try await Self.call(client, .get, "/v1/payment_intents/\(left)", key: key).json
            #expect(abandoned["status"] as? String == "canceled" && abandoned["cancellation_reason"] as? String == "abandoned")
            #expect(try await status(held) == "requires_capture")
            // The authorisation is released when its time (here two minutes) is up.
            await time.advance(seconds: 60)
            let released = try await Self.call(client, .get, "/v1/payment_intents/\(held)", key: key).json
            #expect(released["status"] as? String == "canceled" && released["cancellation_reason"] as? String == "automatic")
            #expect(released["amount_capturable"] as? Int == 0)
            // A day of passes later changes nothing: one settlement of 1000 less the fee.
            await time.advance(seconds: 86_400)
            let available = try await Self.call(client, .get, "/v1/balance", key: key).json["available"] as? [[String: Any]]
            #expect(available?.first { $0["currency"] as? String == "eur" }?["amount"] as? Int == 960)
            let events = (try await Self.call(client, .get, "/v1/events?limit=100", key: key).json["data"] as? [[String: Any]]) ?? []
            let types = events.compactMap { $0["type"] as? String }
            #expect(types.filter { $0 == "payment_intent.succeeded" }.count == 1)
            #expect(types.filter { $0 == "payment_intent.canceled" }.count == 2)
        }
    }

    static func euroBalance(_ client: some TestClientProtocol, _ key: String) async throws -> Int? {
        let available = try await call(client, .get, "/v1/balance", key: key).json["available"] as? [[String: Any]]
        return available?.first { $0["currency"] as? String == "eur" }?["amount"] as? Int
    }

    /// A settlement or refund a stopped server left pending is finished at the next start,
    /// exactly once: found on the ledger when its transaction had committed, made when it had not.
    @Test func pendingSettlementsAreFinishedOnceAtStartUp() async throws {
        let directory = temporary.file("recovery")
        let configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        let first = try await buildApplication(configuration)
        let (key, merchantID, settledID, heldID, paidRefundID) = try await first.test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let merchant = try await Self.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=A").json
            let key = merchant["secret_key"] as! String
            let pm = try await Self.call(client, .post, "/v1/payment_methods", key: key, body: "type=card&card[number]=4242424242424242&card[exp_month]=1&card[exp_year]=2040").json["id"] as! String
            let settledID = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=1000&currency=eur&confirm=true&payment_method=\(pm)").json["id"] as! String
            let heldID = try await Self.call(client, .post, "/v1/payment_intents", key: key, body: "amount=2000&currency=eur&confirm=true&capture_method=manual&payment_method=\(pm)").json["id"] as! String
            #expect(try await Self.euroBalance(client, key) == 960)
            let refundID = try await Self.call(client, .post, "/v1/refunds", key: key, body: "payment_intent=\(settledID)&amount=100").json["id"] as! String
            #expect(try await Self.euroBalance(client, key) == 860)
            return (key, merchant["id"] as! String, settledID, heldID, refundID)
        }
        // What a stop in the middle of two captures leaves: one settled on the ledger but not
        // marked so, one captured but never settled.
        let store = try SQLiteGatewayStore(path: configuration.gatewayDatabasePath)
        for (id, capture) in [(settledID, false), (heldID, true)] {
            var stored = try #require(try await store.object(id: id, kind: "payment_intent", merchant: merchantID))
            var intent = try JSONDecoder().decode(PaymentIntentRecord.self, from: Data(stored.body))
            if capture { _ = try intent.machine.capture(nil) }
            intent.settlement = .pending
            intent.settlementTransaction = nil
            stored.body = Array(try JSONEncoder().encode(intent))
            stored.attentionAt = 1
            #expect(try await store.update(stored))
        }
        // And two refunds of the first: one paid back on the ledger but not marked so, one
        // recorded against the intent but never paid back.
        var paidRefund = try #require(try await store.object(id: paidRefundID, kind: "refund", merchant: merchantID))
        var paid = try JSONDecoder().decode(RefundRecord.self, from: Data(paidRefund.body))
        paid.status = .pending
        paid.ledgerTransaction = nil
        paidRefund.body = Array(try JSONEncoder().encode(paid))
        paidRefund.attentionAt = 1
        #expect(try await store.update(paidRefund))
        var settledStored = try #require(try await store.object(id: settledID, kind: "payment_intent", merchant: merchantID))
        var settled = try JSONDecoder().decode(PaymentIntentRecord.self, from: Data(settledStored.body))
        _ = try settled.machine.refund(200)
        settledStored.body = Array(try JSONEncoder().encode(settled))
        let unpaid = RefundRecord(id: RefundID("re_unpaid"), paymentIntent: PaymentIntentID(settledID), amount: 200, currency: "eur", created: 1, status: .pending)
        #expect(try await store.update(settledStored, inserting: StoredObject(id: "re_unpaid", merchant: merchantID, kind: "refund", created: 1, body: Array(try JSONEncoder().encode(unpaid)), attentionAt: 1)))

        let second = try await buildApplication(configuration)
        try await second.test(.router) { client in
            // 860 already there, plus 2000 less 1.5% + 25 (1945) settled now, less the unpaid
            // refund of 200 paid now; the settled payment and the paid refund not again.
            #expect(try await Self.euroBalance(client, key) == 860 + 1945 - 200)
            // Each movement has one balance transaction, recovered or not, and they sum to the balance.
            let movements = try await Self.call(client, .get, "/v1/balance_transactions?limit=100", key: key).json["data"] as! [[String: Any]]
            #expect(movements.compactMap { $0["net"] as? Int }.reduce(0, +) == 860 + 1945 - 200 && movements.count == 4, "\(movements)")
            for id in [paidRefundID, "re_unpaid"] {
                #expect(try await Self.call(client, .get, "/v1/refunds/\(id)", key: key).json["status"] as? String == "succeeded")
            }
            #expect(try await Self.call(client, .get, "/v1/payment_intents/\(settledID)", key: key).json["amount_refunded"] as? Int == 300)
            for id in [settledID, heldID] {
                let intent = try await Self.call(client, .get, "/v1/payment_intents/\(id)", key: key).json
                #expect(intent["status"] as? String == "succeeded")
            }
        }
        let recovered = try #require(try await store.object(id: heldID, kind: "payment_intent", merchant: merchantID))
        let intent = try JSONDecoder().decode(PaymentIntentRecord.self, from: Data(recovered.body))
        #expect(intent.settlement == .settled && intent.settlementTransaction != nil && recovered.attentionAt == nil)
    }
}
