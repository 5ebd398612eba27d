import Foundation
import StellarBase
import TenderJSON

/// Horizon's effect types: `type_i` is the raw value, `type` the name.
public enum EffectType: Int32, Sendable, CaseIterable {
    case accountCreated = 0
    case accountRemoved = 1
    case accountCredited = 2
    case accountDebited = 3
    case accountThresholdsUpdated = 4
    case accountHomeDomainUpdated = 5
    case accountFlagsUpdated = 6
    case accountInflationDestinationUpdated = 7
    case signerCreated = 10
    case signerRemoved = 11
    case signerUpdated = 12
    case trustlineCreated = 20
    case trustlineRemoved = 21
    case trustlineUpdated = 22
    case trustlineAuthorized = 23
    case trustlineDeauthorized = 24
    case trustlineAuthorizedToMaintainLiabilities = 25
    case trustlineFlagsUpdated = 26
    case trade = 33
    case dataCreated = 40
    case dataRemoved = 41
    case dataUpdated = 42
    case sequenceBumped = 43
    case claimableBalanceCreated = 50
    case claimableBalanceClaimantCreated = 51
    case claimableBalanceClaimed = 52
    case accountSponsorshipCreated = 60
    case accountSponsorshipUpdated = 61
    case accountSponsorshipRemoved = 62
    case trustlineSponsorshipCreated = 63
    case trustlineSponsorshipUpdated = 64
    case trustlineSponsorshipRemoved = 65
    case dataSponsorshipCreated = 66
    case dataSponsorshipUpdated = 67
    case dataSponsorshipRemoved = 68
    case claimableBalanceSponsorshipCreated = 69
    case claimableBalanceSponsorshipUpdated = 70
    case claimableBalanceSponsorshipRemoved = 71
    case signerSponsorshipCreated = 72
    case signerSponsorshipUpdated = 73
    case signerSponsorshipRemoved = 74
    case claimableBalanceClawedBack = 80
    case liquidityPoolDeposited = 90
    case liquidityPoolWithdrew = 91
    case liquidityPoolTrade = 92
    case liquidityPoolCreated = 93
    case liquidityPoolRemoved = 94
    case liquidityPoolRevoked = 95

    public var name: String {
        switch self {
        case .accountCreated: "account_created"
        case .accountRemoved: "account_removed"
        case .accountCredited: "account_credited"
        case .accountDebited: "account_debited"
        case .accountThresholdsUpdated: "account_thresholds_updated"
        case .accountHomeDomainUpdated: "account_home_domain_updated"
        case .accountFlagsUpdated: "account_flags_updated"
        case .accountInflationDestinationUpdated: "account_inflation_destination_updated"
        case .signerCreated: "signer_created"
        case .signerRemoved: "signer_removed"
        case .signerUpdated: "signer_updated"
        case .trustlineCreated: "trustline_created"
        case .trustlineRemoved: "trustline_removed"
        case .trustlineUpdated: "trustline_updated"
        case .trustlineAuthorized: "trustline_authorized"
        case .trustlineDeauthorized: "trustline_deauthorized"
        case .trustlineAuthorizedToMaintainLiabilities: "trustline_authorized_to_maintain_liabilities"
        case .trustlineFlagsUpdated: "trustline_flags_updated"
        case .trade: "trade"
        case .dataCreated: "data_created"
        case .dataRemoved: "data_removed"
        case .dataUpdated: "data_updated"
        case .sequenceBumped: "sequence_bumped"
        case .claimableBalanceCreated: "claimable_balance_created"
        case .claimableBalanceClaimantCreated: "claimable_balance_claimant_created"
        case .claimableBalanceClaimed: "claimable_balance_claimed"
        case .accountSponsorshipCreated: "account_sponsorship_created"
        case .accountSponsorshipUpdated: "account_sponsorship_updated"
        case .accountSponsorshipRemoved: "account_sponsorship_removed"
        case .trustlineSponsorshipCreated: "trustline_sponsorship_created"
        case .trustlineSponsorshipUpdated: "trustline_sponsorship_updated"
        case .trustlineSponsorshipRemoved: "trustline_sponsorship_removed"
        case .dataSponsorshipCreated: "data_sponsorship_created"
        case .dataSponsorshipUpdated: "data_sponsorship_updated"
        case .dataSponsorshipRemoved: "data_sponsorship_removed"
        case .claimableBalanceSponsorshipCreated: "claimable_balance_sponsorship_created"
        case .claimableBalanceSponsorshipUpdated: "claimable_balance_sponsorship_updated"
        case .claimableBalanceSponsorshipRemoved: "claimable_balance_sponsorship_removed"
        case .signerSponsorshipCreated: "signer_sponsorship_created"
        case .signerSponsorshipUpdated: "signer_sponsorship_updated"
        case .signerSponsorshipRemoved: "signer_sponsorship_removed"
        case .claimableBalanceClawedBack: "claimable_balance_clawed_back"
        case .liquidityPoolDeposited: "liquidity_pool_deposited"
        case .liquidityPoolWithdrew: "liquidity_pool_withdrew"
        case .liquidityPoolTrade: "liquidity_pool_trade"
        case .liquidityPoolCreated: "liquidity_pool_created"
        case .liquidityPoolRemoved: "liquidity_pool_removed"
        case .liquidityPoolRevoked: "liquidity_pool_revoked"
        }
    }
}

