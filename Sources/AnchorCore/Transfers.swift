import Anchor
import Crypto
import Foundation
import Gateway
import GatewayCore
import Ledger
import Logging
import StellarBase

/// A SEP-24 transfer as the store keeps it.
public struct TransferRecord: Codable, Sendable, Equatable {
    public let id: String
    public var machine: TransferMachine
    /// The anchor's asset (`EUR`, `USDC`) and the gateway's currency paid in or out (`eur`, `usd`).
    public let assetCode: String
    public let currency: String
    /// The user: the token's account and memo.
    public let account: String
    public let memo: UInt64?
    /// Where a deposit is paid (the `account` asked, else the token's).
    public let destination: String
    public let started: Int64
    public var updated: Int64
    public var completedAt: Int64?
    /// The interactive URL's one-time token, hashed; nil once used.
    public var interactiveTokenHash: [UInt8]?
    /// The Checkout Session a deposit is paid through.
    public var session: String?
    /// The payment method a deposit is paid by (`card`, `ideal`).
    public var method: String?
    /// A withdrawal: the id memo the user's payment to the anchor must carry.
    public var withdrawMemo: UInt64?
    /// A withdrawal: the paging token from which the anchor's incoming payments are read.
    public var watchFrom: Int64?
    public var lang: String?
    /// An exchange (SEP-6's deposit-exchange, withdraw-exchange): the SEP-38 quote it honours, if any.
    public var exchange: Bool?
    public var quote: String?
}

extension ObjectKind {
    static let anchorTransfer = ObjectKind(rawValue: "anchor_transfer")
    static let anchorConfiguration = ObjectKind(rawValue: "anchor_configuration")
}

/// An asset the anchor moves in and out through the gateway: its ledger asset and the fiat
/// currency it stands for, with the limits and fees `/info` states.
public struct TransferAsset: Sendable {
    public let code: String
    public let asset: Asset
    public let currency: GatewayCurrency
    /// Minor units.
    public let minimum: Int64
    public let maximum: Int64
    /// A deposit's fee: the gateway's card fee, which the anchor passes on.
    public let depositPercentBasisPoints: Int64
    public let depositFixed: Int64
    /// A withdrawal's fee: fixed.
    public let withdrawFixed: Int64

    public func depositFee(_ amount: Int64) -> Int64 {
        min((amount * depositPercentBasisPoints + 5_000) / 10_000 + depositFixed, amount)
    }

    public func withdrawFee(_ amount: Int64) -> Int64 { min(withdrawFixed, amount) }
}

/// SEP-24's transfers: started by a wallet with its token, continued by the user on the
/// interactive pages, moved on by the janitor as the gateway and the ledger report what
/// happened. A deposit is paid by card or iDEAL through a Checkout Session of the anchor's own
/// gateway merchant; once it is settled into the anchor's settlement account, the anchor pays
/// the amount less its fee from there to the user's account. A withdrawal waits for the user's
/// payment of the asset to the anchor's account with its memo, then pays the fiat out through
/// the gateway (a payout that takes the asset out of circulation).
public final class TransferService: Sendable {
    let gateway: GatewayService
    let reader: any LedgerReader
    let logger: Logger
    public let assets: [TransferAsset]
    static let owner = "anchor"
    /// An interactive URL's life, unused: an hour.
    public static let interactiveLifetime: Int64 = 3_600

    package init(gateway: GatewayService, reader: any LedgerReader, logger: Logger) {
        self.gateway = gateway
        self.reader = reader
        self.logger = logger
        let fees = gateway.fees
        assets = GatewayCurrency.supported.compactMap { currency in
            guard let anchored = gateway.anchor.currency(code: currency.assetCode) else { return nil }
            return TransferAsset(
                code: anchored.code, asset: anchored.asset, currency: currency, minimum: 100, maximum: 1_000_000,
                depositPercentBasisPoints: fees.cardBasisPoints, depositFixed: fees.cardFixedMinorUnits, withdrawFixed: 25)
        }
    }

