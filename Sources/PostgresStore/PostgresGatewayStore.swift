import Foundation
import Gateway
import Logging
import NIOCore
import PostgresNIO
import Store

/// The gateway's merchants, objects, idempotency keys and webhook deliveries in PostgreSQL,
/// through postgres-nio: the same behaviour as ``SQLiteGatewayStore`` (the same contract tests
/// run on both). Every write is one PostgreSQL transaction; a version check that fails writes
/// nothing. The schema is Tender's own numbered migrations (``PostgresMigrations``).
public final class PostgresGatewayStore: GatewayStore {
    let database: PostgresDatabase

    /// Connects to `database` (already running its client) and brings the schema up to date.
    /// A cluster leader's fence: once its lead is lost, every write is refused (the ledger's
    /// commits also check the epoch in their transaction; these check the flag only).
    let fence: LeaderFence?

    public init(_ database: PostgresDatabase, fence: LeaderFence? = nil) async throws {
        self.database = database
        self.fence = fence
        try await PostgresMigrations.migrate(database, Self.migrations)
    }

    static let migrations: [PostgresMigrations.Migration] = [
        .init(number: 1, name: "gateway", statements: [
            """
            CREATE TABLE merchant (
                id TEXT PRIMARY KEY, name TEXT NOT NULL,
                secret_key_hash BYTEA NOT NULL UNIQUE, publishable_key_hash BYTEA NOT NULL UNIQUE,
                settlement_account TEXT NOT NULL, sealed_settlement_seed BYTEA NOT NULL, created BIGINT NOT NULL)
            """,
            """
            CREATE TABLE object (
                seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE, merchant TEXT NOT NULL, kind TEXT NOT NULL,
                customer TEXT, created BIGINT NOT NULL, version BIGINT NOT NULL, body BYTEA NOT NULL, attention_at BIGINT)
            """,
            "CREATE INDEX object_by_merchant ON object (merchant, kind, seq)",
            "CREATE INDEX object_by_customer ON object (merchant, kind, customer, seq)",
            "CREATE INDEX object_attention ON object (kind, attention_at) WHERE attention_at IS NOT NULL",
            """
            CREATE TABLE idempotency (
                merchant TEXT NOT NULL, key TEXT NOT NULL, request_hash BYTEA NOT NULL, created BIGINT NOT NULL,
                status BIGINT, body BYTEA, interrupted BOOLEAN NOT NULL DEFAULT false, PRIMARY KEY (merchant, key))
            """,
            """
            CREATE TABLE delivery (
                seq BIGSERIAL, id TEXT PRIMARY KEY, merchant TEXT NOT NULL, event TEXT NOT NULL, endpoint TEXT NOT NULL,
                attempts BIGINT NOT NULL, next_attempt_at BIGINT NOT NULL, status TEXT NOT NULL, last_status_code BIGINT)
            """,
            "CREATE INDEX delivery_due ON delivery (status, next_attempt_at)",
            "CREATE INDEX delivery_by_event ON delivery (event)",
        ]),
        .init(number: 2, name: "delivery attempts", statements: [
            "ALTER TABLE delivery ADD COLUMN last_attempt_at BIGINT",
            "CREATE INDEX delivery_by_endpoint ON delivery (endpoint, seq)",
        ]),
    ]

    // MARK: Merchants

    private typealias MerchantRow = (String, String, ByteBuffer, ByteBuffer, String, ByteBuffer, Int64)
    private static let merchantColumns = "id, name, secret_key_hash, publishable_key_hash, settlement_account, sealed_settlement_seed, created"

    private static func merchant(_ row: MerchantRow) -> MerchantRecord {
        MerchantRecord(
            id: row.0, name: row.1, secretKeyHash: Array(buffer: row.2), publishableKeyHash: Array(buffer: row.3),
            settlementAccount: row.4, sealedSettlementSeed: Array(buffer: row.5), created: row.6)
    }

    public func insertMerchant(_ merchant: MerchantRecord) async throws {
        try fence?.check()
        try await database.execute("""
            INSERT INTO merchant (id, name, secret_key_hash, publishable_key_hash, settlement_account, sealed_settlement_seed, created)
            VALUES (\(merchant.id), \(merchant.name), \(ByteBuffer(bytes: merchant.secretKeyHash)), \(ByteBuffer(bytes: merchant.publishableKeyHash)),
                    \(merchant.settlementAccount), \(ByteBuffer(bytes: merchant.sealedSettlementSeed)), \(merchant.created))
            """)
    }

