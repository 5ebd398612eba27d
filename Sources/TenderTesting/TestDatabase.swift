/// Where a test's server keeps its data: the SQLite default or a throwaway PostgreSQL, so a
/// suite runs the same checks on both (`@Test(arguments: TestDatabase.allCases)`).
public enum TestDatabase: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { rawValue }

    /// Both, or SQLite only when only the fast tests run (``TestSpeed/fastOnly``).
    public static var allCases: [TestDatabase] { TestSpeed.fastOnly ? [.sqlite] : [.sqlite, .postgres] }

    /// Runs `body` with the database URL to configure (nil: SQLite), and stops the throwaway
    /// PostgreSQL however `body` ends.
    public func with(_ body: (String?) async throws -> Void) async throws {
        guard self == .postgres else { return try await body(nil) }
        let server = try await TemporaryPostgres.start()
        do {
            try await body(server.url)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
