import StellarBase

/// The whole ledger in memory: header, accounts, trustlines, offers and data, with an undo
/// journal so that an operation, a transaction or a whole ledger can be rolled back.
///
/// Every change goes through the setters here, which record the previous value; callers take a
/// ``savepoint()`` and either keep going or ``rollback(to:)``.
public struct LedgerState: Sendable {
    public private(set) var header: LedgerHeader
    public private(set) var accounts = EntryTable<AccountEntry>()
    public private(set) var trustLines = EntryTable<TrustLineEntry>()
    /// How many trustlines each issued asset has: with few assets, an account's trustlines are
    /// found by asking for each asset in turn (``accountRecord(_:assetLimit:)``).
    public private(set) var trustedAssets: [Asset: Int] = [:]
    public private(set) var offers: [Int64: LedgerOffer] = [:]
    public private(set) var data: [DataKey: DataEntry] = [:]
    public private(set) var claimableBalances: [ClaimableBalanceID: ClaimableBalanceEntry] = [:]
    public private(set) var liquidityPools: [Bytes32: LiquidityPoolEntry] = [:]
    public private(set) var poolShares: [PoolShareKey: PoolShareLine] = [:]
    private(set) var orderBook = OrderBook()
    /// Per issued asset, what its issuer has sent (negative) and received (positive) since the
    /// ledger began, wrapping on overflow: the supply invariant compares it with the trustlines.
    private(set) var issuance: [Asset: Int64] = [:]
    /// Within the transaction being applied: who pays the reserves of what each account
    /// creates (sponsored → sponsor), from BeginSponsoringFutureReserves to its End (CAP-33).
    private(set) var sponsorships: [AccountID: AccountID] = [:]
    /// How many times a sponsor's count changed, ever (not undone by a rollback): an operation
    /// that left it as it was changed no sponsorship, so its effects need no look for them.
    private(set) var sponsoringChanges = 0
    /// The same for liquidity pools: changes ever made to any.
    private(set) var poolChangeCount = 0

    enum Change: Sendable {
        case header(LedgerHeader)
        case account(AccountID, AccountEntry?)
        case trustLine(TrustLineKey, TrustLineEntry?)
        case offer(Int64, LedgerOffer?)
        case data(DataKey, DataEntry?)
        case issuance(Asset, Int64?)
        case claimableBalance(ClaimableBalanceID, ClaimableBalanceEntry?)
        case sponsorship(AccountID, AccountID?)
        case liquidityPool(Bytes32, LiquidityPoolEntry?)
        case poolShare(PoolShareKey, PoolShareLine?)
    }

    /// Previous values, oldest first, since the journal was last cleared.
    private(set) var journal: [Change] = []

    public init(header: LedgerHeader) {
        self.header = header
    }

    // MARK: Journal

    /// A point to roll back to.
    public func savepoint() -> Int { journal.count }

    /// Undoes every change made since `savepoint`.
    public mutating func rollback(to savepoint: Int) {
        while journal.count > savepoint {
            switch journal.removeLast() {
            case .header(let old): header = old
            case .account(let id, let old): accounts[id] = old
            case .trustLine(let key, let old):
                let existed = trustLines.contains(key)
                trustLines[key] = old
                countTrustLine(key.asset, (old == nil ? 0 : 1) - (existed ? 1 : 0))
            case .offer(let id, let old): replaceOffer(id, with: old)
            case .data(let key, let old): data[key] = old
            case .issuance(let asset, let old): issuance[asset] = old
            case .claimableBalance(let id, let old): claimableBalances[id] = old
            case .sponsorship(let sponsored, let old): sponsorships[sponsored] = old
            case .liquidityPool(let id, let old): liquidityPools[id] = old
            case .poolShare(let key, let old): poolShares[key] = old
            }
        }
    }

    /// Forgets the journal and the issuance record once a ledger is committed, keeping the
    /// journal's storage for the next ledger.
    mutating func clearJournal() {
        journal.removeAll(keepingCapacity: true)
        issuance = [:]
    }

    /// Records that an issuer's balance of its own asset changed by `delta`.
    mutating func recordIssuance(_ asset: Asset, _ delta: Int64) {
        journal.append(.issuance(asset, issuance[asset]))
        issuance[asset, default: 0] &+= delta
    }

    // MARK: Restoring from storage (no journal, modification ledgers kept)

    /// Room for this many accounts and trustlines, so that a large state read from storage
    /// allocates its two largest tables once instead of growing them by doubling.
    public mutating func reserveCapacity(accounts count: Int, trustLines lines: Int) {
        accounts.reserveCapacity(count)
        trustLines.reserveCapacity(lines)
    }

