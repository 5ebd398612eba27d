import Foundation
import Gateway
import PostgresNIO
@testable import PostgresStore
import TenderTesting
import Testing

/// A gateway gets new merchants. Until the table's statistics are gathered again (PostgreSQL
/// does it when a tenth of the table has changed) the planner knows only the merchants it saw
/// then, and estimates one row for any other: an `id = ... AND merchant = ...` it may plan as a
/// scan of that merchant's index, reading every object of theirs (issue 30: an update 1.7 s
/// with a new merchant's 157,000 objects beside another's million). Each query that names an
/// id must find it through the id's key, whoever owns it.
@Suite("The gateway's store on PostgreSQL finds a new merchant's objects by their ids")
struct GatewayStorePlanTests {
    @Test(.tags(.slow), TestSpeed.slowSuites) func aNewMerchantsObjectsAreFoundByTheirIDs() async throws {
        let server = try await TemporaryPostgres.start()
        do {
            let database = try PostgresStore.PostgresDatabase(url: server.url)
            defer { database.shutdown() }
            try await Self.check(database, try await PostgresGatewayStore(database))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func check(_ database: PostgresStore.PostgresDatabase, _ store: PostgresGatewayStore) async throws {
        // An older merchant's objects, the statistics gathered, then a new merchant's.
        try await database.execute("""
            INSERT INTO object (id, merchant, kind, created, version, body)
            SELECT 'pi_old' || n, 'acct_old', 'payment_intent', n, 0, '\\x7b7d' FROM generate_series(1, 20000) AS n
            """)
        try await database.execute("ANALYZE object")
        try await database.execute("""
            INSERT INTO object (id, merchant, kind, created, version, body)
            SELECT 'pi_new' || n, 'acct_new', 'payment_intent', n, 0, '\\x7b7d' FROM generate_series(1, 1000) AS n
            """)

        let object = try #require(try await store.object(id: "pi_new500", kind: "payment_intent", merchant: "acct_new"))
        #expect(object.created == 500 && object.merchant == "acct_new")
        #expect(try await store.object(id: "pi_new500", kind: "payment_intent", merchant: "acct_old") == nil)
        #expect(try await store.object(id: "pi_old500", kind: "payment_intent", merchant: "acct_new") == nil)
        let after = try PostgresGatewayStore.listQuery(kind: "payment_intent", merchant: "acct_new", ListRequest(limit: 3, startingAfter: "pi_new500"))
        let before = try PostgresGatewayStore.listQuery(kind: "payment_intent", merchant: "acct_new", ListRequest(limit: 3, endingBefore: "pi_new500"))
        let byID: [(String, PostgresQuery)] = [
            ("read", PostgresGatewayStore.objectQuery(id: "pi_new500", kind: "payment_intent", merchant: "acct_new")),
            ("update", PostgresGatewayStore.updateQuery(object)),
            ("retire", PostgresGatewayStore.retireQuery(object, as: "deleted_payment_intent")),
        ]
        for (name, query) in byID {
            let plan = try await Self.plan(database, query)
            #expect(plan.contains("Index Scan using object_id_key on object"), "\(name): \(plan)")
            #expect(!plan.contains("object_by_"), "\(name): \(plan)")
        }
        // A page's cursor is found by its id; the page itself is read in the merchant's order.
        for (name, query) in [("after", after.query), ("before", before.query)] {
            let plan = try await Self.plan(database, query)
            #expect(plan.contains("Index Scan using object_id_key on object"), "\(name): \(plan)")
            #expect(plan.components(separatedBy: "using object_by_").count <= 2, "\(name): \(plan)")
        }

        // And they do what they say, for the new merchant and for no other.
        #expect(try await store.list(kind: "payment_intent", merchant: "acct_new", ListRequest(limit: 3, startingAfter: "pi_new500")).objects.map(\.id)
            == ["pi_new499", "pi_new498", "pi_new497"])
        #expect(try await store.list(kind: "payment_intent", merchant: "acct_new", ListRequest(limit: 3, endingBefore: "pi_new500")).objects.map(\.id)
            == ["pi_new503", "pi_new502", "pi_new501"])
        let other = StoredObject(
            id: object.id, merchant: "acct_old", kind: object.kind, created: object.created, version: object.version, body: object.body)
        #expect(!(try await store.update(other)))
        #expect(!(try await store.retire(other, as: "deleted_payment_intent")))
        var changed = object
        changed.body = Array(#"{"n":1}"#.utf8)
        #expect(try await store.update(changed))
        #expect(try await store.object(id: "pi_new500", kind: "payment_intent", merchant: "acct_new")?.version == 1)
        #expect(!(try await store.retire(object, as: "deleted_payment_intent")), "no longer at its version")
    }

    /// The plan PostgreSQL chooses for `query` with its values, as `EXPLAIN` prints it.
    static func plan(_ database: PostgresStore.PostgresDatabase, _ query: PostgresQuery) async throws -> String {
        try await database.rows(PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds)) { try $0.decode(String.self) }.joined(separator: "\n")
    }
}
