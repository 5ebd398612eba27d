import Gateway
import Testing

@Suite("The payment intent state machine")
struct PaymentIntentStateMachineTests {
    typealias Machine = PaymentIntentStateMachine

    static func ready(_ capture: CaptureMethod = .automatic, amount: Int64 = 1000, type: PaymentMethodType = .card) throws -> Machine {
        var machine = Machine(amount: amount, captureMethod: capture)
        try machine.attach(paymentMethod: "pm_1", type: type)
        return machine
    }

    /// A machine in each status, reached through the lifecycle itself.
    static func machine(in status: PaymentIntentStatus) throws -> Machine {
        switch status {
        case .requiresPaymentMethod: return Machine(amount: 1000, captureMethod: .manual)
        case .requiresConfirmation: return try ready(.manual)
        case .requiresAction:
            var machine = try ready(.manual)
            _ = try machine.confirm(acquirer: .requiresAuthentication(challenge: true, afterwards: .approved))
            return machine
        case .processing:
            var machine = try ready(.manual)
            _ = try machine.confirm(acquirer: .noAnswer)
            return machine
        case .requiresCapture:
            var machine = try ready(.manual)
            _ = try machine.confirm(acquirer: .approved)
            return machine
        case .succeeded:
            var machine = try ready(.automatic)
            _ = try machine.confirm(acquirer: .approved)
            return machine
        case .canceled:
            var machine = try ready(.manual)
            _ = try machine.cancel(.requestedByCustomer)
            return machine
        }
    }

    @Test func everyStatusIsReachable() throws {
        for status in PaymentIntentStatus.allCases {
            #expect(try Self.machine(in: status).status == status)
        }
    }

    @Test func automaticCaptureSettlesAtConfirmation() throws {
        var machine = try Self.ready()
        #expect(machine.status == .requiresConfirmation)
        #expect(try machine.confirm(acquirer: .approved) == .settle(amount: 1000))
        #expect(machine.status == .succeeded)
        #expect(machine.amountReceived == 1000)
    }

    @Test func manualCaptureHoldsThenCapturesPartOnce() throws {
        var machine = try Self.ready(.manual)
        #expect(try machine.confirm(acquirer: .approved) == .authorized(amount: 1000))
        #expect(machine.amountCapturable == 1000)
        #expect(throws: PaymentIntentStateError.self) { try machine.capture(1001) }
        #expect(throws: PaymentIntentStateError.self) { try machine.capture(0) }
        #expect(throws: PaymentIntentStateError.self) { try machine.capture(-1) }
        #expect(throws: PaymentIntentStateError.self) { try machine.capture(Int64.min) }
        #expect(machine.status == .requiresCapture)
        #expect(try machine.capture(600) == .settle(amount: 600))
        #expect(machine.amountReceived == 600)
        #expect(machine.amountCapturable == 0)
        do {
            _ = try machine.capture(nil)
            Issue.record("captured twice")
        } catch {
            #expect(error.code == .unexpectedState)
            #expect(error.message == "You cannot capture this PaymentIntent because it has a status of succeeded.")
        }
    }

    @Test func aDeclineReturnsToRequiresPaymentMethod() throws {
        var machine = try Self.ready()
        #expect(try machine.confirm(acquirer: .declined(.insufficientFunds)) == .failed(.insufficientFunds))
        #expect(machine.status == .requiresPaymentMethod)
        #expect(machine.lastPaymentError == .insufficientFunds)
        #expect(machine.paymentMethod == nil)
        // Another card, and it goes through.
        try machine.attach(paymentMethod: "pm_2", type: .card)
        #expect(try machine.confirm(acquirer: .approved) == .settle(amount: 1000))
        #expect(machine.lastPaymentError == nil)
    }

    @Test func threeDSecureBothWays() throws {
        var passed = try Self.ready()
        #expect(try passed.confirm(acquirer: .requiresAuthentication(challenge: true, afterwards: .approved)) == .requiresAction(.threeDSecure))
        #expect(passed.status == .requiresAction)
        #expect(try passed.completeAction(succeeded: true) == .settle(amount: 1000))

        var failed = try Self.ready()
        _ = try failed.confirm(acquirer: .requiresAuthentication(challenge: true, afterwards: .approved))
        #expect(try failed.completeAction(succeeded: false) == .failed(.authenticationFailed))
        #expect(failed.status == .requiresPaymentMethod)

        var thenDeclined = try Self.ready()
        _ = try thenDeclined.confirm(acquirer: .requiresAuthentication(challenge: true, afterwards: .insufficientFunds))
        #expect(try thenDeclined.completeAction(succeeded: true) == .failed(.insufficientFunds))

        var frictionless = try Self.ready(.manual)
        #expect(try frictionless.confirm(acquirer: .requiresAuthentication(challenge: false, afterwards: .approved)) == .authorized(amount: 1000))
    }

