import StellarBase

// Sponsored reserves (CAP-33), as stellar-core's `SponsorshipUtils` and the three operations
// Begin/EndSponsoringFutureReserves and RevokeSponsorship apply them.
//
// An entry's reserve is paid by its owner or by a sponsor: the sponsor counts it in
// `numSponsoring`, the owner in `numSponsored`, and the minimum balance of each is
// (2 + subentries + sponsoring - sponsored) base reserves. An account (two reserves), a trustline,
// an offer, a data entry (one each) and a signer (one) may be sponsored; a claimable balance always
// is, by its creator or the creator's sponsor (one reserve per claimant, not counted as sponsored
// by anyone).

/// Why an entry's reserve could not be paid.
enum ReserveFailure: Error {
    /// The payer's available balance is below the reserve.
    case lowReserve
    /// The owner would pass 1,000 subentries (`opTOO_MANY_SUBENTRIES`).
    case tooManySubentries
    /// The sponsor's count would overflow (`opTOO_MANY_SPONSORING`).
    case tooManySponsoring

    /// The failure as an operation's outcome, `lowReserve` being its own code.
    func outcome<Code>(lowReserve: Code) -> OperationOutcome<Code> {
        switch self {
        case .lowReserve: .inner(lowReserve)
        case .tooManySubentries: .outer(.tooManySubentries)
        case .tooManySponsoring: .outer(.tooManySponsoring)
        }
    }
}

extension AccountEntry {
    /// stellar-core's `tooManyNumSubEntries`: the subentry limit, and subentries plus sponsored
    /// reserves within 32 bits.
    func cannotAdd(subEntries count: UInt32) -> Bool {
        numSubEntries > maxSubEntries - min(count, maxSubEntries) || cannotSum(count)
    }

    /// stellar-core's `tooManySponsoring`.
    func cannotSponsor(_ count: UInt32) -> Bool {
        numSponsoring > UInt32.max - count || cannotSum(count)
    }

    private func cannotSum(_ count: UInt32) -> Bool {
        UInt64(numSponsoring) + UInt64(numSubEntries) + UInt64(count) > UInt64(UInt32.max)
    }
}

extension LedgerState {
    /// The account paying for what `account` creates now, if any (within the transaction).
    func activeSponsor(of account: AccountID) -> AccountID? { sponsorships[account] }

    /// Whether `account` pays for another's future reserves in the transaction being applied.
    func isSponsoringFutureReserves(_ account: AccountID) -> Bool { sponsorships.values.contains(account) }

    /// Whether `sponsor` can take on `count` more reserves (stellar-core's
    /// `canEstablishSponsorshipHelper`); nil when it can.
    func cannotSponsor(_ sponsor: AccountID, _ count: UInt32) -> ReserveFailure? {
        let account = accounts[sponsor]!
        if availableBalance(account) < Int64(count) * Int64(header.baseReserve) { return .lowReserve }
        if account.cannotSponsor(count) { return .tooManySponsoring }
        return nil
    }

    /// Moves `count` reserves onto (positive) or off (negative) `sponsor`'s account.
    mutating func addSponsoring(_ sponsor: AccountID, _ count: Int) {
        noteSponsoringChange()
        _ = modifyAccount(sponsor) { account in
            account.numSponsoring = UInt32(Int(account.numSponsoring) + count)
            return true
        }
    }

    /// Adds `count` subentries (a trustline, an offer, a data entry or a signer) to `owner`, a
    /// copy the caller writes back: their reserve is paid by the owner's active sponsor when it
    /// has one, otherwise by the owner (stellar-core's `createEntryWithPossibleSponsorship`).
    /// - Returns: the sponsor the new entry records (nil: its owner pays), or why it cannot be made.
    mutating func addSubEntries(_ count: UInt32, to owner: inout AccountEntry) -> Result<AccountID?, ReserveFailure> {
        if owner.cannotAdd(subEntries: count) { return .failure(.tooManySubentries) }
        guard let sponsor = sponsorships[owner.accountID] else {
            if availableBalance(owner) < Int64(count) * Int64(header.baseReserve) { return .failure(.lowReserve) }
            owner.numSubEntries += count
            return .success(nil)
        }
        if let failure = cannotSponsor(sponsor, count) { return .failure(failure) }
        addSponsoring(sponsor, Int(count))
        owner.numSubEntries += count
        owner.numSponsored += count
        return .success(sponsor)
    }

