import Foundation

/// A clock that moves only when a test moves it: sleepers wake when ``advance(by:)`` passes
/// their deadline, so tests of timers never wait in real time.
public final class ManualClock: Clock, @unchecked Sendable {
    public struct Instant: InstantProtocol, Sendable {
        /// Time since the clock was made.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [Int: Sleeper] = [:]
    private var nextID = 0
    private var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init() {}

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks sleep on this clock now.
    public var sleeperCount: Int { lock.withLock { sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = lock.withLock {
            defer { nextID += 1 }
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, ready): (Bool, [CheckedContinuation<Void, Never>]) = lock.withLock {
                    if Task.isCancelled { return (true, []) }
                    if deadline <= current { return (true, []) }
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (false, takeSatisfiedWaiters())
                }
                for waiter in ready { waiter.resume() }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = lock.withLock { sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on and wakes every sleeper whose deadline has come, earliest first.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = lock.withLock {
            current = current.advanced(by: duration)
            let due = sleepers.filter { $0.value.deadline <= current }
            for id in due.keys { sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks sleep on this clock (a timer loop is armed).
    public func sleepers(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = lock.withLock {
                if sleepers.count >= count { return true }
                sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func takeSatisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
        let ready = sleeperWaiters.filter { $0.count <= sleepers.count }
        sleeperWaiters.removeAll { $0.count <= sleepers.count }
        return ready.map(\.continuation)
    }
}

/// Wall-clock seconds and a ``ManualClock`` that move together, only when a test moves them: a
/// server built on them sees a day pass at once, and its timers (the janitors, the webhook
/// deliverer) run the pass that moment brings before ``advance(seconds:)`` returns.
public final class ManualTime: @unchecked Sendable {
    public let clock = ManualClock()
    /// How many timer loops sleep on the clock when the server is idle (``advance(seconds:)``
    /// first waits until all of them do, so none is caught in the middle of a pass).
    public let timers: Int
    private let lock = NSLock()
    private var seconds: Int64

    /// Starts at `start` seconds since 1970 (by default the real time when it is made, so that
    /// what a client library stamps with the real time still looks current).
    public init(timers: Int, start: Int64 = Int64(Date().timeIntervalSince1970)) {
        self.timers = timers
        seconds = start
    }

    /// Seconds since 1970, as the server sees them.
    public var now: Int64 { lock.withLock { seconds } }

    /// Moves time on by `count` seconds at once, and returns when every timer it woke has
    /// finished its pass and sleeps again.
    public func advance(seconds count: Int64) async {
        await clock.sleepers(atLeast: timers)
        lock.withLock { seconds += count }
        clock.advance(by: .seconds(count))
        await clock.sleepers(atLeast: timers)
    }
}
