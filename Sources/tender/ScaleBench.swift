import ArgumentParser
import Crypto
import Foundation
import GRDB
import Ledger
import LedgerService
import Logging
import PostgresStore
import NIOCore
import NIOHTTP1
import NIOPosix
import StellarBase
import Store
import Synchronization

/// Grows a network step by step and measures, at each size, what issue 30 asks to stay flat.
struct ScaleBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Grow a network (SQLite, or PostgreSQL with --database) to each size and measure start-up, memory, commits, HTTP and history queries there.",
        discussion: """
            Accounts are added in bulk (ledgers of 10,000 new accounts funded by the root account, \
            every second one with a trustline, every invariant checked), payments by real signed \
            transactions from 1,000 senders to accounts across the network. At each step: the time \
            to open the database and load the ledger state and the memory it then holds (a new \
            process, `tender bench load`), the end-to-end commit rate and p99 of signed payments \
            (`bench commit`'s measure), then `tender serve` started on the database (time until it \
            listens) with POST /transactions and GET /accounts/{id} over HTTP against it (and the \
            CPU time a GET took in the server's process and in this one, the client: both share \
            the machine's cores) and its memory after, the p99 of an account's newest payments, and the database's size; on \
            SQLite, the share of the ledger's file in the kernel's page cache as the commits and \
            the POSTs begin (a leaf not there is read from disk on the writer's thread). Prints \
            a table; writes the series as CSV and as an SVG chart of the rates and memory against \
            accounts.
            """
    )

    @Option(help: "Accounts at each step, ascending (comma-separated).")
    var accounts = "10000,100000"

    @Option(help: "Payments in history at each step, ascending (comma-separated, one per step).")
    var payments = "10000,100000"

    @Option(help: "Payments committed end to end at each step for the commit rate.")
    var transactions = 10_000

    @Option(help: "Requests of each kind over HTTP at each step (POST /transactions, GET /accounts/{id}); 0 skips the server.")
    var requests = 20_000

    @Option(help: "Rounds of --requests GET /accounts/{id} reads at each step; the rate is their median (a round lasts under a second, and single rounds on one network with one build differed by up to half).")
    var readRounds = 5

    @Option(help: "Rounds of --requests POST /transactions at each step; the rate is their median (rounds on one server at ten million accounts differed by up to 11%, and the first was not always the slowest).")
    var postRounds = 3

    @Option(help: "Card payments in the gateway's store at each step, ascending (comma-separated, one per step), made through the server (each settled on the ledger) once the step's accounts and payments are grown, before its warm-up; with it, the card payment rate is measured at each step (and with --beside on each new-network copy's empty gateway store, the step's rate printed as a share of it).")
    var cards: String?

    @Option(help: "An empty PostgreSQL database to grow instead of a SQLite file (postgres://user@host:port/database); the server then runs on it.")
    var database: String?

    @Option(help: "Directory for the network's data directory.")
    var directory = NSTemporaryDirectory()

    @Option(help: "Go on from a data directory an earlier run kept (--keep) instead of a new network: its accounts, payments and (with --cards) its gateway store's card payments count toward the steps.")
    var resume: String?

    @Flag(help: "Keep the grown data directory (a `tender serve --data` directory) instead of deleting it.")
    var keep = false

    @Option(help: "Also measure a new network of this many accounts (and as many payments) just before and just after each step, each time a fresh copy of it, and give the step's rates and p99s against theirs: the machine's speed drifts over a long series. With --database, the new network and its copies are databases of their own in the same cluster.")
    var beside: Int?

    @Option(help: "Measure each step this many times, each measure followed by another fresh copy of the new network beside it (with --beside): each measure's rates are taken as shares of the two new-network measures around it, and the step's shares are the medians of those, as are its figures in the table and the CSV (one measure's shares moved by up to a third from one to the next on this machine).")
    var repeats = 1

    @Option(help: "Payments committed to each step's network (counted in its history) after it reaches the step and before it is measured: one number for every step, or a comma-separated list with one for each step (say 0,0,0,1000000 to warm up the last step only). On PostgreSQL a page's first change after a checkpoint writes the whole page to the WAL, and at ten million accounts nearly every page a payment changes is a first change for hundreds of thousands of payments after one: with a long checkpoint interval, a warm-up puts the measures where a running network spends most of its time. On PostgreSQL it begins with a CHECKPOINT, and it and each measure print the WAL they wrote and the checkpoints they met. (Either way the copies of the new network beside a step are dropped after the step, not after each measure: `DROP DATABASE` forces a checkpoint.)")
    var warmUp = "0"

    @Option(help: "Write the series as CSV to this file.")
    var csv: String?

    @Option(help: "Write the chart as SVG to this file.")
    var svg: String?

    @Option(help: "Draw --svg from a series this command wrote as CSV (rows of several runs put together, say) instead of running one.")
    var replot: String?

    static let senders = 1_000
    static let funding = 1_000 * Amount.stroopsPerUnit
    /// The asset every second bulk account trusts, issued by the root account.
    static let asset = try! Asset(code: "SCALE", issuer: LedgerState.rootKeyPair(network: .standalone).accountID)

    struct Row {
        var accounts = 0
        var trustLines = 0
        var payments = 0
        var load = LoadFigures(seconds: 0, residentBytes: 0, accountBytes: 0, trustLineBytes: 0)
        var commitRate = 0.0
        var commitP99 = 0.0
        var serveSeconds = 0.0
        var serveResidentBytes = 0
        var submitRate = 0.0
        var submitP99 = 0.0
        var cards = 0
        var cardRate = 0.0
        var cardP99 = 0.0
        var readRate = 0.0
        var readP99 = 0.0
        /// Each round's GET rate, in the order measured (the row's rate is their median).
        var readRoundRates: [Double] = []
        /// Each round's POST rate, in the order measured (the row's rate is their median).
        var submitRoundRates: [Double] = []
        /// CPU time a GET took over all the rounds, in microseconds: the server's process and
        /// this one's (the client; both share the machine's cores). Nil where it cannot be told.
        var readCPU: (server: Double, client: Double)?
        /// CPU time a POST /transactions took, in microseconds, the same way (the client's
        /// excludes signing, done before the clock starts).
        var submitCPU: (server: Double, client: Double)?
        /// On PostgreSQL on this machine, CPU time a POST took in the cluster's processes (its
        /// backends, writers and autovacuum), in microseconds: work the server's own figure
        /// leaves out. Nil on SQLite or where it cannot be told.
        var submitDatabaseCPU: Double?
        var historyP99 = 0.0
        /// On PostgreSQL, the checkpoints started, the buffers checkpoints wrote and the WAL
        /// written from the measure's start to its end (printed, not in the CSV); nil on SQLite.
        var checkpointsDuring: Checkpoints?
        /// The payments an account's history query found, on average (printed, not in the CSV).
        var historyFound = 0.0
        /// How many of the history queries at or over their p99 were asked in each tenth of them
        /// (printed, not in the CSV; empty for a row read back from a CSV or a median's row).
        var historySlowestByTenth: [Int] = []
        /// The disk's p50 and p99 (ms) of 8 KiB reads past the page cache just before and just
        /// after the history queries (`tender bench disk` over the database's files; printed, not
        /// in the CSV; nil where the files could not be read so, and for a median's row).
        var historyDisk: (before: (p50: Double, p99: Double), after: (p50: Double, p99: Double))?
        var databaseBytes = 0
        /// The share of the ledger's SQLite file in the kernel's page cache as the commits and
        /// the POSTs start (nil on PostgreSQL).
        var cachedAtCommits: Double?
        var cachedAtPosts: Double?
        /// A new network's figures measured beside this step (`--beside`).
        var beside: Beside?
        /// Where the commit measure's slowest payments fell and its ledgers' times (printed, not in the CSV).
        var commitNote = ""
    }

    /// The mean of a new network's rates and p99s measured just before and just after a step.
    struct Beside {
        var commitRate, commitP99, submitRate, submitP99, readRate, readP99, historyP99: Double
        /// Card payments on the new network's empty gateway store (`--cards`); 0 without.
        var cardRate = 0.0, cardP99 = 0.0
    }

    /// The new network measured beside each step, copied before each measure, and what it was
    /// grown to: a SQLite ledger file under `root`, or a database of its own in the step's
    /// PostgreSQL cluster (the copies' data directories are under `root` either way).
    struct BesideNetwork {
        let root: String
        /// On PostgreSQL: the step's database (where copies are made from) and the new network's.
        let postgres: (cluster: String, name: PostgresStore.PostgresDatabase.DatabaseName)?
        let accounts, trustLines, payments: Int

        /// Drops its database (on PostgreSQL) and deletes its directory, as a copy's are.
        func remove() async {
            await BesideCopy(directory: root, database: postgres).remove()
        }
    }

    func run() async throws {
        if let replot {
            guard let svg else { throw CommandFailure("--replot needs --svg") }
            try Self.chart(try Self.rows(csv: String(contentsOfFile: replot, encoding: .utf8))).write(toFile: svg, atomically: true, encoding: .utf8)
            return
        }
        let accountSteps = try Self.steps(accounts, "--accounts"), paymentSteps = try Self.steps(payments, "--payments")
        guard accountSteps.count == paymentSteps.count else { throw CommandFailure("--accounts and --payments need as many steps") }
        // Two bulk accounts at least: one the history queries read, one the POSTs pay.
        guard accountSteps.first! > Self.senders + 1 else {
            throw CommandFailure("the first step needs more than \(Self.senders + 1) accounts (the senders, one to query and one to pay)")
        }
        guard transactions > 0 else { throw CommandFailure("--transactions must be positive") }
        guard requests >= 0 else { throw CommandFailure("--requests must not be negative") }
        guard readRounds > 0 else { throw CommandFailure("--read-rounds must be positive") }
        guard postRounds > 0 else { throw CommandFailure("--post-rounds must be positive") }
        guard repeats > 0 else { throw CommandFailure("--repeats must be positive") }
        let warmUps = try Self.warmUps(warmUp, steps: accountSteps.count)
        let cardSteps = try cards.map { try Self.steps($0, "--cards") }
        guard cardSteps == nil || (cardSteps!.count == accountSteps.count && requests > 0) else {
            throw CommandFailure("--cards needs one step per --accounts step, and --requests above 0")
        }
        if let beside {
            guard beside > Self.senders + 1 else { throw CommandFailure("--beside needs more than \(Self.senders + 1) accounts (the senders, one to query and one to pay)") }
        }
        var filledCards = 0
        var merchantKey: String?
        let dataDirectory = resume ?? directory + "/tender-scale-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let path = dataDirectory + "/ledger.sqlite"
        defer { if !keep && resume == nil { try? FileManager.default.removeItem(atPath: dataDirectory) } }
        let senders = (0..<Self.senders).map { Self.sender($0) }
        let location = database ?? path
        if resume != nil, database == nil, !FileManager.default.fileExists(atPath: path) { throw CommandFailure("\(dataDirectory) holds no ledger to go on from") }
        var store: Opened? = try await Self.open(location)
        var state: LedgerState
        var filledAccounts = 0, filledPayments = 0
        if resume != nil {
            guard let loaded = try await store!.store.loadState() else { throw CommandFailure("\(dataDirectory) holds no ledger to go on from") }
            state = loaded
            filledAccounts = await Self.grownAccounts(upTo: Self.senders + state.accounts.count) { state.account(Self.bulkAccount($0)) != nil }
            guard filledAccounts > Self.senders, senders.allSatisfy({ state.account($0.accountID) != nil }) else {
                throw CommandFailure("\(dataDirectory) is not a network grown by tender bench scale")
            }
            filledPayments = try await store!.payments()
            // Its gateway's card payments count toward --cards' steps, whichever merchant made them.
            if cardSteps != nil { filledCards = try await Self.storedCardPayments(location, dataDirectory: dataDirectory) }
            print("going on from \(filledAccounts) accounts and \(filledPayments) payments in \(dataDirectory)"
                + (cardSteps == nil ? "" : ", its gateway's store holding \(filledCards) card payments"))
        } else {
            let (genesis, first) = try LedgerState.genesisLedger(network: .standalone, closeTime: Self.now())
            state = genesis
            if database != nil, try await store!.store.latestLedgerSequence() != nil {
                throw CommandFailure("the database already holds a ledger; give an empty one")
            }
            try await store!.store.commit(first)
        }
        var rng = SystemRandomNumberGenerator()
        var rows: [Row] = []
        var pristine: BesideNetwork?
        // The copies of the new network measured beside a step, removed once the step's measures
        // are done (not between them: on PostgreSQL dropping a database forces a checkpoint).
        var copies: [BesideCopy] = []
        if let beside {
            pristine = try await Self.besideNetwork(accounts: beside, in: directory, database: database, senders: senders, rng: &rng)
        }
        do {
            print("size step | load s | resident MB (per account, trustline B) | commits/s (p99 ms) | serve start s | POST/s (p99 ms) | GET/s (p99 ms) | serve MB | history p99 ms | database MB")
            for (step, (targetAccounts, targetPayments)) in zip(accountSteps, paymentSteps).enumerated() {
                let warmUp = warmUps[step]
                try await Self.grow(store!.store, &state, senders: senders, accounts: &filledAccounts, payments: &filledPayments,
                                    to: (targetAccounts, targetPayments), rng: &rng)
                // The step's card payments, through the server, before its warm-up: their writes
                // (on PostgreSQL, their WAL) come before the warm-up's, not among the measures.
                if let cardSteps, cardSteps[step] > filledCards {
                    state = LedgerState(header: state.header)
                    store?.close()
                    store = nil
                    await Self.settle()
                    do {
                        let server = try await ServerProcess.start(dataDirectory: dataDirectory, database: database)
                        defer { server.stop() }
                        if merchantKey == nil { merchantKey = try await Self.merchant(dataDirectory: dataDirectory, port: server.port) }
                        let filled = try await Self.cardPayments(cardSteps[step] - filledCards, key: merchantKey!, port: server.port)
                        print(String(format: "  %d card payments through the server, before the step's warm-up and measures: %.0f/s", cardSteps[step] - filledCards, filled.rate))
                    }
                    filledCards = cardSteps[step]
                    // The server's payments moved money in the ledger: grow on from its state.
                    let reopened = try await Self.open(location)
                    state = try await reopened.store.loadState()!
                    store = reopened
                }
                if warmUp > 0 {
                    // On PostgreSQL, a checkpoint first: the warm-up's WAL then holds the first
                    // change of each page after it, and the measures come after those, inside
                    // the same checkpoint interval (with a warm-up and measures that write less
                    // WAL than starts the next one; each measure tells the checkpoints it met).
                    let before = try await Self.checkpoint(location)
                    try await Self.grow(store!.store, &state, senders: senders, accounts: &filledAccounts, payments: &filledPayments,
                                        to: (targetAccounts, filledPayments + warmUp), rng: &rng)
                    let wrote = try await Self.checkpoints(location).flatMap { after in before.map { after - $0 } }
                    print("  warm-up: \(warmUp) payments" + (wrote.map { " after a checkpoint; " + Self.walNote($0) + ", \($0.started) checkpoints started" } ?? ""))
                }
                let (grownAccounts, grownTrustLines) = (filledAccounts, state.trustLines.count)
                state = LedgerState(header: state.header)
                store?.close()
                store = nil
                // A new network measured just before and just after the step, each time a fresh
                // copy of the same one: the step's rates against it are not the machine's drift.
                var besideRows: [Row] = []
                let cardsBeside = cardSteps != nil
                if let pristine { besideRows.append(try await besideMeasure(pristine, cards: cardsBeside, senders: senders, copies: &copies, rng: &rng)) }
                var measures: [Row] = []
                for _ in 0..<repeats {
                    var measured = try await measure(location: location, dataDirectory: dataDirectory, accounts: grownAccounts, senders: senders, rng: &rng) { port, row in
                        guard cardSteps != nil else { return }
                        if merchantKey == nil { merchantKey = try await Self.merchant(dataDirectory: dataDirectory, port: port) }
                        let measured = try await Self.cardPayments(requests, key: merchantKey!, port: port)
                        filledCards += requests
                        (row.cards, row.cardRate, row.cardP99) = (filledCards, measured.rate, measured.p99)
                    }
                    (measured.accounts, measured.trustLines, measured.payments) = (grownAccounts, grownTrustLines, filledPayments)
                    if let pristine { besideRows.append(try await besideMeasure(pristine, cards: cardsBeside, senders: senders, copies: &copies, rng: &rng)) }
                    measures.append(measured)
                }
                var row = Self.median(of: measures)
                row.beside = Beside(besideRows)
                rows.append(row)
                if measures.count == 1 {
                    print(Self.line(row))
                    print("  " + row.commitNote)
                    for (which, beside) in zip(["before", "after"], besideRows) {
                        print("  a new network beside it, \(which): " + Self.line(beside))
                        print("    " + beside.commitNote)
                    }
                    if let beside = row.beside { print("  " + Self.ratios(Against(row, beside), to: "the new network beside it")) }
                } else {
                    // Each measure with the new network's around it, then the medians.
                    let shares = besideRows.count == measures.count + 1
                        ? measures.indices.map { Against(measures[$0], Beside(Array(besideRows[$0...($0 + 1)]))!) } : []
                    if let before = besideRows.first {
                        print("  a new network beside it, before: " + Self.line(before))
                        print("    " + before.commitNote)
                    }
                    for (index, measured) in measures.enumerated() {
                        print("  measure \(index + 1) of \(measures.count): " + Self.line(measured))
                        print("    " + measured.commitNote)
                        guard !shares.isEmpty else { continue }
                        print("  a new network beside it, after measure \(index + 1): " + Self.line(besideRows[index + 1]))
                        print("    " + besideRows[index + 1].commitNote)
                        print("    " + Self.ratios(shares[index], to: "the new network measured around it"))
                    }
                    print(Self.line(row) + " | the median of \(measures.count) measures")
                    if !shares.isEmpty {
                        print("  " + Self.ratios(Against(median: shares), to: "the new network beside it, the median of \(measures.count) measures' shares"))
                    }
                }
                for copy in copies { await copy.remove() }
                copies = []
                // The next step grows the state as the writer and the server left it.
                if targetAccounts != accountSteps.last {
                    let reopened = try await Self.open(location)
                    state = try await reopened.store.loadState()!
                    store = reopened
                }
            }
        } catch {
            for copy in copies { await copy.remove() }
            await pristine?.remove()
            throw error
        }
        await pristine?.remove()
        print("on \(ProcessInfo.processInfo.activeProcessorCount) cores; load and resident memory: a new process opening the database and loading the state (`tender bench load`); serve: `tender serve` on it, until it listens, and its memory after the HTTP load; memory is resident less what is shared with files (the database pages the stores map are the kernel's page cache)")
        if keep { print("data directory kept: \(dataDirectory)") }
        if let csv { try Self.csv(rows).write(toFile: csv, atomically: true, encoding: .utf8) }
        if let svg { try Self.chart(rows).write(toFile: svg, atomically: true, encoding: .utf8) }
    }

    /// Grows the network in `store` to `target` accounts and payments: accounts in bulk (ledgers
    /// of 10,000 funded by the root account), then signed payments from the senders, 1,000 a ledger.
    static func grow(_ store: any LedgerStore, _ state: inout LedgerState, senders: [KeyPair], accounts: inout Int, payments: inout Int,
                     to target: (accounts: Int, payments: Int), rng: inout SystemRandomNumberGenerator) async throws {
        while accounts < target.accounts {
            let batch = min(10_000, target.accounts - accounts)
            let ids = (accounts..<(accounts + batch)).map { $0 < Self.senders ? senders[$0].accountID : Self.bulkAccount($0) }
            try await store.commit(try Self.fund(ids, firstIndex: accounts, in: &state))
            accounts += batch
        }
        while payments < target.payments {
            let batch = min(1_000, target.payments - payments)
            let closed = try state.closeLedger(
                Self.payments(batch, from: senders, startingAt: payments, accounts: accounts, in: state, rng: &rng), closeTime: Self.now())
            guard closed.transactions.allSatisfy({ $0.application.result.code == .success }) else { throw CommandFailure("a history payment failed") }
            try await store.commit(closed)
            payments += batch
        }
    }

    /// Grows a new network of `accounts` accounts and as many payments and closes it, copied
    /// before each measure beside a step: a SQLite ledger file in a directory of its own under
    /// `directory`, or with `database` a database of its own in that database's cluster.
    static func besideNetwork(accounts: Int, in directory: String, database: String?, senders: [KeyPair],
                              rng: inout SystemRandomNumberGenerator) async throws -> BesideNetwork {
        let root = directory + "/tender-scale-beside-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/pristine", withIntermediateDirectories: true)
        var location = root + "/pristine/ledger.sqlite"
        var postgres: (cluster: String, name: PostgresStore.PostgresDatabase.DatabaseName)?
        if let database {
            let name = try PostgresStore.PostgresDatabase.DatabaseName("tender_beside_" + UUID().uuidString.prefix(8).lowercased())
            try await Self.administer(database) { try await $0.createDatabase(name) }
            postgres = (database, name)
            location = try PostgresStore.PostgresDatabase.url(database, naming: name)
        }
        do {
            let opened = try await Self.open(location)
            defer { opened.close() }
            let (genesis, first) = try LedgerState.genesisLedger(network: .standalone, closeTime: Self.now())
            var state = genesis
            try await opened.store.commit(first)
            var (grownAccounts, grownPayments) = (0, 0)
            try await Self.grow(opened.store, &state, senders: senders, accounts: &grownAccounts, payments: &grownPayments, to: (accounts, accounts), rng: &rng)
            // Closed before its first copy: one file, with no checkpoint still to run on it.
            if let sqlite = opened.store as? SQLiteLedgerStore { try await sqlite.close() }
            return BesideNetwork(root: root, postgres: postgres, accounts: grownAccounts, trustLines: state.trustLines.count, payments: grownPayments)
        } catch {
            await BesideNetwork(root: root, postgres: postgres, accounts: 0, trustLines: 0, payments: 0).remove()
            throw error
        }
    }

    /// A copy of the new network measured beside a step: its data directory, and on PostgreSQL
    /// its database.
    struct BesideCopy {
        let directory: String
        let database: (cluster: String, name: PostgresStore.PostgresDatabase.DatabaseName)?

        /// Drops its database (on PostgreSQL) and deletes its directory.
        func remove() async {
            if let database { try? await ScaleBench.administer(database.cluster) { try await $0.dropDatabase(database.name) } }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Measures a fresh copy of the new network `pristine` as a step is measured, and adds the
    /// copy to `copies`, to be removed after the step: its ledger file copied with its data
    /// directory, or on PostgreSQL its database copied by PostgreSQL (`CREATE DATABASE ...
    /// TEMPLATE`) with an empty data directory. With `cards`, `--requests` card payments are
    /// measured on the copy's gateway store, which starts empty: the rate on a new database that
    /// a step's card rate is held to.
    func besideMeasure(_ pristine: BesideNetwork, cards: Bool, senders: [KeyPair], copies: inout [BesideCopy],
                       rng: inout SystemRandomNumberGenerator) async throws -> Row {
        let directory = pristine.root + "/copy-\(UUID().uuidString)"
        var location = directory + "/ledger.sqlite"
        if let postgres = pristine.postgres {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let name = try PostgresStore.PostgresDatabase.DatabaseName(postgres.name.text + "_copy\(copies.count + 1)")
            copies.append(BesideCopy(directory: directory, database: (postgres.cluster, name)))
            try await Self.administer(postgres.cluster) { try await $0.createDatabase(name, template: postgres.name) }
            location = try PostgresStore.PostgresDatabase.url(postgres.cluster, naming: name)
        } else {
            copies.append(BesideCopy(directory: directory, database: nil))
            try FileManager.default.copyItem(atPath: pristine.root + "/pristine", toPath: directory)
        }
        var row = try await measure(location: location, dataDirectory: directory, accounts: pristine.accounts, senders: senders, rng: &rng) { port, row in
            guard cards else { return }
            let measured = try await Self.cardPayments(requests, key: try await Self.merchant(dataDirectory: directory, port: port), port: port)
            (row.cards, row.cardRate, row.cardP99) = (requests, measured.rate, measured.p99)
        }
        (row.accounts, row.trustLines, row.payments) = (pristine.accounts, pristine.trustLines, pristine.payments)
        return row
    }

    /// Counts from PostgreSQL's `pg_stat_bgwriter`, or their difference over a measure.
    struct Checkpoints {
        var started: Int
        var buffersWritten: Int
        /// The WAL's position in bytes (`pg_current_wal_lsn()`), or the bytes written.
        var walBytes: Int

        static func - (after: Checkpoints, before: Checkpoints) -> Checkpoints {
            Checkpoints(started: after.started - before.started, buffersWritten: after.buffersWritten - before.buffersWritten,
                        walBytes: after.walBytes - before.walBytes)
        }
    }

    /// The WAL `counted` wrote, in MB.
    static func walNote(_ counted: Checkpoints) -> String {
        String(format: "%.0f MB of WAL", Double(counted.walBytes) / 1_048_576)
    }

    /// On PostgreSQL, a checkpoint now (`CHECKPOINT`, which waits for its writes), then the
    /// counts after it (``checkpoints(_:checkpointFirst:)``); nothing and nil on SQLite.
    static func checkpoint(_ location: String) async throws -> Checkpoints? {
        try await checkpoints(location, checkpointFirst: true)
    }

    /// On PostgreSQL, the checkpoints started so far, the buffers checkpoints have written
    /// (`pg_stat_bgwriter`) and the WAL's position, read on one connection (after a
    /// `CHECKPOINT` with `checkpointFirst`); nil on SQLite.
    static func checkpoints(_ location: String, checkpointFirst: Bool = false) async throws -> Checkpoints? {
        guard location.hasPrefix("postgres") else { return nil }
        var counted: Checkpoints?
        try await administer(location) { database in
            if checkpointFirst { try await database.execute("CHECKPOINT") }
            counted = try await database.rows(
                "SELECT checkpoints_timed + checkpoints_req, buffers_checkpoint, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::int8 FROM pg_stat_bgwriter",
                { let (started, written, wal) = try $0.decode((Int64, Int64, Int64).self)
                  return Checkpoints(started: Int(started), buffersWritten: Int(written), walBytes: Int(wal)) }).first
        }
        return counted
    }

    /// Runs `body` on a client of the PostgreSQL database at `url` (making and dropping the
    /// databases beside it), then shuts the client.
    static func administer(_ url: String, _ body: (PostgresStore.PostgresDatabase) async throws -> Void) async throws {
        let database = try PostgresStore.PostgresDatabase(url: url, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { database.shutdown() }
        try await body(database)
    }

    /// Measures the closed network at `location` (data directory `dataDirectory`, `accounts`
    /// accounts grown by this command): the load in a new process, commits end to end, the
    /// history query, then the server's start, the POSTs, the GETs, what `atServer` measures on
    /// its port, and its memory; the database's size.
    func measure(location: String, dataDirectory: String, accounts: Int, senders: [KeyPair], rng: inout SystemRandomNumberGenerator,
                 atServer: (_ port: Int, _ row: inout Row) async throws -> Void) async throws -> Row {
        var row = Row()
        // A SQLite ledger file's path; nil for a PostgreSQL URL.
        let path = location.hasPrefix("postgres") ? nil : location
        let checkpointsBefore = try await Self.checkpoints(location)
        // What `tender serve` does first, in a new process: open the database and load the state.
        await Self.settle()
        row.load = try Self.loadInAnotherProcess(location)
        // Commits end to end on the grown database.
        await Self.settle()
        do {
            let opened = try await Self.open(location)
            defer { opened.close() }
            let reopened = opened.store
            let timings = LedgerTimings()
            let writer = try await LedgerWriter(
                store: reopened, configuration: .init(network: .standalone, closeInterval: .zero, batchLimit: 1000),
                logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }), metrics: LedgerWriterMetrics(factory: timings),
                now: { Self.now() })
            if let path { row.cachedAtCommits = await Self.cachedShare(path) }
            let atStart = Self.storageAtStart(path)
            let measured = try await writer.running {
                try await CommitBench.measure(writer: writer, concurrency: 64, transactions: transactions)
            }
            let latencies = measured.latencies
            row.commitRate = Double(latencies.count) / (CommitBench.milliseconds(measured.elapsed) / 1000)
            row.commitP99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
            row.commitNote = "commits: the slowest 1% by tenth of the run " + measured.slowestByTenth.map(String.init).joined(separator: " ")
                + "; " + timings.summary() + measured.writtenNote + atStart
            // The disk's own reads just before and just after (a query that reads a page from
            // disk waits for the disk of those seconds).
            let diskFiles = await Self.diskFiles(location)
            let diskBefore = await DiskBench.inAnotherProcess(diskFiles)
            let history = try await Self.historyQueries(3_000, store: reopened, rng: &rng) { Self.bulkIndex(of: accounts, paid: false, using: &$0) }
            if let diskBefore, let diskAfter = await DiskBench.inAnotherProcess(diskFiles) { row.historyDisk = (diskBefore, diskAfter) }
            row.historyP99 = history.milliseconds[min(history.milliseconds.count - 1, history.milliseconds.count * 99 / 100)]
            row.historyFound = Double(history.payments) / Double(history.milliseconds.count)
            row.historySlowestByTenth = history.slowestByTenth
        }
        // The server on the grown database: its start, the two HTTP rates, its memory.
        if requests > 0 {
            // The senders' sequence numbers as committed (not the whole state).
            var sequences: [AccountID: Int64] = [:]
            do {
                let opened = try await Self.open(location)
                defer { opened.close() }
                for sender in senders { sequences[sender.accountID] = try await opened.store.account(sender.accountID)?.account.sequenceNumber }
            }
            await Self.settle()
            let server = try await ServerProcess.start(dataDirectory: dataDirectory, database: path == nil ? location : nil)
            defer { server.stop() }
            row.serveSeconds = server.startSeconds
            if let path { row.cachedAtPosts = await Self.cachedShare(path) }
            var submitCPU: (server: Double, client: Double)? = (0, 0)
            var submitRounds: [(rate: Double, p99: Double)] = []
            let postmaster = await Self.postmaster(location)
            let clusterBefore = postmaster.flatMap(Self.clusterCPUSeconds)
            for _ in 0..<postRounds {
                submitRounds.append(try await Self.submit(
                    requests, from: senders, sequences: &sequences, accounts: accounts, port: server.port, rng: &rng,
                    serverCPU: server.cpuSeconds, cpu: &submitCPU))
            }
            let submit = Self.median(submitRounds)
            (row.submitRate, row.submitP99) = (submit.rate, submit.p99)
            row.submitRoundRates = submitRounds.map(\.rate)
            row.submitCPU = submitCPU.map { ($0.server * 1e6 / Double(requests * postRounds), $0.client * 1e6 / Double(requests * postRounds)) }
            if let before = clusterBefore, let after = postmaster.flatMap(Self.clusterCPUSeconds) {
                row.submitDatabaseCPU = (after - before) * 1e6 / Double(requests * postRounds)
            }
            var rounds: [(rate: Double, p99: Double)] = []
            var cpu: (server: Double, client: Double)? = (0, 0)
            for _ in 0..<readRounds {
                rounds.append(try await Self.read(requests, accounts: accounts, port: server.port, rng: &rng, serverCPU: server.cpuSeconds, cpu: &cpu))
            }
            row.readCPU = cpu.map { ($0.server * 1e6 / Double(requests * readRounds), $0.client * 1e6 / Double(requests * readRounds)) }
            let median = Self.median(rounds)
            (row.readRate, row.readP99) = (median.rate, median.p99)
            row.readRoundRates = rounds.map(\.rate)
            try await atServer(server.port, &row)
            row.serveResidentBytes = server.residentBytes()
        }
        if let before = checkpointsBefore, let after = try await Self.checkpoints(location) {
            row.checkpointsDuring = after - before
        }
        row.databaseBytes = try await Self.databaseBytes(location)
        return row
    }

    /// A step's rates as shares of the new network's beside it, and its p99s as multiples of
    /// theirs (nil where the new network's figure is 0: not measured).
    struct Against {
        var commits, post, get, commitP99, postP99, getP99, historyP99: Double?
        /// Card payments against the new network's (nil when either was not measured).
        var cards, cardP99: Double?

        init(_ row: Row, _ beside: Beside) {
            func of(_ value: Double, _ new: Double) -> Double? { new > 0 ? value / new : nil }
            commits = of(row.commitRate, beside.commitRate)
            post = of(row.submitRate, beside.submitRate)
            get = of(row.readRate, beside.readRate)
            commitP99 = of(row.commitP99, beside.commitP99)
            postP99 = of(row.submitP99, beside.submitP99)
            getP99 = of(row.readP99, beside.readP99)
            historyP99 = of(row.historyP99, beside.historyP99)
            (cards, cardP99) = row.cards > 0 ? (of(row.cardRate, beside.cardRate), of(row.cardP99, beside.cardP99)) : (nil, nil)
        }

        /// Each figure's median over `list` (nil where any is nil).
        init(median list: [Against]) {
            func median(_ value: KeyPath<Against, Double?>) -> Double? {
                let values = list.compactMap { $0[keyPath: value] }
                return values.count == list.count && !values.isEmpty ? ScaleBench.median(values) : nil
            }
            (commits, post, get) = (median(\.commits), median(\.post), median(\.get))
            (commitP99, postP99, getP99, historyP99) = (median(\.commitP99), median(\.postP99), median(\.getP99), median(\.historyP99))
            (cards, cardP99) = (median(\.cards), median(\.cardP99))
        }
    }

    /// `against`'s shares and multiples, each marked when outside issue 30's bounds (rates
    /// within 20%, p99 within 2 times).
    static func ratios(_ against: Against, to what: String) -> String {
        func share(_ name: String, _ value: Double?) -> String {
            guard let value else { return "\(name) -" }
            return "\(name) " + String(format: "%.0f%%", value * 100) + (value >= 0.8 ? "" : " (under 80%)")
        }
        func times(_ name: String, _ value: Double?) -> String {
            guard let value else { return "\(name) -" }
            return "\(name) " + String(format: "%.2fx", value) + (value <= 2 ? "" : " (over 2x)")
        }
        // Card payments only where both were measured (`--cards`).
        let rates = [share("commits", against.commits), share("POST", against.post), share("GET", against.get)]
            + (against.cards == nil ? [] : [share("cards", against.cards)])
        let p99s = [times("commits", against.commitP99), times("POST", against.postP99), times("GET", against.getP99), times("history", against.historyP99)]
            + (against.cardP99 == nil ? [] : [times("cards", against.cardP99)])
        return "against \(what): rates " + rates.joined(separator: ", ") + "; p99 " + p99s.joined(separator: ", ")
    }

    /// The middle value (the mean of the middle two of an even count).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// A step measured several times: each rate and p99 the median of the measures', the rest
    /// (memory, sizes, the last measure's notes) the last measure's.
    static func median(of measures: [Row]) -> Row {
        var row = measures.last!
        guard measures.count > 1 else { return row }
        func median(_ value: KeyPath<Row, Double>) -> Double { Self.median(measures.map { $0[keyPath: value] }) }
        (row.commitRate, row.commitP99, row.submitRate, row.submitP99) = (median(\.commitRate), median(\.commitP99), median(\.submitRate), median(\.submitP99))
        (row.readRate, row.readP99, row.historyP99, row.serveSeconds) = (median(\.readRate), median(\.readP99), median(\.historyP99), median(\.serveSeconds))
        (row.cardRate, row.cardP99, row.load.seconds) = (median(\.cardRate), median(\.cardP99), median(\.load.seconds))
        row.readRoundRates = []
        row.submitRoundRates = []
        row.historySlowestByTenth = []
        row.historyDisk = nil
        let cpu = measures.compactMap(\.readCPU)
        row.readCPU = cpu.count == measures.count ? (Self.median(cpu.map(\.server)), Self.median(cpu.map(\.client))) : nil
        let submitCPU = measures.compactMap(\.submitCPU)
        row.submitCPU = submitCPU.count == measures.count ? (Self.median(submitCPU.map(\.server)), Self.median(submitCPU.map(\.client))) : nil
        let databaseCPU = measures.compactMap(\.submitDatabaseCPU)
        row.submitDatabaseCPU = databaseCPU.count == measures.count ? Self.median(databaseCPU) : nil
        // The checkpoints of all the measures together.
        let checkpoints = measures.compactMap(\.checkpointsDuring)
        row.checkpointsDuring = checkpoints.count == measures.count
            ? Checkpoints(started: checkpoints.map(\.started).reduce(0, +), buffersWritten: checkpoints.map(\.buffersWritten).reduce(0, +),
                          walBytes: checkpoints.map(\.walBytes).reduce(0, +)) : nil
        return row
    }

    /// Waits for the kernel to write every dirty page to disk (`sync`), off Swift's cooperative
    /// threads: a measure started while the gigabytes the growth (or the measure before) wrote
    /// are still being written back shares the disk and the cores with that writeback (at two
    /// million accounts, POST /transactions measured 3,300-4,760 a second run after run without
    /// it, 4,370-4,510 with it).
    static func settle() async {
        await offThePool { sync() }
    }

    /// The share of the file at `path` in the page cache (nil when it cannot be told), asked off
    /// the cooperative pool (a system call over the whole file).
    static func cachedShare(_ path: String) async -> Double? {
        await offThePool { PageCache.residentShare(path) }
    }

    /// The round of median rate (the lower middle one of an even count), with its p99.
    static func median(_ rounds: [(rate: Double, p99: Double)]) -> (rate: Double, p99: Double) {
        rounds.sorted { $0.rate < $1.rate }[(rounds.count - 1) / 2]
    }

    static func line(_ row: Row) -> String {
        let reads = (row.submitRoundRates.count < 2 ? "" : " | POST rounds: " + row.submitRoundRates.map { String(format: "%.0f", $0) }.joined(separator: ", "))
            + (row.readRoundRates.count < 2 ? "" : " | GET rounds: " + row.readRoundRates.map { String(format: "%.0f", $0) }.joined(separator: ", "))
            + (row.readCPU.map { String(format: " | CPU a GET: server %.1f µs, client %.1f µs", $0.server, $0.client) } ?? "")
            + (row.submitCPU.map { String(format: " | CPU a POST: server %.1f µs, client %.1f µs", $0.server, $0.client) } ?? "")
            + (row.submitDatabaseCPU.map { String(format: ", PostgreSQL %.1f µs", $0) } ?? "")
        let found = String(format: " | history: %.2f payments a query", row.historyFound)
            + (row.historySlowestByTenth.isEmpty ? "" : ", the slowest 1% by tenth of the queries " + row.historySlowestByTenth.map(String.init).joined(separator: " "))
            + (row.historyDisk.map {
                String(format: ", the disk's 8 KiB reads just before and after them p99 %.2f, %.2f ms (p50 %.2f, %.2f)", $0.before.p99, $0.after.p99, $0.before.p50, $0.after.p50)
            } ?? "")
            + (row.checkpointsDuring.map { " | checkpoints while measured: \($0.started) started, \($0.buffersWritten) buffers written; " + Self.walNote($0) } ?? "")
        let cards = row.cards == 0 ? "" : " | \(row.cards) card payments: " + String(format: "%.0f/s (%.1f)", row.cardRate, row.cardP99)
        let cached = [row.cachedAtCommits, row.cachedAtPosts].compactMap { $0 }.map { String(format: "%.0f%%", $0 * 100) }
        let cache = cached.isEmpty ? "" : " | ledger file in the page cache at commits, POSTs: " + cached.joined(separator: ", ")
        return "\(row.accounts) accounts, \(row.trustLines) trustlines, \(row.payments) payments" + String(format: " | %.2f | %.0f (%.0f, %.0f) | %.0f (%.1f) | %.2f | %.0f (%.1f) | %.0f (%.1f) | %.0f | %.2f | %.0f",
               row.load.seconds, Double(row.load.residentBytes) / 1_048_576, row.load.accountBytes,
               row.load.trustLineBytes, row.commitRate, row.commitP99, row.serveSeconds, row.submitRate, row.submitP99, row.readRate, row.readP99,
               Double(row.serveResidentBytes) / 1_048_576, row.historyP99, Double(row.databaseBytes) / 1_048_576) + cards + cache + found + reads
    }

    /// `count` history payments from the senders in turn to random accounts, signed on every
    /// core with ``OwnSignatures`` (so preparing them verifies nothing again: the growth measures
    /// nothing, it only has to be quick).
    static func payments(_ count: Int, from senders: [KeyPair], startingAt first: Int, accounts: Int, in state: LedgerState,
                         rng: inout SystemRandomNumberGenerator) -> [PreparedTransaction] {
        var sequences: [Int: Int64] = [:]
        let plan = (0..<count).map { index in
            let sender = (first + index) % senders.count
            let next = (sequences[sender] ?? state.account(senders[sender].accountID)!.sequenceNumber) + 1
            sequences[sender] = next
            return (sender, next, bulkAccount(Int.random(in: Self.senders..<accounts, using: &rng)))
        }
        let own = OwnSignatures(limit: count + 1)
        let results = Mutex([PreparedTransaction?](repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let (sender, sequence, to) = plan[index]
            var envelope = TransactionEnvelope.v1(Transaction(
                sourceAccount: .ed25519(senders[sender].accountID), fee: 100, sequenceNumber: sequence,
                operations: [Operation(.payment(PaymentOperation(destination: .ed25519(to), asset: .native, amount: 1)))]), signatures: [])
            own.sign(&envelope, with: senders[sender], on: .standalone)
            let prepared = PreparedTransaction.prepare(envelope, network: .standalone, own: own)
            results.withLock { $0[index] = prepared }
        }
        return results.withLock { $0.map { $0! } }
    }

    /// `count` signed payments from the senders (each sender's in order on one connection) to
    /// random accounts of those a step's history queries do not read
    /// (``bulkIndex(of:paid:using:)``), over 256 connections: applied per second and p99, as
    /// `bench submit`.
    /// `sequences` holds each sender's last sequence number and moves on with the payments made.
    /// The CPU time the server's process and this one spent while they were answered is added
    /// to `cpu`, as ``read(_:accounts:port:rng:serverCPU:cpu:)`` does.
    static func submit(_ count: Int, from senders: [KeyPair], sequences next: inout [AccountID: Int64], accounts: Int, port: Int,
                       rng: inout SystemRandomNumberGenerator,
                       serverCPU: () -> Double?, cpu: inout (server: Double, client: Double)?) async throws -> (rate: Double, p99: Double) {
        let connections = 256, host = "127.0.0.1:\(port)"
        var work: [[ByteBuffer]] = Array(repeating: [], count: connections)
        for index in 0..<count {
            let sender = senders[index % senders.count]
            let sequence = next[sender.accountID]! + 1
            next[sender.accountID] = sequence
            let to = bulkAccount(Self.bulkIndex(of: accounts, paid: true, using: &rng))
            let envelope = Transaction(
                sourceAccount: .ed25519(sender.accountID), fee: 100, sequenceNumber: sequence,
                operations: [Operation(.payment(PaymentOperation(destination: .ed25519(to), asset: .native, amount: 1)))]).signed(by: [sender], on: .standalone)
            work[(index % senders.count) % connections].append(RequestStream.post("/transactions", host: host, form: SubmitBench.form(envelope)))
        }
        let run = try await Self.spending(serverCPU: serverCPU, cpu: &cpu) {
            try await RequestStream.measure(host: "127.0.0.1", port: port, work: work, group: MultiThreadedEventLoopGroup.singleton)
        }
        guard run.statuses[200, default: 0] == count else { throw CommandFailure("POST /transactions: not every payment applied: \(run.statuses)") }
        return (Double(count) / run.elapsedSeconds, run.percentile(0.99))
    }

    /// A merchant made with the data directory's admin key: its secret key.
    static func merchant(dataDirectory: String, port: Int) async throws -> String {
        let admin = try String(contentsOfFile: dataDirectory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let connection = try await LoadConnection.connect(host: "127.0.0.1", port: port, group: MultiThreadedEventLoopGroup.singleton)
        defer { Task { await connection.close() } }
        let answer = try await connection.send(.POST, "/v1/admin/merchants", form: "name=Scale", headers: [("Authorization", "Bearer \(admin)")])
        guard answer.status == 200, let key = SubmitBench.field(answer.body, "secret_key") else {
            throw CommandFailure("making a merchant answered \(answer.status): \(answer.body.prefix(300))")
        }
        return key
    }

    /// `count` card payments created and confirmed (automatic capture: each settled on the
    /// ledger before its answer) over 64 connections, as `bench gateway`: per second and p99.
    static func cardPayments(_ count: Int, key: String, port: Int) async throws -> (rate: Double, p99: Double) {
        let connections = 64, host = "127.0.0.1:\(port)"
        let card = "type=card&card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2034&card[cvc]=123"
        let connection = try await LoadConnection.connect(host: "127.0.0.1", port: port, group: MultiThreadedEventLoopGroup.singleton)
        let method = try await connection.send(.POST, "/v1/payment_methods", form: card, headers: [("Authorization", "Bearer \(key)")])
        await connection.close()
        guard method.status == 200, let id = SubmitBench.field(method.body, "id") else { throw CommandFailure("a payment method answered \(method.status)") }
        var work: [[ByteBuffer]] = Array(repeating: [], count: min(connections, count))
        for index in 0..<count {
            work[index % work.count].append(RequestStream.post(
                "/v1/payment_intents", host: host, form: "amount=\(1000 + index % 1000)&currency=eur&payment_method=\(id)&confirm=true",
                headers: [("Authorization", "Bearer \(key)")]))
        }
        let run = try await RequestStream.measure(host: "127.0.0.1", port: port, work: work, group: MultiThreadedEventLoopGroup.singleton)
        guard run.statuses[200, default: 0] == count else { throw CommandFailure("card payments: not every one confirmed: \(run.statuses)") }
        return (Double(count) / run.elapsedSeconds, run.percentile(0.99))
    }

    /// `count` reads of random accounts over 32 connections: answers per second and p99. The
    /// CPU time the server's process (`serverCPU`) and this one spent while they were answered
    /// (not while the requests were made) is added to `cpu`, which becomes nil when either
    /// cannot be told.
    static func read(_ count: Int, accounts: Int, port: Int, rng: inout SystemRandomNumberGenerator,
                     serverCPU: () -> Double?, cpu: inout (server: Double, client: Double)?) async throws -> (rate: Double, p99: Double) {
        let connections = 32, host = "127.0.0.1:\(port)"
        var work: [[ByteBuffer]] = Array(repeating: [], count: connections)
        for index in 0..<count {
            work[index % connections].append(RequestStream.get("/accounts/\(bulkAccount(Int.random(in: Self.senders..<accounts, using: &rng)).strKey)", host: host))
        }
        let run = try await Self.spending(serverCPU: serverCPU, cpu: &cpu) {
            try await RequestStream.measure(host: "127.0.0.1", port: port, work: work, group: MultiThreadedEventLoopGroup.singleton)
        }
        guard run.statuses[200, default: 0] == count else { throw CommandFailure("GET /accounts/{id}: not every account answered: \(run.statuses)") }
        return (Double(count) / run.elapsedSeconds, run.percentile(0.99))
    }

    /// Runs `body`, adding the CPU time the server's process (`serverCPU`) and this one spent
    /// meanwhile to `cpu`, which becomes nil when either cannot be told.
    static func spending<T>(serverCPU: () -> Double?, cpu: inout (server: Double, client: Double)?,
                            _ body: () async throws -> T) async throws -> T {
        let before = (serverCPU(), cpuSeconds(process: "self"))
        let result = try await body()
        if let spent = cpu, let server = before.0, let client = before.1, let serverNow = serverCPU(), let clientNow = cpuSeconds(process: "self") {
            cpu = (spent.server + serverNow - server, spent.client + clientNow - client)
        } else {
            cpu = nil
        }
        return result
    }

    /// What `tender bench load` reports.
    struct LoadFigures {
        var seconds: Double
        var residentBytes: Int
        var accountBytes: Double
        var trustLineBytes: Double
    }

    /// A ledger store on SQLite file or a PostgreSQL URL, and how to let it go.
    struct Opened {
        let store: any LedgerStore & LedgerReader
        let payments: @Sendable () async throws -> Int
        let close: @Sendable () -> Void
    }

    static func open(_ location: String) async throws -> Opened {
        guard location.hasPrefix("postgres") else {
            let store = try SQLiteLedgerStore(path: location, walRestartFrames: try SQLiteWAL.pages())
            return Opened(store: store, payments: { try await store.paymentCount() }, close: {})
        }
        let database = try PostgresStore.PostgresDatabase(url: location, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        let store = try await PostgresLedgerStore(database)
        return Opened(store: store, payments: { try await store.paymentCount() }, close: { database.shutdown() })
    }

    /// The card payments (payment intents, any merchant's) a kept network's gateway store holds:
    /// the SQLite file beside the ledger's, or the `object` table in the PostgreSQL database.
    static func storedCardPayments(_ location: String, dataDirectory: String) async throws -> Int {
        guard location.hasPrefix("postgres") else {
            let path = dataDirectory + "/gateway.sqlite"
            guard FileManager.default.fileExists(atPath: path) else { return 0 }
            return try await DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM object WHERE kind = 'payment_intent'") ?? 0 }
        }
        let database = try PostgresStore.PostgresDatabase(url: location, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { database.shutdown() }
        guard try await database.rows("SELECT to_regclass('object') IS NOT NULL") { try $0.decode(Bool.self) }.first == true else { return 0 }
        return try await database.rows("SELECT COUNT(*) FROM object WHERE kind = 'payment_intent'") { Int(try $0.decode(Int64.self)) }.first ?? 0
    }

    /// The database's size: the SQLite file and its WAL, or PostgreSQL's own count.
    static func databaseBytes(_ location: String) async throws -> Int {
        guard location.hasPrefix("postgres") else {
            return ["", "-wal"].reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: location + $1)[.size] as? Int) ?? 0) }
        }
        let database = try PostgresStore.PostgresDatabase(url: location, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { database.shutdown() }
        return try await database.rows("SELECT pg_database_size(current_database())") { Int(try $0.decode(Int64.self)) }.first ?? 0
    }

    /// Runs `tender bench load` on `path` in a new process.
    static func loadInAnotherProcess(_ path: String) throws -> LoadFigures {
        let (succeeded, output) = try runThisExecutable(["bench", "load", "--database", path, "--csv"])
        let fields = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        guard succeeded, fields.count == 4, let seconds = Double(fields[0]), let resident = Int(fields[1]),
              let account = Double(fields[2]), let line = Double(fields[3]) else {
            throw CommandFailure("tender bench load failed: \(output)")
        }
        return LoadFigures(seconds: seconds, residentBytes: resident, accountBytes: account, trustLineBytes: line)
    }

    /// Runs this executable, however it was started (a path, or a name found on PATH), with
    /// `arguments` in a process of its own until it ends: whether it exited with 0, and what it
    /// printed on standard output (its standard error this process's, or dropped).
    static func runThisExecutable(_ arguments: [String], droppingErrors: Bool = false) throws -> (succeeded: Bool, output: String) {
        guard let executable = Bundle.main.executableURL else { throw CommandFailure("cannot find the tender executable") }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        if droppingErrors { process.standardError = FileHandle.nullDevice }
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus == 0, String(decoding: data, as: UTF8.self))
    }

    static func steps(_ text: String, _ option: String) throws -> [Int] {
        let steps = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !steps.isEmpty, steps.count == text.split(separator: ",").count, steps.allSatisfy({ $0 > 0 }), steps == steps.sorted() else {
            throw CommandFailure("\(option) is a comma-separated list of positive, ascending numbers")
        }
        return steps
    }

    /// `--warm-up`: one count for every step, or one for each of `steps` steps; none negative.
    static func warmUps(_ text: String, steps: Int) throws -> [Int] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !parts.contains(nil), parts.count == 1 || parts.count == steps else {
            throw CommandFailure("--warm-up is one number of payments, or a comma-separated list with one for each step (\(steps) here)")
        }
        let counts = parts.map { $0! }
        guard counts.allSatisfy({ $0 >= 0 }) else { throw CommandFailure("--warm-up must not be negative") }
        return counts.count == 1 ? Array(repeating: counts[0], count: steps) : counts
    }

    static func now() -> UInt64 { UInt64(Date().timeIntervalSince1970) }

    /// A sender's key pair, the same in every run.
    static func sender(_ index: Int) -> KeyPair {
        try! KeyPair(seed: withUnsafeBytes(of: UInt64(index + 1).bigEndian) { Array(repeating: 9, count: 24) + Array($0) })
    }

    /// `count` reads of the newest payments of a random bulk account (of those `pick` picks from
    /// a random number generator), as `/accounts/{id}/payments?order=desc&limit=10` reads them:
    /// their times in milliseconds, sorted, the payments they found, and how many of the slowest
    /// 1% (those at or over the p99) were asked in each tenth of the queries, in the order asked
    /// (slow queries bunched in one tenth are a passing stall, spread over all a cost of each).
    static func historyQueries(
        _ count: Int, store: any LedgerReader, rng: inout SystemRandomNumberGenerator, pick: (inout SystemRandomNumberGenerator) -> Int
    ) async throws -> (milliseconds: [Double], payments: Int, slowestByTenth: [Int]) {
        let clock = ContinuousClock()
        var (queries, payments) = ([Double](), 0)
        for _ in 0..<count {
            let account = Self.bulkAccount(pick(&rng))
            let before = clock.now
            payments += try await store.operations(PageRequest(limit: 10, descending: true), filter: OperationFilter(account: account, paymentsOnly: true)).count
            queries.append(CommitBench.milliseconds(clock.now - before))
        }
        let sorted = queries.sorted()
        var slowest = Array(repeating: 0, count: 10)
        if !sorted.isEmpty {
            let p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
            for (asked, milliseconds) in queries.enumerated() where milliseconds >= p99 { slowest[asked * 10 / queries.count] += 1 }
        }
        return (sorted, payments, slowest)
    }

    /// A random bulk account of a network of `accounts` that a step's history queries read
    /// (`paid` false: the even ones, counted from the first bulk account) or that its POSTs pay
    /// (`paid`: the odd ones). History is grown over every bulk account; the payments a step's
    /// own measures POST (60,000 a measure) land only on the odd ones, so the accounts queried
    /// hold the history the network was grown to, in every measure and every later step. Before,
    /// they landed anywhere: by its third measure the 10,000 step held about 190,000 payments,
    /// about 13 an account, so its queries read a full page of ten where the new network beside
    /// it, a fresh copy each time, read one or two (an account's payments p99 2.47 and 2.59
    /// times there, against a network of the same size).
    static func bulkIndex(of accounts: Int, paid: Bool, using rng: inout SystemRandomNumberGenerator) -> Int {
        let bulk = accounts - senders
        let choices = paid ? bulk / 2 : (bulk + 1) / 2
        return senders + 2 * Int.random(in: 0..<max(choices, 1), using: &rng) + (paid ? 1 : 0)
    }

    /// How many accounts a network this command grew holds: the bulk accounts are made in order
    /// from index ``senders`` on, so the first index missing (found by halving) is the count.
    static func grownAccounts(upTo limit: Int, isPresent: (Int) async throws -> Bool) async rethrows -> Int {
        var (low, high) = (senders, limit)
        while low < high {
            let middle = (low + high) / 2
            if try await isPresent(middle) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The account of bulk index `index` (the senders aside): 32 bytes that need no key, as the
    /// benchmark never signs for them.
    static func bulkAccount(_ index: Int) -> AccountID {
        AccountID(publicKey: SHA256.hash(data: withUnsafeBytes(of: UInt64(index).bigEndian) { Array("tender scale".utf8) + Array($0) })
            .withUnsafeBytes { Bytes32($0) })
    }

    /// A ledger that creates `ids` (bulk indexes from `firstIndex`), each with ``funding`` from
    /// the root account and every second bulk one with a trustline to ``asset``: the bulk path
    /// for a large genesis, through the ledger's own close (invariants checked).
    static func fund(_ ids: [AccountID], firstIndex: Int, in state: inout LedgerState) throws -> ClosedLedger {
        let root = LedgerState.rootKeyPair(network: .standalone).accountID
        var rootEntry = state.account(root)!
        rootEntry.balance -= Int64(ids.count) * funding
        state.setAccount(rootEntry)
        let ledger = state.header.sequence + 1
        for (offset, id) in ids.enumerated() {
            var account = AccountEntry(accountID: id, balance: funding, sequenceNumber: Int64(ledger) << 32, lastModifiedLedger: ledger)
            if firstIndex + offset >= senders, (firstIndex + offset) % 2 == 0 {
                account.numSubEntries = 1
                state.setTrustLine(TrustLineEntry(
                    accountID: id, asset: asset, balance: 0, limit: .max, flags: TrustLineFlags.authorized, lastModifiedLedger: ledger))
            }
            state.setAccount(account)
        }
        return try state.closeLedger([], closeTime: now())
    }

    /// The WAL's size beside the SQLite file at `path` and the kernel's dirty and writeback
    /// memory (`/proc/meminfo`), as a clause for the commit note: what a measure's commits begin
    /// with, where a commit measure right after a growth reads a higher p99 than a later one.
    static func storageAtStart(_ path: String?) -> String {
        var parts: [String] = []
        if let path, let wal = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int {
            parts.append(String(format: "WAL %.1f MB", Double(wal) / 1_048_576))
        }
        if let meminfo = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) {
            for field in ["Dirty", "Writeback"] {
                guard let line = meminfo.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
                      let kibibytes = Int(line.dropFirst(field.count + 1).split(separator: " ").first ?? "") else { continue }
                parts.append(field.lowercased() + String(format: " %.1f MB", Double(kibibytes) / 1024))
            }
        }
        return parts.isEmpty ? "" : "; at the start: " + parts.joined(separator: ", ")
    }

    /// The memory a process holds now (Linux): its resident pages but those it shares with
    /// files (`/proc/<pid>/statm`'s resident less its shared: the database files' pages the
    /// stores map for reading, like the program's own, are the kernel's page cache, which the
    /// kernel may take back at any time, as it was when the stores read them with `pread`).
    static func heldBytes(process: String) -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/\(process)/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ").prefix(3).compactMap { Int($0) }
        guard fields.count == 3 else { return nil }
        return (fields[1] - fields[2]) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The CPU time, user and system, a process (`self`: this one) has spent so far (Linux,
    /// `/proc/<pid>/stat`, in the kernel's clock ticks); nil elsewhere.
    static func cpuSeconds(process: String) -> Double? {
        // The fields after the command's name start at the third (state); utime and stime are
        // the fourteenth and fifteenth.
        guard let fields = statFields(process), fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The postmaster of the PostgreSQL cluster at `location` when it runs on this machine (the
    /// parent of a backend's process, from /proc), or nil (SQLite, another machine, not Linux).
    /// The files a disk probe reads for the database at `location`: a SQLite ledger's file, or
    /// the segments of PostgreSQL's `transactions` table in its data directory (which the
    /// history queries read at random); none where they cannot be told (the cluster's settings
    /// not readable to its user).
    static func diskFiles(_ location: String) async -> [String] {
        guard location.hasPrefix("postgres") else { return [location] }
        guard let database = try? PostgresStore.PostgresDatabase(url: location, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        else { return [] }
        defer { database.shutdown() }
        guard let base = try? await database.rows(
            "SELECT current_setting('data_directory') || '/' || pg_relation_filepath('transactions')", { try $0.decode(String.self) }).first
        else { return [] }
        // A relation's file holds its first gigabyte; `.1`, `.2`, ... the next ones.
        var files = [base]
        while FileManager.default.fileExists(atPath: "\(base).\(files.count)") { files.append("\(base).\(files.count)") }
        return files
    }

    static func postmaster(_ location: String) async -> Int32? {
        guard location.hasPrefix("postgres"),
              let database = try? PostgresStore.PostgresDatabase(url: location, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        else { return nil }
        defer { database.shutdown() }
        guard let backend = try? await database.rows("SELECT pg_backend_pid()", { try $0.decode(Int32.self) }).first,
              let fields = statFields(String(backend)), fields.count > 1 else { return nil }
        return Int32(fields[1])
    }

    /// The CPU time, user and system, a postmaster and its children have spent so far: its own,
    /// that of its children still running (every process whose parent it is) and that of those
    /// it has reaped (its `cutime` and `cstime`), so a backend or autovacuum worker ending
    /// between two readings moves its time from one sum to the other. Nil if it is not running.
    static func clusterCPUSeconds(_ postmaster: Int32) -> Double? {
        // After the command's name: state, ppid, ..., utime and stime (12th and 13th), cutime
        // and cstime (14th and 15th).
        guard let own = statFields(String(postmaster)), own.count > 14 else { return nil }
        var ticks = own[11...14].reduce(0.0) { $0 + (Double($1) ?? 0) }
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let parent = Substring(String(postmaster))
        for pid in processes where pid.first?.isNumber == true {
            guard let fields = statFields(pid), fields.count > 12, fields[1] == parent else { continue }
            ticks += (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        }
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The fields of `/proc/<process>/stat` after the command's name (which may hold spaces),
    /// from its state on.
    static func statFields(_ process: String) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
              let nameEnd = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: nameEnd)...].split(separator: " ")
    }

    /// The memory this process holds now (Linux, ``heldBytes(process:)``); elsewhere its peak resident.
    static func residentBytes() -> Int {
        if let held = heldBytes(process: "self") { return held }
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
        let header = "accounts,trustlines,payments,load_seconds,resident_bytes,bytes_per_account,bytes_per_trustline,commits_per_second,commit_p99_ms,"
            + "serve_start_seconds,posts_per_second,post_p99_ms,gets_per_second,get_p99_ms,serve_resident_bytes,history_p99_ms,database_bytes,"
            + "card_payments,card_payments_per_second,card_p99_ms,cached_at_commits,cached_at_posts,"
            + (Self.besideColumns + Self.besideCardColumns).joined(separator: ",")
        let lines = rows.map { row -> String in
            let fields: [String] = [
                String(row.accounts), String(row.trustLines), String(row.payments), String(format: "%.3f", row.load.seconds), String(row.load.residentBytes),
                String(format: "%.0f", row.load.accountBytes), String(format: "%.0f", row.load.trustLineBytes),
                String(format: "%.0f", row.commitRate), String(format: "%.2f", row.commitP99), String(format: "%.3f", row.serveSeconds),
                String(format: "%.0f", row.submitRate), String(format: "%.2f", row.submitP99), String(format: "%.0f", row.readRate),
                String(format: "%.2f", row.readP99), String(row.serveResidentBytes), String(format: "%.3f", row.historyP99),
                String(row.databaseBytes), String(row.cards), String(format: "%.0f", row.cardRate), String(format: "%.2f", row.cardP99),
                row.cachedAtCommits.map { String(format: "%.3f", $0) } ?? "", row.cachedAtPosts.map { String(format: "%.3f", $0) } ?? "",
            ]
            return (fields + Self.besideFields(row.beside)).joined(separator: ",")
        }
        return ([header] + lines).joined(separator: "\n") + "\n"
    }

    /// The columns of the new network measured beside a step (empty without `--beside`).
    static let besideColumns = ["beside_commits_per_second", "beside_commit_p99_ms", "beside_posts_per_second", "beside_post_p99_ms",
                                "beside_gets_per_second", "beside_get_p99_ms", "beside_history_p99_ms"]
    /// The new network's card payments (`--cards` with `--beside`), empty otherwise.
    static let besideCardColumns = ["beside_card_payments_per_second", "beside_card_p99_ms"]

    /// The new network's fields under ``besideColumns`` and ``besideCardColumns`` (the card
    /// ones empty where no card payments were measured).
    static func besideFields(_ beside: Beside?) -> [String] {
        guard let b = beside else { return Array(repeating: "", count: besideColumns.count + besideCardColumns.count) }
        return [String(format: "%.0f", b.commitRate), String(format: "%.2f", b.commitP99), String(format: "%.0f", b.submitRate), String(format: "%.2f", b.submitP99),
                String(format: "%.0f", b.readRate), String(format: "%.2f", b.readP99), String(format: "%.3f", b.historyP99)]
            + (b.cardRate > 0 ? [String(format: "%.0f", b.cardRate), String(format: "%.2f", b.cardP99)] : ["", ""])
    }

    /// The rows of a series written by ``csv(_:)``.
    static func rows(csv text: String) throws -> [Row] {
        let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { throw CommandFailure("the CSV is empty") }
        return try lines.dropFirst().map { fields in
            func value(_ name: String) throws -> Double {
                guard let index = header.firstIndex(of: name), index < fields.count, let value = Double(fields[index]) else {
                    throw CommandFailure("the CSV has no number for \(name)")
                }
                return value
            }
            var row = Row(accounts: Int(try value("accounts")), trustLines: Int(try value("trustlines")), payments: Int(try value("payments")))
            row.load = LoadFigures(seconds: try value("load_seconds"), residentBytes: Int(try value("resident_bytes")),
                                   accountBytes: try value("bytes_per_account"), trustLineBytes: try value("bytes_per_trustline"))
            (row.commitRate, row.commitP99) = (try value("commits_per_second"), try value("commit_p99_ms"))
            row.serveSeconds = try value("serve_start_seconds")
            (row.submitRate, row.submitP99) = (try value("posts_per_second"), try value("post_p99_ms"))
            (row.readRate, row.readP99) = (try value("gets_per_second"), try value("get_p99_ms"))
            row.serveResidentBytes = Int(try value("serve_resident_bytes"))
            row.historyP99 = try value("history_p99_ms")
            row.databaseBytes = Int(try value("database_bytes"))
            if header.contains("card_payments") {
                (row.cards, row.cardRate, row.cardP99) = (Int(try value("card_payments")), try value("card_payments_per_second"), try value("card_p99_ms"))
            }
            // Empty on PostgreSQL, missing in a series from before they were measured.
            func optional(_ name: String) -> Double? { header.firstIndex(of: name).flatMap { $0 < fields.count ? Double(fields[$0]) : nil } }
            (row.cachedAtCommits, row.cachedAtPosts) = (optional("cached_at_commits"), optional("cached_at_posts"))
            let beside = Self.besideColumns.map(optional)
            if beside.allSatisfy({ $0 != nil }) {
                let b = beside.map { $0! }
                row.beside = Beside(commitRate: b[0], commitP99: b[1], submitRate: b[2], submitP99: b[3], readRate: b[4], readP99: b[5], historyP99: b[6],
                                    cardRate: optional("beside_card_payments_per_second") ?? 0, cardP99: optional("beside_card_p99_ms") ?? 0)
            }
            return row
        }
    }

    /// The rates (left axis: commits end to end, POST /transactions, GET /accounts/{id}) and the
    /// loaded state's resident memory (right axis) against accounts (logarithmic).
    static func chart(_ rows: [Row]) -> String {
        let (width, height, left, right, top, bottom) = (640.0, 380.0, 70.0, 70.0, 50.0, 50.0)
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let xs = rows.map { log10(Double(max($0.accounts, 1))) }
        let (xMin, xMax) = (xs.min() ?? 0, max(xs.max() ?? 1, (xs.min() ?? 0) + 1))
        let rates: [(String, String, [Double])] = [
            ("commits", "#1f5fa8", rows.map(\.commitRate)), ("POST /transactions", "#2e8540", rows.map(\.submitRate)),
            ("GET /accounts/{id}", "#6b3fa0", rows.map(\.readRate)), ("card payments", "#8a6d00", rows.map(\.cardRate)),
        ].filter { $0.2.contains { $0 > 0 } }
        let memory = rows.map { Double($0.load.residentBytes) / 1_048_576 }
        let rateMax = max(rates.flatMap(\.2).max() ?? 1, 1) * 1.1
        let memoryMax = max(memory.max() ?? 1, 1) * 1.1
        func x(_ value: Double) -> Double { left + (value - xMin) / (xMax - xMin) * plotWidth }
        func y(_ value: Double, _ top: Double) -> Double { height - bottom - value / top * plotHeight }
        func line(_ values: [Double], _ scale: Double, _ color: String) -> String {
            // A step where it was not measured (0) is left out, not drawn as a fall to zero.
            let measured = zip(xs, values).filter { $0.1 > 0 }
            let points = measured.map { String(format: "%.1f,%.1f", x($0), y($1, scale)) }.joined(separator: " ")
            let dots = measured.map { String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%@\"/>", x($0), y($1, scale), color) }.joined()
            return "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points)\"/>" + dots
        }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>"
        svg += String(format: "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#333\"/>", left, height - bottom, width - right, height - bottom)
        svg += String(format: "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#333\"/>", left, top, left, height - bottom)
        svg += String(format: "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#b5481c\"/>", width - right, top, width - right, height - bottom)
        for fraction in [0.0, 0.5, 1.0] {
            svg += String(format: "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.0f</text>", left - 6, y(rateMax * fraction, rateMax) + 4, rateMax * fraction)
            svg += String(format: "<text x=\"%.0f\" y=\"%.0f\" fill=\"#b5481c\">%.0f MB</text>", width - right + 6, y(memoryMax * fraction, memoryMax) + 4, memoryMax * fraction)
        }
        for row in rows {
            svg += String(format: "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%@</text>", x(log10(Double(row.accounts))), height - bottom + 18, Self.compact(row.accounts))
        }
        svg += String(format: "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">accounts (logarithmic)</text>", left + plotWidth / 2, height - 10)
        svg += String(format: "<text x=\"%.0f\" y=\"%.0f\">per second</text>", left - 40, top - 10)
        svg += String(format: "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" fill=\"#b5481c\">memory</text>", width - right + 40, top - 10)
        // The legend, one entry per line drawn.
        let legend = rates.map { ($0.0, $0.1) } + [("resident memory (loaded state)", "#b5481c")]
        for (index, (name, color)) in legend.enumerated() {
            let lx = left + 30 + Double(index % 2) * 230, ly = 14 + Double(index / 2) * 16
            svg += String(format: "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%@\" stroke-width=\"2\"/>", lx, ly - 4, lx + 18, ly - 4, color)
            svg += String(format: "<text x=\"%.0f\" y=\"%.0f\">%@</text>", lx + 24, ly, name)
        }
        for (_, color, values) in rates { svg += line(values, rateMax, color) }
        svg += line(memory, memoryMax, "#b5481c")
        return svg + "</svg>\n"
    }

    /// 10000 → "10k", 1000000 → "1M".
    static func compact(_ count: Int) -> String {
        count >= 1_000_000 && count % 1_000_000 == 0 ? "\(count / 1_000_000)M" : count >= 1_000 && count % 1_000 == 0 ? "\(count / 1_000)k" : String(count)
    }
}

/// Random accounts' newest payments read from a network `bench scale --keep` grew.
struct HistoryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Read random accounts' newest payments from a network `tender bench scale --keep` grew, as /accounts/{id}/payments?order=desc&limit=10 reads them: latency percentiles.",
        discussion: """
            One query at a time through the store's own history reader, on one connection. Run it \
            after `sync; echo 3 > /proc/sys/vm/drop_caches` to see the reads a cold machine makes \
            from disk, and again to see them from memory.
            """
    )

    @Option(help: "The SQLite ledger database (ledger.sqlite in the kept data directory), or a PostgreSQL URL.")
    var database: String

    @Option(help: "Queries to time.")
    var queries = 1_000

    func run() async throws {
        guard database.hasPrefix("postgres") || FileManager.default.fileExists(atPath: database) else { throw CommandFailure("no database at \(database)") }
        guard queries > 0 else { throw CommandFailure("--queries must be above 0") }
        let opened = try await ScaleBench.open(database)
        defer { opened.close() }
        let store = opened.store
        // At most a billion accounts: the halving's upper bound.
        let accounts = try await ScaleBench.grownAccounts(upTo: 1_000_000_000) { try await store.account(ScaleBench.bulkAccount($0)) != nil }
        guard accounts > ScaleBench.senders else { throw CommandFailure("\(database) is not a network grown by tender bench scale") }
        var rng = SystemRandomNumberGenerator()
        let (times, payments, slowest) = try await ScaleBench.historyQueries(queries, store: store, rng: &rng) { Int.random(in: ScaleBench.senders..<accounts, using: &$0) }
        func percentile(_ p: Int) -> Double { times[min(times.count - 1, times.count * p / 100)] }
        print(String(format: "%d queries over %d accounts, %.2f payments each: p50 %.3f ms, p90 %.3f, p99 %.3f, max %.3f, mean %.3f",
                     queries, accounts, Double(payments) / Double(queries), percentile(50), percentile(90), percentile(99), times.last!,
                     times.reduce(0, +) / Double(times.count)))
        print("the slowest 1% by the tenth of the queries they were asked in: " + slowest.map(String.init).joined(separator: " "))
    }
}

/// Opens a ledger database and loads its state, as `tender serve` does first.
struct LoadBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Open a SQLite ledger database and load its state: the time taken and the memory held after (resident less file-shared pages)."
    )

    @Option(help: "The SQLite ledger database, or a PostgreSQL URL (postgres://user@host:port/database).")
    var database: String

    @Flag(help: "Print only seconds,resident bytes.")
    var csv = false

    func run() async throws {
        guard database.hasPrefix("postgres") || FileManager.default.fileExists(atPath: database) else { throw CommandFailure("no database at \(database)") }
        let clock = ContinuousClock()
        let started = clock.now
        let store = try await ScaleBench.open(database)
        defer { store.close() }
        guard let state = try await store.store.loadState() else { throw CommandFailure("the database holds no ledger") }
        let seconds = CommitBench.milliseconds(clock.now - started) / 1000
        let resident = ScaleBench.residentBytes()
        let (account, line) = (Self.bytesPerAccount(state), Self.bytesPerTrustLine(state))
        if csv {
            // Integers interpolated, not through %d: String(format:) takes %d as 32 bits, and memory passes 2 GiB.
            print(String(format: "%.3f,", seconds) + String(resident) + String(format: ",%.0f,%.0f", account, line))
        } else {
            print("\(state.accounts.count) accounts, \(state.trustLines.count) trustlines" + String(format: " loaded in %.2f s; memory held %.0f MB (resident less file-shared)", seconds, Double(resident) / 1_048_576))
            print(String(format: "the state's tables: %.0f bytes an account, %.0f a trustline (slots, keys and entries; out-of-line parts of the few accounts with signers or sponsors not counted)", account, line))
            print("a slot: account id \(MemoryLayout<AccountID>.stride) + account \(MemoryLayout<AccountBody>.stride) bytes; trustline key \(MemoryLayout<TrustLineKey>.stride) + trustline \(MemoryLayout<TrustLineBody>.stride) bytes; \(state.accounts.slots) and \(state.trustLines.slots) slots")
        }
    }

    /// The accounts table's bytes over its accounts: every slot of the hash table (it keeps
    /// room to grow) holds an id and an account's body, plus a bit of its occupancy map.
    static func bytesPerAccount(_ state: LedgerState) -> Double {
        tableBytes(slots: state.accounts.slots, count: state.accounts.count, MemoryLayout<AccountID>.stride + MemoryLayout<AccountBody>.stride)
    }

    /// The same for trustlines (the asset code's own small array on the heap not counted).
    static func bytesPerTrustLine(_ state: LedgerState) -> Double {
        tableBytes(slots: state.trustLines.slots, count: state.trustLines.count, MemoryLayout<TrustLineKey>.stride + MemoryLayout<TrustLineBody>.stride)
    }

    static func tableBytes(slots: Int, count: Int, _ slot: Int) -> Double {
        count == 0 ? 0 : Double(slots) * (Double(slot) + 0.125) / Double(count)
    }
}

