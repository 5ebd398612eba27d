import Ledger
@testable import LedgerService
import NIOCore
import StellarBase
import Testing
@testable import TenderServer

/// The rendered answers of `GET /accounts/{id}`: valid until a ledger changes the account, a
/// read that raced a commit never kept, and a fixed table that never empties in bulk (issue 30).
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

    @Test func anAnswerIsKeptUntilALedgerChangesItsAccount() throws {
        let cache = AccountCache(commits: commits)
        let (alice, bob) = (try account(1), try account(2))
        let body = ByteBuffer(string: "alice")
        cache.store(body, for: alice.strKey, base: "http://h", readAt: commits.latest)
        cache.store(ByteBuffer(string: "bob"), for: bob.strKey, base: "http://h", readAt: commits.latest)
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
    }

    /// A read that began before a ledger changed the account, stored after that ledger's
    /// report, is refused; one that began after it is kept.
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
        for id in ids { cache.store(ByteBuffer(string: id), for: id, base: "http://h", readAt: readAt) }
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
            cache.store(ByteBuffer(string: id), for: id, base: "http://h", readAt: commits.latest)
            #expect(cache.body(for: id, base: "http://h") == ByteBuffer(string: id))
        }
        let kept = ids.filter { cache.body(for: $0, base: "http://h") != nil }
        #expect(kept.count <= 64 && kept.count >= 32, "\(kept.count)")
        #expect(kept.contains(ids.last!))
        for id in kept { #expect(cache.body(for: id, base: "http://h") == ByteBuffer(string: id)) }
    }
}
