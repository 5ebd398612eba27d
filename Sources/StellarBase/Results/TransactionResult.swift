/// An offer as stored in the ledger (`OfferEntry` in XDR).
public struct OfferEntry: Hashable, Sendable {
    public var sellerID: AccountID
    public var offerID: Int64
    public var selling: Asset
    public var buying: Asset
    /// Amount of `selling` still offered.
    public var amount: Int64
    /// Price of `selling` in terms of `buying`.
    public var price: Price
    public var flags: UInt32

    public init(sellerID: AccountID, offerID: Int64, selling: Asset, buying: Asset, amount: Int64, price: Price, flags: UInt32 = 0) {
        self.sellerID = sellerID
        self.offerID = offerID
        self.selling = selling
        self.buying = buying
        self.amount = amount
        self.price = price
        self.flags = flags
    }
}

extension OfferEntry: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        sellerID = try AccountID(xdr: &reader)
        offerID = try reader.readInt64("offerID")
        selling = try Asset(xdr: &reader)
        buying = try Asset(xdr: &reader)
        amount = try reader.readInt64("amount")
        price = try Price(xdr: &reader)
        flags = try reader.readUInt32("flags")
        let ext = try reader.readInt32("offer ext")
        guard ext == 0 else { throw .unknown("OfferEntry ext", Int64(ext)) }
    }

    public func encode(to writer: inout XDRWriter) {
        sellerID.encode(to: &writer)
        writer.write(offerID)
        selling.encode(to: &writer)
        buying.encode(to: &writer)
        writer.write(amount)
        price.encode(to: &writer)
        writer.write(flags)
        writer.write(Int32(0))
    }
}

/// One trade against an offer or a pool, as a path payment or offer reports it.
public enum ClaimAtom: Hashable, Sendable {
    /// The old form, with the seller as a raw ed25519 key.
    case v0(sellerEd25519: Bytes32, ClaimedAmounts)
    case orderBook(sellerID: AccountID, ClaimedAmounts)
    case liquidityPool(poolID: Bytes32, ClaimedAmounts)

    /// What was traded: taken from the owner (sold) and sent to the owner (bought).
    public struct ClaimedAmounts: Hashable, Sendable {
        /// Zero for a liquidity pool.
        public var offerID: Int64
        public var assetSold: Asset
        public var amountSold: Int64
        public var assetBought: Asset
        public var amountBought: Int64

        public init(offerID: Int64, assetSold: Asset, amountSold: Int64, assetBought: Asset, amountBought: Int64) {
            self.offerID = offerID
            self.assetSold = assetSold
            self.amountSold = amountSold
            self.assetBought = assetBought
            self.amountBought = amountBought
        }
    }

    public var amounts: ClaimedAmounts {
        switch self {
        case .v0(_, let amounts), .orderBook(_, let amounts), .liquidityPool(_, let amounts): amounts
        }
    }
}

extension ClaimAtom: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("claim atom type")
        func assets(offerID: Int64, _ reader: inout XDRReader) throws(XDRError) -> ClaimedAmounts {
            ClaimedAmounts(
                offerID: offerID, assetSold: try Asset(xdr: &reader), amountSold: try reader.readInt64("amountSold"),
                assetBought: try Asset(xdr: &reader), amountBought: try reader.readInt64("amountBought"))
        }
        switch type {
        case 0:
            let seller = try reader.readBytes32("seller")
            self = .v0(sellerEd25519: seller, try assets(offerID: try reader.readInt64("offerID"), &reader))
        case 1:
            let seller = try AccountID(xdr: &reader)
            self = .orderBook(sellerID: seller, try assets(offerID: try reader.readInt64("offerID"), &reader))
        case 2:
            let pool = try reader.readBytes32("liquidity pool id")
            self = .liquidityPool(poolID: pool, try assets(offerID: 0, &reader))
        default:
            throw .unknown("ClaimAtomType", Int64(type))
        }
    }

    public func encode(to writer: inout XDRWriter) {
        let amounts = self.amounts
        switch self {
        case .v0(let seller, _):
            writer.write(Int32(0)); writer.write(seller); writer.write(amounts.offerID)
        case .orderBook(let seller, _):
            writer.write(Int32(1)); seller.encode(to: &writer); writer.write(amounts.offerID)
        case .liquidityPool(let pool, _):
            writer.write(Int32(2)); writer.write(pool)
        }
        amounts.assetSold.encode(to: &writer)
        writer.write(amounts.amountSold)
        amounts.assetBought.encode(to: &writer)
        writer.write(amounts.amountBought)
    }
}

