import Foundation
import HummingbirdTesting
import Ledger
import StellarBase
import TenderServer
import TenderTesting
import Testing
import WalletKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The reference tutorial through WalletKit against a real Tender server.
@Suite("Wallet", .serialized)
struct WalletTests {
    func wallet(_ port: Int, _ directory: URL) -> Wallet { liveWallet(port, directory) }

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

    @Test(arguments: TestDatabase.allCases)
    func theTutorial(_ database: TestDatabase) async throws {
        try await database.with { url in
            let temporary = TemporaryDirectory("wallet")
            defer { temporary.remove() }
            let root = URL(fileURLWithPath: temporary.path)
            defer { try? FileManager.default.removeItem(at: root) }
            let configuration = TenderConfiguration(port: 0, dataDirectory: root.appendingPathComponent("server").path, closeInterval: .zero)
            let srt = configuration.testAnchor.currency(code: "SRT")!.asset
            let app = try await buildApplication({ var configured = configuration; configured.database = url; return configured }())
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
                await expectWalletError(.contactNotFound, "no contact named Robert") { _ = try await alice.pay(to: "Robert", amount: "1", pin: "111111") }
                let mistyped = String(bobAddress.dropLast()) + (bobAddress.last == "A" ? "B" : "A")
                await expectWalletError(.invalidAddress, "Invalid Stellar address") { _ = try await alice.pay(to: mistyped, amount: "1", pin: "111111") }
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
    }

    /// The tutorial's market: a third account issues GOLD, SILVER and COPPER and sells GOLD for
    /// XLM, SILVER for GOLD and COPPER for SILVER, one for one; Alice holds only XLM, Bob trusts
    /// COPPER, so every path from Alice to Bob runs XLM → GOLD → SILVER → COPPER.
    @Test func pathPaymentsBothWaysThroughGoldSilverCopper() async throws {
        let temporary = TemporaryDirectory("wallet")
        defer { temporary.remove() }
        let root = URL(fileURLWithPath: temporary.path)
        defer { try? FileManager.default.removeItem(at: root) }
        let configuration = TenderConfiguration(port: 0, dataDirectory: root.appendingPathComponent("server").path, closeInterval: .zero)
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
            let makerKey = try maker.keystore.unlock(pin: "333333")
            let gold = try Asset(code: "GOLD", issuer: makerKey.accountID)
            let silver = try Asset(code: "SILVER", issuer: makerKey.accountID)
            let copper = try Asset(code: "COPPER", issuer: makerKey.accountID)
            var offers = TransactionBuilder(source: makerKey.accountID, currentSequenceNumber: try await maker.account().sequence)
            for (selling, buying) in [(gold, Asset.native), (silver, gold), (copper, silver)] {
                offers.add(.manageSellOffer(ManageSellOfferOperation(selling: selling, buying: buying, amount: 1_000 * Amount.stroopsPerUnit, price: Price(n: 1, d: 1))))
            }
            _ = try await maker.horizon.submit(try offers.build().signed(by: [makerKey], on: .standalone))
            _ = try await bob.addTrust(copper, pin: "222222")

            let bobAddress = try bob.keystore.address()
            let sendPaths = try await alice.strictSendPaths(to: bobAddress, source: .native, amount: "10")
            // Bob holds XLM and COPPER, so paths to both come back, best first.
            let best = try #require(sendPaths.first { $0.destinationAsset == copper })
            #expect(best.destinationAmount == "10.0000000")
            #expect(best.intermediateAssets == [gold, silver])
            #expect(try await alice.pathPayStrictSend(to: bobAddress, path: best, pin: "111111").successful)

            let receivePaths = try await alice.strictReceivePaths(to: bobAddress, asset: copper, amount: "5")
            let cheapest = try #require(receivePaths.first)
            #expect(cheapest.sourceAsset == .native)
            #expect(cheapest.sourceAmount == "5.0000000")
            #expect(cheapest.intermediateAssets == [gold, silver])
            #expect(try await alice.pathPayStrictReceive(to: bobAddress, path: cheapest, pin: "111111").successful)
            #expect(try await bob.account().balance(of: copper) == 15 * Amount.stroopsPerUnit)

            // Alice sent XLM along a path: her history shows what she sent, Bob's what he got.
            let recent = try await alice.recentPayments()
            #expect(recent.first?.type == "path_payment_strict_receive")
            #expect(recent.first?.asset == "XLM")
            #expect(recent.first?.amount == "5.0000000")
            #expect(recent.first?.direction == .sent)
            let bobs = try await bob.recentPayments()
            #expect(bobs.first?.asset == "COPPER:\(makerKey.accountID.strKey)")
            #expect(bobs.first?.direction == .received)

            // A quote the book no longer honours fails cleanly instead of paying less...
            var stale = best
            stale = try JSONDecoder.snakeCase.decode(HorizonPath.self, from: Data(#"{"source_asset_type":"native","source_amount":"10.0000000","destination_asset_type":"credit_alphanum12","destination_asset_code":"COPPER","destination_asset_issuer":"\#(makerKey.accountID.strKey)","destination_amount":"20.0000000","path":[{"asset_type":"credit_alphanum4","asset_code":"GOLD","asset_issuer":"\#(makerKey.accountID.strKey)"},{"asset_type":"credit_alphanum12","asset_code":"SILVER","asset_issuer":"\#(makerKey.accountID.strKey)"}]}"#.utf8))
            do {
                _ = try await alice.pathPayStrictSend(to: bobAddress, path: stale, pin: "111111")
                Issue.record("a payment under its minimum went through")
            } catch let problem as HorizonProblem {
                #expect(problem.operationCodes == ["op_under_dest_min"])
            }
            // ...or paying more: the maker now asks 2 XLM per GOLD, beyond 1% of the old quote.
            var reprice = TransactionBuilder(source: makerKey.accountID, currentSequenceNumber: try await maker.account().sequence)
            let goldOffer = try #require(try await offerID(port: port, seller: makerKey.accountID.strKey, selling: "GOLD"))
            reprice.add(.manageSellOffer(ManageSellOfferOperation(selling: gold, buying: .native, amount: 1_000 * Amount.stroopsPerUnit, price: Price(n: 2, d: 1), offerID: goldOffer)))
            _ = try await maker.horizon.submit(try reprice.build().signed(by: [makerKey], on: .standalone))
            do {
                _ = try await alice.pathPayStrictReceive(to: bobAddress, path: cheapest, pin: "111111")
                Issue.record("a payment over its maximum went through")
            } catch let problem as HorizonProblem {
                #expect(problem.operationCodes == ["op_over_source_max"])
            }
        }
    }

    /// The id of `seller`'s offer selling `selling`, from GET /accounts/{id}/offers.
    func offerID(port: Int, seller: String, selling: String) async throws -> Int64? {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/accounts/\(seller)/offers")!)
        let page = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let records = (page?["_embedded"] as? [String: Any])?["records"] as? [[String: Any]] ?? []
        let offer = records.first { ($0["selling"] as? [String: Any])?["asset_code"] as? String == selling }
        return (offer?["id"] as? String).flatMap { Int64($0) }
    }

    @Test func slippageRoundsAgainstTheWalletAndNeverOverflows() throws {
        #expect(Slippage.standard.lowered(10 * Amount.stroopsPerUnit) == 99_000_000)
        #expect(Slippage.standard.raised(5 * Amount.stroopsPerUnit) == 50_500_000)
        // 1% of 199 stroops is 1.99: the minimum rounds down, the maximum up.
        #expect(Slippage.standard.lowered(199) == 197)
        #expect(Slippage.standard.raised(199) == 201)
        #expect(try Slippage(percent: "0").lowered(1) == 1)
        #expect(try Slippage(percent: "100").lowered(1_000) == 1)
        #expect(try Slippage(percent: "0.5").basisPoints == 50)
        #expect(try Slippage(percent: "2.25").description == "2.25%")
        #expect(Slippage.standard.raised(.max) == .max)
        #expect(try Slippage(percent: "100").raised(.max / 2 + 1) == .max)
        for bad in ["", "-1", "+1", "101", "1.234", "1e2", ".5", "1.", "one", "１"] {
            #expect(throws: WalletError.self, "\(bad)") { try Slippage(percent: bad) }
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let amount = Int64.random(in: 1...Int64.max, using: &random)
            let slippage = try Slippage(basisPoints: Int64.random(in: 0...10_000, using: &random))
            let low = slippage.lowered(amount), high = slippage.raised(amount)
            #expect(low >= 1 && low <= amount && high >= amount)
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
