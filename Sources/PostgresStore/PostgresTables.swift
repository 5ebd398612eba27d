import Ledger
import NIOCore
import PostgresNIO

/// A store's PostgreSQL tables written and read table by table, as `tender migrate` copies a
/// network into them and proves the copy: the columns and their types, rows inserted in one
/// transaction, a table's digest of row hashes (``StoreValue/rowHash(_:)``).
public struct PostgresTables: Sendable {
    public let database: PostgresDatabase

    public init(_ database: PostgresDatabase) {
        self.database = database
    }

    /// A table's columns and PostgreSQL's type of each, in order.
    public func columns(_ table: String) async throws -> [(name: String, type: String)] {
        try await database.rows("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = \(table) ORDER BY ordinal_position") {
            let (name, type) = try $0.decode((String, String).self)
            return (name, type)
        }
    }

    /// How many ledgers and merchants the database holds (an empty one holds neither).
    public func networkSize() async throws -> (ledgers: Int64, merchants: Int64) {
        let ledgers = try await database.rows("SELECT COUNT(*) FROM ledger_headers") { try $0.decode(Int64.self) }.first ?? 0
        let merchants = try await database.rows("SELECT COUNT(*) FROM merchant") { try $0.decode(Int64.self) }.first ?? 0
        return (ledgers, merchants)
    }

    /// A column's name and PostgreSQL type, for binding a ``StoreValue`` to it.
    public struct Column: Sendable {
        public let name: String
        public let type: String
        public init(name: String, type: String) {
            self.name = name
            self.type = type
        }
    }

    /// A value too large for its column.
    public struct ValueTooLarge: Error, CustomStringConvertible {
        public let column: String
        public let value: Int64
        public var description: String { "\(column) holds \(value), too large for an integer column" }
    }

    /// Inserts `rows` (cells in `columns`' order) into `table`, in `transaction`.
    public static func insert(_ rows: [[StoreValue]], into table: String, _ columns: [Column], _ transaction: PostgresDatabase.Transaction) async throws {
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

    static func bind(_ value: StoreValue, as column: Column, _ bindings: inout PostgresBindings) throws {
        switch (value, column.type) {
        case (.null, _): bindings.appendNull()
        case (.integer(let number), "boolean"): bindings.append(number != 0)
        case (.integer(let number), "integer"):
            guard let small = Int32(exactly: number) else { throw ValueTooLarge(column: column.name, value: number) }
            bindings.append(small)
        case (.integer(let number), _): bindings.append(number)
        case (.bytes(let bytes), _): bindings.append(ByteBuffer(bytes: bytes))
        case (.text(let text), _): bindings.append(text)
        }
    }

    /// After a copy: the gateway's object sequence goes on after the copied rows.
    public static func continueObjectSequence(_ transaction: PostgresDatabase.Transaction) async throws {
        try await transaction.execute("SELECT setval(pg_get_serial_sequence('object', 'seq'), GREATEST((SELECT MAX(seq) FROM object), 1))")
    }

    /// A table's row count and the digest of its row hashes, the `columns` named.
    public func digest(_ table: String, columns: [String]) async throws -> (rows: Int, digest: [UInt8]) {
        let list = columns.joined(separator: ", ")
        let hashes = try await database.rows(PostgresQuery(unsafeSQL: "SELECT \(list) FROM \(table)")) { row in
            StoreValue.rowHash(try row.map { cell -> StoreValue in
                guard var bytes = cell.bytes else { return .null }
                switch cell.dataType {
                case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
                case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
                case .bytea: return .bytes(bytes.readBytes(length: bytes.readableBytes) ?? [])
                default: return .text(try cell.decode(String.self))
                }
            })
        }
        return (hashes.count, StoreValue.combined(hashes))
    }

    /// Every ledger's sequence and header bytes, in order.
    public func ledgerHeaders() async throws -> [(sequence: Int64, header: [UInt8])] {
        try await database.rows("SELECT sequence, header FROM ledger_headers ORDER BY sequence") { row in
            let (sequence, header) = try row.decode((Int64, ByteBuffer).self)
            return (sequence, Array(buffer: header))
        }
    }
}
