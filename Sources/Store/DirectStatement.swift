import GRDB
import GRDBSQLite
import StellarBase

/// One of the writer's cached statements, bound and stepped through SQLite's C API a row at a
/// time: the values go straight from the ledger's own types into SQLite (a key's 32 bytes from
/// its words on the stack, an entry's XDR from its array), where GRDB's `execute(arguments:)`
/// first builds an array of `DatabaseValue`s a row, copies every key and entry into a `Data`,
/// and records the statement's region for database observation, which the ledger's database
/// does not use. Nothing else may run the statement while rows are being bound.
///
/// Bind every parameter, in order, then ``run()``; a row with a parameter left unbound, or one
/// too many, is a programmer error and stops the process rather than writing the last row's
/// value again.
struct DirectStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    private let parameters: Int32
    private var bound: Int32 = 0
    /// The first bind that failed (SQLite's code), reported by ``run()``.
    private var failure: Int32 = SQLITE_OK

    /// SQLite's `SQLITE_TRANSIENT`: it copies the bytes before the bind returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ db: Database, sql: String) throws {
        let statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
        parameters = sqlite3_bind_parameter_count(handle)
    }

    private mutating func next(_ bind: (OpaquePointer, Int32) -> Int32) {
        // GRDB leaves a statement it stepped at its end, where binding is a misuse: each row
        // starts from a reset statement, whoever ran it last.
        if bound == 0 { sqlite3_reset(handle) }
        bound += 1
        precondition(bound <= parameters, "one value too many for a statement of \(parameters) parameters")
        let code = bind(handle, bound)
        if code != SQLITE_OK, failure == SQLITE_OK { failure = code }
    }

    mutating func integer(_ value: Int64) { next { sqlite3_bind_int64($0, $1, value) } }
    mutating func integer(_ value: Int) { integer(Int64(value)) }
    mutating func integer(_ value: Int32) { integer(Int64(value)) }
    mutating func integer(_ value: UInt32) { integer(Int64(value)) }
    /// 1 or 0, as GRDB stores a `Bool`.
    mutating func integer(_ value: Bool) { integer(Int64(value ? 1 : 0)) }
    mutating func integer(_ value: Int64?) {
        if let value { integer(value) } else { null() }
    }

    mutating func null() { next { sqlite3_bind_null($0, $1) } }

    /// A blob of `bytes` (an empty array is an empty blob, never NULL).
    mutating func blob(_ bytes: [UInt8]) {
        next { handle, index in
            bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, !raw.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
                return sqlite3_bind_blob(handle, index, base, Int32(raw.count), Self.transient)
            }
        }
    }

    /// The 32 bytes of a key or hash, as ``Bytes32/bytes`` gives them.
    mutating func blob(_ key: Bytes32) {
        var words = (key.w0.bigEndian, key.w1.bigEndian, key.w2.bigEndian, key.w3.bigEndian)
        next { handle, index in
            withUnsafeBytes(of: &words) { sqlite3_bind_blob(handle, index, $0.baseAddress, 32, Self.transient) }
        }
    }

    mutating func blob(_ account: AccountID) { blob(account.publicKey) }

    /// Text from its UTF-8 bytes (which must be valid UTF-8).
    mutating func text(utf8 bytes: [UInt8]) {
        next { handle, index in
            bytes.withUnsafeBytes { raw in
                // An empty text is "", not NULL: SQLite needs a pointer for that.
                guard let base = raw.baseAddress, !raw.isEmpty else { return sqlite3_bind_text(handle, index, "", 0, Self.transient) }
                return sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(raw.count), Self.transient)
            }
        }
    }

    mutating func text(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            next { handle, index in
                guard let base = UnsafeRawPointer(utf8.baseAddress), !utf8.isEmpty else { return sqlite3_bind_text(handle, index, "", 0, Self.transient) }
                return sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(utf8.count), Self.transient)
            }
        }
    }

    /// Steps the bound row to its end and readies the statement for the next one; answers the
    /// rows it inserted, updated or deleted (SQLite's `changes()`).
    /// - Throws: a `DatabaseError` with SQLite's code and message when a bind or the step failed.
    @discardableResult
    mutating func run() throws -> Int {
        precondition(bound == parameters, "\(bound) values bound for a statement of \(parameters) parameters")
        bound = 0
        defer {
            sqlite3_reset(handle)
            failure = SQLITE_OK
        }
        var code = failure
        if code == SQLITE_OK {
            code = sqlite3_step(handle)
            while code == SQLITE_ROW { code = sqlite3_step(handle) }
            if code == SQLITE_DONE { return Int(sqlite3_changes(connection)) }
        }
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: String(cString: sqlite3_sql(handle)))
    }
}
