import StellarBase

extension ChangeTrustOperation {
    func checkValid(source: AccountID) -> ChangeTrustResultCode? {
        guard let asset = line.asset else {
            guard case .poolShare(let parameters) = line else { return .malformed }
            return limit < 0 || !parameters.isValid ? .malformed : nil
        }
        if limit < 0 || !asset.isValid || asset == .native { return .malformed }
        // Since protocol 16 trusting one's own asset is malformed rather than SELF_NOT_ALLOWED.
        if asset.issuer == source { return .malformed }
        return nil
    }
}

/// Whether a home domain, data name or similar string is printable ASCII.
func isPrintableASCII(_ bytes: [UInt8]) -> Bool {
    bytes.allSatisfy { $0 > 0x1F && $0 < 0x7F }
}

extension SetOptionsOperation {
    func checkValid(source: AccountID) -> SetOptionsResultCode? {
        if let setFlags, let clearFlags, setFlags & clearFlags != 0 { return .badFlags }
        if ((setFlags ?? 0) | (clearFlags ?? 0)) & ~AccountFlags.mask != 0 { return .unknownFlag }
        for value in [masterWeight, lowThreshold, mediumThreshold, highThreshold] {
            if let value, value > 255 { return .thresholdOutOfRange }
        }
        if let signer {
            if case .ed25519(let key) = signer.key, key == source.publicKey { return .badSigner }
            if signer.weight > 255 { return .badSigner }
            if case .ed25519SignedPayload(_, let payload) = signer.key, payload.isEmpty { return .badSigner }
        }
        if let homeDomain, !isPrintableASCII(homeDomain) { return .invalidHomeDomain }
        return nil
    }

    /// SetOptions needs the high threshold when it changes weights, thresholds or signers.
    var thresholdLevel: ThresholdLevel {
        masterWeight != nil || lowThreshold != nil || mediumThreshold != nil || highThreshold != nil || signer != nil ? .high : .medium
    }
}

extension ManageDataOperation {
    func checkValid() -> ManageDataResultCode? {
        if name.isEmpty || !isPrintableASCII(name) { return .invalidName }
        return nil
    }
}

extension LedgerState {
    mutating func apply(_ op: ChangeTrustOperation, source: AccountID) -> OperationOutcome<ChangeTrustResultCode> {
        guard let asset = op.line.asset else {
            guard case .poolShare(let parameters) = op.line else { preconditionFailure("a ChangeTrust line is an asset or pool shares") }
            return applyPoolShareTrust(parameters, limit: op.limit, source: source)
        }
        let key = TrustLineKey(source, asset)
        if var line = trustLines[key] {
            if op.limit < line.balance + line.buyingLiabilities { return .inner(.invalidLimit) }
            if op.limit == 0 {
                // Not while a pool-share trustline of its holder uses it.
                if line.liquidityPoolUseCount != 0 { return .inner(.cannotDelete) }
                removeTrustLine(key)
                removeSubEntry(of: source, sponsor: line.sponsor)
                return .inner(.success)
            }
            guard let issuer = asset.issuer, accounts[issuer] != nil else { return .inner(.noIssuer) }
            line.limit = op.limit
            setTrustLine(line)
            return .inner(.success)
        }
        if op.limit == 0 { return .inner(.invalidLimit) }
        guard let issuerID = asset.issuer, let issuer = accounts[issuerID] else { return .inner(.noIssuer) }
        var account = accounts[source]!
        let sponsor: AccountID?
        switch addSubEntries(1, to: &account) {
        case .success(let payer): sponsor = payer
        case .failure(let failure): return failure.outcome(lowReserve: .lowReserve)
        }
        setAccount(account)
        var flags: UInt32 = issuer.flags & AccountFlags.authRequired == 0 ? TrustLineFlags.authorized : 0
        if issuer.flags & AccountFlags.authClawbackEnabled != 0 { flags |= TrustLineFlags.clawbackEnabled }
        var line = TrustLineEntry(accountID: source, asset: asset, balance: 0, limit: op.limit, flags: flags, lastModifiedLedger: header.sequence)
        line.sponsor = sponsor
        setTrustLine(line)
        return .inner(.success)
    }

