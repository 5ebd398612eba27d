import Anchor
import AnchorCore
import Foundation
import Ledger
import StellarBase
import Store
import Synchronization
import TenderTesting
import Testing

/// The anchor's SEP-10 service on a clock the test moves: a challenge exchanged once for a
/// token, the token read back until it expires, the client's account read from the ledger.
@Suite("SEP-10 service")
struct WebAuthServiceTests {
    let temporary = TemporaryDirectory("web-auth")
    let host = "127.0.0.1:8000"

    final class WallClock: Sendable {
        let seconds = Mutex<UInt64>(1_800_000_000)
        func advance(_ by: UInt64) { seconds.withLock { $0 += by } }
        var now: @Sendable () -> UInt64 { { [self] in seconds.withLock { $0 } } }
    }

    func service(_ reader: any LedgerReader, _ clock: WallClock, tokenKey: [UInt8] = Array(repeating: 1, count: 32)) async -> WebAuthService {
        await WebAuthService(
            signingKey: try! KeyPair(seed: Array(repeating: 9, count: 32)), network: .standalone, homeDomains: ["anchor.test"], tokenKey: tokenKey,
            reader: reader, now: clock.now, random: { Array(repeating: 6, count: $0) })
    }

    func sign(_ challenge: String, _ keys: [KeyPair]) throws -> String {
        var envelope = try TransactionEnvelope(xdrBase64: challenge)
        for key in keys { envelope.sign(with: key, on: .standalone) }
        return envelope.xdrBase64
    }

    func refusal(_ body: () async throws -> Void) async -> String? {
        do { try await body(); return nil } catch let failure as AnchorFailure {
            switch failure {
            case .badRequest(let code, _): return code
            case .unauthorized: return "unauthorized"
            case .notFound: return "not_found"
            }
        } catch { return "\(error)" }
    }

    @Test func aChallengeIsExchangedOnceForATokenThatExpires() async throws {
        let store = try SQLiteLedgerStore(path: temporary.file("ledger.sqlite"))
        let clock = WallClock()
        let auth = await service(store, clock)
        let alice = try KeyPair(seed: Array(repeating: 2, count: 32))
        let challenge = try await auth.challenge(account: alice.accountID.strKey, memo: "7", homeDomain: nil, clientDomain: nil, host: host)
        let answer = try sign(challenge, [alice])
        let token = try await auth.token(transaction: answer, host: host, issuer: "http://\(host)/auth")
        let user = try await auth.user(token: token)
        #expect(user.account == alice.accountID && user.memo == 7 && user.subject == "\(alice.accountID.strKey):7")
        #expect(await refusal { _ = try await auth.token(transaction: answer, host: host, issuer: "x") } == "challenge_already_used")
        // Past its 15 minutes the challenge is refused by its bounds, and forgotten.
        clock.advance(901)
        #expect(await refusal { _ = try await auth.token(transaction: answer, host: host, issuer: "x") } == "challenge_expired")
        // The token lasts a day, on the service's clock.
        #expect(try await auth.user(token: token).account == alice.accountID)
        clock.advance(86_400)
        #expect(await refusal { _ = try await auth.user(token: token) } == "unauthorized")
        // A token made under another key, and no token, are refused.
        let other = await service(store, WallClock(), tokenKey: Array(repeating: 2, count: 32))
        let forged = try await other.token(transaction: sign(await other.challenge(account: alice.accountID.strKey, memo: nil, homeDomain: nil, clientDomain: nil, host: host), [alice]),
                                           host: host, issuer: "x")
        #expect(await refusal { _ = try await auth.user(token: forged) } == "unauthorized")
        #expect(await refusal { _ = try await auth.user(token: nil) } == "unauthorized")
        // Another host's challenge is not this endpoint's; a home domain not served makes none.
        let elsewhere = try await auth.challenge(account: alice.accountID.strKey, memo: nil, homeDomain: "anchor.test", clientDomain: nil, host: "other:1")
        #expect(await refusal { _ = try await auth.token(transaction: try sign(elsewhere, [alice]), host: host, issuer: "x") } == "invalid_web_auth_domain")
        #expect(await refusal { _ = try await auth.challenge(account: alice.accountID.strKey, memo: nil, homeDomain: "evil.test", clientDomain: nil, host: host) } == "invalid_home_domain")
        #expect(await refusal { _ = try await auth.challenge(account: "GABC", memo: nil, homeDomain: nil, clientDomain: nil, host: host) } == "invalid_request")
        #expect(await refusal { _ = try await auth.challenge(account: alice.accountID.strKey, memo: "-1", homeDomain: nil, clientDomain: nil, host: host) } == "invalid_memo")
    }

