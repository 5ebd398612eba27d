import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TenderTesting
import Testing

/// `tender checkout` against a real `tender serve`: the demo seeds a marketplace, then a buyer
/// lists, buys, reads totals, pays by card with 3-D Secure and by iDEAL, and shows the order.
@Suite(.serialized, .tags(.slow), TestSpeed.slowSuites)
struct CheckoutCLITests {
    @Test(arguments: [ServedStore.sqlite, .postgres])
    func demoBuyTotalsPayAndOrder(_ store: ServedStore) async throws {
        let temporary = TemporaryDirectory("checkout-cli")
        defer { temporary.remove() }
        let data = temporary.path + "/data"
        try await ServedTender.with(store, ["serve", "--port", "0", "--data", data, "--close-interval", "0.05"]) { served in
        let url = served.url

        let demo = try await Tender.run(["checkout", "demo", "--data", data, "--url", url, "--json"])
        #expect(demo.status == 0, "\(demo.stderr)")
        let seeded = try #require(try JSONSerialization.jsonObject(with: Data(demo.stdout.utf8)) as? [String: Any], "\(demo.stdout)")
        let buyer = try #require(seeded["buyer"] as? String)
        let listings = try #require(seeded["listings"] as? [[String: String]])
        let cards = try #require(seeded["buyer_cards"] as? [String])
        #expect(listings.count == 3 && cards.count == 2 && (seeded["shop"] as? String)?.contains("/shop/login?token=") == true)
        let user = ["--token", buyer, "--url", url]

        let listed = try await Tender.run(["checkout", "listings"] + user)
        #expect(listed.status == 0 && listed.stdout.contains("Bicycle  €100.00  buy now"), "\(listed.stdout) \(listed.stderr)")
        let bought = try await Tender.run(["checkout", "buy", listings[0]["id"]!, "--json"] + user)
        let bid = try #require((try JSONSerialization.jsonObject(with: Data(bought.stdout.utf8)) as? [String: Any])?["id"] as? String, "\(bought.stdout) \(bought.stderr)")
        let totals = try await Tender.run(["checkout", "totals", bid, "--delivery", "standard", "--payment-method", "card"] + user)
        #expect(totals.stdout.contains("shipping     €6.95") && totals.stdout.contains("total        €110.05"), "\(totals.stdout) \(totals.stderr)")
        let pickup = try await Tender.run(["checkout", "totals", bid, "--json"] + user)
        #expect((try JSONSerialization.jsonObject(with: Data(pickup.stdout.utf8)) as? [String: Any])?["total"] as? Int == 10_199)

        // Card with 3-D Secure: the page to open is printed; after Complete the order is paid.
        let pay = try await Tender.run(["checkout", "pay", bid, "--payment-method", "card", "--card", cards[1], "--return-url", url + "/health", "--json"] + user)
        let payment = try #require(try JSONSerialization.jsonObject(with: Data(pay.stdout.utf8)) as? [String: Any], "\(pay.stdout) \(pay.stderr)")
        let page = try #require(payment["redirect"] as? String)
        let order = try #require((payment["order"] as? [String: Any])?["id"] as? String)
        var components = URLComponents(string: page)!
        components.path += "/complete"
        var request = URLRequest(url: components.url!)
        request.httpMethod = "POST"
        _ = try await URLSession.shared.data(for: request)
        let shown = try await Tender.run(["checkout", "order", order] + user)
        #expect(shown.stdout.contains("paid, total €102.90, in escrow €102.90"), "\(shown.stdout) \(shown.stderr)")

        // iDEAL for the lamp: the bank page to open.
        let lamp = try await Tender.run(["checkout", "buy", listings[1]["id"]!, "--json"] + user)
        let lampBid = try #require((try JSONSerialization.jsonObject(with: Data(lamp.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let ideal = try await Tender.run(["checkout", "pay", lampBid, "--delivery", "standard"] + user)
        #expect(ideal.stdout.contains("payment_pending") && ideal.stdout.contains("/v1/test/bank/"), "\(ideal.stdout) \(ideal.stderr)")

        // Refusals carry the checkout's code and fail the command.
        let unknown = try await Tender.run(["checkout", "totals", "bid_nothere"] + user)
        #expect(unknown.status != 0 && unknown.stderr.contains("not_found (404)"), "\(unknown.stderr)")
        let taken = try await Tender.run(["checkout", "buy", listings[0]["id"]!] + user)
        #expect(taken.status != 0 && taken.stderr.contains("listing_unavailable"), "\(taken.stderr)")
        let noToken = try await Tender.run(["checkout", "listings", "--url", url])
        #expect(noToken.status != 0 && noToken.stderr.contains("TENDER_CHECKOUT_TOKEN"))
    }
    }
    }
