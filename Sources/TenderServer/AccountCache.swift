import Foundation
import Hummingbird
import NIOCore
import LedgerService
import StellarBase
import Store

/// Rendered `GET /accounts/{id}` answers, kept until a committed ledger changes the account.
///
/// An entry remembers the last committed ledger as of just before its read; it stays valid
/// while no later ledger changed the account. The writer reports each commit's changed accounts
/// before readers can see the new ledger number, so a read that raced a commit is never served
/// again after it.
///
/// The answers live in a fixed table of ``capacity`` slots, one per address by its hash: a new
/// answer takes its slot from whatever answer was there. Nothing is ever cleared in bulk: at ten
/// million accounts most reads miss and store, and the table this replaced (a dictionary
/// emptied whenever it reached a hundred thousand answers) stopped both event loops for about
/// 30 ms each time, every two seconds (p99 of `GET /accounts/{id}` 44 ms; issue 30). A slot
/// remembers the last ledger that changed any account falling in it, so an answer read before
/// that ledger is not stored there; a ledger another node committed (any account may have
/// changed) makes every older answer stale at once, without touching the table.
///
/// An answer is kept only for an address that missed once before (a doorkeeper, as TinyLFU's):
/// a bit an address, set by its first miss, lets its second miss store. Over a large network
/// nearly every random read is an address's only one in a long while; storing each of them took
/// fresh memory for an answer no one asked for again (the table's first fill grew the server by
/// 300 MB over a hundred thousand reads at ten million accounts, each page a fault and a heap
/// `mprotect`), and pushed out answers that were asked for. An address asked for twice (a
/// wallet polling its account) is kept from its second read. The bits are cleared each time as
/// many first misses as the table has slots were counted, so "before" means within about that
/// many other first reads.
final class AccountCache: @unchecked Sendable {
    private struct Slot {
        /// The address answered; empty when the slot holds no answer.
        var id = ""
        var readAt: UInt32 = 0
        var base = ""
        var body = ByteBuffer()
        /// The last ledger that changed an account whose address falls in this slot.
        var changedAt: UInt32 = 0
    }

    private let lock = NSLock()
    /// Keyed by the address as written in the request, so a hit needs no StrKey decoding.
    private var slots: [Slot]
    /// The last ledger after which any account may have changed.
    private var everythingChangedAt: UInt32 = 0
    /// The number of slots (a power of two): the most answers kept.
    let capacity: Int
    /// The doorkeeper: one bit an address (by its hash), set by its first miss.
    private var missedBefore: [UInt64]
    /// First misses counted since the bits were last cleared.
    private var firstMisses = 0
    /// An address's hash: its low bits pick the slot, its high half the doorkeeper's bit.
    private let hash: @Sendable (String) -> Int
    /// The route its answers are counted under in the metrics, as the router names it.
    static let route = "/accounts/{account}"

