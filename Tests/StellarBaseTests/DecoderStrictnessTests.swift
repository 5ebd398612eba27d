import Testing
import StellarBase

/// Each way bytes can be wrong is refused with its own code.
@Suite("The strict XDR decoder")
struct DecoderStrictnessTests {
    let payment = Vectors.shared.envelope("payment_native").xdr

    func code<T: XDRCodable>(_ type: T.Type, _ bytes: [UInt8]) -> XDRError.Code? {
        do {
            _ = try T(xdrBytes: bytes)
            return nil
        } catch {
            #expect(!error.message.isEmpty)
            return error.code
        }
    }

    var paymentBytes: [UInt8] { Base64.decode(payment)! }

    @Test func trailingBytes() {
        #expect(code(TransactionEnvelope.self, paymentBytes + [0, 0, 0, 0]) == .trailingBytes)
        #expect(code(TransactionEnvelope.self, paymentBytes + [1]) == .trailingBytes)
    }

    @Test func truncatedAtEveryLength() {
        let bytes = paymentBytes
        for length in 0..<bytes.count {
            #expect(code(TransactionEnvelope.self, Array(bytes.prefix(length))) == .truncated, "length \(length)")
        }
    }

    @Test func unknownDiscriminants() {
        var bytes = paymentBytes
        bytes[3] = 3 // envelope type 3 does not exist
        #expect(code(TransactionEnvelope.self, bytes) == .unknownDiscriminant)
        #expect(code(Asset.self, [0, 0, 0, 9]) == .unknownDiscriminant)
        #expect(code(Memo.self, [0, 0, 0, 5]) == .unknownDiscriminant)
        #expect(code(MuxedAccount.self, [0, 0, 0, 1] + Array(repeating: 0, count: 32)) == .unknownDiscriminant)
        #expect(code(Preconditions.self, [0, 0, 0, 3]) == .unknownDiscriminant)
        #expect(code(TransactionResult.self, [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x00, 0, 0, 0, 0]) == .unknownDiscriminant)
        #expect(code(Operation.self, [0, 0, 0, 0, 0, 0, 0, 99]) == .unknownDiscriminant)
    }

    @Test func unsupportedFeatures() {
        // Transaction ext 1 is Soroban data.
        var writer = XDRWriter()
        let tx = Transaction(sourceAccount: .ed25519(AccountID(publicKey: .zero)), fee: 100, sequenceNumber: 1, operations: [])
        tx.encode(to: &writer)
        var bytes = writer.bytes
        bytes[bytes.count - 1] = 1
        do {
            _ = try Transaction(xdrBytes: bytes)
            Issue.record("decoded")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.unsupportedName == "soroban")
        }
        // Type 9, Inflation, is refused by name; 22 (LiquidityPoolDeposit) is applied, so its
        // missing body is a truncation.
        #expect(code(Operation.self, [0, 0, 0, 0, 0, 0, 0, 9]) == .unsupported)
        #expect(code(Operation.self, [0, 0, 0, 0, 0, 0, 0, 22]) == .truncated)
    }

    @Test func boundsAreEnforced() {
        let account = AccountID(publicKey: .zero)
        let op = Operation(.bumpSequence(bumpTo: 1))
        var tooMany = TransactionEnvelope.v1(
            Transaction(sourceAccount: .ed25519(account), fee: 100, sequenceNumber: 1, operations: Array(repeating: op, count: 101)),
            signatures: [])
        #expect(code(TransactionEnvelope.self, tooMany.xdrBytes) == .lengthOutOfBounds)
        tooMany = .v1(Transaction(sourceAccount: .ed25519(account), fee: 100, sequenceNumber: 1, operations: [op]),
                      signatures: Array(repeating: DecoratedSignature(hint: 0, signature: Array(repeating: 1, count: 64)), count: 21))
        #expect(code(TransactionEnvelope.self, tooMany.xdrBytes) == .lengthOutOfBounds)
        #expect(code(Memo.self, Memo.text(Array(repeating: 65, count: 29)).xdrBytes) == .lengthOutOfBounds)
        let path = Array(repeating: Asset.native, count: 6)
        let pathOp = Operation(.pathPaymentStrictSend(PathPaymentStrictSendOperation(
            sendAsset: .native, sendAmount: 1, destination: .ed25519(account), destAsset: .native, destMin: 1, path: path)))
        #expect(code(Operation.self, pathOp.xdrBytes) == .lengthOutOfBounds)
        let data = Operation(.manageData(ManageDataOperation(name: Array(repeating: 65, count: 65), value: nil)))
        #expect(code(Operation.self, data.xdrBytes) == .lengthOutOfBounds)
        let value = Operation(.manageData(ManageDataOperation(name: [65], value: Array(repeating: 1, count: 65))))
        #expect(code(Operation.self, value.xdrBytes) == .lengthOutOfBounds)
        let domain = Operation(.setOptions(SetOptionsOperation(homeDomain: Array(repeating: 65, count: 33))))
        #expect(code(Operation.self, domain.xdrBytes) == .lengthOutOfBounds)
        let signature = DecoratedSignature(hint: 0, signature: Array(repeating: 1, count: 65))
        #expect(code(DecoratedSignature.self, signature.xdrBytes) == .lengthOutOfBounds)
        // At the bounds, everything decodes.
        let atBounds = Operation(.manageData(ManageDataOperation(name: Array(repeating: 65, count: 64), value: Array(repeating: 1, count: 64))))
        #expect(code(Operation.self, atBounds.xdrBytes) == nil)
    }

    @Test func hugeCountsDoNotAllocate() {
        // A result claiming 2^31 operation results in 16 bytes must fail fast as truncated.
        let bytes: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff]
        #expect(code(TransactionResult.self, bytes) == .truncated)
    }

    @Test func nonCanonicalEncodings() {
        // A text memo of 1 byte with non-zero padding.
        #expect(code(Memo.self, [0, 0, 0, 1, 0, 0, 0, 1, 65, 0, 1, 0]) == .nonCanonical)
        #expect(code(Memo.self, [0, 0, 0, 1, 0, 0, 0, 1, 65, 0, 0, 0]) == nil)
        // An optional flag of 2.
        let op = Operation(sourceAccount: nil, .bumpSequence(bumpTo: 1))
        var bytes = op.xdrBytes
        bytes[3] = 2
        #expect(code(Operation.self, bytes) == .nonCanonical)
    }

    @Test func invalidBase64() {
        do {
            _ = try TransactionEnvelope(xdrBase64: "not base64!")
            Issue.record("decoded")
        } catch {
            #expect(error.code == .invalidBase64)
        }
    }
}