/// What the destination of a path payment received.
public struct SimplePaymentResult: Hashable, Sendable {
    public var destination: AccountID
    public var asset: Asset
    public var amount: Int64

    public init(destination: AccountID, asset: Asset, amount: Int64) {
        self.destination = destination
        self.asset = asset
        self.amount = amount
    }
}

extension SimplePaymentResult: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        destination = try AccountID(xdr: &reader)
        asset = try Asset(xdr: &reader)
        amount = try reader.readInt64("amount")
    }

    public func encode(to writer: inout XDRWriter) {
        destination.encode(to: &writer)
        asset.encode(to: &writer)
        writer.write(amount)
    }
}

/// The result of a path payment of either kind.
public enum PathPaymentResult<Code: PathPaymentResultCodeProtocol>: Hashable, Sendable {
    case success(offers: [ClaimAtom], last: SimplePaymentResult)
    /// The asset whose issuer is missing.
    case noIssuer(Asset)
    /// Any other failure; never `success` or `noIssuer`.
    case failure(Code)

    public var code: Code {
        switch self {
        case .success: .success
        case .noIssuer: .noIssuer
        case .failure(let code): code
        }
    }
}

extension PathPaymentResult: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let code = try Code.decode(try reader.readInt32("path payment result code"), "path payment result code")
        switch code {
        case .success:
            let offers = try reader.readArray(ClaimAtom.self, maxCount: Int(Int32.max), minElementSize: 4, "offers")
            self = .success(offers: offers, last: try SimplePaymentResult(xdr: &reader))
        case .noIssuer:
            self = .noIssuer(try Asset(xdr: &reader))
        default:
            self = .failure(code)
        }
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(code.rawValue)
        switch self {
        case .success(let offers, let last):
            writer.writeArray(offers)
            last.encode(to: &writer)
        case .noIssuer(let asset):
            asset.encode(to: &writer)
        case .failure:
            break
        }
    }
}

/// What a successful offer operation did to the offer.
public enum ManageOfferEffect: Hashable, Sendable {
    case created(OfferEntry)
    case updated(OfferEntry)
    case deleted
}

/// The result of ManageSellOffer or ManageBuyOffer.
public enum ManageOfferResult<Code: ManageOfferResultCodeProtocol>: Hashable, Sendable {
    case success(offersClaimed: [ClaimAtom], effect: ManageOfferEffect)
    /// Never `success`.
    case failure(Code)

    public var code: Code {
        switch self {
        case .success: .success
        case .failure(let code): code
        }
    }
}

extension ManageOfferResult: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let code = try Code.decode(try reader.readInt32("manage offer result code"), "manage offer result code")
        guard code == .success else {
            self = .failure(code)
            return
        }
        let claimed = try reader.readArray(ClaimAtom.self, maxCount: Int(Int32.max), minElementSize: 4, "offersClaimed")
        let effect = try reader.readInt32("manage offer effect")
        switch effect {
        case 0: self = .success(offersClaimed: claimed, effect: .created(try OfferEntry(xdr: &reader)))
        case 1: self = .success(offersClaimed: claimed, effect: .updated(try OfferEntry(xdr: &reader)))
        case 2: self = .success(offersClaimed: claimed, effect: .deleted)
        default: throw .unknown("ManageOfferEffect", Int64(effect))
        }
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(code.rawValue)
        guard case .success(let claimed, let effect) = self else { return }
        writer.writeArray(claimed)
        switch effect {
        case .created(let offer): writer.write(Int32(0)); offer.encode(to: &writer)
        case .updated(let offer): writer.write(Int32(1)); offer.encode(to: &writer)
        case .deleted: writer.write(Int32(2))
        }
    }
}

