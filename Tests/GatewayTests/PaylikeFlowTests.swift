import Gateway
import Testing

@Suite("Paylike's captures, voids and refunds on the intent state machine")
struct PartialCaptureTests {
    static func authorized(_ amount: Int64 = 1_000) throws -> PaymentIntentStateMachine {
        var machine = PaymentIntentStateMachine(amount: amount, captureMethod: .manual)
        try machine.attach(paymentMethod: "pm_1", type: .card)
        #expect(try machine.confirm(acquirer: .approved) == .authorized(amount: amount))
        return machine
    }

    @Test func captureRefundThenVoidTheRest() throws {
        var machine = try Self.authorized()
        #expect(machine.amountReleased == 0 && machine.amountAuthorized == 1_000)
        #expect(try machine.capture(400, final: false) == .settle(amount: 400))
        #expect(machine.status == .requiresCapture && machine.amountCapturable == 600 && machine.amountReceived == 400)
        // A refund of what was captured while more may still be.
        #expect(try machine.refund(150) == .refund(amount: 150))
        let tooMuch = #expect(throws: PaymentIntentStateError.self) { try machine.refund(251) }
        #expect(tooMuch?.code == .invalidAmount)
        #expect(try machine.capture(100, final: false) == .settle(amount: 100))
        #expect(try machine.void(500) == .release(amount: 500))
        #expect(machine.status == .succeeded && machine.amountCapturable == 0 && machine.amountReleased == 500)
        #expect(machine.amountReceived == 500 && machine.amountRefunded == 150)
        #expect(throws: PaymentIntentStateError.self) { try machine.void(1) }
        #expect(throws: PaymentIntentStateError.self) { try machine.capture(1, final: false) }
    }

    @Test func voidsAloneCancel() throws {
        var machine = try Self.authorized()
        #expect(try machine.void(300) == .release(amount: 300))
        #expect(machine.status == .requiresCapture && machine.amountReleased == 300)
        for amount: Int64 in [0, -1, 701, .max, .min] {
            let error = #expect(throws: PaymentIntentStateError.self) { try machine.void(amount) }
            #expect(error?.code == .invalidAmount)
        }
        #expect(try machine.void(700) == .release(amount: 700))
        #expect(machine.status == .canceled && machine.amountReleased == 1_000 && machine.amountReceived == 0)
        let refused = #expect(throws: PaymentIntentStateError.self) { try machine.refund(nil) }
        #expect(refused?.code == .unexpectedState)
    }

    @Test func aFinalCaptureReleasesTheRestAndCancelAfterPartCapturesSucceeds() throws {
        var machine = try Self.authorized()
        #expect(try machine.capture(250, final: false) == .settle(amount: 250))
        #expect(try machine.capture(250) == .settle(amount: 250))
        #expect(machine.status == .succeeded && machine.amountReceived == 500 && machine.amountReleased == 500)

        var other = try Self.authorized()
        _ = try other.capture(300, final: false)
        #expect(try other.cancel(.automatic) == .release(amount: 700))
        #expect(other.status == .succeeded && other.amountReceived == 300 && other.amountReleased == 700)
        #expect(throws: PaymentIntentStateError.self) { try other.capture(1, final: false) }
        // Never authorised: nothing released.
        #expect(PaymentIntentStateMachine(amount: 1_000, captureMethod: .manual).amountReleased == 0)
    }
}

@Suite("Paylike's flow on the server")
struct PaylikeFlowTests {
    let euros = try! PaymentAmount(currency: "EUR", value: 1_000, exponent: 2)

    /// The flow's answers to `/payments` hint count by hint count, as Paylike's client follows them.
    func walk(_ flow: PaylikeFlow) throws -> [String] {
        var steps: [String] = []
        var hints = 0
        while true {
            switch flow.paymentsAnswer(hints: hints) {
            case .authorize:
                steps.append("authorize@\(hints)")
                return steps
            case .challenge(let challenge):
                steps.append("\(challenge.rawValue)@\(hints)")
                switch try flow.answer(challenge, hints: hints) {
                case .hints(let names): hints += names.count
                case .methodFrame(let names, let posts): hints += names.count + posts.count
                case .challengeFrame: hints += 1
                }
            }
        }
    }

