import ArgumentParser
import Crypto
import Foundation
import GRDB
import Ledger
import Logging
import NIOCore
import PostgresNIO
import PostgresStore
import StellarBase
import Store

/// `tender migrate`: copies a network kept in SQLite (a data directory's `ledger.sqlite` and
/// `gateway.sqlite`) into an empty PostgreSQL database, with its whole history, then checks the
/// copy: every ledger's header and hash, every table's rows, and the balances.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a network from SQLite into PostgreSQL and verify the copy.",
        discussion: """
            Stop the tender serve that uses the data directory first. The PostgreSQL database must hold no \
            network yet; its tables are made as tender serve makes them. The copy is one PostgreSQL transaction: \
            a failure leaves nothing behind. Afterwards the ledgers are compared one by one (sequence, header and \
            hash), every table row by row, and the final state's balances and invariants; any difference fails \
            the command. Then run tender serve --data DIR --database URL (the keys stay in the data directory).
            """)

    @Option(help: "The data directory of the network to copy (its ledger.sqlite and gateway.sqlite).")
    var from: String = ".tender"

    @Option(help: "The PostgreSQL database to copy into (postgres://user[:password]@host[:port]/database).")
    var to: String

    @Flag(help: "Only verify an earlier copy (nothing is written).")
    var check = false

    func run() async throws {
        let ledgerPath = from + "/ledger.sqlite", gatewayPath = from + "/gateway.sqlite"
        guard FileManager.default.fileExists(atPath: ledgerPath) else { throw CommandFailure("no ledger in \(from) (\(ledgerPath) is missing)") }
        let database: PostgresStore.PostgresDatabase
        do {
            database = try PostgresStore.PostgresDatabase(url: to, logger: Logger(label: "tender.migrate", factory: { _ in SwiftLogNoOpLogHandler() }))
        } catch {
            throw CommandFailure("\(error)")
        }
        defer { database.shutdown() }
        let migration = NetworkMigration(
            ledgerPath: ledgerPath, ledger: try Self.open(ledgerPath),
            gateway: FileManager.default.fileExists(atPath: gatewayPath) ? try Self.open(gatewayPath) : nil,
            target: database)
        do {
            _ = try await PostgresLedgerStore(database)
            _ = try await PostgresGatewayStore(database)
            if !check {
                let copied = try await migration.copy()
                print("copied \(copied.rows) rows in \(copied.tables) tables into \(Self.shown(to))")
            }
            let report = try await migration.verify()
            for line in report.lines { print(line) }
        } catch let failure as MigrationFailure {
            throw CommandFailure(failure.message)
        } catch {
            throw CommandFailure("the migration failed: \(error)")
        }
    }

    /// A SQLite file, opened read-only.
    static func open(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw CommandFailure("cannot open \(path): \(error)")
        }
    }

    /// The URL without its password.
    static func shown(_ url: String) -> String {
        url.replacingOccurrences(of: #":[^:@/]*@"#, with: ":***@", options: .regularExpression)
    }
}

struct MigrationFailure: Error {
    let message: String
}

/// The copy and its verification, table by table (the two stores have the same tables).
struct NetworkMigration {
    let ledgerPath: String
    let ledger: DatabaseQueue
    let gateway: DatabaseQueue?
    let target: PostgresStore.PostgresDatabase

    static let ledgerTables = [
        "ledger_headers", "accounts", "trust_lines", "offers", "account_data", "transactions", "operations", "account_transactions", "account_operations",
    ]
    static let gatewayTables = ["merchant", "object", "idempotency", "delivery"]
    static let batch = 500

    /// One cell, as both databases can give it.
    enum Value: Equatable {
        case null
        case integer(Int64)
        case bytes([UInt8])
        case text(String)

        /// Canonical bytes, so the same row hashes the same from either database.
        func append(to bytes: inout [UInt8]) {
            switch self {
            case .null: bytes.append(0)
            case .integer(let value):
                bytes.append(1)
                withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
            case .bytes(let value):
                bytes.append(2)
                withUnsafeBytes(of: Int64(value.count).bigEndian) { bytes.append(contentsOf: $0) }
                bytes.append(contentsOf: value)
            case .text(let value):
                bytes.append(3)
                let utf8 = Array(value.utf8)
                withUnsafeBytes(of: Int64(utf8.count).bigEndian) { bytes.append(contentsOf: $0) }
                bytes.append(contentsOf: utf8)
            }
        }
    }

    struct Column {
        let name: String
        let type: String
    }

    var sources: [(DatabaseQueue, [String])] {
        [(ledger, Self.ledgerTables)] + (gateway.map { [($0, Self.gatewayTables)] } ?? [])
    }

    /// The columns a table has in both databases, with PostgreSQL's type of each.
    func columns(_ table: String, _ source: DatabaseQueue) async throws -> [Column] {
        let sqlite = try await source.read { db in try db.columns(in: table).map(\.name) }
        let postgres = try await target.rows("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = \(table) ORDER BY ordinal_position") {
            try $0.decode((String, String).self)
        }
        return postgres.filter { sqlite.contains($0.0) }.map { Column(name: $0.0, type: $0.1) }
    }

