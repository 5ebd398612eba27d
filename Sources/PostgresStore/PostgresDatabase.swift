import Foundation
import Logging
import PostgresNIO

/// A PostgreSQL database through postgres-nio's pooled `PostgresClient`, with the few ways
/// Tender's stores use it: a statement, rows decoded as a tuple, a count of rows, and a
/// transaction on one connection (rolled back when its body throws).
public final class PostgresDatabase: Sendable {
    public let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>

    /// Starts a client for `url` (`postgres://user[:password]@host[:port]/database`).
    public init(url: String, logger: Logger = Logger(label: "tender.postgres")) throws {
        let configuration = try Self.configuration(url: url)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        // Started at once, so that the client counts as running (its first step, before any
        // suspension) before a first statement leases a connection: otherwise one asked for
        // in the moment before the task began logged postgres-nio's warning that `run()` had
        // not been called (the lease waited for the pool all the same).
        if #available(macOS 26, iOS 26, *) {
            runner = Task.immediate { await client.run() }
        } else {
            runner = Task { await client.run() }
        }
    }

    /// Stops the client (its connections close).
    public func shutdown() {
        runner.cancel()
    }

    deinit { runner.cancel() }

    /// A URL's parts as postgres-nio's configuration (no TLS: Tender's databases are local or
    /// on a private network; a `sslmode` other than disable is refused rather than ignored).
    static func configuration(url: String) throws -> PostgresClient.Configuration {
        let parts = try Parts(url: url)
        return PostgresClient.Configuration(
            host: parts.host, port: parts.port, username: parts.user, password: parts.password, database: parts.database, tls: .disable)
    }

    /// A connection of its own to the database at `url`, outside the pool (a session that must
    /// last: the leader's lock, a LISTEN). Close it before it goes.
    static func connect(url: String, id: Int, logger: Logger) async throws -> PostgresConnection {
        let parts = try Parts(url: url)
        return try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: parts.host, port: parts.port, username: parts.user, password: parts.password, database: parts.database, tls: .disable),
            id: id, logger: logger)
    }

    /// What a database URL names.
    struct Parts {
        let host: String
        let port: Int
        let user: String
        let password: String?
        let database: String

        init(url: String) throws {
            guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
                  let host = components.host, !host.isEmpty, let user = components.user, !user.isEmpty else {
                throw PostgresURLError(url: url, reason: "expected postgres://user[:password]@host[:port]/database")
            }
            if let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value, mode != "disable" {
                throw PostgresURLError(url: url, reason: "sslmode=\(mode) is not supported (use sslmode=disable)")
            }
            let database = String(components.path.dropFirst())
            self.host = host
            port = components.port ?? 5432
            self.user = user
            password = components.password
            self.database = database.isEmpty ? user : database
        }
    }

    public func execute(_ query: PostgresQuery) async throws {
        try await client.withConnection { connection in try await connection.execute(query, logger: self.logger) }
    }

    /// The statement's rows, each made into a `T` (decode the row as a tuple there).
    public func rows<T: Sendable>(_ query: PostgresQuery, _ transform: @escaping @Sendable (PostgresRow) throws -> T) async throws -> [T] {
        try await client.withConnection { connection in try await connection.rows(query, transform, logger: self.logger) }
    }

    /// Runs `body` in a transaction on one connection: committed when it returns, rolled back
    /// when it throws. `begin` may give the transaction's mode (`BEGIN ISOLATION LEVEL
    /// REPEATABLE READ READ ONLY`: one snapshot for every statement).
    public func transaction<T: Sendable>(
        _ begin: PostgresQuery = "BEGIN", _ body: @Sendable (Transaction) async throws -> T
    ) async throws -> T {
        try await client.withConnection { connection in
            let transaction = Transaction(connection: connection, logger: self.logger)
            try await connection.execute(begin, logger: self.logger)
            let result: T
            do {
                result = try await body(transaction)
            } catch {
                try? await connection.execute("ROLLBACK", logger: self.logger)
                throw error
            }
            try await connection.execute("COMMIT", logger: self.logger)
            return result
        }
    }

    /// One connection inside a transaction.
    public struct Transaction: Sendable {
        let connection: PostgresConnection
        let logger: Logger

        public func execute(_ query: PostgresQuery) async throws {
            try await connection.execute(query, logger: logger)
        }

        public func rows<T: Sendable>(_ query: PostgresQuery, _ transform: @escaping @Sendable (PostgresRow) throws -> T) async throws -> [T] {
            try await connection.rows(query, transform, logger: logger)
        }

        /// Hands each of the statement's rows to `body` as it arrives.
        public func forEachRow(_ query: PostgresQuery, _ body: (PostgresRow) async throws -> Void) async throws {
            for try await row in try await connection.query(query, logger: logger) { try await body(row) }
        }

        /// How many rows the statement answered (an UPDATE ... RETURNING, say).
        public func count(_ query: PostgresQuery) async throws -> Int {
            var count = 0
            for try await _ in try await connection.query(query, logger: logger) { count += 1 }
            return count
        }
    }
}