    /// The address in `/accounts/{address}` (nothing after it: no sub-resource, no query), as
    /// the cache is keyed; nil for any other path.
    static func address(inPath path: String) -> String? {
        let prefix = "/accounts/".utf8
        let bytes = path.utf8
        guard bytes.starts(with: prefix) else { return nil }
        let address = bytes.dropFirst(prefix.count)
        guard !address.isEmpty, !address.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) else { return nil }
        return String(Substring(address))
    }

    /// - Parameters:
    ///   - capacity: slots in the table, rounded up to a power of two.
    ///   - hash: an address's hash (the standard library's; tests give one they can predict).
    init(commits: LedgerCommits, capacity: Int = 1 << 17, hash: @escaping @Sendable (String) -> Int = { $0.hashValue }) {
        self.hash = hash
        self.capacity = 1 << (Int.bitWidth - (max(capacity, 2) - 1).leadingZeroBitCount)
        slots = Array(repeating: Slot(), count: self.capacity)
        // Eight bits a slot, so that few first reads share a bit with another address.
        missedBefore = Array(repeating: 0, count: max(self.capacity / 8, 1))
        commits.observe { [weak self] sequence, accounts in self?.invalidate(accounts, at: sequence) }
    }

    private func slot(of id: String) -> Int {
        hash(id) & (capacity - 1)
    }

    /// The doorkeeper's bit for a hash: from its high half, which the slot's index does not use.
    private func doorkeeperBit(of hash: Int) -> (word: Int, mask: UInt64) {
        let bit = Int(truncatingIfNeeded: UInt64(UInt(bitPattern: hash)) >> 32) & (missedBefore.count * 64 - 1)
        return (bit >> 6, 1 << UInt64(bit & 63))
    }

    func body(for id: String, base: String) -> ByteBuffer? {
        body(for: id) { $0 == base }
    }

    /// The cached answer for `id` rendered for `http://authority` (the pipeline's lookup, which
    /// has the `Host` header but no base made from it).
    func body(for id: String, authority: String) -> ByteBuffer? {
        body(for: id) { $0.utf8.starts(with: "http://".utf8) && $0.utf8.dropFirst(7).elementsEqual(authority.utf8) }
    }

    /// The answer for `id` still valid (no later ledger changed the account) whose base `matches`.
    private func body(for id: String, renderedFor matches: (String) -> Bool) -> ByteBuffer? {
        let index = slot(of: id)
        lock.lock()
        defer { lock.unlock() }
        guard slots[index].id == id, slots[index].readAt >= max(slots[index].changedAt, everythingChangedAt), matches(slots[index].base) else { return nil }
        return slots[index].body
    }

    /// Keeps `body`, the answer for `id` read when `readAt` was the last committed ledger,
    /// unless a later ledger may have changed the account since.
    /// An address's first miss (since the doorkeeper last forgot) only sets its bit.
    func store(_ body: ByteBuffer, for id: String, base: String, readAt: UInt32) {
        store(for: id, base: base, readAt: readAt) { body }
    }

    /// ``store(_:for:base:readAt:)`` with the answer made by `body` only when it is kept (a
    /// copy of bytes the caller reuses, say), under the cache's lock.
    func store(for id: String, base: String, readAt: UInt32, body: () -> ByteBuffer) {
        let hash = hash(id)
        let index = hash & (capacity - 1)
        let (word, mask) = doorkeeperBit(of: hash)
        lock.lock()
        defer { lock.unlock() }
        guard missedBefore[word] & mask != 0 else {
            // A first miss after as many as the table has slots starts the bits afresh.
            if firstMisses == capacity {
                for word in missedBefore.indices { missedBefore[word] = 0 }
                firstMisses = 0
            }
            missedBefore[word] |= mask
            firstMisses += 1
            return
        }
        guard readAt >= max(slots[index].changedAt, everythingChangedAt) else { return }
        slots[index].id = id
        slots[index].readAt = readAt
        slots[index].base = base
        slots[index].body = body()
    }

    private func invalidate(_ accounts: Set<AccountID>?, at sequence: UInt32) {
        guard let accounts else {
            // Any account may have changed (a ledger another node committed).
            lock.withLock { everythingChangedAt = sequence }
            return
        }
        let indexes = accounts.map { slot(of: $0.strKey) }
        lock.lock()
        defer { lock.unlock() }
        for index in indexes {
            slots[index].changedAt = sequence
            slots[index].id = ""
            slots[index].body = ByteBuffer()
        }
    }
}

/// Answers `GET /accounts/{id}` from the cache before routing (the API's hottest read skips
/// the route lookup and the middleware); anything else (a miss, a query string, a browser's
/// `Origin`) goes to the router as usual.
struct CachedAccountResponder<Router: HTTPResponder>: HTTPResponder {
    typealias Context = Router.Context
    let router: Router
    let cache: AccountCache
    let metrics: ServerMetrics
    let resources: @Sendable (Request) -> HorizonResources

    func respond(to request: Request, context: Context) async throws -> Response {
        if request.method == .get, request.headers[.origin] == nil, request.uri.query == nil,
           let address = AccountCache.address(inPath: request.uri.path) {
            let started = ContinuousClock.now
            if let body = cache.body(for: address, base: resources(request).base) {
                metrics.accountAnsweredEarly(duration: ContinuousClock.now - started)
                return Response(status: .ok, headers: HorizonRoutes.jsonHeaders, body: ResponseBody(byteBuffer: body))
            }
        }
        return try await router.respond(to: request, context: context)
    }
}
