import Crypto
import StellarBase

// Liquidity pools (CAP-38) as stellar-core applies them: trustlines to pool shares
// (`ChangeTrustOpFrame`), deposits and withdrawals (`LiquidityPoolDepositOpFrame`,
// `LiquidityPoolWithdrawOpFrame`), path payments through a pool when it pays better than the
// book (`convertWithOffersAndPools`), and a revoked holder's shares redeemed into claimable
// balances (`removeOffersAndPoolShareTrustLines`).

extension LiquidityPoolDepositOperation {
    /// stellar-core's `LiquidityPoolDepositOpFrame::doCheckValid`.
    func checkValid() -> LiquidityPoolDepositResultCode? {
        if maxAmountA <= 0 || maxAmountB <= 0 { return .malformed }
        if minPrice.n <= 0 || minPrice.d <= 0 || maxPrice.n <= 0 || maxPrice.d <= 0 { return .malformed }
        if Int64(minPrice.n) * Int64(maxPrice.d) > Int64(minPrice.d) * Int64(maxPrice.n) { return .malformed }
        return nil
    }
}

extension LiquidityPoolWithdrawOperation {
    /// stellar-core's `LiquidityPoolWithdrawOpFrame::doCheckValid`.
    func checkValid() -> LiquidityPoolWithdrawResultCode? {
        amount <= 0 || minAmountA < 0 || minAmountB < 0 ? .malformed : nil
    }
}

extension ClaimableBalanceID {
    /// The id of the balance a revoked holder's pool shares are redeemed into: SHA-256 of the
    /// `HashIDPreimage` of type `ENVELOPE_TYPE_POOL_REVOKE_OP_ID`.
    static func revoked(bySource source: AccountID, sequence: Int64, operationIndex: Int, pool: Bytes32, asset: Asset) -> ClaimableBalanceID {
        var writer = XDRWriter()
        writer.write(Int32(7))
        source.encode(to: &writer)
        writer.write(sequence)
        writer.write(UInt32(operationIndex))
        writer.writeFixedOpaque(pool.bytes)
        asset.encode(to: &writer)
        return ClaimableBalanceID(SHA256.hash(data: writer.bytes).withUnsafeBytes { Bytes32($0) })
    }
}

/// Where an operation is, for the ids of what it makes.
struct OperationPlace {
    var source: AccountID
    var sequence: Int64
    var index: Int
}

extension LedgerState {
    // MARK: Trustlines to pool shares

    /// ChangeTrust to a pool's shares: made when the holder trusts (or issues) both assets, with
    /// enough authorization to keep them; the pool is made with its first trustline and goes with its last.
    mutating func applyPoolShareTrust(_ parameters: LiquidityPoolParameters, limit: Int64, source: AccountID) -> OperationOutcome<ChangeTrustResultCode> {
        let key = PoolShareKey(source, parameters.poolID)
        if var line = poolShares[key] {
            if limit < line.balance { return .inner(.invalidLimit) }
            if limit > 0 {
                line.limit = limit
                setPoolShare(line)
                return .inner(.success)
            }
            removePoolShare(key)
            var account = accounts[source]!
            removeSubEntries(2, from: &account, sponsor: line.sponsor)
            setAccount(account)
            releasePoolUse(parameters, holder: source)
            return .inner(.success)
        }
        if limit == 0 { return .inner(.invalidLimit) }
        for asset in [parameters.assetA, parameters.assetB] where asset != .native && asset.issuer != source {
            guard var line = trustLines[TrustLineKey(source, asset)] else { return .inner(.trustLineMissing) }
            guard line.isAuthorizedToMaintainLiabilities else { return .inner(.notAuthMaintainLiabilities) }
            line.liquidityPoolUseCount += 1
            setTrustLine(line)
        }
        if var pool = liquidityPools[key.poolID] {
            pool.trustLineCount += 1
            setLiquidityPool(pool)
        } else {
            setLiquidityPool(LiquidityPoolEntry(parameters: parameters, trustLineCount: 1, lastModifiedLedger: header.sequence))
        }
        var account = accounts[source]!
        let sponsor: AccountID?
        switch addSubEntries(2, to: &account) {
        case .success(let payer): sponsor = payer
        case .failure(let failure): return failure.outcome(lowReserve: .lowReserve)
        }
        setAccount(account)
        setPoolShare(PoolShareLine(accountID: source, poolID: key.poolID, balance: 0, limit: limit, sponsor: sponsor, lastModifiedLedger: header.sequence))
        return .inner(.success)
    }

