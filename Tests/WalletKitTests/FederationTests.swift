import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Intents
import StellarBase
import TenderTesting
import Testing
import WalletKit

/// SEP-2 federation: the domain's stellar.toml names the server; the server names the account.
/// The network is a stub transport that answers as a federation server would.
@Suite("SEP-2 federation")
struct FederationTests {
    struct Stub: HorizonTransport {
        let account: String
        var toml = "FEDERATION_SERVER=\"http://localhost:8123/federation\"\nNETWORK_PASSPHRASE=\"Standalone Network ; February 2017\"\n\n[[CURRENCIES]]\ncode=\"USDC\"\n"

        func send(_ request: URLRequest) async throws -> (status: Int, body: Data) {
            let url = try #require(request.url)
            if url.path == "/.well-known/stellar.toml" { return (200, Data(toml.utf8)) }
            guard url.path == "/federation", let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems else { return (404, Data()) }
            guard query.contains(URLQueryItem(name: "type", value: "name")), query.contains(URLQueryItem(name: "q", value: "jane*localhost:8123")) else {
                return (404, Data(#"{"detail":"not found"}"#.utf8))
            }
            return (200, Data(#"{"stellar_address":"jane*localhost:8123","account_id":"\#(account)","memo_type":"id","memo":42}"#.utf8))
        }

        func stream(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error> { AsyncThrowingStream { $0.finish() } }
    }

    let account = KeyPair.random().accountID.strKey

    @Test func aNameIsLookedUpAtItsDomainsServer() async throws {
        let record = try await FederationClient(transport: Stub(account: account)).resolve(name: "jane", domain: "localhost:8123")
        #expect(record.accountID == account && record.stellarAddress == "jane*localhost:8123" && record.memo == "42" && record.memoType == "id")
        await #expect(throws: FederationError.self) { try await FederationClient(transport: Stub(account: account)).resolve(name: "bob", domain: "localhost:8123") }
        do {
            _ = try await FederationClient(transport: Stub(account: account)).resolve(name: "bob", domain: "localhost:8123")
        } catch let error as FederationError {
            #expect(error.code == .notFound)
        }
        var noServer = Stub(account: account)
        noServer.toml = "NETWORK_PASSPHRASE=\"x\"\n[DOCUMENTATION]\nFEDERATION_SERVER=\"http://elsewhere\"\n"
        do {
            _ = try await FederationClient(transport: noServer).resolve(name: "jane", domain: "localhost:8123")
            Issue.record("a FEDERATION_SERVER inside a table is not the domain's")
        } catch let error as FederationError {
            #expect(error.code == .noServer)
        }
    }

    /// The handler looks the address up; the resolver then pays it like a contact, and the
    /// answers say which lookup failed.
    @Test func theHandlerResolvesFederationAddresses() async throws {
        let temporary = TemporaryDirectory("federation")
        let directory = URL(fileURLWithPath: temporary.path)
        let wallet = Wallet(horizon: HorizonClient(baseURL: URL(string: "http://localhost:8123")!, transport: Stub(account: account)), network: .standalone,
                            keystore: Keystore(storage: FileKeystoreStorage(url: directory.appendingPathComponent("keystore.json"))),
                            contacts: ContactBook(storage: FileKeystoreStorage(url: directory.appendingPathComponent("contacts.json"))))
        let handler = PaymentIntentsHandler(wallet: wallet, assets: .testAnchor([]), history: PaymentHistory(storage: FileKeystoreStorage(url: directory.appendingPathComponent("payments.json"))))
        let parsed = try handler.parser(locale: .enUS).parse("Send 10 XLM to jane*localhost:8123 for lunch")
        #expect(parsed.payee == "jane*localhost:8123" && parsed.note == "lunch")
        var resolver = try handler.resolver(locale: .enUS)
        #expect(resolver.resolvePayee(parsed.payee) == .unsupported(.noAccount), "not looked up yet")
        guard case .success(let jane) = await handler.federated("jane*localhost:8123") else { Issue.record("lookup"); return }
        #expect(jane.handle == account)
        resolver.federated[PayeeHandle.parse("jane*localhost:8123")!.normalized] = jane
        #expect(resolver.resolvePayee("JANE*localhost:8123") == .success(jane))
        #expect(await handler.federated("bob*localhost:8123") == .failure(.federationNotFound(address: "bob*localhost:8123")))
        #expect(Phrasebook(.en).sentence(.federationNotFound(address: "bob*localhost:8123")) == "bob*localhost:8123 is not known to its federation server")
        #expect(resolver.refusal(payee: "bob*localhost:8123", reason: .noAccount) == .federationNotFound(address: "bob*localhost:8123"))
    }
}

