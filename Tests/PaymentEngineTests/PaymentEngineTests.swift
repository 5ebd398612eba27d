import Foundation
import Gateway
import PaymentEngine
import Testing

/// A Paylike server in a script: the vault, and the `/payments` flow of paylike.md (Paylike's own
/// test server's 3-D Secure flow, hint by hint), or a frictionless one, or a refusal.
final class ScriptedPaylike: PaylikeTransport, @unchecked Sendable {
    enum Flow { case threeDSecure, frictionless, refuse(code: String) }
    let flow: Flow
    private let lock = NSLock()
    private(set) var vaultCalls: [String] = []
    private(set) var paymentCalls: [(path: String, hints: Int, body: [String: Any])] = []
    private(set) var forms: [String] = []
    private(set) var headers: [[String: String]] = []

    init(_ flow: Flow) { self.flow = flow }

    static func json(_ object: Any, status: Int = 200) -> (status: Int, body: Data) {
        (status, try! JSONSerialization.data(withJSONObject: object))
    }

    static func challenge(_ name: String, _ type: String) -> [String: String] {
        ["name": name, "type": type, "path": "/payments/challenges/\(name)"]
    }

    func postJSON(_ url: URL, body: Data, headers: [String: String]) async throws -> (status: Int, body: Data) {
        let object = try JSONSerialization.jsonObject(with: body) as! [String: Any]
        return lock.withLock { answer(url, object, headers) }
    }

    private func answer(_ url: URL, _ object: [String: Any], _ headers: [String: String]) -> (status: Int, body: Data) {
        self.headers.append(headers)
        if url.path.hasSuffix("/vault") {
            let type = object["type"] as! String, value = object["value"] as! String
            vaultCalls.append("\(type):\(value)")
            return Self.json(["token": "tok-\(type)-\(value.suffix(4))"])
        }
        let hints = (object["hints"] as? [String]) ?? []
        let path = url.path.replacingOccurrences(of: "/paylike", with: "")
        paymentCalls.append((path, hints.count, object))
        if case .refuse(let code) = flow {
            return Self.json(["code": code, "message": "refused", "errors": []], status: 400)
        }
        switch (path, hints.count) {
        case ("/payments", 0): return Self.json(["challenges": [Self.challenge("authorize-integration", "fetch")]])
        case ("/payments/challenges/authorize-integration", _): return Self.json(["hints": ["h1"]])
        case ("/payments", 1):
            if case .frictionless = flow { return Self.json(["authorizationId": "auth-frictionless"]) }
            return Self.json(["challenges": [Self.challenge("tds-enrolled", "fetch")]])
        case ("/payments/challenges/tds-enrolled", _): return Self.json(["hints": ["h2"]])
        case ("/payments", 2):
            // No fetch among them: the fingerprint frame is taken before the first one listed.
            return Self.json(["challenges": [Self.challenge("something-else", "iframe"), Self.challenge("tds-fingerprint", "background-iframe")]])
        case ("/payments/challenges/tds-fingerprint", _):
            return Self.json(["hints": ["h3", "h4"], "action": "http://127.0.0.1:9/paylike/3dsecure/v2/method", "method": "POST", "fields": ["threeDSMethodData": "m"]])
        case ("/payments", 6): return Self.json(["challenges": [Self.challenge("tds-pre-challenge", "fetch")]])
        case ("/payments/challenges/tds-pre-challenge", _): return Self.json(["hints": ["h7"]])
        case ("/payments", 7): return Self.json(["challenges": [Self.challenge("tds-challenge", "iframe")]])
        case ("/payments/challenges/tds-challenge", _):
            return Self.json(["action": "http://127.0.0.1:9/paylike/3dsecure/v2/challenge", "method": "POST", "fields": ["creq": "c"]])
        case ("/payments", 8): return Self.json(["challenges": [Self.challenge("tds-post-challenge", "fetch")]])
        case ("/payments/challenges/tds-post-challenge", _): return Self.json(["hints": ["h9"]])
        case ("/payments", 9): return Self.json(["challenges": [Self.challenge("authorize", "fetch")]])
        case ("/payments/challenges/authorize", _): return Self.json(["hints": ["h10"]])
        case ("/payments", 10): return Self.json(["authorizationId": "auth-3ds"])
        default: return Self.json(["code": "INTERNAL_ERROR", "message": "unexpected \(path) with \(hints.count) hints"], status: 500)
        }
    }

    func postForm(_ url: URL, fields: [(String, String)]) async throws -> (status: Int, body: Data) {
        lock.withLock { forms.append(url.path) }
        return (200, Data("<html><body>\(url.path) \(fields.map { "\($0.0)=\($0.1)" }.joined(separator: "&"))</body></html>".utf8))
    }
}

@Suite("Payment engine")
struct PaymentEngineTests {
    let euros = try! PaymentAmount(currency: "EUR", value: 1_000, exponent: 2)
    let hosts = PaylikeHosts.tender(URL(string: "http://127.0.0.1:9")!)

