import Ledger
@testable import LedgerService
import NIOCore
import StellarBase
import Testing
@testable import TenderServer

/// The rendered answers of `GET /accounts/{id}`: valid until a ledger changes the account, a
/// read that raced a commit never kept, a fixed table that never empties in bulk, and an answer
/// kept from an address's second miss, not its first (issue 30).
@Suite("The account answer cache")
struct AccountCacheTests {
    let state = LedgerState.genesis(network: .standalone, closeTime: 1)
    let commits: LedgerCommits

    init() {
        commits = LedgerCommits(header: state.header, orderBook: OrderBookSnapshot(state))
    }

    func account(_ seed: UInt8) throws -> AccountID {
        try KeyPair(seed: Array(repeating: seed, count: 32)).accountID
    }

    /// An address read twice, `body` the answer of each read: the doorkeeper lets the second
    /// one store.
    func readTwice(_ cache: AccountCache, _ body: ByteBuffer, for id: String, base: String = "http://h", readAt: UInt32) {
        cache.store(body, for: id, base: base, readAt: readAt)
        cache.store(body, for: id, base: base, readAt: readAt)
    }

    /// The next ledger committed, touching `accounts` (nil: committed by another node).
    func commit(_ accounts: Set<AccountID>?) {
        var header = commits.header
        header.sequence += 1
        if let accounts {
            commits.publish(header, touched: accounts, orderBook: nil)
        } else {
            commits.follow(header, orderBook: commits.orderBook)
        }
    }

    /// An answer offered with a maker is made only when it is kept: not on an address's first
    /// miss, not for a read older than the account's last change.
    @Test func anAnswerIsMadeOnlyWhenItIsKept() throws {
        let cache = AccountCache(commits: commits)
        let alice = try account(1).strKey
        var made = 0
        func offer(_ text: String, readAt: UInt32) {
            cache.store(for: alice, base: "http://h", readAt: readAt) { made += 1; return ByteBuffer(string: text) }
        }
        let readAt = commits.latest
        offer("first", readAt: readAt)
        #expect(made == 0 && cache.body(for: alice, base: "http://h") == nil)
        commit([try account(1)])
        offer("stale", readAt: readAt)
        #expect(made == 0 && cache.body(for: alice, base: "http://h") == nil)
        offer("now", readAt: commits.latest)
        #expect(made == 1 && cache.body(for: alice, base: "http://h") == ByteBuffer(string: "now"))
    }

    @Test func anAnswerIsKeptUntilALedgerChangesItsAccount() throws {
        let cache = AccountCache(commits: commits)
        let (alice, bob) = (try account(1), try account(2))
        let body = ByteBuffer(string: "alice")
        readTwice(cache, body, for: alice.strKey, readAt: commits.latest)
        readTwice(cache, ByteBuffer(string: "bob"), for: bob.strKey, readAt: commits.latest)
        #expect(cache.body(for: alice.strKey, base: "http://h") == body)
        #expect(cache.body(for: alice.strKey, authority: "h") == body)
        // Rendered for another host, it is not that host's answer.
        #expect(cache.body(for: alice.strKey, base: "http://other") == nil)
        #expect(cache.body(for: alice.strKey, authority: "other") == nil)
        // A ledger that changed bob leaves alice's answer.
        commit([bob])
        #expect(cache.body(for: alice.strKey, base: "http://h") == body)
        #expect(cache.body(for: bob.strKey, base: "http://h") == nil)
        commit([alice])
        #expect(cache.body(for: alice.strKey, base: "http://h") == nil)
        // Alice's address missed before: her answer after the change is kept at once.
        cache.store(ByteBuffer(string: "alice 2"), for: alice.strKey, base: "http://h", readAt: commits.latest)
        #expect(cache.body(for: alice.strKey, base: "http://h") == ByteBuffer(string: "alice 2"))
    }

    /// A read that began before a ledger changed the account, stored after that ledger's
    /// report, is refused (it still counts as the address's first miss); one that began after
    /// it is kept.
    @Test func aReadThatRacedACommitIsNotKept() throws {
        let cache = AccountCache(commits: commits)
        let alice = try account(1)
        let readAt = commits.latest
        commit([alice])
        cache.store(ByteBuffer(string: "old"), for: alice.strKey, base: "http://h", readAt: readAt)
        #expect(cache.body(for: alice.strKey, base: "http://h") == nil)
        cache.store(ByteBuffer(string: "new"), for: alice.strKey, base: "http://h", readAt: commits.latest)
        #expect(cache.body(for: alice.strKey, base: "http://h") == ByteBuffer(string: "new"))
    }

