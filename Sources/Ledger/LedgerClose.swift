import StellarBase

/// Why a ledger could not close. Nothing of it was kept.
public struct LedgerCloseError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A money invariant did not hold: a bug, never bad input.
        public static let invariantViolated = Code("ledger_invariant_violated")
    }

    public let code: Code
    public let message: String
    public var description: String { "\(code): \(message)" }
}

/// One transaction of a closed ledger.
public struct ClosedTransaction: Sendable {
    public let prepared: PreparedTransaction
    public let application: TransactionApplication
    /// What its operations changed that their effects need, by operation index (successful
    /// transactions only, and only the kinds that need it).
    public let meta: [Int: OperationMeta]
}

/// The entries a ledger changed, with their values after it (nil: deleted).
public struct LedgerChanges: Sendable {
    public var accounts: [AccountID: AccountEntry?] = [:]
    public var trustLines: [TrustLineKey: TrustLineEntry?] = [:]
    public var offers: [Int64: LedgerOffer?] = [:]
    public var data: [DataKey: DataEntry?] = [:]
    public var claimableBalances: [ClaimableBalanceID: ClaimableBalanceEntry?] = [:]
    public var liquidityPools: [Bytes32: LiquidityPoolEntry?] = [:]
    public var poolShares: [PoolShareKey: PoolShareLine?] = [:]
    /// The markets whose offers the ledger created, changed or removed (both before and after).
    public var offerMarkets: Set<AssetPair> = []
    /// How each issued asset's holders and balances changed (Horizon's asset statistics).
    public var assets: [Asset: AssetTally] = [:]
    /// The accounts whose signing keys changed, with their keys now (`/accounts?signer=`).
    public var signers: [AccountID: Set<AccountID>] = [:]
    /// By sponsor and account, how the number of the account's entries the sponsor pays for
    /// changed (itself, its signers, trustlines and data entries: `/accounts?sponsor=`).
    public var sponsorships: [SponsoredAccount: Int] = [:]

    /// The accounts whose own entry, trustlines or data entries the ledger changed: whose
    /// `/accounts/{id}` answer it may have changed.
    public var touchedAccounts: Set<AccountID> {
        var touched = Set(accounts.keys)
        for key in trustLines.keys { touched.insert(key.accountID) }
        for key in data.keys { touched.insert(key.accountID) }
        return touched
    }
}

/// An account and one of its sponsors.
public struct SponsoredAccount: Hashable, Sendable {
    public var sponsor: AccountID
    public var account: AccountID

    public init(sponsor: AccountID, account: AccountID) {
        self.sponsor = sponsor
        self.account = account
    }

    /// Each sponsor's count of `account`'s entries, from the sponsors of a changed entry's
    /// before and after (nil: none, or the owner pays), added to `counts`.
    static func count(_ account: AccountID, before: AccountID?, after: AccountID?, into counts: inout [SponsoredAccount: Int]) {
        guard before != after else { return }
        if let before { counts[SponsoredAccount(sponsor: before, account: account), default: 0] -= 1 }
        if let after { counts[SponsoredAccount(sponsor: after, account: account), default: 0] += 1 }
    }

    /// The same for a changed account's own sponsor and its signers'.
    static func count(_ account: AccountID, _ old: AccountEntry?, _ new: AccountEntry?, into counts: inout [SponsoredAccount: Int]) {
        count(account, before: old?.sponsor, after: new?.sponsor, into: &counts)
        let oldSigners = old?.signerSponsors ?? [:], newSigners = new?.signerSponsors ?? [:]
        for key in Set(oldSigners.keys).union(newSigners.keys) { count(account, before: oldSigners[key], after: newSigners[key], into: &counts) }
    }
}

/// A closed ledger: its header, every transaction offered to it in order, and its changes.
public struct ClosedLedger: Sendable {
    public let header: LedgerHeader
    public let transactions: [ClosedTransaction]
    public let changes: LedgerChanges
}

