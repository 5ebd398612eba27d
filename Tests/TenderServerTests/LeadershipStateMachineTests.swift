import Testing
@testable import TenderServer

/// The cluster node's leadership without a database: each event in each phase, and what the
/// node is asked to do.
@Suite("Leadership state machine")
struct LeadershipStateMachineTests {
    typealias Machine = LeadershipStateMachine

    @Test func aFollowerProbesUntilItWinsThenLeadsAndAdvertisesOnce() {
        var machine = Machine()
        #expect(machine.phase == .following)
        #expect(machine.handle(.probeAnswered) == [.probeLater])
        #expect(machine.handle(.probeAnswered) == [.probeLater])
        // The server listens before the lead is won: the address waits for the lead.
        #expect(machine.handle(.listening(port: 8001)).isEmpty)
        #expect(machine.handle(.lockWon(epoch: 7)) == [.lead(epoch: 7), .advertise(port: 8001)])
        #expect(machine.phase == .leading(epoch: 7) && machine.isAdvertised)
        // Stale probe answers and a second listening report change nothing.
        #expect(machine.handle(.probeAnswered).isEmpty && machine.handle(.lockWon(epoch: 8)).isEmpty)
        #expect(machine.handle(.listening(port: 9000)).isEmpty)
        #expect(machine.phase == .leading(epoch: 7))
    }

    @Test func aLeaderFromStartUpAdvertisesWhenItListens() {
        var machine = Machine(leadingAt: 3)
        #expect(machine.phase == .leading(epoch: 3) && !machine.isAdvertised)
        #expect(machine.handle(.listening(port: 8000)) == [.advertise(port: 8000)])
        #expect(machine.handle(.stop) == [.stopLeading])
        #expect(machine.phase == .stopped)
    }

    @Test func aLostFenceOrFailedServicesStopTheProcess() {
        for event in [Machine.Event.fenceLost(reason: "the connection closed"), .servicesFailed(reason: "commit failed")] {
            var machine = Machine(leadingAt: 1)
            let reason: String = switch event {
            case .fenceLost(let reason), .servicesFailed(let reason): reason
            default: ""
            }
            #expect(machine.handle(event) == [.fail(reason: reason)])
            #expect(machine.phase == .failed(reason: reason))
            // Nothing moves a failed node again.
            #expect(machine.handle(.lockWon(epoch: 2)).isEmpty && machine.handle(.stop).isEmpty && machine.handle(.listening(port: 1)).isEmpty)
        }
    }

    @Test func aFailedProbeStopsAFollower() {
        var machine = Machine()
        #expect(machine.handle(.probeFailed(reason: "connection refused")) == [.fail(reason: "connection refused")])
        #expect(machine.phase == .failed(reason: "connection refused"))
    }

    @Test func aFollowerIgnoresFencesItDoesNotHoldAndStopsQuietly() {
        var machine = Machine()
        #expect(machine.handle(.fenceLost(reason: "old")).isEmpty && machine.handle(.servicesFailed(reason: "old")).isEmpty)
        #expect(machine.phase == .following)
        #expect(machine.handle(.stop).isEmpty)
        #expect(machine.phase == .stopped)
        #expect(machine.handle(.lockWon(epoch: 1)).isEmpty, "a stopped node does not lead")
    }
}