    mutating func restore(account: AccountEntry) { accounts.update(account) }
    mutating func restore(trustLine: TrustLineEntry) {
        if trustLines.update(trustLine) == nil { countTrustLine(trustLine.asset, 1) }
    }

    /// Trustlines laid end to end in `bytes` (see ``restore(_:rows:ends:)``).
    mutating func restore(trustLines bytes: [UInt8], ends: [Int]) throws {
        // The assets of this batch's new trustlines and how many each: filed when the batch
        // ends, or fails (the count then matches the lines filed).
        var tally: [(asset: Asset, count: Int)] = []
        defer { for (asset, count) in tally { countTrustLine(asset, count) } }
        try Self.eachRow(ends) { range in
            var line = try TrustLineEntry(xdrBytes: bytes, in: range)
            if let index = tally.firstIndex(where: { $0.asset == line.asset }) {
                line.asset = tally[index].asset
                if trustLines.update(line) == nil { tally[index].count += 1 }
            } else if tally.count < 8 {
                tally.append((line.asset, trustLines.update(line) == nil ? 1 : 0))
            } else {
                restore(trustLine: line)
            }
        }
    }

    mutating func restore(offer: LedgerOffer) { replaceOffer(offer.entry.offerID, with: offer) }
    mutating func restore(data item: DataEntry) { data[DataKey(item.accountID, item.name)] = item }
    mutating func restore(claimableBalance entry: ClaimableBalanceEntry) { claimableBalances[entry.id] = entry }
    mutating func restore(liquidityPool entry: LiquidityPoolEntry) { liquidityPools[entry.id] = entry }
    mutating func restore(poolShare line: PoolShareLine) { poolShares[line.key] = line }

    // MARK: Header

    public mutating func updateHeader(_ update: (inout LedgerHeader) -> Void) {
        journal.append(.header(header))
        update(&header)
    }

    // MARK: Accounts

    public func account(_ id: AccountID) -> AccountEntry? { accounts[id] }

    public mutating func setAccount(_ entry: AccountEntry) {
        var entry = entry
        entry.lastModifiedLedger = header.sequence
        journal.append(.account(entry.accountID, accounts.update(entry)))
    }

    /// Changes an existing account in place when `change` returns true: one lookup and one
    /// copy (the old value, into the journal) instead of a read, a write and their copies. The
    /// hot path of every payment. `change` must leave the entry as it was when it returns false.
    /// - Returns: false when there is no such account or `change` declined.
    @inline(__always)
    mutating func modifyAccount(_ id: AccountID, _ change: (inout AccountEntry) -> Bool) -> Bool {
        let sequence = header.sequence
        guard let old = accounts.modify(id, { entry in
            guard change(&entry) else { return false }
            entry.lastModifiedLedger = sequence
            return true
        }) else { return false }
        journal.append(.account(id, old))
        return true
    }

    public mutating func removeAccount(_ id: AccountID) {
        journal.append(.account(id, accounts.remove(id)))
    }

    // MARK: Trustlines

    public func trustLine(_ account: AccountID, _ asset: Asset) -> TrustLineEntry? {
        trustLines[TrustLineKey(account, asset)]
    }

    public mutating func setTrustLine(_ entry: TrustLineEntry) {
        var entry = entry
        entry.lastModifiedLedger = header.sequence
        let old = trustLines.update(entry)
        if old == nil { countTrustLine(entry.asset, 1) }
        journal.append(.trustLine(entry.key, old))
    }

    public mutating func removeTrustLine(_ key: TrustLineKey) {
        let old = trustLines.remove(key)
        if old != nil { countTrustLine(key.asset, -1) }
        journal.append(.trustLine(key, old))
    }

    private mutating func countTrustLine(_ asset: Asset, _ delta: Int) {
        guard delta != 0 else { return }
        let count = trustedAssets[asset, default: 0] + delta
        trustedAssets[asset] = count == 0 ? nil : count
    }

    /// An account as `GET /accounts/{id}` shows it, from memory, when memory can give all of it:
    /// its subentries are only trustlines and signers (offers, data entries and pool shares
    /// cannot be found by key), and there are at most `assetLimit` issued assets to look
    /// through. Nil otherwise, or when there is no such account.
    public func accountRecord(_ id: AccountID, assetLimit: Int = 64) -> AccountRecord? {
        guard let account = accounts[id] else { return nil }
        let others = Int(account.numSubEntries) - account.signers.count
        if others == 0 { return AccountRecord(account: account, trustLines: [], data: []) }
        guard trustedAssets.count <= assetLimit else { return nil }
        var lines: [TrustLineEntry] = []
        // An account holds no more trustlines than its other subentries: once that many are
        // found, the rest of the assets need no lookup (each one a miss in a table of millions).
        for asset in trustedAssets.keys where lines.count < others {
            if let line = trustLines[TrustLineKey(id, asset)] { lines.append(line) }
        }
        return lines.count == others ? AccountRecord(account: account, trustLines: lines, data: []) : nil
    }

