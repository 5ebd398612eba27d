import Crypto
import Gateway

/// A balance transaction to make: what moved the merchant's balance.
package struct BalanceMovement: Sendable {
    package var type: BalanceTransactionRecord.Kind
    package var amount: Int64
    package var fee: Int64
    package var currency: String
    package var source: String
    package var description: String?
    /// What its id is derived from: its source, unless one source moves the balance more than
    /// once (an order's escrow, by each ledger transaction).
    package var key: String?

    package init(type: BalanceTransactionRecord.Kind, amount: Int64, fee: Int64 = 0, currency: String, source: String, description: String? = nil, key: String? = nil) {
        self.key = key
        self.type = type
        self.amount = amount
        self.fee = fee
        self.currency = currency
        self.source = source
        self.description = description
    }
}

/// Balance transactions: made with the write that records a movement of a merchant's
/// settlement account as done (so none is lost or doubled by a stop), read and listed.
extension GatewayService {
    /// The id of the balance transaction `source` made: derived from it, so the charge that
    /// names its balance transaction needs not store it, and a movement recorded twice collides.
    /// Its first characters are its source's time characters, so it sits in the id index
    /// beside the others made at the same time (see ``GatewayIDs/make(_:random:at:length:)``).
    package static func balanceTransactionID(source: String) -> BalanceTransactionID {
        let digest = Array(SHA256.hash(data: Array("balance transaction \(source)".utf8)))
        let body = source.drop { $0 != "_" }.dropFirst()
        let leading = Array(body.utf8.prefix(GatewayIDs.timeCharacters))
        let id = GatewayIDs.make("txn", random: { count in Array((digest + digest).prefix(count)) }, length: 24 - leading.count)
        guard leading.count == GatewayIDs.timeCharacters, leading.allSatisfy({ GatewayIDs.alphabet.contains($0) }) else {
            return BalanceTransactionID(GatewayIDs.make("txn", random: { count in Array((digest + digest).prefix(count)) }))
        }
        return BalanceTransactionID("txn_" + String(decoding: leading, as: UTF8.self) + id.dropFirst(4))
    }

    /// The balance transaction of `movement`, to be written with the change that records it.
    package func balanceTransaction(_ movement: BalanceMovement, merchant: MerchantRecord) throws -> StoredEvent {
        let record = BalanceTransactionRecord(
            id: Self.balanceTransactionID(source: movement.key ?? movement.source), type: movement.type, amount: movement.amount, fee: movement.fee,
            currency: movement.currency, source: movement.source, created: now(), description: movement.description)
        let object = StoredObject(
            id: record.id.rawValue, merchant: merchant.id, kind: .balanceTransaction, customer: movement.source, created: record.created,
            body: Array(try Self.encoder.encode(record)))
        return StoredEvent(object: object, deliveries: [])
    }

    /// The balance transaction of a settlement of `amount` of `intent` (its charge's, or a
    /// capture's), or none when the money went to a marketplace's escrow, not the merchant's balance.
    package func settlementTransaction(_ intent: PaymentIntentRecord, amount: Int64, source: String, merchant: MerchantRecord) throws -> [StoredEvent] {
        guard intent.escrowAccount == nil, let method = intent.machine.paymentMethodType else { return [] }
        let movement = BalanceMovement(
            type: method == .card ? .charge : .payment, amount: amount, fee: settlementFee(intent, amount: amount, method: method),
            currency: intent.currency, source: source, description: intent.description)
        return [try balanceTransaction(movement, merchant: merchant)]
    }

    /// The source a settlement of `intent` names: its succeeded charge (or the intent, before charges were kept).
    package static func settlementSource(_ intent: PaymentIntentRecord) -> String {
        intent.succeededCharge.map { intent.id.charge($0.number).rawValue } ?? intent.id.rawValue
    }

    /// A page of the merchant's balance transactions, newest first, of one `type` and one
    /// `source` when given.
    package func balanceTransactions(merchant: MerchantRecord, page: ListRequest, type: BalanceTransactionRecord.Kind?, source: String?) async throws(GatewayFailure) -> (records: [BalanceTransactionRecord], hasMore: Bool) {
        var narrowed = page
        narrowed.customer = source
        guard let type else { return try await list(BalanceTransactionRecord.self, merchant: merchant, narrowed) }
        // Of one type: pages read until this one is full (a type is not indexed).
        return try await list(BalanceTransactionRecord.self, merchant: merchant, narrowed) { $0.type == type }
    }
}
