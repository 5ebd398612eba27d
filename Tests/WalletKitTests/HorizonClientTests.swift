import Foundation
import HummingbirdTesting
import Ledger
import StellarBase
import TenderServer
import TenderTesting
import Testing
import WalletKit

/// WalletKit's Horizon client against a real Tender server on a free port.
@Suite("Horizon client")
struct HorizonClientTests {
    func configuration() -> TenderConfiguration {
        let temporary = TemporaryDirectory("walletkit")
        defer { temporary.remove() }
        let directory = temporary.path
        return TenderConfiguration(port: 0, dataDirectory: directory, closeInterval: .zero)
    }

    @Test(arguments: TestDatabase.allCases)
    func fundPayPageAndFail(_ database: TestDatabase) async throws {
        try await database.with { url in
            let configuration = configuration()
            let app = try await buildApplication({ var configured = configuration; configured.database = url; return configured }())
            try await app.test(.live) { client in
                let horizon = HorizonClient(baseURL: URL(string: "http://127.0.0.1:\(client.port!)")!)
                #expect(try await horizon.networkPassphrase() == Network.standalone.passphrase)
                let alice = KeyPair.random(), bob = KeyPair.random()
                #expect(try await horizon.account(alice.accountID.strKey) == nil)
                for keyPair in [alice, bob] { _ = try await horizon.friendbot(keyPair.accountID.strKey) }
                let account = try #require(try await horizon.account(alice.accountID.strKey))
                #expect(account.balance(of: .native) == 10_000 * Amount.stroopsPerUnit)
                #expect(try await horizon.baseFee() == 100)

                var builder = TransactionBuilder(source: alice.accountID, currentSequenceNumber: account.sequence)
                builder.memo = try .text("dinner")
                builder.add(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: 50 * Amount.stroopsPerUnit)))
                let submitted = try await horizon.submit(try builder.build().signed(by: [alice], on: .standalone))
                #expect(submitted.successful)

                let page = try await horizon.payments(for: bob.accountID.strKey, limit: 1)
                let payment = try #require(page.records.first)
                #expect(payment.type == "payment")
                #expect(payment.amount == "50.0000000")
                #expect(payment.from == alice.accountID.strKey)
                let older = try await horizon.payments(for: bob.accountID.strKey, limit: 5, cursor: page.nextCursor)
                #expect(older.records.map(\.type) == ["create_account"])

                // The same sequence number again: the problem carries Horizon's result codes.
                do {
                    var again = TransactionBuilder(source: alice.accountID, currentSequenceNumber: account.sequence)
                    again.add(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: 1)))
                    _ = try await horizon.submit(try again.build().signed(by: [alice], on: .standalone))
                    Issue.record("a reused sequence number was accepted")
                } catch let problem as HorizonProblem {
                    #expect(problem.status == 400)
                    #expect(problem.type == "transaction_failed")
                    #expect(problem.transactionCode == "tx_bad_seq")
                }
                do {
                    _ = try await horizon.friendbot(alice.accountID.strKey, asset: "SRT")
                    Issue.record("the anchor paid an account without a trustline")
                } catch let problem as HorizonProblem {
                    #expect(problem.invalidField == "addr")
                    #expect(problem.detail.contains("trust"))
                }
            }
        }
    }
}