/// What an operation changed that its effects need and the operation alone does not say:
/// the part of stellar-core's meta Horizon reads, kept only for the operations that need it.
public enum OperationMeta: Sendable, Equatable {
    /// SetOptions: the source's signers with their weights before and after (the master key
    /// among them while its weight is above 0, as Horizon's signer summary counts it).
    case signers(before: [SignerKey: UInt8], after: [SignerKey: UInt8])
    /// ChangeTrust (the trustline) and ManageData (the entry): whether it existed before and after.
    case entry(existedBefore: Bool, existsAfter: Bool)
    /// BumpSequence: the source's sequence number before and after.
    case sequence(before: Int64, after: Int64)
    /// Offers and path payments that crossed offers: each crossed offer's price before
    /// (a trade's price; the offer may be gone after).
    case offerPrices([Int64: Price])
    /// CreateClaimableBalance: the balance made; Claim and Clawback: the balance as it was.
    case claimableBalance(ClaimableBalanceEntry)
    /// The sponsors an operation gave, moved or took away (CAP-33), beside its own meta.
    indirect case sponsorships(OperationMeta?, [SponsorshipChange])
    /// The liquidity pools an operation changed (CAP-38), each before and after, and the
    /// claimable balances a revocation redeemed pool shares into, beside its own meta.
    indirect case pools(OperationMeta?, [PoolChange], redeemed: [RedeemedShares])

    /// An account's signers as Horizon summarizes them: each signer's weight, and the master key's
    /// while it is above 0.
    public static func signerWeights(_ account: AccountEntry?) -> [SignerKey: UInt8] {
        guard let account else { return [:] }
        var weights: [SignerKey: UInt8] = [:]
        if account.thresholds.masterWeight > 0 { weights[.ed25519(account.accountID.publicKey)] = account.thresholds.masterWeight }
        for signer in account.signers { weights[signer.key] = UInt8(clamping: signer.weight) }
        return weights
    }
}

/// A change of who pays an entry's or a signer's reserve, made by one operation: an entry
/// sponsored when created, its sponsor changed or removed by RevokeSponsorship, or a sponsored
/// entry removed. Claimable balances appear only when their sponsor changes (their creation and
/// removal are their operations' own effects).
public struct SponsorshipChange: Sendable, Equatable {
    public enum Entry: Sendable, Equatable {
        case account(AccountID)
        case signer(AccountID, SignerKey)
        case trustLine(AccountID, Asset)
        case poolShareLine(AccountID, poolID: Bytes32)
        case data(AccountID, name: [UInt8])
        case claimableBalance(ClaimableBalanceID)
    }

    public var entry: Entry
    public var before: AccountID?
    public var after: AccountID?

    public init(_ entry: Entry, before: AccountID?, after: AccountID?) {
        self.entry = entry
        self.before = before
        self.after = after
    }

    /// Horizon's order: by the entry's ledger key (accounts, trustlines, data, balances), an
    /// account's signers after the account, by their `G...` keys.
    var sortKey: ([UInt8], String) {
        switch entry {
        case .account(let id): (LedgerKey.account(id).xdrBytes, "")
        case .signer(let id, let key): (LedgerKey.account(id).xdrBytes, key.strKey)
        case .trustLine(let id, let asset): (LedgerKey.trustLine(id, asset).xdrBytes, "")
        case .poolShareLine(let id, let pool): (LedgerKey.poolShareLine(id, poolID: pool).xdrBytes, "")
        case .data(let id, let name): (LedgerKey.data(id, name: name).xdrBytes, "")
        case .claimableBalance(let id): (LedgerKey.claimableBalance(id).xdrBytes, "")
        }
    }

    /// Its effect (`*_sponsorship_created|updated|removed`), on the entry's account, or on the
    /// operation's source for data and claimable balances, as Horizon writes them.
    func effect(source: MuxedAccount) -> Effect {
        let sponsors: [(String, JSONValue)]
        let change: Int
        switch (before, after) {
        case (nil, let new?): (sponsors, change) = ([("sponsor", .string(new.strKey))], 0)
        case (let old?, let new?): (sponsors, change) = ([("former_sponsor", .string(old.strKey)), ("new_sponsor", .string(new.strKey))], 1)
        case (let old?, nil): (sponsors, change) = ([("former_sponsor", .string(old.strKey))], 2)
        case (nil, nil): preconditionFailure("a sponsorship change without a sponsor")
        }
        func type(_ base: EffectType) -> EffectType { EffectType(rawValue: base.rawValue + Int32(change))! }
        switch entry {
        case .account(let id):
            return Effect(.ed25519(id), type(.accountSponsorshipCreated), sponsors)
        case .signer(let id, let key):
            return Effect(.ed25519(id), type(.signerSponsorshipCreated), [("signer", .string(key.strKey))] + sponsors)
        case .trustLine(let id, let asset):
            // Horizon's details name the asset only; its resource's `asset_type` stays empty.
            return Effect(.ed25519(id), type(.trustlineSponsorshipCreated), [("asset_type", ""), ("asset", .string(asset.description))] + sponsors)
        case .poolShareLine(let id, let pool):
            return Effect(.ed25519(id), type(.trustlineSponsorshipCreated), [("asset_type", "liquidity_pool"), ("liquidity_pool_id", .string(pool.hex))] + sponsors)
        case .data(_, let name):
            return Effect(source, type(.dataSponsorshipCreated), [("data_name", .string(String(decoding: name, as: UTF8.self)))] + sponsors)
        case .claimableBalance(let id):
            return Effect(source, type(.claimableBalanceSponsorshipCreated), [("balance_id", .string(id.hex))] + sponsors)
        }
    }
}

/// A liquidity pool before and after an operation (nil: it did not exist).
public struct PoolChange: Sendable, Equatable {
    public var before: LiquidityPoolEntry?
    public var after: LiquidityPoolEntry?

    public init(before: LiquidityPoolEntry?, after: LiquidityPoolEntry?) {
        self.before = before
        self.after = after
    }

