import PropertyBased
import Testing
import StellarBase

/// decode(encode(x)) == x for random values of every type.
@Suite("XDR round trips (property tests)")
struct RoundTripPropertyTests {
    func roundTrip<T: XDRCodable & Equatable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = value.xdrBytes
        #expect(bytes.count % 4 == 0, sourceLocation: sourceLocation)
        do {
            let decoded = try T(xdrBytes: bytes)
            #expect(decoded == value, sourceLocation: sourceLocation)
            #expect(decoded.xdrBytes == bytes, sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(T.self) did not decode its own encoding: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func envelopes() async {
        await propertyCheck(count: 1000, input: Gen.uint64()) { seed throws in
            var arbitrary = Arbitrary(seed: seed)
            roundTrip(arbitrary.envelope())
        }
    }

    @Test func transactionsAndParts() async {
        await propertyCheck(count: 500, input: Gen.uint64()) { seed throws in
            var a = Arbitrary(seed: seed)
            roundTrip(a.transaction())
            roundTrip(a.operation())
            roundTrip(a.asset())
            roundTrip(ChangeTrustAsset(a.asset()))
            roundTrip(a.muxed())
            roundTrip(a.accountID())
            roundTrip(a.memo())
            roundTrip(a.preconditions())
            roundTrip(a.signerKey())
            roundTrip(a.price())
            roundTrip(Signer(key: a.signerKey(), weight: a.u32()))
        }
    }

    @Test func results() async {
        await propertyCheck(count: 1000, input: Gen.uint64()) { seed throws in
            var a = Arbitrary(seed: seed)
            roundTrip(a.transactionResult())
            roundTrip(a.operationResult())
            roundTrip(a.claimAtom())
            roundTrip(a.offerEntry())
        }
    }

    @Test func strKeys() async {
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 32), Gen.uint64()) { bytes, id throws in
            let account = AccountID(publicKey: Bytes32(bytes))
            #expect(try AccountID(account.strKey) == account)
            let muxed = MuxedAccount.muxed(id: id, account)
            #expect(try MuxedAccount(muxed.strKey) == muxed)
            let seed = StrKey.encode(.seed, bytes)
            #expect(try StrKey.decode(.seed, seed) == bytes)
            #expect(try KeyPair(secretSeed: seed).seed == bytes)
        }
    }

    @Test func signedEnvelopesVerifyAfterRoundTrip() async {
        await propertyCheck(count: 100, input: Gen.uint64()) { seed throws in
            var a = Arbitrary(seed: seed)
            let signer = try KeyPair(seed: a.bytes(32))
            var envelope = TransactionEnvelope.v1(a.transaction(), signatures: [])
            envelope.sign(with: signer, on: .standalone)
            let decoded = try TransactionEnvelope(xdrBytes: envelope.xdrBytes)
            #expect(decoded.isSignature(decoded.signatures[0], validFor: KeyPair(accountID: signer.accountID), on: .standalone))
            #expect(decoded.hash(on: .standalone) == envelope.hash(on: .standalone))
        }
    }
}