    public func asset(_ code: String?) -> TransferAsset? {
        guard let code else { return nil }
        let bare = code.split(separator: ":").first.map(String.init) ?? code
        return assets.first { $0.code.caseInsensitiveCompare(bare) == .orderedSame }
    }

    var now: Int64 { gateway.now() }

    // MARK: The anchor's merchant

    /// The gateway merchant the anchor takes payments as: made on first use, its id kept in the store.
    package func merchant() async throws -> MerchantRecord {
        if let stored = try await gateway.store.object(id: "anchor", kind: .anchorConfiguration, merchant: Self.owner),
           let merchant = try await gateway.store.merchant(id: String(decoding: stored.body, as: UTF8.self)) {
            return merchant
        }
        let made = try await gateway.createMerchant(name: "Tender test anchor")
        do {
            try await gateway.store.insert(StoredObject(id: "anchor", merchant: Self.owner, kind: .anchorConfiguration, created: now, body: Array(made.record.id.utf8)))
            return made.record
        } catch {
            // Another request made one first: use that one.
            guard let stored = try await gateway.store.object(id: "anchor", kind: .anchorConfiguration, merchant: Self.owner),
                  let merchant = try await gateway.store.merchant(id: String(decoding: stored.body, as: UTF8.self)) else { throw error }
            return merchant
        }
    }

    // MARK: Starting

    /// `POST /transactions/deposit/interactive` or `/withdraw/interactive`: a new transfer of the
    /// token's user and the one-time token of its interactive URL.
    public func start(_ kind: TransferMachine.Kind, user: AnchorUser, assetCode: String?, account: String?, lang: String?, id given: String? = nil, currency: GatewayCurrency? = nil) async throws -> (TransferRecord, token: String) {
        guard let asset = asset(assetCode) else {
            throw AnchorFailure.badRequest(code: "invalid_asset", message: "asset_code must be one of \(assets.map(\.code).joined(separator: ", ")), the assets this anchor moves")
        }
        var destination = user.account.strKey
        if let account, !account.isEmpty {
            guard let muxed = try? MuxedAccount(account) else { throw AnchorFailure.badRequest(code: "invalid_request", message: "account \(account) is not a G... or M... address") }
            guard kind == .deposit || muxed.accountID == user.account else { throw AnchorFailure.unauthorized("a withdrawal is from the token's account") }
            destination = muxed.accountID.strKey
        }
        let token = GatewayIDs.make("", random: gateway.random, length: 32).dropFirst()
        let time = now
        let id = given ?? newTransferID()
        var record = TransferRecord(
            id: id, machine: TransferMachine(kind: kind), assetCode: asset.code, currency: (currency ?? asset.currency).code, account: user.account.strKey,
            memo: user.memo ?? user.muxedID, destination: destination, started: time, updated: time, interactiveTokenHash: Self.hash(String(token)), lang: lang)
        if kind == .withdrawal {
            record.withdrawMemo = UInt64(bigEndianBytes: Array(SHA256.hash(data: Array("withdraw memo \(id)".utf8)).prefix(8))) & 0x7FFF_FFFF_FFFF_FFFF
            let latest = try await reader.latestLedgerSequence() ?? 0
            record.watchFrom = Int64(latest) << 32
        }
        try await gateway.store.insert(StoredObject(
            id: id, merchant: Self.owner, kind: .anchorTransfer, customer: record.account, created: time, body: try Self.encode(record), attentionAt: time + Self.interactiveLifetime))
        logger.info("anchor transfer started", metadata: ["transfer.id": "\(id)", "transfer.kind": "\(kind.rawValue)", "transfer.asset": "\(asset.code)"])
        return (record, String(token))
    }

    static func hash(_ token: String) -> [UInt8] { Array(SHA256.hash(data: Array(token.utf8))) }

    /// A new transfer's id.
    public func newTransferID() -> String { UUIDText.make(gateway.random(16)) }