    mutating func apply(_ op: SetOptionsOperation, source: AccountID) -> OperationOutcome<SetOptionsResultCode> {
        var account = accounts[source]!
        if let destination = op.inflationDestination {
            guard accounts[destination] != nil else { return .inner(.invalidInflation) }
            account.inflationDestination = destination
        }
        let immutable = account.flags & AccountFlags.authImmutable != 0
        if let clearFlags = op.clearFlags {
            if clearFlags & (AccountFlags.authFlags | AccountFlags.authImmutable) != 0 && immutable { return .inner(.cantChange) }
            account.flags &= ~clearFlags
        }
        if let setFlags = op.setFlags {
            if setFlags & (AccountFlags.authFlags | AccountFlags.authImmutable) != 0 && immutable { return .inner(.cantChange) }
            account.flags |= setFlags
        }
        // Clawback needs revocable authorization (protocol 17).
        if account.flags & AccountFlags.authClawbackEnabled != 0 && account.flags & AccountFlags.authRevocable == 0 {
            return .inner(.authRevocableRequired)
        }
        if let homeDomain = op.homeDomain { account.homeDomain = homeDomain }
        if let weight = op.masterWeight { account.thresholds.masterWeight = UInt8(weight) }
        if let low = op.lowThreshold { account.thresholds.low = UInt8(low) }
        if let medium = op.mediumThreshold { account.thresholds.medium = UInt8(medium) }
        if let high = op.highThreshold { account.thresholds.high = UInt8(high) }
        if let signer = op.signer {
            let index = account.signers.firstIndex { $0.key == signer.key }
            if signer.weight > 0 {
                if let index {
                    account.signers[index].weight = signer.weight
                } else {
                    if account.signers.count >= 20 { return .inner(.tooManySigners) }
                    switch addSubEntries(1, to: &account) {
                    case .success(let sponsor): account.signerSponsors[signer.key] = sponsor
                    case .failure(let failure): return failure.outcome(lowReserve: .lowReserve)
                    }
                    account.signers.append(signer)
                    account.signers.sort { $0.key.xdrBytes.lexicographicallyPrecedes($1.key.xdrBytes) }
                }
            } else if let index {
                removeSigner(at: index, from: &account)
            }
        }
        setAccount(account)
        return .inner(.success)
    }

    mutating func applyAccountMerge(destination: AccountID, source: AccountID) -> AccountMergeResult {
        guard accounts[destination] != nil else { return AccountMergeResult(code: .noAccount) }
        let account = accounts[source]!
        if account.flags & AccountFlags.authImmutable != 0 { return AccountMergeResult(code: .immutableSet) }
        if account.numSubEntries != UInt32(account.signers.count) { return AccountMergeResult(code: .hasSubEntries) }
        if account.sequenceNumber >= header.startingSequenceNumber { return AccountMergeResult(code: .sequenceNumberTooFar) }
        // An account that pays reserves for others' entries cannot go, nor one sponsoring
        // another's future reserves in this transaction.
        if account.numSponsoring > 0 || isSponsoringFutureReserves(source) { return AccountMergeResult(code: .isSponsor) }
        // Its signers' and its own sponsors get their reserves back.
        var leaving = account
        for index in leaving.signers.indices.reversed() { removeSigner(at: index, from: &leaving) }
        let balance = account.balance
        guard addBalance(.native(destination), balance) else { return AccountMergeResult(code: .destinationFull) }
        if let sponsor = account.sponsor { addSponsoring(sponsor, -2) }
        removeAccount(source)
        return AccountMergeResult(code: .success, sourceAccountBalance: balance)
    }

    mutating func apply(_ op: ManageDataOperation, source: AccountID) -> OperationOutcome<ManageDataResultCode> {
        let key = DataKey(source, op.name)
        let existing = data[key]
        guard let value = op.value else {
            guard let existing else { return .inner(.nameNotFound) }
            removeData(key)
            removeSubEntry(of: source, sponsor: existing.sponsor)
            return .inner(.success)
        }
        var sponsor = existing?.sponsor
        if existing == nil {
            var account = accounts[source]!
            switch addSubEntries(1, to: &account) {
            case .success(let payer): sponsor = payer
            case .failure(let failure): return failure.outcome(lowReserve: .lowReserve)
            }
            setAccount(account)
        }
        setData(DataEntry(accountID: source, name: op.name, value: value, sponsor: sponsor, lastModifiedLedger: header.sequence))
        return .inner(.success)
    }

    mutating func applyBumpSequence(_ bumpTo: Int64, source: AccountID) -> BumpSequenceResultCode {
        var account = accounts[source]!
        if bumpTo > account.sequenceNumber {
            account.sequenceNumber = bumpTo
            account.sequenceLedger = header.sequence
            account.sequenceTime = header.closeTime
            setAccount(account)
        }
        return .success
    }
}

struct AccountMergeResult {
    var code: AccountMergeResultCode
    var sourceAccountBalance: Int64?
}