    /// Removes `count` subentries from `owner` (a copy the caller writes back), giving their
    /// reserve back to `sponsor` when they had one.
    mutating func removeSubEntries(_ count: UInt32, from owner: inout AccountEntry, sponsor: AccountID?) {
        owner.numSubEntries -= count
        guard let sponsor else { return }
        owner.numSponsored -= count
        addSponsoring(sponsor, -Int(count))
    }

    /// Removes the subentry of `owner`'s account in place (its own copy is not held by the caller).
    mutating func removeSubEntry(of owner: AccountID, sponsor: AccountID?) {
        var account = accounts[owner]!
        removeSubEntries(1, from: &account, sponsor: sponsor)
        setAccount(account)
    }

    /// Removes `signer` from `account` (a copy the caller writes back), with its sponsorship.
    mutating func removeSigner(at index: Int, from account: inout AccountEntry) {
        let key = account.signers.remove(at: index).key
        removeSubEntries(1, from: &account, sponsor: account.signerSponsors.removeValue(forKey: key))
    }

    // MARK: The operations

    /// BeginSponsoringFutureReserves: the source pays for what `sponsored` creates until the
    /// sponsored account ends it in the same transaction.
    mutating func applyBeginSponsoring(_ sponsored: AccountID, source: AccountID) -> BeginSponsoringFutureReservesResultCode {
        if sponsorships[sponsored] != nil { return .alreadySponsored }
        // No chains: the sponsor may not be sponsored, nor the sponsored a sponsor.
        if sponsorships[source] != nil || isSponsoringFutureReserves(sponsored) { return .recursive }
        setSponsorship(of: sponsored, by: source)
        return .success
    }

    /// EndSponsoringFutureReserves: the source (the sponsored account) ends its sponsorship.
    mutating func applyEndSponsoring(source: AccountID) -> EndSponsoringFutureReservesResultCode {
        guard sponsorships[source] != nil else { return .notSponsored }
        setSponsorship(of: source, by: nil)
        return .success
    }

    /// RevokeSponsorship: the sponsor of an entry or signer (or, when unsponsored, its owner)
    /// hands its reserve to the source's own sponsor when it has one, or back to the owner.
    mutating func apply(_ op: RevokeSponsorshipOperation, source: AccountID) -> OperationOutcome<RevokeSponsorshipResultCode> {
        switch op {
        case .ledgerEntry(let key): revokeEntrySponsorship(key, source: source)
        case .signer(let account, let key): revokeSignerSponsorship(account, key, source: source)
        }
    }

    /// A sponsorable entry: its owner, sponsor and the reserves it counts.
    private struct SponsoredEntry {
        var owner: AccountID
        var sponsor: AccountID?
        var reserves: UInt32
        /// A claimable balance's sponsor is its owner and may not become unsponsored.
        var isClaimableBalance = false
    }

    private func sponsoredEntry(_ key: LedgerKey) -> SponsoredEntry? {
        switch key {
        case .account(let id): accounts[id].map { SponsoredEntry(owner: id, sponsor: $0.sponsor, reserves: 2) }
        case .trustLine(let id, let asset): trustLines[TrustLineKey(id, asset)].map { SponsoredEntry(owner: id, sponsor: $0.sponsor, reserves: 1) }
        case .poolShareLine(let id, let pool): poolShares[PoolShareKey(id, pool)].map { SponsoredEntry(owner: id, sponsor: $0.sponsor, reserves: 2) }
        case .offer(let seller, let offerID):
            offers[offerID].flatMap { $0.entry.sellerID == seller ? SponsoredEntry(owner: seller, sponsor: $0.sponsor, reserves: 1) : nil }
        case .data(let id, let name): data[DataKey(id, name)].map { SponsoredEntry(owner: id, sponsor: $0.sponsor, reserves: 1) }
        case .claimableBalance(let id):
            claimableBalances[id].map { SponsoredEntry(owner: $0.sponsor, sponsor: $0.sponsor, reserves: UInt32($0.claimants.count), isClaimableBalance: true) }
        case .liquidityPool: nil
        }
    }

    private mutating func setSponsor(_ key: LedgerKey, _ sponsor: AccountID?) {
        switch key {
        case .account(let id):
            _ = modifyAccount(id) { account in
                account.sponsor = sponsor
                return true
            }
        case .trustLine(let id, let asset):
            var line = trustLines[TrustLineKey(id, asset)]!
            line.sponsor = sponsor
            setTrustLine(line)
        case .poolShareLine(let id, let pool):
            var line = poolShares[PoolShareKey(id, pool)]!
            line.sponsor = sponsor
            setPoolShare(line)
        case .offer(_, let offerID): setOfferSponsor(offerID, sponsor)
        case .data(let id, let name):
            var item = data[DataKey(id, name)]!
            item.sponsor = sponsor
            setData(item)
        case .claimableBalance(let id):
            var balance = claimableBalances[id]!
            balance.sponsor = sponsor!
            setClaimableBalance(balance)
        case .liquidityPool: preconditionFailure("a liquidity pool is never sponsored")
        }
    }

