import StellarBase

/// How far a trustline's holder may use it, as Horizon's asset statistics count holders:
/// authorized, authorized only to maintain liabilities, or not authorized.
public enum TrustLineAuthorization: Int, CaseIterable, Sendable {
    case authorized = 0
    case authorizedToMaintainLiabilities = 1
    case unauthorized = 2

    public init(flags: UInt32) {
        if flags & TrustLineFlags.authorized != 0 {
            self = .authorized
        } else if flags & TrustLineFlags.authorizedToMaintainLiabilities != 0 {
            self = .authorizedToMaintainLiabilities
        } else {
            self = .unauthorized
        }
    }
}

/// An issued asset's holders and what they hold, by authorization: Horizon's `accounts` and
/// `balances` of `/assets`. As a ledger's change it is a difference (counts may be negative);
/// as a store keeps it, a total. Balances are 128-bit: the trustlines of one asset can
/// together hold more than an `Int64`.
public struct AssetTally: Sendable, Equatable {
    /// Trustlines, by ``TrustLineAuthorization`` raw value.
    public var accounts: [Int64]
    /// Stroops held, by ``TrustLineAuthorization`` raw value.
    public var balances: [Int128]
    /// Claimable balances of the asset, and what they hold (`num_claimable_balances`,
    /// `claimable_balances_amount`).
    public var claimableBalances: Int64
    public var claimableAmount: Int128
    /// Liquidity pools of the asset, and what their reserves hold of it (`num_liquidity_pools`,
    /// `liquidity_pools_amount`).
    public var liquidityPools: Int64
    public var liquidityPoolsAmount: Int128

    public init(
        accounts: [Int64] = [0, 0, 0], balances: [Int128] = [0, 0, 0], claimableBalances: Int64 = 0, claimableAmount: Int128 = 0,
        liquidityPools: Int64 = 0, liquidityPoolsAmount: Int128 = 0
    ) {
        precondition(accounts.count == 3 && balances.count == 3, "one count and one balance per authorization")
        self.accounts = accounts
        self.balances = balances
        self.claimableBalances = claimableBalances
        self.claimableAmount = claimableAmount
        self.liquidityPools = liquidityPools
        self.liquidityPoolsAmount = liquidityPoolsAmount
    }

    public subscript(accounts authorization: TrustLineAuthorization) -> Int64 { accounts[authorization.rawValue] }
    public subscript(balance authorization: TrustLineAuthorization) -> Int128 { balances[authorization.rawValue] }

    /// Every trustline of the asset, summed.
    public var totalAccounts: Int64 { accounts.reduce(0, +) }

    /// Nothing counted: no holders and nothing held.
    public var isZero: Bool {
        accounts.allSatisfy { $0 == 0 } && balances.allSatisfy { $0 == 0 } && claimableBalances == 0 && claimableAmount == 0
            && liquidityPools == 0 && liquidityPoolsAmount == 0
    }

    /// Whether a store keeps the asset: some trustline or claimable balance holds it.
    public var isHeld: Bool { totalAccounts != 0 || claimableBalances != 0 || liquidityPools != 0 }

    /// Counts `line` once (`sign` 1) or takes it away (`sign` -1).
    public mutating func count(_ line: TrustLineEntry, sign: Int64) {
        let index = TrustLineAuthorization(flags: line.flags).rawValue
        accounts[index] += sign
        balances[index] += Int128(sign) * Int128(line.balance)
    }

    public static func + (lhs: AssetTally, rhs: AssetTally) -> AssetTally {
        AssetTally(
            accounts: zip(lhs.accounts, rhs.accounts).map(+), balances: zip(lhs.balances, rhs.balances).map(+),
            claimableBalances: lhs.claimableBalances + rhs.claimableBalances, claimableAmount: lhs.claimableAmount + rhs.claimableAmount,
            liquidityPools: lhs.liquidityPools + rhs.liquidityPools, liquidityPoolsAmount: lhs.liquidityPoolsAmount + rhs.liquidityPoolsAmount)
    }

    /// What the pools changed between `before` and after do to each issued asset's tally, added to `tallies`.
    public static func add(
        poolsBefore before: [Bytes32: LiquidityPoolEntry?], after: [Bytes32: LiquidityPoolEntry?], to tallies: inout [Asset: AssetTally]
    ) {
        func count(_ pool: LiquidityPoolEntry, _ sign: Int64) {
            for (asset, reserve) in [(pool.parameters.assetA, pool.reserveA), (pool.parameters.assetB, pool.reserveB)] where asset != .native {
                tallies[asset, default: AssetTally()].liquidityPools += sign
                tallies[asset, default: AssetTally()].liquidityPoolsAmount += Int128(sign) * Int128(reserve)
            }
        }
        for (id, old) in before {
            if let old { count(old, -1) }
            if let new = after[id] ?? nil { count(new, 1) }
        }
        tallies = tallies.filter { !$0.value.isZero }
    }