    /// SEP-6's exchanges: a transfer between `fiat` and the anchor's `asset` at `price` (a
    /// SEP-38 quote's, or the price now), started and its amount chosen at once. A deposit is
    /// then paid on the payment page in `fiat`; a withdrawal waits for the asset with its memo.
    public func startExchange(
        _ kind: TransferMachine.Kind, user: AnchorUser, id: String, asset: TransferAsset, fiat: GatewayCurrency, sell: Int64, fee: Int64, buy: Int64, quote: String?,
        account: String?, method: PaymentMethodType, successURL: String, base: String
    ) async throws -> (TransferRecord, page: String?) {
        var (record, _) = try await start(kind, user: user, assetCode: asset.code, account: account, lang: nil, id: id, currency: fiat)
        guard let stored = try await gateway.store.object(id: id, kind: .anchorTransfer, merchant: Self.owner) else { throw AnchorFailure.notFound("transaction \(id) not found") }
        record.exchange = true
        record.quote = quote
        record.interactiveTokenHash = nil
        try record.machine.apply(.amountChosen(amountIn: sell, fee: fee, exchangedOut: buy))
        guard kind == .deposit else {
            _ = try await save(record, over: stored, attention: now + 1)
            return (record, nil)
        }
        guard method == .card || fiat.code == "eur" else { throw AnchorFailure.badRequest(code: "invalid_method", message: "iDEAL pays in euros only") }
        let view = try await gateway.createCheckoutSession(NewCheckoutSession(
            lineItems: [SessionLineItem(name: "Exchange to \(asset.code) for \(record.destination.prefix(4))…\(record.destination.suffix(4))", unitAmount: sell, quantity: 1)],
            currency: fiat, successURL: successURL, cancelURL: successURL, clientReferenceID: id, paymentMethodTypes: [method], metadata: ["anchor_transaction": id]),
            merchant: try await merchant(), base: base)
        record.session = view.session.id.rawValue
        record.method = method.rawValue
        record.machine.link(external: view.intent.id.rawValue)
        _ = try await save(record, over: stored, attention: now + 1)
        return (record, "/pay/\(view.session.id.rawValue)")
    }

    static func encode(_ record: TransferRecord) throws -> [UInt8] { Array(try JSONEncoder().encode(record)) }

    func load(_ id: String) async throws -> (StoredObject, TransferRecord)? {
        guard id.utf8.count <= 64, let stored = try await gateway.store.object(id: id, kind: .anchorTransfer, merchant: Self.owner) else { return nil }
        return (stored, try JSONDecoder().decode(TransferRecord.self, from: Data(stored.body)))
    }

    /// Writes `record` over `stored` (if nobody else did first), due again at `attention`.
    @discardableResult
    func save(_ record: TransferRecord, over stored: StoredObject, attention: Int64?) async throws -> StoredObject? {
        var object = stored
        var record = record
        record.updated = now
        if record.machine.status.isFinal, record.completedAt == nil { record.completedAt = record.updated }
        object.body = try Self.encode(record)
        object.attentionAt = record.machine.status.isFinal ? nil : attention
        guard try await gateway.store.update(object) else { return nil }
        object.version += 1
        return object
    }

    // MARK: Reading

    /// A transfer of the token's user (another user's is not found).
    public func transfer(_ user: AnchorUser, id: String?, stellarTransaction: String?, external: String?) async throws -> TransferRecord {
        if let id, !id.isEmpty {
            // By id: one read; another user's is not found, as an unknown one is not.
            guard let record = try await load(id)?.1, record.account == user.account.strKey, record.memo == (user.memo ?? user.muxedID) else {
                throw AnchorFailure.notFound("transaction not found")
            }
            return record
        }
        let mine = try await transfers(user, assetCode: nil, kind: nil, limit: 200, olderThan: nil, noOlderThan: nil)
        let found: TransferRecord? = if let stellarTransaction, !stellarTransaction.isEmpty {
            mine.first { $0.machine.stellarTransaction == stellarTransaction }
        } else if let external, !external.isEmpty {
            mine.first { $0.machine.external == external || $0.session == external }
        } else {
            throw AnchorFailure.badRequest(code: "invalid_request", message: "one of id, stellar_transaction_id and external_transaction_id is required")
        }
        guard let found else { throw AnchorFailure.notFound("transaction not found") }
        return found
    }

