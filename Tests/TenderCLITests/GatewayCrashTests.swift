import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Ledger
import StellarBase
import Store
import TenderTesting
import Testing

/// Kills `tender serve` with SIGKILL while card payments are being confirmed and captured with
/// idempotency keys, restarts it, retries every request with its key, and checks that each
/// payment was charged once, every capture is settled on the ledger, and the ledger's
/// invariants hold.
@Suite("Gateway crash recovery", .tags(.slow), TestSpeed.slowSuites)
struct GatewayCrashTests {
    struct Answer: Sendable {
        let status: Int
        let json: [String: any Sendable]
    }

    static func call(_ base: String, _ method: String, _ path: String, key: String, idempotencyKey: String? = nil, form: String = "") async -> Answer? {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.timeoutInterval = 30
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        if let idempotencyKey { request.setValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key") }
        if method == "POST" {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.utf8)
        }
        guard let (body, response) = try? await URLSession.shared.data(for: request) else { return nil }
        let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        return Answer(status: (response as! HTTPURLResponse).statusCode, json: json.mapValues { "\($0)" as any Sendable }.merging(["_raw": String(decoding: body, as: UTF8.self)]) { a, _ in a })
    }

    static func fee(_ amount: Int) -> Int { min((amount * 150 + 5000) / 10000 + 25, amount) }

    /// One order: create and confirm (automatic capture for even orders), then capture (odd).
    static func run(order: Int, base: String, key: String, method: String) async -> (id: String?, done: Bool) {
        let manual = order % 2 == 1
        let create = "amount=\(1000 + order)&currency=eur&confirm=true&payment_method=\(method)&capture_method=\(manual ? "manual" : "automatic")"
        guard let created = await call(base, "POST", "/v1/payment_intents", key: key, idempotencyKey: "create-\(order)", form: create), created.status == 200,
              let id = created.json["id"] as? String else { return (nil, false) }
        guard manual else { return (id, created.json["status"] as? String == "succeeded") }
        guard let captured = await call(base, "POST", "/v1/payment_intents/\(id)/capture", key: key, idempotencyKey: "capture-\(order)"), captured.status == 200 else { return (id, false) }
        return (id, captured.json["status"] as? String == "succeeded")
    }

    @Test func everyPaymentIsChargedOnceAcrossKillMinus9() async throws {
        let temporary = TemporaryDirectory("gateway-crash")
        defer { temporary.remove() }
        let data = temporary.path + "/data"
        let server = try await Tender.start(["serve", "--port", "0", "--data", data, "--close-interval", "0"])
        defer { server.signal(SIGKILL) }
        let base = try await server.waitForURL()
        let admin = try String(contentsOfFile: data + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let merchant = try #require(await Self.call(base, "POST", "/v1/admin/merchants", key: admin, form: "name=Crash"))
        let key = try #require(merchant.json["secret_key"] as? String)
        let settlement = try AccountID(try #require(merchant.json["settlement_account"] as? String))
        let pm = try #require(await Self.call(base, "POST", "/v1/payment_methods", key: key, form: "type=card&card[number]=4242424242424242&card[exp_month]=1&card[exp_year]=2040").map { $0.json["id"] as? String } ?? nil)

        let orders = 0..<300
        // SIGKILL after 100 orders are done, while the others are in flight.
        let done = AcknowledgedCount()
        let killer = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await done.wait(forCount: 100) }
                group.addTask { try? await Task.sleep(for: .seconds(60)) }
                await group.next()
                group.cancelAll()
            }
            server.signal(SIGKILL)
        }
        var firstIDs: [Int: String] = [:]
        await withTaskGroup(of: (Int, String?, Bool).self) { group in
            var next = orders.makeIterator()
            func start() -> Bool {
                guard let order = next.next() else { return false }
                group.addTask {
                    let (id, finished) = await Self.run(order: order, base: base, key: key, method: pm)
                    if finished { await done.add() }
                    return (order, id, finished)
                }
                return true
            }
            for _ in 0..<32 where start() {}
            for await (order, id, _) in group {
                if let id { firstIDs[order] = id }
                _ = start()
            }
        }
        _ = await killer.value
        #expect(await server.waitForExit(timeout: 30))
        #expect(await done.count >= 100)

