import Foundation
import Gateway
import GRDB

/// The gateway's merchants, objects and idempotency keys in a SQLite database of their own
/// (beside the ledger's), read and written through GRDB's async API.
public final class SQLiteGatewayStore: GatewayStore {
    let database: DatabasePool
    /// Every write goes through it: concurrent requests share a transaction and its fsync.
    private let writer: GroupCommitWriter

    /// Opens (or creates) the database at `path` and brings its schema up to date.
    /// - Throws: when the file cannot be opened or migrated.
    public init(path: String) throws {
        TenderVFS.install()
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        database = try DatabasePool(path: path, configuration: configuration)
        // As for the ledger: an answered payment must survive a power cut.
        try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        try Self.migrator.migrate(database)
        writer = GroupCommitWriter(database: database)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("gateway-v1") { db in
            try db.execute(sql: """
                CREATE TABLE merchant (
                    id TEXT PRIMARY KEY, name TEXT NOT NULL,
                    secret_key_hash BLOB NOT NULL UNIQUE, publishable_key_hash BLOB NOT NULL UNIQUE,
                    settlement_account TEXT NOT NULL, sealed_settlement_seed BLOB NOT NULL, created INTEGER NOT NULL);
                CREATE TABLE object (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, merchant TEXT NOT NULL,
                    kind TEXT NOT NULL, customer TEXT, created INTEGER NOT NULL, version INTEGER NOT NULL, body BLOB NOT NULL);
                CREATE INDEX object_by_merchant ON object (merchant, kind, seq);
                CREATE INDEX object_by_customer ON object (merchant, kind, customer, seq);
                CREATE TABLE idempotency (
                    merchant TEXT NOT NULL, key TEXT NOT NULL, request_hash BLOB NOT NULL, created INTEGER NOT NULL,
                    status INTEGER, body BLOB, PRIMARY KEY (merchant, key));
                """)
        }
        migrator.registerMigration("gateway-v2-webhooks") { db in
            try db.execute(sql: """
                CREATE TABLE delivery (
                    id TEXT PRIMARY KEY, merchant TEXT NOT NULL, event TEXT NOT NULL, endpoint TEXT NOT NULL,
                    attempts INTEGER NOT NULL, next_attempt_at INTEGER NOT NULL, status TEXT NOT NULL, last_status_code INTEGER);
                CREATE INDEX delivery_due ON delivery (status, next_attempt_at);
                CREATE INDEX delivery_by_event ON delivery (event);
                """)
        }
        migrator.registerMigration("gateway-v3-attention") { db in
            try db.execute(sql: """
                ALTER TABLE object ADD COLUMN attention_at INTEGER;
                CREATE INDEX object_attention ON object (kind, attention_at) WHERE attention_at IS NOT NULL;
                """)
        }
        migrator.registerMigration("gateway-v4-interrupted") { db in
            try db.execute(sql: "ALTER TABLE idempotency ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("gateway-v5-delivery-attempts") { db in
            try db.execute(sql: """
                ALTER TABLE delivery ADD COLUMN last_attempt_at INTEGER;
                CREATE INDEX delivery_by_endpoint ON delivery (endpoint);
                """)
        }
        return migrator
    }

    public func insertMerchant(_ merchant: MerchantRecord) async throws {
        try await writer.write { db in
            try db.cachedStatement(sql: "INSERT INTO merchant (id, name, secret_key_hash, publishable_key_hash, settlement_account, sealed_settlement_seed, created) VALUES (?, ?, ?, ?, ?, ?, ?)").execute(
                arguments: [merchant.id, merchant.name, Data(merchant.secretKeyHash), Data(merchant.publishableKeyHash), merchant.settlementAccount, Data(merchant.sealedSettlementSeed), merchant.created])
        }
    }

    private static func merchant(_ row: Row) -> MerchantRecord {
        MerchantRecord(
            id: row["id"], name: row["name"], secretKeyHash: Array(row["secret_key_hash"] as Data),
            publishableKeyHash: Array(row["publishable_key_hash"] as Data), settlementAccount: row["settlement_account"],
            sealedSettlementSeed: Array(row["sealed_settlement_seed"] as Data), created: row["created"])
    }

    public func merchant(keyHash: [UInt8]) async throws -> (MerchantRecord, KeyKind)? {
        try await database.read { db in
            guard let row = try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM merchant WHERE secret_key_hash = ? OR publishable_key_hash = ?"), arguments: [Data(keyHash), Data(keyHash)]) else { return nil }
            let merchant = Self.merchant(row)
            return (merchant, merchant.secretKeyHash == keyHash ? .secret : .publishable)
        }
    }

    public func merchants() async throws -> [MerchantRecord] {
        try await database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM merchant ORDER BY created, id").map(Self.merchant) }
    }

    public func merchant(id: String) async throws -> MerchantRecord? {
        try await database.read { db in try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM merchant WHERE id = ?"), arguments: [id]).map(Self.merchant) }
    }

    public func object(id: String, kind: String) async throws -> StoredObject? {
        try await database.read { db in
            try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM object WHERE id = ? AND kind = ?"), arguments: [id, kind]).map(Self.object)
        }
    }

    private static func object(_ row: Row) throws -> StoredObject {
        StoredObject(id: row["id"], merchant: row["merchant"], kind: row["kind"], customer: row["customer"], created: row["created"], version: row["version"], body: try PackedBody.unpack(Array(row["body"] as Data), kind: row["kind"]), attentionAt: row["attention_at"])
    }

    public func insert(_ object: StoredObject) async throws {
        try await writer.write { db in try Self.insert(object, db) }
    }

    private static func insert(_ object: StoredObject, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO object (id, merchant, kind, customer, created, version, body, attention_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").execute(
            arguments: [object.id, object.merchant, object.kind, object.customer, object.created, object.version, Data(PackedBody.pack(object.body, kind: object.kind)), object.attentionAt])
    }

    /// Replaces `object` if still at its version; `db.changesCount` tells whether it was.
    private static func update(_ object: StoredObject, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE object SET customer = ?, version = version + 1, body = ?, attention_at = ? WHERE id = ? AND merchant = ? AND version = ?").execute(
            arguments: [object.customer, Data(PackedBody.pack(object.body, kind: object.kind)), object.attentionAt, object.id, object.merchant, object.version])
    }

    public func object(id: String, kind: String, merchant: String) async throws -> StoredObject? {
        try await database.read { db in
            try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM object WHERE id = ? AND kind = ? AND merchant = ?"), arguments: [id, kind, merchant]).map(Self.object)
        }
    }

    public func update(_ object: StoredObject) async throws -> Bool {
        try await writer.write { db in
            try Self.update(object, db)
            return db.changesCount == 1
        }
    }

    public func update(_ update: StoredObject, inserting insert: StoredObject) async throws -> Bool {
        try await writer.write { db in
            try Self.update(update, db)
            guard db.changesCount == 1 else { return false }
            try Self.insert(insert, db)
            return true
        }
    }

    public func retire(_ object: StoredObject, as kind: String) async throws -> Bool {
        try await writer.write { db in
            try db.cachedStatement(sql: "UPDATE object SET kind = ?, version = version + 1, attention_at = NULL WHERE id = ? AND merchant = ? AND version = ?").execute(
                arguments: [kind, object.id, object.merchant, object.version])
            return db.changesCount == 1
        }
    }

    public func list(kind: String, merchant: String, _ request: ListRequest) async throws -> (objects: [StoredObject], hasMore: Bool) {
        try await database.read { db in
            var conditions = ["merchant = ?", "kind = ?"]
            var arguments: StatementArguments = [merchant, kind]
            if let customer = request.customer {
                conditions.append("customer = ?")
                arguments += [customer]
            }
            let ascending: Bool
            if let after = request.startingAfter {
                conditions.append("seq < (SELECT seq FROM object WHERE id = ? AND merchant = ?)")
                arguments += [after, merchant]
                ascending = false
            } else if let before = request.endingBefore {
                conditions.append("seq > (SELECT seq FROM object WHERE id = ? AND merchant = ?)")
                arguments += [before, merchant]
                ascending = true
            } else {
                ascending = false
            }
            arguments += [request.limit + 1]
            let sql = "SELECT * FROM object WHERE \(conditions.joined(separator: " AND ")) ORDER BY seq \(ascending ? "ASC" : "DESC") LIMIT ?"
            var objects = try Row.fetchAll(try db.cachedStatement(sql: sql), arguments: arguments).map(Self.object)
            let hasMore = objects.count > request.limit
            objects = Array(objects.prefix(request.limit))
            return (ascending ? objects.reversed() : objects, hasMore)
        }
    }

    public func claimIdempotencyKey(_ key: String, merchant: String, requestHash: [UInt8], now: Int64, expiresBefore: Int64) async throws -> IdempotencyClaim {
        try await writer.write { db in
            try db.cachedStatement(sql: "DELETE FROM idempotency WHERE merchant = ? AND key = ? AND created < ?").execute(arguments: [merchant, key, expiresBefore])
            if let row = try Row.fetchOne(try db.cachedStatement(sql: "SELECT request_hash, status, body, created, interrupted FROM idempotency WHERE merchant = ? AND key = ?"), arguments: [merchant, key]) {
                guard Array(row["request_hash"] as Data) == requestHash else { return .mismatch }
                if let status = row["status"] as Int?, let body = row["body"] as Data? { return .replay(status: status, body: Array(body)) }
                guard row["interrupted"] as Int == 1 else { return .inProgress }
                try db.cachedStatement(sql: "UPDATE idempotency SET interrupted = 0 WHERE merchant = ? AND key = ?").execute(arguments: [merchant, key])
                return .claimed(created: row["created"], resumed: true)
            }
            try db.cachedStatement(sql: "INSERT INTO idempotency (merchant, key, request_hash, created) VALUES (?, ?, ?, ?)").execute(arguments: [merchant, key, Data(requestHash), now])
            return .claimed(created: now, resumed: false)
        }
    }

    public func recordIdempotentAnswer(_ key: String, merchant: String, status: Int, body: [UInt8]) async throws {
        try await writer.write { db in
            try db.cachedStatement(sql: "UPDATE idempotency SET status = ?, body = ? WHERE merchant = ? AND key = ?").execute(arguments: [status, Data(body), merchant, key])
        }
    }

    public func markInterruptedIdempotencyKeys() async throws {
        try await writer.write { db in try db.execute(sql: "UPDATE idempotency SET interrupted = 1 WHERE status IS NULL") }
    }

    public func interruptIdempotencyKey(_ key: String, merchant: String) async throws {
        try await writer.write { db in
            try db.cachedStatement(sql: "UPDATE idempotency SET interrupted = 1 WHERE merchant = ? AND key = ? AND status IS NULL").execute(arguments: [merchant, key])
        }
    }

    private static func delivery(_ row: Row) -> WebhookDelivery {
        WebhookDelivery(
            id: row["id"], merchant: row["merchant"], event: row["event"], endpoint: row["endpoint"], attempts: row["attempts"],
            nextAttemptAt: row["next_attempt_at"], status: WebhookDelivery.Status(rawValue: row["status"]) ?? .failed, lastStatusCode: row["last_status_code"],
            lastAttemptAt: row["last_attempt_at"])
    }

    public func dueObjects(kind: String, now: Int64, limit: Int) async throws -> [StoredObject] {
        try await database.read { db in
            try Row.fetchAll(try db.cachedStatement(sql: "SELECT * FROM object WHERE kind = ? AND attention_at IS NOT NULL AND attention_at <= ? ORDER BY attention_at LIMIT ?"), arguments: [kind, now, limit]).map(Self.object)
        }
    }

    public func insertEvent(_ event: StoredObject, deliveries: [WebhookDelivery]) async throws {
        try await writer.write { db in try Self.insert(StoredEvent(object: event, deliveries: deliveries), db) }
    }

    private static func insert(_ event: StoredEvent, _ db: Database) throws {
        let object = event.object
        // A record without deliveries (a balance transaction) has an id derived from what made
        // it: written again by a recovery that finds its change already done, it is the same record.
        let verb = event.deliveries.isEmpty ? "INSERT OR IGNORE" : "INSERT"
        try db.cachedStatement(sql: "\(verb) INTO object (id, merchant, kind, customer, created, version, body) VALUES (?, ?, ?, ?, ?, ?, ?)").execute(
            arguments: [object.id, object.merchant, object.kind, object.customer, object.created, object.version, Data(PackedBody.pack(object.body, kind: object.kind))])
        for delivery in event.deliveries {
            try db.cachedStatement(sql: "INSERT INTO delivery (id, merchant, event, endpoint, attempts, next_attempt_at, status, last_status_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").execute(
                arguments: [delivery.id, delivery.merchant, delivery.event, delivery.endpoint, delivery.attempts, delivery.nextAttemptAt, delivery.status.rawValue, delivery.lastStatusCode])
        }
    }

    public func write(_ object: StoredObject, isNew: Bool, events: [StoredEvent]) async throws -> Bool {
        try await writer.write { db in
            if isNew {
                try Self.insert(object, db)
            } else {
                try Self.update(object, db)
                guard db.changesCount == 1 else { return false }
            }
            for event in events { try Self.insert(event, db) }
            return true
        }
    }

    public func dueDeliveries(now: Int64, limit: Int) async throws -> [WebhookDelivery] {
        try await database.read { db in
            try Row.fetchAll(try db.cachedStatement(sql: "SELECT * FROM delivery WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, rowid LIMIT ?"), arguments: [now, limit]).map(Self.delivery)
        }
    }

    public func nextDeliveryTime() async throws -> Int64? {
        try await database.read { db in try Int64.fetchOne(db, sql: "SELECT MIN(next_attempt_at) FROM delivery WHERE status = 'pending'") }
    }

    public func updateDelivery(_ delivery: WebhookDelivery) async throws {
        try await writer.write { db in
            try db.cachedStatement(sql: "UPDATE delivery SET attempts = ?, next_attempt_at = ?, status = ?, last_status_code = ?, last_attempt_at = ? WHERE id = ?").execute(
                arguments: [delivery.attempts, delivery.nextAttemptAt, delivery.status.rawValue, delivery.lastStatusCode, delivery.lastAttemptAt, delivery.id])
        }
    }

    public func deliveries(event: String) async throws -> [WebhookDelivery] {
        try await database.read { db in try Row.fetchAll(try db.cachedStatement(sql: "SELECT * FROM delivery WHERE event = ? ORDER BY rowid"), arguments: [event]).map(Self.delivery) }
    }

    public func deliveries(endpoint: String, limit: Int) async throws -> [WebhookDelivery] {
        try await database.read { db in
            try Row.fetchAll(try db.cachedStatement(sql: "SELECT * FROM delivery WHERE endpoint = ? ORDER BY rowid DESC LIMIT ?"), arguments: [endpoint, limit]).map(Self.delivery)
        }
    }
}