    // MARK: Copy

    func copy() async throws -> (tables: Int, rows: Int) {
        let existing = try await target.rows("SELECT COUNT(*) FROM ledger_headers") { try $0.decode(Int64.self) }.first ?? 0
        let merchants = try await target.rows("SELECT COUNT(*) FROM merchant") { try $0.decode(Int64.self) }.first ?? 0
        guard existing == 0, merchants == 0 else {
            throw MigrationFailure(message: "the database already holds a network (\(existing) ledgers, \(merchants) merchants); migrate into an empty database")
        }
        var plan: [(DatabaseQueue, String, [Column])] = []
        for (source, tables) in sources {
            for table in tables { plan.append((source, table, try await columns(table, source))) }
        }
        let planned = plan
        return try await target.transaction { transaction in
            var rows = 0
            for (source, table, columns) in planned {
                var offset = 0
                while true {
                    let chunk = try await Self.read(source, table, columns, limit: Self.batch, offset: offset)
                    if chunk.isEmpty { break }
                    try await Self.insert(chunk, into: table, columns, transaction)
                    rows += chunk.count
                    offset += chunk.count
                }
            }
            // The gateway's object sequence goes on after the copied rows.
            try await transaction.execute("SELECT setval(pg_get_serial_sequence('object', 'seq'), GREATEST((SELECT MAX(seq) FROM object), 1))")
            return (planned.count, rows)
        }
    }

    /// Rows of a SQLite table in a stable order (its primary key, or its rowid).
    static func read(_ source: DatabaseQueue, _ table: String, _ columns: [Column], limit: Int, offset: Int) async throws -> [[Value]] {
        try await source.read { db in
            let key = try db.primaryKey(table).columns
            let order = key.isEmpty ? "rowid" : key.map { "\"\($0)\"" }.joined(separator: ", ")
            let list = columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
            return try Row.fetchAll(db, sql: "SELECT \(list) FROM \"\(table)\" ORDER BY \(order) LIMIT ? OFFSET ?", arguments: [limit, offset]).map { row in
                (0..<columns.count).map { index in
                    switch row[index] as DatabaseValue {
                    case let value where value.isNull: .null
                    case let value:
                        switch value.storage {
                        case .int64(let number): .integer(number)
                        case .blob(let data): .bytes([UInt8](data))
                        case .string(let text): .text(text)
                        case .double(let number): .integer(Int64(number))
                        case .null: .null
                        }
                    }
                }
            }
        }
    }

    static func insert(_ rows: [[Value]], into table: String, _ columns: [Column], _ transaction: PostgresStore.PostgresDatabase.Transaction) async throws {
        var bindings = PostgresBindings(capacity: rows.count * columns.count)
        var tuples: [String] = []
        var parameter = 0
        for row in rows {
            var placeholders: [String] = []
            for (value, column) in zip(row, columns) {
                parameter += 1
                placeholders.append("$\(parameter)")
                try bind(value, as: column, &bindings)
            }
            tuples.append("(" + placeholders.joined(separator: ", ") + ")")
        }
        let sql = "INSERT INTO \(table) (\(columns.map(\.name).joined(separator: ", "))) VALUES " + tuples.joined(separator: ", ")
        try await transaction.execute(PostgresQuery(unsafeSQL: sql, binds: bindings))
    }

    static func bind(_ value: Value, as column: Column, _ bindings: inout PostgresBindings) throws {
        switch (value, column.type) {
        case (.null, _): bindings.appendNull()
        case (.integer(let number), "boolean"): bindings.append(number != 0)
        case (.integer(let number), "integer"):
            guard let small = Int32(exactly: number) else { throw MigrationFailure(message: "\(column.name) holds \(number), too large for an integer column") }
            bindings.append(small)
        case (.integer(let number), _): bindings.append(number)
        case (.bytes(let bytes), _): bindings.append(ByteBuffer(bytes: bytes))
        case (.text(let text), _): bindings.append(text)
        }
    }

    // MARK: Verify

    struct Report {
        var lines: [String] = []
    }

