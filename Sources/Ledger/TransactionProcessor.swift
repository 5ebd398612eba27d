import StellarBase

/// What happened to a transaction offered to the ledger.
public enum TransactionApplication: Sendable {
    /// Valid and in the ledger: the fee and sequence number were taken, and the operations either
    /// all applied (`tx_success`) or none did (`tx_failed`).
    case applied(TransactionResult)
    /// Refused before it could enter the ledger (bad sequence, bad auth, malformed operation...):
    /// nothing changed and no fee was taken.
    case rejected(TransactionResult)

    public var result: TransactionResult {
        switch self {
        case .applied(let result), .rejected(let result): result
        }
    }

    public var isApplied: Bool {
        if case .applied = self { return true }
        return false
    }
}

extension OperationBody {
    /// The signing threshold the operation needs of its source account.
    var thresholdLevel: ThresholdLevel {
        switch self {
        case .setOptions(let op): op.thresholdLevel
        case .accountMerge: .high
        case .bumpSequence, .allowTrust, .setTrustLineFlags, .claimClaimableBalance: .low
        default: .medium
        }
    }

    /// Whether the operation may create, remove or re-sponsor a sponsorable entry (offers aside:
    /// Horizon gives their sponsorships no effects).
    var canChangeSponsorships: Bool {
        switch self {
        case .createAccount, .changeTrust, .manageData, .setOptions, .accountMerge, .revokeSponsorship, .allowTrust, .setTrustLineFlags: true
        default: false
        }
    }

    /// Whether the operation may redeem a holder's pool shares into claimable balances.
    var redeemsPoolShares: Bool {
        switch self {
        case .allowTrust, .setTrustLineFlags: true
        default: false
        }
    }

    /// The result of an operation that passed its checks, before it is applied: stellar-core's
    /// default-constructed success values.
    var successResult: OperationResult {
        let nobody = AccountID(publicKey: .zero)
        let emptyPayment = SimplePaymentResult(destination: nobody, asset: .native, amount: 0)
        let emptyOffer = ManageOfferEffect.created(OfferEntry(
            sellerID: nobody, offerID: 0, selling: .native, buying: .native, amount: 0, price: Price(n: 0, d: 0)))
        return switch self {
        case .createAccount: .inner(.createAccount(.success))
        case .payment: .inner(.payment(.success))
        case .pathPaymentStrictReceive: .inner(.pathPaymentStrictReceive(.success(offers: [], last: emptyPayment)))
        case .manageSellOffer: .inner(.manageSellOffer(.success(offersClaimed: [], effect: emptyOffer)))
        case .setOptions: .inner(.setOptions(.success))
        case .changeTrust: .inner(.changeTrust(.success))
        case .accountMerge: .inner(.accountMerge(.success, sourceAccountBalance: 0))
        case .manageData: .inner(.manageData(.success))
        case .bumpSequence: .inner(.bumpSequence(.success))
        case .manageBuyOffer: .inner(.manageBuyOffer(.success(offersClaimed: [], effect: emptyOffer)))
        case .pathPaymentStrictSend: .inner(.pathPaymentStrictSend(.success(offers: [], last: emptyPayment)))
        case .createPassiveSellOffer: .inner(.createPassiveSellOffer(.success(offersClaimed: [], effect: emptyOffer)))
        case .allowTrust: .inner(.allowTrust(.success))
        case .setTrustLineFlags: .inner(.setTrustLineFlags(.success))
        case .clawback: .inner(.clawback(.success))
        case .createClaimableBalance: .inner(.createClaimableBalance(.success, balanceID: ClaimableBalanceID(.zero)))
        case .claimClaimableBalance: .inner(.claimClaimableBalance(.success))
        case .clawbackClaimableBalance: .inner(.clawbackClaimableBalance(.success))
        case .beginSponsoringFutureReserves: .inner(.beginSponsoringFutureReserves(.success))
        case .endSponsoringFutureReserves: .inner(.endSponsoringFutureReserves(.success))
        case .revokeSponsorship: .inner(.revokeSponsorship(.success))
        case .liquidityPoolDeposit: .inner(.liquidityPoolDeposit(.success))
        case .liquidityPoolWithdraw: .inner(.liquidityPoolWithdraw(.success))
        }
    }

