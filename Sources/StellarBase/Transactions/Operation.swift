/// Stellar's operation types. Tender applies the ones with a body in ``OperationBody``; the decoder
/// refuses the others with an ``XDRError/Code/unsupported`` error that names them.
public enum OperationType: Int32, Sendable, CaseIterable, CustomStringConvertible {
    case createAccount = 0, payment, pathPaymentStrictReceive, manageSellOffer, createPassiveSellOffer
    case setOptions, changeTrust, allowTrust, accountMerge, inflation, manageData, bumpSequence
    case manageBuyOffer, pathPaymentStrictSend, createClaimableBalance, claimClaimableBalance
    case beginSponsoringFutureReserves, endSponsoringFutureReserves, revokeSponsorship, clawback
    case clawbackClaimableBalance, setTrustLineFlags, liquidityPoolDeposit, liquidityPoolWithdraw
    case invokeHostFunction, extendFootprintTTL, restoreFootprint

    /// The snake_case name Horizon uses for the operation's `type`.
    public var name: String {
        switch self {
        case .createAccount: "create_account"
        case .payment: "payment"
        case .pathPaymentStrictReceive: "path_payment_strict_receive"
        case .manageSellOffer: "manage_sell_offer"
        case .createPassiveSellOffer: "create_passive_sell_offer"
        case .setOptions: "set_options"
        case .changeTrust: "change_trust"
        case .allowTrust: "allow_trust"
        case .accountMerge: "account_merge"
        case .inflation: "inflation"
        case .manageData: "manage_data"
        case .bumpSequence: "bump_sequence"
        case .manageBuyOffer: "manage_buy_offer"
        case .pathPaymentStrictSend: "path_payment_strict_send"
        case .createClaimableBalance: "create_claimable_balance"
        case .claimClaimableBalance: "claim_claimable_balance"
        case .beginSponsoringFutureReserves: "begin_sponsoring_future_reserves"
        case .endSponsoringFutureReserves: "end_sponsoring_future_reserves"
        case .revokeSponsorship: "revoke_sponsorship"
        case .clawback: "clawback"
        case .clawbackClaimableBalance: "clawback_claimable_balance"
        case .setTrustLineFlags: "set_trust_line_flags"
        case .liquidityPoolDeposit: "liquidity_pool_deposit"
        case .liquidityPoolWithdraw: "liquidity_pool_withdraw"
        case .invokeHostFunction: "invoke_host_function"
        case .extendFootprintTTL: "extend_footprint_ttl"
        case .restoreFootprint: "restore_footprint"
        }
    }

    public var description: String { name }
}

public struct CreateAccountOperation: Hashable, Sendable {
    public var destination: AccountID
    public var startingBalance: Int64
    public init(destination: AccountID, startingBalance: Int64) {
        self.destination = destination
        self.startingBalance = startingBalance
    }
}

public struct PaymentOperation: Hashable, Sendable {
    public var destination: MuxedAccount
    public var asset: Asset
    public var amount: Int64
    public init(destination: MuxedAccount, asset: Asset, amount: Int64) {
        self.destination = destination
        self.asset = asset
        self.amount = amount
    }
}

public struct PathPaymentStrictReceiveOperation: Hashable, Sendable {
    public var sendAsset: Asset
    public var sendMax: Int64
    public var destination: MuxedAccount
    public var destAsset: Asset
    public var destAmount: Int64
    /// At most five intermediate assets.
    public var path: [Asset]
    public init(sendAsset: Asset, sendMax: Int64, destination: MuxedAccount, destAsset: Asset, destAmount: Int64, path: [Asset]) {
        self.sendAsset = sendAsset
        self.sendMax = sendMax
        self.destination = destination
        self.destAsset = destAsset
        self.destAmount = destAmount
        self.path = path
    }
}

public struct PathPaymentStrictSendOperation: Hashable, Sendable {
    public var sendAsset: Asset
    public var sendAmount: Int64
    public var destination: MuxedAccount
    public var destAsset: Asset
    public var destMin: Int64
    /// At most five intermediate assets.
    public var path: [Asset]
    public init(sendAsset: Asset, sendAmount: Int64, destination: MuxedAccount, destAsset: Asset, destMin: Int64, path: [Asset]) {
        self.sendAsset = sendAsset
        self.sendAmount = sendAmount
        self.destination = destination
        self.destAsset = destAsset
        self.destMin = destMin
        self.path = path
    }
}

