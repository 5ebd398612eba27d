import Foundation
import PostgresNIO

/// Databases made and dropped beside the one a URL names, in the same cluster: what `tender
/// bench scale --beside` needs to measure a fresh copy of a new network before and after each
/// step on PostgreSQL, as it copies a SQLite file. A copy is PostgreSQL's own (`CREATE DATABASE
/// ... TEMPLATE`), file by file, so it costs seconds whatever the network's history.
extension PostgresDatabase {
    /// A name PostgreSQL takes as it is: lower-case ASCII letters, digits and underscores, not
    /// starting with a digit, at most 63 bytes (longer names are cut, so two could meet).
    public struct DatabaseName: Sendable, Equatable, CustomStringConvertible {
        public let text: String

        public init(_ text: String) throws {
            let bytes = Array(text.utf8)
            guard let first = bytes.first, bytes.count <= 63, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
                  bytes.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_") })
            else { throw PostgresURLError(url: text, reason: "a database name here is 1-63 of a-z, 0-9 and _, not starting with a digit") }
            self.text = text
        }

        /// As an SQL identifier.
        var quoted: String { "\"\(text)\"" }
        public var description: String { text }
    }

    /// The URL `url` with its database replaced by `name` (user, password, host, port and
    /// options kept).
    public static func url(_ url: String, naming name: DatabaseName) throws -> String {
        _ = try Parts(url: url)
        guard var components = URLComponents(string: url) else { throw PostgresURLError(url: url, reason: "not a URL") }
        components.path = "/" + name.text
        guard let named = components.string else { throw PostgresURLError(url: url, reason: "cannot name a database in it") }
        return named
    }

    /// Makes the empty database `name`, or a copy of `template` when given. A template must have
    /// no session open on it: the sessions still open on it (a client shut down closes its
    /// connections a moment later) are ended first.
    public func createDatabase(_ name: DatabaseName, template: DatabaseName? = nil) async throws {
        guard let template else {
            try await execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name.quoted)"))
            return
        }
        try await endSessions(on: template)
        try await execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name.quoted) TEMPLATE \(template.quoted)"))
    }

    /// Drops the database `name` if it is there, ending the sessions still open on it.
    public func dropDatabase(_ name: DatabaseName) async throws {
        try await execute(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name.quoted) WITH (FORCE)"))
    }

    /// The databases of the cluster whose names start with `prefix`, sorted.
    public func databases(prefixed prefix: String) async throws -> [String] {
        try await rows("SELECT datname FROM pg_database WHERE starts_with(datname, \(prefix)) ORDER BY datname") { try $0.decode(String.self) }
    }

    private func endSessions(on name: DatabaseName) async throws {
        try await execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(name.text) AND pid <> pg_backend_pid()")
    }
}
