import StellarBase

extension PaymentOperation {
    func checkValid() -> PaymentResultCode? {
        if amount <= 0 || !asset.isValid { return .malformed }
        return nil
    }
}

extension PathPaymentStrictReceiveOperation {
    func checkValid() -> PathPaymentStrictReceiveResultCode? {
        if destAmount <= 0 || sendMax <= 0 { return .malformed }
        if !sendAsset.isValid || !destAsset.isValid || !path.allSatisfy(\.isValid) { return .malformed }
        return nil
    }
}

extension PathPaymentStrictSendOperation {
    func checkValid() -> PathPaymentStrictSendResultCode? {
        if sendAmount <= 0 || destMin <= 0 { return .malformed }
        if !sendAsset.isValid || !destAsset.isValid || !path.allSatisfy(\.isValid) { return .malformed }
        return nil
    }
}

/// An operation's own result, or an operation-level code such as `op_exceeded_work_limit`.
enum OperationOutcome<Inner: Sendable>: Sendable {
    case inner(Inner)
    case outer(OperationOuterCode)

    /// The operation's result: the inner outcome as `wrap` makes it, or the outer code.
    func result(_ wrap: (Inner) -> OperationInnerResult) -> OperationResult {
        switch self {
        case .inner(let inner): .inner(wrap(inner))
        case .outer(let code): .outer(code)
        }
    }
}

/// The failures common to both path payments, mapped onto each operation's own codes.
enum PathPaymentFailure: Error {
    case malformed, underfunded, sourceNoTrust, sourceNotAuthorized, noDestination, noTrust, notAuthorized
    case lineFull, tooFewOffers, offerCrossSelf, constraintNotMet, exceededWorkLimit
}

extension LedgerState {
    /// A payment is a strict-receive path payment of one asset with no path (as in
    /// stellar-core), done directly: credit the destination, then debit the source.
    mutating func apply(_ op: PaymentOperation, source: AccountID) -> PaymentResultCode {
        let destination = op.destination.accountID
        // Sending XLM to oneself succeeds without touching anything.
        if destination == source && op.asset == .native { return .success }
        do throws(PathPaymentFailure) {
            let bypass = bypassesIssuerCheck(sendAsset: op.asset, destAsset: op.asset, path: [], destination: destination)
            if !bypass && accounts[destination] == nil { throw PathPaymentFailure.noDestination }
            try updateDestinationBalance(destination, op.asset, op.amount)
            try updateSourceBalance(source, op.asset, op.amount)
            return .success
        } catch {
            switch error {
            case .malformed: return .malformed
            case .underfunded: return .underfunded
            case .sourceNoTrust: return .sourceNoTrust
            case .sourceNotAuthorized: return .sourceNotAuthorized
            case .noDestination: return .noDestination
            case .noTrust: return .noTrust
            case .notAuthorized: return .notAuthorized
            case .lineFull: return .lineFull
            case .tooFewOffers, .offerCrossSelf, .constraintNotMet, .exceededWorkLimit:
                preconditionFailure("a payment without a path crosses no offers")
            }
        }
    }

    mutating func apply(_ op: PathPaymentStrictReceiveOperation, source: AccountID) -> OperationOutcome<PathPaymentResult<PathPaymentStrictReceiveResultCode>> {
        var offers: [ClaimAtom] = []
        do throws(PathPaymentFailure) {
            let destination = op.destination.accountID
            let bypass = bypassesIssuerCheck(sendAsset: op.sendAsset, destAsset: op.destAsset, path: op.path, destination: destination)
            if !bypass && accounts[destination] == nil { throw PathPaymentFailure.noDestination }
            try updateDestinationBalance(destination, op.destAsset, op.destAmount)
            // Walk from the destination back to the source asset.
            var receiveAsset = op.destAsset
            var maxReceive = op.destAmount
            for sendAsset in op.path.reversed() + [op.sendAsset] where sendAsset != receiveAsset {
                var trail: [ClaimAtom] = []
                let sent = try convert(
                    source: source, sendAsset: sendAsset, maxSend: .max, receiveAsset: receiveAsset, maxReceive: maxReceive,
                    rounding: .pathPaymentStrictReceive, offerLimit: maxOffersToCross - offers.count, trail: &trail,
                    isComplete: { _, received in received == maxReceive }).sent
                maxReceive = sent
                receiveAsset = sendAsset
                offers.insert(contentsOf: trail, at: 0)
            }
            if maxReceive > op.sendMax { throw PathPaymentFailure.constraintNotMet }
            try updateSourceBalance(source, op.sendAsset, maxReceive)
            return .inner(.success(offers: offers, last: SimplePaymentResult(destination: destination, asset: op.destAsset, amount: op.destAmount)))
        } catch .exceededWorkLimit {
            return .outer(.exceededWorkLimit)
        } catch {
            return .inner(.failure(PathPaymentStrictReceiveResultCode(error, constraint: .overSendMax)))
        }
    }

