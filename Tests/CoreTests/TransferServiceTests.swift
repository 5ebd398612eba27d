import Anchor
@testable import AnchorCore
import Foundation
import Gateway
import GatewayCore
import Ledger
import Logging
import StellarBase
import Testing

/// The anchor's deposits on the gateway's core and a real ledger, without HTTP: paid by card
/// through the anchor's own merchant, paid out once, and never twice after a stop between the
/// payment and its record.
@Suite("The anchor's transfers, without HTTP")
struct TransferServiceTests {
    /// A new account trusting the anchor's EUR, made by the root.
    func user(_ world: CoreWorld) async throws -> KeyPair {
        let user = KeyPair.random()
        let eur = world.gateway.anchor.currency(code: "EUR")!.asset
        let result = try await world.gateway.rootDesk.submit([
            StellarBase.Operation(.createAccount(CreateAccountOperation(destination: user.accountID, startingBalance: 10 * Amount.stroopsPerUnit))),
            StellarBase.Operation(sourceAccount: .ed25519(user.accountID), .changeTrust(ChangeTrustOperation(asset: eur))),
        ], cosigners: [user])
        #expect(result.result.isSuccess)
        return user
    }

    /// Starts a deposit of `amount` cents and pays its session with `card`.
    func deposit(_ world: CoreWorld, _ transfers: TransferService, _ user: KeyPair, amount: Int64, card: String) async throws -> String {
        let who = AnchorUser(account: user.accountID, memo: nil, muxedID: nil, subject: user.accountID.strKey, clientDomain: nil)
        let (record, _) = try await transfers.start(.deposit, user: who, assetCode: "EUR", account: nil, lang: nil)
        _ = try await transfers.chooseDeposit(id: record.id, amount: amount, method: .card, successURL: "https://wallet.example/ok", cancelURL: "https://wallet.example/no", base: CoreWorld.base)
        let merchant = try await transfers.merchant()
        let session = try #require(try await transfers.record(record.id)?.session)
        let intent = try await world.gateway.checkoutSession(CheckoutSessionID(session), merchant: merchant).intent
        let method = try await world.gateway.createPaymentMethod(NewPaymentMethod(type: .card, card: CardDetails(number: card, expMonth: "12", expYear: "2040", cvc: "123")), merchant: merchant).id
        _ = try? await world.gateway.confirmPaymentIntent(intent.id, IntentConfirmation(paymentMethod: method), merchant: merchant, key: .secret, base: CoreWorld.base)
        return record.id
    }

    @Test func aDepositIsPaidOnceEvenAfterAStopBetweenThePaymentAndItsRecord() async throws {
        try await CoreWorld.with { world in
            let transfers = TransferService(gateway: world.gateway, reader: world.reader, logger: Logger(label: "test"))
            let alice = try await user(world)
            let id = try await deposit(world, transfers, alice, amount: 1_000, card: "4242424242424242")
            #expect(try await transfers.record(id)?.machine.status == .pendingUserTransferStart)
            #expect(try await transfers.advance(id))
            let done = try #require(try await transfers.record(id))
            #expect(done.machine.status == .completed && done.machine.amountOut == 960)
            #expect(try await world.euros(of: alice.accountID.strKey) == 960)
            let anchorAccount = try await transfers.merchant().settlementAccount
            let anchorBefore = try await world.euros(of: anchorAccount)

            // The server stopped after paying, before recording it: the transfer is still
            // pending_stellar. Moved on again, it finds its payment on the ledger and pays nothing.
            var machine = TransferMachine(kind: .deposit)
            try machine.apply(.amountChosen(amountIn: 1_000, fee: 40))
            try machine.apply(.userTransferReceived(stellarTransaction: nil))
            try machine.apply(.paying)
            var rewound = done
            rewound.machine = machine
            rewound.completedAt = nil
            var object = try #require(try await world.gateway.store.object(id: id, kind: .anchorTransfer, merchant: TransferService.owner))
            object.body = try TransferService.encode(rewound)
            object.attentionAt = 0
            #expect(try await world.gateway.store.update(object))
            #expect(try await transfers.advanceDue() == 1)
            let again = try #require(try await transfers.record(id))
            #expect(again.machine.status == .completed && again.machine.stellarTransaction == done.machine.stellarTransaction)
            #expect(try await world.euros(of: alice.accountID.strKey) == 960, "paid once")
            #expect(try await world.euros(of: anchorAccount) == anchorBefore)
        }
    }

    @Test func aDeclinedCardEndsTheDepositAndClosesItsSession() async throws {
        try await CoreWorld.with { world in
            let transfers = TransferService(gateway: world.gateway, reader: world.reader, logger: Logger(label: "test"))
            let bob = try await user(world)
            let id = try await deposit(world, transfers, bob, amount: 500, card: "4000000000000002")
            try await transfers.advance(id)
            let record = try #require(try await transfers.record(id))
            #expect(record.machine.status == .error && record.machine.message?.contains("declined") == true)
            let merchant = try await transfers.merchant()
            let session = try await world.gateway.checkoutSession(CheckoutSessionID(record.session!), merchant: merchant)
            #expect(session.intent.machine.status == .canceled, "it cannot be paid later")
            #expect(try await world.euros(of: bob.accountID.strKey) == 0)
        }
    }
}