    private mutating func revokeEntrySponsorship(_ key: LedgerKey, source: AccountID) -> OperationOutcome<RevokeSponsorshipResultCode> {
        guard let entry = sponsoredEntry(key) else { return .inner(.doesNotExist) }
        // The sponsor may revoke a sponsored entry; the owner an unsponsored one.
        guard (entry.sponsor ?? entry.owner) == source else { return .inner(.notSponsor) }
        let wasSponsored = entry.sponsor != nil && !entry.isClaimableBalance
        let newSponsor = sponsorships[source].flatMap { $0 == entry.owner ? nil : $0 }
        if entry.isClaimableBalance {
            guard let newSponsor else { return .inner(.onlyTransferable) }
            if let failure = cannotSponsor(newSponsor, entry.reserves) { return failure.outcome(lowReserve: .lowReserve) }
            addSponsoring(source, -Int(entry.reserves))
            addSponsoring(newSponsor, Int(entry.reserves))
            setSponsor(key, newSponsor)
            return .inner(.success)
        }
        return moveReserves(entry.reserves, owner: entry.owner, from: wasSponsored ? entry.sponsor : nil, to: newSponsor) {
            $0.setSponsor(key, newSponsor)
        }
    }

    private mutating func revokeSignerSponsorship(_ accountID: AccountID, _ key: SignerKey, source: AccountID) -> OperationOutcome<RevokeSponsorshipResultCode> {
        guard let account = accounts[accountID], account.signers.contains(where: { $0.key == key }) else { return .inner(.doesNotExist) }
        let sponsor = account.signerSponsors[key]
        guard (sponsor ?? accountID) == source else { return .inner(.notSponsor) }
        let newSponsor = sponsorships[source].flatMap { $0 == accountID ? nil : $0 }
        return moveReserves(1, owner: accountID, from: sponsor, to: newSponsor) { state in
            _ = state.modifyAccount(accountID) { account in
                account.signerSponsors[key] = newSponsor
                return true
            }
        }
    }

    /// Moves `count` reserves of `owner`'s entry from `old` (nil: the owner) to `new` (nil: the
    /// owner), then lets `record` write the entry's new sponsor; nothing when both are the owner.
    private mutating func moveReserves(
        _ count: UInt32, owner: AccountID, from old: AccountID?, to new: AccountID?, record: (inout LedgerState) -> Void
    ) -> OperationOutcome<RevokeSponsorshipResultCode> {
        switch (old, new) {
        case (nil, nil):
            return .inner(.success)
        case (let old?, let new?):
            if let failure = cannotSponsor(new, count) { return failure.outcome(lowReserve: .lowReserve) }
            addSponsoring(old, -Int(count))
            addSponsoring(new, Int(count))
        case (let old?, nil):
            // The owner takes its reserve back.
            if availableBalance(accounts[owner]!) < Int64(count) * Int64(header.baseReserve) { return .inner(.lowReserve) }
            addSponsoring(old, -Int(count))
            _ = modifyAccount(owner) { account in
                account.numSponsored -= count
                return true
            }
        case (nil, let new?):
            if let failure = cannotSponsor(new, count) { return failure.outcome(lowReserve: .lowReserve) }
            addSponsoring(new, Int(count))
            _ = modifyAccount(owner) { account in
                account.numSponsored += count
                return true
            }
        }
        record(&self)
        return .inner(.success)
    }
}

extension RevokeSponsorshipOperation {
    /// stellar-core's `RevokeSponsorshipOpFrame::doCheckValid`.
    func checkValid() -> RevokeSponsorshipResultCode? {
        guard case .ledgerEntry(let key) = self else { return nil }
        switch key {
        case .account, .claimableBalance, .poolShareLine: return nil
        case .trustLine(let id, let asset): return !asset.isValid || asset == .native || asset.issuer == id ? .malformed : nil
        case .offer(_, let offerID): return offerID <= 0 ? .malformed : nil
        case .data(_, let name): return name.isEmpty || !isPrintableASCII(name) ? .malformed : nil
        case .liquidityPool: return .malformed
        }
    }
}