    @Test func theStepsAndTheHintCountsPaylikesEngineChecks() throws {
        let plain = PaylikeFlow(test: PaylikeTest(), card: .approved, amount: euros)
        #expect(try walk(plain) == ["authorize-integration@0", "authorize@1", "authorize@2"])
        let challenged = PaylikeFlow(test: PaylikeTest(tds: .init()), card: .approved, amount: euros)
        // The first frame leaves 6 hints, the second 8; 10 at the end (paylike.md).
        #expect(try walk(challenged) == [
            "authorize-integration@0", "tds-enrolled@1", "tds-fingerprint@2", "tds-pre-challenge@6", "tds-challenge@7",
            "tds-post-challenge@8", "authorize@9", "authorize@10",
        ])
        let frictionless = PaylikeFlow(test: PaylikeTest(tds: .init(challenge: false)), card: .approved, amount: euros)
        #expect(try walk(frictionless) == ["authorize-integration@0", "tds-enrolled@1", "tds-fingerprint@2", "authorize@6", "authorize@7"])
        // A client that comes back without the frame's hints is sent to the frame again.
        #expect(challenged.paymentsAnswer(hints: 4) == .challenge(.tdsFingerprint))
        #expect(throws: PaylikeCode.challengeUnavailable) { try challenged.answer(.tdsChallenge, hints: 2) }
        #expect(throws: PaylikeCode.challengeUnavailable) { try challenged.answer(.authorize, hints: 10) }
        #expect(throws: PaylikeCode.challengeUnavailable) { try plain.answer(.tdsFingerprint, hints: 1) }
        #expect(challenged.slots[7] == ["tds-challenge-authenticated", "tds-challenge-failed"])
        #expect(try challenged.answer(.tdsFingerprint, hints: 2) == .methodFrame(hints: ["tds-method-request", "tds-method-url"], pagePosts: ["tds-method-posted", "tds-method-success"]))
    }

    /// Test mode takes any number (Paylike's own test card fails Luhn), any expiry as written and
    /// any code: the test object decides. Only malformed parts are refused.
    @Test func testModeTakesAnyCard() {
        let table: [(String, Int, Int, PaylikeCode?, CardBrand?)] = [
            ("4100000000000000", 12, 2030, nil, .visa),
            ("4242424242424241", 12, 30, nil, .visa),
            ("5555555555554444", 1, 2001, nil, .mastercard),
            ("999999999999", 6, 2031, nil, .unknown),
            ("12345678901", 6, 2031, .cardNumberInvalid, nil),
            ("12345678901234567890", 6, 2031, .cardNumberInvalid, nil),
            ("4100 0000 0000 0000", 6, 2031, .cardNumberInvalid, nil),
            ("4100000000000000", 13, 2031, .cardExpired, nil),
            ("4100000000000000", 0, 2031, .cardExpired, nil),
            ("4100000000000000", 6, 123, .cardExpired, nil),
        ]
        for (digits, month, year, refusal, brand) in table {
            switch PaylikeFlow.testModeCard(digits: digits, expiryMonth: month, expiryYear: year) {
            case .success(let card): #expect(refusal == nil && card.brand == brand, "\(digits) \(month)/\(year)")
            case .failure(let code): #expect(code == refusal, "\(digits) \(month)/\(year)")
            }
        }
        if case .success(let card) = PaylikeFlow.testModeCard(digits: "4100000000000000", expiryMonth: 12, expiryYear: 30) {
            #expect(card.expiry == YearMonth(year: 2030, month: 12))
        }
    }

    @Test func theTestObjectAndTheTestCardsDecide() throws {
        func refusal(_ test: PaylikeTest?, card: AcquirerOutcome = .approved) -> PaylikeCode? {
            PaylikeFlow(test: test, card: card, amount: euros).refusal
        }
        #expect(refusal(PaylikeTest(scheme: .unsupported, status: .lost)) == .cardSchemeUnsupported, "the scheme is checked first")
        #expect(refusal(PaylikeTest(code: .invalid, status: .expired)) == .cardExpired)
        #expect(refusal(PaylikeTest(code: .invalid)) == .cardSecurityCodeInvalid)
        let cents = { (value: Int64, exponent: Int) in try! PaymentAmount(currency: "EUR", value: value, exponent: exponent) }
        #expect(refusal(PaylikeTest(limit: cents(9_999, 3))) == .amountLimit)
        #expect(refusal(PaylikeTest(limit: cents(10, 0))) == nil, "10 EUR is the amount, at another exponent")
        #expect(refusal(PaylikeTest(balance: cents(999, 2))) == .insufficientFunds)
        #expect(refusal(PaylikeTest(limit: try PaymentAmount(currency: "USD", value: 1, exponent: 2))) == nil, "another currency's limit")
        #expect(refusal(PaylikeTest(), card: .declined(.stolenCard)) == .cardLost)
        #expect(refusal(PaylikeTest(), card: .noAnswer) == .rejected)
        #expect(refusal(PaylikeTest(status: .disabled), card: .declined(.expiredCard)) == .cardDisabled, "the test object first")
        #expect(PaylikeFlow(test: nil, card: .requiresAuthentication(challenge: false, afterwards: .approved), amount: euros).threeDSecure?.challenge == false)
        // Every refusal maps to a failure of the gateway and back.
        for (code, _) in [(PaylikeCode.rejectedByIssuer, 0), (.insufficientFunds, 0), (.cardLost, 0), (.cardExpired, 0), (.cardSecurityCodeInvalid, 0), (.rejected, 0),
                          (.tdsFailed, 0), (.methodError, 0), (.cardNumberInvalid, 0), (.cardDisabled, 0), (.cardSchemeUnsupported, 0), (.cardSchemeUnknown, 0), (.amountLimit, 0)] {
            #expect(PaylikeFlow.code(for: PaylikeFlow.failure(for: code)) == code)
        }
        #expect(PaylikeCode.internalError.httpStatus == 500 && PaylikeCode.endpointNotFound.httpStatus == 404 && PaylikeCode.testModeMixed.httpStatus == 400)
    }

    @Test func theAuthorizationWalksTheIntentsStateMachine() throws {
        func walked(_ flow: PaylikeFlow, answer: String?) throws -> (PaymentIntentStateMachine.Action, PaymentIntentStateMachine) {
            var machine = PaymentIntentStateMachine(amount: 1_000, captureMethod: .manual)
            try machine.attach(paymentMethod: "pm_1", type: .card)
            return (try flow.authorize(&machine, challengeAnswer: answer), machine)
        }
        let challenged = PaylikeFlow(test: PaylikeTest(tds: .init()), card: .approved, amount: euros)
        let (passed, machine) = try walked(challenged, answer: "tds-challenge-authenticated")
        #expect(passed == .authorized(amount: 1_000) && machine.status == .requiresCapture)
        let (failed, failedMachine) = try walked(challenged, answer: "tds-challenge-failed")
        #expect(failed == .failed(.authenticationFailed) && failedMachine.status == .requiresPaymentMethod)
        let rejected = PaylikeFlow(test: PaylikeTest(tds: .init(challenge: false, status: .rejected)), card: .approved, amount: euros)
        #expect(try walked(rejected, answer: nil).0 == .failed(.authenticationFailed))
        let frictionless = PaylikeFlow(test: PaylikeTest(tds: .init(challenge: false, status: .attempted)), card: .approved, amount: euros)
        #expect(try walked(frictionless, answer: nil).0 == .authorized(amount: 1_000))
        let afterwards = PaylikeFlow(test: PaylikeTest(), card: .requiresAuthentication(challenge: true, afterwards: .insufficientFunds), amount: euros)
        #expect(try walked(afterwards, answer: "tds-challenge-authenticated").0 == .failed(.insufficientFunds))
        let lost = PaylikeFlow(test: PaylikeTest(status: .lost), card: .approved, amount: euros)
        #expect(try walked(lost, answer: nil).0 == .failed(PaylikeFlow.failure(for: .cardLost)))
    }
}

