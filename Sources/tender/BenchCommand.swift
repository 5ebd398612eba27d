import TenderJSON
import ArgumentParser
import Foundation
import StellarBase
import Crypto

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure Tender's throughput and latency.",
        discussion: "Build with `-c release` for meaningful figures: `swift run -c release tender bench envelope`.",
        subcommands: [EnvelopeBench.self, LedgerBench.self, CommitBench.self, SubmitBench.self, MarketBench.self, GatewayBench.self, SayBench.self, ScaleBench.self, LoadBench.self, HistoryBench.self, DiskBench.self]
    )
}

struct EnvelopeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "envelope",
        abstract: "Decode, hash and verify a signed single-payment envelope on one core.",
        discussion: """
            Reports envelopes per second per core for the whole pipeline and for each step, the \
            latency percentiles of one envelope, and whether decoding and hashing together cost \
            less than 10% of signature verification (the target).
            """
    )

    @Option(help: "Seconds to spend on each measurement.")
    var seconds: Double = 2

    @Flag(help: "Print the figures as JSON.")
    var json = false

    func run() throws {
        guard seconds > 0, seconds <= 600 else { throw CommandFailure("--seconds must be between 0 and 600") }
        let network = Network.standalone
        let sender = try KeyPair(seed: Array(repeating: 1, count: 32))
        let receiver = try KeyPair(seed: Array(repeating: 2, count: 32))
        var builder = TransactionBuilder(source: sender.accountID, currentSequenceNumber: 4_294_967_296)
        builder.memo = try .text("bench")
        builder.setTimeBounds(minTime: 0, maxTime: 2_000_000_000)
        builder.add(.payment(PaymentOperation(destination: .ed25519(receiver.accountID), asset: .native, amount: 10_000_000)))
        let bytes = try builder.build().signed(by: [sender], on: network).xdrBytes

        // Each step alone, as throughput over a fixed time.
        let decodeRate = measureRate(seconds) { _ = try! TransactionEnvelope(xdrBytes: bytes) }
        let envelope = try TransactionEnvelope(xdrBytes: bytes)
        let hashRate = measureRate(seconds) { _ = envelope.hash(on: network) }
        let hash = envelope.hash(on: network).bytes
        let signature = envelope.signatures[0]
        let verifyRate = measureRate(seconds) {
            let signer = KeyPair(accountID: envelope.transaction.sourceAccount.accountID)
            precondition(signer.verify(signature.signature, for: hash))
        }
        // The two ways a signature is checked: swift-crypto's for a key seen once, and the table of
        // a key seen before (the path above, once the first calls made the table), and making a table.
        let sourceKey = envelope.transaction.sourceAccount.accountID.publicKey
        let firstSightRate = measureRate(seconds) {
            let key = try! Curve25519.Signing.PublicKey(rawRepresentation: sourceKey.bytes)
            precondition(key.isValidSignature(signature.signature, for: hash))
        }
        let tableRate = measureRate(seconds / 4) { precondition(Ed25519Verifier.makeTable(for: sourceKey)) }

        // The whole pipeline, one envelope at a time, with its latency.
        var latencies: [UInt64] = []
        latencies.reserveCapacity(1 << 20)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        let start = clock.now
        while clock.now < deadline, latencies.count < (1 << 22) {
            let before = clock.now
            let decoded = try! TransactionEnvelope(xdrBytes: bytes)
            let txHash = decoded.hash(on: network)
            let signer = KeyPair(accountID: decoded.transaction.sourceAccount.accountID)
            precondition(decoded.isSignature(decoded.signatures[0], validFor: signer, on: network) || signer.verify(decoded.signatures[0].signature, for: txHash.bytes))
            latencies.append((clock.now - before).nanoseconds)
        }
        let pipelineRate = Double(latencies.count) / (clock.now - start).seconds
        latencies.sort()
        func percentile(_ p: Double) -> Double { Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1000 }

        let decodeAndHashShare = (1 / decodeRate + 1 / hashRate) / (1 / verifyRate)
        let meetsTarget = decodeAndHashShare < 0.10
        if json {
            print(JSONValue.object([
                ("envelope_bytes", .number(Int64(bytes.count))),
                ("pipeline_per_second_per_core", .number(Int64(pipelineRate))),
                ("decode_per_second", .number(Int64(decodeRate))),
                ("hash_per_second", .number(Int64(hashRate))),
                ("verify_per_second", .number(Int64(verifyRate))),
                ("verify_first_sight_per_second", .number(Int64(firstSightRate))),
                ("table_made_per_second", .number(Int64(tableRate))),
                ("latency_us_p50", .string(String(format: "%.2f", percentile(0.50)))),
                ("latency_us_p99", .string(String(format: "%.2f", percentile(0.99)))),
                ("latency_us_p999", .string(String(format: "%.2f", percentile(0.999)))),
                ("decode_and_hash_share_of_verify", .string(String(format: "%.4f", decodeAndHashShare))),
                ("meets_target", .bool(meetsTarget)),
            ]).rendered())
        } else {
            print("envelope: signed single payment, \(bytes.count) bytes, \(Int(seconds)) s per measurement, one core")
            print("pipeline (decode + hash + verify): \(Int(pipelineRate)) envelopes/s per core")
            print("  latency µs: p50 \(format(percentile(0.50)))  p99 \(format(percentile(0.99)))  p99.9 \(format(percentile(0.999)))")
            print("decode:  \(Int(decodeRate))/s  (\(format(1e6 / decodeRate)) µs each)")
            print("hash:    \(Int(hashRate))/s  (\(format(1e6 / hashRate)) µs each)")
            print("verify:  \(Int(verifyRate))/s  (\(format(1e6 / verifyRate)) µs each; a key seen before, from its table)")
            print("  first sight (swift-crypto): \(Int(firstSightRate))/s  (\(format(1e6 / firstSightRate)) µs each)")
            print("  a key's table made: \(Int(tableRate))/s  (\(format(1e6 / tableRate)) µs each)")
            print("decode + hash = \(format(decodeAndHashShare * 100))% of verify; target < 10%: \(meetsTarget ? "met" : "NOT met")")
        }
    }

    private func format(_ value: Double) -> String { String(format: "%.2f", value) }

    /// Calls `body` in batches until `seconds` pass; returns calls per second.
    private func measureRate(_ seconds: Double, _ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: .milliseconds(Int64(seconds * 1000)))
        var count = 0
        while clock.now < deadline {
            for _ in 0..<256 { body() }
            count += 256
        }
        return Double(count) / (clock.now - start).seconds
    }
}

extension Duration {
    /// Whole nanoseconds, for latency figures.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    /// Seconds with their fraction, for rates.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