    public var id: Bytes32 { (after ?? before)!.id }
    public var pool: LiquidityPoolEntry { (after ?? before)! }

    /// How the pool's reserves and shares moved.
    var delta: (a: Int64, b: Int64, shares: Int64) {
        ((after?.reserveA ?? 0) - (before?.reserveA ?? 0), (after?.reserveB ?? 0) - (before?.reserveB ?? 0),
         (after?.totalPoolShares ?? 0) - (before?.totalPoolShares ?? 0))
    }
}

/// A claimable balance a revoked holder's shares of a pool were redeemed into.
public struct RedeemedShares: Sendable, Equatable {
    public var pool: Bytes32
    public var balance: ClaimableBalanceEntry

    public init(pool: Bytes32, balance: ClaimableBalanceEntry) {
        self.pool = pool
        self.balance = balance
    }
}

/// One effect of an operation: the account it concerns, its type and its own fields, in the
/// order Horizon writes them.
public struct Effect: Sendable {
    public var account: AccountID
    /// The multiplexed id when the account was named by an `M...` address.
    public var muxedID: UInt64?
    public var type: EffectType
    public var details: [(String, JSONValue)]

    public init(_ account: MuxedAccount, _ type: EffectType, _ details: [(String, JSONValue)]) {
        self.account = account.accountID
        if case .muxed(let id, _) = account { muxedID = id }
        self.type = type
        self.details = details
    }
}

/// The effects Horizon derives from each operation of a successful transaction, from the
/// operation, its result and (for a few kinds) ``OperationMeta`` — pure, in Horizon's order
/// (`effects_processor.go`).
public enum OperationEffects {
    public static func of(_ body: OperationBody, source: MuxedAccount, result: OperationResult?, meta: OperationMeta?) -> [Effect] {
        // The wrappers, outermost first: sponsorships, then pools, then the operation's own meta.
        var core = meta, sponsorships: [SponsorshipChange] = [], pools: [PoolChange] = [], redeemed: [RedeemedShares] = []
        if case .sponsorships(let inner, let changes)? = core {
            sponsorships = changes
            core = inner
        }
        if case .pools(let inner, let changes, let balances)? = core {
            (pools, redeemed) = (changes, balances)
            core = inner
        }
        // Horizon's order: the operation's own, the sponsorships', then pools made or gone.
        return own(body, source: source, result: result, meta: core, pools: pools, redeemed: redeemed)
            + sponsorshipEffects(sponsorships, source: source) + poolLifecycle(pools, source: source)
    }

    /// `liquidity_pool_created` and `liquidity_pool_removed`, after everything else.
    private static func poolLifecycle(_ pools: [PoolChange], source: MuxedAccount) -> [Effect] {
        pools.sorted { $0.id.bytes.lexicographicallyPrecedes($1.id.bytes) }.compactMap { change in
            switch (change.before, change.after) {
            case (nil, let pool?): Effect(source, .liquidityPoolCreated, [("liquidity_pool", poolDetails(pool))])
            case (_?, nil): Effect(source, .liquidityPoolRemoved, [("liquidity_pool_id", .string(change.id.hex))])
            default: nil
            }
        }
    }

    /// Horizon's summary of a pool in its effects.
    static func poolDetails(_ pool: LiquidityPoolEntry) -> JSONValue {
        .object([
            ("id", .string(pool.id.hex)), ("fee_bp", .number(Int64(pool.parameters.fee))), ("type", "constant_product"),
            ("total_trustlines", .string(String(pool.trustLineCount))), ("total_shares", amount(pool.totalPoolShares)),
            ("reserves", .array([
                .object([("asset", .string(pool.parameters.assetA.description)), ("amount", amount(pool.reserveA))]),
                .object([("asset", .string(pool.parameters.assetB.description)), ("amount", amount(pool.reserveB))]),
            ])),
        ])
    }