    /// What the claimable balances changed between `before` and after do to each issued asset's
    /// tally, added to `tallies`.
    public static func add(
        balancesBefore before: [ClaimableBalanceID: ClaimableBalanceEntry?], after: [ClaimableBalanceID: ClaimableBalanceEntry?], to tallies: inout [Asset: AssetTally]
    ) {
        for (id, old) in before {
            let new = after[id] ?? nil
            if let old, old.asset != .native {
                tallies[old.asset, default: AssetTally()].claimableBalances -= 1
                tallies[old.asset, default: AssetTally()].claimableAmount -= Int128(old.amount)
            }
            if let new, new.asset != .native {
                tallies[new.asset, default: AssetTally()].claimableBalances += 1
                tallies[new.asset, default: AssetTally()].claimableAmount += Int128(new.amount)
            }
        }
        tallies = tallies.filter { !$0.value.isZero }
    }

    /// What the trustlines changed between `before` and after (`changes`) do to each asset's
    /// tally; assets whose tally does not change are left out.
    public static func changes(before: [TrustLineKey: TrustLineEntry?], after: [TrustLineKey: TrustLineEntry?]) -> [Asset: AssetTally] {
        var tallies: [Asset: AssetTally] = [:]
        for (key, old) in before {
            let new = after[key] ?? nil
            if let old, let new, old.balance == new.balance,
               TrustLineAuthorization(flags: old.flags) == TrustLineAuthorization(flags: new.flags) {
                continue
            }
            if let old { tallies[key.asset, default: AssetTally()].count(old, sign: -1) }
            if let new { tallies[key.asset, default: AssetTally()].count(new, sign: 1) }
        }
        return tallies.filter { !$0.value.isZero }
    }
}

extension Amount {
    /// Formats a 128-bit number of stroops with 7 decimals, as Horizon writes an asset's totals.
    public static func format(_ stroops: Int128) -> String {
        if let small = Int64(exactly: stroops) { return format(small) }
        let magnitude = stroops.magnitude
        let whole = magnitude / UInt128(stroopsPerUnit)
        let fraction = String(magnitude % UInt128(stroopsPerUnit))
        return (stroops < 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: 7 - fraction.count) + fraction
    }
}

/// The keys that can sign for each account whose signers changed in a ledger (its ed25519
/// signers of weight above 0), for Horizon's `/accounts?signer=`; empty for an account removed.
/// An account's own master key is not among them: it signs for its account while its weight is
/// above 0, which the account's entry tells (``page(stored:own:_:)`` adds it), so a store keeps
/// no row per account for it.
public enum AccountSigners {
    public static func keys(_ entry: AccountEntry?) -> Set<AccountID> {
        guard let entry else { return [] }
        var keys: Set<AccountID> = []
        for signer in entry.signers where signer.weight > 0 {
            if case .ed25519(let key) = signer.key { keys.insert(AccountID(publicKey: key)) }
        }
        return keys
    }

    /// A page of the accounts a key signs for, in key order (Horizon's): `stored`, the accounts
    /// naming it among their signers (read with the page's bound, order and limit), and `own`,
    /// the key's own account (nil when there is none), when its master key's weight is above 0
    /// and it lies past the page's bound.
    public static func page(stored: [AccountRecord], own: AccountRecord?, _ page: KeyedPage<AccountID>) -> [AccountRecord] {
        guard let own, own.account.thresholds.masterWeight > 0 else { return stored }
        let key = own.account.accountID
        guard !stored.contains(where: { $0.account.accountID == key }) else { return stored }
        // Whether `a` comes before `b` in the page's order.
        let precedes = { (a: AccountID, b: AccountID) in
            page.descending ? b.publicKey.bytes.lexicographicallyPrecedes(a.publicKey.bytes) : a.publicKey.bytes.lexicographicallyPrecedes(b.publicKey.bytes)
        }
        if let after = page.after, !precedes(after, key) { return stored }
        var merged = stored
        merged.insert(own, at: stored.firstIndex(where: { precedes(key, $0.account.accountID) }) ?? stored.count)
        return Array(merged.prefix(page.limit))
    }

    /// The accounts whose signing keys differ after the ledger, with their keys now.
    public static func changes(before: [AccountID: AccountEntry?], after: [AccountID: AccountEntry?]) -> [AccountID: Set<AccountID>] {
        var changes: [AccountID: Set<AccountID>] = [:]
        for (id, old) in before {
            let new = keys(after[id] ?? nil)
            if keys(old) != new { changes[id] = new }
        }
        return changes
    }
}
