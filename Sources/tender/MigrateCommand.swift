import ArgumentParser
import Crypto
import Foundation
import Ledger
import Logging
import PostgresStore
import StellarBase
import Store

/// `tender migrate`: copies a network kept in SQLite (a data directory's `ledger.sqlite` and
/// `gateway.sqlite`) into an empty PostgreSQL database, with its whole history, then checks the
/// copy: every ledger's header and hash, every table's rows, and the balances.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a network from SQLite into PostgreSQL and verify the copy.",
        discussion: """
            Stop the tender serve that uses the data directory first. The PostgreSQL database must hold no \
            network yet; its tables are made as tender serve makes them. The copy is one PostgreSQL transaction: \
            a failure leaves nothing behind. Afterwards the ledgers are compared one by one (sequence, header and \
            hash), every table row by row, and the final state's balances and invariants; any difference fails \
            the command. Then run tender serve --data DIR --database URL (the keys stay in the data directory).
            """)

    @Option(help: "The data directory of the network to copy (its ledger.sqlite and gateway.sqlite).")
    var from: String = ".tender"

    @Option(help: "The PostgreSQL database to copy into (postgres://user[:password]@host[:port]/database).")
    var to: String

    @Flag(help: "Only verify an earlier copy (nothing is written).")
    var check = false

    func run() async throws {
        let ledgerPath = from + "/ledger.sqlite", gatewayPath = from + "/gateway.sqlite"
        guard FileManager.default.fileExists(atPath: ledgerPath) else { throw CommandFailure("no ledger in \(from) (\(ledgerPath) is missing)") }
        let database: PostgresStore.PostgresDatabase
        do {
            database = try PostgresStore.PostgresDatabase(url: to, logger: Logger(label: "tender.migrate", factory: { _ in SwiftLogNoOpLogHandler() }))
        } catch {
            throw CommandFailure("\(error)")
        }
        defer { database.shutdown() }
        let migration = NetworkMigration(
            ledgerPath: ledgerPath, ledger: try Self.open(ledgerPath),
            gateway: FileManager.default.fileExists(atPath: gatewayPath) ? try Self.open(gatewayPath) : nil,
            target: PostgresTables(database))
        do {
            _ = try await PostgresLedgerStore(database)
            _ = try await PostgresGatewayStore(database)
            if !check {
                let copied = try await migration.copy()
                print("copied \(copied.rows) rows in \(copied.tables) tables into \(Self.shown(to))")
            }
            let report = try await migration.verify()
            for line in report { print(line) }
        } catch let failure as MigrationFailure {
            throw CommandFailure(failure.message)
        } catch {
            throw CommandFailure("the migration failed: \(error)")
        }
    }

    /// A SQLite file, opened read-only.
    static func open(_ path: String) throws -> SQLiteTables {
        do {
            return try SQLiteTables(readOnly: path)
        } catch {
            throw CommandFailure("cannot open \(path): \(error)")
        }
    }

    /// The URL without its password.
    static func shown(_ url: String) -> String {
        url.replacingOccurrences(of: #":[^:@/]*@"#, with: ":***@", options: .regularExpression)
    }
}

struct MigrationFailure: Error {
    let message: String
}

/// The copy and its verification, table by table (the two stores have the same tables,
/// ``StoreTables``): each store reads and writes its own (``SQLiteTables``,
/// ``PostgresTables``); this only moves the rows between them and compares.
struct NetworkMigration {
    let ledgerPath: String
    let ledger: SQLiteTables
    let gateway: SQLiteTables?
    let target: PostgresTables

    static let batch = 500

    var sources: [(SQLiteTables, [String])] {
        [(ledger, StoreTables.ledger)] + (gateway.map { [($0, StoreTables.gateway)] } ?? [])
    }

    /// The columns a table has in both databases, with PostgreSQL's type of each.
    func columns(_ table: String, _ source: SQLiteTables) async throws -> [PostgresTables.Column] {
        let sqlite = try await source.columns(table)
        return try await target.columns(table).filter { sqlite.contains($0.name) }.map { PostgresTables.Column(name: $0.name, type: $0.type) }
    }

    // MARK: Copy

