import Foundation
import HummingbirdTesting
import Intents
import StellarBase
import TenderServer
import TenderTesting
import Testing
import WalletKit

/// Apple's sample conversation, through the parser, the resolver and the handler, paid on a real
/// Tender server; balances checked through Horizon.
@Suite("Payments in words", .serialized)
struct PaymentIntentsTests {
    func wallet(_ port: Int, _ directory: URL) -> Wallet { liveWallet(port, directory) }

    func balance(_ wallet: Wallet, _ asset: Asset) async throws -> String? {
        try await wallet.account().balances.first { $0.asset == asset }?.balance
    }

    @Test(arguments: TestDatabase.allCases)
    func theSampleConversationPaysOnTheLedger(_ database: TestDatabase) async throws {
        try await database.with { url in
            let temporary = TemporaryDirectory("intents")
            let root = URL(fileURLWithPath: temporary.path)
            let configuration = TenderConfiguration(port: 0, dataDirectory: root.appendingPathComponent("server").path, closeInterval: .zero)
            let usdc = configuration.testAnchor.currency(code: "USDC")!.asset
            let eur = configuration.testAnchor.currency(code: "EUR")!.asset
            let app = try await buildApplication({ var configured = configuration; configured.database = url; return configured }())
            try await app.test(.live) { client in
                let port = client.port!
                let alice = wallet(port, root.appendingPathComponent("alice"))
                let jane = wallet(port, root.appendingPathComponent("jane"))
                let janeSmith = wallet(port, root.appendingPathComponent("jane-smith"))
                for (wallet, pin) in [(alice, "111111"), (jane, "222222"), (janeSmith, "333333")] {
                    try wallet.keystore.create(KeyPair.random(), pin: pin)
                    _ = try await wallet.horizon.friendbot(try wallet.keystore.address())
                    _ = try await wallet.addTrust(usdc, pin: pin)
                    _ = try await wallet.addTrust(eur, pin: pin)
                }
                _ = try await alice.horizon.friendbot(try alice.keystore.address(), asset: "USDC")
                _ = try await alice.horizon.friendbot(try alice.keystore.address(), asset: "EUR")
                try await alice.contacts.add(name: "Jane Doe", address: try jane.keystore.address(), aliases: ["Mom", "Auntie Jay"]) { _ in true }
                let assets = CurrencyAssets.testAnchor(try await alice.horizon.anchorCurrencies())
                #expect(assets.assets["USD"] == usdc && assets.assets["EUR"] == eur && assets.assets["XLM"] == .native)
                let history = PaymentHistory(storage: FileKeystoreStorage(url: root.appendingPathComponent("alice/payments.json")))
                let handler = PaymentIntentsHandler(wallet: alice, assets: assets, history: history)
                let aliceUSDC = try await balance(alice, usdc)
                // Fiat keeps its decimals; other ledger assets have the ledger's seven.
                let exponents = Dictionary(uniqueKeysWithValues: handler.currencyRules.map { ($0.code, $0.exponent) })
                #expect(exponents["USD"] == 2 && exponents["EUR"] == 2 && exponents["XLM"] == 7 && exponents["SRT"] == 7 && exponents["USDC"] == 7)
                #expect(try handler.parser(locale: .enUS).parse("Send 5 SRT to Jane").currency == "SRT")

                // "Send money to Jane": the payee resolves, the amount is asked for, then paid.
                var parsed = try handler.parser(locale: .enUS).parse("Send money to Jane")
                var resolver = try handler.resolver(locale: .enUS)
                guard case .success(let payee) = resolver.resolvePayee(parsed.payee) else { Issue.record("payee"); return }
                #expect(payee.displayName == "Jane Doe")
                #expect(resolver.resolveAmount(parsed.amount) == .needsValue)
                let answer = UtteranceParser(locale: .enUS).parse("$50").amount
                guard case .success(let fifty) = resolver.resolveAmount(answer) else { Issue.record("amount"); return }
                #expect(resolver.resolveNote(parsed.note) == .notRequired)
                let intent = SendPaymentIntent(payee: payee, amount: fifty, note: "dinner")
                #expect(await handler.confirm(intent).code == .ready)
                #expect(try await balance(alice, usdc) == aliceUSDC, "confirm moves no money")
                let paid = await handler.handle(intent, pin: "111111")
                #expect(paid.code == .success)
                #expect(paid.record?.status == .completed)
                #expect(try await balance(jane, usdc) == "50.0000000")

                // "Send money" with a previous payment: the last payee and amount to confirm.
                parsed = try handler.parser(locale: .enUS).parse("Send money")
                resolver = try handler.resolver(locale: .enUS)
                #expect(resolver.resolvePayee(parsed.payee) == .confirmationRequired(payee))
                #expect(resolver.resolveAmount(parsed.amount) == .confirmationRequired(fifty))

                // Aliases are vocabulary: "Auntie Jay" is taken whole, and both find Jane Doe.
                for said in ["Send $5 to Mom for flowers", "Send $5 to Auntie Jay for flowers"] {
                    let byAlias = try handler.parser(locale: .enUS).parse(said)
                    #expect(byAlias.note == "flowers")
                    #expect(resolver.resolvePayee(byAlias.payee) == .success(payee), "\(said)")
                }

                // Limits: below the minimum and above the maximum, refused at confirm.
                let limited = PaymentIntentsHandler(wallet: alice, assets: assets, history: history, limits: ["USD": (minimum: 100, maximum: 10_000)])
                #expect(await limited.confirm(SendPaymentIntent(payee: payee, amount: CurrencyAmount(minorUnits: 99, currency: "USD", exponent: 2))).code == .failurePaymentsAmountBelowMinimum)
                #expect(await limited.confirm(SendPaymentIntent(payee: payee, amount: CurrencyAmount(minorUnits: 10_001, currency: "USD", exponent: 2))).code == .failurePaymentsAmountAboveMaximum)
                #expect(await limited.confirm(SendPaymentIntent(payee: payee, amount: CurrencyAmount(minorUnits: 10_000, currency: "USD", exponent: 2))).code == .ready)
                // A wallet whose account does not exist yet has no account to pay from.
                let newcomer = wallet(port, root.appendingPathComponent("newcomer"))
                try newcomer.keystore.create(KeyPair.random(), pin: "444444")
                let unfunded = PaymentIntentsHandler(wallet: newcomer, assets: assets, history: PaymentHistory(storage: FileKeystoreStorage(url: root.appendingPathComponent("newcomer/payments.json"))))
                let noAccount = await unfunded.confirm(SendPaymentIntent(payee: payee, amount: fifty))
                #expect(noAccount.code == .failureNoBankAccount && noAccount.reason == "account_not_found")

                // "Dave" is nobody.
                #expect(resolver.resolvePayee(try handler.parser(locale: .enUS).parse("Pay Dave $5").payee) == .unsupported(.noAccount))

                // Two Janes: which one?
                try await alice.contacts.add(name: "Jane Smith", address: try janeSmith.keystore.address()) { _ in true }
                resolver = try handler.resolver(locale: .enUS)
                guard case .disambiguation(let janes) = resolver.resolvePayee("Jane") else { Issue.record("disambiguation"); return }
                #expect(janes.map(\.displayName) == ["Jane Doe", "Jane Smith"])

                // EUR is paid in the anchor's EUR.
                parsed = try handler.parser(locale: .nlNL).parse("Betaal Jane Smith €12,50 voor de bloemen")
                resolver = try handler.resolver(locale: .nlNL)
                guard case .success(let smith) = resolver.resolvePayee(parsed.payee), case .success(let euros) = resolver.resolveAmount(parsed.amount) else {
                    Issue.record("EUR payment did not resolve: \(parsed)")
                    return
                }
                #expect(euros == CurrencyAmount(minorUnits: 1_250, currency: "EUR", exponent: 2))
                #expect(await handler.handle(SendPaymentIntent(payee: smith, amount: euros, note: parsed.note), pin: "111111").code == .success)
                #expect(try await balance(janeSmith, eur) == "12.5000000")

                // Insufficient funds: refused at confirm, nothing moved.
                let before = (try await balance(alice, usdc), try await balance(jane, usdc))
                let tooMuch = SendPaymentIntent(payee: payee, amount: CurrencyAmount(minorUnits: 100_000_000, currency: "USD", exponent: 2))
                let refused = await handler.confirm(tooMuch)
                #expect(refused.code == .failureInsufficientFunds)
                #expect(refused.reason == "balance_insufficient")
                guard case .insufficientFunds(let most, "USDC")? = refused.failure else { Issue.record("\(refused)"); return }
                #expect(refused.message == "your balance does not cover that: you can send at most \(most) USDC")
                #expect(Phrasebook(.de).sentence(refused.failure!) == "Ihr Guthaben reicht nicht: Sie können höchstens \(most.replacing(".", with: ",")) USDC senden")
                #expect(await handler.handle(tooMuch, pin: "111111").code == .failureInsufficientFunds)
                let after = (try await balance(alice, usdc), try await balance(jane, usdc))
                #expect(after.0 == before.0 && after.1 == before.1)

                // A wrong PIN, a payee who cannot hold the asset, a currency the ledger does not pay.
                #expect(await handler.handle(SendPaymentIntent(payee: payee, amount: fifty), pin: "999999").code == .failureCredentialsUnverified)
                let stranger = Person(displayName: "Stranger", handle: KeyPair.random().accountID.strKey)
                let strangerAnswer = await handler.confirm(SendPaymentIntent(payee: stranger, amount: fifty))
                #expect(strangerAnswer.code == .failure && strangerAnswer.reason == "recipient_not_found")
                let carol = wallet(port, root.appendingPathComponent("carol"))
                try carol.keystore.create(KeyPair.random(), pin: "555555")
                _ = try await carol.horizon.friendbot(try carol.keystore.address())
                let noTrust = await handler.confirm(SendPaymentIntent(payee: Person(displayName: "Carol", handle: try carol.keystore.address()), amount: fifty))
                #expect(noTrust.code == .failure && noTrust.reason == "recipient_cannot_receive", "\(noTrust)")
                #expect(noTrust.message == "Carol cannot receive USDC: they must trust it first")
                // Carol holds no USDC: paying in it says how to add it.
                let carols = PaymentIntentsHandler(wallet: carol, assets: assets, history: PaymentHistory(storage: FileKeystoreStorage(url: root.appendingPathComponent("carol/payments.json"))))
                let holdsNone = await carols.confirm(SendPaymentIntent(payee: payee, amount: fifty))
                #expect(holdsNone.code == .failureInsufficientFunds && holdsNone.reason == "trustline_missing" && holdsNone.failure == .holdsNone(asset: "USDC"))
                #expect(holdsNone.message == "you hold no USDC: add it with `tender wallet trust add USDC`")
                #expect(Phrasebook(.nl).sentence(holdsNone.failure!) == "je hebt geen USDC: voeg het toe met `tender wallet trust add USDC`")
                #expect(try await balance(carol, .native) == "10000.0000000")
                let badHandle = await handler.confirm(SendPaymentIntent(payee: Person(displayName: "Nobody", handle: "not an address"), amount: fifty))
                #expect(badHandle.code == .failure && badHandle.reason == "payee_invalid")
                let pounds = await handler.confirm(SendPaymentIntent(payee: payee, amount: CurrencyAmount(minorUnits: 100, currency: "GBP", exponent: 2)))
                #expect(pounds.code == .failurePaymentsCurrencyUnsupported)

                // Asking for money: a SEP-7 URI another wallet pays.
                let request = try handler.request(RequestPaymentIntent(payer: payee, amount: CurrencyAmount(minorUnits: 2_000, currency: "USD", exponent: 2), note: "lunch"))
                #expect(request.code == .success)
                let uri = try PayURI(parsing: try #require(request.uri), network: .standalone)
                #expect(uri.destination.strKey == (try alice.keystore.address()) && uri.amount == 200_000_000 && uri.asset == usdc)
                #expect(try handler.request(RequestPaymentIntent(payer: payee, amount: CurrencyAmount(minorUnits: 100, currency: "GBP", exponent: 2))).code == .failurePaymentsCurrencyUnsupported)
                // History: newest first.
                let entries = try history.all()
                #expect(entries.map(\.kind) == [.requested, .sent, .sent])
                #expect(entries[1].record.amount == euros)
                #expect(entries[1].record.note == "de bloemen")
            }
        }
    }
}

@Suite("Payment history")
struct PaymentHistoryTests {
    @Test func theLastFiftyAreKeptNewestFirst() throws {
        let temporary = TemporaryDirectory("history")
        let history = PaymentHistory(storage: FileKeystoreStorage(url: URL(fileURLWithPath: temporary.file("payments.json"))))
        #expect(try history.all().isEmpty && history.lastSent() == nil)
        let jane = Person(displayName: "Jane", handle: "GJANE")
        for index in 1...55 {
            let record = PaymentRecord(payee: jane, payer: nil, amount: CurrencyAmount(minorUnits: Int64(index), currency: "USD", exponent: 2), note: "n\(index)", status: .completed)
            try history.append(.init(kind: .sent, record: record, reference: "hash\(index)", date: Date(timeIntervalSince1970: Double(index))))
        }
        let request = PaymentRecord(payee: nil, payer: jane, amount: CurrencyAmount(minorUnits: 7, currency: "EUR", exponent: 2), note: nil, status: .unpaid)
        try history.append(.init(kind: .requested, record: request, reference: "web+stellar:pay?destination=X", date: Date(timeIntervalSince1970: 100)))
        let entries = try history.all()
        #expect(entries.count == 50)
        #expect(entries.first?.kind == .requested && entries.first?.record.payer == jane)
        #expect(entries[1].record.amount.minorUnits == 55 && entries.last?.record.amount.minorUnits == 7)
        #expect(try history.lastSent()?.note == "n55")
    }

    @Test func contactsWrittenBeforeAliasesStillLoad() throws {
        let temporary = TemporaryDirectory("contacts")
        let url = URL(fileURLWithPath: temporary.file("contacts.json"))
        try Data(#"[{"id":"9F1C1A9E-0F5B-4C1E-9E55-3E0C1E9A7B11","name":"Jane","address":"GJANE"}]"#.utf8).write(to: url)
        let contacts = try ContactBook(storage: FileKeystoreStorage(url: url)).all()
        #expect(contacts.map(\.aliases) == [[]])
    }
}
