import Foundation
import Metrics
import Synchronization

/// A metrics factory for benchmarks that keeps every duration the ledger writer records, ledger
/// by ledger: its apply (`tender_ledger_close_seconds`) and its store commit
/// (`tender_store_commit_seconds`), so a commit measure can say where its slowest payments waited.
/// Counters and gauges are dropped.
final class LedgerTimings: MetricsFactory, Sendable {
    private let recorded = Mutex<[String: [Int64]]>([:])

    /// The nanoseconds recorded under `label`, in the order recorded.
    func nanoseconds(_ label: String) -> [Int64] { recorded.withLock { $0[label] ?? [] } }

    /// One line on the ledgers' apply and store commit times (p50, p99 and the slowest, in ms).
    func summary() -> String {
        "\(nanoseconds(Self.commit).count) ledgers; apply \(Self.figures(nanoseconds(Self.apply))); store commit \(Self.figures(nanoseconds(Self.commit)))"
    }

    /// Durations in nanoseconds as "p50 x, p99 y, slowest z ms" ("none recorded" when empty).
    static func figures(_ nanoseconds: [Int64]) -> String {
        let sorted = nanoseconds.sorted()
        guard !sorted.isEmpty else { return "none recorded" }
        func ms(_ value: Int64) -> String { String(format: "%.1f", Double(value) / 1e6) }
        return "p50 \(ms(sorted[sorted.count / 2])), p99 \(ms(sorted[min(sorted.count - 1, sorted.count * 99 / 100)])), slowest \(ms(sorted.last!)) ms"
    }

    static let apply = "tender_ledger_close_seconds"
    static let commit = "tender_store_commit_seconds"

    private final class Durations: TimerHandler, Sendable {
        let label: String
        let timings: LedgerTimings
        init(label: String, timings: LedgerTimings) { (self.label, self.timings) = (label, timings) }
        func recordNanoseconds(_ duration: Int64) { timings.recorded.withLock { $0[label, default: []].append(duration) } }
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { Durations(label: label, timings: self) }
    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { NOOPMetricsHandler.instance }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler { NOOPMetricsHandler.instance }
    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { NOOPMetricsHandler.instance }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { NOOPMetricsHandler.instance }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyMeter(_ handler: any MeterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}