    /// A ledger another node committed may have changed any account: every answer before it is
    /// stale, and reads from before it are refused.
    @Test func aLedgerAnotherNodeCommittedMakesEveryAnswerStale() throws {
        let cache = AccountCache(commits: commits)
        let ids = try (1...5).map { try account($0).strKey }
        let readAt = commits.latest
        for id in ids { readTwice(cache, ByteBuffer(string: id), for: id, readAt: readAt) }
        for id in ids { #expect(cache.body(for: id, base: "http://h") == ByteBuffer(string: id)) }
        commit(nil)
        for id in ids { #expect(cache.body(for: id, base: "http://h") == nil) }
        cache.store(ByteBuffer(string: "late"), for: ids[0], base: "http://h", readAt: readAt)
        #expect(cache.body(for: ids[0], base: "http://h") == nil)
        cache.store(ByteBuffer(string: "now"), for: ids[0], base: "http://h", readAt: commits.latest)
        #expect(cache.body(for: ids[0], base: "http://h") == ByteBuffer(string: "now"))
    }

    /// However many accounts are read, the table keeps at most its capacity; the last answer
    /// stored is always there, and answers in slots no later one took stay.
    @Test func theTableKeepsAtMostItsCapacity() throws {
        let cache = AccountCache(commits: commits, capacity: 50)
        #expect(cache.capacity == 64)
        #expect(AccountCache(commits: commits, capacity: 64).capacity == 64)
        #expect(AccountCache(commits: commits, capacity: 0).capacity == 2)
        let ids = try (1...200).map { try account(UInt8($0)).strKey }
        for id in ids {
            readTwice(cache, ByteBuffer(string: id), for: id, readAt: commits.latest)
            #expect(cache.body(for: id, base: "http://h") == ByteBuffer(string: id))
        }
        let kept = ids.filter { cache.body(for: $0, base: "http://h") != nil }
        #expect(kept.count <= 64 && kept.count >= 32, "\(kept.count)")
        #expect(kept.contains(ids.last!))
        for id in kept { #expect(cache.body(for: id, base: "http://h") == ByteBuffer(string: id)) }
    }

    /// A hash the test can predict for addresses "A0", "A1", ...: the number in both halves, so
    /// it is both the slot (below the capacity) and the doorkeeper's bit.
    static func predictable(_ id: String) -> Int {
        let number = Int(id.dropFirst())!
        return number << 32 | number
    }

    /// An address's first miss stores nothing and its second does; a stream of addresses read
    /// once each takes no slot, so it pushes out no answer asked for twice; after as many first
    /// misses as slots the doorkeeper forgets them.
    @Test func anAnswerIsKeptFromItsAddresssSecondMiss() throws {
        let cache = AccountCache(commits: commits, capacity: 64, hash: Self.predictable)
        cache.store(ByteBuffer(string: "one"), for: "A1", base: "http://h", readAt: commits.latest)
        #expect(cache.body(for: "A1", base: "http://h") == nil)
        cache.store(ByteBuffer(string: "two"), for: "A1", base: "http://h", readAt: commits.latest)
        #expect(cache.body(for: "A1", base: "http://h") == ByteBuffer(string: "two"))
        // "A65" falls in A1's slot (65 & 63 == 1) with a bit of its own: its one read leaves
        // A1's answer where it is; 61 more addresses read once each store nothing either.
        cache.store(ByteBuffer(string: "once"), for: "A65", base: "http://h", readAt: commits.latest)
        for number in 2...62 { cache.store(ByteBuffer(string: "once"), for: "A\(number)", base: "http://h", readAt: commits.latest) }
        #expect(cache.body(for: "A1", base: "http://h") == ByteBuffer(string: "two"))
        #expect((2...62).allSatisfy { cache.body(for: "A\($0)", base: "http://h") == nil } && cache.body(for: "A65", base: "http://h") == nil)
        // 63 first misses so far (A1, A65, A2-A62), A63 the 64th, and A2's second read stores;
        // the next first miss, A64's, clears the bits before it sets its own.
        cache.store(ByteBuffer(string: "once"), for: "A63", base: "http://h", readAt: commits.latest)
        cache.store(ByteBuffer(string: "A2"), for: "A2", base: "http://h", readAt: commits.latest)
        #expect(cache.body(for: "A2", base: "http://h") == ByteBuffer(string: "A2"))
        cache.store(ByteBuffer(string: "64"), for: "A64", base: "http://h", readAt: commits.latest)
        cache.store(ByteBuffer(string: "64"), for: "A64", base: "http://h", readAt: commits.latest)
        #expect(cache.body(for: "A64", base: "http://h") == ByteBuffer(string: "64"))
        // A3, read once before the clearing, is a first miss again; its second read stores.
        cache.store(ByteBuffer(string: "A3"), for: "A3", base: "http://h", readAt: commits.latest)
        #expect(cache.body(for: "A3", base: "http://h") == nil)
        cache.store(ByteBuffer(string: "A3"), for: "A3", base: "http://h", readAt: commits.latest)
        #expect(cache.body(for: "A3", base: "http://h") == ByteBuffer(string: "A3"))
        // Answers stored before the clearing stay (nothing is cleared in bulk).
        #expect(cache.body(for: "A1", base: "http://h") == ByteBuffer(string: "two") && cache.body(for: "A2", base: "http://h") == ByteBuffer(string: "A2"))
        // Before the clearing, A65's second read would have taken A1's slot.
        cache.store(ByteBuffer(string: "65"), for: "A65", base: "http://h", readAt: commits.latest)
        #expect(cache.body(for: "A1", base: "http://h") == ByteBuffer(string: "two"))
    }
}
