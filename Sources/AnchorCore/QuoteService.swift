import Anchor
import Foundation
import Gateway
import GatewayCore

/// A firm SEP-38 quote as the store keeps it.
public struct QuoteRecord: Codable, Sendable, Equatable {
    public let id: String
    public let account: String
    public let memo: UInt64?
    public let sellAsset: String
    public let buyAsset: String
    public let sellAmount: Int64
    public let buyAmount: Int64
    public let fee: Int64
    public let feeAsset: String
    public let price: String
    public let totalPrice: String
    public let expiresAt: Int64
    public let created: Int64
    /// The transfer that used it (a quote is honoured once).
    public var usedBy: String?
}

extension ObjectKind {
    static let anchorQuote = ObjectKind(rawValue: "anchor_quote")
}

/// SEP-38: indicative prices for anyone, firm quotes for a signed-in user that the SEP-6
/// exchange transfers honour until they expire.
public struct QuoteService: Sendable {
    let transfers: TransferService
    /// What each fiat currency is worth in euro cents per 100: the test anchor's fixed table
    /// (1 EUR = 1.08 USD).
    public static let rates = ["EUR": Quotes.Rate(100, 100), "USD": Quotes.Rate(100, 108)]

    public init(transfers: TransferService) { self.transfers = transfers }

    var gateway: GatewayService { transfers.gateway }

    /// The anchor's assets as SEP-38 names them, with the fiat currency each stands for.
    public var stellarAssets: [(name: String, currency: String)] {
        transfers.assets.map { ("stellar:\($0.code):\($0.asset.issuer!.strKey)", $0.currency.code.uppercased()) }
    }

    public var fiatAssets: [String] { Array(Set(transfers.assets.map { "iso4217:\($0.currency.code.uppercased())" })).sorted() }

    var anchored: [String: String] { Dictionary(uniqueKeysWithValues: transfers.assets.map { ($0.code, $0.currency.code.uppercased()) }) }

    func name(_ text: String?, _ field: String) throws -> Quotes.AssetName {
        guard let text, let name = Quotes.AssetName(text), (name.isFiat ? fiatAssets.contains(name.description) : stellarAssets.contains { $0.name == name.description }) else {
            throw AnchorFailure.badRequest(code: "invalid_asset", message: "\(field) is one of \((fiatAssets + stellarAssets.map(\.name)).joined(separator: ", "))")
        }
        return name
    }

    public static func amount(_ text: String?, _ field: String) throws -> Int64? {
        guard let text, !text.isEmpty else { return nil }
        guard let value = FiatConversion.minorUnits(parsing: text, exponent: 2) else {
            throw AnchorFailure.badRequest(code: "invalid_amount", message: "\(field) is a decimal amount with at most 2 decimals, such as 12.50")
        }
        return value
    }

    /// `GET /price` (and each line of `/prices`).
    public func price(sell: String?, buy: String?, sellAmount: String?, buyAmount: String?) throws -> Quotes.Price {
        let fees = gateway.fees
        do {
            return try Quotes.price(
                sell: try name(sell, "sell_asset"), buy: try name(buy, "buy_asset"), sellAmount: try Self.amount(sellAmount, "sell_amount"),
                buyAmount: try Self.amount(buyAmount, "buy_amount"), anchored: anchored, rates: Self.rates,
                percentBasisPoints: fees.cardBasisPoints, depositFixed: fees.cardFixedMinorUnits, withdrawFixed: transfers.assets.first?.withdrawFixed ?? 25)
        } catch let refusal as Quotes.Refusal {
            throw AnchorFailure.badRequest(code: "invalid_request", message: refusal.message)
        }
    }

    /// `GET /prices`: what `sellAmount` of `sell` buys of each asset it trades for.
    public func prices(sell: String?, sellAmount: String?) throws -> [Quotes.Price] {
        let sold = try name(sell, "sell_asset")
        let targets = sold.isFiat ? stellarAssets.map(\.name) : fiatAssets
        return targets.compactMap { try? price(sell: sold.description, buy: $0, sellAmount: sellAmount, buyAmount: nil) }
    }