    /// A pool-share trustline gone: its holder's asset trustlines are used by one pool fewer,
    /// and the pool goes with its last trustline.
    private mutating func releasePoolUse(_ parameters: LiquidityPoolParameters, holder: AccountID) {
        for asset in [parameters.assetA, parameters.assetB] where asset != .native && asset.issuer != holder {
            var line = trustLines[TrustLineKey(holder, asset)]!
            line.liquidityPoolUseCount -= 1
            setTrustLine(line)
        }
        var pool = liquidityPools[parameters.poolID]!
        pool.trustLineCount -= 1
        if pool.trustLineCount == 0 {
            precondition(pool.totalPoolShares == 0, "a pool with shares lost its last trustline")
            removeLiquidityPool(pool.id)
        } else {
            setLiquidityPool(pool)
        }
    }

    // MARK: Deposit and withdraw

    mutating func apply(_ op: LiquidityPoolDepositOperation, source: AccountID) -> LiquidityPoolDepositResultCode {
        guard let line = poolShares[PoolShareKey(source, op.poolID)] else { return .noTrust }
        var pool = liquidityPools[op.poolID]!
        let (assetA, assetB) = (pool.parameters.assetA, pool.parameters.assetB)
        guard let holdingA = holding(source, assetA), let holdingB = holding(source, assetB) else {
            preconditionFailure("a pool-share trustline without its assets' trustlines")
        }
        if !isAuthorized(holdingA) || !isAuthorized(holdingB) { return .notAuthorized }
        let availableA = availableBalance(holdingA), availableB = availableBalance(holdingB)
        let availableShares = line.limit - line.balance
        let amountA: Int64, amountB: Int64, shares: Int64
        if pool.totalPoolShares == 0 {
            (amountA, amountB) = (op.maxAmountA, op.maxAmountB)
            if availableA < amountA || availableB < amountB { return .underfunded }
            if Self.isBadPrice(amountA, amountB, op.minPrice, op.maxPrice) { return .badPrice }
            shares = PoolMath.squareRoot(amountA, amountB)
        } else {
            let byA = bigDivide(pool.totalPoolShares, op.maxAmountA, pool.reserveA, .down)
            let byB = bigDivide(pool.totalPoolShares, op.maxAmountB, pool.reserveB, .down)
            guard let least = [byA, byB].compactMap({ $0 }).min() else { preconditionFailure("both pool share calculations overflowed") }
            shares = least
            guard let a = bigDivide(shares, pool.reserveA, pool.totalPoolShares, .up),
                  let b = bigDivide(shares, pool.reserveB, pool.totalPoolShares, .up) else { preconditionFailure("deposit amounts overflowed") }
            (amountA, amountB) = (a, b)
            if availableA < amountA || availableB < amountB { return .underfunded }
            if Self.isBadPrice(amountA, amountB, op.minPrice, op.maxPrice) { return .badPrice }
        }
        if availableShares < shares { return .lineFull }
        if Int64.max - amountA < pool.reserveA || Int64.max - amountB < pool.reserveB || Int64.max - shares < pool.totalPoolShares { return .poolFull }
        precondition(amountA > 0 && amountB > 0 && shares > 0, "a deposit of nothing")
        precondition(addBalance(holdingA, -amountA) && addBalance(holdingB, -amountB), "an available balance could not be spent")
        pool.reserveA += amountA
        pool.reserveB += amountB
        pool.totalPoolShares += shares
        setLiquidityPool(pool)
        var changed = line
        changed.balance += shares
        setPoolShare(changed)
        return .success
    }

    /// stellar-core's `isBadPrice`: A in B outside [minPrice, maxPrice], compared without rounding.
    private static func isBadPrice(_ a: Int64, _ b: Int64, _ minPrice: Price, _ maxPrice: Price) -> Bool {
        a == 0 || b == 0 || U128(a, Int64(minPrice.d)) < U128(b, Int64(minPrice.n)) || U128(b, Int64(maxPrice.n)) < U128(a, Int64(maxPrice.d))
    }

