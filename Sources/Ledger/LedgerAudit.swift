import Crypto
import StellarBase

extension LedgerState {
    /// Checks the whole state, not only what the last ledger changed: totals per asset,
    /// subentry counts, and liabilities against the offers. A description of the first
    /// problem, or nil. It reads every entry, so it is for tests and audits, not for each close.
    public func verifyAllInvariants() -> String? {
        let inBalances = claimableBalances.values.filter { $0.asset == .native }.reduce(Int64(0)) { $0 &+ $1.amount }
        let inPools = liquidityPools.values.reduce(Int64(0)) { total, pool in
            total &+ (pool.parameters.assetA == .native ? pool.reserveA : 0) &+ (pool.parameters.assetB == .native ? pool.reserveB : 0)
        }
        let totalXLM = accounts.values.reduce(Int64(0)) { $0 &+ $1.balance } &+ header.feePool &+ inBalances &+ inPools
        if totalXLM != header.totalCoins { return "XLM total \(totalXLM) differs from total coins \(header.totalCoins)" }
        // Reserves each account pays for others' entries, and others pay for its own.
        var sponsoring: [AccountID: UInt32] = [:], sponsored: [AccountID: UInt32] = [:]
        func sponsor(_ owner: AccountID?, by sponsor: AccountID?, _ count: UInt32) {
            guard let sponsor else { return }
            sponsoring[sponsor, default: 0] += count
            if let owner { sponsored[owner, default: 0] += count }
        }
        for balance in claimableBalances.values { sponsor(nil, by: balance.sponsor, UInt32(balance.claimants.count)) }
        var subEntries: [AccountID: UInt32] = [:]
        var buying: [Holding.Key: Int64] = [:], selling: [Holding.Key: Int64] = [:]
        var perAsset: [Asset: Int] = [:]
        for line in trustLines.values {
            perAsset[line.asset, default: 0] += 1
            subEntries[line.accountID, default: 0] += 1
            sponsor(line.accountID, by: line.sponsor, 1)
            if line.balance < 0 || line.balance > line.limit { return "trustline balance out of range" }
        }
        if perAsset != trustedAssets { return "trustlines per asset \(trustedAssets.count) assets counted, \(perAsset.count) held" }
        for item in data.values {
            subEntries[item.accountID, default: 0] += 1
            sponsor(item.accountID, by: item.sponsor, 1)
        }
        // Pool shares: two reserves a trustline; each pool's shares and trustlines counted; each
        // asset trustline used by as many of its holder's pool-share trustlines as it says.
        var shares: [Bytes32: (total: Int64, lines: Int64)] = [:]
        var uses: [TrustLineKey: Int32] = [:]
        for line in poolShares.values {
            subEntries[line.accountID, default: 0] += 2
            sponsor(line.accountID, by: line.sponsor, 2)
            if line.balance < 0 || line.balance > line.limit { return "pool share trustline balance out of range" }
            guard let pool = liquidityPools[line.poolID] else { return "a pool-share trustline to no pool" }
            shares[line.poolID, default: (0, 0)].total += line.balance
            shares[line.poolID, default: (0, 0)].lines += 1
            for asset in [pool.parameters.assetA, pool.parameters.assetB] where asset != .native && asset.issuer != line.accountID {
                uses[TrustLineKey(line.accountID, asset), default: 0] += 1
            }
        }
        for pool in liquidityPools.values {
            let held = shares[pool.id] ?? (0, 0)
            if held.total != pool.totalPoolShares || held.lines != pool.trustLineCount { return "liquidity pool \(pool.id.hex) counts shares or trustlines its holders do not" }
            if pool.reserveA < 0 || pool.reserveB < 0 { return "liquidity pool \(pool.id.hex) holds a negative amount" }
        }
        for line in trustLines.values where line.liquidityPoolUseCount != uses[line.key] ?? 0 {
            return "trustline \(line.accountID) \(line.asset) counts \(line.liquidityPoolUseCount) pools, its holder's shares \(uses[line.key] ?? 0)"
        }
        for account in accounts.values {
            sponsor(account.accountID, by: account.sponsor, 2)
            for (key, payer) in account.signerSponsors {
                if !account.signers.contains(where: { $0.key == key }) { return "account \(account.accountID) has a sponsor for a signer it does not have" }
                sponsor(account.accountID, by: payer, 1)
            }
        }
        for offer in offers.values {
            sponsor(offer.entry.sellerID, by: offer.sponsor, 1)
        }
        for offer in offers.values.map(\.entry) {
            subEntries[offer.sellerID, default: 0] += 1
            if offer.amount <= 0 { return "offer \(offer.offerID) has amount \(offer.amount)" }
            let (sellingAmount, buyingAmount) = Exchange.liabilities(price: offer.price, amount: offer.amount)
            selling[Holding.Key(offer.sellerID, offer.selling), default: 0] += sellingAmount
            buying[Holding.Key(offer.sellerID, offer.buying), default: 0] += buyingAmount
        }
        for account in accounts.values {
            let expected = (subEntries[account.accountID] ?? 0) + UInt32(account.signers.count)
            if account.numSubEntries != expected { return "account \(account.accountID) counts \(account.numSubEntries) subentries, has \(expected)" }
            let key = Holding.Key(account.accountID, .native)
            if account.buyingLiabilities != buying[key] ?? 0 || account.sellingLiabilities != selling[key] ?? 0 {
                return "account \(account.accountID) liabilities do not match its offers"
            }
            if account.balance < 0 { return "account \(account.accountID) has a negative balance" }
            if account.numSponsoring != sponsoring[account.accountID] ?? 0 { return "account \(account.accountID) sponsors \(account.numSponsoring) reserves, the entries it sponsors need \(sponsoring[account.accountID] ?? 0)" }
            if account.numSponsored != sponsored[account.accountID] ?? 0 { return "account \(account.accountID) counts \(account.numSponsored) sponsored reserves, others pay \(sponsored[account.accountID] ?? 0)" }
        }
        for line in trustLines.values {
            let key = Holding.Key(line.accountID, line.asset)
            if line.buyingLiabilities != buying[key] ?? 0 || line.sellingLiabilities != selling[key] ?? 0 {
                return "trustline \(line.accountID) \(line.asset) liabilities do not match its offers"
            }
        }
        var indexed = 0
        for pair in markets { indexed += offers(selling: pair.selling, buying: pair.buying).count }
        if indexed != offers.count { return "the order book indexes \(indexed) of \(offers.count) offers" }
        return nil
    }

