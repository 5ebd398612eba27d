import StellarBase

/// The most subentries an account may have.
let maxSubEntries: UInt32 = 1000

/// ManageSellOffer and ManageBuyOffer, in stellar-core's terms: the source sells sheep for wheat.
/// A buy offer is kept in the book as a sell offer at the inverse price.
struct OfferRequest {
    var sheep: Asset
    var wheat: Asset
    var offerID: Int64
    /// Price of sheep in wheat, as stored in the book.
    var price: Price
    var isBuy: Bool
    /// Sheep to sell (sell offer) or wheat to buy (buy offer); 0 deletes.
    var amount: Int64
    /// A new passive offer: it does not take offers at exactly its price.
    var passive = false

    init(_ op: ManageSellOfferOperation) {
        sheep = op.selling
        wheat = op.buying
        offerID = op.offerID
        price = op.price
        isBuy = false
        amount = op.amount
    }

    init(_ op: CreatePassiveSellOfferOperation) {
        self.init(ManageSellOfferOperation(selling: op.selling, buying: op.buying, amount: op.amount, price: op.price))
        passive = true
    }

    init(_ op: ManageBuyOfferOperation) {
        sheep = op.selling
        wheat = op.buying
        offerID = op.offerID
        price = Price(n: op.price.d, d: op.price.n)
        isBuy = true
        amount = op.buyAmount
    }

    var isDelete: Bool { amount == 0 }

    private var liabilities: ExchangeResult {
        isBuy
            ? Exchange.exchangeV10(price: price, maxWheatSend: .max, maxWheatReceive: .max, maxSheepSend: .max, maxSheepReceive: amount, rounding: .normal)
            : Exchange.exchangeV10(price: price, maxWheatSend: amount, maxWheatReceive: .max, maxSheepSend: .max, maxSheepReceive: .max, rounding: .normal)
    }

    /// What the new offer would reserve of wheat (buying) and sheep (selling).
    var buyingLiabilities: Int64 { liabilities.sheepSend }
    var sellingLiabilities: Int64 { liabilities.wheatReceived }

    func applyLimits(maxSheepSend: inout Int64, sheepSent: Int64, maxWheatReceive: inout Int64, wheatReceived: Int64) {
        if isBuy {
            maxWheatReceive = min(maxWheatReceive, amount - wheatReceived)
        } else {
            maxSheepSend = min(maxSheepSend, amount - sheepSent)
        }
    }

    /// Checks that need no ledger state.
    func checkValid() -> ManageSellOfferResultCode? {
        if !sheep.isValid || !wheat.isValid || sheep == wheat { return .malformed }
        if amount < 0 || price.n <= 0 || price.d <= 0 { return .malformed }
        if offerID == 0 && isDelete { return .malformed }
        if offerID < 0 { return .malformed }
        return nil
    }
}

/// The shared outcome of both offer operations, in ManageSellOffer's codes.
enum OfferOutcome {
    case success(claimed: [ClaimAtom], effect: ManageOfferEffect)
    case failure(ManageSellOfferResultCode)
    case outer(OperationOuterCode)
}

func pricesCompare(_ a: Price, greaterThan b: Price) -> Bool {
    Int64(a.n) * Int64(b.d) > Int64(b.n) * Int64(a.d)
}

