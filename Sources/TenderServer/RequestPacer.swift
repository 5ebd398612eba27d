import Synchronization

/// Spaces requests of one kind out to at most `rate` a second, as nginx's `limit_req` does with
/// a burst: a request that comes early waits for its slot, unless its slot is more than
/// `maxWait` away, in which case it is refused at once. Waiting costs no CPU, so a client asking
/// as fast as it can is slowed to the rate instead of taking the cores the ledger needs.
///
/// Pure: the caller passes the time and does the waiting.
struct RequestPacer<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    enum Decision: Equatable, Sendable {
        case go
        case wait(until: Instant)
        case refuse
    }

    /// The time between two slots.
    let interval: Duration
    /// How far ahead a slot may be and still be waited for.
    let maxWait: Duration
    /// The first slot not yet given out.
    private(set) var nextSlot: Instant?

    /// `rate` requests a second (at least 1), each waiting at most `maxWait` for its slot.
    init(rate: Int, maxWait: Duration) {
        precondition(rate > 0, "a pacer needs a rate of at least 1 a second")
        interval = .seconds(1) / rate
        self.maxWait = maxWait
    }

    mutating func admit(at now: Instant) -> Decision {
        var slot = now
        if let nextSlot, now < nextSlot { slot = nextSlot }
        if now.duration(to: slot) > maxWait { return .refuse }
        nextSlot = slot.advanced(by: interval)
        return slot == now ? .go : .wait(until: slot)
    }
}

/// Paces `GET /paths/...` as Horizon's `--max-path-finding-requests` limits it: at most the
/// configured searches a second; a search that would wait too long is a 503 `server_over_capacity`.
final class PathFindingLimiter<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    private let clock: C
    private let pacer: Mutex<RequestPacer<C.Instant>>

    init(rate: Int, maxWait: Duration, clock: C) {
        self.clock = clock
        pacer = Mutex(RequestPacer(rate: rate, maxWait: maxWait))
    }

    /// Returns when the request may run; throws the 503 when it may not.
    func enter() async throws {
        let now = clock.now
        switch pacer.withLock({ $0.admit(at: now) }) {
        case .go:
            return
        case .wait(let slot):
            try await clock.sleep(until: slot, tolerance: nil)
        case .refuse:
            throw ProblemError(.serverOverCapacity)
        }
    }
}
