import Crypto
import StellarBase

extension ClaimPredicate {
    /// stellar-core's check of a new balance's predicate: at most 4 levels, two predicates for
    /// `and` and `or`, one for `not`, no negative time.
    func isValid(depth: Int = 1) -> Bool {
        guard depth <= 4 else { return false }
        switch self {
        case .unconditional: return true
        case .and(let predicates), .or(let predicates): return predicates.count == 2 && predicates.allSatisfy { $0.isValid(depth: depth + 1) }
        case .not(let predicate): return predicate?.isValid(depth: depth + 1) ?? false
        case .beforeAbsoluteTime(let time): return time >= 0
        case .beforeRelativeTime(let seconds): return seconds >= 0
        }
    }

    /// Relative times made absolute from `closeTime` (saturating), as the balance is created.
    public func absolute(from closeTime: UInt64) -> ClaimPredicate {
        switch self {
        case .unconditional, .beforeAbsoluteTime: return self
        case .and(let predicates): return .and(predicates.map { $0.absolute(from: closeTime) })
        case .or(let predicates): return .or(predicates.map { $0.absolute(from: closeTime) })
        case .not(let predicate): return .not(predicate?.absolute(from: closeTime))
        case .beforeRelativeTime(let seconds):
            return .beforeAbsoluteTime(closeTime > UInt64(Int64.max - seconds) ? .max : Int64(closeTime) + seconds)
        }
    }

    /// Whether a claim at `closeTime` is allowed (predicates of a stored balance are absolute).
    public func holds(at closeTime: UInt64) -> Bool {
        switch self {
        case .unconditional: return true
        case .and(let predicates): return predicates.allSatisfy { $0.holds(at: closeTime) }
        case .or(let predicates): return predicates.contains { $0.holds(at: closeTime) }
        case .not(let predicate): return !(predicate?.holds(at: closeTime) ?? true)
        case .beforeAbsoluteTime(let time): return time >= 0 && UInt64(time) > closeTime
        case .beforeRelativeTime: return false
        }
    }
}

extension ClaimableBalanceID {
    /// The id of the balance an operation creates: SHA-256 of the `HashIDPreimage` of type
    /// `ENVELOPE_TYPE_OP_ID` (the transaction's source and sequence number, the operation's index).
    public static func created(bySource source: AccountID, sequence: Int64, operationIndex: Int) -> ClaimableBalanceID {
        var writer = XDRWriter()
        writer.write(Int32(6))
        source.encode(to: &writer)
        writer.write(sequence)
        writer.write(UInt32(operationIndex))
        return ClaimableBalanceID(SHA256.hash(data: writer.bytes).withUnsafeBytes { Bytes32($0) })
    }
}

extension CreateClaimableBalanceOperation {
    /// stellar-core's `CreateClaimableBalanceOpFrame::doCheckValid`.
    func checkValid() -> CreateClaimableBalanceResultCode? {
        if !asset.isValid || amount <= 0 || claimants.isEmpty { return .malformed }
        if Set(claimants.map(\.destination)).count != claimants.count { return .malformed }
        if !claimants.allSatisfy({ $0.predicate.isValid() }) { return .malformed }
        return nil
    }
}

extension LedgerState {
    /// CreateClaimableBalance: the amount leaves the source into a new balance whose reserve
    /// (one base reserve per claimant) the source pays.
    mutating func apply(_ op: CreateClaimableBalanceOperation, source: AccountID, id: ClaimableBalanceID) -> OperationOutcome<CreateClaimableBalanceResultCode> {
        var clawback = false
        if op.asset == .native {
            guard availableBalance(accounts[source]!) >= op.amount else { return .inner(.underfunded) }
            precondition(addBalance(.native(source), -op.amount), "an available balance could not be spent")
        } else {
            guard let holding = holding(source, op.asset) else { return .inner(.noTrust) }
            guard isAuthorized(holding) else { return .inner(.notAuthorized) }
            guard addBalance(holding, -op.amount) else { return .inner(.underfunded) }
            switch holding {
            case .issuer(let issuer, _): clawback = accounts[issuer]!.flags & AccountFlags.authClawbackEnabled != 0
            case .line(let key): clawback = trustLines[key]!.flags & TrustLineFlags.clawbackEnabled != 0
            case .native: break
            }
        }
        // The reserve: the source sponsors the new entry, or its own sponsor does.
        let sponsor = sponsorships[source] ?? source
        let reserves = UInt32(op.claimants.count)
        if let failure = cannotSponsor(sponsor, reserves) { return failure.outcome(lowReserve: .lowReserve) }
        addSponsoring(sponsor, Int(reserves))
        let closeTime = header.closeTime
        setClaimableBalance(ClaimableBalanceEntry(
            id: id, claimants: op.claimants.map { Claimant(destination: $0.destination, predicate: $0.predicate.absolute(from: closeTime)) },
            asset: op.asset, amount: op.amount, clawbackEnabled: clawback, sponsor: sponsor, lastModifiedLedger: header.sequence))
        return .inner(.success)
    }

    /// ClaimClaimableBalance: a claimant whose predicate holds takes the whole amount.
    mutating func applyClaim(_ id: ClaimableBalanceID, source: AccountID) -> ClaimClaimableBalanceResultCode {
        guard let balance = claimableBalances[id] else { return .doesNotExist }
        guard let claimant = balance.claimants.first(where: { $0.destination == source }), claimant.predicate.holds(at: header.closeTime) else {
            return .cannotClaim
        }
        if balance.asset == .native {
            guard addBalance(.native(source), balance.amount) else { return .lineFull }
        } else {
            guard let holding = holding(source, balance.asset) else { return .noTrust }
            guard isAuthorized(holding) else { return .notAuthorized }
            guard addBalance(holding, balance.amount) else { return .lineFull }
        }
        removeSponsoredBalance(balance)
        return .success
    }

    /// ClawbackClaimableBalance: the issuer takes the balance out of circulation.
    mutating func applyClawback(_ id: ClaimableBalanceID, source: AccountID) -> ClawbackClaimableBalanceResultCode {
        guard let balance = claimableBalances[id] else { return .doesNotExist }
        guard balance.asset != .native, balance.asset.issuer == source else { return .notIssuer }
        guard balance.clawbackEnabled else { return .notClawbackEnabled }
        removeSponsoredBalance(balance)
        recordIssuance(balance.asset, balance.amount)
        return .success
    }

    /// Removes a balance and gives its sponsor its reserves back.
    private mutating func removeSponsoredBalance(_ balance: ClaimableBalanceEntry) {
        addSponsoring(balance.sponsor, -balance.claimants.count)
        removeClaimableBalance(balance.id)
    }
}