    public func merchant(keyHash: [UInt8]) async throws -> (MerchantRecord, KeyKind)? {
        let hash = ByteBuffer(bytes: keyHash)
        let rows = try await database.rows("SELECT \(unescaped: Self.merchantColumns) FROM merchant WHERE secret_key_hash = \(hash) OR publishable_key_hash = \(hash)") { try $0.decode(MerchantRow.self) }
        return rows.first.map(Self.merchant).map { ($0, $0.secretKeyHash == keyHash ? .secret : .publishable) }
    }

    public func merchants() async throws -> [MerchantRecord] {
        try await database.rows("SELECT \(unescaped: Self.merchantColumns) FROM merchant ORDER BY created, id") { try $0.decode(MerchantRow.self) }.map(Self.merchant)
    }

    public func merchant(id: String) async throws -> MerchantRecord? {
        try await database.rows("SELECT \(unescaped: Self.merchantColumns) FROM merchant WHERE id = \(id)") { try $0.decode(MerchantRow.self) }.first.map(Self.merchant)
    }

    // MARK: Objects

    private typealias ObjectRow = (String, String, String, String?, Int64, Int64, ByteBuffer, Int64?)
    private static let objectColumns = "id, merchant, kind, customer, created, version, body, attention_at"

    private static func object(_ row: ObjectRow) throws -> StoredObject {
        StoredObject(id: row.0, merchant: row.1, kind: row.2, customer: row.3, created: row.4, version: row.5, body: try PackedBody.unpack(Array(buffer: row.6), kind: row.2), attentionAt: row.7)
    }

    private static func insertQuery(_ object: StoredObject) -> PostgresQuery {
        """
        INSERT INTO object (id, merchant, kind, customer, created, version, body, attention_at)
        VALUES (\(object.id), \(object.merchant), \(object.kind), \(object.customer), \(object.created), \(object.version),
                \(ByteBuffer(bytes: PackedBody.pack(object.body, kind: object.kind))), \(object.attentionAt))
        """
    }

    // Every query that names an object's id finds it through the id's key and checks its
    // merchant (and kind) on that one row, written `(...) IS TRUE` so that no index can serve
    // it. As a plain `merchant = ...`, the planner may choose an index that begins with the
    // merchant instead: for a merchant newer than the table's last ANALYZE it estimates one
    // row there, and the scan reads every object of that merchant's (an update 1.7 s at
    // 157,000 of them, docs/benchmarks.md). `aNewMerchantsObjectsAreFoundByTheirIDs` holds
    // each of these queries to the id's key.

    /// `merchant`'s object `id` of `kind`.
    static func objectQuery(id: String, kind: String, merchant: String) -> PostgresQuery {
        "SELECT \(unescaped: objectColumns) FROM object WHERE id = \(id) AND (kind = \(kind) AND merchant = \(merchant)) IS TRUE"
    }

    /// Replaces `object` if still at its version; answers a row when it did.
    static func updateQuery(_ object: StoredObject) -> PostgresQuery {
        """
        UPDATE object SET customer = \(object.customer), version = version + 1, body = \(ByteBuffer(bytes: PackedBody.pack(object.body, kind: object.kind))), attention_at = \(object.attentionAt)
        WHERE id = \(object.id) AND (merchant = \(object.merchant) AND version = \(object.version)) IS TRUE RETURNING version
        """
    }

    /// Files `object` under `kind` if still at its version; answers a row when it did.
    static func retireQuery(_ object: StoredObject, as kind: String) -> PostgresQuery {
        """
        UPDATE object SET kind = \(kind), version = version + 1, attention_at = NULL
        WHERE id = \(object.id) AND (merchant = \(object.merchant) AND version = \(object.version)) IS TRUE RETURNING version
        """
    }

    /// A page of `merchant`'s objects of `kind`, newest first unless it ends before a cursor;
    /// one more than the page asks for, to tell whether there are more.
    static func listQuery(kind: String, merchant: String, _ request: ListRequest) throws -> (query: PostgresQuery, ascending: Bool) {
        var bindings = PostgresBindings()
        func bind(_ value: some PostgresEncodable & Sendable) throws -> String {
            try bindings.append(value)
            return "$\(bindings.count)"
        }
        var conditions = ["merchant = \(try bind(merchant))", "kind = \(try bind(kind))"]
        if let customer = request.customer { conditions.append("customer = \(try bind(customer))") }
        let ascending: Bool
        if let after = request.startingAfter {
            conditions.append("seq < (SELECT seq FROM object WHERE id = \(try bind(after)) AND (merchant = \(try bind(merchant))) IS TRUE)")
            ascending = false
        } else if let before = request.endingBefore {
            conditions.append("seq > (SELECT seq FROM object WHERE id = \(try bind(before)) AND (merchant = \(try bind(merchant))) IS TRUE)")
            ascending = true
        } else {
            ascending = false
        }
        let sql = "SELECT \(objectColumns) FROM object WHERE \(conditions.joined(separator: " AND ")) ORDER BY seq \(ascending ? "ASC" : "DESC") LIMIT \(try bind(Int64(request.limit + 1)))"
        return (PostgresQuery(unsafeSQL: sql, binds: bindings), ascending)
    }

