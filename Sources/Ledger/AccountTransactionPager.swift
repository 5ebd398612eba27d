/// A page of an account's transactions read from its participation rows
/// (``LedgerHistory/participations``): rows in id order, where one transaction's rows lie
/// together (its TOID, then its operations' TOIDs up to 4,095 above it) and each transaction is
/// taken once. Pure: a store asks for the batch of rows `next` names, hands them to `take`, and
/// repeats until `next` is nil; the rows it was given for the page's transactions are `rows`.
public struct AccountTransactionPager<Row> {
    /// The page of transactions asked for (its cursor a transaction's paging token).
    public let page: PageRequest
    /// The batch of rows to read next, by row id, or nil when the page is whole or the rows ran out.
    public private(set) var next: PageRequest?
    /// A row for each transaction of the page, in the page's order (the first of its rows read).
    public private(set) var rows: [Row] = []
    private var last: Int64?

    public init(_ page: PageRequest) {
        self.page = page
        next = PageRequest(cursor: page.cursor.map { Self.rowCursor($0, descending: page.descending) }, limit: page.limit, descending: page.descending)
    }

    /// The row cursor for a transaction cursor. Ascending, the transactions after `cursor` have
    /// TOIDs from the next multiple of 4,096 on, so their rows are those above that less one.
    /// Descending, the transactions before `cursor` have TOIDs below it, so their rows are those
    /// below the first multiple of 4,096 at or above it (clamped at the top: no TOID reaches it).
    static func rowCursor(_ cursor: Int64, descending: Bool) -> Int64 {
        guard descending else { return TOID.transaction(of: cursor) + 0xFFF }
        let (sum, overflow) = cursor.addingReportingOverflow(0xFFF)
        return overflow ? .max : TOID.transaction(of: sum)
    }

    /// Takes a batch of rows as `next` asked for them, in its order: each row's id and the row.
    /// A row of the transaction taken last (the batch before ended inside it) is passed over.
    public mutating func take(_ batch: [(id: Int64, row: Row)]) {
        guard var request = next else { return }
        for (id, row) in batch where TOID.transaction(of: id) != last {
            last = TOID.transaction(of: id)
            rows.append(row)
            if rows.count == page.limit {
                next = nil
                return
            }
        }
        // A short batch is the end of the rows; a full one may stop inside a transaction.
        guard batch.count == request.limit, let end = batch.last?.id else {
            next = nil
            return
        }
        request.cursor = end
        next = request
    }
}