/// The result of an operation that ran (`opINNER`), by operation type.
public enum OperationInnerResult: Hashable, Sendable {
    case createAccount(CreateAccountResultCode)
    case payment(PaymentResultCode)
    case pathPaymentStrictReceive(PathPaymentResult<PathPaymentStrictReceiveResultCode>)
    case manageSellOffer(ManageOfferResult<ManageSellOfferResultCode>)
    case setOptions(SetOptionsResultCode)
    case changeTrust(ChangeTrustResultCode)
    /// On success, the balance that moved to the destination.
    case accountMerge(AccountMergeResultCode, sourceAccountBalance: Int64?)
    case manageData(ManageDataResultCode)
    case bumpSequence(BumpSequenceResultCode)
    case manageBuyOffer(ManageOfferResult<ManageBuyOfferResultCode>)
    case pathPaymentStrictSend(PathPaymentResult<PathPaymentStrictSendResultCode>)
    /// A ManageSellOffer result, under the passive offer's own type.
    case createPassiveSellOffer(ManageOfferResult<ManageSellOfferResultCode>)
    case allowTrust(AllowTrustResultCode)
    case setTrustLineFlags(SetTrustLineFlagsResultCode)
    case clawback(ClawbackResultCode)
    /// On success, the new balance's id.
    case createClaimableBalance(CreateClaimableBalanceResultCode, balanceID: ClaimableBalanceID?)
    case claimClaimableBalance(ClaimClaimableBalanceResultCode)
    case clawbackClaimableBalance(ClawbackClaimableBalanceResultCode)
    case beginSponsoringFutureReserves(BeginSponsoringFutureReservesResultCode)
    case endSponsoringFutureReserves(EndSponsoringFutureReservesResultCode)
    case revokeSponsorship(RevokeSponsorshipResultCode)
    case liquidityPoolDeposit(LiquidityPoolDepositResultCode)
    case liquidityPoolWithdraw(LiquidityPoolWithdrawResultCode)

    public var operationType: OperationType {
        switch self {
        case .createAccount: .createAccount
        case .payment: .payment
        case .pathPaymentStrictReceive: .pathPaymentStrictReceive
        case .manageSellOffer: .manageSellOffer
        case .setOptions: .setOptions
        case .changeTrust: .changeTrust
        case .accountMerge: .accountMerge
        case .manageData: .manageData
        case .bumpSequence: .bumpSequence
        case .manageBuyOffer: .manageBuyOffer
        case .pathPaymentStrictSend: .pathPaymentStrictSend
        case .createPassiveSellOffer: .createPassiveSellOffer
        case .allowTrust: .allowTrust
        case .setTrustLineFlags: .setTrustLineFlags
        case .clawback: .clawback
        case .createClaimableBalance: .createClaimableBalance
        case .claimClaimableBalance: .claimClaimableBalance
        case .clawbackClaimableBalance: .clawbackClaimableBalance
        case .beginSponsoringFutureReserves: .beginSponsoringFutureReserves
        case .endSponsoringFutureReserves: .endSponsoringFutureReserves
        case .revokeSponsorship: .revokeSponsorship
        case .liquidityPoolDeposit: .liquidityPoolDeposit
        case .liquidityPoolWithdraw: .liquidityPoolWithdraw
        }
    }

