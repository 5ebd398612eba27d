import Foundation
import GRDB
import Ledger

/// A store's SQLite file read table by table, as `tender migrate` copies it: read-only, each
/// table's rows in a stable order (its primary key, or its rowid), each cell a ``StoreValue``.
public struct SQLiteTables: Sendable {
    let queue: DatabaseQueue

    /// Opens `path` read-only.
    /// - Throws: when the file cannot be opened.
    public init(readOnly path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        TenderVFS.install()
        queue = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// The names of a table's columns.
    public func columns(_ table: String) async throws -> [String] {
        try await queue.read { db in try db.columns(in: table).map(\.name) }
    }

    /// At most `limit` rows of `table` from `offset`, the `columns` named.
    public func rows(_ table: String, columns: [String], limit: Int, offset: Int) async throws -> [[StoreValue]] {
        try await queue.read { db in
            // A view (the ledger's `accounts` and `account_history` over `account_rows`) has no
            // key of its own: its rows are distinct, so all of its columns order them.
            let key = try db.viewExists(table) ? try db.columns(in: table).map(\.name) : try db.primaryKey(table).columns
            let order = key.isEmpty ? "rowid" : key.map { "\"\($0)\"" }.joined(separator: ", ")
            let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            return try Row.fetchAll(db, sql: "SELECT \(list) FROM \"\(table)\" ORDER BY \(order) LIMIT ? OFFSET ?", arguments: [limit, offset]).map { row in
                (0..<columns.count).map { index in
                    switch (row[index] as DatabaseValue).storage {
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

    /// A table's row count and the digest of its row hashes (``StoreValue/combined(_:)``).
    public func digest(_ table: String, columns: [String]) async throws -> (rows: Int, digest: [UInt8]) {
        var hashes: [[UInt8]] = []
        var offset = 0
        while true {
            let chunk = try await rows(table, columns: columns, limit: 5_000, offset: offset)
            if chunk.isEmpty { break }
            hashes += chunk.map(StoreValue.rowHash)
            offset += chunk.count
        }
        return (hashes.count, StoreValue.combined(hashes))
    }

    /// Every ledger's sequence and header bytes, in order.
    public func ledgerHeaders() async throws -> [(sequence: Int64, header: [UInt8])] {
        try await queue.read { db in
            try Row.fetchAll(db, sql: "SELECT sequence, header FROM ledger_headers ORDER BY sequence").map { (Int64($0[0] as Int64), [UInt8]($0[1] as Data)) }
        }
    }
}
