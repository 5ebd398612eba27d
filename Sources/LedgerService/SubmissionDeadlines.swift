import Synchronization

/// Deadlines of submissions waiting for their ledger, all with one timeout. While any wait, one
/// task ticks and calls those that are due; a submission answered first just drops its
/// deadline. Before it, each submission raced a sleeping task of its own (a timer set and
/// cancelled, and a task made, per request: about 3% of the server's CPU at 5,000 submissions a
/// second).
///
/// One timeout means deadlines fall due in the order they were set, so they wait in a queue.
/// A deadline is called between `timeout` and `timeout + tick` after it was set.
public final class SubmissionDeadlines: Sendable {
    public let timeout: Duration
    public let tick: Duration
    private let clock: any Clock<Duration>
    /// Ticks from a deadline's setting to its call: a deadline set just before a tick must
    /// still wait the whole timeout.
    private let ticksToWait: Int

    public struct Ticket: Sendable, Hashable {
        let id: UInt64
    }

    private struct State {
        /// Ticks counted so far.
        var now = 0
        /// Ticks whose due deadlines have all been called.
        var ticksDone = 0
        /// Deadlines in the order they were set (so in the order they fall due), from `head` on.
        var queue: [(due: Int, id: UInt64)] = []
        var head = 0
        /// What to call for each deadline still waiting.
        var waiting: [UInt64: @Sendable () -> Void] = [:]
        var lastID: UInt64 = 0
        var isTicking = false

        /// Takes what falls due at tick `now`, dropping deadlines removed earlier; stops
        /// ticking when nothing waits.
        mutating func takeDue() -> (due: [@Sendable () -> Void], keepTicking: Bool) {
            var due: [@Sendable () -> Void] = []
            while head < queue.count, queue[head].due <= now {
                if let call = waiting.removeValue(forKey: queue[head].id) { due.append(call) }
                head += 1
            }
            if waiting.isEmpty {
                // What is left in the queue was answered first.
                queue.removeAll(keepingCapacity: true)
                head = 0
                isTicking = false
            } else if head > 4_096, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            return (due, isTicking)
        }
    }

    private let state = Mutex(State())

    /// - Parameters:
    ///   - timeout: how long a submission waits before its deadline is called.
    ///   - tick: how often the task looks for deadlines due (how late one may be called).
    ///   - clock: what the ticks are measured on.
    public init(timeout: Duration, tick: Duration = .milliseconds(10), clock: any Clock<Duration> = ContinuousClock()) {
        precondition(timeout >= .zero && tick >= .nanoseconds(1), "a timeout is not negative and a tick is at least a nanosecond")
        self.timeout = timeout
        self.tick = tick
        self.clock = clock
        // Whole ticks in the timeout, rounded up, and one for the tick already under way.
        let (timeoutNanoseconds, tickNanoseconds) = (Self.nanoseconds(timeout), Self.nanoseconds(tick))
        ticksToWait = Int((timeoutNanoseconds + tickNanoseconds - 1) / tickNanoseconds) + 1
    }

    /// Nanoseconds in a duration of at most 292 years.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        precondition(seconds < Int64.max / 1_000_000_000, "a duration of at most 292 years")
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Calls `onDue` once the timeout has passed, unless ``remove(_:)`` comes first.
    public func add(_ onDue: @escaping @Sendable () -> Void) -> Ticket {
        let (ticket, startTicking) = state.withLock { state in
            state.lastID += 1
            state.waiting[state.lastID] = onDue
            state.queue.append((state.now + ticksToWait, state.lastID))
            defer { state.isTicking = true }
            return (Ticket(id: state.lastID), !state.isTicking)
        }
        if startTicking { Task { await self.ticking() } }
        return ticket
    }

    /// Drops a deadline (its submission was answered); nothing happens if it was already called.
    public func remove(_ ticket: Ticket) {
        _ = state.withLock { $0.waiting.removeValue(forKey: ticket.id) }
    }

    /// Ticks whose due deadlines have all been called (the ticking task's progress, for tests).
    public var ticksDone: Int { state.withLock { $0.ticksDone } }

    /// Deadlines set and not yet called or removed.
    public var waitingCount: Int { state.withLock { $0.waiting.count } }

    private func ticking() async {
        while true {
            // Nothing cancels this task; should the clock's sleep throw, the tick is counted all
            // the same, so deadlines are never lost.
            try? await clock.sleep(for: tick)
            let (due, keepTicking) = state.withLock { state in
                state.now += 1
                return state.takeDue()
            }
            for call in due { call() }
            state.withLock { $0.ticksDone += 1 }
            if !keepTicking { return }
        }
    }
}
