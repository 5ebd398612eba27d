/// A cluster node's leadership, written down: which events move it and what the node must do
/// for each. Pure: ``ClusterNode`` feeds it what its session, its probe and its server report,
/// from one loop, and does what it answers.
///
/// A node follows until a probe of the leader's lock wins it; then it leads under that epoch,
/// and advertises its address once its server listens (whichever of the two comes first). A
/// leader whose fence is lost stops the process (fail-stop: a supervisor restarts it as a
/// follower); a failed probe stops it too (taking the lead half-way is not safe to leave). A
/// stop (graceful shutdown) ends either.
struct LeadershipStateMachine: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        case following
        case leading(epoch: Int64)
        /// Shut down gracefully.
        case stopped
        /// Stopped because the lead was lost or could not be taken.
        case failed(reason: String)
    }

    enum Event: Sendable, Equatable {
        /// A probe took the leader's lock; the epoch moved on to `epoch`.
        case lockWon(epoch: Int64)
        /// A probe found another node leading.
        case probeAnswered
        /// A probe could not be made or the lead not taken.
        case probeFailed(reason: String)
        /// The server listens on `port`.
        case listening(port: Int)
        /// The session holding the lock is gone (closed, failed, not answering).
        case fenceLost(reason: String)
        /// The leader's services ended by themselves (the ledger writer failed a commit).
        case servicesFailed(reason: String)
        /// Graceful shutdown.
        case stop
    }

    enum Action: Sendable, Equatable {
        /// Probe the lock again after the failover interval.
        case probeLater
        /// Become the leader under `epoch`: load the last committed ledger, start the leader's
        /// services and watch the session.
        case lead(epoch: Int64)
        /// Write where the other nodes reach this leader.
        case advertise(port: Int)
        /// Stop the leader's services and return.
        case stopLeading
        /// End the process with this reason (fail-stop).
        case fail(reason: String)
    }

    private(set) var phase: Phase
    private(set) var port: Int?
    private(set) var isAdvertised = false

    /// A node that won the lock at start-up leads from the start; any other follows.
    init(leadingAt epoch: Int64? = nil) {
        phase = epoch.map { .leading(epoch: $0) } ?? .following
    }

    /// What `event` asks of the node, in order.
    mutating func handle(_ event: Event) -> [Action] {
        switch (phase, event) {
        case (.stopped, _), (.failed, _):
            return []
        case (_, .stop):
            let wasLeading = if case .leading = phase { true } else { false }
            phase = .stopped
            return wasLeading ? [.stopLeading] : []
        case (_, .listening(let port)):
            guard self.port == nil else { return [] }
            self.port = port
            return advertiseIfReady()
        case (.following, .lockWon(let epoch)):
            phase = .leading(epoch: epoch)
            return [.lead(epoch: epoch)] + advertiseIfReady()
        case (.following, .probeAnswered):
            return [.probeLater]
        case (.following, .probeFailed(let reason)):
            phase = .failed(reason: reason)
            return [.fail(reason: reason)]
        case (.following, .fenceLost), (.following, .servicesFailed):
            // A follower holds no fence and runs no leader's services.
            return []
        case (.leading, .fenceLost(let reason)), (.leading, .servicesFailed(let reason)):
            phase = .failed(reason: reason)
            return [.fail(reason: reason)]
        case (.leading, .lockWon), (.leading, .probeAnswered), (.leading, .probeFailed):
            // A leader does not probe: a probe's answer that arrives after the lead was taken
            // is stale.
            return []
        }
    }

    private mutating func advertiseIfReady() -> [Action] {
        guard case .leading = phase, let port, !isAdvertised else { return [] }
        isAdvertised = true
        return [.advertise(port: port)]
    }
}
