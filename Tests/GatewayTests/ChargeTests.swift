import Gateway
import Testing

@Suite("Charges: one per attempt to pay an intent")
struct ChargeTests {
    static let card = PaymentMethodRecord(id: PaymentMethodID("pm_card"), type: .card, created: 1, card: .init(
        brand: .visa, last4: "4242", expMonth: 12, expYear: 2034, country: "NL", fingerprint: "fp", outcome: .approved))

    /// An intent with `card` attached, as the gateway's core attaches it.
    static func intent(_ capture: CaptureMethod = .automatic) throws -> PaymentIntentRecord {
        var intent = PaymentIntentRecord(
            id: PaymentIntentID("pi_abc"), clientSecret: "s", currency: "eur", created: 1, machine: PaymentIntentStateMachine(amount: 1000, captureMethod: capture),
            paymentMethodTypes: [.card])
        try intent.machine.attach(paymentMethod: card.id.rawValue, type: .card)
        intent.attemptMethod = ChargeMethod(card)
        return intent
    }

    /// Confirms with `outcome` and records the charge the machine's answer makes.
    static func confirm(_ intent: inout PaymentIntentRecord, _ outcome: AcquirerOutcome, at now: Int64 = 10) throws -> ChargeChange? {
        let action = try intent.machine.confirm(acquirer: outcome)
        return intent.recordCharge(for: action, now: now)
    }

    @Test("Ids: the intent's characters, _n from the second attempt, and back")
    func ids() {
        let intent = PaymentIntentID("pi_3Mtw")
        #expect(intent.charge(1).rawValue == "ch_3Mtw")
        #expect(intent.charge(2).rawValue == "ch_3Mtw_2")
        #expect(intent.charge(1).attempt! == (intent, 1))
        #expect(intent.charge(12).attempt! == (intent, 12))
        for text in ["ch_", "pi_3Mtw", "ch_3Mtw_1", "ch_3Mtw_02", "ch_3Mtw_x", "ch_a_2_3", "ch__2", "ch_3Mtw_-2", "ch_é"] {
            #expect(ChargeID(text).attempt == nil, "\(text)")
        }
    }

    @Test("An approved card makes one succeeded charge; its capture is reported, not a second charge")
    func approvedThenCaptured() throws {
        var intent = try Self.intent(.manual)
        let made = try Self.confirm(&intent, .approved)
        guard case .recorded(let charge, .chargeSucceeded) = made else { Issue.record("\(String(describing: made))"); return }
        #expect(charge.number == 1 && charge.status == .succeeded && charge.amount == 1000 && charge.method?.card?.last4 == "4242")
        let capture = try intent.machine.capture(600)
        #expect(intent.recordCharge(for: capture, now: 20) == .captured(charge))
        #expect(intent.chargeAttempts == [charge])
        // The 400 not captured is released: Stripe counts it as refunded on the charge.
        #expect(intent.chargeAmountRefunded == 400)
    }

    @Test("A decline makes a failed charge; the next attempt is the second charge")
    func declinedThenApproved() throws {
        var intent = try Self.intent()
        let declined = try Self.confirm(&intent, .declined(.insufficientFunds))
        guard case .recorded(let failed, .chargeFailed) = declined else { Issue.record("\(String(describing: declined))"); return }
        #expect(failed.failure == .insufficientFunds && failed.method?.id == Self.card.id)
        // The machine forgets the method after a failure; the charge keeps what it tried.
        #expect(intent.machine.paymentMethod == nil)
        try intent.machine.attach(paymentMethod: Self.card.id.rawValue, type: .card)
        let approved = try Self.confirm(&intent, .approved, at: 30)
        guard case .recorded(let succeeded, .chargeSucceeded) = approved else { Issue.record("\(String(describing: approved))"); return }
        #expect(succeeded.number == 2 && succeeded.created == 30)
        #expect(intent.chargeAttempts.map(\.status) == [.failed, .succeeded] && intent.succeededCharge == succeeded)
    }