extension LedgerState {
    /// A new network: the root account, whose seed is SHA-256 of the passphrase, holds all
    /// 100 billion XLM, as on a local quickstart network.
    public static func genesis(network: Network, closeTime: UInt64) -> LedgerState {
        let totalCoins: Int64 = 100_000_000_000 * Amount.stroopsPerUnit
        var state = LedgerState(header: LedgerHeader(sequence: 1, closeTime: closeTime, totalCoins: totalCoins))
        let root = rootKeyPair(network: network).accountID
        state.setAccount(AccountEntry(accountID: root, balance: totalCoins, sequenceNumber: 0, lastModifiedLedger: 1))
        state.clearJournal()
        return state
    }

    /// A new network and its first closed ledger (sequence 2), whose changes hold the root
    /// account as created, so that a store given only closed ledgers keeps it (and its signer).
    public static func genesisLedger(network: Network, closeTime: UInt64) throws(LedgerCloseError) -> (LedgerState, ClosedLedger) {
        var state = genesis(network: network, closeTime: closeTime)
        let first = try state.closeLedger([], closeTime: closeTime)
        var changes = first.changes
        let root = rootKeyPair(network: network).accountID
        if changes.accounts[root] == nil, let entry = state.account(root) {
            changes.accounts[root] = .some(entry)
            changes.signers[root] = AccountSigners.keys(entry)
        }
        return (state, ClosedLedger(header: first.header, transactions: first.transactions, changes: changes))
    }

    /// The root account's key pair: its seed is SHA-256 of the network passphrase.
    public static func rootKeyPair(network: Network) -> KeyPair {
        try! KeyPair(seed: network.networkID.bytes)
    }

    /// Applies `transactions` in order in a new ledger closing at `closeTime` (never before
    /// the previous one), checks the money invariants over everything changed since
    /// the last close, and commits it in memory.
    /// - Throws: ``LedgerCloseError`` when an invariant fails; the state is then unchanged.
    public mutating func closeLedger(_ transactions: [PreparedTransaction], closeTime: UInt64) throws(LedgerCloseError) -> ClosedLedger {
        let previousCloseTime = header.closeTime
        updateHeader {
            $0.sequence += 1
            // Never backwards, but not forced forward either: Tender closes many ledgers a second
            // (group commit), and close times that ran ahead of the clock would make time
            // bounds fail (tx_too_late) for transactions built against the real time.
            $0.closeTime = max(closeTime, previousCloseTime)
        }
        var closed: [ClosedTransaction] = []
        closed.reserveCapacity(transactions.count)
        for prepared in transactions {
            var meta: [Int: OperationMeta] = [:]
            let application = apply(prepared, meta: &meta)
            closed.append(ClosedTransaction(prepared: prepared, application: application, meta: meta))
        }
        let summary = summarizeJournal()
        let changes = summary.changes(in: self)
        if let violation = checkInvariants(summary, changes) {
            rollback(to: 0)
            clearJournal()
            throw LedgerCloseError(code: .invariantViolated, message: violation)
        }
        clearJournal()
        return ClosedLedger(header: header, transactions: closed, changes: changes)
    }

    /// Checks the money invariants over what this ledger changed; a description of the first
    /// violation, or nil.
    func checkInvariants() -> String? {
        let summary = summarizeJournal()
        return checkInvariants(summary, summary.changes(in: self))
    }

    /// Every entry the journal touched, with its value before the ledger (one pass).
    struct JournalSummary {
        var firstAccounts: [AccountID: AccountEntry?] = [:]
        var firstLines: [TrustLineKey: TrustLineEntry?] = [:]
        var firstHeader: LedgerHeader?
        var offers: Set<Int64> = []
        /// The sponsors of the touched offers that had one before the ledger.
        var offerSponsors: [Int64: (seller: AccountID, sponsor: AccountID)] = [:]
        /// Markets of the offers as they were before the ledger.
        var offerMarkets: Set<AssetPair> = []
        var firstData: [DataKey: DataEntry?] = [:]
        /// The touched accounts and trustlines that had a sponsor (or sponsored signers) before.
        var sponsoredBefore: Set<AccountID> = []
        var sponsoredLinesBefore: Set<TrustLineKey> = []
        var firstBalances: [ClaimableBalanceID: ClaimableBalanceEntry?] = [:]
        var firstPools: [Bytes32: LiquidityPoolEntry?] = [:]
        var firstShares: [PoolShareKey: PoolShareLine?] = [:]

