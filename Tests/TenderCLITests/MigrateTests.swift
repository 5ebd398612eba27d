import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import PostgresStore
import StellarBase
import TenderTesting
import Testing

/// `tender migrate`: a network made on SQLite, copied into PostgreSQL, verified, and served
/// from there with the same answers; a second copy refused; a tampered copy caught.
@Suite("tender migrate", .serialized, .tags(.slow), TestSpeed.slowSuites)
struct MigrateTests {
    /// The JSON of some of Horizon's answers, with the server's own address taken out.
    static func answers(_ base: String, accounts: [String]) async throws -> [String: String] {
        var answers: [String: String] = [:]
        let paths = ["/ledgers?limit=200", "/transactions?limit=200", "/operations?limit=200", "/payments?limit=200&order=desc"]
            + accounts.map { "/accounts/\($0)" } + accounts.map { "/accounts/\($0)/transactions?limit=200" }
        for path in paths {
            let (body, response) = try await URLSession.shared.data(from: URL(string: base + path)!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(path)")
            answers[path] = String(decoding: body, as: UTF8.self).replacingOccurrences(of: base, with: "BASE")
        }
        return answers
    }

    @Test func aSQLiteNetworkMovesToPostgreSQLWithItsHistory() async throws {
        let temporary = TemporaryDirectory("migrate")
        defer { temporary.remove() }
        let data = temporary.path + "/data"
        let alice = try KeyPair(seed: Array(repeating: 41, count: 32)).accountID.strKey
        let bob = try KeyPair(seed: Array(repeating: 42, count: 32)).accountID.strKey
        var before: [String: String] = [:]
        try await ServedTender.with(.sqlite, ["serve", "--port", "0", "--data", data, "--close-interval", "0"]) { served in
            for account in [alice, bob] {
                let (_, response) = try await URLSession.shared.data(from: URL(string: served.url + "/friendbot?addr=\(account)")!)
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
            }
            let made = try await Tender.run(["gateway", "merchants", "create", "Coffee shop", "--data", data, "--url", served.url])
            #expect(made.status == 0, "\(made.stderr)")
            before = try await Self.answers(served.url, accounts: [alice, bob])
        }
        let original = before

        try await TestDatabase.postgres.with { url in
            // A password in the URL (the throwaway cluster trusts local connections and ignores it).
            let url = try #require(url).replacingOccurrences(of: "postgres://tender@", with: "postgres://tender:s3cret-word@")
            let copied = try await Tender.run(["migrate", "--from", data, "--to", url])
            #expect(copied.status == 0, "\(copied.stderr)")
            #expect(copied.stdout.contains("headers and hashes identical"), "\(copied.stdout)")
            #expect(copied.stdout.contains("tables identical"), "\(copied.stdout)")
            #expect(copied.stdout.contains("invariants hold"), "\(copied.stdout)")
            #expect(!copied.stdout.contains("s3cret-word") && copied.stdout.contains("tender:***@"), "the URL is shown without its password")

            let again = try await Tender.run(["migrate", "--from", data, "--to", url])
            #expect(again.status != 0)
            #expect(again.stderr.contains("already holds a network"), "\(again.stderr)")

            // --check verifies an earlier copy: this one passes; a row changed in it is caught.
            let checked = try await Tender.run(["migrate", "--from", data, "--to", url, "--check"])
            #expect(checked.status == 0, "\(checked.stderr)")
            let database = try PostgresDatabase(url: url, logger: Logger(label: "test"))
            defer { database.shutdown() }
            // Each copied history row keeps where its transaction's row went (migration 116's
            // place, which SQLite's rows do not have).
            let placed = try await database.rows("""
                SELECT count(*), count(t.id) FROM account_history a LEFT JOIN transactions t ON t.ctid = a.tx AND t.id = a.toid - (a.toid & 4095)
                """) { try $0.decode((Int64, Int64).self) }
            #expect(placed.first.map { $0.0 > 3 && $0.0 == $0.1 } == true, "\(placed)")
            try await database.execute("UPDATE transactions SET fee_charged = fee_charged + 1 WHERE id = (SELECT MAX(id) FROM transactions)")
            let tampered = try await Tender.run(["migrate", "--from", data, "--to", url, "--check"])
            #expect(tampered.status != 0)
            #expect(tampered.stderr.contains("the table transactions differs"), "\(tampered.stderr)")
            try await database.execute("UPDATE transactions SET fee_charged = fee_charged - 1 WHERE id = (SELECT MAX(id) FROM transactions)")
            try await database.execute("UPDATE ledger_headers SET close_time = close_time + 1 WHERE sequence = (SELECT MAX(sequence) FROM ledger_headers)")
            let tamperedLedger = try await Tender.run(["migrate", "--from", data, "--to", url, "--check"])
            #expect(tamperedLedger.stderr.contains("the table ledger_headers differs"), "\(tamperedLedger.stderr)")
            try await database.execute("UPDATE ledger_headers SET close_time = close_time - 1 WHERE sequence = (SELECT MAX(sequence) FROM ledger_headers)")

            // Served from PostgreSQL: the same answers, and the network goes on.
            try await ServedTender.with(.sqlite, ["serve", "--port", "0", "--data", data, "--close-interval", "0", "--database", url]) { served in
                let after = try await Self.answers(served.url, accounts: [alice, bob])
                for (path, answer) in original { #expect(after[path] == answer, "\(path) answers differently from PostgreSQL") }
                let carol = try KeyPair(seed: Array(repeating: 43, count: 32)).accountID.strKey
                let (_, response) = try await URLSession.shared.data(from: URL(string: served.url + "/friendbot?addr=\(carol)")!)
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
                let merchants = try await Tender.run(["gateway", "merchants", "list", "--data", data, "--url", served.url])
                #expect(merchants.stdout.contains("Coffee shop"), "\(merchants.stdout) \(merchants.stderr)")
                // Every transaction found by its hash, the copied ones and carol's, placed after them.
                let (listed, _) = try await URLSession.shared.data(from: URL(string: served.url + "/transactions?limit=200")!)
                let records = try #require((try JSONSerialization.jsonObject(with: listed) as? [String: Any]).flatMap {
                    ($0["_embedded"] as? [String: Any])?["records"] as? [[String: Any]]
                })
                let hashes = records.compactMap { $0["hash"] as? String }
                #expect(hashes.count == records.count && hashes.count > 3)
                for hash in hashes {
                    let (_, found) = try await URLSession.shared.data(from: URL(string: served.url + "/transactions/\(hash)")!)
                    #expect((found as? HTTPURLResponse)?.statusCode == 200, "\(hash)")
                }
                let counts = try await database.rows("SELECT (SELECT COUNT(*) FROM transactions), (SELECT COUNT(*) FROM transaction_hashes)") {
                    try $0.decode((Int64, Int64).self)
                }
                #expect(counts.first.map { $0.0 == $0.1 && $0.0 == Int64(hashes.count) } == true, "\(counts)")
            }

        }
    }
}
