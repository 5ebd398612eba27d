import Foundation
import Hummingbird
import HummingbirdTesting
@testable import TenderServer
import TenderTesting
import Testing

@Suite("Path finding limit")
struct PathFindingLimitTests {
    typealias Instant = ManualClock.Instant
    let start = ManualClock().now
    func at(_ milliseconds: Int64) -> Instant { start.advanced(by: .milliseconds(milliseconds)) }

    @Test func requestsAreSpacedByTheRateAndRefusedPastTheWait() {
        // 10 a second: one slot every 100 ms; a slot at most 250 ms away is waited for.
        var pacer = RequestPacer<Instant>(rate: 10, maxWait: .milliseconds(250))
        #expect(pacer.admit(at: at(0)) == .go)
        #expect(pacer.admit(at: at(0)) == .wait(until: at(100)))
        #expect(pacer.admit(at: at(10)) == .wait(until: at(200)))
        // The next slot, 300, is 280 ms away from 20: refused, and it takes no slot.
        #expect(pacer.admit(at: at(20)) == .refuse)
        #expect(pacer.admit(at: at(60)) == .wait(until: at(300)))
        #expect(pacer.admit(at: at(60)) == .refuse)
        // After a quiet spell a request goes at once, and the spacing starts from it.
        #expect(pacer.admit(at: at(1_000)) == .go)
        #expect(pacer.admit(at: at(1_050)) == .wait(until: at(1_100)))
        #expect(pacer.admit(at: at(1_100)) == .wait(until: at(1_200)))
        #expect(pacer.nextSlot == at(1_300))
    }

    @Test func withNoWaitOnlyOneRequestPerSlotGoes() {
        var pacer = RequestPacer<Instant>(rate: 1, maxWait: .zero)
        #expect(pacer.admit(at: at(0)) == .go)
        #expect(pacer.admit(at: at(999)) == .refuse)
        #expect(pacer.admit(at: at(1_000)) == .go)
        #expect(pacer.admit(at: at(1_000)) == .refuse)
    }

    @Test func aFastRateNeverWaitsForRequestsSlowerThanIt() {
        var pacer = RequestPacer<Instant>(rate: 1_000_000, maxWait: .zero)
        for step in 0..<10_000 { #expect(pacer.admit(at: at(Int64(step))) == .go) }
    }

    @Test func theLimiterSleepsOnItsClockAndRefusesWithServerOverCapacity() async throws {
        let clock = ManualClock()
        let limiter = PathFindingLimiter(rate: 2, maxWait: .seconds(1), clock: clock)
        try await limiter.enter()
        let waiting = Task { try await limiter.enter() }
        await clock.sleepers(atLeast: 1)
        // The third would wait 1 s: allowed; the fourth 1.5 s: refused.
        let third = Task { try await limiter.enter() }
        await clock.sleepers(atLeast: 2)
        let refused = await #expect(throws: ProblemError.self) { try await limiter.enter() }
        #expect(refused?.problem.status == 503)
        #expect(refused?.problem.type == "https://stellar.org/horizon-errors/server_over_capacity")
        clock.advance(by: .milliseconds(500))
        try await waiting.value
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(500))
        try await third.value
    }

    @Test func pathSearchesOverTheRateAre503WhileOrderBooksAreNotLimited() async throws {
        let directory = TemporaryDirectory("path-limit")
        var configuration = TenderConfiguration(port: 0, dataDirectory: directory.file("data"), closeInterval: .zero)
        // One search a second and no waiting: of searches sent together, one runs.
        configuration.maxPathFindingRequests = 1
        configuration.pathFindingMaxWait = .zero
        let app = try await buildApplication(configuration)
        let usdc = configuration.testAnchor.currency(code: "USDC")!.keyPair.accountID.strKey
        let statuses = try await app.test(.router) { client in
            try await withThrowingTaskGroup(of: (String, HTTPResponse.Status, String).self) { group in
                for index in 0..<6 {
                    let uri = index.isMultiple(of: 2)
                        ? "/paths/strict-send?source_asset_type=native&source_amount=10&destination_assets=native"
                        : "/order_book?selling_asset_type=native&buying_asset_type=credit_alphanum4&buying_asset_code=USDC&buying_asset_issuer=\(usdc)"
                    group.addTask {
                        try await client.execute(uri: uri, method: .get) { (String(uri.prefix(6)), $0.status, String(buffer: $0.body)) }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let paths = statuses.filter { $0.0 == "/paths" }
        let books = statuses.filter { $0.0 != "/paths" }
        #expect(paths.filter { $0.1 == .ok }.count == 1, "\(paths)")
        #expect(paths.filter { $0.1 == .serviceUnavailable }.count == 2, "\(paths)")
        #expect(paths.filter { $0.1 == .serviceUnavailable }.allSatisfy { $0.2.contains("server_over_capacity") })
        #expect(books.allSatisfy { $0.1 == .ok }, "\(books)")
    }
}