        /// The current values of the touched entries.
        func changes(in state: LedgerState) -> LedgerChanges {
            var changes = LedgerChanges()
            changes.accounts.reserveCapacity(firstAccounts.count)
            var sponsoredAccounts = sponsoredBefore
            for id in firstAccounts.keys {
                let new = state.accounts[id]
                changes.accounts[id] = .some(new)
                if new?.hasSponsors == true { sponsoredAccounts.insert(id) }
            }
            for id in sponsoredAccounts {
                SponsoredAccount.count(id, firstAccounts[id] ?? nil, changes.accounts[id] ?? nil, into: &changes.sponsorships)
            }
            for key in firstLines.keys {
                let new = state.trustLines[key]
                changes.trustLines[key] = .some(new)
                if new?.sponsor != nil || sponsoredLinesBefore.contains(key) {
                    SponsoredAccount.count(key.accountID, before: (firstLines[key] ?? nil)?.sponsor, after: new?.sponsor, into: &changes.sponsorships)
                }
            }
            changes.offerMarkets = offerMarkets
            for id in offers {
                let offer = state.offers[id]
                changes.offers[id] = .some(offer)
                if let entry = offer?.entry { changes.offerMarkets.insert(AssetPair(selling: entry.selling, buying: entry.buying)) }
            }
            for (key, old) in firstData {
                let new = state.data[key]
                changes.data[key] = .some(new)
                SponsoredAccount.count(key.accountID, before: old?.sponsor, after: new?.sponsor, into: &changes.sponsorships)
            }
            for id in firstBalances.keys { changes.claimableBalances[id] = .some(state.claimableBalances[id]) }
            for id in firstPools.keys { changes.liquidityPools[id] = .some(state.liquidityPools[id]) }
            for (key, old) in firstShares {
                let new = state.poolShares[key]
                changes.poolShares[key] = .some(new)
                SponsoredAccount.count(key.accountID, before: old?.sponsor, after: new?.sponsor, into: &changes.sponsorships)
            }
            changes.assets = AssetTally.changes(before: firstLines, after: changes.trustLines)
            if !firstBalances.isEmpty { AssetTally.add(balancesBefore: firstBalances, after: changes.claimableBalances, to: &changes.assets) }
            if !firstPools.isEmpty { AssetTally.add(poolsBefore: firstPools, after: changes.liquidityPools, to: &changes.assets) }
            changes.signers = AccountSigners.changes(before: firstAccounts, after: changes.accounts)
            if !changes.sponsorships.isEmpty { changes.sponsorships = changes.sponsorships.filter { $0.value != 0 } }
            return changes
        }
    }

    func summarizeJournal() -> JournalSummary {
        var summary = JournalSummary()
        summary.firstAccounts.reserveCapacity(journal.count / 2)
        for change in journal {
            switch change {
            case .account(let id, let old):
                if summary.firstAccounts.index(forKey: id) == nil {
                    summary.firstAccounts[id] = .some(old)
                    if old?.hasSponsors == true { summary.sponsoredBefore.insert(id) }
                }
            case .trustLine(let key, let old):
                if summary.firstLines.index(forKey: key) == nil {
                    summary.firstLines[key] = .some(old)
                    if old?.sponsor != nil { summary.sponsoredLinesBefore.insert(key) }
                }
            case .header(let old):
                if summary.firstHeader == nil { summary.firstHeader = old }
            case .offer(let id, let old):
                if summary.offers.insert(id).inserted, let old, let sponsor = old.sponsor { summary.offerSponsors[id] = (old.entry.sellerID, sponsor) }
                if let entry = old?.entry { summary.offerMarkets.insert(AssetPair(selling: entry.selling, buying: entry.buying)) }
            case .data(let key, let old):
                if summary.firstData.index(forKey: key) == nil { summary.firstData[key] = .some(old) }
            case .claimableBalance(let id, let old):
                if summary.firstBalances.index(forKey: id) == nil { summary.firstBalances[id] = .some(old) }
            case .liquidityPool(let id, let old):
                if summary.firstPools.index(forKey: id) == nil { summary.firstPools[id] = .some(old) }
            case .poolShare(let key, let old):
                if summary.firstShares.index(forKey: key) == nil { summary.firstShares[key] = .some(old) }
            case .issuance, .sponsorship: break
            }
        }
        return summary
    }

