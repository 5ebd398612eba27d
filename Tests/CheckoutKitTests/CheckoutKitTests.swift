import CheckoutKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HummingbirdTesting
import TenderServer
import TenderTesting
import Testing

/// Plain JSON calls for the test's set-up (what the marketplace's server does).
struct Setup {
    let base: URL

    func json(_ method: String, _ path: String, token: String, _ body: String? = nil, form: Bool = false) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(form ? "application/x-www-form-urlencoded" : "application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body.map { Data($0.utf8) }
        let (data, _) = try await URLSession.shared.data(for: request)
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// Presses Complete on a test page (3-D Secure or bank), as the buyer's browser would.
    func complete(_ page: URL) async throws -> Int {
        var components = URLComponents(url: page, resolvingAgainstBaseURL: false)!
        components.path += "/complete"
        var request = URLRequest(url: components.url!)
        request.httpMethod = "POST"
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as! HTTPURLResponse).statusCode
    }

    func euros(_ account: String) async throws -> Int {
        let (data, _) = try await URLSession.shared.data(from: URL(string: base.absoluteString + "/accounts/\(account)")!)
        let balances = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["balances"] as? [[String: Any]]
        let text = balances?.first { $0["asset_code"] as? String == "EUR" }?["balance"] as? String ?? "0.00"
        let parts = text.split(separator: ".")
        return Int(parts[0])! * 100 + Int(String(parts[1].prefix(2)))!
    }
}

/// A transport that holds a totals request until the test releases it, to show that
/// changes made meanwhile win: the test waits for that request to arrive, changes the choices,
/// then lets it go. No waiting on time.
final class SlowTotals: CheckoutTransport, @unchecked Sendable {
    let inner = URLSessionCheckoutTransport()
    let lock = NSLock()
    var totalsSent = 0
    private var released = true
    private var held: CheckedContinuation<Void, Never>?
    private var arrival: CheckedContinuation<Void, Never>?

    func send(_ method: String, _ url: URL, body: Data?, token: String) async throws -> (status: Int, body: Data) {
        if url.path.hasSuffix("/totals") {
            let hold = lock.withLock { () -> Bool in
                totalsSent += 1
                return !released
            }
            if hold {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let waiting = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                        held = continuation
                        defer { arrival = nil }
                        return arrival
                    }
                    waiting?.resume()
                }
            }
        }
        return try await inner.send(method, url, body: body, token: token)
    }

    /// Holds the next totals request (and those after it) until ``release()``.
    func holdNext() {
        lock.withLock { released = false }
    }

    /// Returns once a totals request is held.
    func heldRequest() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = lock.withLock { () -> Bool in
                if held != nil { return true }
                arrival = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Lets the held request go, and every later one through.
    func release() {
        let waiting = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            released = true
            defer { held = nil }
            return held
        }
        waiting?.resume()
    }
}

