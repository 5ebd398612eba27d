import ArgumentParser
import Crypto
import Foundation
import Ledger
import LedgerService
import Logging
import StellarBase
import Store

/// Grows a network step by step and measures, at each size, what issue 30 asks to stay flat.
struct ScaleBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Grow a SQLite network to each size and measure start-up, memory, commits and history queries there.",
        discussion: """
            Accounts are added in bulk (ledgers of 10,000 new accounts funded by the root account, \
            every invariant checked), payments by real signed transactions from 1,000 senders to \
            accounts across the network. At each step: the time to open the database and load the \
            ledger state (what `tender serve` does first), resident memory then, the end-to-end \
            commit rate and p99 of signed payments (`bench commit`'s measure), the p99 of an \
            account's newest payments, and the database's size. Prints a table; writes the series \
            as CSV and as an SVG chart of commit rate and memory against accounts.
            """
    )

    @Option(help: "Accounts at each step, ascending (comma-separated).")
    var accounts = "10000,100000"

    @Option(help: "Payments in history at each step, ascending (comma-separated, one per step).")
    var payments = "10000,100000"

    @Option(help: "Payments committed end to end at each step for the commit rate.")
    var transactions = 10_000

    @Option(help: "Directory for the database (deleted afterwards).")
    var directory = NSTemporaryDirectory()

    @Option(help: "Write the series as CSV to this file.")
    var csv: String?

    @Option(help: "Write the chart as SVG to this file.")
    var svg: String?

    static let senders = 1_000
    static let funding = 1_000 * Amount.stroopsPerUnit

    struct Row {
        var accounts: Int
        var payments: Int
        var startSeconds: Double
        var residentBytes: Int
        var commitRate: Double
        var commitP99: Double
        var historyP99: Double
        var databaseBytes: Int
    }

    func run() async throws {
        let accountSteps = try Self.steps(accounts, "--accounts"), paymentSteps = try Self.steps(payments, "--payments")
        guard accountSteps.count == paymentSteps.count else { throw CommandFailure("--accounts and --payments need as many steps") }
        guard accountSteps.first! > Self.senders else { throw CommandFailure("the first step needs more than \(Self.senders) accounts (the senders, and some to pay)") }
        guard transactions > 0 else { throw CommandFailure("--transactions must be positive") }
        let path = directory + "/tender-scale-\(UUID().uuidString).sqlite"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let senders = (0..<Self.senders).map { Self.sender($0) }
        var (state, first) = try LedgerState.genesisLedger(network: .standalone, closeTime: Self.now())
        var store: SQLiteLedgerStore? = try SQLiteLedgerStore(path: path)
        try await store!.commit(first)
        var filledAccounts = 0, filledPayments = 0
        var sequences: [AccountID: Int64] = [:]
        var rng = SystemRandomNumberGenerator()
        var rows: [Row] = []
        print("size step | start s | resident MB | commits/s | commit p99 ms | history p99 ms | database MB")
        for (targetAccounts, targetPayments) in zip(accountSteps, paymentSteps) {
            // Grow: accounts in bulk, then payments.
            while filledAccounts < targetAccounts {
                let batch = min(10_000, targetAccounts - filledAccounts)
                let ids = (filledAccounts..<(filledAccounts + batch)).map { $0 < Self.senders ? senders[$0].accountID : Self.bulkAccount($0) }
                try await store!.commit(try Self.fund(ids, in: &state))
                filledAccounts += batch
            }
            while filledPayments < targetPayments {
                let batch = min(1_000, targetPayments - filledPayments)
                var envelopes: [TransactionEnvelope] = []
                for index in 0..<batch {
                    let sender = senders[(filledPayments + index) % Self.senders]
                    let next = (sequences[sender.accountID] ?? state.account(sender.accountID)!.sequenceNumber) + 1
                    sequences[sender.accountID] = next
                    let to = Self.bulkAccount(Int.random(in: Self.senders..<filledAccounts, using: &rng))
                    envelopes.append(Transaction(
                        sourceAccount: .ed25519(sender.accountID), fee: 100, sequenceNumber: next,
                        operations: [Operation(.payment(PaymentOperation(destination: .ed25519(to), asset: .native, amount: 1)))]
                    ).signed(by: [sender], on: .standalone))
                }
                let closed = try state.closeLedger(PreparedTransaction.prepareAll(envelopes, network: .standalone), closeTime: Self.now())
                guard closed.transactions.allSatisfy({ $0.application.result.code == .success }) else { throw CommandFailure("a history payment failed") }
                try await store!.commit(closed)
                filledPayments += batch
            }
            // What `tender serve` does first, in a new process: open the database and load the state.
            state = LedgerState(header: state.header)
            store = nil
            sequences = [:]
            let (startSeconds, resident) = try Self.loadInAnotherProcess(path)
            let clock = ContinuousClock()
            let reopened = try SQLiteLedgerStore(path: path)
            // Commits end to end on the grown database.
            let writer = try await LedgerWriter(
                store: reopened, configuration: .init(network: .standalone, closeInterval: .zero, batchLimit: 1000),
                logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }), now: { Self.now() })
            let concurrency = 64
            let (latencies, elapsed, _) = try await writer.running {
                try await CommitBench.measure(writer: writer, concurrency: concurrency, transactions: transactions)
            }
            // An account's newest payments, as `/accounts/{id}/payments?order=desc` reads them.
            var queries: [Double] = []
            for _ in 0..<300 {
                let account = Self.bulkAccount(Int.random(in: Self.senders..<filledAccounts, using: &rng))
                let before = clock.now
                _ = try await reopened.operations(PageRequest(limit: 10, descending: true), filter: OperationFilter(account: account, paymentsOnly: true))
                queries.append(CommitBench.milliseconds(clock.now - before))
            }
            queries.sort()
            let row = Row(
                accounts: filledAccounts, payments: filledPayments, startSeconds: startSeconds, residentBytes: resident,
                commitRate: Double(latencies.count) / (CommitBench.milliseconds(elapsed) / 1000),
                commitP99: latencies[min(latencies.count - 1, latencies.count * 99 / 100)],
                historyP99: queries[min(queries.count - 1, queries.count * 99 / 100)],
                databaseBytes: ["", "-wal"].reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: path + $1)[.size] as? Int) ?? 0) })
            rows.append(row)
            print(String(format: "%d accounts, %d payments | %.2f | %.0f | %.0f | %.1f | %.2f | %.0f",
                         row.accounts, row.payments, row.startSeconds, Double(row.residentBytes) / 1_048_576, row.commitRate, row.commitP99,
                         row.historyP99, Double(row.databaseBytes) / 1_048_576))
            // The next step grows the state as the writer left it.
            state = try await reopened.loadState()!
            store = reopened
        }
        print("on \(ProcessInfo.processInfo.activeProcessorCount) cores; start and resident memory: a new process opening the database and loading the state (`tender bench load`)")
        if let csv { try Self.csv(rows).write(toFile: csv, atomically: true, encoding: .utf8) }
        if let svg { try Self.chart(rows).write(toFile: svg, atomically: true, encoding: .utf8) }
    }

    /// Runs `tender bench load` on `path` in a new process: its start time and resident memory.
    static func loadInAnotherProcess(_ path: String) throws -> (seconds: Double, resident: Int) {
        let process = Process()
        // This executable, however it was started (a path, or a name found on PATH).
        guard let executable = Bundle.main.executableURL else { throw CommandFailure("cannot find the tender executable") }
        process.executableURL = executable
        process.arguments = ["bench", "load", "--database", path, "--csv"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        guard process.terminationStatus == 0, fields.count == 2, let seconds = Double(fields[0]), let resident = Int(fields[1]) else {
            throw CommandFailure("tender bench load failed: \(String(decoding: data, as: UTF8.self))")
        }
        return (seconds, resident)
    }

    static func steps(_ text: String, _ option: String) throws -> [Int] {
        let steps = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !steps.isEmpty, steps.count == text.split(separator: ",").count, steps.allSatisfy({ $0 > 0 }), steps == steps.sorted() else {
            throw CommandFailure("\(option) is a comma-separated list of positive, ascending numbers")
        }
        return steps
    }

    static func now() -> UInt64 { UInt64(Date().timeIntervalSince1970) }

    /// A sender's key pair, the same in every run.
    static func sender(_ index: Int) -> KeyPair {
        try! KeyPair(seed: withUnsafeBytes(of: UInt64(index + 1).bigEndian) { Array(repeating: 9, count: 24) + Array($0) })
    }

    /// The account of bulk index `index` (the senders aside): 32 bytes that need no key, as the
    /// benchmark never signs for them.
    static func bulkAccount(_ index: Int) -> AccountID {
        AccountID(publicKey: SHA256.hash(data: withUnsafeBytes(of: UInt64(index).bigEndian) { Array("tender scale".utf8) + Array($0) })
            .withUnsafeBytes { Bytes32($0) })
    }

    /// A ledger that creates `ids`, each with ``funding`` from the root account: the bulk path
    /// for a large genesis, through the ledger's own close (invariants checked).
    static func fund(_ ids: [AccountID], in state: inout LedgerState) throws -> ClosedLedger {
        let root = LedgerState.rootKeyPair(network: .standalone).accountID
        var rootEntry = state.account(root)!
        rootEntry.balance -= Int64(ids.count) * funding
        state.setAccount(rootEntry)
        let sequence = Int64(state.header.sequence + 1) << 32
        for id in ids {
            state.setAccount(AccountEntry(accountID: id, balance: funding, sequenceNumber: sequence, lastModifiedLedger: state.header.sequence + 1))
        }
        return try state.closeLedger([], closeTime: now())
    }

    /// The process's resident memory now (Linux: /proc/self/statm); elsewhere its peak.
    static func residentBytes() -> Int {
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
           let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) {
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
        #else
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss)
        #endif
    }

    static func csv(_ rows: [Row]) -> String {
        "accounts,payments,start_seconds,resident_bytes,commits_per_second,commit_p99_ms,history_p99_ms,database_bytes\n"
            + rows.map { row in
                [String(row.accounts), String(row.payments), String(format: "%.3f", row.startSeconds), String(row.residentBytes),
                 String(format: "%.0f", row.commitRate), String(format: "%.2f", row.commitP99), String(format: "%.3f", row.historyP99),
                 String(row.databaseBytes)].joined(separator: ",")
            }.joined(separator: "\n") + "\n"
    }

    /// Commit rate (left axis) and resident memory (right axis) against accounts (logarithmic).
    static func chart(_ rows: [Row]) -> String {
        let (width, height, left, right, top, bottom) = (640.0, 360.0, 70.0, 70.0, 30.0, 50.0)
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let xs = rows.map { log10(Double(max($0.accounts, 1))) }
        let (xMin, xMax) = (xs.min() ?? 0, max(xs.max() ?? 1, (xs.min() ?? 0) + 1))
        let rateMax = max(rows.map(\.commitRate).max() ?? 1, 1) * 1.1
        let memoryMax = max(rows.map { Double($0.residentBytes) / 1_048_576 }.max() ?? 1, 1) * 1.1
        func x(_ value: Double) -> Double { left + (value - xMin) / (xMax - xMin) * plotWidth }
        func y(_ value: Double, _ top: Double) -> Double { height - bottom - value / top * plotHeight }
        func line(_ values: [Double], _ scale: Double, _ color: String) -> String {
            let points = zip(xs, values).map { String(format: "%.1f,%.1f", x($0), y($1, scale)) }.joined(separator: " ")
            let dots = zip(xs, values).map { String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%@\"/>", x($0), y($1, scale), color) }.joined()
            return "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points)\"/>" + dots
        }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>"
        svg += String(format: "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#333\"/>", left, height - bottom, width - right, height - bottom)
        svg += String(format: "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#1f5fa8\"/>", left, top, left, height - bottom)
        svg += String(format: "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#b5481c\"/>", width - right, top, width - right, height - bottom)
        for fraction in [0.0, 0.5, 1.0] {
            svg += String(format: "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" fill=\"#1f5fa8\">%.0f</text>", left - 6, y(rateMax * fraction, rateMax) + 4, rateMax * fraction)
            svg += String(format: "<text x=\"%.0f\" y=\"%.0f\" fill=\"#b5481c\">%.0f MB</text>", width - right + 6, y(memoryMax * fraction, memoryMax) + 4, memoryMax * fraction)
        }
        for row in rows {
            svg += String(format: "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%@</text>", x(log10(Double(row.accounts))), height - bottom + 18, Self.compact(row.accounts))
        }
        svg += String(format: "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">accounts (logarithmic)</text>", left + plotWidth / 2, height - 10)
        svg += String(format: "<text x=\"%.0f\" y=\"18\" fill=\"#1f5fa8\">commits per second</text>", left)
        svg += String(format: "<text x=\"%.0f\" y=\"18\" text-anchor=\"end\" fill=\"#b5481c\">resident memory</text>", width - right)
        svg += line(rows.map(\.commitRate), rateMax, "#1f5fa8")
        svg += line(rows.map { Double($0.residentBytes) / 1_048_576 }, memoryMax, "#b5481c")
        return svg + "</svg>\n"
    }

    /// 10000 → "10k", 1000000 → "1M".
    static func compact(_ count: Int) -> String {
        count >= 1_000_000 && count % 1_000_000 == 0 ? "\(count / 1_000_000)M" : count >= 1_000 && count % 1_000 == 0 ? "\(count / 1_000)k" : String(count)
    }
}

/// Opens a ledger database and loads its state, as `tender serve` does first.
struct LoadBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Open a SQLite ledger database and load its state: the time taken and the resident memory after."
    )

    @Option(help: "The SQLite ledger database.")
    var database: String

    @Flag(help: "Print only seconds,resident bytes.")
    var csv = false

    func run() async throws {
        guard FileManager.default.fileExists(atPath: database) else { throw CommandFailure("no database at \(database)") }
        let clock = ContinuousClock()
        let started = clock.now
        let store = try SQLiteLedgerStore(path: database)
        guard let state = try await store.loadState() else { throw CommandFailure("the database holds no ledger") }
        let seconds = CommitBench.milliseconds(clock.now - started) / 1000
        let resident = ScaleBench.residentBytes()
        if csv {
            print(String(format: "%.3f,%d", seconds, resident))
        } else {
            print(String(format: "%d accounts, %d trustlines loaded in %.2f s; resident memory %.0f MB", state.accounts.count, state.trustLines.count, seconds, Double(resident) / 1_048_576))
        }
    }
}