    /// A SHA-256 over every entry in a fixed order, to compare two states.
    public func stateHash() -> Bytes32 {
        var hasher = SHA256()
        func add(_ writer: XDRWriter) { hasher.update(data: writer.bytes) }
        var writer = XDRWriter()
        writer.write(header.sequence); writer.write(header.closeTime); writer.write(header.feePool); writer.write(header.idPool)
        add(writer)
        for account in accounts.values.sorted(by: { $0.accountID < $1.accountID }) {
            var writer = XDRWriter()
            account.accountID.encode(to: &writer)
            writer.write(account.balance); writer.write(account.sequenceNumber); writer.write(account.numSubEntries)
            writer.write(account.flags); writer.writeVariableOpaque(account.homeDomain)
            writer.append([account.thresholds.masterWeight, account.thresholds.low, account.thresholds.medium, account.thresholds.high])
            writer.writeArray(account.signers)
            writer.write(account.buyingLiabilities); writer.write(account.sellingLiabilities)
            writer.write(account.numSponsoring); writer.write(account.numSponsored); writer.writeOptional(account.sponsor)
            for (key, sponsor) in account.signerSponsors.sorted(by: { $0.key.strKey < $1.key.strKey }) { key.encode(to: &writer); sponsor.encode(to: &writer) }
            add(writer)
        }
        for line in trustLines.values.sorted(by: { ($0.accountID, Hex.encode($0.asset.xdrBytes)) < ($1.accountID, Hex.encode($1.asset.xdrBytes)) }) {
            var writer = XDRWriter()
            line.accountID.encode(to: &writer); line.asset.encode(to: &writer)
            writer.write(line.balance); writer.write(line.limit); writer.write(line.flags)
            writer.write(line.buyingLiabilities); writer.write(line.sellingLiabilities); writer.writeOptional(line.sponsor); writer.write(line.liquidityPoolUseCount)
            add(writer)
        }
        for offer in offers.values.map(\.entry).sorted(by: { $0.offerID < $1.offerID }) {
            add({ var writer = XDRWriter(); offer.encode(to: &writer); writer.writeOptional(offers[offer.offerID]?.sponsor); return writer }())
        }
        for item in data.values.sorted(by: { ($0.accountID, Hex.encode($0.name)) < ($1.accountID, Hex.encode($1.name)) }) {
            var writer = XDRWriter()
            item.accountID.encode(to: &writer); writer.writeVariableOpaque(item.name); writer.writeVariableOpaque(item.value)
            writer.writeOptional(item.sponsor)
            add(writer)
        }
        for pool in liquidityPools.values.sorted(by: { $0.id.hex < $1.id.hex }) {
            var entry = pool
            entry.lastModifiedLedger = 0
            add({ var writer = XDRWriter(); entry.encode(to: &writer); return writer }())
        }
        for line in poolShares.values.sorted(by: { ($0.accountID, $0.poolID.hex) < ($1.accountID, $1.poolID.hex) }) {
            var entry = line
            entry.lastModifiedLedger = 0
            add({ var writer = XDRWriter(); entry.encode(to: &writer); return writer }())
        }
        for balance in claimableBalances.values.sorted(by: { $0.id.hex < $1.id.hex }) {
            var entry = balance
            entry.lastModifiedLedger = 0
            add({ var writer = XDRWriter(); entry.encode(to: &writer); return writer }())
        }
        return hasher.finalize().withUnsafeBytes { Bytes32($0) }
    }
}

extension Holding {
    struct Key: Hashable {
        var account: AccountID
        var asset: Asset
        init(_ account: AccountID, _ asset: Asset) {
            self.account = account
            self.asset = asset
        }
    }
}