    mutating func apply(_ op: PathPaymentStrictSendOperation, source: AccountID) -> OperationOutcome<PathPaymentResult<PathPaymentStrictSendResultCode>> {
        var offers: [ClaimAtom] = []
        do throws(PathPaymentFailure) {
            let destination = op.destination.accountID
            let bypass = bypassesIssuerCheck(sendAsset: op.sendAsset, destAsset: op.destAsset, path: op.path, destination: destination)
            if !bypass && accounts[destination] == nil { throw PathPaymentFailure.noDestination }
            try updateSourceBalance(source, op.sendAsset, op.sendAmount)
            var sendAsset = op.sendAsset
            var maxSend = op.sendAmount
            for receiveAsset in op.path + [op.destAsset] where receiveAsset != sendAsset {
                var trail: [ClaimAtom] = []
                let received = try convert(
                    source: source, sendAsset: sendAsset, maxSend: maxSend, receiveAsset: receiveAsset, maxReceive: .max,
                    rounding: .pathPaymentStrictSend, offerLimit: maxOffersToCross - offers.count, trail: &trail,
                    isComplete: { sent, _ in sent == maxSend }).received
                maxSend = received
                sendAsset = receiveAsset
                offers.append(contentsOf: trail)
            }
            if maxSend < op.destMin { throw PathPaymentFailure.constraintNotMet }
            try updateDestinationBalance(destination, op.destAsset, maxSend)
            return .inner(.success(offers: offers, last: SimplePaymentResult(destination: destination, asset: op.destAsset, amount: maxSend)))
        } catch .exceededWorkLimit {
            return .outer(.exceededWorkLimit)
        } catch {
            return .inner(.failure(PathPaymentStrictSendResultCode(error, constraint: .underDestMin)))
        }
    }

    /// Credits sent back to their issuer with no path need no destination account.
    private func bypassesIssuerCheck(sendAsset: Asset, destAsset: Asset, path: [Asset], destination: AccountID) -> Bool {
        destAsset != .native && path.isEmpty && sendAsset == destAsset && destAsset.issuer == destination
    }

    private mutating func convert(
        source: AccountID, sendAsset: Asset, maxSend: Int64, receiveAsset: Asset, maxReceive: Int64,
        rounding: ExchangeRounding, offerLimit: Int, trail: inout [ClaimAtom], isComplete: (Int64, Int64) -> Bool
    ) throws(PathPaymentFailure) -> (sent: Int64, received: Int64) {
        var crossedSelf = false
        let conversion = convertWithOffersAndPools(
            sheep: sendAsset, maxSheepSend: maxSend, wheat: receiveAsset, maxWheatReceive: maxReceive, rounding: rounding,
            offerLimit: offerLimit, trail: &trail
        ) { offer in
            if offer.sellerID == source {
                crossedSelf = true
                return .stop
            }
            return .keep
        }
        switch conversion.result {
        case .filterStop:
            precondition(crossedSelf)
            throw .offerCrossSelf
        case .ok:
            guard isComplete(conversion.sheepSend, conversion.wheatReceived) else { throw .tooFewOffers }
        case .partial:
            throw .tooFewOffers
        case .crossedTooMany:
            throw .exceededWorkLimit
        }
        return (conversion.sheepSend, conversion.wheatReceived)
    }

    private mutating func updateSourceBalance(_ source: AccountID, _ asset: Asset, _ amount: Int64) throws(PathPaymentFailure) {
        if asset == .native {
            guard let account = accounts[source] else { throw .malformed }
            guard amount <= availableBalance(account) else { throw .underfunded }
            precondition(addBalance(.native(source), -amount))
            return
        }
        guard let holding = holding(source, asset) else { throw .sourceNoTrust }
        guard isAuthorized(holding) else { throw .sourceNotAuthorized }
        guard addBalance(holding, -amount) else { throw .underfunded }
    }

    private mutating func updateDestinationBalance(_ destination: AccountID, _ asset: Asset, _ amount: Int64) throws(PathPaymentFailure) {
        if asset == .native {
            guard addBalance(.native(destination), amount) else { throw .lineFull }
            return
        }
        guard let holding = holding(destination, asset) else { throw .noTrust }
        guard isAuthorized(holding) else { throw .notAuthorized }
        guard addBalance(holding, amount) else { throw .lineFull }
    }
}

extension PathPaymentResultCodeProtocol {
    /// The operation's own code for a failure (both path payments number them alike); the
    /// constraint failure is over-send-max or under-destination-minimum.
    init(_ failure: PathPaymentFailure, constraint: Self) {
        let raw: Int32 = switch failure {
        case .malformed: -1
        case .underfunded: -2
        case .sourceNoTrust: -3
        case .sourceNotAuthorized: -4
        case .noDestination: -5
        case .noTrust: -6
        case .notAuthorized: -7
        case .lineFull: -8
        case .tooFewOffers: -10
        case .offerCrossSelf: -11
        case .constraintNotMet: constraint.rawValue
        case .exceededWorkLimit: preconditionFailure("exceeding the work limit is an operation-level code")
        }
        self.init(rawValue: raw)!
    }
}