    /// `POST /quote`: a firm quote for the user, kept until it expires.
    public func quote(_ user: AnchorUser, sell: String?, buy: String?, sellAmount: String?, buyAmount: String?, expireAfter: String?) async throws -> QuoteRecord {
        let priced = try price(sell: sell, buy: buy, sellAmount: sellAmount, buyAmount: buyAmount)
        let time = gateway.now()
        var after: Int64?
        if let expireAfter, !expireAfter.isEmpty {
            guard let date = try? Date(expireAfter, strategy: .iso8601) else { throw AnchorFailure.badRequest(code: "invalid_request", message: "expire_after is an ISO 8601 UTC time") }
            after = Int64(date.timeIntervalSince1970)
        }
        let expires: Int64
        do { expires = try Quotes.expiry(now: time, expireAfter: after) } catch { throw AnchorFailure.badRequest(code: "invalid_request", message: error.message) }
        let record = QuoteRecord(
            id: UUIDText.make(gateway.random(16)), account: user.account.strKey, memo: user.memo ?? user.muxedID,
            sellAsset: priced.sell.description, buyAsset: priced.buy.description, sellAmount: priced.sellAmount, buyAmount: priced.buyAmount,
            fee: priced.fee.total, feeAsset: priced.fee.asset.description, price: priced.price, totalPrice: priced.totalPrice, expiresAt: expires, created: time)
        try await gateway.store.insert(StoredObject(
            id: record.id, merchant: TransferService.owner, kind: .anchorQuote, customer: record.account, created: time, body: Array(try JSONEncoder().encode(record))))
        return record
    }

    /// `GET /quote/{id}`: the user's quote (another user's is not found).
    public func quote(_ user: AnchorUser, id: String) async throws -> QuoteRecord {
        guard let (_, record) = try await load(id), record.account == user.account.strKey, record.memo == (user.memo ?? user.muxedID) else {
            throw AnchorFailure.notFound("quote \(id) not found")
        }
        return record
    }

    func load(_ id: String) async throws -> (StoredObject, QuoteRecord)? {
        guard id.utf8.count <= 64, let stored = try await gateway.store.object(id: id, kind: .anchorQuote, merchant: TransferService.owner) else { return nil }
        return (stored, try JSONDecoder().decode(QuoteRecord.self, from: Data(stored.body)))
    }

    /// Takes the user's quote for a transfer: it must be theirs, unexpired, unused, and for
    /// these assets and this amount sold. Marks it used by `transfer`.
    public func use(_ user: AnchorUser, id: String, sell: String, buy: String, sellAmount: Int64, transfer: String) async throws -> QuoteRecord {
        guard let (stored, record) = try await load(id), record.account == user.account.strKey, record.memo == (user.memo ?? user.muxedID) else {
            throw AnchorFailure.badRequest(code: "invalid_quote", message: "quote_id \(id) is not one of yours")
        }
        guard record.expiresAt > gateway.now() else { throw AnchorFailure.badRequest(code: "quote_expired", message: "the quote expired; ask for a new one") }
        guard record.usedBy == nil || record.usedBy == transfer else { throw AnchorFailure.badRequest(code: "invalid_quote", message: "the quote was already used") }
        guard record.sellAsset == sell, record.buyAsset == buy else {
            throw AnchorFailure.badRequest(code: "invalid_quote", message: "the quote sells \(record.sellAsset) for \(record.buyAsset), not \(sell) for \(buy)")
        }
        guard record.sellAmount == sellAmount else {
            throw AnchorFailure.badRequest(code: "invalid_quote", message: "the amount is not the quote's sell_amount \(FiatConversion.format(minorUnits: record.sellAmount, exponent: 2))")
        }
        var used = record
        used.usedBy = transfer
        var object = stored
        object.body = Array(try JSONEncoder().encode(used))
        guard try await gateway.store.update(object) else { throw AnchorFailure.badRequest(code: "invalid_quote", message: "the quote was used meanwhile") }
        return used
    }
}