    @Test func anAccountOnTheLedgerIsWeighedByItsSigners() async throws {
        let store = try SQLiteLedgerStore(path: temporary.file("ledger.sqlite"))
        var state = LedgerState.genesis(network: .standalone, closeTime: 1_700_000_000)
        try await store.commit(try state.closeLedger([], closeTime: 1_700_000_001))
        let root = LedgerState.rootKeyPair(network: .standalone)
        let bob = try KeyPair(seed: Array(repeating: 3, count: 32)), cosigner = try KeyPair(seed: Array(repeating: 4, count: 32))
        func submit(_ source: KeyPair, _ body: OperationBody) async throws {
            let tx = Transaction(sourceAccount: .ed25519(source.accountID), fee: 100, sequenceNumber: state.account(source.accountID)!.sequenceNumber + 1, operations: [Operation(body)])
            try await store.commit(try state.closeLedger([PreparedTransaction.prepare(tx.signed(by: [source], on: .standalone), network: .standalone)], closeTime: state.header.closeTime + 1))
        }
        try await submit(root, .createAccount(CreateAccountOperation(destination: bob.accountID, startingBalance: 100 * Amount.stroopsPerUnit)))
        try await submit(bob, .setOptions(SetOptionsOperation(mediumThreshold: 2, signer: Signer(key: .ed25519(cosigner.accountID.publicKey), weight: 1))))
        let auth = await service(store, WallClock())
        let ask = { try await auth.challenge(account: bob.accountID.strKey, memo: nil, homeDomain: nil, clientDomain: nil, host: host) }
        #expect(await refusal { _ = try await auth.token(transaction: try sign(await ask(), [bob]), host: host, issuer: "x") } == "insufficient_weight")
        #expect(try await auth.user(token: auth.token(transaction: try sign(await ask(), [bob, cosigner]), host: host, issuer: "x")).account == bob.accountID)
    }

    @Test func aClientDomainsKeyIsReadFromItsTomlAndMustSign() async throws {
        let store = try SQLiteLedgerStore(path: temporary.file("ledger.sqlite"))
        let wallet = try KeyPair(seed: Array(repeating: 5, count: 32))
        let alice = try KeyPair(seed: Array(repeating: 2, count: 32))
        let auth = await WebAuthService(
            signingKey: try KeyPair(seed: Array(repeating: 9, count: 32)), network: .standalone, homeDomains: [], tokenKey: Array(repeating: 1, count: 32),
            reader: store, now: WallClock().now, random: { Array(repeating: 6, count: $0) },
            clientDomainKey: { domain in
                guard domain == "wallet.example" else { throw AnchorFailure.notFound("no toml") }
                return wallet.accountID
            })
        let challenge = try await auth.challenge(account: alice.accountID.strKey, memo: nil, homeDomain: nil, clientDomain: "wallet.example", host: host)
        #expect(await refusal { _ = try await auth.token(transaction: try sign(challenge, [alice]), host: host, issuer: "x") } == "not_signed_by_client_domain")
        let token = try await auth.token(transaction: try sign(challenge, [alice, wallet]), host: host, issuer: "x")
        #expect(try await auth.user(token: token).clientDomain == "wallet.example")
        #expect(await refusal { _ = try await auth.challenge(account: alice.accountID.strKey, memo: nil, homeDomain: nil, clientDomain: "elsewhere.example", host: host) } == "invalid_client_domain")
        #expect(await refusal { _ = try await auth.challenge(account: alice.accountID.strKey, memo: nil, homeDomain: nil, clientDomain: "a b", host: host) } == "invalid_client_domain")
        let plain = await service(store, WallClock())
        #expect(await refusal { _ = try await plain.challenge(account: alice.accountID.strKey, memo: nil, homeDomain: nil, clientDomain: "wallet.example", host: host) } == "client_domain_not_supported")
        #expect(stellarTomlValue("SIGNING_KEY", in: "VERSION=\"2\"\nSIGNING_KEY = \"GABC\"\n[[CURRENCIES]]\nSIGNING_KEY=\"GDEF\"") == "GABC")
        #expect(stellarTomlValue("SIGNING_KEY", in: "[DOCUMENTATION]\nSIGNING_KEY=\"GABC\"") == nil)
    }
}