public struct ManageSellOfferOperation: Hashable, Sendable {
    public var selling: Asset
    public var buying: Asset
    /// Amount of `selling`; 0 deletes the offer.
    public var amount: Int64
    /// Price of 1 unit of `selling` in terms of `buying`.
    public var price: Price
    /// 0 creates a new offer.
    public var offerID: Int64
    public init(selling: Asset, buying: Asset, amount: Int64, price: Price, offerID: Int64 = 0) {
        self.selling = selling
        self.buying = buying
        self.amount = amount
        self.price = price
        self.offerID = offerID
    }
}

public struct ManageBuyOfferOperation: Hashable, Sendable {
    public var selling: Asset
    public var buying: Asset
    /// Amount of `buying`; 0 deletes the offer.
    public var buyAmount: Int64
    /// Price of 1 unit of `buying` in terms of `selling`.
    public var price: Price
    /// 0 creates a new offer.
    public var offerID: Int64
    public init(selling: Asset, buying: Asset, buyAmount: Int64, price: Price, offerID: Int64 = 0) {
        self.selling = selling
        self.buying = buying
        self.buyAmount = buyAmount
        self.price = price
        self.offerID = offerID
    }
}

public struct SetOptionsOperation: Hashable, Sendable {
    public var inflationDestination: AccountID?
    public var clearFlags: UInt32?
    public var setFlags: UInt32?
    public var masterWeight: UInt32?
    public var lowThreshold: UInt32?
    public var mediumThreshold: UInt32?
    public var highThreshold: UInt32?
    /// At most 32 bytes.
    public var homeDomain: [UInt8]?
    public var signer: Signer?

    public init(
        inflationDestination: AccountID? = nil, clearFlags: UInt32? = nil, setFlags: UInt32? = nil,
        masterWeight: UInt32? = nil, lowThreshold: UInt32? = nil, mediumThreshold: UInt32? = nil,
        highThreshold: UInt32? = nil, homeDomain: [UInt8]? = nil, signer: Signer? = nil
    ) {
        self.inflationDestination = inflationDestination
        self.clearFlags = clearFlags
        self.setFlags = setFlags
        self.masterWeight = masterWeight
        self.lowThreshold = lowThreshold
        self.mediumThreshold = mediumThreshold
        self.highThreshold = highThreshold
        self.homeDomain = homeDomain
        self.signer = signer
    }
}

public struct ChangeTrustOperation: Hashable, Sendable {
    public var line: ChangeTrustAsset
    /// 0 removes the trustline; the SDKs' default is `Int64.max`.
    public var limit: Int64
    public init(asset: Asset, limit: Int64 = .max) {
        self.line = ChangeTrustAsset(asset)
        self.limit = limit
    }

    /// A trustline to a liquidity pool's shares.
    public init(pool: LiquidityPoolParameters, limit: Int64 = .max) {
        self.line = .poolShare(pool)
        self.limit = limit
    }
}

public struct ManageDataOperation: Hashable, Sendable {
    /// 1-64 bytes.
    public var name: [UInt8]
    /// At most 64 bytes; nil deletes the entry.
    public var value: [UInt8]?
    public init(name: [UInt8], value: [UInt8]?) {
        self.name = name
        self.value = value
    }
}

/// CreatePassiveSellOffer: a sell offer that does not take offers at exactly its own price.
public struct CreatePassiveSellOfferOperation: Hashable, Sendable {
    public var selling: Asset
    public var buying: Asset
    public var amount: Int64
    /// Price of 1 unit of `selling` in terms of `buying`.
    public var price: Price

    public init(selling: Asset, buying: Asset, amount: Int64, price: Price) {
        self.selling = selling
        self.buying = buying
        self.amount = amount
        self.price = price
    }
}

/// AllowTrust: the issuer sets a trustline's authorization (the older form of SetTrustLineFlags).
public struct AllowTrustOperation: Hashable, Sendable {
    public var trustor: AccountID
    /// The code of the source's own asset.
    public var assetCode: AssetCode
    /// 0, `authorized` (1) or `authorizedToMaintainLiabilities` (2).
    public var authorize: UInt32

    public init(trustor: AccountID, assetCode: AssetCode, authorize: UInt32) {
        self.trustor = trustor
        self.assetCode = assetCode
        self.authorize = authorize
    }

    /// The asset the code names, issued by `issuer` (the operation's source).
    public func asset(issuer: AccountID) -> Asset {
        assetCode.raw.count == 4 ? .alphanum4(assetCode, issuer: issuer) : .alphanum12(assetCode, issuer: issuer)
    }
}

