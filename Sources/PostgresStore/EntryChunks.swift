import NIOCore
import PostgresNIO

/// Reading a whole table of entries as few rows: each row the entries of a run of the table's
/// heap pages, aggregated by PostgreSQL into one `bytea[]`.
///
/// A row a stored entry costs the client more than the entry itself: a `DataRow` message, the
/// connection's state machine, an element of an asynchronous sequence. At ten million accounts
/// that was two thirds of loading the state. A row of a chunk of pages costs the same once for
/// thousands of entries. The chunks are read by TID range scans, each page once, in the
/// table's physical order, like the sequential scan they replace.
enum EntryChunks {
    /// Heap pages a chunk (8 KiB each by default: about 2 MiB of entries a row).
    static let pages = 256

    /// Chunks fetched at a time: what a load holds in flight beside the builder's queue.
    static let chunksAFetch = 4

    /// The statement that answers every entry of `table` (a table with a column `entry`), a
    /// `bytea[]` (or NULL, for pages holding none) a row.
    ///
    /// The table's size in pages is read as the statement runs, after its snapshot was taken:
    /// a page added later holds only rows the snapshot does not see, so every row it sees is in
    /// a chunk. Run it in a REPEATABLE READ transaction to read several tables as of one moment.
    static func select(table: String, pages: Int = EntryChunks.pages) -> String {
        precondition(pages > 0, "a chunk holds a page")
        return """
            SELECT (SELECT array_agg(entry) FROM \(table)
                    WHERE ctid >= format('(%s,0)', chunk)::tid AND ctid < format('(%s,0)', chunk + \(pages))::tid)
            FROM generate_series(0::bigint, pg_relation_size('\(table)'::regclass) / current_setting('block_size')::bigint, \(pages)) AS chunk
            """
    }

    /// Reads every entry of `table` in `transaction` (which must stay open), handing `body` each
    /// chunk's entries laid end to end, the `n`th ending at `ends[n]`. Through a cursor, a few
    /// chunks a fetch: postgres-nio's row buffer grows while its reader keeps up, so a plain
    /// statement's rows of megabytes could pile up in memory once the reader falls behind.
    static func read(
        _ table: String, in transaction: PostgresDatabase.Transaction, pages: Int = EntryChunks.pages,
        _ body: (_ bytes: [UInt8], _ ends: [Int]) async throws -> Void
    ) async throws {
        try await transaction.execute(PostgresQuery(unsafeSQL: "DECLARE tender_entries NO SCROLL CURSOR FOR " + select(table: table, pages: pages)))
        while true {
            var fetched = 0
            try await transaction.forEachRow(PostgresQuery(unsafeSQL: "FETCH \(chunksAFetch) FROM tender_entries")) { row in
                fetched += 1
                guard let chunk = try row.decode(ByteBuffer?.self) else { return }
                var bytes: [UInt8] = []
                var ends: [Int] = []
                try append(chunk, to: &bytes, ends: &ends)
                try await body(bytes, ends)
            }
            if fetched == 0 { break }
        }
        try await transaction.execute("CLOSE tender_entries")
    }

    /// Appends the elements of a one-dimensional `bytea[]` in PostgreSQL's binary form (as
    /// `array_send` writes it) to `bytes`, recording where each ends in `ends`.
    /// - Throws: ``BadStoredValue`` for anything else: more dimensions, an element type other
    ///   than bytea, a NULL element, lengths that run past the buffer or bytes left over.
    static func append(_ array: ByteBuffer, to bytes: inout [UInt8], ends: inout [Int]) throws {
        var array = array
        func integer() throws -> Int32 {
            guard let value = array.readInteger(as: Int32.self) else { throw BadStoredValue(description: "a chunk of entries ends early") }
            return value
        }
        let dimensions = try integer()
        if dimensions == 0 {
            // An empty array: its flags and element type, nothing else.
            _ = try integer(); _ = try integer()
            guard array.readableBytes == 0 else { throw BadStoredValue(description: "an empty chunk of entries has bytes after it") }
            return
        }
        guard dimensions == 1 else { throw BadStoredValue(description: "a chunk of entries has \(dimensions) dimensions") }
        _ = try integer()  // whether it holds NULLs: each element says so itself
        let elementType = try integer()
        guard elementType == Int32(PostgresDataType.bytea.rawValue) else {
            throw BadStoredValue(description: "a chunk of entries holds elements of type \(elementType), not bytea")
        }
        let count = try integer()
        _ = try integer()  // the lower bound
        guard count >= 0 else { throw BadStoredValue(description: "a chunk of entries has \(count) elements") }
        bytes.reserveCapacity(bytes.count + array.readableBytes)
        ends.reserveCapacity(ends.count + Int(count))
        for _ in 0..<count {
            let length = try integer()
            guard length >= 0 else { throw BadStoredValue(description: "a chunk of entries holds a NULL entry") }
            guard let view = array.readSlice(length: Int(length)) else { throw BadStoredValue(description: "an entry runs past its chunk") }
            view.withUnsafeReadableBytes { bytes.append(contentsOf: $0) }
            ends.append(bytes.count)
        }
        guard array.readableBytes == 0 else { throw BadStoredValue(description: "a chunk of entries has bytes after its last") }
    }
}
