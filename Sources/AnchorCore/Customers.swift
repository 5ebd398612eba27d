import Anchor
import Foundation
import Gateway
import GatewayCore
import StellarBase

/// A SEP-12 customer as the store keeps it: who it is (account and memo) and its SEP-9 fields,
/// sealed under the server's key so that no byte of them is readable at rest.
struct AnchorCustomerRecord: Codable, Sendable {
    var id: String
    var account: String
    var memo: UInt64?
    var type: String
    /// The fields' JSON, sealed (ChaCha20-Poly1305).
    var sealedFields: [UInt8]
    var created: Int64
    var updated: Int64
}

extension ObjectKind {
    static let anchorCustomer = ObjectKind(rawValue: "anchor_customer")
    static let deletedAnchorCustomer = ObjectKind(rawValue: "deleted_anchor_customer")
}

/// What `GET /customer` answers: the status, the fields still asked for, and those given with
/// their status.
public struct CustomerView: Sendable, Equatable {
    public let id: String?
    public let status: KYC.Status
    /// Fields not given yet (required and optional).
    public let fields: [KYC.Field]
    /// Fields given, by name.
    public let provided: [KYC.Field]
    public let message: String?
}

/// SEP-12: customers under the token's account, told apart by memo (the token's, its muxed id,
/// or the one a request names when the token has none); their fields checked, merged and kept
/// sealed; deleted on request. Field values never reach a log line.
public struct CustomerService: Sendable {
    let store: any GatewayStore
    let secrets: ServerSecrets
    let now: @Sendable () -> Int64
    let random: @Sendable (Int) -> [UInt8]
    /// The owner the anchor's objects are filed under in the gateway's store.
    static let owner = "anchor"

    package init(store: any GatewayStore, secrets: ServerSecrets, now: @escaping @Sendable () -> Int64, random: @escaping @Sendable (Int) -> [UInt8]) {
        self.store = store
        self.secrets = secrets
        self.now = now
        self.random = random
    }

    /// The memo that names the customer: the token's (or its muxed id); a request's `memo`
    /// must match it, or names one when the token has none.
    static func memo(_ user: AnchorUser, _ given: String?, _ memoType: String?) throws(AnchorFailure) -> UInt64? {
        var memo: UInt64?
        if let given, !given.isEmpty {
            guard memoType == nil || memoType == "id" || memoType == "" else { throw .badRequest(code: "invalid_memo", message: "memo_type is id: this anchor tells customers apart by id memos") }
            guard let value = UInt64(given), String(value) == given else { throw .badRequest(code: "invalid_memo", message: "memo is a whole number (an id memo)") }
            memo = value
        }
        let tokens = user.memo ?? user.muxedID
        if let tokens {
            if let memo, memo != tokens { throw .unauthorized("memo \(memo) is not the token's (\(tokens))") }
            return tokens
        }
        return memo
    }

    static func checkAccount(_ user: AnchorUser, _ account: String?) throws(AnchorFailure) {
        guard let account, !account.isEmpty else { return }
        guard let given = try? MuxedAccount(account), given.accountID == user.account else {
            throw .unauthorized("account \(account) is not the token's account")
        }
    }

    static func key(_ account: AccountID, _ memo: UInt64?) -> String { memo.map { "\(account.strKey):\($0)" } ?? account.strKey }

    /// The customer `id` or the one of the token's account and memo, with its fields.
    func find(_ user: AnchorUser, id: String?, memo: UInt64?) async throws -> (StoredObject, AnchorCustomerRecord, [String: String])? {
        let stored: StoredObject?
        if let id, !id.isEmpty {
            guard id.utf8.count <= 64, let found = try await store.object(id: id, kind: .anchorCustomer, merchant: Self.owner) else {
                throw AnchorFailure.notFound("customer \(id) not found")
            }
            stored = found
        } else {
            stored = try await store.list(kind: ObjectKind.anchorCustomer.rawValue, merchant: Self.owner, ListRequest(limit: 1, customer: Self.key(user.account, memo))).objects.first
        }
        guard let stored else { return nil }
        let record = try JSONDecoder().decode(AnchorCustomerRecord.self, from: Data(stored.body))
        // Another user's customer is not found, as an unknown one is not.
        guard record.account == user.account.strKey, record.memo == memo else { throw AnchorFailure.notFound("customer \(record.id) not found") }
        let fields = try JSONDecoder().decode([String: String].self, from: Data(try secrets.open(record.sealedFields)))
        return (stored, record, fields)
    }

