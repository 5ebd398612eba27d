import ArgumentParser
import Foundation
import Ledger
import LedgerService
import Logging
import Metrics
import PostgresStore
import StellarBase
import Store

struct CommitBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commit",
        abstract: "Submit signed payments end to end: verify, apply, and commit durably to SQLite (or PostgreSQL).",
        discussion: """
            Many concurrent submitters hand signed single payments to the ledger writer, which \
            verifies signatures on the submitters' threads, applies in group-commit mode, and \
            answers each payment only after its ledger is committed (WAL, synchronous=FULL). \
            Reports throughput and the p50/p99 latency from submission to commit. No HTTP.
            """
    )

    @Option(help: "Payments to submit.")
    var transactions = 20_000

    /// By Little's law, submitters in flight = throughput × latency: 64 submitters at 5,000 per
    /// second is about 13 ms each, well inside the 50 ms p99 target; 256 at the same rate
    /// cannot average under 51 ms.
    @Option(help: "Concurrent submitters, each with one payment in flight (by Little's law, 256 at 5,000/s cannot average under 51 ms).")
    var concurrency = 64

    @Option(help: "Directory for the benchmark database (deleted afterwards).")
    var directory = NSTemporaryDirectory()

    @Option(help: "An empty PostgreSQL database to commit to instead of a SQLite file (postgres://user@host:port/database).")
    var database: String?

    func run() async throws {
        let path = directory + "/tender-bench-\(UUID().uuidString).sqlite"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let store: any LedgerStore & LedgerReader
        var postgres: PostgresStore.PostgresDatabase?
        defer { postgres?.shutdown() }
        if let database {
            let opened = try PostgresStore.PostgresDatabase(url: database, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
            postgres = opened
            let ledgerStore = try await PostgresLedgerStore(opened)
            guard try await ledgerStore.latestLedgerSequence() == nil else { throw CommandFailure("the database already holds a ledger; give an empty one") }
            store = ledgerStore
        } else {
            store = try SQLiteLedgerStore(path: path, walRestartFrames: try SQLiteWAL.pages())
        }
        let timings = LedgerTimings()
        let writer = try await LedgerWriter(
            store: store, configuration: .init(network: .standalone, closeInterval: .zero, batchLimit: 1000),
            logger: Logger(label: "bench"), metrics: LedgerWriterMetrics(factory: timings), now: { UInt64(Date().timeIntervalSince1970) })
        let measured = try await writer.running {
            try await Self.measure(writer: writer, concurrency: concurrency, transactions: transactions)
        }
        let (latencies, ledgers) = (measured.latencies, measured.ledgers)
        let seconds = Self.milliseconds(measured.elapsed) / 1000
        let rate = Double(latencies.count) / seconds
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        print("end to end on \(database == nil ? "SQLite" : "PostgreSQL"), group commit, \(concurrency) submitters, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print(String(format: "%d payments in %.2f s: %.0f per second, in %d ledgers (%.0f per ledger)", latencies.count, seconds, rate, ledgers, Double(latencies.count) / Double(max(ledgers, 1))))
        print(String(format: "submission to commit: p50 %.1f ms, p99 %.1f ms, max %.1f ms", percentile(0.5), percentile(0.99), latencies.last ?? 0))
        print("the slowest 1% by the tenth of the run they were submitted in: " + measured.slowestByTenth.map(String.init).joined(separator: " "))
        print("ledgers: " + timings.summary() + measured.writtenNote)
        print("targets: 5,000 per second \(rate >= 5000 ? "met" : "NOT met"); p99 under 50 ms \(percentile(0.99) < 50 ? "met" : "NOT met")")
    }

    /// What ``measure(writer:concurrency:transactions:)`` measured.
    struct Measured {
        /// Each payment's time from submission to commit, in milliseconds, sorted.
        var latencies: [Double]
        var elapsed: Duration
        var ledgers: UInt32
        /// How many of the slowest 1% of payments were submitted in each tenth of the run: at
        /// the start (a first touch of what is cold), evenly (the machine), or in bursts.
        var slowestByTenth: [Int]
        /// The bytes this process had written to storage from the first submission to the last
        /// commit (WAL frames, and the checkpoints' copies that ran meanwhile); nil where it
        /// cannot be told.
        var bytesWritten: Int?
        /// The process's minor page faults over the same run (a first touch of a mapped page:
        /// the database file's map, fresh heap).
        var minorFaults: Int
        /// Each sync over the same run: the WAL's (one a ledger's commit) and the database
        /// file's (the checkpoints'); none on PostgreSQL.
        var syncs: TenderVFS.SyncDurations
        /// The writer's page-cache truncations over the same run (one a commit) and how many
        /// ``TenderPageCache`` skipped.
        var truncations: (asked: Int, skipped: Int)

        /// `bytesWritten` a payment and the syncs' times, as clauses for a summary line (""
        /// when not known).
        var writtenNote: String {
            var note = ""
            if let bytesWritten, !latencies.isEmpty {
                note += String(format: "; %.1f KiB written and %.1f minor page faults a payment", Double(bytesWritten) / 1024 / Double(latencies.count),
                               Double(minorFaults) / Double(latencies.count))
            }
            if !syncs.wal.isEmpty {
                note += "; \(syncs.wal.count) WAL syncs \(LedgerTimings.figures(syncs.wal)); \(syncs.database.count) checkpoint syncs"
                    + (syncs.database.isEmpty ? "" : " " + LedgerTimings.figures(syncs.database))
            }
            if truncations.asked > 0 {
                note += TenderPageCache.isInstalled
                    ? "; \(truncations.skipped) of \(truncations.asked) page-cache truncations skipped"
                    : "; SQLite's own page cache (TenderPageCache not installed)"
            }
            return note
        }
    }

    /// The minor page faults this process has taken so far.
    static func minorFaults() -> Int {
        var usage = rusage()
        #if canImport(Glibc)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        return getrusage(who, &usage) == 0 ? usage.ru_minflt : 0
    }

    /// The bytes this process has had written to storage so far (`/proc/self/io`'s
    /// `write_bytes`); nil where there is no such file.
    static func bytesWritten() -> Int? {
        guard let io = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
        return io.split(separator: "\n").first { $0.hasPrefix("write_bytes:") }
            .flatMap { Int($0.dropFirst("write_bytes:".count).trimmingCharacters(in: .whitespaces)) }
    }

    /// Creates the accounts, signs their payments, then submits them from `concurrency` tasks.
    static func measure(writer: LedgerWriter, concurrency: Int, transactions: Int) async throws -> Measured {
        let accounts = max(concurrency, 1)
        let root = LedgerState.rootKeyPair(network: .standalone)
        let keys = (0..<accounts).map { index in
            try! KeyPair(seed: withUnsafeBytes(of: UInt64(index + 1).bigEndian) { Array(repeating: 5, count: 24) + Array($0) })
        }
        var rootSequence = await writer.read { $0.account(LedgerState.rootKeyPair(network: .standalone).accountID)!.sequenceNumber }
        for chunk in stride(from: 0, to: accounts, by: 100) {
            rootSequence += 1
            let ops = keys[chunk..<min(chunk + 100, accounts)].map {
                StellarBase.Operation(.createAccount(CreateAccountOperation(destination: $0.accountID, startingBalance: 10_000 * Amount.stroopsPerUnit)))
            }
            let tx = Transaction(sourceAccount: .ed25519(root.accountID), fee: UInt32(100 * ops.count), sequenceNumber: rootSequence, operations: ops)
            _ = try await writer.submit(tx.signed(by: [root], on: .standalone))
        }
        // Sign everything first: signing is the client's cost, not the server's.
        let perAccount = (transactions + accounts - 1) / accounts
        var streams: [[TransactionEnvelope]] = []
        for (index, key) in keys.enumerated() {
            let start = await writer.read { $0.account(key.accountID)!.sequenceNumber }
            streams.append((1...perAccount).map { step in
                Transaction(sourceAccount: .ed25519(key.accountID), fee: 100, sequenceNumber: start + Int64(step),
                            operations: [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(keys[(index + step) % accounts].accountID), asset: .native, amount: 1)))])
                    .signed(by: [key], on: .standalone)
            })
        }
        let clock = ContinuousClock()
        let startLedger = await writer.header.sequence
        let writtenBefore = Self.bytesWritten()
        let faultsBefore = Self.minorFaults()
        TenderVFS.startRecordingSyncs()
        let truncationsBefore = TenderPageCache.truncations
        let started = clock.now
        // Each payment's submission, as milliseconds into the run, and its latency.
        let timed: [(at: Double, latency: Double)]
        do {
            timed = try await submitted(streams, to: writer, clock: clock, started: started)
        } catch {
            _ = TenderVFS.stopRecordingSyncs()
            throw error
        }
        let elapsed = clock.now - started
        let syncs = TenderVFS.stopRecordingSyncs()
        let truncationsAfter = TenderPageCache.truncations
        let latencies = timed.map(\.latency).sorted()
        let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        var slowest = Array(repeating: 0, count: 10)
        let length = max(Self.milliseconds(elapsed), 1)
        for payment in timed where payment.latency >= p99 { slowest[min(9, Int(payment.at / length * 10))] += 1 }
        let written = writtenBefore.flatMap { before in Self.bytesWritten().map { $0 - before } }
        return Measured(latencies: latencies, elapsed: elapsed, ledgers: await writer.header.sequence - startLedger, slowestByTenth: slowest,
                        bytesWritten: written, minorFaults: Self.minorFaults() - faultsBefore, syncs: syncs,
                        truncations: (truncationsAfter.asked - truncationsBefore.asked, truncationsAfter.skipped - truncationsBefore.skipped))
    }

    /// Submits each stream's payments in order, the streams at once; each payment's submission
    /// (milliseconds after `started`) and its latency.
    private static func submitted(_ streams: [[TransactionEnvelope]], to writer: LedgerWriter, clock: ContinuousClock,
                                  started: ContinuousClock.Instant) async throws -> [(at: Double, latency: Double)] {
        try await withThrowingTaskGroup(of: [(at: Double, latency: Double)].self) { group in
            for stream in streams {
                group.addTask {
                    var timed: [(at: Double, latency: Double)] = []
                    for envelope in stream {
                        let before = clock.now
                        let result = try await writer.submit(envelope)
                        guard result.result.code == .success else { throw CommandFailure("a payment failed: \(result.result.code.name)") }
                        timed.append((Self.milliseconds(before - started), Self.milliseconds(clock.now - before)))
                    }
                    return timed
                }
            }
            return try await group.reduce(into: []) { $0.append(contentsOf: $1) }
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