    /// Horizon's string for the code.
    public var name: String {
        switch self {
        case .createAccount(let code): code.name
        case .payment(let code): code.name
        case .pathPaymentStrictReceive(let result): result.code.name
        case .manageSellOffer(let result): result.code.name
        case .setOptions(let code): code.name
        case .changeTrust(let code): code.name
        case .accountMerge(let code, _): code.name
        case .manageData(let code): code.name
        case .bumpSequence(let code): code.name
        case .manageBuyOffer(let result): result.code.name
        case .pathPaymentStrictSend(let result): result.code.name
        case .createPassiveSellOffer(let result): result.code.name
        case .allowTrust(let code): code.name
        case .setTrustLineFlags(let code): code.name
        case .clawback(let code): code.name
        case .createClaimableBalance(let code, _): code.name
        case .claimClaimableBalance(let code): code.name
        case .clawbackClaimableBalance(let code): code.name
        case .beginSponsoringFutureReserves(let code): code.name
        case .endSponsoringFutureReserves(let code): code.name
        case .revokeSponsorship(let code): code.name
        case .liquidityPoolDeposit(let code): code.name
        case .liquidityPoolWithdraw(let code): code.name
        }
    }

    public var isSuccess: Bool { name == "op_success" }
}

/// The result of one operation.
public enum OperationResult: Hashable, Sendable {
    case inner(OperationInnerResult)
    case outer(OperationOuterCode)

    /// Horizon's string for the code.
    public var name: String {
        switch self {
        case .inner(let inner): inner.name
        case .outer(let code): code.name
        }
    }

    public var isSuccess: Bool {
        if case .inner(let inner) = self { return inner.isSuccess }
        return false
    }
}