    mutating func apply(_ op: LiquidityPoolWithdrawOperation, source: AccountID) -> LiquidityPoolWithdrawResultCode {
        guard var line = poolShares[PoolShareKey(source, op.poolID)] else { return .noTrust }
        if line.balance < op.amount { return .underfunded }
        var pool = liquidityPools[op.poolID]!
        let amountA = PoolMath.withdrawal(shares: op.amount, total: pool.totalPoolShares, reserve: pool.reserveA)
        if amountA < op.minAmountA { return .underMinimum }
        guard credit(source, pool.parameters.assetA, amountA) else { return .lineFull }
        let amountB = PoolMath.withdrawal(shares: op.amount, total: pool.totalPoolShares, reserve: pool.reserveB)
        if amountB < op.minAmountB { return .underMinimum }
        guard credit(source, pool.parameters.assetB, amountB) else { return .lineFull }
        line.balance -= op.amount
        setPoolShare(line)
        pool.totalPoolShares -= op.amount
        pool.reserveA -= amountA
        pool.reserveB -= amountB
        setLiquidityPool(pool)
        return .success
    }

    /// Adds a withdrawal to what the holder has of `asset` (authorization aside, as stellar-core).
    private mutating func credit(_ holder: AccountID, _ asset: Asset, _ amount: Int64) -> Bool {
        guard let holding = holding(holder, asset) else { preconditionFailure("a pool-share trustline without its assets' trustlines") }
        return addBalance(holding, amount)
    }

    // MARK: Path payments through pools

    /// Applies a quote of ``poolQuote(sheep:maxSheepSend:wheat:maxWheatReceive:rounding:offerLimit:)``
    /// made on the state as it is: `sent` sheep into the pool, `received` wheat out.
    private mutating func exchangeWithPool(_ pool: LiquidityPoolEntry, sheep: Asset, sent: Int64, received: Int64) {
        var changed = pool
        if sheep == pool.parameters.assetA {
            changed.reserveA += sent
            changed.reserveB -= received
        } else {
            changed.reserveB += sent
            changed.reserveA -= received
        }
        setLiquidityPool(changed)
    }

    /// stellar-core's `exchangeWithPool` on the pool of `sheep` and `wheat`, changing nothing: the
    /// pool and what it takes and gives, strict send or strict receive; nil when there is no such
    /// pool, it is empty, or it cannot do the exchange.
    func poolQuote(sheep: Asset, maxSheepSend: Int64, wheat: Asset, maxWheatReceive: Int64, rounding: ExchangeRounding, offerLimit: Int) -> (LiquidityPoolEntry, Int64, Int64)? {
        guard offerLimit > 0, !liquidityPools.isEmpty, let pool = liquidityPools[LiquidityPoolParameters(sheep, wheat).poolID] else { return nil }
        let reserveIn = pool.reserve(sheep), reserveOut = pool.reserve(wheat)
        guard reserveIn > 0 && reserveOut > 0 else { return nil }
        switch rounding {
        case .pathPaymentStrictSend:
            guard let received = PoolMath.receive(sending: maxSheepSend, reserveIn: reserveIn, reserveOut: reserveOut, fee: pool.parameters.fee) else { return nil }
            return (pool, maxSheepSend, received)
        case .pathPaymentStrictReceive:
            guard let sent = PoolMath.send(receiving: maxWheatReceive, reserveIn: reserveIn, reserveOut: reserveOut, fee: pool.parameters.fee) else { return nil }
            return (pool, sent, maxWheatReceive)
        default:
            return nil
        }
    }