        // Restart, and retry every order with its keys.
        let restartLog = temporary.path + "/restart.log"
        let restarted = try await Tender.start(["serve", "--port", "0", "--data", data, "--close-interval", "0"], errorLog: restartLog)
        defer { restarted.signal(SIGKILL) }
        let again = try await restarted.waitForURL()
        var expectedMerchant = 0, expectedFees = 0
        for order in orders {
            let (id, finished) = await Self.run(order: order, base: again, key: key, method: pm)
            #expect(finished, "order \(order) did not finish on retry")
            if let first = firstIDs[order] { #expect(id == first, "order \(order) made a second intent") }
            expectedMerchant += 1000 + order - Self.fee(1000 + order)
            expectedFees += Self.fee(1000 + order)
        }
        // One intent per order, each captured once.
        var intents: [String] = []
        var after: String?
        while true {
            let page = try #require(await Self.call(again, "GET", "/v1/payment_intents?limit=100" + (after.map { "&starting_after=\($0)" } ?? ""), key: key))
            let raw = try #require(page.json["_raw"] as? String)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any])
            let data = try #require(object["data"] as? [[String: Any]])
            intents += data.compactMap { $0["id"] as? String }
            #expect(data.allSatisfy { $0["status"] as? String == "succeeded" })
            guard object["has_more"] as? Bool == true, let last = data.last?["id"] as? String else { break }
            after = last
        }
        #expect(intents.count == orders.count)
        #expect(Set(intents).count == orders.count)
        // One balance transaction per settlement, none lost or doubled by the kill: they sum to what the merchant holds.
        var movements: [[String: Any]] = []
        after = nil
        while true {
            let page = try #require(await Self.call(again, "GET", "/v1/balance_transactions?limit=100" + (after.map { "&starting_after=\($0)" } ?? ""), key: key))
            let raw = try #require(page.json["_raw"] as? String)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any])
            let data = try #require(object["data"] as? [[String: Any]])
            movements += data
            guard object["has_more"] as? Bool == true, let last = data.last?["id"] as? String else { break }
            after = last
        }
        #expect(movements.count == orders.count && Set(movements.compactMap { $0["source"] as? String }).count == orders.count)
        #expect(movements.compactMap { $0["net"] as? Int }.reduce(0, +) == expectedMerchant)
        restarted.signal(SIGTERM)
        #expect(await restarted.waitForExit(timeout: 30))
        // For the record (how much the kill left to recover varies from run to run).
        let log = (try? String(contentsOfFile: restartLog, encoding: .utf8)) ?? ""
        print("gateway crash test: \(firstIDs.count) orders answered before the kill, \(log.components(separatedBy: "gateway settlement recovered").count - 1) settlements recovered at restart")

        // On the ledger: the merchant holds every payment less its fee, the fee account the fees.
        let store = try SQLiteLedgerStore(path: data + "/ledger.sqlite")
        let state = try #require(try await store.loadState())
        #expect(state.verifyAllInvariants() == nil)
        let euroLines = state.trustLines.values.filter { $0.asset.code?.description == "EUR" }
        let held = try #require(euroLines.first { $0.accountID == settlement }?.balance)
        #expect(held == Int64(expectedMerchant) * 100_000, "merchant holds \(held), expected \(expectedMerchant) cents")
        // Everyone else holding euros is the fee account: nothing else was paid any.
        let others = euroLines.filter { $0.accountID != settlement }.reduce(Int64(0)) { $0 + $1.balance }
        #expect(others == Int64(expectedFees) * 100_000)
    }
}

/// Counts finished orders and wakes a waiter at a count.
actor AcknowledgedCount {
    private(set) var count = 0
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    func add() {
        count += 1
        waiters.removeAll { waiter in
            guard waiter.0 <= count else { return false }
            waiter.1.resume()
            return true
        }
    }

    func wait(forCount target: Int) async {
        if count >= target { return }
        await withCheckedContinuation { waiters.append((target, $0)) }
    }
}