extension OperationResult: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let outer = try reader.readInt32("operation result code")
        guard outer == 0 else {
            guard let code = OperationOuterCode(rawValue: outer) else { throw .unknown("OperationResultCode", Int64(outer)) }
            self = .outer(code)
            return
        }
        let rawType = try reader.readInt32("operation result type")
        guard let type = OperationType(rawValue: rawType) else { throw .unknown("OperationType", Int64(rawType)) }
        switch type {
        case .createAccount:
            self = .inner(.createAccount(try .decode(try reader.readInt32(), "CreateAccountResultCode")))
        case .payment:
            self = .inner(.payment(try .decode(try reader.readInt32(), "PaymentResultCode")))
        case .pathPaymentStrictReceive:
            self = .inner(.pathPaymentStrictReceive(try PathPaymentResult(xdr: &reader)))
        case .manageSellOffer:
            self = .inner(.manageSellOffer(try ManageOfferResult(xdr: &reader)))
        case .setOptions:
            self = .inner(.setOptions(try .decode(try reader.readInt32(), "SetOptionsResultCode")))
        case .changeTrust:
            self = .inner(.changeTrust(try .decode(try reader.readInt32(), "ChangeTrustResultCode")))
        case .accountMerge:
            let code = try AccountMergeResultCode.decode(try reader.readInt32(), "AccountMergeResultCode")
            self = .inner(.accountMerge(code, sourceAccountBalance: code == .success ? try reader.readInt64("sourceAccountBalance") : nil))
        case .manageData:
            self = .inner(.manageData(try .decode(try reader.readInt32(), "ManageDataResultCode")))
        case .bumpSequence:
            self = .inner(.bumpSequence(try .decode(try reader.readInt32(), "BumpSequenceResultCode")))
        case .manageBuyOffer:
            self = .inner(.manageBuyOffer(try ManageOfferResult(xdr: &reader)))
        case .pathPaymentStrictSend:
            self = .inner(.pathPaymentStrictSend(try PathPaymentResult(xdr: &reader)))
        case .createPassiveSellOffer:
            self = .inner(.createPassiveSellOffer(try ManageOfferResult(xdr: &reader)))
        case .allowTrust:
            self = .inner(.allowTrust(try .decode(try reader.readInt32(), "AllowTrustResultCode")))
        case .setTrustLineFlags:
            self = .inner(.setTrustLineFlags(try .decode(try reader.readInt32(), "SetTrustLineFlagsResultCode")))
        case .clawback:
            self = .inner(.clawback(try .decode(try reader.readInt32(), "ClawbackResultCode")))
        case .createClaimableBalance:
            let code = try CreateClaimableBalanceResultCode.decode(try reader.readInt32(), "CreateClaimableBalanceResultCode")
            self = .inner(.createClaimableBalance(code, balanceID: code == .success ? try ClaimableBalanceID(xdr: &reader) : nil))
        case .claimClaimableBalance:
            self = .inner(.claimClaimableBalance(try .decode(try reader.readInt32(), "ClaimClaimableBalanceResultCode")))
        case .clawbackClaimableBalance:
            self = .inner(.clawbackClaimableBalance(try .decode(try reader.readInt32(), "ClawbackClaimableBalanceResultCode")))
        case .beginSponsoringFutureReserves:
            self = .inner(.beginSponsoringFutureReserves(try .decode(try reader.readInt32(), "BeginSponsoringFutureReservesResultCode")))
        case .endSponsoringFutureReserves:
            self = .inner(.endSponsoringFutureReserves(try .decode(try reader.readInt32(), "EndSponsoringFutureReservesResultCode")))
        case .revokeSponsorship:
            self = .inner(.revokeSponsorship(try .decode(try reader.readInt32(), "RevokeSponsorshipResultCode")))
        case .liquidityPoolDeposit:
            self = .inner(.liquidityPoolDeposit(try .decode(try reader.readInt32(), "LiquidityPoolDepositResultCode")))
        case .liquidityPoolWithdraw:
            self = .inner(.liquidityPoolWithdraw(try .decode(try reader.readInt32(), "LiquidityPoolWithdrawResultCode")))
        default:
            throw .unsupported(type.name, "results of \(type.name) are not supported by Tender")
        }
    }

    public func encode(to writer: inout XDRWriter) {
        guard case .inner(let inner) = self else {
            if case .outer(let code) = self { writer.write(code.rawValue) }
            return
        }
        writer.write(Int32(0))
        writer.write(inner.operationType.rawValue)
        switch inner {
        case .createAccount(let code): writer.write(code.rawValue)
        case .payment(let code): writer.write(code.rawValue)
        case .pathPaymentStrictReceive(let result): result.encode(to: &writer)
        case .manageSellOffer(let result): result.encode(to: &writer)
        case .setOptions(let code): writer.write(code.rawValue)
        case .changeTrust(let code): writer.write(code.rawValue)
        case .accountMerge(let code, let balance):
            writer.write(code.rawValue)
            if code == .success { writer.write(balance ?? 0) }
        case .manageData(let code): writer.write(code.rawValue)
        case .bumpSequence(let code): writer.write(code.rawValue)
        case .manageBuyOffer(let result): result.encode(to: &writer)
        case .pathPaymentStrictSend(let result): result.encode(to: &writer)
        case .createPassiveSellOffer(let result): result.encode(to: &writer)
        case .allowTrust(let code): writer.write(code.rawValue)
        case .setTrustLineFlags(let code): writer.write(code.rawValue)
        case .clawback(let code): writer.write(code.rawValue)
        case .createClaimableBalance(let code, let id):
            writer.write(code.rawValue)
            if code == .success { (id ?? ClaimableBalanceID(.zero)).encode(to: &writer) }
        case .claimClaimableBalance(let code): writer.write(code.rawValue)
        case .clawbackClaimableBalance(let code): writer.write(code.rawValue)
        case .beginSponsoringFutureReserves(let code): writer.write(code.rawValue)
        case .endSponsoringFutureReserves(let code): writer.write(code.rawValue)
        case .revokeSponsorship(let code): writer.write(code.rawValue)
        case .liquidityPoolDeposit(let code): writer.write(code.rawValue)
        case .liquidityPoolWithdraw(let code): writer.write(code.rawValue)
        }
    }
}