    /// stellar-core's `convertWithOffersAndPools`: the book's conversion unless the pool can do
    /// it and the book cannot, or the pool pays at least as well; then the pool's, as one claim.
    mutating func convertWithOffersAndPools(
        sheep: Asset, maxSheepSend: Int64, wheat: Asset, maxWheatReceive: Int64, rounding: ExchangeRounding,
        offerLimit: Int, trail: inout [ClaimAtom], filter: (OfferEntry) -> OfferFilterResult
    ) -> (result: ConvertResult, sheepSend: Int64, wheatReceived: Int64) {
        let quote = poolQuote(sheep: sheep, maxSheepSend: maxSheepSend, wheat: wheat, maxWheatReceive: maxWheatReceive, rounding: rounding, offerLimit: offerLimit)
        let before = savepoint()
        var bookTrail: [ClaimAtom] = []
        let book = convertWithOffers(
            sheep: sheep, maxSheepSend: maxSheepSend, wheat: wheat, maxWheatReceive: maxWheatReceive, rounding: rounding,
            offerLimit: offerLimit, trail: &bookTrail, filter: filter)
        guard let (pool, sent, received) = quote else {
            trail += bookTrail
            return book
        }
        // The book is kept only when it converts in full at a strictly better rate.
        if book.result == .ok && U128(sent, book.wheatReceived) > U128(received, book.sheepSend) {
            trail += bookTrail
            return book
        }
        // The quote was made on the state the book's attempt is rolled back to.
        rollback(to: before)
        exchangeWithPool(pool, sheep: sheep, sent: sent, received: received)
        trail.append(.liquidityPool(poolID: pool.id, ClaimAtom.ClaimedAmounts(offerID: 0, assetSold: wheat, amountSold: received, assetBought: sheep, amountBought: sent)))
        return (.ok, sent, received)
    }

    // MARK: A revoked holder's shares

    /// Removes `holder`'s trustlines to the shares of pools of `asset`, as its authorization to
    /// maintain liabilities in it is taken away: what its shares are worth is redeemed into
    /// claimable balances it can claim (paid for by whoever paid for the trustline, or that
    /// account's own sponsor), the pools' reserves fall by it, and the issuer's own asset is burnt.
    mutating func redeemPoolShares(of holder: AccountID, in asset: Asset, at place: OperationPlace) -> ReserveFailure? {
        let lines = poolShares.values.filter { line in
            line.accountID == holder && liquidityPools[line.poolID].map { $0.parameters.assetA == asset || $0.parameters.assetB == asset } == true
        }.sorted { $0.poolID.bytes.lexicographicallyPrecedes($1.poolID.bytes) }
        for line in lines {
            var pool = liquidityPools[line.poolID]!
            let backer = line.sponsor ?? holder
            removePoolShare(line.key)
            var account = accounts[holder]!
            removeSubEntries(2, from: &account, sponsor: line.sponsor)
            setAccount(account)
            if line.balance > 0 {
                let amountA = PoolMath.withdrawal(shares: line.balance, total: pool.totalPoolShares, reserve: pool.reserveA)
                let amountB = PoolMath.withdrawal(shares: line.balance, total: pool.totalPoolShares, reserve: pool.reserveB)
                for (poolAsset, amount) in [(pool.parameters.assetA, amountA), (pool.parameters.assetB, amountB)] {
                    if let failure = redeem(poolAsset, amount, pool: pool.id, holder: holder, backer: backer, place: place) { return failure }
                }
                pool.totalPoolShares -= line.balance
                pool.reserveA -= amountA
                pool.reserveB -= amountB
                setLiquidityPool(pool)
            }
            releasePoolUse(pool.parameters, holder: holder)
        }
        return nil
    }

    private mutating func redeem(_ asset: Asset, _ amount: Int64, pool: Bytes32, holder: AccountID, backer: AccountID, place: OperationPlace) -> ReserveFailure? {
        guard amount > 0 else { return nil }
        // The issuer's own asset leaves circulation.
        if asset.issuer == holder {
            recordIssuance(asset, amount)
            return nil
        }
        let clawback = asset != .native && trustLines[TrustLineKey(holder, asset)]!.flags & TrustLineFlags.clawbackEnabled != 0
        let sponsor: AccountID
        if let backersSponsor = sponsorships[backer] {
            if let failure = cannotSponsor(backersSponsor, 1) { return failure }
            sponsor = backersSponsor
        } else {
            // The trustline's two reserves were just freed: the backer pays without a check.
            sponsor = backer
        }
        addSponsoring(sponsor, 1)
        setClaimableBalance(ClaimableBalanceEntry(
            id: .revoked(bySource: place.source, sequence: place.sequence, operationIndex: place.index, pool: pool, asset: asset),
            claimants: [Claimant(destination: holder)], asset: asset, amount: amount, clawbackEnabled: clawback, sponsor: sponsor,
            lastModifiedLedger: header.sequence))
        return nil
    }
}
