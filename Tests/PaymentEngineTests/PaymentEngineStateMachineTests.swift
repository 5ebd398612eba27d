import PaymentEngine
import Testing

@Suite("Payment engine state machine")
struct PaymentEngineStateMachineTests {
    let card = CardTokens(number: "tok-number", code: "tok-code", expiryMonth: 12, expiryYear: 2030)
    let euros = try! PaymentAmount(currency: "EUR", value: 1_000, exponent: 2)

    func ready(_ mode: EngineMode = .test) throws -> PaymentEngineStateMachine {
        var engine = PaymentEngineStateMachine(mode: mode)
        try engine.addCard(card, numberPassesLuhn: true)
        try engine.addDescription(amount: euros, hasTestData: mode == .test)
        try engine.addText("order 7")
        return engine
    }

    /// Paylike's 3-D Secure flow: start with 0 hints, a first frame, 6 hints after it, a second
    /// frame, 8 after it, then the authorization.
    @Test func threeDSecureWithBothFrames() throws {
        var engine = try ready()
        #expect(try engine.startPayment() == .pay(hints: []))
        #expect(engine.calling && engine.state == .waitingForInput)
        let firstHints = ["h1", "h2", "h3", "h4"]
        #expect(try engine.answered(.frame(html: "<form method>", hints: firstHints)) == .showFrame(html: "<form method>"))
        #expect(engine.state == .webViewChallengeStarted && engine.html == "<form method>")
        // The page posts two more hints, one of them repeated: six in all.
        #expect(try engine.framePosted(hints: ["h4", "h5", "h6"]) == .pay(hints: ["h1", "h2", "h3", "h4", "h5", "h6"]))
        #expect(try engine.answered(.frame(html: "<form challenge>", hints: ["h1", "h2", "h3", "h4", "h5", "h6", "h7"])) == .showFrame(html: "<form challenge>"))
        #expect(engine.state == .webViewChallengeUserInputRequired)
        #expect(try engine.framePosted(hints: ["h8"]) == .pay(hints: ["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"]))
        #expect(try engine.answered(.authorized(id: "auth_1", hints: [])) == .done)
        #expect(engine.state == .success && engine.authorizationId == "auth_1" && engine.html == nil)
    }

    @Test func frictionlessHasNoFrames() throws {
        var engine = try ready(.live)
        _ = try engine.startPayment()
        #expect(try engine.answered(.transaction(id: "tx_1", hints: ["a"])) == .done)
        #expect(engine.state == .success && engine.transactionId == "tx_1")
        var authorized = try ready()
        _ = try authorized.startPayment()
        #expect(try authorized.answered(.authorized(id: "auth_2", hints: [])) == .done)
        #expect(authorized.authorizationId == "auth_2")
    }

    @Test func theHintCountsAreChecked() throws {
        var engine = try ready()
        _ = try engine.startPayment()
        _ = try engine.answered(.frame(html: "f", hints: ["h1", "h2", "h3", "h4"]))
        #expect(throws: EngineError.wrongNumberOfHints(actual: 5, expected: 6)) { _ = try engine.framePosted(hints: ["h5"]) }
        #expect(engine.state == .error(.wrongNumberOfHints(actual: 5, expected: 6)))

        var second = try ready()
        _ = try second.startPayment()
        _ = try second.answered(.frame(html: "f", hints: ["1", "2", "3", "4", "5", "6"]))
        _ = try second.framePosted(hints: [])
        _ = try second.answered(.frame(html: "g", hints: ["1", "2", "3", "4", "5", "6"]))
        #expect(throws: EngineError.wrongNumberOfHints(actual: 9, expected: 8)) { _ = try second.framePosted(hints: ["7", "8", "9"]) }
    }

