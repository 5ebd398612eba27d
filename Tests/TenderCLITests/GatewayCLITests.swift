import Foundation
import TenderTesting
import Testing

/// `tender gateway` against a real `tender serve`.
@Suite(.serialized, .tags(.slow), TestSpeed.slowSuites)
struct GatewayCLITests {
    @Test(arguments: [ServedStore.sqlite, .postgres])
    func merchantsAndPaymentsFromTheTerminal(_ store: ServedStore) async throws {
        let temporary = TemporaryDirectory("gateway-cli")
        defer { temporary.remove() }
        let data = temporary.path + "/data"
        try await ServedTender.with(store, ["serve", "--port", "0", "--data", data, "--close-interval", "0.05"]) { served in
        let url = served.url

        let made = try await Tender.run(["gateway", "merchants", "create", "Coffee shop", "--data", data, "--url", url, "--json"])
        #expect(made.status == 0, "\(made.stderr)")
        let merchant = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        let key = try #require(merchant["secret_key"] as? String)
        let connection = ["--key", key, "--url", url]

        let paid = try await Tender.run(["gateway", "payments", "create", "--amount", "10.99", "--card", "4242 4242 4242 4242"] + connection)
        #expect(paid.status == 0 && paid.stdout.contains("10.99 EUR  succeeded"), "\(paid.stdout) \(paid.stderr)")
        let declined = try await Tender.run(["gateway", "payments", "create", "--amount", "5", "--card", "4000000000009995"] + connection)
        #expect(declined.status != 0 && declined.stderr.contains("insufficient_funds"), "\(declined.stderr)")
        let challenged = try await Tender.run(["gateway", "payments", "create", "--amount", "7.50", "--card", "4000000000003220"] + connection)
        #expect(challenged.status == 0 && challenged.stdout.contains("requires_action") && challenged.stdout.contains("/v1/test/3ds/"), "\(challenged.stdout)")
        let passed = try await Tender.run(["gateway", "payments", "create", "--amount", "7.50", "--card", "4000000000003220", "--complete"] + connection)
        #expect(passed.stdout.contains("succeeded"), "\(passed.stdout) \(passed.stderr)")
        let failed = try await Tender.run(["gateway", "payments", "create", "--amount", "7.50", "--card", "4000000000003220", "--fail"] + connection)
        #expect(failed.status != 0 && failed.stdout.contains("requires_payment_method"), "\(failed.stdout)")

        let held = try await Tender.run(["gateway", "payments", "create", "--amount", "20", "--card", "5555555555554444", "--manual", "--json"] + connection)
        let intent = try #require(try JSONSerialization.jsonObject(with: Data(held.stdout.utf8)) as? [String: Any], "\(held.stdout) \(held.stderr)")
        #expect(intent["status"] as? String == "requires_capture")
        let id = try #require(intent["id"] as? String)
        let captured = try await Tender.run(["gateway", "payments", "capture", id, "--amount", "12.50"] + connection)
        #expect(captured.stdout.contains("succeeded  received 12.50"), "\(captured.stdout) \(captured.stderr)")
        let refunded = try await Tender.run(["gateway", "payments", "refund", id, "--amount", "2.50"] + connection)
        #expect(refunded.stdout.contains("2.50 EUR  succeeded"), "\(refunded.stdout) \(refunded.stderr)")
        let shown = try await Tender.run(["gateway", "payments", "show", id] + connection)
        #expect(shown.stdout.contains("received 12.50  refunded 2.50"), "\(shown.stdout)")
        let listed = try await Tender.run(["gateway", "payments", "list", "--limit", "100", "--json"] + connection)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        #expect((list["data"] as? [Any])?.count == 6)

        let events = try await Tender.run(["gateway", "events", "list", "--limit", "3"] + connection)
        #expect(events.status == 0 && events.stdout.contains("charge.refunded  ch_"), "\(events.stdout) \(events.stderr)")

        let badAmount = try await Tender.run(["gateway", "payments", "create", "--amount", "10.999", "--card", "4242424242424242"] + connection)
        #expect(badAmount.status != 0 && badAmount.stderr.contains("--amount"))
        let badKey = try await Tender.run(["gateway", "payments", "list", "--key", "sk_test_wrong", "--url", url])
        #expect(badKey.status != 0 && badKey.stderr.contains("authentication_error"), "\(badKey.stderr)")
        let merchants = try await Tender.run(["gateway", "merchants", "list", "--data", data, "--url", url])
        #expect(merchants.stdout.contains("Coffee shop") && !merchants.stdout.contains("sk_test"))
    }
    }
    }
