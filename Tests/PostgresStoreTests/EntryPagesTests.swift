import Foundation
import Ledger
import NIOCore
@testable import PostgresStore
import StellarBase
import TenderTesting
import Testing

/// An account's entry rewritten by a payment keeps its page on PostgreSQL: the tables of
/// entries rewritten in place leave room on each page for a new version (a HOT update, no new
/// key in the index), where full pages sent every rewritten account elsewhere.
@Suite("Entries rewritten on their own page, on PostgreSQL")
struct EntryPagesTests {
    @Test func aPaidAccountsNewEntryStaysOnItsPage() async throws {
        let server = try await TemporaryPostgres.start()
        do {
            let database = try PostgresDatabase(url: server.url)
            defer { database.shutdown() }
            let store = try await PostgresLedgerStore(database)
            var (state, genesis) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
            try await store.commit(genesis)
            let root = LedgerState.rootKeyPair(network: .standalone)
            var sequence = state.account(root.accountID)!.sequenceNumber
            func fromRoot(_ operations: [StellarBase.Operation]) -> PreparedTransaction {
                sequence += 1
                let transaction = Transaction(
                    sourceAccount: .ed25519(root.accountID), fee: UInt32(100 * operations.count), sequenceNumber: sequence, operations: operations)
                return PreparedTransaction.prepare(transaction.signed(by: [root], on: .standalone), network: .standalone)
            }
            // 600 accounts (a dozen pages or so) in one ledger, then a payment to every tenth:
            // a few on each page, rewritten in one ledger.
            let accounts = try (0..<600).map { index in
                try KeyPair(seed: [UInt8(index & 0xFF), UInt8(index >> 8)] + (2..<32).map { UInt8($0) }).accountID
            }
            #expect(Set(accounts).count == 600)
            let creations = stride(from: 0, to: 600, by: 100).map { start in
                fromRoot(accounts[start..<start + 100].map {
                    StellarBase.Operation(.createAccount(CreateAccountOperation(destination: $0, startingBalance: 10 * Amount.stroopsPerUnit)))
                })
            }
            try await store.commit(try state.closeLedger(creations, closeTime: state.header.closeTime + 1))
            let paid = stride(from: 0, to: 600, by: 10).map { accounts[$0] }
            let before = try await Self.pages(database)
            let payments = fromRoot(paid.map {
                StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519($0), asset: .native, amount: 1)))
            })
            let closed = try state.closeLedger([payments], closeTime: state.header.closeTime + 1)
            #expect(closed.transactions.allSatisfy { $0.application.result.isSuccess })
            try await store.commit(closed)
            let after = try await Self.pages(database)
            // Every account created is on some page, over more than one page.
            #expect(accounts.allSatisfy { before[$0] != nil } && Set(before.values).count > 5, "\(Set(before.values).sorted())")
            // Nearly every paid account's new entry on its old page (a page holding more paid
            // accounts than its room takes moves some), where full pages moved nearly all.
            let stayed = paid.filter { before[$0] == after[$0] }.count
            #expect(stayed >= paid.count * 9 / 10, "\(stayed) of \(paid.count) kept their page")
            #expect(try await store.account(paid[0])?.account.balance == 10 * Amount.stroopsPerUnit + 1)
            // The two tables' setting.
            let options = try await database.rows(
                "SELECT relname::text, array_to_string(reloptions, ',') FROM pg_class WHERE relname IN ('accounts', 'trust_lines') ORDER BY relname"
            ) { try $0.decode((String, String).self) }
            #expect(options.map { "\($0.0) \($0.1)" } == ["accounts fillfactor=85", "trust_lines fillfactor=85"])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Each account's page (the block of its row's `ctid`).
    static func pages(_ database: PostgresDatabase) async throws -> [AccountID: Int64] {
        let rows = try await database.rows("SELECT account_id, (ctid::text::point)[0]::bigint FROM accounts") { try $0.decode((ByteBuffer, Int64).self) }
        return Dictionary(uniqueKeysWithValues: rows.map { (AccountID(publicKey: Bytes32(Array(buffer: $0.0))), $0.1) })
    }
}