    private static func own(
        _ body: OperationBody, source: MuxedAccount, result: OperationResult?, meta: OperationMeta?, pools: [PoolChange], redeemed: [RedeemedShares]
    ) -> [Effect] {
        switch body {
        case .createAccount(let op):
            let destination = MuxedAccount.ed25519(op.destination)
            return [
                Effect(destination, .accountCreated, [("starting_balance", amount(op.startingBalance))]),
                Effect(source, .accountDebited, assetFields(.native) + [("amount", amount(op.startingBalance))]),
                Effect(destination, .signerCreated, signerFields(weight: 1, key: .ed25519(op.destination.publicKey))),
            ]
        case .payment(let op):
            let fields = assetFields(op.asset) + [("amount", amount(op.amount))]
            return [Effect(op.destination, .accountCredited, fields), Effect(source, .accountDebited, fields)]
        case .pathPaymentStrictReceive(let op):
            guard case .inner(.pathPaymentStrictReceive(.success(let offers, let last)))? = result else { return [] }
            let sent = PathPaymentAmounts.sourceAmount(offers: offers, last: last)
            return [
                Effect(op.destination, .accountCredited, assetFields(op.destAsset) + [("amount", amount(op.destAmount))]),
                Effect(source, .accountDebited, assetFields(op.sendAsset) + [("amount", amount(sent))]),
            ] + trades(source, offers, pools: pools)
        case .pathPaymentStrictSend(let op):
            guard case .inner(.pathPaymentStrictSend(.success(let offers, let last)))? = result else { return [] }
            return [
                Effect(op.destination, .accountCredited, assetFields(op.destAsset) + [("amount", amount(last.amount))]),
                Effect(source, .accountDebited, assetFields(op.sendAsset) + [("amount", amount(op.sendAmount))]),
            ] + trades(source, offers, pools: pools)
        case .manageSellOffer, .manageBuyOffer, .createPassiveSellOffer:
            switch result {
            case .inner(.manageSellOffer(.success(let offers, _)))?, .inner(.manageBuyOffer(.success(let offers, _)))?,
                 .inner(.createPassiveSellOffer(.success(let offers, _)))?:
                return trades(source, offers, pools: pools)
            default: return []
            }
        case .setOptions(let op):
            return setOptions(op, source: source, meta: meta)
        case .changeTrust(let op):
            guard case .entry(let before, let after)? = meta else { return [] }
            let type: EffectType
            switch (before, after) {
            case (false, true): type = .trustlineCreated
            case (true, false): type = .trustlineRemoved
            case (true, true): type = .trustlineUpdated
            case (false, false): return []
            }
            let line: [(String, JSONValue)] = switch op.line {
            case .asset(let asset): assetFields(asset)
            case .poolShare(let parameters): [("asset_type", "liquidity_pool_shares"), ("liquidity_pool_id", .string(parameters.poolID.hex))]
            }
            return [Effect(source, type, line + [("limit", amount(op.limit))])]
        case .accountMerge(let destination):
            guard case .inner(.accountMerge(.success, let balance))? = result else { return [] }
            let fields = assetFields(.native) + [("amount", amount(balance ?? 0))]
            return [Effect(source, .accountDebited, fields), Effect(destination, .accountCredited, fields), Effect(source, .accountRemoved, [])]
        case .manageData(let op):
            guard case .entry(let before, let after)? = meta else { return [] }
            let name: (String, JSONValue) = ("name", .string(String(decoding: op.name, as: UTF8.self)))
            switch (before, after) {
            case (false, true): return [Effect(source, .dataCreated, [name, ("value", .string(Base64.encode(op.value ?? [])))])]
            case (true, true): return [Effect(source, .dataUpdated, [name, ("value", .string(Base64.encode(op.value ?? [])))])]
            case (true, false): return [Effect(source, .dataRemoved, [name])]
            case (false, false): return []
            }
        case .bumpSequence:
            guard case .sequence(let before, let after)? = meta, before != after else { return [] }
            return [Effect(source, .sequenceBumped, [("new_seq", .string(String(after)))])]
        case .allowTrust(let op):
            let asset = op.asset(issuer: source.accountID)
            // The deprecated effect first (trustor, asset type and code), then the flags'.
            let legacy: [(String, JSONValue)] = [("trustor", .string(op.trustor.strKey)), ("asset_type", .string(asset.typeName)), ("asset_code", .string(op.assetCode.text))]
            switch op.authorize {
            case TrustLineFlags.authorized:
                return [Effect(source, .trustlineAuthorized, legacy), trustLineFlags(source, op.trustor, asset, set: TrustLineFlags.authorized, clear: nil)]
            case TrustLineFlags.authorizedToMaintainLiabilities:
                return [
                    Effect(source, .trustlineAuthorizedToMaintainLiabilities, legacy),
                    trustLineFlags(source, op.trustor, asset, set: TrustLineFlags.authorizedToMaintainLiabilities, clear: nil),
                ]
            default:
                return [Effect(source, .trustlineDeauthorized, legacy), trustLineFlags(source, op.trustor, asset, set: nil, clear: TrustLineFlags.authFlags)]
                    + revocations(pools, redeemed, source: source)
            }
        case .setTrustLineFlags(let op):
            return [trustLineFlags(source, op.trustor, op.asset, set: op.setFlags, clear: op.clearFlags)] + revocations(pools, redeemed, source: source)
        case .clawback(let op):
            let fields = assetFields(op.asset) + [("amount", amount(op.amount))]
            return [Effect(source, .accountCredited, fields), Effect(op.from, .accountDebited, fields)]
        case .createClaimableBalance(let op):
            guard case .claimableBalance(let balance)? = meta else { return [] }
            let id: (String, JSONValue) = ("balance_id", .string(balance.id.hex))
            let common: [(String, JSONValue)] = [("asset", .string(balance.asset.description)), id, ("amount", amount(balance.amount))]
            // The claimants as the operation gave them (relative times stay relative).
            return [Effect(source, .claimableBalanceCreated, common)]
                + op.claimants.map { Effect(.ed25519($0.destination), .claimableBalanceClaimantCreated, common + [("predicate", $0.predicate.json)]) }
                + [Effect(source, .accountDebited, assetFields(balance.asset) + [("amount", amount(balance.amount))]),
                   Effect(source, .claimableBalanceSponsorshipCreated, [id, ("sponsor", .string(balance.sponsor.strKey))])]
        case .claimClaimableBalance:
            guard case .claimableBalance(let balance)? = meta else { return [] }
            let id: (String, JSONValue) = ("balance_id", .string(balance.id.hex))
            return [
                Effect(source, .claimableBalanceClaimed, [("asset", .string(balance.asset.description)), id, ("amount", amount(balance.amount))]),
                Effect(source, .accountCredited, assetFields(balance.asset) + [("amount", amount(balance.amount))]),
                Effect(source, .claimableBalanceSponsorshipRemoved, [id, ("former_sponsor", .string(balance.sponsor.strKey))]),
            ]
        case .clawbackClaimableBalance:
            guard case .claimableBalance(let balance)? = meta else { return [] }
            let id: (String, JSONValue) = ("balance_id", .string(balance.id.hex))
            return [
                Effect(source, .claimableBalanceClawedBack, [id]),
                Effect(source, .accountCredited, assetFields(balance.asset) + [("amount", amount(balance.amount))]),
                Effect(source, .claimableBalanceSponsorshipRemoved, [id, ("former_sponsor", .string(balance.sponsor.strKey))]),
            ]
        case .beginSponsoringFutureReserves, .endSponsoringFutureReserves, .revokeSponsorship:
            // Their effects are the sponsorships they change.
            return []
        case .liquidityPoolDeposit:
            guard let change = pools.first else { return [] }
            let (a, b, shares) = change.delta
            return [Effect(source, .liquidityPoolDeposited, [
                ("liquidity_pool", poolDetails(change.pool)), ("reserves_deposited", reserves(change.pool, a, b)), ("shares_received", amount(shares)),
            ])]
        case .liquidityPoolWithdraw:
            guard let change = pools.first else { return [] }
            let (a, b, shares) = change.delta
            return [Effect(source, .liquidityPoolWithdrew, [
                ("liquidity_pool", poolDetails(change.pool)), ("reserves_received", reserves(change.pool, -a, -b)), ("shares_redeemed", amount(-shares)),
            ])]
        }
    }

