import Checkout
import Crypto
import Foundation
import Gateway
import GatewayCore
import GatewayCore
import JWTKit
import Ledger
import LedgerService
import StellarBase
import Synchronization

/// The checkout's work behind its routes: marketplaces (gateway merchants with an escrow
/// account on the ledger), users and their tokens, and the objects of the checkout kept in the
/// gateway's store (one store, the same versioned writes).
package struct CheckoutService: Sendable {
    package let gateway: GatewayService
    package let keys: JWTKeyCollection
    /// Tokens already verified, and marketplaces (with their merchants) already read: neither
    /// changes once made, so every request after the first skips the signature check and two
    /// reads. Bounded: cleared when full.
    package let verified = VerifiedCache()

    package init(gateway: GatewayService, keys: JWTKeyCollection) {
        self.gateway = gateway
        self.keys = keys
    }

    /// A user's access token: a JWT (HS256, under a key derived from the server's secret)
    /// naming the user and the marketplace.
    package struct TokenPayload: JWTPayload {
        package var sub: SubjectClaim
        package var mkt: String
        package var iat: IssuedAtClaim
        package func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    package static func tokenKeys(_ secrets: ServerSecrets) async -> JWTKeyCollection {
        let key = Array(HMAC<SHA256>.authenticationCode(for: Array("checkout tokens".utf8), using: SymmetricKey(data: secrets.idKeyBytes)))
        return await JWTKeyCollection().add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
    }

    // MARK: Marketplaces

    package struct NewMarketplace: Sendable {
        package let record: MarketplaceRecord
        package let merchant: GatewayService.NewMerchant
    }

    /// A gateway merchant (its keys, its settlement account) and an escrow account that trusts
    /// the anchor's currencies, its seed sealed.
    func makeMarketplace(name: String, charges: MarketplaceCharges, orderExpirySeconds: Int64, releaseAfterSeconds: Int64) async throws -> NewMarketplace {
        let merchant = try await gateway.createMerchant(name: name)
        let escrow = try await createLedgerAccount()
        let record = MarketplaceRecord(
            id: MarketplaceID(merchant.record.id), name: name, charges: charges, escrowAccount: escrow.address,
            sealedEscrowSeed: escrow.sealedSeed, orderExpirySeconds: orderExpirySeconds,
            releaseAfterSeconds: releaseAfterSeconds, created: gateway.now())
        try await gateway.insert(record, id: record.id, merchant: merchant.record)
        return NewMarketplace(record: record, merchant: merchant)
    }

    package func marketplace(_ merchant: MerchantRecord) async throws -> MarketplaceRecord {
        guard let stored = try await gateway.store.object(id: merchant.id, kind: .marketplace, merchant: merchant.id) else {
            throw CheckoutFailure.forbidden("This key's merchant is not a marketplace.")
        }
        return try gateway.records.decode(MarketplaceRecord.self, stored)
    }

    /// A new account on the ledger that trusts the anchor's currencies; its seed sealed.
    package func createLedgerAccount() async throws -> (address: String, sealedSeed: [UInt8]) {
        let seed = gateway.random(32)
        let account = try KeyPair(seed: seed)
        let operations = [StellarBase.Operation(.createAccount(CreateAccountOperation(destination: account.accountID, startingBalance: GatewayService.settlementStartingBalance)))]
            + GatewayService.trustOperations(for: account.accountID, anchor: gateway.anchor)
        let result = try await gateway.rootDesk.submit(operations, cosigners: [account])
        guard result.result.isSuccess else {
            throw GatewayError(code: "account_not_created", message: "the account was not created: \(result.result.code.name)")
        }
        return (account.accountID.strKey, try gateway.secrets.seal(seed))
    }

    // MARK: Escrow

    package static let euro = GatewayCurrency.named("eur")!

    /// Moves an order's whole payment from the marketplace's settlement account back into the
    /// escrow account (a refund the gateway refused after the escrow had returned the money; the
    /// first hold is the payment's settlement itself, straight into escrow). Returns the
    /// transaction's hash.
    package func hold(_ order: OrderRecord, marketplace: MarketplaceRecord, merchant: MerchantRecord, beforeServing: Bool = false) async throws -> String {
        let stored = try await gateway.payFromSettlement(
            order.totals.total, of: Self.euro, to: try AccountID(marketplace.escrowAccount),
            memo: "tender escrow hold \(order.id)", merchant: merchant, parameter: "order", beforeServing: beforeServing)
        return stored.hash.hex
    }

    /// Pays an order out of escrow in one ledger transaction: the seller's part to the seller's
    /// account, the marketplace's to its settlement account, the gateway's fee to the fee account
    /// (``CheckoutRules/release(_:charges:gatewayFee:)``).
    package func release(_ order: OrderRecord, seller: CheckoutUserRecord, marketplace: MarketplaceRecord, merchant: MerchantRecord, beforeServing: Bool = false) async throws -> String {
        guard let sellerAccount = seller.account, let asset = gateway.anchor.currency(code: Self.euro.assetCode)?.asset else {
            throw GatewayError(code: "release_impossible", message: "the seller of \(order.id) has no ledger account")
        }
        let parts = CheckoutRules.release(order.totals, charges: marketplace.charges, gatewayFee: order.gatewayFee ?? 0)
        var operations: [StellarBase.Operation] = []
        let payees = [(try AccountID(sellerAccount), parts.seller), (try AccountID(merchant.settlementAccount), parts.marketplace), (gateway.feeAccount.accountID, parts.gateway)]
        for (destination, minor) in payees where minor > 0 {
            operations.append(StellarBase.Operation(.payment(PaymentOperation(
                destination: .ed25519(destination), asset: asset,
                amount: try FiatConversion.stroops(minorUnits: minor, exponent: Self.euro.exponent)))))
        }
        let memo = Memo.hash(Bytes32(Array(SHA256.hash(data: Array("tender escrow release \(order.id)".utf8)))))
        let result: SubmissionResult
        if beforeServing {
            result = try await gateway.applyBeforeServing(operations, from: try KeyPair(seed: try gateway.secrets.open(marketplace.sealedEscrowSeed)), memo: memo)
        } else {
            result = try await escrowDesk(marketplace).submit(operations, memo: memo)
        }
        guard case .applied(let stored) = result, stored.result.isSuccess else {
            throw GatewayError(code: "release_failed", message: "the release of \(order.id) failed: \(result.result.code.name)")
        }
        return stored.hash.hex
    }

    /// Returns an order's held money from the escrow to the marketplace's settlement account
    /// (before the gateway refunds the buyer from there).
    package func returnFromEscrow(_ order: OrderRecord, marketplace: MarketplaceRecord, merchant: MerchantRecord) async throws -> String {
        guard let asset = gateway.anchor.currency(code: Self.euro.assetCode)?.asset else {
            throw GatewayError(code: "return_impossible", message: "no EUR asset")
        }
        let operation = StellarBase.Operation(.payment(PaymentOperation(
            destination: .ed25519(try AccountID(merchant.settlementAccount)), asset: asset,
            amount: try FiatConversion.stroops(minorUnits: order.totals.total, exponent: Self.euro.exponent))))
        let desk = try await escrowDesk(marketplace)
        let memo = Memo.hash(Bytes32(Array(SHA256.hash(data: Array("tender escrow return \(order.id)".utf8)))))
        let result = try await desk.submit([operation], memo: memo)
        guard case .applied(let stored) = result, stored.result.isSuccess else {
            throw GatewayError(code: "return_failed", message: "the escrow could not return \(order.id): \(result.result.code.name)")
        }
        return stored.hash.hex
    }

    /// The balance transaction of an order's money moving into (`amount` > 0) or out of the
    /// marketplace's balance by the ledger transaction `ledgerHash`, to be saved with the order
    /// that records it; none when nothing moved.
    package func escrowTransaction(_ type: BalanceTransactionRecord.Kind, amount: Int64, order: OrderRecord, ledgerHash: String, merchant: MerchantRecord) throws -> [StoredEvent] {
        guard amount != 0 else { return [] }
        let description: String = switch type {
        case .transfer: "The marketplace's share of order \(order.id)"
        case .adjustment: amount > 0 ? "Order \(order.id) returned from escrow for its refund" : "Order \(order.id) held in escrow again"
        default: "Order \(order.id)"
        }
        let movement = BalanceMovement(
            type: type, amount: amount, currency: Self.euro.code, source: order.id.rawValue, description: description, key: "\(order.id) \(ledgerHash)")
        return [try gateway.balanceTransaction(movement, merchant: merchant)]
    }

    /// What a release pays into the marketplace's balance.
    package func marketplaceShare(_ order: OrderRecord, _ marketplace: MarketplaceRecord) -> Int64 {
        CheckoutRules.release(order.totals, charges: marketplace.charges, gatewayFee: order.gatewayFee ?? 0).marketplace
    }

    /// The desk of the marketplace's escrow account (one of the gateway's ledger desks).
    package func escrowDesk(_ marketplace: MarketplaceRecord) async throws -> LedgerDesk {
        try await gateway.desks.desk(for: marketplace.escrowAccount, sealedSeed: marketplace.sealedEscrowSeed)
    }

    // MARK: Who is asking

    /// The marketplace whose secret key this is.
    /// - Throws: ``CheckoutFailure/unauthorized`` for any other key; `forbidden` for a merchant
    ///   that is not a marketplace.
    package func authenticateMarketplace(key: String) async throws -> (MerchantRecord, MarketplaceRecord) {
        guard let (merchant, kind) = try await gateway.merchant(key: key), kind == .secret else {
            throw CheckoutFailure.unauthorized
        }
        return (merchant, try await marketplace(merchant))
    }

    /// A marketplace and its gateway merchant: where the checkout's objects live.
    package struct Market: Sendable {
        package let merchant: MerchantRecord
        package let marketplace: MarketplaceRecord

        package init(merchant: MerchantRecord, marketplace: MarketplaceRecord) {
            self.merchant = merchant
            self.marketplace = marketplace
        }
    }

    /// A user with a valid token, and where they are.
    package struct Caller: Sendable {
        package let merchant: MerchantRecord
        package let marketplace: MarketplaceRecord
        package let user: CheckoutUserRecord
        package let stored: StoredObject
        package var market: Market { Market(merchant: merchant, marketplace: marketplace) }
    }

    /// The user a token names.
    package func authenticateUser(token: String) async throws -> Caller {
        guard token.utf8.count <= 2_048 else { throw CheckoutFailure.unauthorized }
        let names: (user: String, marketplace: String)
        if let known = verified.token(token) {
            names = known
        } else {
            guard let payload = try? await keys.verify(token, as: TokenPayload.self) else { throw CheckoutFailure.unauthorized }
            names = (payload.sub.value, payload.mkt)
            verified.remember(token: token, user: names.user, marketplace: names.marketplace)
        }
        let market: Market
        if let known = verified.market(names.marketplace) {
            market = known
        } else {
            guard let merchant = try await gateway.store.merchant(id: names.marketplace) else { throw CheckoutFailure.unauthorized }
            market = Market(merchant: merchant, marketplace: try await marketplace(merchant))
            verified.remember(market)
        }
        guard let stored = try await gateway.store.object(id: names.user, kind: .checkoutUser, merchant: market.merchant.id) else {
            throw CheckoutFailure.unauthorized
        }
        return Caller(merchant: market.merchant, marketplace: market.marketplace,
                      user: try gateway.records.decode(CheckoutUserRecord.self, stored), stored: stored)
    }

    package func token(for user: CheckoutUserRecord, marketplace: MarketplaceRecord) async throws -> String {
        try await keys.sign(TokenPayload(sub: SubjectClaim(value: user.id.rawValue), mkt: marketplace.id.rawValue, iat: IssuedAtClaim(value: Date(timeIntervalSince1970: TimeInterval(gateway.now())))))
    }

    // MARK: Objects

    /// The marketplace's record `id` of its type's kind, as read.
    /// - Throws: ``CheckoutFailure`` not found (as `what`).
    package func load<Record: StoredRecord>(_ type: Record.Type, id: RecordID<Record>, in caller: Caller, what: String) async throws -> (Record, StoredObject) {
        try await load(type, id: id, in: caller.market, what: what)
    }

    package func load<Record: StoredRecord>(_ type: Record.Type, id: RecordID<Record>, in market: Market, what: String) async throws -> (Record, StoredObject) {
        guard id.rawValue.utf8.count <= 255, let stored = try await gateway.store.object(id: id.rawValue, kind: Record.kind, merchant: market.merchant.id) else {
            throw CheckoutFailure.notFound(what)
        }
        return (try gateway.records.decode(Record.self, stored), stored)
    }

    /// Writes `record` over `stored` if nobody changed it since it was read (and when the
    /// janitor must look at it next, if given).
    /// - Throws: 409 `conflict` when another request changed it first.
    package func save(_ record: some Encodable, over stored: StoredObject, attentionAt: Int64?? = nil, events: [StoredEvent] = []) async throws -> StoredObject {
        do {
            return try await gateway.save(record, over: stored, attentionAt: attentionAt, events: events)
        } catch let failure as GatewayFailure where failure.code == .lockTimeout {
            throw CheckoutFailure.conflict("conflict", "Someone else changed this at the same moment; try again.")
        }
    }
}

/// Verified tokens and marketplaces read, kept in memory (both immutable once made).
package final class VerifiedCache: Sendable {
    private struct State {
        var tokens: [String: (String, String)] = [:]
        var markets: [String: CheckoutService.Market] = [:]
    }
    private let state = Mutex(State())
    package static let limit = 100_000

    package init() {}

    package func token(_ token: String) -> (user: String, marketplace: String)? {
        state.withLock { $0.tokens[token].map { (user: $0.0, marketplace: $0.1) } }
    }

    package func remember(token: String, user: String, marketplace: String) {
        state.withLock { state in
            if state.tokens.count >= Self.limit { state.tokens.removeAll(keepingCapacity: true) }
            state.tokens[token] = (user, marketplace)
        }
    }

    package func market(_ id: String) -> CheckoutService.Market? {
        state.withLock { $0.markets[id] }
    }

    package func remember(_ market: CheckoutService.Market) {
        state.withLock { state in
            if state.markets.count >= Self.limit { state.markets.removeAll(keepingCapacity: true) }
            state.markets[market.merchant.id] = market
        }
    }
}
