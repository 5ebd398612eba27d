import Foundation
import Ledger
import StellarBase

/// The commit broadcast: the last committed ledger (its header and the snapshot of its order
/// books), and a way to wait for the next one.
///
/// Waiters are woken by a commit, by the writer's heartbeat (every ``heartbeatInterval``, one
/// timer for all of them, so a quiet stream can send keep-alives and notice a shutdown), by the
/// writer stopping, or by their own task's cancellation. No waiter has a timer of its own.
public final class LedgerCommits: @unchecked Sendable {
    /// How often waiters wake while no ledger commits.
    public static let heartbeatInterval: Duration = .seconds(1)

    private let lock = NSLock()
    private var latestHeader: LedgerHeader
    private var latestOrderBook: OrderBookSnapshot
    private var waiters: [Int: CheckedContinuation<UInt32, Never>] = [:]
    private var nextWaiter = 0
    private var closed = false
    private var running = false
    private var listeners: [@Sendable (UInt32, Set<AccountID>?) -> Void] = []

    public init(header: LedgerHeader, orderBook: OrderBookSnapshot) {
        latestHeader = header
        latestOrderBook = orderBook
    }

    /// The last committed ledger.
    public var latest: UInt32 {
        lock.withLock { latestHeader.sequence }
    }

    /// The header of the last committed ledger.
    public var header: LedgerHeader {
        lock.withLock { latestHeader }
    }

    /// The offers of every market as of the last committed ledger: order books and path
    /// searches read this, never the writer's state.
    public var orderBook: OrderBookSnapshot {
        lock.withLock { latestOrderBook }
    }

    /// Whether the writer's loop is running: started and not stopped (a health probe's answer).
    public var isWriterRunning: Bool {
        lock.withLock { running && !closed }
    }

    /// The writer's loop has started.
    func writerStarted() {
        lock.withLock { running = true }
    }

    /// A follower node has started reading ledgers from the shared database (its health probe
    /// then answers as a writer's would).
    public func followingStarted() {
        lock.withLock { running = true }
    }

    /// Whether the writer has stopped: no more ledgers will come.
    public var isClosed: Bool {
        lock.withLock { closed }
    }

    /// Calls `listener` with every committed ledger's sequence and the accounts whose entry,
    /// trustlines or data it changed (nil: any account may have changed, for a ledger another
    /// node committed), before ``latest`` moves to that ledger.
    public func observe(_ listener: @escaping @Sendable (UInt32, Set<AccountID>?) -> Void) {
        lock.withLock { listeners.append(listener) }
    }

    /// Ends every wait; called when the writer stops.
    public func close() {
        let ready = lock.withLock {
            closed = true
            running = false
            defer { waiters = [:] }
            return waiters
        }
        let latest = self.latest
        for waiter in ready.values { waiter.resume(returning: latest) }
    }

    /// Wakes every waiter without a new ledger (the writer's heartbeat, or a follower's).
    public func heartbeat() {
        let (ready, latest) = lock.withLock {
            defer { waiters = [:] }
            return (waiters, latestHeader.sequence)
        }
        for waiter in ready.values { waiter.resume(returning: latest) }
    }

    /// Publishes a committed ledger: `touched` is its changes' ``LedgerChanges/touchedAccounts``.
    func publish(_ header: LedgerHeader, touched: Set<AccountID>, orderBook: OrderBookSnapshot?) {
        let listeners = lock.withLock { self.listeners }
        for listener in listeners { listener(header.sequence, touched) }
        let ready = lock.withLock {
            latestHeader = header
            if let orderBook { latestOrderBook = orderBook }
            defer { waiters = [:] }
            return waiters
        }
        for waiter in ready.values { waiter.resume(returning: header.sequence) }
    }

    /// A ledger another node committed, as a follower read it from the shared database: its
    /// header and the order books as of it. Listeners hear that any account may have changed.
    /// A header not after the latest is ignored, so ``latest`` never goes back.
    public func follow(_ header: LedgerHeader, orderBook: OrderBookSnapshot) {
        guard header.sequence > latest else { return }
        let listeners = lock.withLock { self.listeners }
        for listener in listeners { listener(header.sequence, nil) }
        let ready = lock.withLock {
            guard header.sequence > latestHeader.sequence else { return [Int: CheckedContinuation<UInt32, Never>]() }
            latestHeader = header
            latestOrderBook = orderBook
            defer { waiters = [:] }
            return waiters
        }
        for waiter in ready.values { waiter.resume(returning: header.sequence) }
    }

    /// Waits until a ledger after `sequence` commits, the next heartbeat, the writer stops, or
    /// the calling task is cancelled; returns the latest committed sequence in every case.
    public func wait(after sequence: UInt32) async -> UInt32 {
        let id = lock.withLock {
            defer { nextWaiter += 1 }
            return nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let answerNow: UInt32? = lock.withLock {
                    if latestHeader.sequence > sequence || closed || Task.isCancelled { return latestHeader.sequence }
                    waiters[id] = continuation
                    return nil
                }
                if let answerNow { continuation.resume(returning: answerNow) }
            }
        } onCancel: {
            let (waiter, latest) = lock.withLock { (waiters.removeValue(forKey: id), latestHeader.sequence) }
            waiter?.resume(returning: latest)
        }
    }
}