@Suite("CheckoutKit against a real server", .serialized)
struct CheckoutKitTests {
    @Test(arguments: TestDatabase.allCases)
    func theReferenceStory(_ database: TestDatabase) async throws {
        try await database.with { url in
            let temporary = TemporaryDirectory("checkoutkit")
            defer { temporary.remove() }
            let app = try await buildApplication({ var configured = TenderConfiguration(port: 0, dataDirectory: temporary.path, closeInterval: .zero); configured.database = url; return configured }())
            try await app.test(.live) { client in
                let base = URL(string: "http://127.0.0.1:\(client.port!)")!
                let setup = Setup(base: base)
                let admin = try String(contentsOfFile: temporary.path + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                let made = try await setup.json("POST", "/checkout/v1/admin/marketplaces", token: admin, #"{"name":"Tweedehands"}"#)
                let key = try #require(made["secret_key"] as? String)
                let escrow = try #require((made["marketplace"] as? [String: Any])?["escrow_account"] as? String)
                func user(_ name: String) async throws -> (token: String, customer: String) {
                    let answer = try await setup.json("POST", "/checkout/v1/users", token: key, #"{"name":"\#(name)","addresses":[{"name":"\#(name)","line1":"Damrak 1","postal_code":"1012","city":"Amsterdam","country":"NL"}]}"#)
                    return (try #require(answer["token"] as? String), try #require((answer["user"] as? [String: Any])?["customer"] as? String))
                }
                let seller = try await user("Sam")
                func listing(_ title: String) async throws -> String {
                    try #require(try await setup.json("POST", "/checkout/v1/listings", token: seller.token, """
                        {"title":"\(title)","price":10000,"pickup":true,"country":"NL","delivery":[{"name":"standard","costs":{"NL":695,"GB":1495}},{"name":"registered","costs":{"NL":895}}]}
                        """)["id"] as? String)
                }
                let returnURL = base.appendingPathComponent("health")

                // Fetch, then totals with each option.
                let bea = try await user("Bea")
                let beaClient = CheckoutClient(base: base, token: bea.token)
                let bicycle = try await listing("Bicycle")
                let bid = try await beaClient.buyNow(bicycle)
                let screen = CheckoutScreenModel(client: beaClient, bidID: bid.id)
                #expect(await !screen.enabled)
                await screen.load()
                do { let state = await screen.state; #expect(state.phase == .ready && state.enabled) }
                do { let state = await screen.state; #expect(state.listing?.title == "Bicycle" && state.user?.name == "Bea" && state.order == nil) }
                do { let state = await screen.state; #expect(state.totals?.total == 10_199) }
                await screen.chooseDelivery("standard")
                do { let state = await screen.state; #expect(state.totals?.total == 10_894) }
                await screen.chooseDelivery("registered")
                do { let state = await screen.state; #expect(state.totals?.total == 11_094) }
                await screen.choosePaymentMethod("card")
                do { let state = await screen.state; #expect(state.totals?.total == 11_211, "10,895 + 2.9% of it (315.955 → 316)") }
                await screen.chooseDelivery("pickup")
                await screen.choosePaymentMethod("ideal")
                do { let state = await screen.state; #expect(state.totals?.total == 10_199) }

                // iDEAL abandoned: back on the screen, the order still payable; then paid.
                await screen.pay(returnURL: returnURL)
                guard case .redirect(let bank) = await screen.phase else { Issue.record("no redirect: \(await screen.phase)"); return }
                await screen.returned(result: nil)
                do { let state = await screen.state; #expect(state.phase == .ready && state.order?.payable == true && state.order?.status == "payment_pending") }
                await screen.pay(returnURL: returnURL)
                guard case .redirect(let bankAgain) = await screen.phase else { Issue.record("no second redirect"); return }
                #expect(bankAgain != bank, "the abandoned intent is canceled and a new one made, so only one can ever be paid")
                #expect(try await setup.complete(bankAgain) == 200, "back at the return URL")
                await screen.returned(result: "succeeded")
                do { let state = await screen.state; #expect(state.phase == .paid && state.order?.held_in_escrow == 10_199) }
                #expect(try await setup.euros(escrow) == 10_199, "the buyer's whole payment")

                // Card with 3-D Secure, from a saved card.
                let carl = try await user("Carl")
                let card = try #require(try await setup.json("POST", "/v1/payment_methods", token: key, "type=card&card[number]=4000002500003155&card[exp_month]=12&card[exp_year]=2030&card[cvc]=123", form: true)["id"] as? String)
                _ = try await setup.json("POST", "/v1/payment_methods/\(card)/attach", token: key, "customer=\(carl.customer)", form: true)
                let carlClient = CheckoutClient(base: base, token: carl.token)
                let lampBid = try await carlClient.buyNow(try await listing("Lamp"))
                let cardScreen = CheckoutScreenModel(client: carlClient, bidID: lampBid.id, choices: CheckoutChoices(paymentMethod: "card"))
                await cardScreen.load()
                await cardScreen.pay(card: card, returnURL: returnURL)
                guard case .redirect(let challenge) = await cardScreen.phase else { Issue.record("no challenge: \(await cardScreen.phase)"); return }
                #expect(challenge.path.contains("/v1/test/3ds/"))
                #expect(try await setup.complete(challenge) == 200)
                await cardScreen.returned(result: "succeeded")
                #expect(await cardScreen.phase == .paid)
                #expect(try await setup.euros(escrow) == 10_199 + 10_290, "the escrow holds both paid orders")

                // A payment the test holds pending: polling gives up after three retries.
                let dora = try await user("Dora")
                let doraClient = CheckoutClient(base: base, token: dora.token)
                let chairBid = try await doraClient.buyNow(try await listing("Chair"))
                final class Sleeps: @unchecked Sendable { let lock = NSLock(); var waits: [Duration] = [] }
                let sleeps = Sleeps()
                let pending = CheckoutScreenModel(client: doraClient, bidID: chairBid.id, retryDelay: .seconds(2), sleep: { duration in sleeps.lock.withLock { sleeps.waits.append(duration) } })
                await pending.load()
                await pending.pay(returnURL: returnURL)
                await pending.returned(result: "succeeded")
                do { let state = await pending.state; #expect(state.phase == .failing && state.polls == 4) }
                #expect(sleeps.waits == [.seconds(2), .seconds(2), .seconds(2)])
                do { let state = await pending.state; #expect(state.order?.payable == true) }

                // Backing out of a buy-now: the bid withdrawn, its order ended, the listing free.
                await pending.backOut()
                do { let state = await pending.state; #expect(state.phase == .backedOut && state.bid?.status == "withdrawn") }
                #expect(try await doraClient.listing(chairBid.listing).status == "available")
                #expect(try await setup.euros(escrow) == 10_199 + 10_290)

                // The latest choice wins, one totals request at a time.
                let eve = try await user("Eve")
                let slow = SlowTotals()
                let eveClient = CheckoutClient(base: base, token: eve.token, transport: slow)
                let desk = try await eveClient.buyNow(try await listing("Desk"))
                let racing = CheckoutScreenModel(client: eveClient, bidID: desk.id)
                await racing.load()
                let before = slow.lock.withLock { slow.totalsSent }
                slow.holdNext()
                async let first: Void = racing.chooseDelivery("standard")
                // While the first totals request is out, two more changes: neither sends one.
                await slow.heldRequest()
                await racing.chooseDelivery("registered")
                await racing.choosePaymentMethod("bancontact")
                slow.release()
                await first
                do { let state = await racing.state; #expect(state.totals?.delivery == "registered" && state.totals?.payment_method == "bancontact" && state.totals?.total == 11_044) }
                #expect(slow.lock.withLock { slow.totalsSent } - before == 2, "the first, then once more for the latest choices")
            }
        }
    }
}