    @Test("A late acquirer: one pending charge, settled by the answer, however often it is asked")
    func pendingThenAnswered() throws {
        for (answer, status) in [(AcquirerOutcome.approved, ChargeAttempt.Status.succeeded), (.declined(.generic), .failed)] {
            var intent = try Self.intent()
            guard case .recorded(let pending, .chargePending) = try Self.confirm(&intent, .noAnswer) else { Issue.record("no pending charge"); return }
            #expect(pending.status == .pending)
            #expect(intent.recordCharge(for: try intent.machine.acquirerAnswered(.noAnswer), now: 11) == nil)
            let change = intent.recordCharge(for: try intent.machine.acquirerAnswered(answer), now: 12)
            guard case .recorded(let settled, _) = change else { Issue.record("\(String(describing: change))"); return }
            #expect(settled.number == 1 && settled.status == status && intent.chargeAttempts.count == 1)
        }
    }

    @Test("3-D Secure: no charge while the customer is away, none for a failed authentication, one for a passed one")
    func threeDSecure() throws {
        var intent = try Self.intent()
        #expect(try Self.confirm(&intent, .requiresAuthentication(challenge: true, afterwards: .approved)) == nil)
        #expect(intent.recordCharge(for: try intent.machine.completeAction(succeeded: false), now: 12) == nil)
        #expect(intent.chargeAttempts.isEmpty)
        try intent.machine.attach(paymentMethod: Self.card.id.rawValue, type: .card)
        _ = try Self.confirm(&intent, .requiresAuthentication(challenge: true, afterwards: .approved))
        let change = intent.recordCharge(for: try intent.machine.completeAction(succeeded: true), now: 13)
        guard case .recorded(let charge, .chargeSucceeded) = change else { Issue.record("\(String(describing: change))"); return }
        #expect(charge.number == 1)
    }

    @Test("A cancelled authorisation is refunded whole on its charge")
    func canceledAuthorization() throws {
        var intent = try Self.intent(.manual)
        _ = try Self.confirm(&intent, .approved)
        #expect(intent.recordCharge(for: try intent.machine.cancel(nil), now: 20) == nil)
        #expect(intent.chargeAmountRefunded == 1000 && intent.succeededCharge?.amount == 1000)
    }
}

@Suite("Stripe's test payment methods and tokens")
struct TestPaymentMethodTests {
    @Test("Each names a valid test card whose outcome its name tells")
    func namesAndOutcomes() throws {
        for (name, number) in TestPaymentMethods.cards {
            let (digits, brand) = try CardRules.checkNumber(number)
            #expect(brand != .unknown, "\(name)")
            #expect(TestPaymentMethods.cardNumber(paymentMethod: "pm_card_" + name) == number)
            #expect(TestPaymentMethods.cardNumber(token: "tok_" + name) == number)
            let outcome = TestAcquirer.outcome(forCardDigits: digits)
            switch outcome {
            case .approved: #expect(!name.contains("Declined") && !name.contains("Required"), "\(name)")
            case .declined: #expect(name.hasPrefix("chargeDeclined"), "\(name)")
            case .requiresAuthentication(let challenge, let afterwards):
                #expect(challenge == name.contains("Required") && (afterwards == .insufficientFunds) == name.contains("InsufficientFunds"), "\(name)")
            case .noAnswer: Issue.record("\(name) never answers")
            }
        }
        #expect(TestPaymentMethods.cards["chargeDeclinedInsufficientFunds"].map { TestAcquirer.outcome(forCardDigits: $0) } == .declined(.insufficientFunds))
        for text in ["pm_card_nope", "pm_visa", "tok_", "visa", "pm_card_", "tok_card_visa"] {
            #expect(TestPaymentMethods.cardNumber(paymentMethod: text) == nil && TestPaymentMethods.cardNumber(token: text) == nil, "\(text)")
        }
    }
}
