import NIOCore
import PostgresNIO

/// Where PostgreSQL keeps a row of a table: its `ctid`, the page and the item on it, sent and
/// taken as a `tid` in binary (four bytes of page, two of item). A row's place holds while the
/// row is neither updated nor moved by a rewrite of its table (`VACUUM FULL`, `CLUSTER`), so
/// Tender keeps it only as a hint, read together with the row's key and checked against it
/// (`PostgresLedgerStore`'s history rows and the transactions they name).
struct RowPlace: PostgresNonThrowingEncodable, PostgresDecodable, Hashable, Sendable {
    let page: UInt32
    let item: UInt16

    init(page: UInt32, item: UInt16) {
        self.page = page
        self.item = item
    }

    static var psqlType: PostgresDataType { .tid }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(page)
        byteBuffer.writeInteger(item)
    }

    init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat, context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        guard type == .tid, format == .binary else { throw PostgresDecodingError.Code.typeMismatch }
        guard buffer.readableBytes == 6, let page = buffer.readInteger(as: UInt32.self), let item = buffer.readInteger(as: UInt16.self) else {
            throw PostgresDecodingError.Code.failure
        }
        self.init(page: page, item: item)
    }
}
