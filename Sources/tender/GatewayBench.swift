import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import WalletKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The load generator for the gateway: card payments created and confirmed in one request
/// (automatic capture, so each is settled on Tender's ledger before it is answered), against
/// `tender serve` or any server with Stripe's API (localstripe, for comparison).
struct GatewayBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Load a Stripe-shaped API with card payments created and confirmed over HTTP, from many connections.",
        discussion: """
            Makes one card payment method (or, with --inline, gives each payment its card as \
            payment_method_data), then sends --payments POST /v1/payment_intents with \
            confirm=true over --connections keep-alive connections, one request in \
            flight on each. Reports payments answered 200 (with the 4242 card: succeeded) per second and the \
            latency percentiles. Works against tender serve (each payment settled on the ledger \
            before its answer) and against localstripe.
            """
    )

    @Option(help: "The server's base URL.") var url = "http://127.0.0.1:8000"
    @Option(help: "A secret key of the merchant (any sk_test_... for localstripe).") var key: String
    @Option(help: "Concurrent connections, each with one request in flight.") var connections = 64
    @Option(help: "Payments to make.") var payments = 20_000
    @Option(help: "A name for the report line.") var label = "server"
    @Flag(help: "Give each payment its card inline (payment_method_data) instead of one payment method made first.") var inline = false

    func run() async throws {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host else {
            throw CommandFailure("--url must be http://HOST:PORT, not \(url)")
        }
        let port = components.port ?? 80
        guard (1...4096).contains(connections), payments >= connections else { throw CommandFailure("need 1 ≤ connections ≤ 4096 and payments ≥ connections") }
        let card = "card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2034&card[cvc]=123"
        var paying: String
        if inline {
            paying = "payment_method_data[type]=card&" + card.replacingOccurrences(of: "card[", with: "payment_method_data[card][")
        } else {
            var request = URLRequest(url: URL(string: url + "/v1/payment_methods")!)
            request.httpMethod = "POST"
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("type=card&\(card)".utf8)
            let (status, body) = try await URLSessionTransport().send(request)
            guard status == 200, let method = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["id"] as? String else {
                throw CommandFailure("creating the payment method answered \(status): \(String(decoding: body, as: UTF8.self).prefix(300))")
            }
            paying = "payment_method=\(method)"
        }

        let group = MultiThreadedEventLoopGroup.singleton
        var work: [[ByteBuffer]] = Array(repeating: [], count: connections)
        for index in 0..<payments {
            work[index % connections].append(RequestStream.post(
                "/v1/payment_intents", host: "\(host):\(port)",
                form: "amount=\(1000 + index % 1000)&currency=eur&\(paying)&confirm=true",
                headers: [("Authorization", "Bearer \(key)")]))
        }
        let run = try await RequestStream.measure(host: host, port: port, work: work, group: group)
        let (elapsed, latencies, statuses, percentile) = (run.elapsedSeconds, run.latenciesMS, run.statuses, run.percentile)
        let confirmed = statuses[200, default: 0]
        let rate = Double(confirmed) / elapsed
        print(String(format: "%@: confirmed %d of %d in %.2f s: %.0f payments per second; latency ms p50 %.1f  p90 %.1f  p99 %.1f  max %.1f",
                     label, confirmed, payments, elapsed, rate, percentile(0.5), percentile(0.9), percentile(0.99), latencies.last ?? 0))
        let failures = statuses.filter { $0.key != 200 }
        if !failures.isEmpty { print("\(label): not confirmed: \(failures.sorted { $0.key < $1.key }.map { "HTTP \($0.key) ×\($0.value)" }.joined(separator: ", "))") }
    }
}
