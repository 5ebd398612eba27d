import ArgumentParser
import Foundation
import Ledger
import NIOCore
import NIOHTTP1
import NIOPosix
import StellarBase

/// The load generator for `POST /transactions` against a running `tender serve`.
struct SubmitBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Load a running `tender serve` with pre-signed payments over HTTP, from many connections.",
        discussion: """
            Creates --accounts new accounts (the root account pays, so the server must be a local \
            network), signs --transactions single payments between them before the clock starts, \
            then sends them with POST /transactions over --connections keep-alive connections, one \
            request in flight on each, every account's payments in sequence order on one connection. \
            Reports applied transactions per second end to end and the latency percentiles of the \
            answers. Run the server with --close-interval 0 (group commit) for the issue's target.
            """
    )

    @Option(help: "The server's base URL.")
    var url = "http://127.0.0.1:8000"

    @Option(help: "Concurrent connections, each with one request in flight.")
    var connections = 256

    @Option(help: "Accounts that send and receive the payments (at least --connections).")
    var accounts = 1024

    @Option(help: "Payments to send.")
    var transactions = 30_000

    func run() async throws {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host else {
            throw CommandFailure("--url must be http://HOST:PORT, not \(url)")
        }
        let port = components.port ?? 80
        guard connections >= 1, connections <= 4096, accounts >= connections, transactions >= accounts else {
            throw CommandFailure("need 1 ≤ connections ≤ 4096, accounts ≥ connections and transactions ≥ accounts")
        }
        // One event loop thread: the load generator shares this machine's cores with the server.
        let group = MultiThreadedEventLoopGroup.singleton
        let setup = try await LoadConnection.connect(host: host, port: port, group: group)

        // The network and its root account.
        let root = try await setup.send(.GET, "/")
        guard root.status == 200, let passphrase = Self.field(root.body, "network_passphrase") else { throw CommandFailure("GET / answered \(root.status)") }
        let network = Network(passphrase: passphrase)
        let rootKey = LedgerState.rootKeyPair(network: network)
        guard let rootSequence = try await Self.sequence(of: rootKey.accountID, setup) else { throw CommandFailure("the root account is missing: not a local network?") }

        // New accounts, 100 per transaction.
        var generator = SystemRandomNumberGenerator()
        let keys = try (0..<accounts).map { _ in try KeyPair(seed: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        var sequence = rootSequence
        var startSequences: [Int64] = []
        for chunk in stride(from: 0, to: accounts, by: 100) {
            sequence += 1
            let batch = keys[chunk..<min(chunk + 100, accounts)]
            let operations = batch.map { StellarBase.Operation(.createAccount(CreateAccountOperation(destination: $0.accountID, startingBalance: 1_000 * Amount.stroopsPerUnit))) }
            let tx = Transaction(sourceAccount: .ed25519(rootKey.accountID), fee: UInt32(100 * operations.count), sequenceNumber: sequence, operations: operations)
            let answer = try await setup.send(.POST, "/transactions", form: Self.form(tx.signed(by: [rootKey], on: network)))
            guard answer.status == 200, let ledger = Self.field(answer.body, "ledger").flatMap(Int64.init) ?? Self.number(answer.body, "ledger") else {
                throw CommandFailure("creating the accounts failed: \(answer.status) \(answer.body.prefix(300))")
            }
            startSequences += Array(repeating: ledger << 32, count: batch.count)
        }
        await setup.close()

        // Every payment signed before the clock starts; account i pays account i+1.
        let perAccount = transactions / accounts
        var work: [[String]] = Array(repeating: [], count: connections)
        for round in 0..<perAccount {
            for (index, key) in keys.enumerated() {
                let tx = Transaction(
                    sourceAccount: .ed25519(key.accountID), fee: 100, sequenceNumber: startSequences[index] + Int64(round) + 1,
                    operations: [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(keys[(index + 1) % accounts].accountID), asset: .native, amount: 1)))])
                work[index % connections].append(Self.form(tx.signed(by: [key], on: network)))
            }
        }
        let total = work.reduce(0) { $0 + $1.count }
        print("\(accounts) accounts created; \(total) payments signed; sending over \(connections) connections to \(url)")

        let run = try await RequestStream.measure(
            host: host, port: port, work: work.map { forms in forms.map { RequestStream.post("/transactions", host: "\(host):\(port)", form: $0) } }, group: group)
        let (elapsed, latencies, statuses, percentile) = (run.elapsedSeconds, run.latenciesMS, run.statuses, run.percentile)
        // 200 is an applied, successful transaction; anything else is not.
        let applied = statuses[200, default: 0]
        let failures = statuses.filter { $0.key != 200 }.reduce(into: [String: Int]()) { $0["HTTP \($1.key)"] = $1.value }
        let rate = Double(applied) / elapsed
        print(String(format: "applied %d of %d in %.2f s: %.0f transactions per second", applied, total, elapsed, rate))
        print(String(format: "latency ms: p50 %.1f  p90 %.1f  p99 %.1f  max %.1f", percentile(0.5), percentile(0.9), percentile(0.99), latencies.last ?? 0))
        if !failures.isEmpty { print("not applied: \(failures.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))") }
        print("targets: 3,000 per second \(rate >= 3000 ? "met" : "NOT met"); p99 under 100 ms \(percentile(0.99) < 100 ? "met" : "NOT met")")
    }

    static func form(_ envelope: TransactionEnvelope) -> String {
        "tx=" + envelope.xdrBase64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    static func sequence(of account: AccountID, _ connection: LoadConnection) async throws -> Int64? {
        let answer = try await connection.send(.GET, "/accounts/\(account.strKey)")
        guard answer.status == 200 else { return nil }
        return field(answer.body, "sequence").flatMap(Int64.init)
    }

    /// A string field of a JSON body.
    static func field(_ body: String, _ name: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        if let value = object[name] as? String { return value }
        if let codes = (object["extras"] as? [String: Any])?["result_codes"] as? [String: Any] { return codes[name] as? String }
        return nil
    }

    static func number(_ body: String, _ name: String) -> Int64? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        return (object[name] as? NSNumber)?.int64Value
    }
}
