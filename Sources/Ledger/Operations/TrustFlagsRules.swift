import StellarBase

extension TrustLineFlags {
    /// The two authorization flags.
    static let authFlags = authorized | authorizedToMaintainLiabilities
    /// Every flag a trustline may carry.
    static let mask = authorized | authorizedToMaintainLiabilities | clawbackEnabled

    /// stellar-core's `trustLineFlagIsValid`: only known flags, and not both authorizations.
    static func isValid(_ flags: UInt32) -> Bool { flags & ~mask == 0 && flags & authFlags != authFlags }
}

extension AllowTrustOperation {
    /// stellar-core's `AllowTrustOpFrame::doCheckValid`.
    func checkValid(source: AccountID) -> AllowTrustResultCode? {
        if authorize > TrustLineFlags.authorizedToMaintainLiabilities || !TrustLineFlags.isValid(authorize) { return .malformed }
        if !asset(issuer: source).isValid { return .malformed }
        // Since protocol 16 trusting oneself is malformed (before, self_not_allowed at apply).
        if trustor == source { return .malformed }
        return nil
    }
}

extension SetTrustLineFlagsOperation {
    /// stellar-core's `SetTrustLineFlagsOpFrame::doCheckValid`.
    func checkValid(source: AccountID) -> SetTrustLineFlagsResultCode? {
        if asset == .native || !asset.isValid || asset.issuer != source || trustor == source { return .malformed }
        if setFlags & clearFlags != 0 { return .malformed }
        // Clawback can be cleared on a trustline, never set.
        if !TrustLineFlags.isValid(setFlags) || setFlags & TrustLineFlags.clawbackEnabled != 0 { return .malformed }
        if clearFlags & ~TrustLineFlags.mask != 0 { return .malformed }
        return nil
    }
}

extension ClawbackOperation {
    /// stellar-core's `ClawbackOpFrame::doCheckValid`.
    func checkValid(source: AccountID) -> ClawbackResultCode? {
        if from == .ed25519(source) || amount < 1 { return .malformed }
        if asset == .native || !asset.isValid || asset.issuer != source { return .malformed }
        return nil
    }
}

extension LedgerState {
    /// AllowTrust (stellar-core's `TrustFlagsOpFrameBase::doApply` with AllowTrust's checks).
    mutating func apply(_ op: AllowTrustOperation, source: AccountID, place: OperationPlace) -> OperationOutcome<AllowTrustResultCode> {
        let revocable = accounts[source]!.flags & AccountFlags.authRevocable != 0
        if !revocable && op.authorize == 0 { return .inner(.cantRevoke) }
        let key = TrustLineKey(op.trustor, op.asset(issuer: source))
        guard let line = trustLines[key] else { return .inner(.noTrustLine) }
        let expected = (line.flags & ~TrustLineFlags.authFlags) | op.authorize
        // Without revocable authorization, authorized may not become authorized to maintain liabilities.
        if !revocable && line.isAuthorized && expected & TrustLineFlags.authorizedToMaintainLiabilities != 0 { return .inner(.cantRevoke) }
        if let failure = setTrustLineFlags(line, expected, place: place) { return failure.outcome(lowReserve: .lowReserve) }
        return .inner(.success)
    }

    /// SetTrustLineFlags (stellar-core's `TrustFlagsOpFrameBase::doApply` with its checks).
    mutating func apply(_ op: SetTrustLineFlagsOperation, source: AccountID, place: OperationPlace) -> OperationOutcome<SetTrustLineFlagsResultCode> {
        if accounts[source]!.flags & AccountFlags.authRevocable == 0 {
            // Without revocable authorization no authorization may be taken away.
            let clearingAnyAuth = op.clearFlags & TrustLineFlags.authFlags != 0
            let settingAuthorized = op.setFlags & TrustLineFlags.authorized != 0
            if clearingAnyAuth && !settingAuthorized { return .inner(.cantRevoke) }
        }
        guard let line = trustLines[TrustLineKey(op.trustor, op.asset)] else { return .inner(.noTrustLine) }
        let expected = (line.flags & ~op.clearFlags) | op.setFlags
        if expected & TrustLineFlags.authFlags == TrustLineFlags.authFlags { return .inner(.invalidState) }
        if let failure = setTrustLineFlags(line, expected, place: place) { return failure.outcome(lowReserve: .lowReserve) }
        return .inner(.success)
    }

    /// Sets a trustline's flags; a holder that loses even the authorization to maintain
    /// liabilities loses its offers in the asset (their reserves and liabilities released) and
    /// its shares of pools of it (redeemed into claimable balances).
    private mutating func setTrustLineFlags(_ line: TrustLineEntry, _ flags: UInt32, place: OperationPlace) -> ReserveFailure? {
        if line.isAuthorizedToMaintainLiabilities && flags & TrustLineFlags.authFlags == 0 {
            let doomed = offers.values.map(\.entry)
                .filter { $0.sellerID == line.accountID && ($0.selling == line.asset || $0.buying == line.asset) }
                .sorted { $0.offerID < $1.offerID }
            for offer in doomed {
                releaseLiabilities(offer)
                deleteOffer(offer)
            }
            if let failure = redeemPoolShares(of: line.accountID, in: line.asset, at: place) { return failure }
        }
        var changed = trustLines[line.key]!
        changed.flags = flags
        setTrustLine(changed)
        return nil
    }

    /// Clawback: the issuer takes back what the holder can spend of the asset, whatever its
    /// authorization; the amount leaves circulation.
    mutating func apply(_ op: ClawbackOperation, source: AccountID) -> ClawbackResultCode {
        guard var line = trustLines[TrustLineKey(op.from.accountID, op.asset)] else { return .noTrust }
        guard line.flags & TrustLineFlags.clawbackEnabled != 0 else { return .notClawbackEnabled }
        guard op.amount <= line.balance - line.sellingLiabilities else { return .underfunded }
        line.balance -= op.amount
        setTrustLine(line)
        recordIssuance(op.asset, op.amount)
        return .success
    }
}