    func checkInvariants(_ summary: JournalSummary, _ changes: LedgerChanges) -> String? {
        let firstAccounts = summary.firstAccounts, firstLines = summary.firstLines, firstHeader = summary.firstHeader
        // XLM is neither created nor destroyed: balances plus the fee pool stay the same.
        var xlmDelta: Int64 = 0
        // Whether any changed entry has anything to do with sponsorship (checked below only then).
        var sponsorship = !summary.offerSponsors.isEmpty || !summary.firstData.isEmpty || !summary.firstBalances.isEmpty || !summary.firstShares.isEmpty
        for (id, old) in firstAccounts {
            let new = changes.accounts[id] ?? nil
            xlmDelta &+= (new?.balance ?? 0) &- (old?.balance ?? 0)
            if !sponsorship { sponsorship = Self.hasSponsorship(old) || Self.hasSponsorship(new) }
            if let new {
                if new.balance < 0 { return "account \(id) has a negative balance \(new.balance)" }
                if new.buyingLiabilities < 0 || new.sellingLiabilities < 0 { return "account \(id) has negative liabilities" }
                if new.buyingLiabilities > Int64.max - new.balance { return "account \(id) buying liabilities exceed what it can hold" }
                if new.sellingLiabilities > new.balance { return "account \(id) selling liabilities exceed its balance" }
                if new.numSubEntries > maxSubEntries { return "account \(id) has \(new.numSubEntries) subentries" }
            }
        }
        // What claimable balances hold counts as held: XLM in them, and each asset's supply.
        var balanceDelta: [Asset: Int64] = [:]
        for (id, old) in summary.firstBalances {
            let new = changes.claimableBalances[id] ?? nil
            if let new, new.amount <= 0 { return "claimable balance \(id) holds \(new.amount)" }
            if let old { balanceDelta[old.asset, default: 0] &-= old.amount }
            if let new { balanceDelta[new.asset, default: 0] &+= new.amount }
        }
        // And what pools hold; each pool's shares are what its trustlines hold.
        var sharesDelta: [Bytes32: Int64] = [:]
        for (id, old) in summary.firstPools {
            let new = changes.liquidityPools[id] ?? nil
            if let new {
                if new.reserveA < 0 || new.reserveB < 0 || new.totalPoolShares < 0 { return "liquidity pool \(id.hex) holds a negative amount" }
                if new.totalPoolShares == 0 && (new.reserveA != 0 || new.reserveB != 0) { return "liquidity pool \(id.hex) holds reserves without shares" }
                balanceDelta[new.parameters.assetA, default: 0] &+= new.reserveA
                balanceDelta[new.parameters.assetB, default: 0] &+= new.reserveB
                sharesDelta[id, default: 0] &+= new.totalPoolShares
            }
            if let old {
                balanceDelta[old.parameters.assetA, default: 0] &-= old.reserveA
                balanceDelta[old.parameters.assetB, default: 0] &-= old.reserveB
                sharesDelta[id, default: 0] &-= old.totalPoolShares
            }
        }
        for (key, old) in summary.firstShares {
            let new = changes.poolShares[key] ?? nil
            if let new, new.balance < 0 || new.balance > new.limit { return "pool share trustline \(key.accountID) balance \(new.balance) outside 0...\(new.limit)" }
            sharesDelta[key.poolID, default: 0] &-= (new?.balance ?? 0) &- (old?.balance ?? 0)
        }
        if let (id, delta) = sharesDelta.first(where: { $0.value != 0 }) { return "liquidity pool \(id.hex) issued \(delta) shares its trustlines do not hold" }
        xlmDelta &+= balanceDelta[.native] ?? 0
        if let firstHeader {
            xlmDelta &+= header.feePool &- firstHeader.feePool
            if header.totalCoins != firstHeader.totalCoins { return "total coins changed from \(firstHeader.totalCoins) to \(header.totalCoins)" }
        }
        if xlmDelta != 0 { return "XLM balances and fee pool changed by \(xlmDelta) stroops" }

        // Issued assets change only by what their issuers sent or received.
        var assetDelta: [Asset: Int64] = issuance
        for (asset, delta) in balanceDelta where asset != .native { assetDelta[asset, default: 0] &+= delta }
        for (key, old) in firstLines {
            let new = changes.trustLines[key] ?? nil
            assetDelta[key.asset, default: 0] &+= (new?.balance ?? 0) &- (old?.balance ?? 0)
            if !sponsorship { sponsorship = old?.sponsor != nil || new?.sponsor != nil }
            if let new {
                if new.balance < 0 || new.balance > new.limit { return "trustline \(key.accountID) \(key.asset) balance \(new.balance) outside 0...\(new.limit)" }
                if new.sellingLiabilities < 0 || new.sellingLiabilities > new.balance { return "trustline \(key.accountID) \(key.asset) selling liabilities exceed its balance" }
                if new.buyingLiabilities < 0 || new.buyingLiabilities > new.limit - new.balance { return "trustline \(key.accountID) \(key.asset) buying liabilities exceed its limit" }
            }
        }
        for (asset, delta) in assetDelta where delta != 0 {
            return "the supply of \(asset) changed by \(delta) without its issuer"
        }
        return sponsorship ? sponsorshipViolation(summary, changes) : nil
    }