    // MARK: Offers

    public func offer(_ id: Int64) -> OfferEntry? { offers[id]?.entry }

    /// Sets an offer, keeping the sponsor it has (or `sponsor` for one being made).
    public mutating func setOffer(_ entry: OfferEntry, sponsor: AccountID? = nil) {
        let old = offers[entry.offerID]
        journal.append(.offer(entry.offerID, old))
        replaceOffer(entry.offerID, with: LedgerOffer(entry, sponsor: old?.sponsor ?? sponsor, lastModifiedLedger: header.sequence))
    }

    /// Changes who pays an offer's reserve.
    mutating func setOfferSponsor(_ id: Int64, _ sponsor: AccountID?) {
        guard var offer = offers[id] else { return }
        journal.append(.offer(id, offer))
        offer.sponsor = sponsor
        offer.lastModifiedLedger = header.sequence
        offers[id] = offer
    }

    public mutating func removeOffer(_ id: Int64) {
        journal.append(.offer(id, offers[id]))
        replaceOffer(id, with: nil)
    }

    /// Keeps the order book index in step with the offers.
    private mutating func replaceOffer(_ id: Int64, with new: LedgerOffer?) {
        let old = offers[id]
        if let old, let new, old.entry.price == new.entry.price, old.entry.selling == new.entry.selling,
           old.entry.buying == new.entry.buying {
            offers[id] = new
            return
        }
        if let old { orderBook.remove(old.entry) }
        offers[id] = new
        if let new { orderBook.insert(new.entry) }
    }

    /// The best offer selling `selling` for `buying`.
    public func bestOffer(selling: Asset, buying: Asset) -> OfferEntry? {
        orderBook.best(AssetPair(selling: selling, buying: buying)).flatMap { offers[$0]?.entry }
    }

    /// The offers selling `selling` for `buying`, best first.
    public func offers(selling: Asset, buying: Asset) -> [OfferEntry] {
        orderBook.offerIDs(AssetPair(selling: selling, buying: buying)).compactMap { offers[$0]?.entry }
    }

    /// Every market with at least one offer.
    public var markets: [AssetPair] { Array(orderBook.markets) }

    // MARK: Data

    public func data(_ account: AccountID, _ name: [UInt8]) -> DataEntry? { data[DataKey(account, name)] }

    public mutating func setData(_ entry: DataEntry) {
        var entry = entry
        entry.lastModifiedLedger = header.sequence
        let key = DataKey(entry.accountID, entry.name)
        journal.append(.data(key, data.updateValue(entry, forKey: key)))
    }

    public mutating func removeData(_ key: DataKey) {
        journal.append(.data(key, data.removeValue(forKey: key)))
    }

    // MARK: Claimable balances

    public mutating func setClaimableBalance(_ entry: ClaimableBalanceEntry) {
        var entry = entry
        entry.lastModifiedLedger = header.sequence
        journal.append(.claimableBalance(entry.id, claimableBalances.updateValue(entry, forKey: entry.id)))
    }

    public mutating func removeClaimableBalance(_ id: ClaimableBalanceID) {
        journal.append(.claimableBalance(id, claimableBalances.removeValue(forKey: id)))
    }

    // MARK: Liquidity pools

    public mutating func setLiquidityPool(_ entry: LiquidityPoolEntry) {
        poolChangeCount &+= 1
        var entry = entry
        entry.lastModifiedLedger = header.sequence
        journal.append(.liquidityPool(entry.id, liquidityPools.updateValue(entry, forKey: entry.id)))
    }

    public mutating func removeLiquidityPool(_ id: Bytes32) {
        poolChangeCount &+= 1
        journal.append(.liquidityPool(id, liquidityPools.removeValue(forKey: id)))
    }

    public mutating func setPoolShare(_ line: PoolShareLine) {
        var line = line
        line.lastModifiedLedger = header.sequence
        journal.append(.poolShare(line.key, poolShares.updateValue(line, forKey: line.key)))
    }

    public mutating func removePoolShare(_ key: PoolShareKey) {
        journal.append(.poolShare(key, poolShares.removeValue(forKey: key)))
    }

    // MARK: Sponsorships of future reserves (within one transaction)

    mutating func noteSponsoringChange() { sponsoringChanges &+= 1 }

    /// `sponsor` pays for what `sponsored` creates from now on; nil ends it.
    mutating func setSponsorship(of sponsored: AccountID, by sponsor: AccountID?) {
        journal.append(.sponsorship(sponsored, sponsorships[sponsored]))
        sponsorships[sponsored] = sponsor
    }
}