    /// `[{asset, amount}]` for a pool's two assets.
    private static func reserves(_ pool: LiquidityPoolEntry, _ a: Int64, _ b: Int64) -> JSONValue {
        .array([
            .object([("asset", .string(pool.parameters.assetA.description)), ("amount", amount(a))]),
            .object([("asset", .string(pool.parameters.assetB.description)), ("amount", amount(b))]),
        ])
    }

    /// A revocation's redemptions, pool by pool: each claimable balance made (with its claimant),
    /// then `liquidity_pool_revoked` naming them. (Horizon reports the first pool only.)
    static func revocations(_ pools: [PoolChange], _ redeemed: [RedeemedShares], source: MuxedAccount) -> [Effect] {
        var effects: [Effect] = []
        for change in pools.sorted(by: { $0.id.bytes.lexicographicallyPrecedes($1.id.bytes) }) {
            let balances = redeemed.filter { $0.pool == change.id }.map(\.balance)
            guard !balances.isEmpty else { continue }
            for balance in balances {
                let common: [(String, JSONValue)] = [("asset", .string(balance.asset.description)), ("balance_id", .string(balance.id.hex)), ("amount", amount(balance.amount))]
                effects.append(Effect(source, .claimableBalanceCreated, common))
                for claimant in balance.claimants {
                    effects.append(Effect(.ed25519(claimant.destination), .claimableBalanceClaimantCreated, common + [("predicate", claimant.predicate.json)]))
                }
            }
            let (a, b, shares) = change.delta
            let pool = change.pool
            var revoked: [JSONValue] = []
            for (asset, amountOut) in [(pool.parameters.assetA, -a), (pool.parameters.assetB, -b)] {
                guard let balance = balances.first(where: { $0.asset == asset }) else { continue }
                revoked.append(.object([("asset", .string(asset.description)), ("amount", amount(amountOut)), ("claimable_balance_id", .string(balance.id.hex))]))
            }
            effects.append(Effect(source, .liquidityPoolRevoked, [
                ("liquidity_pool", poolDetails(pool)), ("reserves_revoked", .array(revoked)), ("shares_revoked", amount(-shares)),
            ]))
        }
        return effects
    }

    /// The sponsorship effects, in Horizon's order.
    public static func sponsorshipEffects(_ changes: [SponsorshipChange], source: MuxedAccount) -> [Effect] {
        changes.sorted { a, b in
            let (x, y) = (a.sortKey, b.sortKey)
            return x.0 == y.0 ? x.1 < y.1 : x.0.lexicographicallyPrecedes(y.0)
        }.map { $0.effect(source: source) }
    }

    /// `trustline_flags_updated`: each flag set (true) or cleared (false), under the names of
    /// Horizon's resource.
    private static func trustLineFlags(_ source: MuxedAccount, _ trustor: AccountID, _ asset: Asset, set: UInt32?, clear: UInt32?) -> Effect {
        var fields = assetFields(asset) + [("trustor", .string(trustor.strKey))]
        for (flag, name) in [
            (TrustLineFlags.authorized, "authorized_flag"), (TrustLineFlags.authorizedToMaintainLiabilities, "authorized_to_maintain_liabilites_flag"),
            (TrustLineFlags.clawbackEnabled, "clawback_enabled_flag"),
        ] {
            if let clear, clear & flag != 0 {
                fields.append((name, false))
            } else if let set, set & flag != 0 {
                fields.append((name, true))
            }
        }
        return Effect(source, .trustlineFlagsUpdated, fields)
    }