    @Test func dataOnlyWhileWaiting() throws {
        var engine = try ready()
        _ = try engine.startPayment()
        #expect(throws: EngineError.invalidState(action: "addCard", state: "calling")) { try engine.addCard(card, numberPassesLuhn: true) }
        #expect(engine.state == .error(.invalidState(action: "addCard", state: "calling")))
        var framed = try ready()
        _ = try framed.startPayment()
        _ = try framed.answered(.frame(html: "f", hints: []))
        #expect(throws: EngineError.invalidState(action: "addText", state: "webViewChallengeStarted")) { try framed.addText("late") }
        var done = try ready()
        _ = try done.startPayment()
        _ = try done.answered(.authorized(id: "a", hints: []))
        #expect(throws: EngineError.invalidState(action: "startPayment", state: "success")) { _ = try done.startPayment() }
    }

    @Test func outOfOrderCallsEndInError() throws {
        var engine = try ready()
        #expect(throws: EngineError.invalidState(action: "answered", state: "waitingForInput")) { _ = try engine.answered(.authorized(id: "a", hints: [])) }
        var waiting = try ready()
        #expect(throws: EngineError.invalidState(action: "framePosted", state: "waitingForInput")) { _ = try waiting.framePosted(hints: []) }
        var calling = try ready()
        _ = try calling.startPayment()
        _ = try calling.answered(.frame(html: "f", hints: []))
        _ = try calling.framePosted(hints: ["1", "2", "3", "4", "5", "6"])
        #expect(throws: EngineError.invalidState(action: "framePosted", state: "calling")) { _ = try calling.framePosted(hints: []) }
        // A third frame is not in Paylike's flow.
        var third = try ready()
        _ = try third.startPayment()
        _ = try third.answered(.frame(html: "f", hints: ["1", "2", "3", "4", "5", "6"]))
        _ = try third.framePosted(hints: [])
        _ = try third.answered(.frame(html: "g", hints: ["1", "2", "3", "4", "5", "6", "7", "8"]))
        _ = try third.framePosted(hints: [])
        #expect(throws: EngineError.unexpectedAnswer("a frame after the challenge")) { _ = try third.answered(.frame(html: "h", hints: [])) }
    }

    @Test func testDataOnlyInTestModeAndRequiredThere() throws {
        var live = PaymentEngineStateMachine(mode: .live)
        #expect(throws: EngineError.testDataInLiveMode) { try live.addDescription(amount: euros, hasTestData: true) }
        var test = PaymentEngineStateMachine(mode: .test)
        try test.addCard(card, numberPassesLuhn: true)
        try test.addDescription(amount: euros, hasTestData: false)
        #expect(throws: EngineError.testDataMissing) { _ = try test.startPayment() }
        var noCard = PaymentEngineStateMachine(mode: .live)
        #expect(throws: EngineError.cardMissing) { _ = try noCard.startPayment() }
        // In live mode a number that fails the Luhn check is refused; test cards need not pass it.
        var luhn = PaymentEngineStateMachine(mode: .live)
        #expect(throws: EngineError.invalidCardNumber) { try luhn.addCard(card, numberPassesLuhn: false) }
        var testLuhn = PaymentEngineStateMachine(mode: .test)
        try testLuhn.addCard(card, numberPassesLuhn: false)
        #expect(testLuhn.card == card)
    }

    @Test func serverErrorsAndReset() throws {
        var engine = try ready()
        _ = try engine.startPayment()
        engine.failed(.payment(code: "PAYMENT_CARD_EXPIRED", message: "The card has expired"))
        #expect(engine.state == .error(.payment(code: "PAYMENT_CARD_EXPIRED", message: "The card has expired")))
        #expect(!engine.calling)
        engine.reset()
        #expect(engine.state == .waitingForInput && engine.card == nil && engine.amount == nil && engine.hints.isEmpty && !engine.hasTestData && engine.text == nil)
        // After a reset the same engine pays again.
        try engine.addCard(card, numberPassesLuhn: true)
        try engine.addDescription(amount: euros, hasTestData: true)
        #expect(try engine.startPayment() == .pay(hints: []))
    }
}
