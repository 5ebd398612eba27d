import Anchor
import StellarBase
import Testing

/// Each rule of a SEP-10 challenge, made by the server and read back, with a case that breaks it.
@Suite("SEP-10 challenges")
struct WebAuthTests {
    let network = Network.standalone
    let server = try! KeyPair(seed: Array(repeating: 1, count: 32))
    let client = try! KeyPair(seed: Array(repeating: 2, count: 32))
    let cosigner = try! KeyPair(seed: Array(repeating: 3, count: 32))
    let stranger = try! KeyPair(seed: Array(repeating: 4, count: 32))
    let domainKey = try! KeyPair(seed: Array(repeating: 5, count: 32))
    let nonce = Array(repeating: UInt8(7), count: 48)
    let now: UInt64 = 1_800_000_000
    let home = "anchor.test"
    let web = "auth.anchor.test"

    func make(memo: UInt64? = nil, client muxed: MuxedAccount? = nil, clientDomain: (String, AccountID)? = nil) throws -> TransactionEnvelope {
        try WebAuth.challenge(server: server, client: muxed ?? .ed25519(client.accountID), memo: memo, homeDomain: home, webAuthDomain: web,
                              clientDomain: clientDomain.map { (domain: $0.0, key: $0.1) }, nonce: nonce, now: now, network: network)
    }

    func signed(_ envelope: TransactionEnvelope, by keys: [KeyPair], on network: Network? = nil) -> TransactionEnvelope {
        var envelope = envelope
        for key in keys { envelope.sign(with: key, on: network ?? self.network) }
        return envelope
    }

    /// A challenge of the server's making whose transaction is changed by `change`, signed again.
    func remade(_ change: (inout Transaction) -> Void) throws -> TransactionEnvelope {
        var transaction = try make().transaction
        change(&transaction)
        return signed(.v1(transaction, signatures: []), by: [server])
    }

    func read(_ envelope: TransactionEnvelope, at time: UInt64? = nil, webAuthDomain: String? = nil) throws -> WebAuthChallenge {
        try WebAuth.read(envelope.xdrBase64, server: server.accountID, homeDomains: [home], webAuthDomain: webAuthDomain ?? web, now: time ?? now, network: network)
    }

    func code(_ body: () throws -> Void) -> WebAuthError.Code? {
        do { try body(); return nil } catch { return (error as? WebAuthError)?.code }
    }

    func verify(_ envelope: TransactionEnvelope, account: WebAuthAccount?) throws -> [AccountID] {
        try WebAuth.verifySignatures(try read(envelope), server: server.accountID, account: account, network: network)
    }

    @Test func aChallengeIsMadeAsTheSEPSays() throws {
        let envelope = try make(memo: 42)
        let transaction = envelope.transaction
        #expect(transaction.sourceAccount == .ed25519(server.accountID) && transaction.sequenceNumber == 0)
        #expect(transaction.preconditions.timeBounds == TimeBounds(minTime: now, maxTime: now + 900))
        #expect(transaction.memo == .id(42))
        guard case .manageData(let auth) = transaction.operations[0].body, case .manageData(let domain) = transaction.operations[1].body else {
            Issue.record("not ManageData")
            return
        }
        #expect(transaction.operations[0].sourceAccount == .ed25519(client.accountID))
        #expect(auth.name == Array("anchor.test auth".utf8) && auth.value?.count == 64 && Base64.decode(String(decoding: auth.value!, as: UTF8.self)) == nonce)
        #expect(transaction.operations[1].sourceAccount == .ed25519(server.accountID) && domain.name == Array("web_auth_domain".utf8) && domain.value == Array(web.utf8))
        #expect(envelope.signatures.count == 1 && envelope.isSignature(envelope.signatures[0], validFor: server, on: network))
        let challenge = try read(envelope)
        #expect(challenge.subject == "\(client.accountID.strKey):42" && challenge.homeDomain == home && challenge.hash == envelope.hash(on: network))
    }

    @Test func anAccountThatDoesNotExistSignsWithItsMasterKey() throws {
        #expect(try verify(signed(make(), by: [client]), account: nil) == [client.accountID])
        #expect(code { _ = try verify(make(), account: nil) } == .notSignedByClient)
        #expect(code { _ = try verify(signed(make(), by: [cosigner]), account: nil) } == .unrecognizedSignature)
    }

    @Test func anExistingAccountsSignersMustReachItsMediumThreshold() throws {
        let account = WebAuthAccount(masterWeight: 1, signers: [cosigner.accountID.publicKey: 1], mediumThreshold: 2)
        #expect(code { _ = try verify(signed(make(), by: [client]), account: account) } == .insufficientWeight)
        #expect(Set(try verify(signed(make(), by: [client, cosigner]), account: account)) == [client.accountID, cosigner.accountID])
        // A signer counted twice is refused, not weighed twice.
        #expect(code { _ = try verify(signed(make(), by: [client, client]), account: account) } == .duplicateSignature)
        #expect(code { _ = try verify(signed(make(), by: [client, cosigner, stranger]), account: account) } == .unrecognizedSignature)
        // A master key of weight 0 is no signer; a threshold of 0 still needs a signature.
        let noMaster = WebAuthAccount(masterWeight: 0, signers: [cosigner.accountID.publicKey: 1], mediumThreshold: 0)
        #expect(code { _ = try verify(signed(make(), by: [client]), account: noMaster) } == .unrecognizedSignature)
        #expect(try verify(signed(make(), by: [cosigner]), account: noMaster) == [cosigner.accountID])
    }

