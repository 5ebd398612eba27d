import Foundation
import HummingbirdTesting
import Ledger
import StellarBase
import TenderServer
import Testing
import WalletKit

/// The reference tutorial through WalletKit against a real Tender server.
@Suite("Wallet", .serialized)
struct WalletTests {
    func wallet(_ port: Int, _ directory: URL) -> Wallet {
        Wallet(
            horizon: HorizonClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!), network: .standalone,
            keystore: Keystore(storage: FileKeystoreStorage(url: directory.appendingPathComponent("keystore.json")), cost: .testing),
            contacts: ContactBook(storage: FileKeystoreStorage(url: directory.appendingPathComponent("contacts.json"))))
    }

    func expectWalletError(_ code: WalletError.Code, _ message: String? = nil, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(code)")
        } catch let error as WalletError {
            #expect(error.code == code)
            if let message { #expect(error.message == message) }
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func theTutorial() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tender-wallet-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let configuration = TenderConfiguration(port: 0, dataDirectory: root.appendingPathComponent("server").path, closeInterval: .zero)
        let srt = configuration.testAnchor.currency(code: "SRT")!.asset
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let port = client.port!
            let alice = wallet(port, root.appendingPathComponent("alice"))
            let bob = wallet(port, root.appendingPathComponent("bob"))
            try alice.keystore.create(KeyPair.random(), pin: "111111")
            try bob.keystore.create(KeyPair.random(), pin: "222222")
            let aliceAddress = try alice.keystore.address(), bobAddress = try bob.keystore.address()

            await expectWalletError(.accountNotFound) { _ = try await alice.account() }
            _ = try await alice.horizon.friendbot(aliceAddress)
            _ = try await bob.horizon.friendbot(bobAddress)

            // Trust SRT, receive it from the test anchor.
            _ = try await bob.addTrust(srt, pin: "222222")
            _ = try await alice.addTrust(srt, pin: "111111")
            _ = try await alice.horizon.friendbot(aliceAddress, asset: "SRT")
            await expectWalletError(.issuerNotFound, "Asset issuer not found") {
                _ = try await alice.addTrust(try Asset(code: "GOLD", issuer: KeyPair.random().accountID), pin: "111111")
            }

            // Every validation message, before anything is submitted.
            try await alice.contacts.add(name: "Bob", address: bobAddress) { try await alice.horizon.account($0) != nil }
            await expectWalletError(.recipientRequired, "Recipient address is required") { _ = try await alice.pay(to: "", amount: "1", pin: "111111") }
            await expectWalletError(.invalidAddress, "Invalid Stellar address") { _ = try await alice.pay(to: "Robert", amount: "1", pin: "111111") }
            await expectWalletError(.amountRequired, "Amount is required") { _ = try await alice.pay(to: "Bob", amount: " ", pin: "111111") }
            await expectWalletError(.invalidAmount, "Invalid amount format") { _ = try await alice.pay(to: "Bob", amount: "1,5", pin: "111111") }
            await expectWalletError(.amountNotPositive, "Amount must be greater than 0") { _ = try await alice.pay(to: "Bob", amount: "0", pin: "111111") }
            // 10,000 XLM less the trust transaction's fee, the minimum balance with one trustline
            // (3 reserves = 1.5 XLM) and this payment's fee.
            await expectWalletError(.insufficientBalance, "Insufficient balance (max: 9998.4999800)") {
                _ = try await alice.pay(to: "Bob", amount: "9999", pin: "111111")
            }
            await expectWalletError(.memoTooLong) { _ = try await alice.pay(to: "Bob", amount: "1", memo: String(repeating: "x", count: 29), pin: "111111") }
            let stranger = KeyPair.random().accountID.strKey
            await expectWalletError(.recipientNotFound) { _ = try await alice.pay(to: stranger, amount: "5", asset: srt, pin: "111111") }
            await expectWalletError(.createBelowMinimum) { _ = try await alice.pay(to: stranger, amount: "0.5", pin: "111111") }
            do {
                _ = try await alice.pay(to: "Bob", amount: "1", pin: "999999")
                Issue.record("a wrong PIN paid")
            } catch let error as KeystoreError {
                #expect(error.code == .incorrectPIN)
            }

            // Pay a contact with a memo; create an account by paying XLM to it.
            #expect(try await alice.pay(to: "bob", amount: "25", asset: srt, memo: "lunch", pin: "111111").successful)
            #expect(try await alice.pay(to: stranger, amount: "3", pin: "111111").successful)
            let recent = try await alice.recentPayments()
            #expect(recent.first?.type == "create_account")
            #expect(recent.first?.direction == .sent)
            #expect(recent.first?.amount == "3.0000000")
            #expect(recent.dropFirst().first?.contactName == "Bob")
            #expect(recent.dropFirst().first?.asset == "SRT:\(srt.issuer!.strKey)")
            let bobsView = try await bob.recentPayments()
            #expect(bobsView.first?.direction == .received)
            #expect(bobsView.first?.counterparty == aliceAddress)

            // A trustline goes only when empty.
            await expectWalletError(.trustlineNotEmpty) { _ = try await bob.removeTrust(srt, pin: "222222") }
            _ = try await bob.pay(to: aliceAddress, amount: "25", asset: srt, pin: "222222")
            #expect(try await bob.removeTrust(srt, pin: "222222").successful)
            await expectWalletError(.recipientCannotReceive, "Recipient cannot receive SRT") {
                _ = try await alice.pay(to: "Bob", amount: "1", asset: srt, pin: "111111")
            }
        }
    }

    @Test func pathPaymentsBothWaysWithSlippage() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tender-wallet-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let configuration = TenderConfiguration(port: 0, dataDirectory: root.appendingPathComponent("server").path, closeInterval: .zero)
        let srt = configuration.testAnchor.currency(code: "SRT")!.asset
        let usdc = configuration.testAnchor.currency(code: "USDC")!.asset
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let port = client.port!
            let alice = wallet(port, root.appendingPathComponent("alice"))
            let bob = wallet(port, root.appendingPathComponent("bob"))
            let maker = wallet(port, root.appendingPathComponent("maker"))
            for (wallet, pin) in [(alice, "111111"), (bob, "222222"), (maker, "333333")] {
                try wallet.keystore.create(KeyPair.random(), pin: pin)
                _ = try await wallet.horizon.friendbot(try wallet.keystore.address())
            }
            _ = try await bob.addTrust(usdc, pin: "222222")
            // The market maker sells SRT for XLM and USDC for SRT, one for one.
            _ = try await maker.addTrust(srt, pin: "333333")
            _ = try await maker.addTrust(usdc, pin: "333333")
            let makerAddress = try maker.keystore.address()
            _ = try await maker.horizon.friendbot(makerAddress, asset: "SRT")
            _ = try await maker.horizon.friendbot(makerAddress, asset: "USDC")
            let makerKey = try maker.keystore.unlock(pin: "333333")
            let makerAccount = try await maker.account()
            var offers = TransactionBuilder(source: makerKey.accountID, currentSequenceNumber: makerAccount.sequence)
            offers.add(.manageSellOffer(ManageSellOfferOperation(selling: srt, buying: .native, amount: 500 * Amount.stroopsPerUnit, price: Price(n: 1, d: 1))))
            offers.add(.manageSellOffer(ManageSellOfferOperation(selling: usdc, buying: srt, amount: 500 * Amount.stroopsPerUnit, price: Price(n: 1, d: 1))))
            _ = try await maker.horizon.submit(try offers.build().signed(by: [makerKey], on: .standalone))

            let bobAddress = try bob.keystore.address()
            let sendPaths = try await alice.strictSendPaths(to: bobAddress, source: .native, amount: "10")
            // Bob holds XLM and USDC, so paths to both come back; take the best into USDC.
            let best = try #require(sendPaths.first { $0.destinationAsset == usdc })
            #expect(best.destinationAmount == "10.0000000")
            #expect(best.intermediateAssets == [srt])
            #expect(try await alice.pathPayStrictSend(to: bobAddress, path: best, pin: "111111").successful)

            let receivePaths = try await alice.strictReceivePaths(to: bobAddress, asset: usdc, amount: "5")
            let cheapest = try #require(receivePaths.first { $0.sourceAsset == .native })
            #expect(cheapest.sourceAmount == "5.0000000")
            #expect(try await alice.pathPayStrictReceive(to: bobAddress, path: cheapest, pin: "111111").successful)
            #expect(try await bob.account().balance(of: usdc) == 15 * Amount.stroopsPerUnit)

            // Alice sent XLM along a path: her history shows what she sent, not what Bob got.
            let recent = try await alice.recentPayments()
            #expect(recent.first?.type == "path_payment_strict_receive")
            #expect(recent.first?.asset == "XLM")
            #expect(recent.first?.amount == "5.0000000")
            #expect(recent.first?.direction == .sent)

            // A quote the book no longer honours fails cleanly instead of paying less.
            var stale = best
            stale = try JSONDecoder.snakeCase.decode(HorizonPath.self, from: Data(#"{"source_asset_type":"native","source_amount":"10.0000000","destination_asset_type":"credit_alphanum4","destination_asset_code":"USDC","destination_asset_issuer":"\#(usdc.issuer!.strKey)","destination_amount":"20.0000000","path":[{"asset_type":"credit_alphanum4","asset_code":"SRT","asset_issuer":"\#(srt.issuer!.strKey)"}]}"#.utf8))
            do {
                _ = try await alice.pathPayStrictSend(to: bobAddress, path: stale, pin: "111111")
                Issue.record("a payment under its minimum went through")
            } catch let problem as HorizonProblem {
                #expect(problem.operationCodes == ["op_under_dest_min"])
            }
        }
    }
}

extension JSONDecoder {
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
