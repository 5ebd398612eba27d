import Foundation
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
    /// The most answers kept; past it the cache starts over.
    let capacity: Int

    init(commits: LedgerCommits, capacity: Int = 100_000) {
        self.capacity = capacity
        commits.observe { [weak self] sequence, accounts in self?.invalidate(accounts, at: sequence) }
    }

    func body(for id: String, base: String) -> ByteBuffer? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[id], entry.base == base, entry.readAt >= changedAt[id, default: 0] else { return nil }
        return entry.body
    }

    func store(_ body: ByteBuffer, for id: String, base: String, readAt: UInt32) {
        lock.lock()
        defer { lock.unlock() }
        guard readAt >= changedAt[id, default: 0] else { return }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[id] = Entry(readAt: readAt, base: base, body: body)
    }

    private func invalidate(_ accounts: Set<AccountID>, at sequence: UInt32) {
        let addresses = accounts.map(\.strKey)
        lock.lock()
        defer { lock.unlock() }
        if changedAt.count + accounts.count > capacity * 2 {
            // Forgetting when accounts changed is safe only with nothing cached.
            changedAt.removeAll(keepingCapacity: true)
            entries.removeAll(keepingCapacity: true)
        }
        for address in addresses {
            changedAt[address] = sequence
            entries[address] = nil
        }
    }
}
