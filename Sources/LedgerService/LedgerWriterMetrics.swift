import Metrics
import Ledger

/// The ledger writer's counters and timings through swift-metrics: ledger close (apply) time,
/// store commit time, transactions applied, failed and refused, ledgers closed and the queue's
/// depth. Made with an explicit factory, so each server (and each test) has its own registry;
/// the default is the process's bootstrapped one (none: nothing is recorded).
public struct LedgerWriterMetrics: Sendable {
    private let closeTime: Timer
    private let commitTime: Timer
    private let applied: Counter
    private let failed: Counter
    private let refused: Counter
    private let ledgers: Counter
    private let sequence: Gauge
    private let depth: Gauge

    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        closeTime = Timer(label: "tender_ledger_close_seconds", factory: factory)
        commitTime = Timer(label: "tender_store_commit_seconds", factory: factory)
        applied = Counter(label: "tender_transactions_applied_total", factory: factory)
        failed = Counter(label: "tender_transactions_failed_total", factory: factory)
        refused = Counter(label: "tender_transactions_refused_total", factory: factory)
        ledgers = Counter(label: "tender_ledgers_closed_total", factory: factory)
        sequence = Gauge(label: "tender_ledger_sequence", factory: factory)
        depth = Gauge(label: "tender_writer_queue_depth", factory: factory)
    }

    func queueDepth(_ count: Int) {
        depth.record(count)
    }

    func ledgerClosed(_ ledger: ClosedLedger, applyDuration: Duration, commitDuration: Duration, queueDepth: Int) {
        closeTime.record(duration: applyDuration)
        commitTime.record(duration: commitDuration)
        var appliedCount = 0, failedCount = 0, refusedCount = 0
        for transaction in ledger.transactions {
            switch transaction.application {
            case .applied(let result):
                appliedCount += 1
                if !result.isSuccess { failedCount += 1 }
            case .rejected:
                refusedCount += 1
            }
        }
        applied.increment(by: appliedCount)
        failed.increment(by: failedCount)
        refused.increment(by: refusedCount)
        ledgers.increment()
        sequence.record(Int64(ledger.header.sequence))
        depth.record(queueDepth)
    }
}
