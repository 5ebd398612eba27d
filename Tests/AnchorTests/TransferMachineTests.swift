import Anchor
import Testing

@Suite("SEP-24 transfers' statuses")
struct TransferMachineTests {
    typealias Machine = TransferMachine

    @Test func aDepositWalksToCompleted() throws {
        var deposit = Machine(kind: .deposit)
        #expect(deposit.status == .incomplete && deposit.amountOut == nil)
        try deposit.apply(.amountChosen(amountIn: 1_000, fee: 40))
        #expect(deposit.status == .pendingUserTransferStart && deposit.amountOut == 960)
        try deposit.apply(.userTransferReceived(stellarTransaction: nil))
        #expect(deposit.status == .pendingAnchor)
        try deposit.apply(.trustMissing)
        #expect(deposit.status == .pendingTrust)
        try deposit.apply(.paying)
        #expect(deposit.status == .pendingStellar)
        try deposit.apply(.paid("abc"))
        #expect(deposit.status == .completed && deposit.stellarTransaction == "abc" && deposit.status.isFinal)
        #expect(throws: Machine.Refusal.self) { try deposit.apply(.refunded) }
    }

    @Test func aWithdrawalWalksToCompleted() throws {
        var withdrawal = Machine(kind: .withdrawal)
        try withdrawal.apply(.amountChosen(amountIn: 500, fee: 29))
        try withdrawal.apply(.userTransferReceived(stellarTransaction: "tx1"))
        #expect(withdrawal.status == .pendingAnchor && withdrawal.stellarTransaction == "tx1")
        #expect(throws: Machine.Refusal.self) { try withdrawal.apply(.trustMissing) }
        try withdrawal.apply(.paying)
        try withdrawal.apply(.paid("po_1"))
        #expect(withdrawal.status == .completed && withdrawal.external == "po_1" && withdrawal.amountOut == 471)
    }

    @Test func anExchangeReceivesWhatItsPriceSays() throws {
        var exchange = Machine(kind: .deposit)
        try exchange.apply(.amountChosen(amountIn: 1_000, fee: 40, exchangedOut: 888))
        #expect(exchange.amountOut == 888 && exchange.amountFee == 40 && exchange.amountIn == 1_000)
        var nothing = Machine(kind: .deposit)
        #expect(throws: Machine.Refusal.self) { try nothing.apply(.amountChosen(amountIn: 1_000, fee: 40, exchangedOut: 0)) }
    }

    @Test func failuresAndRefusals() throws {
        var declined = Machine(kind: .deposit)
        try declined.apply(.amountChosen(amountIn: 1_000, fee: 40))
        try declined.apply(.userTransferFailed("card declined"))
        #expect(declined.status == .error && declined.message == "card declined")
        #expect(throws: Machine.Refusal.self) { try declined.apply(.userTransferReceived(stellarTransaction: nil)) }

        var refunded = Machine(kind: .deposit)
        try refunded.apply(.amountChosen(amountIn: 1_000, fee: 40))
        try refunded.apply(.userTransferReceived(stellarTransaction: nil))
        try refunded.apply(.refunded)
        #expect(refunded.status == .refunded)

        var failed = Machine(kind: .deposit)
        try failed.apply(.amountChosen(amountIn: 1_000, fee: 40))
        try failed.apply(.userTransferReceived(stellarTransaction: nil))
        try failed.apply(.paying)
        try failed.apply(.payFailed("no trustline"))
        #expect(failed.status == .error)

        var fresh = Machine(kind: .deposit)
        #expect(throws: Machine.Refusal.self) { try fresh.apply(.amountChosen(amountIn: 100, fee: 100)) }
        #expect(throws: Machine.Refusal.self) { try fresh.apply(.amountChosen(amountIn: 0, fee: 0)) }
        #expect(throws: Machine.Refusal.self) { try fresh.apply(.paying) }
        #expect(throws: Machine.Refusal.self) { try fresh.apply(.paid("x")) }
        try fresh.apply(.amountChosen(amountIn: 100, fee: 0))
        #expect(throws: Machine.Refusal.self) { try fresh.apply(.paid("x")) }
        #expect(throws: Machine.Refusal.self) { try fresh.apply(.refunded) }
    }
}