    /// The token's user's transfers, newest first.
    public func transfers(_ user: AnchorUser, assetCode: String?, kind: TransferMachine.Kind?, limit: Int, olderThan: String?, noOlderThan: Int64?) async throws -> [TransferRecord] {
        let memo = user.memo ?? user.muxedID
        var out: [TransferRecord] = []
        var after: String?
        while out.count < limit {
            let page = try await gateway.store.list(kind: ObjectKind.anchorTransfer.rawValue, merchant: Self.owner, ListRequest(limit: 100, startingAfter: after, customer: user.account.strKey))
            for object in page.objects {
                let record = try JSONDecoder().decode(TransferRecord.self, from: Data(object.body))
                guard record.memo == memo, assetCode.map({ asset($0)?.code == record.assetCode }) ?? true, kind.map({ $0 == record.machine.kind }) ?? true,
                      noOlderThan.map({ record.started >= $0 }) ?? true else { continue }
                out.append(record)
            }
            guard page.hasMore, let last = page.objects.last else { break }
            after = last.id
        }
        if let olderThan, let index = out.firstIndex(where: { $0.id == olderThan }) { out = Array(out[(index + 1)...]) }
        return Array(out.prefix(limit))
    }

    // MARK: The interactive pages

    /// The transfer an interactive page is for: by its one-time token (used up here), or
    /// (later pages) by the browser's proof, checked by the caller.
    public func openInteractive(id: String, token: String) async throws -> TransferRecord {
        guard let (stored, record) = try await load(id), let hash = record.interactiveTokenHash,
              GatewayService.constantTimeEqual(Hex.encode(hash), Hex.encode(Self.hash(token))) else {
            throw AnchorFailure.notFound("this link is not valid, or was already used: start again from the wallet")
        }
        guard record.started + Self.interactiveLifetime > now else { throw AnchorFailure.notFound("this link expired: start again from the wallet") }
        var used = record
        used.interactiveTokenHash = nil
        guard try await save(used, over: stored, attention: stored.attentionAt) != nil else { throw AnchorFailure.notFound("this link was already used") }
        return used
    }

    public func record(_ id: String) async throws -> TransferRecord? { try await load(id)?.1 }

    /// A deposit's amount and method chosen on its page: a Checkout Session of the anchor's
    /// merchant for the amount, whose page the user is sent to (returning to `successURL`).
    /// - Returns: the session's page path (`/pay/cs_...`).
    public func chooseDeposit(id: String, amount: Int64, method: PaymentMethodType, successURL: String, cancelURL: String, base: String) async throws -> String {
        guard let (stored, record) = try await load(id), record.machine.kind == .deposit, let asset = asset(record.assetCode) else {
            throw AnchorFailure.notFound("transaction \(id) not found")
        }
        if let session = record.session { return "/pay/\(session)" }
        guard record.machine.status == .incomplete else { throw AnchorFailure.badRequest(code: "invalid_state", message: "this deposit is \(record.machine.status.rawValue)") }
        try checkLimits(amount, asset)
        guard method == .card || asset.currency.code == "eur" else { throw AnchorFailure.badRequest(code: "invalid_method", message: "iDEAL pays in euros only") }
        var updated = record
        try updated.machine.apply(.amountChosen(amountIn: amount, fee: asset.depositFee(amount)))
        let view = try await gateway.createCheckoutSession(NewCheckoutSession(
            lineItems: [SessionLineItem(name: "Deposit of \(asset.code) to \(record.destination.prefix(4))…\(record.destination.suffix(4))", unitAmount: amount, quantity: 1)],
            currency: asset.currency, successURL: successURL, cancelURL: cancelURL, clientReferenceID: id,
            paymentMethodTypes: [method], metadata: ["anchor_transaction": id]), merchant: try await merchant(), base: base)
        updated.session = view.session.id.rawValue
        updated.method = method.rawValue
        updated.machine.link(external: view.intent.id.rawValue)
        guard try await save(updated, over: stored, attention: now + 1) != nil else { throw AnchorFailure.badRequest(code: "conflict", message: "the deposit changed meanwhile; reload the page") }
        return "/pay/\(view.session.id.rawValue)"
    }