extension PostgresConnection {
    /// Runs a statement and reads its answer to the end.
    func execute(_ query: PostgresQuery, logger: Logger) async throws {
        for try await _ in try await self.query(query, logger: logger) {}
    }

    func rows<T: Sendable>(_ query: PostgresQuery, _ transform: (PostgresRow) throws -> T, logger: Logger) async throws -> [T] {
        var rows: [T] = []
        for try await row in try await self.query(query, logger: logger) {
            rows.append(try transform(row))
        }
        return rows
    }
}

public struct PostgresURLError: Error, CustomStringConvertible {
    public let url: String
    public let reason: String
    public var description: String {
        // The password is not repeated.
        let shown = (try? NSRegularExpression(pattern: ":[^:@/]*@")).map { $0.stringByReplacingMatches(in: url, range: NSRange(url.startIndex..., in: url), withTemplate: ":***@") } ?? url
        return "invalid database URL \(shown): \(reason)"
    }
}

/// Tender's numbered migrations, recorded in `tender_migration`: each applied once, in order,
/// in a transaction of its own, under an advisory lock so that several nodes starting together
/// do not apply one twice.
public enum PostgresMigrations {
    public struct Migration: Sendable {
        public let number: Int64
        public let name: String
        public let statements: [String]
        /// Run after the statements, in their transaction: for data SQL alone cannot move.
        public let backfill: (@Sendable (PostgresDatabase.Transaction) async throws -> Void)?

        public init(number: Int64, name: String, statements: [String], backfill: (@Sendable (PostgresDatabase.Transaction) async throws -> Void)? = nil) {
            self.number = number
            self.name = name
            self.statements = statements
            self.backfill = backfill
        }
    }

    /// The advisory lock's key while migrating ("tender" in ASCII).
    static let lockKey: Int64 = 0x74656E646572

    /// Runs the migrations `database` has not run, each in a transaction of its own under an
    /// advisory lock (several servers may start at once). When some of the list had run before,
    /// each one still to run is logged as a notice before it runs: some rewrite tables, minutes
    /// on a large network.
    public static func migrate(_ database: PostgresDatabase, _ migrations: [Migration]) async throws {
        try await database.execute("""
            CREATE TABLE IF NOT EXISTS tender_migration (
                number BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
            """)
        // Whether these tables were made before (some of this list ran), not made now.
        let ran = Set(try await database.rows("SELECT number FROM tender_migration") { try $0.decode(Int64.self) })
        let upgrading = migrations.contains { ran.contains($0.number) }
        for migration in migrations.sorted(by: { $0.number < $1.number }) {
            try await database.transaction { transaction in
                try await transaction.execute("SELECT pg_advisory_xact_lock(\(lockKey))")
                let applied = try await transaction.count("SELECT 1 FROM tender_migration WHERE number = \(migration.number)")
                guard applied == 0 else { return }
                if upgrading {
                    database.logger.notice(
                        "upgrading the database (on a large network this can take minutes)",
                        metadata: ["migration": "\(migration.number) \(migration.name)"])
                }
                for statement in migration.statements { try await transaction.execute(PostgresQuery(unsafeSQL: statement)) }
                try await migration.backfill?(transaction)
                try await transaction.execute("INSERT INTO tender_migration (number, name) VALUES (\(migration.number), \(migration.name))")
            }
        }
    }
}
