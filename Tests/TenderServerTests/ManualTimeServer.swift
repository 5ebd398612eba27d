import TenderServer
import TenderTesting

extension ManualTime {
    /// A server's timer loops when it is idle: the ledger writer's heartbeat (its close timer
    /// too when the close interval is not zero), the gateway's janitor, the checkout's janitor,
    /// the anchor's janitor and the webhook deliverer.
    static func forServer(closeTimer: Bool = false) -> ManualTime { ManualTime(timers: closeTimer ? 6 : 5) }

    /// A server's view of the world on this time: its seconds and clock, the system's randomness.
    var environment: ServerEnvironment {
        ServerEnvironment(now: { [self] in now }, random: ServerEnvironment.system.random, clock: clock)
    }
}