    private static func setOptions(_ op: SetOptionsOperation, source: MuxedAccount, meta: OperationMeta?) -> [Effect] {
        var effects: [Effect] = []
        if let domain = op.homeDomain {
            effects.append(Effect(source, .accountHomeDomainUpdated, [("home_domain", .string(String(decoding: domain, as: UTF8.self)))]))
        }
        if op.lowThreshold != nil || op.mediumThreshold != nil || op.highThreshold != nil {
            // Horizon's resource writes all three, 0 for those the operation did not set.
            effects.append(Effect(source, .accountThresholdsUpdated, [
                ("low_threshold", .number(Int64(op.lowThreshold ?? 0))),
                ("med_threshold", .number(Int64(op.mediumThreshold ?? 0))),
                ("high_threshold", .number(Int64(op.highThreshold ?? 0))),
            ]))
        }
        var flags: [(String, JSONValue)] = []
        for (flag, name) in [
            (AccountFlags.authRequired, "auth_required_flag"), (AccountFlags.authRevocable, "auth_revocable_flag"),
            (AccountFlags.authImmutable, "auth_immutable_flag"), (AccountFlags.authClawbackEnabled, "auth_clawback_enabled_flag"),
        ] {
            // A flag both set and cleared reads as cleared, as Horizon's map is written set first.
            if let clear = op.clearFlags, clear & flag != 0 {
                flags.append((name, false))
            } else if let set = op.setFlags, set & flag != 0 {
                flags.append((name, true))
            }
        }
        if !flags.isEmpty { effects.append(Effect(source, .accountFlagsUpdated, flags)) }
        if let destination = op.inflationDestination {
            effects.append(Effect(source, .accountInflationDestinationUpdated, [("inflation_destination", .string(destination.strKey))]))
        }
        if case .signers(let before, let after)? = meta, before != after {
            // Removed and updated in the order of the keys before, then created in the order after.
            for key in before.keys.sorted(by: { $0.strKey < $1.strKey }) {
                guard let weight = after[key] else {
                    effects.append(Effect(source, .signerRemoved, signerFields(weight: 0, key: key)))
                    continue
                }
                if weight != before[key] { effects.append(Effect(source, .signerUpdated, signerFields(weight: weight, key: key))) }
            }
            for key in after.keys.sorted(by: { $0.strKey < $1.strKey }) where before[key] == nil {
                effects.append(Effect(source, .signerCreated, signerFields(weight: after[key]!, key: key)))
            }
        }
        return effects
    }

    /// Two trade effects per offer crossed (none for a claim of nothing): the taker's and the
    /// offer owner's, each from its own side.
    static func trades(_ buyer: MuxedAccount, _ claims: [ClaimAtom], pools: [PoolChange] = []) -> [Effect] {
        var effects: [Effect] = []
        for claim in claims {
            let seller: AccountID
            switch claim {
            case .orderBook(let id, _): seller = id
            case .v0(let key, _): seller = AccountID(publicKey: key)
            case .liquidityPool(let id, let traded):
                // The pool as the operation left it.
                guard let pool = pools.first(where: { $0.id == id })?.pool else { continue }
                effects.append(Effect(buyer, .liquidityPoolTrade, [
                    ("liquidity_pool", poolDetails(pool)),
                    ("sold", .object([("asset", .string(traded.assetSold.description)), ("amount", amount(traded.amountSold))])),
                    ("bought", .object([("asset", .string(traded.assetBought.description)), ("amount", amount(traded.amountBought))])),
                ]))
                continue
            }
            let trade = claim.amounts
            if trade.amountSold == 0 && trade.amountBought == 0 { continue }
            var buyerSeller: [(String, JSONValue)] = [("seller", .string(buyer.accountID.strKey))]
            if case .muxed(let id, _) = buyer {
                buyerSeller += [("seller_muxed", .string(buyer.strKey)), ("seller_muxed_id", .string(String(id)))]
            }
            let offerID: (String, JSONValue) = ("offer_id", .string(String(trade.offerID)))
            effects.append(Effect(buyer, .trade, [("seller", .string(seller.strKey)), offerID,
                ("sold_amount", amount(trade.amountBought))] + assetFields(trade.assetBought, prefix: "sold_")
                + [("bought_amount", amount(trade.amountSold))] + assetFields(trade.assetSold, prefix: "bought_")))
            effects.append(Effect(.ed25519(seller), .trade, buyerSeller + [offerID,
                ("sold_amount", amount(trade.amountSold))] + assetFields(trade.assetSold, prefix: "sold_")
                + [("bought_amount", amount(trade.amountBought))] + assetFields(trade.assetBought, prefix: "bought_")))
        }
        return effects
    }

    static func signerFields(weight: UInt8, key: SignerKey) -> [(String, JSONValue)] {
        [("weight", .number(Int64(weight))), ("public_key", .string(key.strKey)), ("key", "")]
    }

    static func amount(_ stroops: Int64) -> JSONValue { .string(Amount.format(stroops)) }

    /// `asset_type`, `asset_code`, `asset_issuer` with a prefix, as Horizon names them.
    public static func assetFields(_ asset: Asset, prefix: String = "") -> [(String, JSONValue)] {
        switch asset {
        case .native: [(prefix + "asset_type", "native")]
        case .alphanum4(let code, let issuer):
            [(prefix + "asset_type", "credit_alphanum4"), (prefix + "asset_code", .string(code.text)), (prefix + "asset_issuer", .string(issuer.strKey))]
        case .alphanum12(let code, let issuer):
            [(prefix + "asset_type", "credit_alphanum12"), (prefix + "asset_code", .string(code.text)), (prefix + "asset_issuer", .string(issuer.strKey))]
        }
    }
}

extension OperationEffects {
    /// The operation types whose effects are not stored but derived when read, from the
    /// operation and its result alone: the commonest (account creation, payments, merges), whose
    /// every effect concerns one of the operation's participants. Storing theirs would write
    /// two or three more rows for every payment.
    public static let derivedTypes: Set<OperationType> = [.createAccount, .payment, .accountMerge]

    /// A stored operation's effects, numbered from 1 (for ``derivedTypes``; none for a failed transaction).
    public static func records(of record: OperationRecord) -> [EffectRecord] {
        guard record.transaction.result.isSuccess else { return [] }
        let tx = record.transaction.envelope.transaction
        return of(record.operation.body, source: record.operation.sourceAccount ?? tx.sourceAccount, result: record.result, meta: nil)
            .enumerated().map { index, effect in
                EffectRecord(
                    operationID: record.id, order: Int64(index + 1), account: effect.account, muxedID: effect.muxedID, type: effect.type,
                    details: JSONValue.object(effect.details).compactBytes(), closeTime: record.transaction.closeTime)
            }
    }
}