    @Test func bankRedirectsIgnoreTheCardAcquirer() throws {
        for type in [PaymentMethodType.ideal, .bancontact] {
            var machine = try Self.ready(type: type)
            #expect(try machine.confirm(acquirer: .declined(.generic)) == .requiresAction(.bankRedirect))
            #expect(try machine.completeAction(succeeded: true) == .settle(amount: 1000))
            var failed = try Self.ready(type: type)
            _ = try failed.confirm(acquirer: .approved)
            #expect(try failed.completeAction(succeeded: false) == .failed(.bankPaymentFailed))
            var abandoned = try Self.ready(type: type)
            _ = try abandoned.confirm(acquirer: .approved)
            #expect(try abandoned.cancel(.abandoned) == .canceled)
            #expect(abandoned.cancellationReason == .abandoned)
        }
    }

    @Test func anUnansweredAuthorizationWaitsForTheAcquirer() throws {
        var machine = try Self.ready()
        #expect(try machine.confirm(acquirer: .noAnswer) == .askAcquirerLater)
        #expect(machine.status == .processing)
        #expect(try machine.acquirerAnswered(.noAnswer) == .askAcquirerLater)
        #expect(try machine.acquirerAnswered(.approved) == .settle(amount: 1000))
        // Answered once: a second answer is refused, so nothing settles twice.
        #expect(throws: PaymentIntentStateError.self) { try machine.acquirerAnswered(.approved) }
        var declined = try Self.ready()
        _ = try declined.confirm(acquirer: .noAnswer)
        #expect(try declined.acquirerAnswered(.declined(.processingError)) == .failed(.processingError))
    }

    @Test func cancelReleasesAHold() throws {
        var machine = try Self.machine(in: .requiresCapture)
        #expect(try machine.cancel(nil) == .release(amount: 1000))
        #expect(machine.amountCapturable == 0)
    }

    @Test func refundsNeverExceedWhatWasCaptured() throws {
        var machine = try Self.ready(.manual)
        _ = try machine.confirm(acquirer: .approved)
        _ = try machine.capture(700)
        #expect(try machine.refund(200) == .refund(amount: 200))
        #expect(throws: PaymentIntentStateError.self) { try machine.refund(501) }
        #expect(throws: PaymentIntentStateError.self) { try machine.refund(0) }
        #expect(throws: PaymentIntentStateError.self) { try machine.refund(Int64.min) }
        #expect(try machine.refund(nil) == .refund(amount: 500))
        #expect(machine.amountRefunded == 700)
        #expect(throws: PaymentIntentStateError.self) { try machine.refund(nil) }
        var uncaptured = try Self.machine(in: .requiresCapture)
        #expect(throws: PaymentIntentStateError.self) { try uncaptured.refund(1) }
    }

    /// Every event in every status: allowed where the lifecycle allows it, refused (and the
    /// machine unchanged) everywhere else.
    @Test func everyForbiddenTransitionIsRefused() throws {
        typealias Event = (name: String, apply: (inout Machine) throws(PaymentIntentStateError) -> Void)
        let events: [Event] = [
            ("attach", { m throws(PaymentIntentStateError) in try m.attach(paymentMethod: "pm_9", type: .card) }),
            ("update amount", { m throws(PaymentIntentStateError) in try m.update(amount: 5) }),
            ("confirm", { m throws(PaymentIntentStateError) in _ = try m.confirm(acquirer: .approved) }),
            ("complete action", { m throws(PaymentIntentStateError) in _ = try m.completeAction(succeeded: true) }),
            ("acquirer answered", { m throws(PaymentIntentStateError) in _ = try m.acquirerAnswered(.approved) }),
            ("capture", { m throws(PaymentIntentStateError) in _ = try m.capture(nil) }),
            ("cancel", { m throws(PaymentIntentStateError) in _ = try m.cancel(nil) }),
            ("refund", { m throws(PaymentIntentStateError) in _ = try m.refund(nil) }),
        ]
        let allowed: [String: Set<PaymentIntentStatus>] = [
            "attach": [.requiresPaymentMethod, .requiresConfirmation],
            "update amount": [.requiresPaymentMethod, .requiresConfirmation],
            "confirm": [.requiresConfirmation],
            "complete action": [.requiresAction],
            "acquirer answered": [.processing],
            "capture": [.requiresCapture],
            "cancel": [.requiresPaymentMethod, .requiresConfirmation, .requiresAction, .requiresCapture],
            "refund": [.succeeded],
        ]
        for status in PaymentIntentStatus.allCases {
            for event in events {
                let before = try Self.machine(in: status)
                var machine = before
                do {
                    try event.apply(&machine)
                    #expect(allowed[event.name]!.contains(status), "\(event.name) was allowed in \(status)")
                } catch {
                    #expect(!allowed[event.name]!.contains(status), "\(event.name) was refused in \(status): \(error)")
                    #expect(machine == before, "a refused \(event.name) changed the machine")
                }
            }
        }
        #expect(!(try Self.machine(in: .processing).isUpdatable))
        #expect(!(try Self.machine(in: .succeeded).isUpdatable))
        #expect(try Self.machine(in: .requiresCapture).isUpdatable)
    }
}