    @Test func theServersSignatureAndTheNetworkAreChecked() throws {
        var unsigned = try make()
        unsigned.signatures = []
        #expect(code { _ = try verify(signed(unsigned, by: [client]), account: nil) } == .notSignedByServer)
        #expect(code { _ = try verify(signed(make(), by: [client], on: .testnet), account: nil) } == .wrongNetwork)
        var otherNetwork = try make()
        otherNetwork.signatures = []
        #expect(code { _ = try verify(signed(otherNetwork, by: [server, client], on: .testnet), account: nil) } == .wrongNetwork)
    }

    @Test func timeBoundsAreChecked() throws {
        let envelope = signed(try make(), by: [client])
        #expect(code { _ = try read(envelope, at: now + 901) } == .expired)
        #expect(code { _ = try read(envelope, at: now - 1) } == .notYetValid)
        #expect((try? read(envelope, at: now + 900)) != nil)
        #expect(code { _ = try read(try remade { $0.preconditions = .none }) } == .expired)
    }

    @Test func theShapeIsChecked() throws {
        #expect(code { _ = try WebAuth.read("not base64!", server: server.accountID, homeDomains: [home], webAuthDomain: web, now: now, network: network) } == .malformed)
        let inner = try make()
        let bump = TransactionEnvelope.feeBump(FeeBumpTransaction(feeSource: .ed25519(client.accountID), fee: 400, innerTransaction: inner.transaction, innerSignatures: inner.signatures), signatures: [])
        #expect(code { _ = try read(bump) } == .malformed)
        #expect(code { _ = try read(try remade { $0.sourceAccount = .ed25519(stranger.accountID) }) } == .invalidSourceAccount)
        #expect(code { _ = try read(try remade { $0.sequenceNumber = 1 }) } == .invalidSequence)
        #expect(code { _ = try read(try make(), webAuthDomain: "elsewhere.test") } == .invalidWebAuthDomain)
        #expect(code {
            _ = try WebAuth.read(try make().xdrBase64, server: server.accountID, homeDomains: ["other.test"], webAuthDomain: web, now: now, network: network)
        } == .invalidHomeDomain)
        #expect(code { _ = try read(try remade { $0.operations.append(Operation(.bumpSequence(bumpTo: 1))) }) } == .invalidOperation)
        #expect(code { _ = try read(try remade { $0.operations.append(Operation(sourceAccount: .ed25519(self.client.accountID), .manageData(ManageDataOperation(name: Array("x".utf8), value: nil)))) }) } == .invalidOperation)
        #expect(code { _ = try read(try remade { $0.operations[0].sourceAccount = nil }) } == .invalidOperation)
        #expect(code { _ = try read(try remade { $0.operations[0].body = .manageData(ManageDataOperation(name: Array("anchor.test auth".utf8), value: Array("short".utf8))) }) } == .invalidOperation)
        #expect(code { _ = try read(try remade { $0.operations.removeLast() }) } == .invalidWebAuthDomain)
        #expect(code { _ = try read(try remade { $0.memo = .text(Array("hi".utf8)) }) } == .invalidMemo)
    }

    @Test func memosAndMuxedAccounts() throws {
        let muxed = MuxedAccount.muxed(id: 9, client.accountID)
        #expect(code { _ = try make(memo: 1, client: muxed) } == .invalidRequest)
        let challenge = try read(try make(client: muxed))
        #expect(challenge.subject == muxed.description && challenge.subject.hasPrefix("M"))
        #expect(try WebAuth.verifySignatures(read(signed(make(client: muxed), by: [client])), server: server.accountID, account: nil, network: network) == [client.accountID])
        #expect(code { _ = try read(try remade { $0.memo = .id(5); $0.operations[0].sourceAccount = muxed }) } == .invalidMemo)
    }

    @Test func aClientDomainsKeyMustSignToo() throws {
        let envelope = try make(clientDomain: ("wallet.test", domainKey.accountID))
        let challenge = try read(envelope)
        #expect(challenge.clientDomain == "wallet.test" && challenge.clientDomainKey == domainKey.accountID)
        #expect(code { _ = try verify(signed(envelope, by: [client]), account: nil) } == .notSignedByClientDomain)
        #expect(try verify(signed(envelope, by: [client, domainKey]), account: nil) == [client.accountID])
    }

    @Test func badRequestsMakeNoChallenge() {
        #expect(code { _ = try WebAuth.challenge(server: server, client: .ed25519(client.accountID), memo: nil, homeDomain: home, webAuthDomain: web, clientDomain: nil, nonce: [1, 2], now: now, network: network) } == .invalidRequest)
        #expect(code { _ = try WebAuth.challenge(server: server, client: .ed25519(client.accountID), memo: nil, homeDomain: String(repeating: "a", count: 60), webAuthDomain: web, clientDomain: nil, nonce: nonce, now: now, network: network) } == .invalidRequest)
    }
}