    /// The state-free checks of stellar-core's `doCheckValid`; nil when they pass.
    func checkValid(source: AccountID) -> OperationResult? {
        switch self {
        case .createAccount(let op): op.checkValid(source: source).map { .inner(.createAccount($0)) }
        case .payment(let op): op.checkValid().map { .inner(.payment($0)) }
        case .pathPaymentStrictReceive(let op): op.checkValid().map { .inner(.pathPaymentStrictReceive(.failure($0))) }
        case .pathPaymentStrictSend(let op): op.checkValid().map { .inner(.pathPaymentStrictSend(.failure($0))) }
        case .manageSellOffer(let op): OfferRequest(op).checkValid().map { .inner(.manageSellOffer(.failure($0))) }
        case .manageBuyOffer(let op):
            OfferRequest(op).checkValid().map { .inner(.manageBuyOffer(.failure(ManageBuyOfferResultCode(rawValue: $0.rawValue)!))) }
        case .setOptions(let op): op.checkValid(source: source).map { .inner(.setOptions($0)) }
        case .changeTrust(let op): op.checkValid(source: source).map { .inner(.changeTrust($0)) }
        case .accountMerge(let destination): destination.accountID == source ? .inner(.accountMerge(.malformed, sourceAccountBalance: nil)) : nil
        case .manageData(let op): op.checkValid().map { .inner(.manageData($0)) }
        case .bumpSequence(let bumpTo): bumpTo < 0 ? .inner(.bumpSequence(.badSequence)) : nil
        case .createPassiveSellOffer(let op): OfferRequest(op).checkValid().map { .inner(.createPassiveSellOffer(.failure($0))) }
        case .allowTrust(let op): op.checkValid(source: source).map { .inner(.allowTrust($0)) }
        case .setTrustLineFlags(let op): op.checkValid(source: source).map { .inner(.setTrustLineFlags($0)) }
        case .clawback(let op): op.checkValid(source: source).map { .inner(.clawback($0)) }
        case .createClaimableBalance(let op): op.checkValid().map { .inner(.createClaimableBalance($0, balanceID: nil)) }
        case .claimClaimableBalance, .clawbackClaimableBalance, .endSponsoringFutureReserves: nil
        case .beginSponsoringFutureReserves(let sponsored): sponsored == source ? .inner(.beginSponsoringFutureReserves(.malformed)) : nil
        case .revokeSponsorship(let op): op.checkValid().map { .inner(.revokeSponsorship($0)) }
        case .liquidityPoolDeposit(let op): op.checkValid().map { .inner(.liquidityPoolDeposit($0)) }
        case .liquidityPoolWithdraw(let op): op.checkValid().map { .inner(.liquidityPoolWithdraw($0)) }
        }
    }
}

extension LedgerState {
    func neededWeight(_ account: AccountEntry, _ level: ThresholdLevel) -> Int {
        switch level {
        case .low: Int(account.thresholds.low)
        case .medium: Int(account.thresholds.medium)
        case .high: Int(account.thresholds.high)
        }
    }

    /// What applying `prepared` now would refuse before charging a fee (its sequence number,
    /// time bounds, fee, signatures...), as stellar-core's queue checks a submission; nil when it
    /// would be taken. Changes nothing.
    public func precheck(_ prepared: PreparedTransaction) -> TransactionResult? {
        let tx = prepared.transaction
        if case .feeBump(let feeBump, _) = prepared.envelope, let inner = prepared.inner {
            var outerChecker = SignatureChecker(prepared.outer)
            if let rejection = validateFeeBump(feeBump, checker: &outerChecker) { return TransactionResult(feeCharged: 0, outcome: rejection) }
            var checker = SignatureChecker(inner)
            if let rejection = validate(tx, checker: &checker, feeBumped: true) {
                return TransactionResult(feeCharged: 0, outcome: .feeBumpInnerFailed(innerHash: inner.hash, InnerTransactionResult(feeCharged: 0, outcome: rejection)))
            }
            return outerChecker.allSignaturesUsed ? nil : TransactionResult(feeCharged: 0, outcome: .code(.badAuthExtra))
        }
        var checker = SignatureChecker(prepared.outer)
        return validate(tx, checker: &checker, feeBumped: false).map { TransactionResult(feeCharged: 0, outcome: $0) }
    }

    /// Checks `prepared` against the current state and, when valid, applies it: charges the fee,
    /// consumes the sequence number and runs the operations atomically.
    public mutating func apply(_ prepared: PreparedTransaction) -> TransactionApplication {
        var meta: [Int: OperationMeta] = [:]
        return apply(prepared, meta: &meta)
    }