/// The outcome of a transaction, without its fee.
public indirect enum TransactionOutcome: Hashable, Sendable {
    case success([OperationResult])
    case failed([OperationResult])
    case feeBumpInnerSuccess(innerHash: Bytes32, InnerTransactionResult)
    case feeBumpInnerFailed(innerHash: Bytes32, InnerTransactionResult)
    /// A code that carries nothing: never success, failed or a fee bump code.
    case code(TransactionResultCode)

    public var code: TransactionResultCode {
        switch self {
        case .success: .success
        case .failed: .failed
        case .feeBumpInnerSuccess: .feeBumpInnerSuccess
        case .feeBumpInnerFailed: .feeBumpInnerFailed
        case .code(let code): code
        }
    }

    /// The operation results, when the operations ran.
    public var operationResults: [OperationResult]? {
        switch self {
        case .success(let results), .failed(let results): results
        case .feeBumpInnerSuccess(_, let inner), .feeBumpInnerFailed(_, let inner): inner.outcome.operationResults
        case .code: nil
        }
    }

    fileprivate init(xdr reader: inout XDRReader, allowFeeBump: Bool) throws(XDRError) {
        let raw = try reader.readInt32("transaction result code")
        guard let code = TransactionResultCode(rawValue: raw) else { throw .unknown("TransactionResultCode", Int64(raw)) }
        switch code {
        case .success, .failed:
            let results = try reader.readArray(OperationResult.self, maxCount: Int(Int32.max), minElementSize: 4, "operation results")
            self = code == .success ? .success(results) : .failed(results)
        case .feeBumpInnerSuccess, .feeBumpInnerFailed:
            guard allowFeeBump else { throw .unknown("inner TransactionResultCode", Int64(raw)) }
            let hash = try reader.readBytes32("inner transaction hash")
            let inner = try InnerTransactionResult(xdr: &reader)
            self = code == .feeBumpInnerSuccess ? .feeBumpInnerSuccess(innerHash: hash, inner) : .feeBumpInnerFailed(innerHash: hash, inner)
        default:
            self = .code(code)
        }
    }

    fileprivate func encode(to writer: inout XDRWriter) {
        writer.write(code.rawValue)
        switch self {
        case .success(let results), .failed(let results):
            writer.writeArray(results)
        case .feeBumpInnerSuccess(let hash, let inner), .feeBumpInnerFailed(let hash, let inner):
            writer.write(hash)
            inner.encode(to: &writer)
        case .code:
            break
        }
    }
}

/// The result of the inner transaction of a fee bump.
public struct InnerTransactionResult: Hashable, Sendable {
    public var feeCharged: Int64
    public var outcome: TransactionOutcome

    public init(feeCharged: Int64, outcome: TransactionOutcome) {
        self.feeCharged = feeCharged
        self.outcome = outcome
    }
}

extension InnerTransactionResult: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        feeCharged = try reader.readInt64("feeCharged")
        outcome = try TransactionOutcome(xdr: &reader, allowFeeBump: false)
        let ext = try reader.readInt32("inner result ext")
        guard ext == 0 else { throw .unknown("InnerTransactionResult ext", Int64(ext)) }
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(feeCharged)
        outcome.encode(to: &writer)
        writer.write(Int32(0))
    }
}

/// The result of a transaction, as Horizon returns it in `result_xdr`.
public struct TransactionResult: Hashable, Sendable {
    /// The fee taken, in stroops.
    public var feeCharged: Int64
    public var outcome: TransactionOutcome

    public init(feeCharged: Int64, outcome: TransactionOutcome) {
        self.feeCharged = feeCharged
        self.outcome = outcome
    }

    public var code: TransactionResultCode { outcome.code }
    public var isSuccess: Bool { code == .success || code == .feeBumpInnerSuccess }
}

extension TransactionResult: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        feeCharged = try reader.readInt64("feeCharged")
        outcome = try TransactionOutcome(xdr: &reader, allowFeeBump: true)
        let ext = try reader.readInt32("result ext")
        guard ext == 0 else { throw .unknown("TransactionResult ext", Int64(ext)) }
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(feeCharged)
        outcome.encode(to: &writer)
        writer.write(Int32(0))
    }
}
