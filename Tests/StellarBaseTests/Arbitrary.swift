import StellarBase
import TenderTesting

/// Random values of every XDR type, for round-trip properties and fuzzing. Bounded sizes are
/// exercised up to their limits.
struct Arbitrary {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func bool() -> Bool { Bool.random(using: &rng) }
    mutating func u32() -> UInt32 { UInt32.random(in: .min ... .max, using: &rng) }
    mutating func i32() -> Int32 { Int32.random(in: .min ... .max, using: &rng) }
    mutating func u64() -> UInt64 { rng.next() }
    mutating func i64() -> Int64 { Int64(bitPattern: rng.next()) }
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) } }
    mutating func bytes32() -> Bytes32 { Bytes32(w0: u64(), w1: u64(), w2: u64(), w3: u64()) }
    mutating func optional<T>(_ make: (inout Arbitrary) -> T) -> T? { bool() ? make(&self) : nil }
    mutating func array<T>(_ count: ClosedRange<Int>, _ make: (inout Arbitrary) -> T) -> [T] {
        (0..<int(count)).map { _ in make(&self) }
    }

    mutating func accountID() -> AccountID { AccountID(publicKey: bytes32()) }

    mutating func muxed() -> MuxedAccount {
        bool() ? .ed25519(accountID()) : .muxed(id: u64(), accountID())
    }

    mutating func asset() -> Asset {
        switch int(0...2) {
        case 0: return .native
        case 1:
            // Mostly valid codes, sometimes arbitrary bytes: the codec must keep both exactly.
            return try! bool() ? Asset(code: code(1...4), issuer: accountID()) : Asset(xdrBytes: [0, 0, 0, 1] + bytes(4) + accountID().xdrBytes)
        default:
            return try! Asset(code: code(5...12), issuer: accountID())
        }
    }

    mutating func code(_ length: ClosedRange<Int>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<int(length)).map { _ in alphabet[int(0...(alphabet.count - 1))] })
    }

    mutating func price() -> Price { Price(n: i32(), d: i32()) }

    mutating func memo() -> Memo {
        switch int(0...4) {
        case 0: .none
        case 1: .text(bytes(int(0...28)))
        case 2: .id(u64())
        case 3: .hash(bytes32())
        default: .return(bytes32())
        }
    }

    mutating func signerKey() -> SignerKey {
        switch int(0...3) {
        case 0: .ed25519(bytes32())
        case 1: .preAuthTx(bytes32())
        case 2: .hashX(bytes32())
        default: .ed25519SignedPayload(bytes32(), payload: bytes(int(0...64)))
        }
    }

    mutating func timeBounds() -> TimeBounds { TimeBounds(minTime: u64(), maxTime: u64()) }

    mutating func preconditions() -> Preconditions {
        switch int(0...2) {
        case 0: return .none
        case 1: return .time(timeBounds())
        default:
            return .v2(PreconditionsV2(
                timeBounds: optional { $0.timeBounds() },
                ledgerBounds: optional { LedgerBounds(minLedger: $0.u32(), maxLedger: $0.u32()) },
                minSequenceNumber: optional { $0.i64() }, minSequenceAge: u64(), minSequenceLedgerGap: u32(),
                extraSigners: array(0...2) { $0.signerKey() }))
        }
    }

    mutating func path() -> [Asset] { array(0...5) { $0.asset() } }

    mutating func operationBody() -> OperationBody {
        switch int(0...10) {
        case 0: return .createAccount(CreateAccountOperation(destination: accountID(), startingBalance: i64()))
        case 1: return .payment(PaymentOperation(destination: muxed(), asset: asset(), amount: i64()))
        case 2:
            return .pathPaymentStrictReceive(PathPaymentStrictReceiveOperation(
                sendAsset: asset(), sendMax: i64(), destination: muxed(), destAsset: asset(), destAmount: i64(), path: path()))
        case 3:
            return .manageSellOffer(ManageSellOfferOperation(selling: asset(), buying: asset(), amount: i64(), price: price(), offerID: i64()))
        case 4:
            return .setOptions(SetOptionsOperation(
                inflationDestination: optional { $0.accountID() }, clearFlags: optional { $0.u32() }, setFlags: optional { $0.u32() },
                masterWeight: optional { $0.u32() }, lowThreshold: optional { $0.u32() }, mediumThreshold: optional { $0.u32() },
                highThreshold: optional { $0.u32() }, homeDomain: optional { $0.bytes($0.int(0...32)) },
                signer: optional { Signer(key: $0.signerKey(), weight: $0.u32()) }))
        case 5: return .changeTrust(ChangeTrustOperation(asset: asset(), limit: i64()))
        case 6: return .accountMerge(destination: muxed())
        case 7: return .manageData(ManageDataOperation(name: bytes(int(0...64)), value: optional { $0.bytes($0.int(0...64)) }))
        case 8: return .bumpSequence(bumpTo: i64())
        case 9:
            return .manageBuyOffer(ManageBuyOfferOperation(selling: asset(), buying: asset(), buyAmount: i64(), price: price(), offerID: i64()))
        default:
            return .pathPaymentStrictSend(PathPaymentStrictSendOperation(
                sendAsset: asset(), sendAmount: i64(), destination: muxed(), destAsset: asset(), destMin: i64(), path: path()))
        }
    }

    mutating func operation() -> Operation { Operation(sourceAccount: optional { $0.muxed() }, operationBody()) }

    mutating func operations() -> [Operation] {
        // Occasionally the full 100, usually a few.
        array(int(0...20) == 0 ? 0...100 : 0...4) { $0.operation() }
    }

    mutating func signatures() -> [DecoratedSignature] {
        array(int(0...10) == 0 ? 0...20 : 0...3) { DecoratedSignature(hint: $0.u32(), signature: $0.bytes($0.int(0...64))) }
    }

    mutating func transaction() -> Transaction {
        Transaction(sourceAccount: muxed(), fee: u32(), sequenceNumber: i64(), preconditions: preconditions(), memo: memo(), operations: operations())
    }

    mutating func envelope() -> TransactionEnvelope {
        switch int(0...2) {
        case 0:
            return .v0(TransactionV0(
                sourceAccountEd25519: bytes32(), fee: u32(), sequenceNumber: i64(), timeBounds: optional { $0.timeBounds() },
                memo: memo(), operations: operations()), signatures: signatures())
        case 1:
            return .v1(transaction(), signatures: signatures())
        default:
            return .feeBump(FeeBumpTransaction(
                feeSource: muxed(), fee: i64(), innerTransaction: transaction(), innerSignatures: signatures()), signatures: signatures())
        }
    }

    mutating func claimAtom() -> ClaimAtom {
        let amounts = ClaimAtom.ClaimedAmounts(offerID: int(0...1) == 0 ? 0 : i64(), assetSold: asset(), amountSold: i64(), assetBought: asset(), amountBought: i64())
        switch int(0...2) {
        case 0: return .v0(sellerEd25519: bytes32(), amounts)
        case 1: return .orderBook(sellerID: accountID(), amounts)
        default: return .liquidityPool(poolID: bytes32(), ClaimAtom.ClaimedAmounts(
            offerID: 0, assetSold: amounts.assetSold, amountSold: amounts.amountSold, assetBought: amounts.assetBought, amountBought: amounts.amountBought))
        }
    }

    mutating func offerEntry() -> OfferEntry {
        OfferEntry(sellerID: accountID(), offerID: i64(), selling: asset(), buying: asset(), amount: i64(), price: price(), flags: u32())
    }

    mutating func pick<C: CaseIterable>(_ type: C.Type) -> C where C.AllCases: RandomAccessCollection {
        type.allCases.randomElement(using: &rng)!
    }

    mutating func pathPaymentResult<C: PathPaymentResultCodeProtocol>(_ type: C.Type) -> PathPaymentResult<C> where C.AllCases: RandomAccessCollection {
        let code = pick(C.self)
        if code == .success { return .success(offers: array(0...3) { $0.claimAtom() }, last: SimplePaymentResult(destination: accountID(), asset: asset(), amount: i64())) }
        if code == .noIssuer { return .noIssuer(asset()) }
        return .failure(code)
    }

    mutating func manageOfferResult<C: ManageOfferResultCodeProtocol>(_ type: C.Type) -> ManageOfferResult<C> where C.AllCases: RandomAccessCollection {
        let code = pick(C.self)
        guard code == .success else { return .failure(code) }
        let effect: ManageOfferEffect = switch int(0...2) {
        case 0: .created(offerEntry())
        case 1: .updated(offerEntry())
        default: .deleted
        }
        return .success(offersClaimed: array(0...3) { $0.claimAtom() }, effect: effect)
    }

    mutating func operationResult() -> OperationResult {
        if int(0...5) == 0 { return .outer(pick(OperationOuterCode.self)) }
        switch int(0...10) {
        case 0: return .inner(.createAccount(pick(CreateAccountResultCode.self)))
        case 1: return .inner(.payment(pick(PaymentResultCode.self)))
        case 2: return .inner(.pathPaymentStrictReceive(pathPaymentResult(PathPaymentStrictReceiveResultCode.self)))
        case 3: return .inner(.manageSellOffer(manageOfferResult(ManageSellOfferResultCode.self)))
        case 4: return .inner(.setOptions(pick(SetOptionsResultCode.self)))
        case 5: return .inner(.changeTrust(pick(ChangeTrustResultCode.self)))
        case 6:
            let code = pick(AccountMergeResultCode.self)
            return .inner(.accountMerge(code, sourceAccountBalance: code == .success ? i64() : nil))
        case 7: return .inner(.manageData(pick(ManageDataResultCode.self)))
        case 8: return .inner(.bumpSequence(pick(BumpSequenceResultCode.self)))
        case 9: return .inner(.manageBuyOffer(manageOfferResult(ManageBuyOfferResultCode.self)))
        default: return .inner(.pathPaymentStrictSend(pathPaymentResult(PathPaymentStrictSendResultCode.self)))
        }
    }

    mutating func outcome(allowFeeBump: Bool) -> TransactionOutcome {
        let plain: [TransactionResultCode] = TransactionResultCode.allCases.filter {
            ![.success, .failed, .feeBumpInnerSuccess, .feeBumpInnerFailed].contains($0)
        }
        switch int(0...(allowFeeBump ? 4 : 2)) {
        case 0: return .success(array(0...4) { $0.operationResult() })
        case 1: return .failed(array(0...4) { $0.operationResult() })
        case 2: return .code(plain.randomElement(using: &rng)!)
        case 3: return .feeBumpInnerSuccess(innerHash: bytes32(), InnerTransactionResult(feeCharged: i64(), outcome: outcome(allowFeeBump: false)))
        default: return .feeBumpInnerFailed(innerHash: bytes32(), InnerTransactionResult(feeCharged: i64(), outcome: outcome(allowFeeBump: false)))
        }
    }

    mutating func transactionResult() -> TransactionResult {
        TransactionResult(feeCharged: i64(), outcome: outcome(allowFeeBump: true))
    }
}