    /// ``apply(_:)``, also giving what the operations of a successful transaction changed that
    /// their effects need (``OperationMeta``), by operation index.
    mutating func apply(_ prepared: PreparedTransaction, meta: inout [Int: OperationMeta]) -> TransactionApplication {
        let tx = prepared.transaction
        let source = tx.sourceAccount.accountID
        var feeSource = source
        var fee = Int64(header.baseFee) * Int64(tx.operations.count)
        var innerHash: Bytes32?
        var checker: SignatureChecker
        if case .feeBump(let feeBump, _) = prepared.envelope, let inner = prepared.inner {
            // CAP-15: another account pays for one more operation's worth of fee.
            feeSource = feeBump.feeSource.accountID
            fee = Int64(header.baseFee) * Int64(tx.operations.count + 1)
            var outerChecker = SignatureChecker(prepared.outer)
            if let rejection = validateFeeBump(feeBump, checker: &outerChecker) {
                return .rejected(TransactionResult(feeCharged: 0, outcome: rejection))
            }
            checker = SignatureChecker(inner)
            if let rejection = validate(tx, checker: &checker, feeBumped: true) {
                return .rejected(TransactionResult(feeCharged: 0, outcome: .feeBumpInnerFailed(
                    innerHash: inner.hash, InnerTransactionResult(feeCharged: 0, outcome: rejection))))
            }
            if !outerChecker.allSignaturesUsed { return .rejected(TransactionResult(feeCharged: 0, outcome: .code(.badAuthExtra))) }
            innerHash = inner.hash
        } else {
            checker = SignatureChecker(prepared.outer)
            if let rejection = validate(tx, checker: &checker, feeBumped: false) {
                return .rejected(TransactionResult(feeCharged: 0, outcome: rejection))
            }
        }

        // The fee and the sequence number are taken whatever the operations do.
        if feeSource != source {
            _ = modifyAccount(feeSource) { payer in
                payer.balance -= fee
                return true
            }
        }
        let (ledger, closeTime) = (header.sequence, header.closeTime)
        _ = modifyAccount(source) { account in
            if feeSource == source { account.balance -= fee }
            account.sequenceNumber = tx.sequenceNumber
            account.sequenceLedger = ledger
            account.sequenceTime = closeTime
            return true
        }
        updateHeader { $0.feePool += fee }
        removeUsedPreAuthSigners(checker.usedPreAuth, tx: tx)
        let afterFee = savepoint()

        var results: [OperationResult] = []
        results.reserveCapacity(tx.operations.count)
        var success = true
        for (index, op) in tx.operations.enumerated() {
            let opSource = op.sourceAccount?.accountID ?? source
            let before = savepoint()
            // An earlier operation may have merged the source away.
            let exists = accounts.contains(opSource)
            let probe = exists ? metaProbe(op.body, source: opSource) : nil
            let sponsoring = sponsoringChanges, pooling = poolChangeCount
            let result = exists ? applyOperation(op.body, source: opSource, index: index, of: tx) : .outer(.noAccount)
            results.append(result)
            if !result.isSuccess { success = false }
            if success, let probe, let kept = self.meta(after: probe, source: opSource) { meta[index] = kept }
            if success, poolChangeCount != pooling {
                let (changes, redeemed) = poolChanges(since: before, place: place(index, tx))
                if !changes.isEmpty { meta[index] = .pools(meta[index], changes, redeemed: redeemed) }
            }
            // Every change of an entry's sponsor moves a sponsor's count (``addSponsoring(_:_:)``).
            if success, sponsoringChanges != sponsoring, op.body.canChangeSponsorships {
                let changes = sponsorshipChanges(since: before, balancesMadeAndGone: op.body.redeemsPoolShares)
                if !changes.isEmpty { meta[index] = .sponsorships(meta[index], changes) }
            }
            // After a failure the remaining operations still run, for their result codes, but
            // nothing they do is kept.
            if !success { rollback(to: before) }
        }
        // Every sponsorship begun must have ended (CAP-33).
        let badSponsorship = success && !sponsorships.isEmpty
        if !success || badSponsorship {
            rollback(to: afterFee)
            meta = [:]
        }
        let outcome: TransactionOutcome = badSponsorship ? .code(.badSponsorship) : success ? .success(results) : .failed(results)
        guard let innerHash else { return .applied(TransactionResult(feeCharged: fee, outcome: outcome)) }
        let inner = InnerTransactionResult(feeCharged: 0, outcome: outcome)
        return .applied(TransactionResult(
            feeCharged: fee,
            outcome: success && !badSponsorship ? .feeBumpInnerSuccess(innerHash: innerHash, inner) : .feeBumpInnerFailed(innerHash: innerHash, inner)))
    }