    /// `PUT /customer`: the fields given, checked and merged into the customer's (made if new).
    /// - Returns: the customer's id.
    public func put(_ user: AnchorUser, id: String?, account: String?, memo: String?, memoType: String?, type: String?, values: [String: String]) async throws -> String {
        try Self.checkAccount(user, account)
        let memo = try Self.memo(user, memo, memoType)
        do { try KYC.check(values) } catch { throw AnchorFailure.badRequest(code: "invalid_field", message: error.message) }
        let time = now()
        if let (stored, record, fields) = try await find(user, id: id, memo: memo) {
            var updated = record
            updated.sealedFields = try secrets.seal(Array(try JSONEncoder().encode(fields.merging(values) { $1 })))
            updated.updated = time
            if let type, !type.isEmpty { updated.type = type }
            var object = stored
            object.body = Array(try JSONEncoder().encode(updated))
            guard try await store.update(object) else { throw AnchorFailure.badRequest(code: "conflict", message: "the customer changed meanwhile; send it again") }
            return record.id
        }
        let newID = GatewayIDs.make("cus", random: random, at: time)
        let record = AnchorCustomerRecord(
            id: newID, account: user.account.strKey, memo: memo, type: (type?.isEmpty ?? true) ? "sep24-deposit" : type!,
            sealedFields: try secrets.seal(Array(try JSONEncoder().encode(values))), created: time, updated: time)
        try await store.insert(StoredObject(
            id: record.id, merchant: Self.owner, kind: .anchorCustomer, customer: Self.key(user.account, memo), created: time, body: Array(try JSONEncoder().encode(record))))
        return record.id
    }

    /// `GET /customer`: its status and fields, or (unknown) what a new customer must give.
    public func get(_ user: AnchorUser, id: String?, account: String?, memo: String?, memoType: String?) async throws -> CustomerView {
        try Self.checkAccount(user, account)
        let memo = try Self.memo(user, memo, memoType)
        guard let (_, record, fields) = try await find(user, id: id, memo: memo) else {
            return CustomerView(id: nil, status: .needsInfo, fields: KYC.fields, provided: [], message: nil)
        }
        let status = KYC.status(fields, updated: record.updated, now: now())
        let message: String? = switch status {
        case .rejected: "The customer was rejected (the test anchor rejects e-mail addresses with +reject)."
        case .processing: "The customer is being reviewed (the test anchor reviews e-mail addresses with +review for \(KYC.reviewSeconds) seconds)."
        default: nil
        }
        return CustomerView(
            id: record.id, status: status, fields: KYC.fields.filter { fields[$0.name] == nil },
            provided: KYC.fields.filter { fields[$0.name] != nil }, message: message)
    }

    /// The customer's status, for the transfers that need it (nil: not known yet).
    public func status(_ user: AnchorUser, memo: UInt64?) async throws -> KYC.Status? {
        guard let (_, record, fields) = try await find(user, id: nil, memo: memo) else { return nil }
        return KYC.status(fields, updated: record.updated, now: now())
    }

    /// `DELETE /customer/{account}`: the account's customer (of the memo) is erased: its fields
    /// are overwritten, then it is filed away.
    /// - Throws: ``AnchorFailure/notFound(_:)`` when there is none.
    public func delete(_ user: AnchorUser, account: String, memo: String?, memoType: String?) async throws {
        try Self.checkAccount(user, account)
        let memo = try Self.memo(user, memo, memoType)
        guard let (stored, record, _) = try await find(user, id: nil, memo: memo) else { throw AnchorFailure.notFound("no customer of \(account) to delete") }
        var erased = record
        erased.sealedFields = try secrets.seal(Array("{}".utf8))
        erased.updated = now()
        var object = stored
        object.body = Array(try JSONEncoder().encode(erased))
        guard try await store.update(object) else { throw AnchorFailure.badRequest(code: "conflict", message: "the customer changed meanwhile; send it again") }
        object.version += 1
        _ = try await store.retire(object, as: ObjectKind.deletedAnchorCustomer.rawValue)
    }
}