    /// A withdrawal's amount chosen on its page: the user is told where to pay and with which memo.
    public func chooseWithdrawal(id: String, amount: Int64) async throws -> TransferRecord {
        guard let (stored, record) = try await load(id), record.machine.kind == .withdrawal, let asset = asset(record.assetCode) else {
            throw AnchorFailure.notFound("transaction \(id) not found")
        }
        guard record.machine.status == .incomplete else { return record }
        try checkLimits(amount, asset)
        var updated = record
        try updated.machine.apply(.amountChosen(amountIn: amount, fee: asset.withdrawFee(amount)))
        guard try await save(updated, over: stored, attention: now + 1) != nil else { throw AnchorFailure.badRequest(code: "conflict", message: "the withdrawal changed meanwhile; reload the page") }
        return updated
    }

    func checkLimits(_ amount: Int64, _ asset: TransferAsset) throws {
        guard amount >= asset.minimum, amount <= asset.maximum else {
            throw AnchorFailure.badRequest(
                code: "invalid_amount",
                message: "the amount is \(FiatConversion.format(minorUnits: asset.minimum, exponent: 2)) to \(FiatConversion.format(minorUnits: asset.maximum, exponent: 2))")
        }
    }

    /// The anchor's account a withdrawal is paid to: its merchant's settlement account.
    public func withdrawAccount() async throws -> String { try await merchant().settlementAccount }

    // MARK: Moving on

    /// Moves every transfer due on by what the gateway and the ledger now say (the janitor's
    /// round). Returns how many moved.
    @discardableResult
    public func advanceDue(limit: Int = 100) async throws -> Int {
        var moved = 0
        for stored in try await gateway.store.dueObjects(kind: ObjectKind.anchorTransfer.rawValue, now: now, limit: limit) {
            if try await advance(stored.id) { moved += 1 }
        }
        return moved
    }

    /// Moves one transfer on as far as it can go now. Returns whether it moved.
    @discardableResult
    public func advance(_ id: String) async throws -> Bool {
        guard let (stored, record) = try await load(id), !record.machine.status.isFinal, let asset = asset(record.assetCode) else { return false }
        let before = record.machine.status
        switch record.machine.kind {
        case .deposit: try await advanceDeposit(stored, record, asset)
        case .withdrawal: try await advanceWithdrawal(stored, record, asset)
        }
        return try await load(id)?.1.machine.status != before
    }