    /// The fee bump's own checks (stellar-core's `FeeBumpTransactionFrame::commonValid`).
    private func validateFeeBump(_ feeBump: FeeBumpTransaction, checker: inout SignatureChecker) -> TransactionOutcome? {
        let operations = Int64(feeBump.innerTransaction.operations.count)
        if feeBump.fee < Int64(header.baseFee) * (operations + 1) { return .code(.insufficientFee) }
        // The outer bid per operation must be at least the inner one's.
        if U128(feeBump.fee, operations) < U128(Int64(feeBump.innerTransaction.fee), operations + 1) {
            return .code(.insufficientFee)
        }
        guard let payer = accounts[feeBump.feeSource.accountID] else { return .code(.noAccount) }
        if !checker.check(payer, neededWeight: neededWeight(payer, .low)) { return .code(.badAuth) }
        if availableBalance(payer) < feeBump.fee { return .code(.insufficientBalance) }
        return nil
    }

    /// stellar-core's `checkValid`, in its order; nil when the transaction may be applied.
    private func validate(_ tx: Transaction, checker: inout SignatureChecker, feeBumped: Bool) -> TransactionOutcome? {
        if tx.operations.isEmpty { return .code(.missingOperation) }
        if let bounds = tx.preconditions.timeBounds {
            if bounds.minTime != 0 && header.closeTime < bounds.minTime { return .code(.tooEarly) }
            if bounds.maxTime != 0 && bounds.maxTime < header.closeTime { return .code(.tooLate) }
        }
        var minSequenceNumber: Int64?
        var v2Conditions: PreconditionsV2?
        if case .v2(let v2) = tx.preconditions {
            v2Conditions = v2
            minSequenceNumber = v2.minSequenceNumber
            if let ledgers = v2.ledgerBounds {
                if ledgers.minLedger > header.sequence { return .code(.tooEarly) }
                if ledgers.maxLedger != 0 && ledgers.maxLedger <= header.sequence { return .code(.tooLate) }
            }
            if v2.extraSigners.count == 2 && v2.extraSigners[0] == v2.extraSigners[1] { return .code(.malformed) }
        }
        // The inner transaction of a fee bump pays nothing itself, so its fee is not checked.
        if !feeBumped && Int64(tx.fee) < Int64(header.baseFee) * Int64(tx.operations.count) { return .code(.insufficientFee) }
        let source = tx.sourceAccount.accountID
        guard let account = accounts[source] else { return .code(.noAccount) }

        let current = account.sequenceNumber
        if tx.sequenceNumber == header.startingSequenceNumber { return .code(.badSequence) }
        if let minSequenceNumber {
            if current < minSequenceNumber || current >= tx.sequenceNumber { return .code(.badSequence) }
        } else if current == .max || current + 1 != tx.sequenceNumber {
            return .code(.badSequence)
        }
        if let v2 = v2Conditions {
            if v2.minSequenceAge > 0 && header.closeTime < account.sequenceTime &+ v2.minSequenceAge {
                return .code(.badMinSequenceAgeOrGap)
            }
            if v2.minSequenceLedgerGap > 0 && UInt64(header.sequence) < UInt64(account.sequenceLedger) + UInt64(v2.minSequenceLedgerGap) {
                return .code(.badMinSequenceAgeOrGap)
            }
        }
        if !checker.check(account, neededWeight: neededWeight(account, .low)) { return .code(.badAuth) }
        if let v2 = v2Conditions {
            for extra in v2.extraSigners where !checker.check([Signer(key: extra, weight: 1)], neededWeight: 1) {
                return .code(.badAuth)
            }
        }
        if !feeBumped && availableBalance(account) < Int64(tx.fee) { return .code(.insufficientBalance) }

        // Results are only built when an operation fails its checks.
        var results: [OperationResult]?
        for (index, op) in tx.operations.enumerated() {
            let opSource = op.sourceAccount?.accountID ?? source
            var failure: OperationResult?
            if let opAccount = op.sourceAccount == nil ? account : accounts[opSource] {
                if !checker.check(opAccount, neededWeight: neededWeight(opAccount, op.body.thresholdLevel)) {
                    failure = .outer(.badAuth)
                }
            } else if !checker.check([Signer(key: .ed25519(opSource.publicKey), weight: 1)], neededWeight: 0) {
                failure = .outer(.badAuth)
            }
            if failure == nil { failure = op.body.checkValid(source: opSource) }
            if let failure {
                if results == nil { results = tx.operations.prefix(index).map(\.body.successResult) }
                results!.append(failure)
            } else if results != nil {
                results!.append(op.body.successResult)
            }
        }
        if let results { return .failed(results) }
        if !checker.allSignaturesUsed { return .code(.badAuthExtra) }
        return nil
    }