    func copy() async throws -> (tables: Int, rows: Int) {
        let existing = try await target.networkSize()
        guard existing.ledgers == 0, existing.merchants == 0 else {
            throw MigrationFailure(message: "the database already holds a network (\(existing.ledgers) ledgers, \(existing.merchants) merchants); migrate into an empty database")
        }
        var plan: [(SQLiteTables, String, [PostgresTables.Column])] = []
        for (source, tables) in sources {
            for table in tables { plan.append((source, table, try await columns(table, source))) }
        }
        let planned = plan
        return try await target.database.transaction { transaction in
            var rows = 0
            for (source, table, columns) in planned {
                var offset = 0
                while true {
                    let chunk = try await source.rows(table, columns: columns.map(\.name), limit: Self.batch, offset: offset)
                    if chunk.isEmpty { break }
                    try await PostgresTables.insert(chunk, into: table, columns, transaction)
                    rows += chunk.count
                    offset += chunk.count
                }
            }
            try await PostgresTables.continueObjectSequence(transaction)
            try await PostgresLedgerStore.placeHistoryRows(transaction)
            return (planned.count, rows)
        }
    }

    // MARK: Verify

    /// Compares the copy with its source: the ledgers one by one, every table's rows (a digest of
    /// each side's row hashes), and the final state's balances and invariants. Returns the
    /// report's lines.
    func verify() async throws -> [String] {
        var report: [String] = []
        // The ledgers: the same sequences, none missing, each header (so its hash) the same.
        let sourceHeaders = try await ledger.ledgerHeaders()
        let targetHeaders = try await target.ledgerHeaders()
        guard let first = sourceHeaders.first, let last = sourceHeaders.last else { throw MigrationFailure(message: "the source holds no ledger") }
        guard sourceHeaders.count == Int(last.sequence - first.sequence + 1) else { throw MigrationFailure(message: "the source's ledgers are not contiguous") }
        guard targetHeaders.count == sourceHeaders.count else {
            throw MigrationFailure(message: "the copy holds \(targetHeaders.count) ledgers, the source \(sourceHeaders.count)")
        }
        for ((sequence, header), (copiedSequence, copied)) in zip(sourceHeaders, targetHeaders) {
            guard sequence == copiedSequence, header == copied, (try? LedgerHeader(xdrBytes: copied))?.sequence == UInt32(sequence) else {
                throw MigrationFailure(message: "ledger \(sequence) differs in the copy (its hash would too)")
            }
        }
        let lastHash = SHA256.hash(data: last.header).map { String(format: "%02x", $0) }.joined()
        report.append("ledgers \(first.sequence) to \(last.sequence): \(sourceHeaders.count) headers and hashes identical; the last is \(lastHash)")

        // Every table, row by row.
        var rows = 0
        for (source, tables) in sources {
            for table in tables {
                let names = try await columns(table, source).map(\.name)
                let (sourceCount, sourceDigest) = try await source.digest(table, columns: names)
                let (targetCount, targetDigest) = try await target.digest(table, columns: names)
                guard sourceCount == targetCount, sourceDigest == targetDigest else {
                    throw MigrationFailure(message: "the table \(table) differs: \(sourceCount) rows in the source, \(targetCount) in the copy\(sourceCount == targetCount ? ", not the same rows" : "")")
                }
                rows += sourceCount
            }
        }
        report.append("\(rows) rows in \(sources.reduce(0) { $0 + $1.1.count }) tables identical")
        // The state: the same balances, and the invariants hold.
        guard let sourceState = try await SQLiteLedgerStore(path: ledgerPath).loadState(),
              let copiedState = try await PostgresLedgerStore(target.database).loadState() else {
            throw MigrationFailure(message: "the state could not be loaded")
        }
        if let broken = copiedState.verifyAllInvariants() { throw MigrationFailure(message: "the copy's invariants fail: \(broken)") }
        guard copiedState.header == sourceState.header else { throw MigrationFailure(message: "the copy's last header differs") }
        for (id, account) in sourceState.accounts where copiedState.account(id)?.balance != account.balance {
            throw MigrationFailure(message: "the balance of \(id.strKey) differs in the copy")
        }
        for (key, line) in sourceState.trustLines where copiedState.trustLines[key]?.balance != line.balance {
            throw MigrationFailure(message: "the \(key.asset) balance of \(key.accountID.strKey) differs in the copy")
        }
        guard copiedState.accounts.count == sourceState.accounts.count, copiedState.trustLines.count == sourceState.trustLines.count else {
            throw MigrationFailure(message: "the copy has \(copiedState.accounts.count) accounts and \(copiedState.trustLines.count) trust lines, the source \(sourceState.accounts.count) and \(sourceState.trustLines.count)")
        }
        let xlm = copiedState.accounts.values.reduce(Int64(0)) { $0 + $1.balance }
        report.append("\(copiedState.accounts.count) accounts and \(copiedState.trustLines.count) trust lines with the same balances; \(Amount.format(xlm)) XLM held plus \(Amount.format(copiedState.header.feePool)) in the fee pool make the \(Amount.format(copiedState.header.totalCoins)) total; invariants hold")
        return report
    }
}
