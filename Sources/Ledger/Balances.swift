import StellarBase

/// Where an account holds an asset: XLM in the account, an issued asset in a trustline, or, for
/// the asset's issuer, an unlimited supply that needs no trustline.
enum Holding: Sendable {
    case native(AccountID)
    case issuer(AccountID, Asset)
    case line(TrustLineKey)
}

extension LedgerState {
    /// The least XLM `account` must keep: (2 + subentries + reserves it pays for others −
    /// reserves others pay for it) × base reserve (CAP-33).
    public func minimumBalance(_ account: AccountEntry) -> Int64 {
        Self.minimumBalance(account, baseReserve: Int64(header.baseReserve))
    }

    static func minimumBalance(_ account: AccountEntry, baseReserve: Int64) -> Int64 {
        (2 + Int64(account.numSubEntries) + Int64(account.numSponsoring) - Int64(account.numSponsored)) * baseReserve
    }

    /// XLM the account can spend: balance less reserve and selling liabilities (may be negative).
    public func availableBalance(_ account: AccountEntry) -> Int64 {
        account.balance - minimumBalance(account) - account.sellingLiabilities
    }

    /// The holding of `asset` by `account`, or nil when it has no trustline for it.
    func holding(_ account: AccountID, _ asset: Asset) -> Holding? {
        switch asset {
        case .native:
            return .native(account)
        case .alphanum4(_, let issuer), .alphanum12(_, let issuer):
            if issuer == account { return .issuer(account, asset) }
            let key = TrustLineKey(account, asset)
            return trustLines[key] == nil ? nil : .line(key)
        }
    }

    func isAuthorized(_ holding: Holding) -> Bool {
        switch holding {
        case .native, .issuer: true
        case .line(let key): trustLines[key]!.isAuthorized
        }
    }

    func isAuthorizedToMaintainLiabilities(_ holding: Holding) -> Bool {
        switch holding {
        case .native, .issuer: true
        case .line(let key): trustLines[key]!.isAuthorizedToMaintainLiabilities
        }
    }

    func balance(_ holding: Holding) -> Int64 {
        switch holding {
        case .native(let id): accounts[id]!.balance
        case .issuer: Int64.max
        case .line(let key): trustLines[key]!.balance
        }
    }

    /// What can be sent from the holding (stellar-core's `getAvailableBalance`).
    func availableBalance(_ holding: Holding) -> Int64 {
        switch holding {
        case .native(let id):
            return availableBalance(accounts[id]!)
        case .issuer:
            return Int64.max
        case .line(let key):
            let line = trustLines[key]!
            return line.balance - line.sellingLiabilities
        }
    }

    /// What the holding can still receive (stellar-core's `getMaxAmountReceive`).
    func maxAmountReceive(_ holding: Holding) -> Int64 {
        switch holding {
        case .native(let id):
            let account = accounts[id]!
            return Int64.max - account.balance - account.buyingLiabilities
        case .issuer: return Int64.max
        case .line(let key):
            let line = trustLines[key]!
            return line.isAuthorizedToMaintainLiabilities ? line.limit - line.balance - line.buyingLiabilities : 0
        }
    }

    /// How much of `asset` the account can sell now (stellar-core's `canSellAtMost`).
    func canSellAtMost(_ account: AccountID, _ asset: Asset) -> Int64 {
        guard let holding = holding(account, asset) else { return 0 }
        if case .native = holding { return max(availableBalance(holding), 0) }
        guard isAuthorizedToMaintainLiabilities(holding) else { return 0 }
        return max(availableBalance(holding), 0)
    }

    /// How much of `asset` the account can receive now (stellar-core's `canBuyAtMost`).
    func canBuyAtMost(_ account: AccountID, _ asset: Asset) -> Int64 {
        guard let holding = holding(account, asset) else { return 0 }
        return max(maxAmountReceive(holding), 0)
    }

    /// Adds `delta` to the holding if the result respects balance, reserve, limit and
    /// liabilities; returns whether it did (stellar-core's `addBalance`).
    @discardableResult
    mutating func addBalance(_ holding: Holding, _ delta: Int64) -> Bool {
        guard delta != 0 else { return true }
        switch holding {
        case .native(let id):
            let baseReserve = Int64(header.baseReserve)
            return modifyAccount(id) { account in
                let (newBalance, overflow) = account.balance.addingReportingOverflow(delta)
                guard !overflow, newBalance >= 0 else { return false }
                if delta < 0, newBalance - Self.minimumBalance(account, baseReserve: baseReserve) < account.sellingLiabilities { return false }
                if delta > 0, newBalance > Int64.max - account.buyingLiabilities { return false }
                account.balance = newBalance
                return true
            }
        case .issuer(_, let asset):
            recordIssuance(asset, delta)
            return true
        case .line(let key):
            var line = trustLines[key]!
            guard line.isAuthorizedToMaintainLiabilities else { return false }
            let (newBalance, overflow) = line.balance.addingReportingOverflow(delta)
            guard !overflow, newBalance >= 0, newBalance <= line.limit else { return false }
            if delta < 0, newBalance < line.sellingLiabilities { return false }
            if delta > 0, newBalance > line.limit - line.buyingLiabilities { return false }
            line.balance = newBalance
            setTrustLine(line)
            return true
        }
    }

    /// Adds to the buying (`isBuying`) or selling liabilities of the holding; returns false when
    /// they would exceed what the holding can receive or send.
    @discardableResult
    mutating func addLiabilities(_ holding: Holding, buying: Int64 = 0, selling: Int64 = 0) -> Bool {
        switch holding {
        case .native(let id):
            var account = accounts[id]!
            let newBuying = account.buyingLiabilities + buying
            let newSelling = account.sellingLiabilities + selling
            guard newBuying >= 0, newSelling >= 0 else { return false }
            guard newBuying <= Int64.max - account.balance else { return false }
            guard newSelling <= account.balance - minimumBalance(account) else { return false }
            account.buyingLiabilities = newBuying
            account.sellingLiabilities = newSelling
            setAccount(account)
            return true
        case .issuer:
            return true
        case .line(let key):
            var line = trustLines[key]!
            let newBuying = line.buyingLiabilities + buying
            let newSelling = line.sellingLiabilities + selling
            guard newBuying >= 0, newSelling >= 0 else { return false }
            guard newBuying <= line.limit - line.balance, newSelling <= line.balance else { return false }
            line.buyingLiabilities = newBuying
            line.sellingLiabilities = newSelling
            setTrustLine(line)
            return true
        }
    }
}
