import Foundation
import PostgresNIO
@testable import PostgresStore
import TenderTesting
import Testing

/// The databases `tender bench scale --beside` makes beside a step's in one cluster: a new
/// network's, and a fresh copy of it before each measure, dropped after.
@Suite("Databases made, copied and dropped beside another")
struct DatabaseCopiesTests {
    typealias Name = PostgresStore.PostgresDatabase.DatabaseName

    @Test func onlyNamesPostgreSQLTakesAsTheyAreAreMade() throws {
        for good in ["a", "tender_beside_0f3a", "_x9", String(repeating: "z", count: 63)] {
            #expect(try Name(good).text == good)
        }
        // Upper case is folded and anything else must be quoted; a leading digit is not a name;
        // longer than 63 bytes is cut by PostgreSQL, so two long names could meet.
        for bad in ["", "Tender", "9lives", "a-b", "a b", "a\"b", "é", String(repeating: "z", count: 64)] {
            #expect(throws: PostgresURLError.self) { try Name(bad) }
        }
    }

    @Test func aURLNamesAnotherDatabaseKeepingEverythingElse() throws {
        let name = try Name("tender_beside_1")
        #expect(try PostgresStore.PostgresDatabase.url("postgres://tender:secret@127.0.0.1:5433/big?sslmode=disable", naming: name)
            == "postgres://tender:secret@127.0.0.1:5433/tender_beside_1?sslmode=disable")
        #expect(try PostgresStore.PostgresDatabase.url("postgres://tender@localhost", naming: name) == "postgres://tender@localhost/tender_beside_1")
        #expect(throws: PostgresURLError.self) { try PostgresStore.PostgresDatabase.url("mysql://tender@localhost/x", naming: name) }
    }

    /// A copy holds what its template held when copied and nothing written to either after; a
    /// session left open on the template does not stop the copy, nor one on a copy its drop.
    @Test func aCopyHoldsItsTemplatesRowsAndIsDroppedWithSessionsOpen() async throws {
        let server = try await TemporaryPostgres.start()
        do {
            let cluster = try PostgresStore.PostgresDatabase(url: server.url)
            defer { cluster.shutdown() }
            let (template, copy) = (try Name("tender_beside_t"), try Name("tender_beside_t_copy"))
            try await cluster.createDatabase(template)
            let original = try PostgresStore.PostgresDatabase(url: try PostgresStore.PostgresDatabase.url(server.url, naming: template))
            defer { original.shutdown() }
            try await original.execute("CREATE TABLE kept (n INTEGER PRIMARY KEY)")
            try await original.execute("INSERT INTO kept SELECT generate_series(1, 500)")
            // The template's client keeps its connection open: it is ended for the copy.
            try await cluster.createDatabase(copy, template: template)
            #expect(try await cluster.databases(prefixed: "tender_beside_") == ["tender_beside_t", "tender_beside_t_copy"])
            let copied = try PostgresStore.PostgresDatabase(url: try PostgresStore.PostgresDatabase.url(server.url, naming: copy))
            defer { copied.shutdown() }
            #expect(try await copied.rows("SELECT count(*), sum(n) FROM kept") { try $0.decode((Int, Int).self) }.map { [$0.0, $0.1] } == [[500, 125_250]])
            // Written after the copy: the copy does not see the template's rows, nor it the copy's.
            try await copied.execute("DELETE FROM kept WHERE n > 100")
            #expect(try await original.rows("SELECT count(*) FROM kept") { try $0.decode(Int.self) } == [500])
            #expect(try await copied.rows("SELECT count(*) FROM kept") { try $0.decode(Int.self) } == [100])
            // Dropped while its client's session is open; dropping one that is gone is no error.
            try await cluster.dropDatabase(copy)
            try await cluster.dropDatabase(copy)
            #expect(try await cluster.databases(prefixed: "tender_beside_") == ["tender_beside_t"])
            // A name already taken is PostgreSQL's error, not a silent second database.
            await #expect(throws: (any Error).self) { try await cluster.createDatabase(template) }
            try await cluster.dropDatabase(template)
            #expect(try await cluster.databases(prefixed: "tender_beside_").isEmpty)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