    private static func hasSponsorship(_ account: AccountEntry?) -> Bool {
        guard let account else { return false }
        return account.numSponsoring != 0 || account.numSponsored != 0 || account.hasSponsors
    }

    /// Reserves are neither created nor lost (stellar-core's `SponsorshipCountIsValid`): each
    /// account's `numSponsoring` and `numSponsored` changed by what the changed entries it
    /// sponsors, or owns sponsored, count.
    private func sponsorshipViolation(_ summary: JournalSummary, _ changes: LedgerChanges) -> String? {
        var sponsoring: [AccountID: Int] = [:], sponsored: [AccountID: Int] = [:]
        func count(_ owner: AccountID?, _ sponsor: AccountID?, _ reserves: Int) {
            guard let sponsor else { return }
            sponsoring[sponsor, default: 0] += reserves
            if let owner { sponsored[owner, default: 0] += reserves }
        }
        func count(_ account: AccountEntry?, _ sign: Int) {
            guard let account else { return }
            if account.hasSponsors {
                count(account.accountID, account.sponsor, 2 * sign)
                for sponsor in account.signerSponsors.values { count(account.accountID, sponsor, sign) }
            }
            // The counts the account itself keeps, the other way round.
            if account.numSponsoring != 0 { sponsoring[account.accountID, default: 0] -= Int(account.numSponsoring) * sign }
            if account.numSponsored != 0 { sponsored[account.accountID, default: 0] -= Int(account.numSponsored) * sign }
        }
        for (id, old) in summary.firstAccounts {
            count(old, -1)
            count(changes.accounts[id] ?? nil, 1)
        }
        for (key, old) in summary.firstLines {
            count(key.accountID, old?.sponsor, -1)
            count(key.accountID, (changes.trustLines[key] ?? nil)?.sponsor, 1)
        }
        for (key, old) in summary.firstData {
            count(key.accountID, old?.sponsor, -1)
            count(key.accountID, (changes.data[key] ?? nil)?.sponsor, 1)
        }
        for (key, old) in summary.firstShares {
            count(key.accountID, old?.sponsor, -2)
            count(key.accountID, (changes.poolShares[key] ?? nil)?.sponsor, 2)
        }
        for id in summary.offers {
            let new = changes.offers[id] ?? nil
            if let old = summary.offerSponsors[id] { count(old.seller, old.sponsor, -1) }
            if let new { count(new.entry.sellerID, new.sponsor, 1) }
        }
        for (id, old) in summary.firstBalances {
            if let old { count(nil, old.sponsor, -old.claimants.count) }
            if let new = changes.claimableBalances[id] ?? nil { count(nil, new.sponsor, new.claimants.count) }
        }
        if let (id, delta) = sponsoring.first(where: { $0.value != 0 }) { return "account \(id) sponsors \(-delta) reserves more than the entries it pays for" }
        if let (id, delta) = sponsored.first(where: { $0.value != 0 }) { return "account \(id) counts \(-delta) sponsored reserves more than others pay" }
        return nil
    }
}
