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
final class AccountCache: @unchecked Sendable {
    private struct Entry {
        var readAt: UInt32
        var base: String
        var body: ByteBuffer
    }

    private let lock = NSLock()
    /// Keyed by the address as written in the request, so a hit needs no StrKey decoding.
    private var entries: [String: Entry] = [:]
    private var changedAt: [String: UInt32] = [:]
    /// The last ledger after which any account may have changed (the table above forgotten).
    private var everythingChangedAt: UInt32 = 0
    /// The most answers kept; past it the cache starts over.
    let capacity: Int
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

    init(commits: LedgerCommits, capacity: Int = 100_000) {
        self.capacity = capacity
        commits.observe { [weak self] sequence, accounts in self?.invalidate(accounts, at: sequence) }
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
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[id], entry.readAt >= max(changedAt[id, default: 0], everythingChangedAt), matches(entry.base) else { return nil }
        return entry.body
    }

    func store(_ body: ByteBuffer, for id: String, base: String, readAt: UInt32) {
        lock.lock()
        defer { lock.unlock() }
        guard readAt >= max(changedAt[id, default: 0], everythingChangedAt) else { return }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[id] = Entry(readAt: readAt, base: base, body: body)
    }

    private func invalidate(_ accounts: Set<AccountID>?, at sequence: UInt32) {
        guard let accounts else {
            // Any account may have changed (a ledger another node committed): forget them all.
            lock.withLock {
                changedAt.removeAll(keepingCapacity: true)
                entries.removeAll(keepingCapacity: true)
                everythingChangedAt = sequence
            }
            return
        }
        let addresses = accounts.map(\.strKey)
        lock.lock()
        defer { lock.unlock() }
        if changedAt.count + accounts.count > capacity * 2 {
            // Forgetting when accounts changed is safe only with nothing cached.
            changedAt.removeAll(keepingCapacity: true)
            entries.removeAll(keepingCapacity: true)
            everythingChangedAt = sequence
        }
        for address in addresses {
            changedAt[address] = sequence
            entries[address] = nil
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
                metrics.cachedAccountAnswered(duration: ContinuousClock.now - started)
                return Response(status: .ok, headers: HorizonRoutes.jsonHeaders, body: ResponseBody(byteBuffer: body))
            }
        }
        return try await router.respond(to: request, context: context)
    }
}
