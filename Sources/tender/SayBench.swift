import ArgumentParser
import Foundation
import Intents
import TenderJSON

/// `tender bench say`: how fast the utterance parser reads, on one core.
struct SayBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Parse payments asked for in words on one core: utterances per second and latency percentiles.",
        discussion: """
            Parses a mix of 24 utterances (sends, requests, balances, every amount form, four \
            locales, notes, vocabulary, nonsense) one after another for --seconds, timing each. \
            Target: at least 100,000 utterances per second per core.
            """)

    @Option(help: "Seconds to measure.")
    var seconds: Double = 2

    @Flag(help: "Print the figures as JSON.")
    var json = false

    static let utterances: [(IntentLocale, String)] = [
        (.enUS, "Send $50 to Jane for dinner"), (.enUS, "Pay Jane Doe $12.50 for lunch"), (.enUS, "Send money to Jane"),
        (.enUS, "I want to pay Bob twenty five dollars"), (.enUS, "Pay Jane 20 dollars and 43 cents"), (.enUS, "Send $10k to Jane"),
        (.enUS, "Request $20 from Jane for lunch"), (.enUS, "Ask Jane for $20 for lunch"), (.enUS, "What's my balance"),
        (.enUS, "Send $20 to Bob for tickets to the game"), (.enUS, "Can you give Zoë Núñez twenty-five hundred dollars for the tickets for Friday"),
        (.enUS, "Send $5 to Ben and Jerry for ice cream"), (.enUS, "Send 42 bucks to Jane using Tender"), (.enUS, "hello there"),
        (.enGB, "Pay Jane £12.50"), (.enGB, "Send 50p to Jane"), (.nlNL, "Pay Jan 1.234,56 euros"), (.nlNL, "Send €12,50 to Jan"),
        (.deDE, "Pay Jürgen 12,50 €"), (.deDE, "Send 1.000 euros to Jürgen"), (.enUS, "Send 100 XLM to Jane"),
        (.enUS, "Transfer $1,234.56 to my sister for rent to the landlord"), (.enUS, "Charge Bob 15 dollars for the pizza"), (.enUS, ""),
    ]

    func run() throws {
        guard seconds > 0, seconds <= 600 else { throw CommandFailure("--seconds must be between 0 and 600") }
        let parsers = Dictionary(uniqueKeysWithValues: IntentLocale.allCases.map { ($0, UtteranceParser(locale: $0, vocabulary: ["Ben and Jerry", "Jane Doe"])) })
        let work = Self.utterances.map { (parsers[$0.0]!, $0.1) }
        var latencies: [UInt64] = []
        latencies.reserveCapacity(1 << 22)
        var checksum = 0
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: .milliseconds(Int64(seconds * 1000)))
        var index = 0
        while latencies.count < (1 << 22) {
            let (parser, text) = work[index]
            let before = clock.now
            let parsed = parser.parse(text)
            latencies.append((clock.now - before).nanoseconds)
            checksum &+= parsed.payee?.utf8.count ?? 0
            index = index == work.count - 1 ? 0 : index + 1
            if index == 0, clock.now >= deadline { break }
        }
        let elapsed = (clock.now - start).seconds
        let rate = Double(latencies.count) / elapsed
        latencies.sort()
        func percentile(_ p: Double) -> Double { Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1000 }
        let met = rate >= 100_000
        if json {
            print(JSONValue.object([
                ("utterances", .number(Int64(latencies.count))),
                ("per_second_per_core", .number(Int64(rate))),
                ("latency_us_p50", .string(String(format: "%.2f", percentile(0.50)))),
                ("latency_us_p99", .string(String(format: "%.2f", percentile(0.99)))),
                ("latency_us_max", .string(String(format: "%.2f", Double(latencies.last ?? 0) / 1000))),
                ("target_met", .bool(met)),
                ("checksum", .number(Int64(checksum))),
            ]).rendered())
        } else {
            print(String(format: "parsed %d utterances (%d kinds) in %.2f s: %.0f per second on one core", latencies.count, work.count, elapsed, rate))
            print(String(format: "latency µs: p50 %.2f  p90 %.2f  p99 %.2f  max %.2f", percentile(0.5), percentile(0.9), percentile(0.99), Double(latencies.last ?? 0) / 1000))
            print("target: 100,000 per second per core \(met ? "met" : "NOT met")")
        }
    }
}