/// SetTrustLineFlags (CAP-35): the issuer clears then sets flags of a holder's trustline.
public struct SetTrustLineFlagsOperation: Hashable, Sendable {
    public var trustor: AccountID
    public var asset: Asset
    public var clearFlags: UInt32
    public var setFlags: UInt32

    public init(trustor: AccountID, asset: Asset, clearFlags: UInt32 = 0, setFlags: UInt32 = 0) {
        self.trustor = trustor
        self.asset = asset
        self.clearFlags = clearFlags
        self.setFlags = setFlags
    }
}

/// Clawback (CAP-35): the issuer takes back `amount` of its asset from a holder's trustline.
public struct ClawbackOperation: Hashable, Sendable {
    public var asset: Asset
    public var from: MuxedAccount
    public var amount: Int64

    public init(asset: Asset, from: MuxedAccount, amount: Int64) {
        self.asset = asset
        self.from = from
        self.amount = amount
    }
}

/// Names one ledger entry (`LedgerKey` in XDR, the kinds before Soroban's).
public enum LedgerKey: Hashable, Sendable {
    case account(AccountID)
    case trustLine(AccountID, Asset)
    /// A trustline to a liquidity pool's shares.
    case poolShareLine(AccountID, poolID: Bytes32)
    case offer(seller: AccountID, offerID: Int64)
    case data(AccountID, name: [UInt8])
    case claimableBalance(ClaimableBalanceID)
    /// A pool's id; no operation Tender applies may name one.
    case liquidityPool(Bytes32)
}

extension LedgerKey: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("ledger entry type")
        switch type {
        case 0: self = .account(try AccountID(xdr: &reader))
        case 1:
            let account = try AccountID(xdr: &reader)
            var peek = reader
            if try peek.readInt32("trustline asset type") == 3 {
                _ = try reader.readInt32("trustline asset type")
                self = .poolShareLine(account, poolID: try reader.readBytes32("liquidity pool id"))
            } else {
                self = .trustLine(account, try Asset(xdr: &reader))
            }
        case 2: self = .offer(seller: try AccountID(xdr: &reader), offerID: try reader.readInt64("offerID"))
        case 3: self = .data(try AccountID(xdr: &reader), name: try reader.readVariableOpaque(maxLength: Operation.maxDataBytes, "data name"))
        case 4: self = .claimableBalance(try ClaimableBalanceID(xdr: &reader))
        case 5: self = .liquidityPool(try reader.readBytes32("liquidity pool id"))
        default: throw .unsupported("ledger_key", "ledger keys of type \(type) are not supported by Tender")
        }
    }

    public func encode(to writer: inout XDRWriter) {
        switch self {
        case .account(let id):
            writer.write(Int32(0))
            id.encode(to: &writer)
        case .trustLine(let id, let asset):
            writer.write(Int32(1))
            id.encode(to: &writer)
            asset.encode(to: &writer)
        case .poolShareLine(let id, let poolID):
            writer.write(Int32(1))
            id.encode(to: &writer)
            writer.write(Int32(3))
            writer.writeFixedOpaque(poolID.bytes)
        case .offer(let seller, let offerID):
            writer.write(Int32(2))
            seller.encode(to: &writer)
            writer.write(offerID)
        case .data(let id, let name):
            writer.write(Int32(3))
            id.encode(to: &writer)
            writer.writeVariableOpaque(name)
        case .claimableBalance(let id):
            writer.write(Int32(4))
            id.encode(to: &writer)
        case .liquidityPool(let id):
            writer.write(Int32(5))
            writer.writeFixedOpaque(id.bytes)
        }
    }
}

/// RevokeSponsorship (CAP-33): what it names, an entry or an account's signer.
public enum RevokeSponsorshipOperation: Hashable, Sendable {
    case ledgerEntry(LedgerKey)
    case signer(account: AccountID, key: SignerKey)
}

