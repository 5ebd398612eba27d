import Synchronization
import Testing
import LedgerService
import TenderTesting

@Suite("Submission deadlines: one ticking task for every waiting submission")
struct SubmissionDeadlinesTests {
    /// Records calls, and lets a test wait for them.
    final class Calls: Sendable {
        private let state = Mutex<(names: [String], waiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?)>(([], nil))
        var names: [String] { state.withLock { $0.names } }
        func record(_ name: String) -> @Sendable () -> Void {
            { [self] in
                let ready = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.names.append(name)
                    guard let waiter = state.waiter, state.names.count >= waiter.count else { return nil }
                    state.waiter = nil
                    return waiter.continuation
                }
                ready?.resume()
            }
        }
        /// Returns once `count` calls have been made.
        func wait(for count: Int) async {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    if state.names.count >= count { return true }
                    state.waiter = (count, continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        }
    }

    /// Advances one tick and returns when the ticking task has called what fell due at it.
    func tick(_ clock: ManualClock, _ deadlines: SubmissionDeadlines) async {
        let before = deadlines.ticksDone
        await clock.sleepers(atLeast: 1)
        clock.advance(by: deadlines.tick)
        while deadlines.ticksDone == before { await Task.yield() }
    }

    @Test func aDeadlineIsCalledOnceTheTimeoutHasPassedAndNotBefore() async throws {
        let clock = ManualClock()
        let deadlines = SubmissionDeadlines(timeout: .milliseconds(50), tick: .milliseconds(10), clock: clock)
        let calls = Calls()
        _ = deadlines.add(calls.record("first"))
        _ = deadlines.add(calls.record("second"))
        // Set at the start of a tick, they wait the whole timeout and the tick under way.
        for _ in 0..<5 { await tick(clock, deadlines) }
        try #require(calls.names.isEmpty)
        #expect(deadlines.waitingCount == 2)
        await tick(clock, deadlines)
        await calls.wait(for: 2)
        #expect(calls.names == ["first", "second"])
        #expect(deadlines.waitingCount == 0)
        // With nothing waiting the task stopped; a new deadline starts it again.
        _ = deadlines.add(calls.record("third"))
        for _ in 0..<5 { await tick(clock, deadlines) }
        try #require(calls.names == ["first", "second"])
        await tick(clock, deadlines)
        await calls.wait(for: 3)
        #expect(calls.names == ["first", "second", "third"])
    }

    @Test func removedDeadlinesAreNeverCalledAndLaterOnesStillAre() async throws {
        let clock = ManualClock()
        let deadlines = SubmissionDeadlines(timeout: .milliseconds(20), tick: .milliseconds(10), clock: clock)
        let calls = Calls()
        let answered = deadlines.add(calls.record("answered"))
        _ = deadlines.add(calls.record("early"))
        await tick(clock, deadlines)
        _ = deadlines.add(calls.record("late"))
        deadlines.remove(answered)
        await tick(clock, deadlines)
        try #require(calls.names.isEmpty)
        await tick(clock, deadlines)
        // "early" was due at the third tick; "late", set a tick after it, is not yet due.
        try #require(calls.names == ["early"])
        await tick(clock, deadlines)
        await calls.wait(for: 2)
        #expect(calls.names == ["early", "late"])
        // Removing one already called changes nothing.
        deadlines.remove(answered)
        #expect(deadlines.waitingCount == 0)
    }

    @Test func ticksRoundTheTimeoutUp() async throws {
        let clock = ManualClock()
        // 25 ms is three ticks of 10, and one more for the tick under way.
        let deadlines = SubmissionDeadlines(timeout: .milliseconds(25), tick: .milliseconds(10), clock: clock)
        let calls = Calls()
        _ = deadlines.add(calls.record("one"))
        for _ in 0..<3 { await tick(clock, deadlines) }
        try #require(calls.names.isEmpty)
        await tick(clock, deadlines)
        await calls.wait(for: 1)
        #expect(calls.names == ["one"])
    }

    @Test func aTimeoutOfZeroIsCalledAtTheNextTick() async {
        let clock = ManualClock()
        let deadlines = SubmissionDeadlines(timeout: .zero, tick: .milliseconds(10), clock: clock)
        let calls = Calls()
        _ = deadlines.add(calls.record("now"))
        await tick(clock, deadlines)
        await calls.wait(for: 1)
        #expect(calls.names == ["now"])
    }
}
