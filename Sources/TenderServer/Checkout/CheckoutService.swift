import Checkout
import Crypto
import Foundation
import Gateway
import Hummingbird
import JWTKit
import StellarBase

/// The checkout's work behind its routes: marketplaces (gateway merchants with an escrow
/// account on the ledger), users and their tokens, and the objects of the checkout kept in the
/// gateway's store (one store, the same versioned writes).
struct CheckoutService: Sendable {
    let gateway: GatewayService
    let keys: JWTKeyCollection

    /// A user's access token: a JWT (HS256, under a key derived from the server's secret)
    /// naming the user and the marketplace.
    struct TokenPayload: JWTPayload {
        var sub: SubjectClaim
        var mkt: String
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func tokenKeys(_ secrets: ServerSecrets) async -> JWTKeyCollection {
        let key = Array(HMAC<SHA256>.authenticationCode(for: Array("checkout tokens".utf8), using: SymmetricKey(data: secrets.idKeyBytes)))
        return await JWTKeyCollection().add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
    }

    // MARK: Marketplaces

    struct NewMarketplace: Sendable {
        let record: MarketplaceRecord
        let merchant: GatewayService.NewMerchant
    }

    /// A gateway merchant (its keys, its settlement account) and an escrow account that trusts
    /// the anchor's currencies, its seed sealed.
    func createMarketplace(name: String, charges: MarketplaceCharges, orderExpirySeconds: Int64, releaseAfterSeconds: Int64) async throws -> NewMarketplace {
        let merchant = try await gateway.createMerchant(name: name)
        let seed = gateway.random(32)
        let escrow = try KeyPair(seed: seed)
        let operations = [StellarBase.Operation(.createAccount(CreateAccountOperation(destination: escrow.accountID, startingBalance: GatewayService.settlementStartingBalance)))]
            + GatewayService.trustOperations(for: escrow.accountID, anchor: gateway.anchor)
        let result = try await gateway.rootDesk.submit(operations, cosigners: [escrow])
        guard result.result.isSuccess else {
            throw GatewayError(code: "escrow_account_not_created", message: "the escrow account was not created: \(result.result.code.name)")
        }
        let record = MarketplaceRecord(
            id: merchant.record.id, name: name, charges: charges, escrowAccount: escrow.accountID.strKey,
            sealedEscrowSeed: try gateway.secrets.seal(seed), orderExpirySeconds: orderExpirySeconds,
            releaseAfterSeconds: releaseAfterSeconds, created: gateway.now())
        try await gateway.insert(record, id: record.id, kind: "marketplace", merchant: merchant.record)
        return NewMarketplace(record: record, merchant: merchant)
    }

    func marketplace(_ merchant: MerchantRecord) async throws -> MarketplaceRecord {
        guard let stored = try await gateway.store.object(id: merchant.id, kind: "marketplace", merchant: merchant.id) else {
            throw CheckoutError.forbidden("This key's merchant is not a marketplace.")
        }
        return try JSONDecoder().decode(MarketplaceRecord.self, from: Data(stored.body))
    }

    // MARK: Who is asking

    static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        let token = header.dropFirst("Bearer ".count).trimmingCharacters(in: .whitespaces)
        return token.isEmpty || token.utf8.count > 2_048 ? nil : token
    }

    /// The marketplace whose secret key the request presents.
    func authenticateMarketplace(_ request: Request) async throws -> (MerchantRecord, MarketplaceRecord) {
        guard let key = Self.bearer(request), let (merchant, kind) = try await gateway.store.merchant(keyHash: GatewayIDs.hash(key: key)), kind == .secret else {
            throw CheckoutError.unauthorized
        }
        return (merchant, try await marketplace(merchant))
    }

    struct Caller: Sendable {
        let merchant: MerchantRecord
        let marketplace: MarketplaceRecord
        let user: CheckoutUserRecord
        let stored: StoredObject
    }

    /// The user whose token the request presents.
    func authenticateUser(_ request: Request) async throws -> Caller {
        guard let token = Self.bearer(request), let payload = try? await keys.verify(token, as: TokenPayload.self),
              let merchant = try await gateway.store.merchant(id: payload.mkt),
              let stored = try await gateway.store.object(id: payload.sub.value, kind: "checkout_user", merchant: merchant.id) else {
            throw CheckoutError.unauthorized
        }
        return Caller(merchant: merchant, marketplace: try await marketplace(merchant),
                      user: try JSONDecoder().decode(CheckoutUserRecord.self, from: Data(stored.body)), stored: stored)
    }

    func token(for user: CheckoutUserRecord, marketplace: MarketplaceRecord) async throws -> String {
        try await keys.sign(TokenPayload(sub: SubjectClaim(value: user.id), mkt: marketplace.id, iat: IssuedAtClaim(value: Date(timeIntervalSince1970: TimeInterval(gateway.now())))))
    }

    // MARK: Objects

    func load<Record: Decodable>(_ type: Record.Type, id: String, kind: String, in caller: Caller, what: String) async throws -> (Record, StoredObject) {
        guard id.utf8.count <= 255, let stored = try await gateway.store.object(id: id, kind: kind, merchant: caller.merchant.id) else {
            throw CheckoutError.notFound(what)
        }
        return (try JSONDecoder().decode(Record.self, from: Data(stored.body)), stored)
    }

    /// Writes `record` over `stored` if nobody changed it since it was read.
    /// - Throws: 409 `conflict` when another request changed it first.
    func save(_ record: some Encodable, over stored: StoredObject) async throws -> StoredObject {
        do {
            return try await gateway.save(record, over: stored)
        } catch let error as StripeError where error.code == "lock_timeout" {
            throw CheckoutError.conflict("conflict", "Someone else changed this at the same moment; try again.")
        }
    }
}
