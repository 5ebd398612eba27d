@testable import Ledger
import Testing

/// The pager that reads an account's transactions from its participation rows, without a store:
/// batches as a store would answer them from a list of row ids.
@Suite("An account's transactions from its participation rows")
struct AccountTransactionPagerTests {
    static let t1 = TOID.make(ledger: 2, transactionOrder: 1, operationIndex: 0)
    static let t2 = TOID.make(ledger: 2, transactionOrder: 2, operationIndex: 0)
    static let t3 = TOID.make(ledger: 3, transactionOrder: 1, operationIndex: 0)
    /// Three of t1's operations, t2's own row (the account in none of its operations), two of t3's.
    static let rows = [t1 + 1, t1 + 2, t1 + 3, t2, t3 + 2, t3 + 4095]

    /// What a store answers for a batch: the rows after (or before) its cursor, up to its limit.
    static func batch(_ request: PageRequest) -> [(id: Int64, row: Int64)] {
        let ordered = request.descending ? rows.reversed() : rows
        return ordered.filter { id in request.cursor.map { request.descending ? id < $0 : id > $0 } ?? true }.prefix(request.limit).map { ($0, $0) }
    }

    static func page(_ page: PageRequest) -> (transactions: [Int64], batches: Int) {
        var pager = AccountTransactionPager<Int64>(page)
        var batches = 0
        while let request = pager.next {
            pager.take(batch(request))
            batches += 1
        }
        return (pager.rows.map(TOID.transaction(of:)), batches)
    }

    @Test func eachTransactionOnceInOrderAcrossBatches() {
        let (t1, t2, t3) = (Self.t1, Self.t2, Self.t3)
        #expect(Self.page(PageRequest(limit: 200)).transactions == [t1, t2, t3])
        #expect(Self.page(PageRequest(limit: 200, descending: true)).transactions == [t3, t2, t1])
        // A page of one: t1's three rows come in three batches, the first taken, then the page is whole.
        #expect(Self.page(PageRequest(limit: 1)) == ([t1], 1))
        #expect(Self.page(PageRequest(limit: 2)) == ([t1, t2], 2))
        #expect(Self.page(PageRequest(limit: 2, descending: true)) == ([t3, t2], 2))
        #expect(Self.page(PageRequest(limit: 3)) == ([t1, t2, t3], 2))
        // A short batch ends the rows.
        #expect(Self.page(PageRequest(cursor: t2, limit: 3)) == ([t3], 1))
        #expect(Self.page(PageRequest(cursor: t3, limit: 3)) == ([], 1))
    }

    @Test func aTransactionCursorBoundsItsRows() {
        let (t1, t2, t3) = (Self.t1, Self.t2, Self.t3)
        // After a transaction: none of its rows, whatever its operations' ids.
        #expect(Self.page(PageRequest(cursor: t1, limit: 10)).transactions == [t2, t3])
        #expect(Self.page(PageRequest(cursor: t1 - 1, limit: 10)).transactions == [t1, t2, t3])
        #expect(Self.page(PageRequest(cursor: t1 + 2, limit: 10)).transactions == [t2, t3])
        // Before a transaction: none of its rows; before an operation's id, its transaction too
        // (it is below the cursor) though the account's row for it is above.
        #expect(Self.page(PageRequest(cursor: t3, limit: 10, descending: true)).transactions == [t2, t1])
        #expect(Self.page(PageRequest(cursor: t3 + 1, limit: 10, descending: true)).transactions == [t3, t2, t1])
        #expect(Self.page(PageRequest(cursor: t2 + 1, limit: 10, descending: true)).transactions == [t2, t1])
        #expect(Self.page(PageRequest(cursor: t1 + 1, limit: 10, descending: true)).transactions == [t1])
        #expect(Self.page(PageRequest(cursor: 0, limit: 10, descending: true)).transactions == [])
        // The largest cursor: every transaction descending, none ascending (no overflow).
        #expect(Self.page(PageRequest(cursor: .max, limit: 10, descending: true)).transactions == [t3, t2, t1])
        #expect(Self.page(PageRequest(cursor: .max, limit: 10)).transactions == [])
        #expect(AccountTransactionPager<Int>.rowCursor(.max, descending: true) == .max)
        #expect(AccountTransactionPager<Int>.rowCursor(.max, descending: false) == .max)
        #expect(AccountTransactionPager<Int>.rowCursor(t2, descending: false) == t2 + 4095)
        #expect(AccountTransactionPager<Int>.rowCursor(t2 + 1, descending: true) == t2 + 4096)
    }
}
