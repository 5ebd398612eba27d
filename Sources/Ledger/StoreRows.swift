import Crypto

/// A cell of a store's table as both stores (SQLite and PostgreSQL) can give it, for copying a
/// network from one into the other and proving the copy: a row's canonical bytes hash the same
/// whichever store it was read from.
public enum StoreValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case bytes([UInt8])
    case text(String)

    /// Appends the value's canonical bytes: a tag, then the integer big-endian, or the length
    /// and the bytes.
    public func append(to bytes: inout [UInt8]) {
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

    /// A row's SHA-256 over its cells' canonical bytes.
    public static func rowHash(_ row: [StoreValue]) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in row { value.append(to: &bytes) }
        return Array(SHA256.hash(data: bytes))
    }

    /// One digest of a table's row hashes, in any order they were read.
    public static func combined(_ hashes: [[UInt8]]) -> [UInt8] {
        var hasher = SHA256()
        for hash in hashes.sorted(by: { $0.lexicographicallyPrecedes($1) }) { hasher.update(data: hash) }
        return Array(hasher.finalize())
    }
}

/// The tables of the two stores, the same in both: what a migration copies and compares.
public enum StoreTables {
    public static let ledger = [
        "ledger_headers", "accounts", "trust_lines", "offers", "account_data", "transactions", "transaction_hashes", "operations", "account_history",
        "asset_stats", "account_signers", "effects", "trades",
        "claimable_balances", "claimable_balance_claimants", "claimable_balance_operations", "transaction_memos", "payment_assets",
        "account_sponsors", "liquidity_pools", "pool_share_lines", "liquidity_pool_operations", "pool_amounts",
    ]
    public static let gateway = ["merchant", "object", "idempotency", "delivery"]
}