    func advanceDeposit(_ stored: StoredObject, _ record: TransferRecord, _ asset: TransferAsset) async throws {
        var stored = stored
        var record = record
        let merchant = try await merchant()
        if record.machine.status == .incomplete {
            // Never chosen: forgotten an hour after it started.
            if record.started + Self.interactiveLifetime <= now {
                try record.machine.apply(.userTransferFailed("the deposit was not started within an hour"))
                try await save(record, over: stored, attention: nil)
            } else {
                try await save(record, over: stored, attention: record.started + Self.interactiveLifetime)
            }
            return
        }
        guard let session = record.session else { return }
        let view = try await gateway.checkoutSession(CheckoutSessionID(session), merchant: merchant)
        let intent = view.intent
        if record.machine.status == .pendingUserTransferStart {
            if intent.machine.status == .succeeded, intent.settlement == .settled {
                try record.machine.apply(.userTransferReceived(stellarTransaction: nil))
                guard let saved = try await save(record, over: stored, attention: now) else { return }
                stored = saved
                logger.info("anchor deposit paid", metadata: ["transfer.id": "\(record.id)", "payment.intent.id": "\(intent.id)"])
            } else if let failure = intent.machine.lastPaymentError, intent.machine.status == .requiresPaymentMethod {
                // A declined payment ends the deposit; its session closes so it cannot be paid later.
                _ = try? await gateway.expireCheckoutSession(view.session.id, merchant: merchant, base: "")
                let again = try await gateway.checkoutSession(view.session.id, merchant: merchant)
                if again.intent.machine.status != .succeeded {
                    try record.machine.apply(.userTransferFailed("the payment failed: \(failure.message)"))
                    try await save(record, over: stored, attention: nil)
                } else {
                    // Paid after all, between the decline and the close: the next round settles it.
                    try await save(record, over: stored, attention: now)
                }
                return
            } else if view.status(now: now) == .expired, intent.machine.status != .succeeded {
                try record.machine.apply(.userTransferFailed("the deposit was not paid in time"))
                try await save(record, over: stored, attention: nil)
                return
            } else {
                try await save(record, over: stored, attention: now + 1)
                return
            }
        }
        // Paid: before the asset moves, a refund of the payment ends it.
        if [.pendingAnchor, .pendingTrust].contains(record.machine.status), intent.machine.amountRefunded > 0 {
            try record.machine.apply(.refunded)
            try await save(record, over: stored, attention: nil)
            return
        }
        guard let destination = try? AccountID(record.destination), let amountOut = record.machine.amountOut else { return }
        if record.machine.status == .pendingAnchor || record.machine.status == .pendingTrust {
            let trusts = try await reader.account(destination)?.trustLines.contains { $0.asset == asset.asset && $0.isAuthorized } ?? false
            guard trusts else {
                if record.machine.status == .pendingAnchor { try record.machine.apply(.trustMissing) }
                try await save(record, over: stored, attention: now + 2)
                return
            }
            // Recorded before paying: after a crash, the payment is looked for before it is made again.
            try record.machine.apply(.paying)
            guard let saved = try await save(record, over: stored, attention: now) else { return }
            stored = saved
        }
        guard record.machine.status == .pendingStellar else { return }
        let memo = "tender anchor deposit \(record.id)"
        let paid: String
        if let found = try await gateway.findOnLedger(memo: memo, account: destination, reader: reader) {
            paid = found.hash.hex
        } else if record.exchange == true {
            // An exchange: the fiat paid in stays with the anchor (its reserve in that currency);
            // the asset is issued anew.
            paid = try await issue(amountOut, of: asset, to: destination, memo: memo)
        } else {
            do {
                paid = try await gateway.payFromSettlement(amountOut, of: asset.currency, to: destination, memo: memo, merchant: merchant, parameter: "amount").hash.hex
            } catch let failure as GatewayFailure where failure.code == .payoutDestinationInvalid {
                // The trustline went away meanwhile: wait for it again.
                try record.machine.apply(.payFailed("the account cannot receive \(asset.code) now: \(failure.message)"))
                try await save(record, over: stored, attention: nil)
                return
            }
        }
        try record.machine.apply(.paid(paid))
        try await save(record, over: stored, attention: nil)
        logger.info("anchor deposit completed", metadata: ["transfer.id": "\(record.id)", "ledger.transaction": "\(paid)"])
    }