    /// A pre-authorized transaction signer is used up by the transaction it authorized.
    private mutating func removeUsedPreAuthSigners(_ used: Set<Bytes32>, tx: Transaction) {
        guard !used.isEmpty else { return }
        var sources: Set<AccountID> = [tx.sourceAccount.accountID]
        for op in tx.operations { if let source = op.sourceAccount { sources.insert(source.accountID) } }
        for id in sources {
            guard var account = accounts[id] else { continue }
            let before = account.signers.count
            for index in account.signers.indices.reversed() {
                if case .preAuthTx(let hash) = account.signers[index].key, used.contains(hash) { removeSigner(at: index, from: &account) }
            }
            if account.signers.count != before { setAccount(account) }
        }
    }

    /// - Parameters:
    ///   - index: the operation's index in `transaction` (a claimable balance's id depends on it).
    private mutating func applyOperation(_ body: OperationBody, source: AccountID, index: Int, of transaction: Transaction) -> OperationResult {
        switch body {
        case .createAccount(let op):
            return apply(op, source: source).result(OperationInnerResult.createAccount)
        case .payment(let op):
            return .inner(.payment(apply(op, source: source)))
        case .pathPaymentStrictReceive(let op):
            return apply(op, source: source).result(OperationInnerResult.pathPaymentStrictReceive)
        case .pathPaymentStrictSend(let op):
            return apply(op, source: source).result(OperationInnerResult.pathPaymentStrictSend)
        case .manageSellOffer(let op):
            return apply(op, source: source).result(OperationInnerResult.manageSellOffer)
        case .manageBuyOffer(let op):
            return apply(op, source: source).result(OperationInnerResult.manageBuyOffer)
        case .setOptions(let op):
            return apply(op, source: source).result(OperationInnerResult.setOptions)
        case .changeTrust(let op):
            return apply(op, source: source).result(OperationInnerResult.changeTrust)
        case .accountMerge(let destination):
            let result = applyAccountMerge(destination: destination.accountID, source: source)
            return .inner(.accountMerge(result.code, sourceAccountBalance: result.sourceAccountBalance))
        case .manageData(let op):
            return apply(op, source: source).result(OperationInnerResult.manageData)
        case .bumpSequence(let bumpTo):
            return .inner(.bumpSequence(applyBumpSequence(bumpTo, source: source)))
        case .createPassiveSellOffer(let op):
            return apply(op, source: source).result(OperationInnerResult.createPassiveSellOffer)
        case .allowTrust(let op):
            return apply(op, source: source, place: place(index, transaction)).result(OperationInnerResult.allowTrust)
        case .setTrustLineFlags(let op):
            return apply(op, source: source, place: place(index, transaction)).result(OperationInnerResult.setTrustLineFlags)
        case .clawback(let op):
            return .inner(.clawback(apply(op, source: source)))
        case .createClaimableBalance(let op):
            let id = ClaimableBalanceID.created(bySource: transaction.sourceAccount.accountID, sequence: transaction.sequenceNumber, operationIndex: index)
            return apply(op, source: source, id: id).result { .createClaimableBalance($0, balanceID: $0 == .success ? id : nil) }
        case .claimClaimableBalance(let id):
            return .inner(.claimClaimableBalance(applyClaim(id, source: source)))
        case .clawbackClaimableBalance(let id):
            return .inner(.clawbackClaimableBalance(applyClawback(id, source: source)))
        case .beginSponsoringFutureReserves(let sponsored):
            return .inner(.beginSponsoringFutureReserves(applyBeginSponsoring(sponsored, source: source)))
        case .endSponsoringFutureReserves:
            return .inner(.endSponsoringFutureReserves(applyEndSponsoring(source: source)))
        case .revokeSponsorship(let op):
            return apply(op, source: source).result(OperationInnerResult.revokeSponsorship)
        case .liquidityPoolDeposit(let op):
            return .inner(.liquidityPoolDeposit(apply(op, source: source)))
        case .liquidityPoolWithdraw(let op):
            return .inner(.liquidityPoolWithdraw(apply(op, source: source)))
        }
    }

    func place(_ index: Int, _ transaction: Transaction) -> OperationPlace {
        OperationPlace(source: transaction.sourceAccount.accountID, sequence: transaction.sequenceNumber, index: index)
    }
}