/// What an operation does.
public enum OperationBody: Hashable, Sendable {
    case createAccount(CreateAccountOperation)
    case payment(PaymentOperation)
    case pathPaymentStrictReceive(PathPaymentStrictReceiveOperation)
    case manageSellOffer(ManageSellOfferOperation)
    case setOptions(SetOptionsOperation)
    case changeTrust(ChangeTrustOperation)
    case accountMerge(destination: MuxedAccount)
    case manageData(ManageDataOperation)
    case bumpSequence(bumpTo: Int64)
    case manageBuyOffer(ManageBuyOfferOperation)
    case pathPaymentStrictSend(PathPaymentStrictSendOperation)
    case createPassiveSellOffer(CreatePassiveSellOfferOperation)
    case allowTrust(AllowTrustOperation)
    case setTrustLineFlags(SetTrustLineFlagsOperation)
    case clawback(ClawbackOperation)
    case createClaimableBalance(CreateClaimableBalanceOperation)
    case claimClaimableBalance(ClaimableBalanceID)
    case clawbackClaimableBalance(ClaimableBalanceID)
    /// CAP-33: the source pays the reserves of what `sponsoredID` creates until it ends them.
    case beginSponsoringFutureReserves(sponsoredID: AccountID)
    case endSponsoringFutureReserves
    case revokeSponsorship(RevokeSponsorshipOperation)
    case liquidityPoolDeposit(LiquidityPoolDepositOperation)
    case liquidityPoolWithdraw(LiquidityPoolWithdrawOperation)

    public var type: OperationType {
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
}

/// One operation of a transaction, with its optional own source account.
public struct Operation: Hashable, Sendable {
    public var sourceAccount: MuxedAccount?
    public var body: OperationBody

    public init(sourceAccount: MuxedAccount? = nil, _ body: OperationBody) {
        self.sourceAccount = sourceAccount
        self.body = body
    }

