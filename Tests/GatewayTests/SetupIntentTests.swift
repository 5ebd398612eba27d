import Gateway
import Testing

@Suite("The setup intent state machine and payments off session")
struct SetupIntentTests {
    typealias Machine = SetupIntentStateMachine

    static func ready() throws -> Machine {
        var machine = Machine()
        try machine.attach(paymentMethod: "pm_1")
        return machine
    }

    @Test("Each answer of the issuer to a check of no amount")
    func confirmations() throws {
        let table: [(AcquirerOutcome, SetupIntentStatus, Machine.Action)] = [
            (.approved, .succeeded, .succeeded),
            (.requiresAuthentication(challenge: false, afterwards: .approved), .succeeded, .succeeded),
            (.declined(.insufficientFunds), .succeeded, .succeeded),
            (.declined(.generic), .requiresPaymentMethod, .failed(.generic)),
            (.declined(.expiredCard), .requiresPaymentMethod, .failed(.expiredCard)),
            (.requiresAuthentication(challenge: true, afterwards: .approved), .requiresAction, .requiresAction),
            (.noAnswer, .requiresPaymentMethod, .failed(.processingError)),
        ]
        for (outcome, status, action) in table {
            var machine = try Self.ready()
            #expect(try machine.confirm(acquirer: outcome) == action, "\(outcome)")
            #expect(machine.status == status, "\(outcome)")
            #expect((machine.paymentMethod == nil) == (status == .requiresPaymentMethod))
        }
    }

    @Test("3-D Secure passed or failed, and what may not happen")
    func actionsAndRefusals() throws {
        var machine = try Self.ready()
        _ = try machine.confirm(acquirer: .requiresAuthentication(challenge: true, afterwards: .approved))
        var failed = machine
        #expect(try failed.completeAction(succeeded: false) == .failed(.setupAuthenticationFailed) && failed.lastSetupError == .setupAuthenticationFailed)
        #expect(try machine.completeAction(succeeded: true) == .succeeded && machine.status == .succeeded)
        #expect(throws: PaymentIntentStateError.self) { try machine.cancel(nil) }
        #expect(throws: PaymentIntentStateError.self) { try machine.attach(paymentMethod: "pm_2") }
        var empty = Machine()
        #expect(throws: PaymentIntentStateError.self) { try empty.confirm(acquirer: .approved) }
        #expect(throws: PaymentIntentStateError.self) { try empty.completeAction(succeeded: true) }
        #expect(try empty.cancel(.abandoned) == .canceled && empty.status == .canceled && empty.cancellationReason == .abandoned)
        #expect(throws: PaymentIntentStateError.self) { try empty.attach(paymentMethod: "pm_2") }
    }

    @Test("Off session: a challenge declines, unless set up with an issuer that accepts it")
    func offSession() {
        let challenge = AcquirerOutcome.requiresAuthentication(challenge: true, afterwards: .approved)
        let table: [(AcquirerOutcome, Bool, Bool, AcquirerOutcome)] = [
            (challenge, false, false, .declined(.authenticationRequired)),
            (challenge, true, false, .declined(.authenticationRequired)),
            (challenge, false, true, .declined(.authenticationRequired)),
            (challenge, true, true, .approved),
            (.requiresAuthentication(challenge: true, afterwards: .insufficientFunds), true, true, .declined(.insufficientFunds)),
            (.requiresAuthentication(challenge: false, afterwards: .approved), false, false, .approved),
            (.approved, false, false, .approved),
            (.declined(.lostCard), true, true, .declined(.lostCard)),
            (.noAnswer, false, false, .noAnswer),
        ]
        for (outcome, setUp, exempt, expected) in table {
            #expect(OffSession.outcome(outcome, setUp: setUp, exemptOnceSetUp: exempt) == expected, "\(outcome) \(setUp) \(exempt)")
        }
    }
}