/// The amounts Horizon reads from a path payment's result.
public enum PathPaymentAmounts {
    /// What the source of a strict-receive path payment sent: with no offer crossed the amount
    /// delivered, otherwise what the first hop's offers bought (stellar-go's `SendAmount`).
    public static func sourceAmount(offers: [ClaimAtom], last: SimplePaymentResult) -> Int64 {
        guard let first = offers.first else { return last.amount }
        let asset = first.amounts.assetBought
        return offers.reduce(0) { $1.amounts.assetBought == asset ? $0 + $1.amounts.amountBought : $0 }
    }
}

/// Where a page of effects (or trades) starts: after this operation's `order`-th record.
/// Horizon's paging token `OPID-ORDER`; a bare `OPID` stands for after all of its records.
public struct EffectCursor: Sendable, Equatable, Comparable {
    public var operationID: Int64
    public var order: Int64

    public init(operationID: Int64, order: Int64) {
        self.operationID = operationID
        self.order = order
    }

    public static func < (a: EffectCursor, b: EffectCursor) -> Bool {
        (a.operationID, a.order) < (b.operationID, b.order)
    }

    /// `OPID-ORDER` or `OPID`; nil for anything else.
    public init?(token: String) {
        let parts = token.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard let operation = Int64(parts[0]), operation >= 0 else { return nil }
        if parts.count == 2 {
            guard let order = Int64(parts[1]), order >= 0 else { return nil }
            self.init(operationID: operation, order: min(order, Int64(Int32.max)))
        } else {
            self.init(operationID: operation, order: Int64(Int32.max))
        }
    }

    public var token: String { "\(operationID)-\(order)" }
}

/// An effect as a store keeps it.
public struct EffectRecord: Sendable {
    public var operationID: Int64
    /// 1-based, within the operation.
    public var order: Int64
    public var account: AccountID
    public var muxedID: UInt64?
    public var type: EffectType
    /// The type's own fields, one compact JSON object.
    public var details: [UInt8]
    public var closeTime: UInt64

    public init(operationID: Int64, order: Int64, account: AccountID, muxedID: UInt64?, type: EffectType, details: [UInt8], closeTime: UInt64) {
        self.operationID = operationID
        self.order = order
        self.account = account
        self.muxedID = muxedID
        self.type = type
        self.details = details
        self.closeTime = closeTime
    }

    public var cursor: EffectCursor { EffectCursor(operationID: operationID, order: order) }
    /// Horizon's paging token, `OPID-ORDER`.
    public var pagingToken: String { cursor.token }
    /// Horizon's id, both numbers zero-padded (19 and 10 digits).
    public var id: String {
        let operation = String(operationID), index = String(order)
        return String(repeating: "0", count: max(0, 19 - operation.count)) + operation + "-"
            + String(repeating: "0", count: max(0, 10 - index.count)) + index
    }
}

/// Which effects to list: all, an account's, or those of a range of operation ids (a ledger's,
/// a transaction's, an operation's).
public enum EffectFilter: Sendable, Equatable {
    case all
    case account(AccountID)
    case operations(Range<Int64>)
    /// The effects of the successful operations that changed a pool (none of them derived).
    case liquidityPool(Bytes32)
}

extension LedgerState {
    /// What an operation's effects will compare with the state it leaves, read before it runs.
    enum MetaProbe {
        case signers([SignerKey: UInt8])
        case trustLine(TrustLineKey, existed: Bool)
        case poolShare(PoolShareKey, existed: Bool)
        case data(DataKey, existed: Bool)
        case sequence(Int64)
        case offers(journalFrom: Int)
        case balanceBefore(ClaimableBalanceEntry?)
        case balanceCreated(journalFrom: Int)
    }

    /// Nil for the operations whose effects need no meta (payments among them: nothing is read).
    func metaProbe(_ body: OperationBody, source: AccountID) -> MetaProbe? {
        switch body {
        case .setOptions: return .signers(OperationMeta.signerWeights(accounts[source]))
        case .changeTrust(let op):
            switch op.line {
            case .asset(let asset):
                let key = TrustLineKey(source, asset)
                return .trustLine(key, existed: trustLines.contains(key))
            case .poolShare(let parameters):
                let key = PoolShareKey(source, parameters.poolID)
                return .poolShare(key, existed: poolShares.index(forKey: key) != nil)
            }
        case .manageData(let op):
            let key = DataKey(source, op.name)
            return .data(key, existed: data.index(forKey: key) != nil)
        case .bumpSequence: return .sequence(accounts[source]?.sequenceNumber ?? 0)
        case .manageSellOffer, .manageBuyOffer, .createPassiveSellOffer, .pathPaymentStrictSend, .pathPaymentStrictReceive:
            return .offers(journalFrom: savepoint())
        case .claimClaimableBalance(let id), .clawbackClaimableBalance(let id): return .balanceBefore(claimableBalances[id])
        case .createClaimableBalance: return .balanceCreated(journalFrom: savepoint())
        default: return nil
        }
    }

