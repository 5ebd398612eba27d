import Foundation
import NIOCore
import PostgresNIO
@testable import PostgresStore
import TenderTesting
import Testing

/// Loading the state reads each table as chunks of its heap pages, one `bytea[]` a chunk
/// (issue 30: a row an entry was two thirds of loading ten million accounts). Every entry a
/// plain scan sees comes out once, whatever the chunk size, the holes and moved rows in the
/// table, and the rows other sessions add while the snapshot is read.
@Suite("A table's entries read as chunks of pages")
struct EntryChunksTests {
    /// An array as `array_send` writes it: dimensions, flags, element type, each dimension's
    /// size and lower bound, then each element's length (-1: NULL) and bytes.
    static func binaryArray(_ elements: [[UInt8]?], dimensions: Int32 = 1, elementType: Int32 = 17) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(dimensions)
        buffer.writeInteger(Int32(elements.contains(where: { $0 == nil }) ? 1 : 0))
        buffer.writeInteger(elementType)
        for _ in 0..<dimensions {
            buffer.writeInteger(Int32(elements.count))
            buffer.writeInteger(Int32(1))
        }
        for element in elements {
            if let element {
                buffer.writeInteger(Int32(element.count))
                buffer.writeBytes(element)
            } else {
                buffer.writeInteger(Int32(-1))
            }
        }
        return buffer
    }

    @Test func elementsAreLaidEndToEndAfterWhatWasThere() throws {
        var bytes: [UInt8] = [9, 9]
        var ends = [2]
        try EntryChunks.append(Self.binaryArray([[1, 2, 3], [], [4]]), to: &bytes, ends: &ends)
        #expect(bytes == [9, 9, 1, 2, 3, 4])
        #expect(ends == [2, 5, 5, 6])
        // An empty array: dimensions 0, then its flags and element type only.
        var empty = ByteBuffer()
        empty.writeInteger(Int32(0)); empty.writeInteger(Int32(0)); empty.writeInteger(Int32(17))
        try EntryChunks.append(empty, to: &bytes, ends: &ends)
        #expect(bytes.count == 6 && ends == [2, 5, 5, 6])
    }

    @Test func anythingButAListOfEntriesIsRefused() throws {
        let twoDimensions = Self.binaryArray([[1], [2]], dimensions: 2)
        let integers = Self.binaryArray([[0, 0, 0, 1]], elementType: 23)
        let withNull = Self.binaryArray([[1], nil])
        var cut = Self.binaryArray([[1, 2, 3]])
        cut.moveWriterIndex(to: cut.writerIndex - 1)
        var headerCut = Self.binaryArray([[1]])
        headerCut.moveWriterIndex(to: 10)
        var trailing = Self.binaryArray([[1]])
        trailing.writeInteger(UInt8(0))
        var negativeCount = ByteBuffer()
        for value: Int32 in [1, 0, 17, -1, 1] { negativeCount.writeInteger(value) }
        for buffer in [twoDimensions, integers, withNull, cut, headerCut, trailing, negativeCount] {
            var bytes: [UInt8] = []
            var ends: [Int] = []
            #expect(throws: BadStoredValue.self) { try EntryChunks.append(buffer, to: &bytes, ends: &ends) }
        }
    }

    /// Every entry the chunks answer, in a transaction of one snapshot.
    static func chunked(_ transaction: PostgresStore.PostgresDatabase.Transaction, pages: Int) async throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        try await EntryChunks.read("chunked", in: transaction, pages: pages) { bytes, ends in
            var start = 0
            for end in ends {
                entries.append(Array(bytes[start..<end]))
                start = end
            }
        }
        return entries
    }

    static func sorted(_ entries: [[UInt8]]) -> [[UInt8]] { entries.sorted { $0.lexicographicallyPrecedes($1) } }

    @Test func chunksAnswerWhatAScanDoesAndNoMore() async throws {
        let server = try await TemporaryPostgres.start()
        do {
            let database = try PostgresStore.PostgresDatabase(url: server.url)
            defer { database.shutdown() }
            // 3,000 entries of 0 to 300 bytes (pages of about 50), then holes: every third
            // deleted, every fifth rewritten longer (its new version on another page), and
            // the last pages' rows gone.
            try await database.execute("CREATE TABLE chunked (id INTEGER PRIMARY KEY, entry BYTEA NOT NULL)")
            try await database.execute("""
                INSERT INTO chunked SELECT n, substring(decode(repeat(md5(n::text), 20), 'hex') FROM 1 FOR n % 301) FROM generate_series(1, 3000) n
                """)
            try await database.execute("DELETE FROM chunked WHERE id % 3 = 0 OR id > 2900")
            try await database.execute("UPDATE chunked SET entry = entry || '\\x0102'::bytea WHERE id % 5 = 0")
            let scanned = try await database.rows("SELECT entry FROM chunked") { Array(buffer: try $0.decode(ByteBuffer.self)) }
            #expect(scanned.count == 1_934 && scanned.contains([]))
            for pages in [1, 3, 7, 256] {
                let entries = try await database.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { try await Self.chunked($0, pages: pages) }
                let same = Self.sorted(entries) == Self.sorted(scanned)
                #expect(same, "chunks of \(pages) pages: \(entries.count) entries of \(scanned.count)")
            }

            // Rows another session adds and moves after the snapshot was taken (the table grows
            // past the pages it had) are not read, and the rows the snapshot sees all are.
            let entries = try await database.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { transaction in
                _ = try await transaction.rows("SELECT 1") { _ in 1 }
                try await database.execute("""
                    INSERT INTO chunked SELECT n, decode(repeat(md5(n::text), 4), 'hex') FROM generate_series(10001, 14000) n
                    """)
                try await database.execute("UPDATE chunked SET entry = '\\xff'::bytea WHERE id % 7 = 0 AND id < 3000")
                return try await Self.chunked(transaction, pages: 2)
            }
            let same = Self.sorted(entries) == Self.sorted(scanned)
            #expect(same, "\(entries.count) entries of \(scanned.count)")
            #expect(try await database.rows("SELECT count(*) FROM chunked") { try $0.decode(Int64.self) } == [5_934])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