    private static func insertQueries(_ event: StoredEvent) -> [PostgresQuery] {
        // A record without deliveries (a balance transaction) has an id derived from what made
        // it: written again by a recovery that finds its change already done, it is the same record.
        let object = event.object
        let insert: PostgresQuery = event.deliveries.isEmpty ? """
            INSERT INTO object (id, merchant, kind, customer, created, version, body, attention_at)
            VALUES (\(object.id), \(object.merchant), \(object.kind), \(object.customer), \(object.created), \(object.version),
                    \(ByteBuffer(bytes: PackedBody.pack(object.body, kind: object.kind))), \(object.attentionAt))
            ON CONFLICT (id) DO NOTHING
            """ : insertQuery(object)
        return [insert] + event.deliveries.map { delivery in
            """
            INSERT INTO delivery (id, merchant, event, endpoint, attempts, next_attempt_at, status, last_status_code)
            VALUES (\(delivery.id), \(delivery.merchant), \(delivery.event), \(delivery.endpoint), \(Int64(delivery.attempts)),
                    \(delivery.nextAttemptAt), \(delivery.status.rawValue), \(delivery.lastStatusCode.map(Int64.init)))
            """
        }
    }

    public func insert(_ object: StoredObject) async throws {
        try fence?.check()
        try await database.execute(Self.insertQuery(object))
    }

    public func object(id: String, kind: String, merchant: String) async throws -> StoredObject? {
        try await database.rows(Self.objectQuery(id: id, kind: kind, merchant: merchant)) { try $0.decode(ObjectRow.self) }.first.map(Self.object)
    }

    public func object(id: String, kind: String) async throws -> StoredObject? {
        try await database.rows("SELECT \(unescaped: Self.objectColumns) FROM object WHERE id = \(id) AND kind = \(kind)") { try $0.decode(ObjectRow.self) }.first.map(Self.object)
    }

    public func update(_ object: StoredObject) async throws -> Bool {
        try fence?.check()
        return try await write(object, isNew: false, events: [])
    }

    public func update(_ update: StoredObject, inserting insert: StoredObject) async throws -> Bool {
        try fence?.check()
        return try await database.transaction { connection in
            guard try await connection.count(Self.updateQuery(update)) == 1 else { return false }
            try await connection.execute(Self.insertQuery(insert))
            return true
        }
    }

    public func write(_ object: StoredObject, isNew: Bool, events: [StoredEvent]) async throws -> Bool {
        try fence?.check()
        return try await database.transaction { connection in
            if isNew {
                try await connection.execute(Self.insertQuery(object))
            } else {
                guard try await connection.count(Self.updateQuery(object)) == 1 else { return false }
            }
            for event in events {
                for query in Self.insertQueries(event) { try await connection.execute(query) }
            }
            return true
        }
    }

    public func retire(_ object: StoredObject, as kind: String) async throws -> Bool {
        try fence?.check()
        return try await database.transaction { connection in
            try await connection.count(Self.retireQuery(object, as: kind)) == 1
        }
    }

    public func list(kind: String, merchant: String, _ request: ListRequest) async throws -> (objects: [StoredObject], hasMore: Bool) {
        let (query, ascending) = try Self.listQuery(kind: kind, merchant: merchant, request)
        var objects = try await database.rows(query) { try $0.decode(ObjectRow.self) }.map(Self.object)
        let hasMore = objects.count > request.limit
        objects = Array(objects.prefix(request.limit))
        return (ascending ? objects.reversed() : objects, hasMore)
    }

    // MARK: Idempotency

    public func claimIdempotencyKey(_ key: String, merchant: String, requestHash: [UInt8], now: Int64, expiresBefore: Int64) async throws -> IdempotencyClaim {
        try fence?.check()
        return try await database.transaction { connection in
            try await connection.execute("DELETE FROM idempotency WHERE merchant = \(merchant) AND key = \(key) AND created < \(expiresBefore)")
            // A concurrent claim of the same key waits here for the first to commit, then finds its row.
            let inserted = try await connection.count("""
                INSERT INTO idempotency (merchant, key, request_hash, created) VALUES (\(merchant), \(key), \(ByteBuffer(bytes: requestHash)), \(now))
                ON CONFLICT (merchant, key) DO NOTHING RETURNING created
                """)
            if inserted == 1 { return .claimed(created: now, resumed: false) }
            let rows = try await connection.rows("SELECT request_hash, status, body, created, interrupted FROM idempotency WHERE merchant = \(merchant) AND key = \(key)") { try $0.decode((ByteBuffer, Int64?, ByteBuffer?, Int64, Bool).self) }
            guard let row = rows.first else { return .inProgress }
            guard Array(buffer: row.0) == requestHash else { return .mismatch }
            if let status = row.1, let body = row.2 { return .replay(status: Int(status), body: Array(buffer: body)) }
            guard row.4 else { return .inProgress }
            try await connection.execute("UPDATE idempotency SET interrupted = false WHERE merchant = \(merchant) AND key = \(key)")
            return .claimed(created: row.3, resumed: true)
        }
    }