    /// The sponsorships the journal's changes since `start` gave, moved or took away.
    /// - Parameter balancesMadeAndGone: whether claimable balances made or removed count (not
    ///   for the operations whose own effects say so).
    func sponsorshipChanges(since start: Int, balancesMadeAndGone: Bool = false) -> [SponsorshipChange] {
        var firstAccounts: [AccountID: AccountEntry?] = [:], firstLines: [TrustLineKey: TrustLineEntry?] = [:]
        var firstData: [DataKey: DataEntry?] = [:], firstBalances: [ClaimableBalanceID: ClaimableBalanceEntry?] = [:]
        var firstShares: [PoolShareKey: PoolShareLine?] = [:]
        for change in journal[start...] {
            switch change {
            case .account(let id, let old): if firstAccounts.index(forKey: id) == nil { firstAccounts[id] = .some(old) }
            case .trustLine(let key, let old): if firstLines.index(forKey: key) == nil { firstLines[key] = .some(old) }
            case .poolShare(let key, let old): if firstShares.index(forKey: key) == nil { firstShares[key] = .some(old) }
            case .data(let key, let old): if firstData.index(forKey: key) == nil { firstData[key] = .some(old) }
            case .claimableBalance(let id, let old): if firstBalances.index(forKey: id) == nil { firstBalances[id] = .some(old) }
            default: break
            }
        }
        var changes: [SponsorshipChange] = []
        func add(_ entry: SponsorshipChange.Entry, _ before: AccountID?, _ after: AccountID?) {
            if before != after { changes.append(SponsorshipChange(entry, before: before, after: after)) }
        }
        for (id, old) in firstAccounts {
            let new = accounts[id]
            add(.account(id), old?.sponsor, new?.sponsor)
            let oldSigners = old?.signerSponsors ?? [:], newSigners = new?.signerSponsors ?? [:]
            for key in Set(oldSigners.keys).union(newSigners.keys) { add(.signer(id, key), oldSigners[key], newSigners[key]) }
        }
        for (key, old) in firstLines { add(.trustLine(key.accountID, key.asset), old?.sponsor, trustLines[key]?.sponsor) }
        for (key, old) in firstShares { add(.poolShareLine(key.accountID, poolID: key.poolID), old?.sponsor, poolShares[key]?.sponsor) }
        for (key, old) in firstData { add(.data(key.accountID, name: key.name), old?.sponsor, data[key]?.sponsor) }
        for (id, old) in firstBalances {
            let new = claimableBalances[id]
            if (old != nil && new != nil) || balancesMadeAndGone { add(.claimableBalance(id), old?.sponsor, new?.sponsor) }
        }
        return changes
    }

    /// The pools the journal's changes since `start` touched, before and after, and the claimable
    /// balances revoked pool shares were redeemed into (matched to their pool by the id each
    /// redemption's balance gets at `place`).
    func poolChanges(since start: Int, place: OperationPlace) -> ([PoolChange], [RedeemedShares]) {
        var firstPools: [Bytes32: LiquidityPoolEntry?] = [:]
        var made: [ClaimableBalanceID] = []
        for change in journal[start...] {
            switch change {
            case .liquidityPool(let id, let old): if firstPools.index(forKey: id) == nil { firstPools[id] = .some(old) }
            case .claimableBalance(let id, nil): made.append(id)
            default: break
            }
        }
        let changes = firstPools.map { PoolChange(before: $0.value, after: liquidityPools[$0.key]) }
        var redeemed: [RedeemedShares] = []
        for change in changes {
            for asset in [change.pool.parameters.assetA, change.pool.parameters.assetB] {
                let id = ClaimableBalanceID.revoked(bySource: place.source, sequence: place.sequence, operationIndex: place.index, pool: change.id, asset: asset)
                if made.contains(id), let balance = claimableBalances[id] { redeemed.append(RedeemedShares(pool: change.id, balance: balance)) }
            }
        }
        return (changes, redeemed)
    }

    /// Nil when there is nothing to keep (an offer operation that crossed nothing).
    func meta(after probe: MetaProbe, source: AccountID) -> OperationMeta? {
        switch probe {
        case .signers(let before): return .signers(before: before, after: OperationMeta.signerWeights(accounts[source]))
        case .trustLine(let key, let existed): return .entry(existedBefore: existed, existsAfter: trustLines.contains(key))
        case .poolShare(let key, let existed): return .entry(existedBefore: existed, existsAfter: poolShares.index(forKey: key) != nil)
        case .data(let key, let existed): return .entry(existedBefore: existed, existsAfter: data.index(forKey: key) != nil)
        case .sequence(let before): return .sequence(before: before, after: accounts[source]?.sequenceNumber ?? 0)
        case .offers(let start):
            // The journal keeps each offer's value before its first change since `start`.
            var prices: [Int64: Price] = [:]
            for change in journal[start...] {
                if case .offer(let id, let old?) = change, prices.index(forKey: id) == nil { prices[id] = old.entry.price }
            }
            return prices.isEmpty ? nil : .offerPrices(prices)
        case .balanceBefore(let balance): return balance.map { .claimableBalance($0) }
        case .balanceCreated(let start):
            for change in journal[start...] {
                if case .claimableBalance(let id, nil) = change, let made = claimableBalances[id] { return .claimableBalance(made) }
            }
            return nil
        }
    }
}

extension ClaimPredicate {
    /// Horizon's JSON for a predicate: `unconditional`, `and`, `or`, `not`, `abs_before` (RFC 3339,
    /// with `abs_before_epoch`) and `rel_before` (seconds, a string).
    public var json: JSONValue {
        switch self {
        case .unconditional: return .object([("unconditional", true)])
        case .and(let predicates): return .object([("and", .array(predicates.map(\.json)))])
        case .or(let predicates): return .object([("or", .array(predicates.map(\.json)))])
        case .not(let predicate): return .object([("not", predicate?.json ?? .null)])
        case .beforeAbsoluteTime(let time): return .object([("abs_before", .string(Self.rfc3339(time))), ("abs_before_epoch", .string(String(time)))])
        case .beforeRelativeTime(let seconds): return .object([("rel_before", .string(String(seconds)))])
        }
    }

    /// Seconds since 1970 as RFC 3339 in UTC; times past year 9999 are written as its last second.
    static func rfc3339(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(min(max(seconds, 0), 253_402_300_799))).ISO8601Format()
    }
}