    func advanceWithdrawal(_ stored: StoredObject, _ record: TransferRecord, _ asset: TransferAsset) async throws {
        var stored = stored
        var record = record
        let merchant = try await merchant()
        switch record.machine.status {
        case .incomplete:
            if record.started + Self.interactiveLifetime <= now {
                try record.machine.apply(.userTransferFailed("the withdrawal was not started within an hour"))
                try await save(record, over: stored, attention: nil)
            } else {
                try await save(record, over: stored, attention: record.started + Self.interactiveLifetime)
            }
        case .pendingUserTransferStart:
            guard let memo = record.withdrawMemo, let amountIn = record.machine.amountIn, let user = try? AccountID(record.account),
                  let anchorAccount = try? AccountID(merchant.settlementAccount) else { return }
            let expected = try FiatConversion.stroops(minorUnits: amountIn, exponent: asset.currency.exponent)
            let operations = try await reader.operations(PageRequest(cursor: record.watchFrom, limit: 200), filter: OperationFilter(account: anchorAccount, paymentsOnly: true))
            let match = operations.first { operation in
                guard operation.transaction.envelope.transaction.memo == .id(memo), case .payment(let payment) = operation.operation.body else { return false }
                let source = operation.operation.sourceAccount?.accountID ?? operation.transaction.envelope.transaction.sourceAccount.accountID
                return source == user && payment.destination.accountID == anchorAccount && payment.asset == asset.asset && payment.amount == expected
            }
            if let match {
                try record.machine.apply(.userTransferReceived(stellarTransaction: match.transaction.hash.hex))
                guard let saved = try await save(record, over: stored, attention: now) else { return }
                stored = saved
                return try await advanceWithdrawal(stored, record, asset)
            }
            if let last = operations.last, operations.count == 200 { record.watchFrom = last.id }
            if record.started + 24 * 3_600 <= now {
                try record.machine.apply(.userTransferFailed("no payment with memo \(memo) arrived within a day"))
                try await save(record, over: stored, attention: nil)
            } else {
                try await save(record, over: stored, attention: now + 2)
            }
        case .pendingAnchor:
            guard let amountOut = record.machine.amountOut, let amountIn = record.machine.amountIn, let fee = record.machine.amountFee else { return }
            var payoutCurrency = asset.currency
            if record.exchange == true, let fiat = GatewayCurrency.named(record.currency), let target = assets.first(where: { $0.currency == fiat }) {
                // An exchange: the asset received (less the fee, which the anchor keeps) leaves
                // circulation, and the other currency's asset is issued to the anchor, which pays
                // it out. Each step is found again by its memo after a stop.
                let anchorAccount = try AccountID(merchant.settlementAccount)
                let burn = "tender anchor exchange in \(record.id)"
                if try await gateway.findOnLedger(memo: burn, account: anchorAccount, reader: reader) == nil {
                    _ = try await gateway.payFromSettlement(amountIn - fee, of: asset.currency, to: asset.asset.issuer!, memo: burn, merchant: merchant, parameter: "amount")
                }
                let mint = "tender anchor exchange out \(record.id)"
                if try await gateway.findOnLedger(memo: mint, account: anchorAccount, reader: reader) == nil {
                    _ = try await issue(amountOut, of: target, to: anchorAccount, memo: mint)
                }
                payoutCurrency = fiat
            }
            // The payout takes the asset out of circulation: it is paid to the asset's issuer.
            let key = "anchor withdrawal \(record.id)"
            let idempotency = Idempotency(merchant: merchant.id, key: key, created: record.started, resumed: true)
            let issuer = assets.first { $0.currency == payoutCurrency }?.asset.issuer ?? asset.asset.issuer!
            let payout = try await gateway.createPayout(
                NewPayout(amount: amountOut, currency: payoutCurrency, destination: issuer.strKey, metadata: ["anchor_transaction": record.id],
                          description: "Withdrawal \(record.id)"),
                merchant: merchant, idempotency: idempotency)
            try record.machine.apply(.paying)
            try record.machine.apply(.paid(payout.id.rawValue))
            try await save(record, over: stored, attention: nil)
            logger.info("anchor withdrawal completed", metadata: ["transfer.id": "\(record.id)", "payout.id": "\(payout.id)"])
        default:
            return
        }
    }
}

extension TransferService {
    /// Issues `amount` hundredths of `asset` from its issuer to `destination`, with a memo that
    /// finds the payment again. Returns the ledger transaction.
    func issue(_ amount: Int64, of asset: TransferAsset, to destination: AccountID, memo: String) async throws -> String {
        guard let desk = gateway.issuerDesks[asset.code] else { throw AnchorFailure.badRequest(code: "invalid_asset", message: "\(asset.code) has no issuer here") }
        let operation = StellarBase.Operation(.payment(PaymentOperation(
            destination: .ed25519(destination), asset: asset.asset, amount: try FiatConversion.stroops(minorUnits: amount, exponent: asset.currency.exponent))))
        let result = try await desk.submit([operation], memo: Memo.hash(Bytes32(Array(SHA256.hash(data: Array(memo.utf8))))))
        guard case .applied(let stored) = result, stored.result.isSuccess else {
            throw AnchorFailure.badRequest(code: "payment_failed", message: "issuing \(asset.code) failed: \(result.result.code.name)")
        }
        return stored.hash.hex
    }
}

/// A transfer's id: 16 random bytes written as a UUID is.
enum UUIDText {
    static func make(_ bytes: [UInt8]) -> String {
        var bytes = bytes
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}

extension UInt64 {
    init(bigEndianBytes bytes: [UInt8]) {
        self = bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