    /// Collects what the engine publishes, in order.
    final class Seen: @unchecked Sendable {
        let lock = NSLock()
        var ids: [String] = []
        var errors: [EngineError] = []
        func add(_ id: String) { lock.withLock { ids.append(id) } }
        func add(_ error: EngineError) { lock.withLock { errors.append(error) } }
    }

    @Test func threeDSecureThroughBothFrames() async throws {
        let server = ScriptedPaylike(.threeDSecure)
        let engine = PaymentEngine(integrationKey: "pk_test_key", mode: .test, client: PaylikeClient(hosts: hosts, transport: server))
        let seen = Seen()
        await engine.setHooks(onSuccess: { seen.add($0) }, onError: { seen.add($0) })
        await engine.addCard(number: "4242 4242 4242 4242", securityCode: "123", expiryMonth: 12, expiryYear: 2030)
        #expect(Set(server.vaultCalls) == ["pcn:4242424242424242", "pcsc:123"])
        await engine.addDescription(amount: euros, test: PaymentTest(tds: .init(challenge: true)))
        await engine.addText("order 7")
        await engine.startPayment()
        #expect(await engine.state == .webViewChallengeStarted)
        #expect(await engine.html?.contains("/paylike/3dsecure/v2/method threeDSMethodData=m") == true)
        await engine.framePosted(hints: ["h5", "h6"])
        #expect(await engine.state == .webViewChallengeUserInputRequired)
        #expect(await engine.html?.contains("/paylike/3dsecure/v2/challenge creq=c") == true)
        await engine.framePosted(hints: ["h8"])
        #expect(await engine.state == .success)
        #expect(await engine.authorizationId == "auth-3ds")
        #expect(seen.ids == ["auth-3ds"] && seen.errors.isEmpty)
        // The loop as Paylike's client runs it, hint by hint.
        #expect(server.paymentCalls.map { "\($0.path)@\($0.hints)" } == [
            "/payments@0", "/payments/challenges/authorize-integration@0", "/payments@1", "/payments/challenges/tds-enrolled@1",
            "/payments@2", "/payments/challenges/tds-fingerprint@2", "/payments@6", "/payments/challenges/tds-pre-challenge@6",
            "/payments@7", "/payments/challenges/tds-challenge@7", "/payments@8", "/payments/challenges/tds-post-challenge@8",
            "/payments@9", "/payments/challenges/authorize@9", "/payments@10",
        ])
        #expect(server.forms == ["/paylike/3dsecure/v2/method", "/paylike/3dsecure/v2/challenge"])
        let first = server.paymentCalls[0].body
        #expect((first["integration"] as? [String: String])?["key"] == "pk_test_key")
        #expect((first["amount"] as? [String: Any])?["value"] as? Int == 1_000)
        #expect(((first["card"] as? [String: Any])?["number"] as? [String: String])?["token"] == "tok-pcn-4242")
        #expect(((first["test"] as? [String: Any])?["tds"] as? [String: Bool])?["challenge"] == true)
        #expect(first["text"] as? String == "order 7")
        #expect(server.headers.allSatisfy { $0["Accept-Version"] == "1" && $0["X-Client"] == "swift-1-tender" })
    }

    @Test func frictionlessAndTheStatesPublished() async throws {
        let server = ScriptedPaylike(.frictionless)
        let engine = PaymentEngine(integrationKey: "pk_live_key", mode: .live, client: PaylikeClient(hosts: hosts, transport: server))
        await engine.addCard(number: "4242424242424242", securityCode: "123", expiryMonth: 12, expiryYear: 2030)
        await engine.addDescription(amount: euros, test: nil)
        await engine.startPayment()
        await engine.reset()
        var states: [EngineState] = []
        for await state in engine.states {
            states.append(state)
            if states.count == 3 { break }
        }
        #expect(states == [.waitingForInput, .success, .waitingForInput])
        #expect(server.forms.isEmpty)
    }

    @Test func refusalsAndMisuse() async throws {
        let refusing = ScriptedPaylike(.refuse(code: "PAYMENT_CARD_EXPIRED"))
        let engine = PaymentEngine(integrationKey: "pk_test_key", mode: .test, client: PaylikeClient(hosts: hosts, transport: refusing))
        let seen = Seen()
        await engine.setHooks(onSuccess: { seen.add($0) }, onError: { seen.add($0) })
        await engine.addCard(number: "4242424242424242", securityCode: "123", expiryMonth: 12, expiryYear: 2030)
        await engine.addDescription(amount: euros, test: PaymentTest(card: .init(status: "expired")))
        await engine.startPayment()
        #expect(await engine.state == .error(.payment(code: "PAYMENT_CARD_EXPIRED", message: "refused")))
        #expect(seen.errors == [.payment(code: "PAYMENT_CARD_EXPIRED", message: "refused")])

        // Live mode: a number that fails the Luhn check is refused before it is tokenized.
        let server = ScriptedPaylike(.frictionless)
        let live = PaymentEngine(integrationKey: "pk_live_key", mode: .live, client: PaylikeClient(hosts: hosts, transport: server))
        await live.addCard(number: "4242424242424241", securityCode: "123", expiryMonth: 12, expiryYear: 2030)
        #expect(await live.state == .error(.invalidCardNumber))
        #expect(server.vaultCalls.isEmpty)
        // Test data in live mode, and data added after the payment ended.
        await live.reset()
        await live.addDescription(amount: euros, test: PaymentTest())
        #expect(await live.state == .error(.testDataInLiveMode))
        await live.reset()
        await live.addCard(number: "4242424242424242", securityCode: "123", expiryMonth: 12, expiryYear: 2030)
        await live.startPayment()
        await live.addText("too late")
        #expect(await live.state == .error(.invalidState(action: "addText", state: "success")))
        await live.reset()
        await live.addCard(number: "4242424242424242", securityCode: "123", expiryMonth: 12, expiryYear: 2030)
        await live.startPayment()
        await live.addCustom(.object(["late": 1]))
        #expect(await live.state == .error(.invalidState(action: "addCustom", state: "success")))
    }
}