    /// Compares the copy with its source: the ledgers one by one, every table's rows (a digest of
    /// each side's row hashes), and the final state's balances and invariants.
    func verify() async throws -> Report {
        var report = Report()
        // The ledgers: the same sequences, none missing, each header (so its hash) the same.
        let sourceHeaders = try await ledger.read { db in
            try Row.fetchAll(db, sql: "SELECT sequence, header FROM ledger_headers ORDER BY sequence").map { (Int64($0[0] as Int64), [UInt8]($0[1] as Data)) }
        }
        let targetHeaders = try await target.rows("SELECT sequence, header FROM ledger_headers ORDER BY sequence") { row in
            let (sequence, header) = try row.decode((Int64, ByteBuffer).self)
            return (sequence, Array(buffer: header))
        }
        guard let first = sourceHeaders.first, let last = sourceHeaders.last else { throw MigrationFailure(message: "the source holds no ledger") }
        guard sourceHeaders.count == Int(last.0 - first.0 + 1) else { throw MigrationFailure(message: "the source's ledgers are not contiguous") }
        guard targetHeaders.count == sourceHeaders.count else {
            throw MigrationFailure(message: "the copy holds \(targetHeaders.count) ledgers, the source \(sourceHeaders.count)")
        }
        for ((sequence, header), (copiedSequence, copied)) in zip(sourceHeaders, targetHeaders) {
            guard sequence == copiedSequence, header == copied, (try? LedgerHeader(xdrBytes: copied))?.sequence == UInt32(sequence) else {
                throw MigrationFailure(message: "ledger \(sequence) differs in the copy (its hash would too)")
            }
        }
        let lastHash = SHA256.hash(data: last.1).map { String(format: "%02x", $0) }.joined()
        report.lines.append("ledgers \(first.0) to \(last.0): \(sourceHeaders.count) headers and hashes identical; the last is \(lastHash)")

        // Every table, row by row.
        var rows = 0
        for (source, tables) in sources {
            for table in tables {
                let columns = try await columns(table, source)
                let (sourceCount, sourceDigest) = try await Self.digest(source, table, columns)
                let (targetCount, targetDigest) = try await digest(target: table, columns)
                guard sourceCount == targetCount, sourceDigest == targetDigest else {
                    throw MigrationFailure(message: "the table \(table) differs: \(sourceCount) rows in the source, \(targetCount) in the copy\(sourceCount == targetCount ? ", not the same rows" : "")")
                }
                rows += sourceCount
            }
        }
        report.lines.append("\(rows) rows in \(sources.reduce(0) { $0 + $1.1.count }) tables identical")

        // The state: the same balances, and the invariants hold.
        guard let sourceState = try await SQLiteLedgerStore(path: ledgerPath).loadState(),
              let copiedState = try await PostgresLedgerStore(target).loadState() else {
            throw MigrationFailure(message: "the state could not be loaded")
        }
        if let broken = copiedState.verifyAllInvariants() { throw MigrationFailure(message: "the copy's invariants fail: \(broken)") }
        guard copiedState.header == sourceState.header else { throw MigrationFailure(message: "the copy's last header differs") }
        for (id, account) in sourceState.accounts where copiedState.account(id)?.balance != account.balance {
            throw MigrationFailure(message: "the balance of \(id.strKey) differs in the copy")
        }
        for (key, line) in sourceState.trustLines where copiedState.trustLines[key]?.balance != line.balance {
            throw MigrationFailure(message: "the \(key.asset) balance of \(key.accountID.strKey) differs in the copy")
        }
        guard copiedState.accounts.count == sourceState.accounts.count, copiedState.trustLines.count == sourceState.trustLines.count else {
            throw MigrationFailure(message: "the copy has \(copiedState.accounts.count) accounts and \(copiedState.trustLines.count) trust lines, the source \(sourceState.accounts.count) and \(sourceState.trustLines.count)")
        }
        let xlm = copiedState.accounts.values.reduce(Int64(0)) { $0 + $1.balance }
        report.lines.append("\(copiedState.accounts.count) accounts and \(copiedState.trustLines.count) trust lines with the same balances; \(Amount.format(xlm)) XLM held plus \(Amount.format(copiedState.header.feePool)) in the fee pool make the \(Amount.format(copiedState.header.totalCoins)) total; invariants hold")
        return report
    }

    /// A table's row count and the digest of its sorted row hashes.
    static func digest(_ source: DatabaseQueue, _ table: String, _ columns: [Column]) async throws -> (Int, [UInt8]) {
        var hashes: [[UInt8]] = []
        var offset = 0
        while true {
            let chunk = try await read(source, table, columns, limit: 5_000, offset: offset)
            if chunk.isEmpty { break }
            hashes += chunk.map(rowHash)
            offset += chunk.count
        }
        return (hashes.count, combined(hashes))
    }

    func digest(target table: String, _ columns: [Column]) async throws -> (Int, [UInt8]) {
        let list = columns.map(\.name).joined(separator: ", ")
        let hashes = try await target.rows(PostgresQuery(unsafeSQL: "SELECT \(list) FROM \(table)")) { row in
            try Self.rowHash(row.map { cell -> Value in
                guard var bytes = cell.bytes else { return .null }
                switch cell.dataType {
                case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
                case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
                case .bytea: return .bytes(bytes.readBytes(length: bytes.readableBytes) ?? [])
                default: return .text(try cell.decode(String.self))
                }
            })
        }
        return (hashes.count, Self.combined(hashes))
    }

    static func rowHash(_ row: [Value]) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in row { value.append(to: &bytes) }
        return Array(SHA256.hash(data: bytes))
    }

    static func combined(_ hashes: [[UInt8]]) -> [UInt8] {
        var hasher = SHA256()
        for hash in hashes.sorted(by: { $0.lexicographicallyPrecedes($1) }) { hasher.update(data: hash) }
        return Array(hasher.finalize())
    }
}