@Suite("Paylike's payment plans")
struct PaylikePlanTests {
    let now: Int64 = 1_795_000_000
    let nine = try! PaymentAmount(currency: "EUR", value: 900, exponent: 2)

    @Test func api_docsExamplesAreValid() {
        let day: Int64 = 86_400
        let examples: [[PaylikePlanComponent]] = [
            [PaylikePlanComponent(amount: nine, repeat: .init(unit: .month))],
            [PaylikePlanComponent(amount: nine, repeat: .init(first: now + 14 * day, unit: .month))],
            [PaylikePlanComponent(amount: nine, repeat: .init(first: now + 3 * day, unit: .week, value: 2))],
            [PaylikePlanComponent(amount: nine, repeat: .init(count: 3, unit: .month)), PaylikePlanComponent(amount: nine, repeat: .init(unit: .month))],
            [PaylikePlanComponent(amount: nine, scheduled: now + 30 * day), PaylikePlanComponent(amount: nine, scheduled: now + 60 * day),
             PaylikePlanComponent(amount: nine, scheduled: now + 90 * day)],
        ]
        for plan in examples { #expect(PaylikePlan.problem(plan, now: now) == nil, "\(plan)") }
    }

    @Test func theLimitationsEachRefused() {
        let day: Int64 = 86_400
        let cases: [([PaylikePlanComponent], String)] = [
            ([], "plan"),
            (Array(repeating: PaylikePlanComponent(amount: nine, scheduled: now), count: 101), "plan"),
            ([PaylikePlanComponent(amount: nine)], "plan.0"),
            ([PaylikePlanComponent(amount: nine, scheduled: now + day, repeat: .init(unit: .month))], "plan.0"),
            ([PaylikePlanComponent(amount: nine, repeat: .init(unit: .month)), PaylikePlanComponent(amount: nine, repeat: .init(unit: .month))], "plan.0.repeat.count"),
            ([PaylikePlanComponent(amount: nine, repeat: .init(count: 0, unit: .month))], "plan.0.repeat.count"),
            ([PaylikePlanComponent(amount: nine, repeat: .init(unit: .day, value: 0))], "plan.0.repeat.interval.value"),
            ([PaylikePlanComponent(amount: nine, scheduled: now + 2 * day), PaylikePlanComponent(amount: nine, scheduled: now + day)], "plan.1.scheduled"),
            ([PaylikePlanComponent(amount: nine, scheduled: now + day), PaylikePlanComponent(amount: nine, repeat: .init(first: now + day, unit: .week))], "plan.1.repeat.first"),
            ([PaylikePlanComponent(amount: try! PaymentAmount(currency: "EUR", value: -1, exponent: 2), scheduled: now + day)], "plan.0.amount"),
        ]
        for (plan, field) in cases { #expect(PaylikePlan.problem(plan, now: now) == field, "\(plan)") }
    }
}