    public func recordIdempotentAnswer(_ key: String, merchant: String, status: Int, body: [UInt8]) async throws {
        try fence?.check()
        try await database.execute("UPDATE idempotency SET status = \(Int64(status)), body = \(ByteBuffer(bytes: body)) WHERE merchant = \(merchant) AND key = \(key)")
    }

    public func interruptIdempotencyKey(_ key: String, merchant: String) async throws {
        try fence?.check()
        try await database.execute("UPDATE idempotency SET interrupted = true WHERE merchant = \(merchant) AND key = \(key) AND status IS NULL")
    }

    public func markInterruptedIdempotencyKeys() async throws {
        try fence?.check()
        try await database.execute("UPDATE idempotency SET interrupted = true WHERE status IS NULL")
    }

    // MARK: Attention, events and deliveries

    public func dueObjects(kind: String, now: Int64, limit: Int) async throws -> [StoredObject] {
        try await database.rows("""
            SELECT \(unescaped: Self.objectColumns) FROM object WHERE kind = \(kind) AND attention_at IS NOT NULL AND attention_at <= \(now)
            ORDER BY attention_at LIMIT \(Int64(limit))
            """) { try $0.decode(ObjectRow.self) }.map(Self.object)
    }

    public func insertEvent(_ event: StoredObject, deliveries: [WebhookDelivery]) async throws {
        try fence?.check()
        try await database.transaction { connection in
            for query in Self.insertQueries(StoredEvent(object: event, deliveries: deliveries)) { try await connection.execute(query) }
        }
    }

    private typealias DeliveryRow = (String, String, String, String, Int64, Int64, String, Int64?, Int64?)
    private static let deliveryColumns = "id, merchant, event, endpoint, attempts, next_attempt_at, status, last_status_code, last_attempt_at"

    private static func delivery(_ row: DeliveryRow) -> WebhookDelivery {
        WebhookDelivery(
            id: row.0, merchant: row.1, event: row.2, endpoint: row.3, attempts: Int(row.4), nextAttemptAt: row.5,
            status: WebhookDelivery.Status(rawValue: row.6) ?? .failed, lastStatusCode: row.7.map(Int.init), lastAttemptAt: row.8)
    }

    public func dueDeliveries(now: Int64, limit: Int) async throws -> [WebhookDelivery] {
        try await database.rows("""
            SELECT \(unescaped: Self.deliveryColumns) FROM delivery WHERE status = 'pending' AND next_attempt_at <= \(now)
            ORDER BY next_attempt_at, seq LIMIT \(Int64(limit))
            """) { try $0.decode(DeliveryRow.self) }.map(Self.delivery)
    }

    public func nextDeliveryTime() async throws -> Int64? {
        try await database.rows("SELECT MIN(next_attempt_at) FROM delivery WHERE status = 'pending'") { try $0.decode((Int64?).self) }.first ?? nil
    }

    public func updateDelivery(_ delivery: WebhookDelivery) async throws {
        try fence?.check()
        try await database.execute("""
            UPDATE delivery SET attempts = \(Int64(delivery.attempts)), next_attempt_at = \(delivery.nextAttemptAt), status = \(delivery.status.rawValue),
                last_status_code = \(delivery.lastStatusCode.map(Int64.init)), last_attempt_at = \(delivery.lastAttemptAt) WHERE id = \(delivery.id)
            """)
    }

    public func deliveries(event: String) async throws -> [WebhookDelivery] {
        try await database.rows("SELECT \(unescaped: Self.deliveryColumns) FROM delivery WHERE event = \(event) ORDER BY seq") { try $0.decode(DeliveryRow.self) }.map(Self.delivery)
    }

    public func deliveries(endpoint: String, limit: Int) async throws -> [WebhookDelivery] {
        try await database.rows("""
            SELECT \(unescaped: Self.deliveryColumns) FROM delivery WHERE endpoint = \(endpoint) ORDER BY seq DESC LIMIT \(Int64(limit))
            """) { try $0.decode(DeliveryRow.self) }.map(Self.delivery)
    }
}
