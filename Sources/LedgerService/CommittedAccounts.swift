import Ledger
import StellarBase
import Synchronization

/// The writer's ledger state, readable by other threads between the writer's changes: the
/// accounts `GET /accounts/{id}` answers are read here on the connection's own thread, without
/// a hop into the writer's actor and back.
///
/// The writer holds the lock while it applies a ledger (and while it marks the accounts that
/// ledger touched as not yet committed, in the same hold), and for a moment when the commit is
/// done. A reader never waits for it: ``accountIfAvailable(_:)`` answers nil while the writer
/// holds the lock, and the caller asks the writer instead, which answers between its changes.
public final class CommittedAccounts: Sendable {
    struct Held {
        var state: LedgerState
        /// The accounts the ledger being committed touched (``LedgerChanges/touchedAccounts``):
        /// memory is ahead of the disk for them.
        var uncommitted: Set<AccountID> = []

        /// An account as the last committed ledger left it, from memory when memory holds that:
        /// always, except for the accounts of a ledger applied but still being committed.
        func account(_ id: AccountID) -> CommittedAccount {
            guard uncommitted.isEmpty || !uncommitted.contains(id) else { return .unknown }
            if let record = state.accountRecord(id) { return .record(record) }
            return state.account(id) == nil ? .missing : .unknown
        }
    }

    private let held: Mutex<Held>

    init(_ state: LedgerState) {
        held = Mutex(Held(state: state))
    }

    /// `id` as the last committed ledger left it, or nil when the writer is changing the state
    /// at this moment (never waits).
    public func accountIfAvailable(_ id: AccountID) -> CommittedAccount? {
        held.withLockIfAvailable { $0.account(id) }
    }

    /// The writer's access: reads and changes under the lock. The writer is the only caller
    /// that may wait for it; its holds are its own work between awaits.
    func withHeld<Result: Sendable>(_ body: (inout Held) throws -> Result) rethrows -> Result {
        try held.withLock { try body(&$0) }
    }
}