@Suite("Payment form")
struct PaymentFormTests {
    let euros = try! PaymentAmount(currency: "EUR", value: 1_000, exponent: 2)
    let hosts = PaylikeHosts.tender(URL(string: "http://127.0.0.1:9")!)
    let november: @Sendable () -> YearMonth = { YearMonth(year: 2026, month: 11) }

    @Test func payIsEnabledOnlyWhenEveryFieldIsValid() async {
        let server = ScriptedPaylike(.frictionless)
        let form = PaymentForm(engine: PaymentEngine(integrationKey: "k", mode: .live, client: PaylikeClient(hosts: hosts, transport: server)), amount: euros, today: november)
        #expect(await !form.payEnabled)
        await form.setNumber("4242 4242 4242 4242")
        await form.setExpiry("10/26")
        await form.setSecurityCode("123")
        #expect(await form.expiryState == .invalid("The card has expired."))
        #expect(await !form.payEnabled)
        await form.pay()
        let unchanged = await form.phase
        #expect(unchanged == .editing && server.vaultCalls.isEmpty, "a disabled Pay does nothing")
        await form.setExpiry("11/26")
        #expect(await form.payEnabled)
        await form.pay()
        #expect(await form.phase == .succeeded(id: "auth-frictionless"))
        #expect(await !form.payEnabled)
        await form.setNumber("5555555555554444")
        #expect(await form.input.number == "4242 4242 4242 4242", "fields are fixed once paid")
    }

    @Test func aChallengeThenSuccessAndTheBeforePaymentHook() async {
        let server = ScriptedPaylike(.threeDSecure)
        let form = PaymentForm(engine: PaymentEngine(integrationKey: "k", mode: .test, client: PaylikeClient(hosts: hosts, transport: server)),
                               amount: euros, test: PaymentTest(tds: .init(challenge: true)), text: "order", today: november)
        await form.setBeforePayment { input, extras in
            PaymentExtras(text: "\(extras.text ?? "") for \(input.brand.displayName)", custom: .object(["order": 7, "expiry": .string(input.expiry)]))
        }
        await form.setNumber("4242424242424242")
        await form.setExpiry("12/2030")
        await form.setSecurityCode("123")
        await form.pay()
        guard case .challenge(let html) = await form.phase else { Issue.record("no challenge"); return }
        #expect(html.contains("3dsecure/v2/method"))
        await form.framePosted(hints: ["h5", "h6"])
        guard case .challenge(let second) = await form.phase else { Issue.record("no second challenge"); return }
        #expect(second.contains("3dsecure/v2/challenge"))
        await form.framePosted(hints: ["h8"])
        #expect(await form.phase == .succeeded(id: "auth-3ds"))
        #expect(server.paymentCalls.first?.body["text"] as? String == "order for Visa")
        #expect((server.paymentCalls.first?.body["custom"] as? [String: Any])?["order"] as? Int == 7)
        #expect((server.paymentCalls.first?.body["custom"] as? [String: Any])?["expiry"] as? String == "12/2030")
        #expect(((server.paymentCalls.first?.body["card"] as? [String: Any])?["expiry"] as? [String: Int]) == ["month": 12, "year": 2030])
    }

    @Test func anErrorThenTryAgain() async {
        let server = ScriptedPaylike(.refuse(code: "PAYMENT_INSUFFICIENT_FUNDS"))
        let form = PaymentForm(engine: PaymentEngine(integrationKey: "k", mode: .test, client: PaylikeClient(hosts: hosts, transport: server)),
                               amount: euros, test: PaymentTest(), today: november)
        await form.setNumber("4242424242424242")
        await form.setExpiry("1230")
        await form.setSecurityCode("123")
        await form.pay()
        #expect(await form.phase == .failed(.payment(code: "PAYMENT_INSUFFICIENT_FUNDS", message: "refused")))
        await form.tryAgain()
        let (phase, enabled) = (await form.phase, await form.payEnabled)
        #expect(phase == .editing && enabled)
        #expect(await form.input.number == "4242424242424242", "the fields are kept")
    }
}
