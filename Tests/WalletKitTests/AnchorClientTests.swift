import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HummingbirdTesting
import StellarBase
import TenderServer
import TenderTesting
import Testing
import WalletKit

/// WalletKit's anchor client against a live Tender on a time the test moves: it signs in with
/// SEP-10 (checking the challenge first), is asked for KYC by SEP-6, gives it by SEP-12, and
/// withdraws EUR, paying the anchor with the memo it was given, to `completed`.
@Suite("WalletKit's anchor client")
struct AnchorClientTests {
    /// The toml as served, with another SIGNING_KEY: a challenge the wallet must refuse to sign.
    struct ForgedSigningKey: HorizonTransport {
        let inner = URLSessionTransport()
        func send(_ request: URLRequest) async throws -> (status: Int, body: Data) {
            let (status, body) = try await inner.send(request)
            guard request.url?.path == "/.well-known/stellar.toml" else { return (status, body) }
            let other = KeyPair.random().accountID.strKey
            let text = String(decoding: body, as: UTF8.self).replacing(/SIGNING_KEY="G[A-Z2-7]{55}"/, with: "SIGNING_KEY=\"\(other)\"")
            return (status, Data(text.utf8))
        }
        func stream(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error> { inner.stream(request) }
    }

    @Test func signInKYCAndAWithdrawalToCompleted() async throws {
        let temporary = TemporaryDirectory("anchor-client")
        defer { temporary.remove() }
        let root = URL(fileURLWithPath: temporary.path)
        let time = ManualTime(timers: 5)
        let configuration = TenderConfiguration(port: 0, dataDirectory: root.appendingPathComponent("server").path, closeInterval: .zero)
        let app = try await buildApplication(configuration, environment: ServerEnvironment(now: { time.now }, random: ServerEnvironment.system.random, clock: time.clock))
        try await app.test(.live) { client in
            let port = client.port!
            let wallet = liveWallet(port, root.appendingPathComponent("alice"))
            let key = KeyPair.random()
            try wallet.keystore.create(key, pin: "123456")
            _ = try await wallet.horizon.friendbot(key.accountID.strKey)
            let anchor = AnchorClient(domain: "127.0.0.1:\(port)", now: { UInt64(time.now) })
            let toml = try await anchor.toml()
            let eur = try #require(toml.currencies.first { $0.code == "EUR" })
            let asset = try Asset(code: "EUR", issuer: AccountID(eur.issuer))
            _ = try await wallet.addTrust(asset, pin: "123456")
            _ = try await wallet.horizon.friendbot(key.accountID.strKey, asset: "EUR")

            // A challenge signed by a key other than the toml's is not signed.
            do {
                _ = try await AnchorClient(domain: "127.0.0.1:\(port)", transport: ForgedSigningKey(), now: { UInt64(time.now) }).signIn(key)
                Issue.record("a challenge from another key was signed")
            } catch let error as AnchorError {
                #expect(error.code == .challengeInvalid && error.description.contains("invalid_source_account"), "\(error)")
            }
            let token = try await anchor.signIn(key)

            do {
                _ = try await anchor.withdraw(token: token, assetCode: "EUR", amount: "5.00")
                Issue.record("a withdrawal without KYC was taken")
            } catch let error as AnchorError {
                #expect(error.code == .customerInfoNeeded && error.description.contains("email_address"))
            }
            #expect(try await anchor.customer(token: token).missingFields == ["email_address", "first_name", "last_name"])
            let id = try await anchor.putCustomer(token: token, fields: ["first_name": "Alice", "last_name": "A", "email_address": "alice@example.com"])
            let customer = try await anchor.customer(token: token)
            #expect(customer.id == id && customer.status == "ACCEPTED" && customer.missingFields.isEmpty)

            let withdrawal = try await anchor.withdraw(token: token, assetCode: "EUR", amount: "5.00")
            #expect(try await anchor.transaction(token: token, id: withdrawal.id).status == "pending_user_transfer_start")
            _ = try await wallet.pay(to: withdrawal.account, amount: "5", asset: asset, memo: .id(withdrawal.memo), pin: "123456")
            // The anchor's janitor sees the payment on its next round.
            await time.advance(seconds: 1)
            var seen: [AnchorTransaction] = []
            for try await record in anchor.follow(token: token, id: withdrawal.id, clock: time.clock) { seen.append(record) }
            #expect(seen.map(\.status) == ["completed"])
            #expect(seen.first?.amountOut == "4.75" && seen.first?.amountFee == "0.25" && seen.first?.stellarTransactionID != nil)
            #expect(try await anchor.transactions(token: token, assetCode: "EUR").map(\.id) == [withdrawal.id])

            // SEP-24 starts with a URL for the app to open; SEP-38 quotes.
            let deposit = try await anchor.interactive("deposit", token: token, assetCode: "EUR")
            #expect(deposit.url.hasPrefix("http://127.0.0.1:\(port)/sep24/interactive/\(deposit.id)?token="))
            let quote = try await anchor.quote(token: token, sell: "iso4217:USD", buy: "stellar:EUR:\(eur.issuer)", sellAmount: "10.00")
            #expect(quote.buyAmount == "8.88" && quote.price == "1.08")
            let price = try await anchor.price(sell: "iso4217:USD", buy: "stellar:EUR:\(eur.issuer)", sellAmount: "10.00")
            #expect(price.price == "1.08" && price.buyAmount == "8.88" && price.fee == "0.40")
            #expect(try await anchor.prices(sell: "iso4217:USD", sellAmount: "10.00").contains { $0.asset == "stellar:EUR:\(eur.issuer)" })
        }
    }
}