/// `tender serve` started on a data directory in a process of its own, on a free port.
struct ServerProcess {
    let process: Process
    let port: Int
    /// From starting the process to its banner (it listens once the state is loaded).
    let startSeconds: Double

    static func start(dataDirectory: String, database: String? = nil) async throws -> ServerProcess {
        guard let executable = Bundle.main.executableURL else { throw CommandFailure("cannot find the tender executable") }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--port", "0", "--data", dataDirectory, "--close-interval", "0", "--log-level", "error"]
            + (database.map { ["--database", $0] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let clock = ContinuousClock()
        let started = clock.now
        try process.run()
        // The banner's first line names the URL; read it off the cooperative pool.
        let banner: String = await offThePool {
            var text = ""
            while !text.contains("\n") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        let seconds = CommitBench.milliseconds(clock.now - started) / 1000
        guard let url = banner.split(separator: "\n").first?.split(separator: " ").last, let port = URLComponents(string: String(url))?.port else {
            process.terminate()
            throw CommandFailure("tender serve did not start: \(banner.prefix(300))")
        }
        return ServerProcess(process: process, port: port, startSeconds: seconds)
    }

    /// The CPU time the server has spent so far (Linux, ``ScaleBench/cpuSeconds(process:)``).
    func cpuSeconds() -> Double? {
        ScaleBench.cpuSeconds(process: String(process.processIdentifier))
    }

    /// The memory the server holds now (Linux, ``ScaleBench/heldBytes(process:)``; 0 elsewhere).
    func residentBytes() -> Int {
        ScaleBench.heldBytes(process: String(process.processIdentifier)) ?? 0
    }

    /// Stops it as Ctrl-C does (it finishes what it committed) and waits for it.
    func stop() {
        process.interrupt()
        process.waitUntilExit()
    }
}

extension ScaleBench.Beside {
    /// The median of `rows` (for two, their mean); nil for no rows.
    init?(_ rows: [ScaleBench.Row]) {
        guard !rows.isEmpty else { return nil }
        func median(_ value: KeyPath<ScaleBench.Row, Double>) -> Double { ScaleBench.median(rows.map { $0[keyPath: value] }) }
        self.init(commitRate: median(\.commitRate), commitP99: median(\.commitP99), submitRate: median(\.submitRate), submitP99: median(\.submitP99),
                  readRate: median(\.readRate), readP99: median(\.readP99), historyP99: median(\.historyP99),
                  cardRate: median(\.cardRate), cardP99: median(\.cardP99))
    }
}