extension LedgerState {
    mutating func applyOffer(_ request: OfferRequest, source: AccountID) -> OfferOutcome {
        let sheep = request.sheep, wheat = request.wheat
        if !request.isDelete {
            if sheep != .native {
                guard let line = holding(source, sheep) else { return .failure(.sellNoTrust) }
                if balance(line) == 0 { return .failure(.underfunded) }
                if !isAuthorized(line) { return .failure(.sellNotAuthorized) }
            }
            if wheat != .native {
                guard let line = holding(source, wheat) else { return .failure(.buyNoTrust) }
                if !isAuthorized(line) { return .failure(.buyNotAuthorized) }
            }
        }

        // The passive flag (`PASSIVE_FLAG`) is set when the offer is made and kept by updates.
        var flags: UInt32 = request.passive ? 1 : 0
        let creatingNew = request.offerID == 0
        // Who pays the offer's reserve: its sponsor, or nil for its seller.
        let sponsor: AccountID?
        if !creatingNew {
            guard let existing = offers[request.offerID], existing.entry.sellerID == source else { return .failure(.notFound) }
            releaseLiabilities(existing.entry)
            flags = existing.entry.flags
            sponsor = existing.sponsor
            // The subentry stays counted until we know whether the offer remains.
            removeOffer(existing.entry.offerID)
        } else {
            var account = accounts[source]!
            switch addSubEntries(1, to: &account) {
            case .success(let payer): sponsor = payer
            case .failure(.lowReserve): return .failure(.lowReserve)
            case .failure(.tooManySubentries): return .outer(.tooManySubentries)
            case .failure(.tooManySponsoring): return .outer(.tooManySponsoring)
            }
            setAccount(account)
        }

        var claimed: [ClaimAtom] = []
        var amount: Int64 = 0
        if !request.isDelete {
            var maxWheatReceive = canBuyAtMost(source, wheat)
            var maxSheepSend = canSellAtMost(source, sheep)
            let availableLimit = maxAmountReceive(holding(source, wheat)!)
            if availableLimit < request.buyingLiabilities { return .failure(.lineFull) }
            let available = availableBalance(holding(source, sheep)!)
            if available < request.sellingLiabilities { return .failure(.underfunded) }
            request.applyLimits(maxSheepSend: &maxSheepSend, sheepSent: 0, maxWheatReceive: &maxWheatReceive, wheatReceived: 0)
            if maxWheatReceive == 0 { return .failure(.lineFull) }

            let maxWheatPrice = Price(n: request.price.d, d: request.price.n)
            let passive = flags & 1 != 0
            var crossedSelf = false
            let conversion = convertWithOffers(
                sheep: sheep, maxSheepSend: maxSheepSend, wheat: wheat, maxWheatReceive: maxWheatReceive, rounding: .normal,
                offerLimit: maxOffersToCross, trail: &claimed
            ) { offer in
                if (passive && !pricesCompare(maxWheatPrice, greaterThan: offer.price)) || pricesCompare(offer.price, greaterThan: maxWheatPrice) {
                    return .stop
                }
                if offer.sellerID == source {
                    crossedSelf = true
                    return .stop
                }
                return .keep
            }
            let sheepStays: Bool
            switch conversion.result {
            case .ok: sheepStays = false
            case .partial: sheepStays = true
            case .filterStop:
                if crossedSelf { return .failure(.crossSelf) }
                sheepStays = true
            case .crossedTooMany: return .outer(.exceededWorkLimit)
            }
            if conversion.wheatReceived > 0 {
                precondition(addBalance(holding(source, wheat)!, conversion.wheatReceived), "offer claimed over limit")
                precondition(addBalance(holding(source, sheep)!, -conversion.sheepSend), "offer sold more than balance")
            }
            if sheepStays {
                var sheepSendLimit = canSellAtMost(source, sheep)
                var wheatReceiveLimit = canBuyAtMost(source, wheat)
                request.applyLimits(
                    maxSheepSend: &sheepSendLimit, sheepSent: conversion.sheepSend,
                    maxWheatReceive: &wheatReceiveLimit, wheatReceived: conversion.wheatReceived)
                amount = Exchange.adjustOffer(price: request.price, maxWheatSend: sheepSendLimit, maxSheepReceive: wheatReceiveLimit)
            }
        }

        if amount > 0 {
            var offerID = request.offerID
            if creatingNew {
                updateHeader { $0.idPool += 1 }
                offerID = Int64(header.idPool)
            }
            let offer = OfferEntry(sellerID: source, offerID: offerID, selling: sheep, buying: wheat, amount: amount, price: request.price, flags: flags)
            setOffer(offer, sponsor: sponsor)
            acquireLiabilities(offer)
            return .success(claimed: claimed, effect: creatingNew ? .created(offer) : .updated(offer))
        }
        removeSubEntry(of: source, sponsor: sponsor)
        return .success(claimed: claimed, effect: .deleted)
    }

    mutating func apply(_ op: ManageSellOfferOperation, source: AccountID) -> OperationOutcome<ManageOfferResult<ManageSellOfferResultCode>> {
        applySell(OfferRequest(op), source: source)
    }

    /// A sell offer's outcome (ManageSellOffer and CreatePassiveSellOffer share its result).
    private mutating func applySell(_ request: OfferRequest, source: AccountID) -> OperationOutcome<ManageOfferResult<ManageSellOfferResultCode>> {
        switch applyOffer(request, source: source) {
        case .success(let claimed, let effect): .inner(.success(offersClaimed: claimed, effect: effect))
        case .failure(let code): .inner(.failure(code))
        case .outer(let code): .outer(code)
        }
    }

    mutating func apply(_ op: CreatePassiveSellOfferOperation, source: AccountID) -> OperationOutcome<ManageOfferResult<ManageSellOfferResultCode>> {
        applySell(OfferRequest(op), source: source)
    }

    mutating func apply(_ op: ManageBuyOfferOperation, source: AccountID) -> OperationOutcome<ManageOfferResult<ManageBuyOfferResultCode>> {
        switch applyOffer(OfferRequest(op), source: source) {
        case .success(let claimed, let effect): .inner(.success(offersClaimed: claimed, effect: effect))
        case .failure(let code): .inner(.failure(ManageBuyOfferResultCode(rawValue: code.rawValue)!))
        case .outer(let code): .outer(code)
        }
    }
}