    /// Bound on path lengths.
    public static let maxPathLength = 5
    /// Bound on data entry names and values, in bytes.
    public static let maxDataBytes = 64
    /// Bound on home domains, in bytes.
    public static let maxHomeDomainBytes = 32
}

extension Operation: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        sourceAccount = try reader.readOptional(MuxedAccount.self, "operation source flag")
        let rawType = try reader.readInt32("operation type")
        guard let type = OperationType(rawValue: rawType) else { throw .unknown("OperationType", Int64(rawType)) }
        switch type {
        case .createAccount:
            body = .createAccount(CreateAccountOperation(
                destination: try AccountID(xdr: &reader), startingBalance: try reader.readInt64("startingBalance")))
        case .payment:
            body = .payment(PaymentOperation(
                destination: try MuxedAccount(xdr: &reader), asset: try Asset(xdr: &reader), amount: try reader.readInt64("amount")))
        case .pathPaymentStrictReceive:
            body = .pathPaymentStrictReceive(PathPaymentStrictReceiveOperation(
                sendAsset: try Asset(xdr: &reader), sendMax: try reader.readInt64("sendMax"),
                destination: try MuxedAccount(xdr: &reader), destAsset: try Asset(xdr: &reader),
                destAmount: try reader.readInt64("destAmount"),
                path: try reader.readArray(Asset.self, maxCount: Operation.maxPathLength, "path")))
        case .manageSellOffer:
            body = .manageSellOffer(ManageSellOfferOperation(
                selling: try Asset(xdr: &reader), buying: try Asset(xdr: &reader), amount: try reader.readInt64("amount"),
                price: try Price(xdr: &reader), offerID: try reader.readInt64("offerID")))
        case .setOptions:
            body = .setOptions(SetOptionsOperation(
                inflationDestination: try reader.readOptional(AccountID.self, "inflationDest flag"),
                clearFlags: try reader.readBool("clearFlags flag") ? try reader.readUInt32("clearFlags") : nil,
                setFlags: try reader.readBool("setFlags flag") ? try reader.readUInt32("setFlags") : nil,
                masterWeight: try reader.readBool("masterWeight flag") ? try reader.readUInt32("masterWeight") : nil,
                lowThreshold: try reader.readBool("lowThreshold flag") ? try reader.readUInt32("lowThreshold") : nil,
                mediumThreshold: try reader.readBool("medThreshold flag") ? try reader.readUInt32("medThreshold") : nil,
                highThreshold: try reader.readBool("highThreshold flag") ? try reader.readUInt32("highThreshold") : nil,
                homeDomain: try reader.readBool("homeDomain flag")
                    ? try reader.readVariableOpaque(maxLength: Operation.maxHomeDomainBytes, "homeDomain") : nil,
                signer: try reader.readOptional(Signer.self, "signer flag")))
        case .changeTrust:
            let line = try ChangeTrustAsset(xdr: &reader)
            var op = ChangeTrustOperation(asset: .native, limit: try reader.readInt64("limit"))
            op.line = line
            body = .changeTrust(op)
        case .accountMerge:
            body = .accountMerge(destination: try MuxedAccount(xdr: &reader))
        case .manageData:
            let name = try reader.readVariableOpaque(maxLength: Operation.maxDataBytes, "data name")
            let value = try reader.readBool("data value flag")
                ? try reader.readVariableOpaque(maxLength: Operation.maxDataBytes, "data value") : nil
            body = .manageData(ManageDataOperation(name: name, value: value))
        case .bumpSequence:
            body = .bumpSequence(bumpTo: try reader.readInt64("bumpTo"))
        case .manageBuyOffer:
            body = .manageBuyOffer(ManageBuyOfferOperation(
                selling: try Asset(xdr: &reader), buying: try Asset(xdr: &reader), buyAmount: try reader.readInt64("buyAmount"),
                price: try Price(xdr: &reader), offerID: try reader.readInt64("offerID")))
        case .pathPaymentStrictSend:
            body = .pathPaymentStrictSend(PathPaymentStrictSendOperation(
                sendAsset: try Asset(xdr: &reader), sendAmount: try reader.readInt64("sendAmount"),
                destination: try MuxedAccount(xdr: &reader), destAsset: try Asset(xdr: &reader),
                destMin: try reader.readInt64("destMin"),
                path: try reader.readArray(Asset.self, maxCount: Operation.maxPathLength, "path")))
        case .createPassiveSellOffer:
            body = .createPassiveSellOffer(CreatePassiveSellOfferOperation(
                selling: try Asset(xdr: &reader), buying: try Asset(xdr: &reader), amount: try reader.readInt64("amount"), price: try Price(xdr: &reader)))
        case .allowTrust:
            let trustor = try AccountID(xdr: &reader)
            let codeType = try reader.readInt32("allow trust asset type")
            guard codeType == 1 || codeType == 2 else { throw .unknown("AssetCode type", Int64(codeType)) }
            let code = AssetCode(raw: try reader.readFixedOpaque(codeType == 1 ? 4 : 12, "asset code"))
            body = .allowTrust(AllowTrustOperation(trustor: trustor, assetCode: code, authorize: try reader.readUInt32("authorize")))
        case .setTrustLineFlags:
            body = .setTrustLineFlags(SetTrustLineFlagsOperation(
                trustor: try AccountID(xdr: &reader), asset: try Asset(xdr: &reader),
                clearFlags: try reader.readUInt32("clearFlags"), setFlags: try reader.readUInt32("setFlags")))
        case .clawback:
            body = .clawback(ClawbackOperation(asset: try Asset(xdr: &reader), from: try MuxedAccount(xdr: &reader), amount: try reader.readInt64("amount")))
        case .createClaimableBalance:
            body = .createClaimableBalance(CreateClaimableBalanceOperation(
                asset: try Asset(xdr: &reader), amount: try reader.readInt64("amount"),
                claimants: try reader.readArray(Claimant.self, maxCount: 10, "claimants")))
        case .claimClaimableBalance:
            body = .claimClaimableBalance(try ClaimableBalanceID(xdr: &reader))
        case .clawbackClaimableBalance:
            body = .clawbackClaimableBalance(try ClaimableBalanceID(xdr: &reader))
        case .beginSponsoringFutureReserves:
            body = .beginSponsoringFutureReserves(sponsoredID: try AccountID(xdr: &reader))
        case .endSponsoringFutureReserves:
            body = .endSponsoringFutureReserves
        case .revokeSponsorship:
            switch try reader.readInt32("revoke sponsorship type") {
            case 0: body = .revokeSponsorship(.ledgerEntry(try LedgerKey(xdr: &reader)))
            case 1: body = .revokeSponsorship(.signer(account: try AccountID(xdr: &reader), key: try SignerKey(xdr: &reader)))
            case let other: throw .unknown("RevokeSponsorshipType", Int64(other))
            }
        case .liquidityPoolDeposit:
            body = .liquidityPoolDeposit(LiquidityPoolDepositOperation(
                poolID: try reader.readBytes32("liquidity pool id"), maxAmountA: try reader.readInt64("maxAmountA"),
                maxAmountB: try reader.readInt64("maxAmountB"), minPrice: try Price(xdr: &reader), maxPrice: try Price(xdr: &reader)))
        case .liquidityPoolWithdraw:
            body = .liquidityPoolWithdraw(LiquidityPoolWithdrawOperation(
                poolID: try reader.readBytes32("liquidity pool id"), amount: try reader.readInt64("amount"),
                minAmountA: try reader.readInt64("minAmountA"), minAmountB: try reader.readInt64("minAmountB")))
        default:
            throw .unsupported(type.name, "the operation \(type.name) is not supported by Tender")
        }
    }

    public func encode(to writer: inout XDRWriter) {
        writer.writeOptional(sourceAccount)
        writer.write(body.type.rawValue)
        switch body {
        case .createAccount(let op):
            op.destination.encode(to: &writer)
            writer.write(op.startingBalance)
        case .payment(let op):
            op.destination.encode(to: &writer)
            op.asset.encode(to: &writer)
            writer.write(op.amount)
        case .pathPaymentStrictReceive(let op):
            op.sendAsset.encode(to: &writer)
            writer.write(op.sendMax)
            op.destination.encode(to: &writer)
            op.destAsset.encode(to: &writer)
            writer.write(op.destAmount)
            writer.writeArray(op.path)
        case .manageSellOffer(let op):
            op.selling.encode(to: &writer)
            op.buying.encode(to: &writer)
            writer.write(op.amount)
            op.price.encode(to: &writer)
            writer.write(op.offerID)
        case .setOptions(let op):
            writer.writeOptional(op.inflationDestination)
            for value in [op.clearFlags, op.setFlags, op.masterWeight, op.lowThreshold, op.mediumThreshold, op.highThreshold] {
                if let value {
                    writer.write(UInt32(1))
                    writer.write(value)
                } else {
                    writer.write(UInt32(0))
                }
            }
            if let homeDomain = op.homeDomain {
                writer.write(UInt32(1))
                writer.writeVariableOpaque(homeDomain)
            } else {
                writer.write(UInt32(0))
            }
            writer.writeOptional(op.signer)
        case .changeTrust(let op):
            op.line.encode(to: &writer)
            writer.write(op.limit)
        case .accountMerge(let destination):
            destination.encode(to: &writer)
        case .manageData(let op):
            writer.writeVariableOpaque(op.name)
            if let value = op.value {
                writer.write(UInt32(1))
                writer.writeVariableOpaque(value)
            } else {
                writer.write(UInt32(0))
            }
        case .bumpSequence(let bumpTo):
            writer.write(bumpTo)
        case .manageBuyOffer(let op):
            op.selling.encode(to: &writer)
            op.buying.encode(to: &writer)
            writer.write(op.buyAmount)
            op.price.encode(to: &writer)
            writer.write(op.offerID)
        case .pathPaymentStrictSend(let op):
            op.sendAsset.encode(to: &writer)
            writer.write(op.sendAmount)
            op.destination.encode(to: &writer)
            op.destAsset.encode(to: &writer)
            writer.write(op.destMin)
            writer.writeArray(op.path)
        case .createPassiveSellOffer(let op):
            op.selling.encode(to: &writer)
            op.buying.encode(to: &writer)
            writer.write(op.amount)
            op.price.encode(to: &writer)
        case .allowTrust(let op):
            op.trustor.encode(to: &writer)
            writer.write(Int32(op.assetCode.raw.count == 4 ? 1 : 2))
            writer.writeFixedOpaque(op.assetCode.raw)
            writer.write(op.authorize)
        case .setTrustLineFlags(let op):
            op.trustor.encode(to: &writer)
            op.asset.encode(to: &writer)
            writer.write(op.clearFlags)
            writer.write(op.setFlags)
        case .clawback(let op):
            op.asset.encode(to: &writer)
            op.from.encode(to: &writer)
            writer.write(op.amount)
        case .createClaimableBalance(let op):
            op.asset.encode(to: &writer)
            writer.write(op.amount)
            writer.writeArray(op.claimants)
        case .claimClaimableBalance(let id), .clawbackClaimableBalance(let id):
            id.encode(to: &writer)
        case .beginSponsoringFutureReserves(let sponsored):
            sponsored.encode(to: &writer)
        case .endSponsoringFutureReserves:
            break
        case .revokeSponsorship(.ledgerEntry(let key)):
            writer.write(Int32(0))
            key.encode(to: &writer)
        case .revokeSponsorship(.signer(let account, let key)):
            writer.write(Int32(1))
            account.encode(to: &writer)
            key.encode(to: &writer)
        case .liquidityPoolDeposit(let op):
            writer.writeFixedOpaque(op.poolID.bytes)
            writer.write(op.maxAmountA)
            writer.write(op.maxAmountB)
            op.minPrice.encode(to: &writer)
            op.maxPrice.encode(to: &writer)
        case .liquidityPoolWithdraw(let op):
            writer.writeFixedOpaque(op.poolID.bytes)
            writer.write(op.amount)
            writer.write(op.minAmountA)
            writer.write(op.minAmountB)
        }
    }
}
