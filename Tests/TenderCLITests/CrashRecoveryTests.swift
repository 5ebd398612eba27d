import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Ledger
import Logging
import PostgresStore
import StellarBase
import Store
import TenderTesting
import Testing

/// Kills `tender serve` with SIGKILL while payments are being submitted, restarts it, and checks
/// that every payment that was answered as applied is in the ledger and the money adds up.
@Suite("Crash recovery", .tags(.slow), TestSpeed.slowSuites)
struct CrashRecoveryTests {
    static let network = Network.standalone

    func post(_ base: String, _ envelope: TransactionEnvelope) async throws -> Int {
        var request = URLRequest(url: URL(string: base + "/transactions")!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let encoded = envelope.xdrBase64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        request.httpBody = Data("tx=\(encoded)".utf8)
        request.timeoutInterval = 20
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as! HTTPURLResponse).statusCode
    }

    /// A new network by default; with `TENDER_CRASH_DATA` set, that data directory as it is (a
    /// network grown by `tender bench scale --keep`: the drill at the largest size, see
    /// `Benchmarks/crash-at-scale.sh`), which it leaves in place; with `TENDER_CRASH_DATABASE`
    /// set too, the PostgreSQL database at that URL holds the network (`bench scale --database
    /// ... --keep`), and the server runs on it.
    @Test func everyAnsweredPaymentSurvivesKillMinus9() async throws {
        let temporary = TemporaryDirectory("crash")
        defer { temporary.remove() }
        let environment = ProcessInfo.processInfo.environment
        let grown = environment["TENDER_CRASH_DATA"]
        let data = grown ?? temporary.path
        let database = grown == nil ? nil : environment["TENDER_CRASH_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }
        let serve = ["serve", "--port", "0", "--data", data, "--close-interval", "0"] + (database.map { ["--database", $0] } ?? [])
        // A grown network takes its time to load.
        let startTimeout: TimeInterval = grown == nil ? 30 : 900
        let server = try await Tender.start(serve)
        defer { server.signal(SIGKILL) }
        let base = try await server.waitForURL(timeout: startTimeout)

        let root = LedgerState.rootKeyPair(network: Self.network)
        // New payers each run, so a grown network can be drilled again.
        var generator = SystemRandomNumberGenerator()
        let payers = (0..<100).map { _ in try! KeyPair(seed: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        let (rootBody, _) = try await URLSession.shared.data(from: URL(string: base + "/accounts/\(root.accountID.strKey)")!)
        let rootAccount = try #require(try JSONSerialization.jsonObject(with: rootBody) as? [String: Any])
        let rootSequence = try #require((rootAccount["sequence"] as? String).flatMap { Int64($0) })
        let create = Transaction(
            sourceAccount: .ed25519(root.accountID), fee: 100 * 100, sequenceNumber: rootSequence + 1,
            operations: payers.map { StellarBase.Operation(.createAccount(CreateAccountOperation(destination: $0.accountID, startingBalance: 1000 * Amount.stroopsPerUnit))) })
        #expect(try await post(base, create.signed(by: [root], on: Self.network)) == 200)
        // Every payer starts at the sequence number of the ledger that created it.
        let (accountBody, _) = try await URLSession.shared.data(from: URL(string: base + "/accounts/\(payers[0].accountID.strKey)")!)
        let account = try #require(try JSONSerialization.jsonObject(with: accountBody) as? [String: Any])
        let startSequence = try #require((account["sequence"] as? String).flatMap { Int64($0) })

        // Waves of payments, one per payer per wave; SIGKILL is sent as the 250th answer comes,
        // in the middle of a wave, with payments of it on their way.
        let killAt = 250
        let acknowledged = AcknowledgedHashes()
        let killer = Task {
            // The fallback, so the test never waits forever: after 60 s without the 250th answer
            // the kill comes anyway and the count check fails.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await acknowledged.wait(forCount: killAt) }
                group.addTask { try? await Task.sleep(for: .seconds(60)) }
                await group.next()
                group.cancelAll()
            }
            server.signal(SIGKILL)
        }
        var sent = 0
        wavesLoop: for wave in 1...20 {
            let envelopes = payers.enumerated().map { index, payer in
                Transaction(sourceAccount: .ed25519(payer.accountID), fee: 100, sequenceNumber: startSequence + Int64(wave),
                            operations: [StellarBase.Operation(.payment(PaymentOperation(
                                destination: .ed25519(payers[(index + wave) % payers.count].accountID), asset: .native, amount: Int64(wave))))])
                    .signed(by: [payer], on: Self.network)
            }
            sent += envelopes.count
            let statuses = await withTaskGroup(of: (TransactionEnvelope, Int?).self) { group in
                for envelope in envelopes {
                    group.addTask { (envelope, try? await post(base, envelope)) }
                }
                var statuses: [(TransactionEnvelope, Int?)] = []
                for await status in group {
                    statuses.append(status)
                    if status.1 == 200, await acknowledged.add(status.0.hash(on: Self.network)) == killAt { server.signal(SIGKILL) }
                }
                return statuses
            }
            if statuses.contains(where: { $0.1 == nil }) { break wavesLoop }
        }
        _ = await killer.value
        #expect(await server.waitForExit(timeout: 30))
        #expect(server.terminationReason == .uncaughtSignal)
        let answered = await acknowledged.hashes
        #expect(answered.count >= killAt)

        // Restart on the same data: it must come up and serve the committed ledger.
        let clock = ContinuousClock()
        let restartedAt = clock.now
        let restarted = try await Tender.start(serve)
        let restartedURL = try await restarted.waitForURL(timeout: startTimeout)
        let listening = restartedAt.duration(to: clock.now)
        let (body, _) = try await URLSession.shared.data(from: URL(string: restartedURL + "/")!)
        let root_ = try JSONSerialization.jsonObject(with: body) as! [String: Any]
        #expect((root_["history_latest_ledger"] as? Int ?? 0) >= 4)
        // ... and take a payment: a payer's next, at the sequence number the ledger kept for it.
        let (payerBody, _) = try await URLSession.shared.data(from: URL(string: restartedURL + "/accounts/\(payers[0].accountID.strKey)")!)
        let payerAccount = try #require(try JSONSerialization.jsonObject(with: payerBody) as? [String: Any])
        let payerSequence = try #require((payerAccount["sequence"] as? String).flatMap { Int64($0) })
        let afterRestart = Transaction(
            sourceAccount: .ed25519(payers[0].accountID), fee: 100, sequenceNumber: payerSequence + 1,
            operations: [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(payers[1].accountID), asset: .native, amount: 1)))])
            .signed(by: [payers[0]], on: Self.network)
        #expect(try await post(restartedURL, afterRestart) == 200)
        restarted.signal(SIGTERM)
        let restartedExited = await restarted.waitForExit(timeout: 30)
        #expect(restartedExited)
        if restartedExited { #expect(restarted.terminationStatus == 0) }

        let postgres = try database.map { try PostgresDatabase(url: $0, logger: Logger(label: "crash")) }
        defer { postgres?.shutdown() }
        let store: any LedgerStore = if let postgres {
            try await PostgresLedgerStore(postgres)
        } else {
            try SQLiteLedgerStore(path: data + "/ledger.sqlite")
        }
        for hash in answered + [afterRestart.hash(on: Self.network)] {
            #expect(try await store.transaction(hash: hash) != nil, "answered \(hash.hex) as applied but it is not in the ledger")
        }
        let loadedAt = clock.now
        let state = try #require(try await store.loadState())
        #expect(state.verifyAllInvariants() == nil)
        // A payer's sequence number counts the payments it made (the one after the restart among them).
        let paymentsMade = payers.reduce(Int64(0)) { $0 + ((state.account($1.accountID)?.sequenceNumber ?? 0) - startSequence) }
        if grown != nil {
            // The drill's figures, for docs/benchmarks.md.
            let applied = paymentsMade - 1
            print("crash drill: \(answered.count) of \(sent) payments sent answered as applied before SIGKILL (of the other \(sent - answered.count), \(Int(applied) - answered.count) applied, their answers cut by it) and one after the restart, all in the ledger; restarted and listening after \(listening); the state of \(state.accounts.count) accounts loaded and every invariant checked in \(loadedAt.duration(to: clock.now))")
        }
        // Payments move XLM between payers; only fees leave them.
        let payerBalances = payers.reduce(Int64(0)) { $0 + (state.account($1.accountID)?.balance ?? 0) }
        let payerFees = paymentsMade * 100
        #expect(payerBalances == 100 * 1000 * Amount.stroopsPerUnit - payerFees)
    }
}

actor AcknowledgedHashes {
    private(set) var hashes: [Bytes32] = []
    private var waiters: [UUID: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
    var count: Int { hashes.count }

    /// Adds `hash` and returns how many are in.
    @discardableResult
    func add(_ hash: Bytes32) -> Int {
        hashes.append(hash)
        for (id, waiter) in waiters where waiter.count <= hashes.count {
            waiters[id] = nil
            waiter.continuation.resume()
        }
        return hashes.count
    }

    /// Returns once `count` hashes are in, or when the calling task is cancelled.
    func wait(forCount count: Int) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if hashes.count >= count || Task.isCancelled {
                    continuation.resume()
                } else {
                    waiters[id] = (count, continuation)
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: UUID) {
        waiters.removeValue(forKey: id)?.continuation.resume()
    }
}
