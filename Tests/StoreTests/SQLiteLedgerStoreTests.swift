import Foundation
import GRDB
import TenderTesting
import Testing
import StellarBase
import Ledger
import Store

@Suite("SQLite ledger store")
struct SQLiteLedgerStoreTests {
    /// Removed with everything in it when the test ends.
    let temporary = TemporaryDirectory("store")

    /// Tender's VFS and page cache before this suite opens SQLite itself (SQLite takes a page
    /// cache only before anything in the process has used it).
    init() { TenderVFS.install() }

    func temporaryPath() -> String {
        temporary.file("\(UUID().uuidString).sqlite")
    }

    @Test func anEmptyStoreHasNoState() async throws {
        let store = try SQLiteLedgerStore(path: temporaryPath())
        #expect(try await store.loadState() == nil)
        #expect(try await store.latestLedgerSequence() == nil)
    }

    /// GRDB sets a pool's writer to synchronous=NORMAL; the store must set it back to FULL.
    @Test func everyCommitIsSyncedToDisk() throws {
        let store = try SQLiteLedgerStore(path: temporaryPath())
        #expect(try store.writerSynchronousMode() == 2)
    }

    /// `--sqlite-cache` sizes the writer's page cache only; readers keep theirs.
    @Test(arguments: [SQLiteLedgerStore.defaultWriterCacheMebibytes, 1, 512])
    func theWriterKeepsThePageCacheAskedFor(mebibytes: Int) async throws {
        let store = try SQLiteLedgerStore(path: temporaryPath(), writerCacheMebibytes: mebibytes)
        let cache = try await store.pageCacheKibibytes()
        #expect(cache.writer == mebibytes * 1024)
        #expect(cache.reader == SQLiteLedgerStore.readerCacheMebibytes * 1024)
    }

    /// A closed store's database file holds every commit (the WAL copied in): a copy of that
    /// file alone opens on the same ledger.
    @Test func aClosedStoreIsOneFileThatCopies() async throws {
        let path = temporaryPath()
        let store = try SQLiteLedgerStore(path: path)
        let (_, first) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        try await store.commit(first)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        try await store.close()
        let copy = temporaryPath()
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let reopened = try SQLiteLedgerStore(path: copy)
        #expect(try await reopened.latestLedgerSequence() == first.header.sequence)
        #expect(try await reopened.loadState() != nil)
    }

    @Test func committedLedgersReloadToTheSameState() async throws {
        let path = temporaryPath()
        let store = try SQLiteLedgerStore(path: path)
        var (state, first) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        try await store.commit(first)
        let root = LedgerState.rootKeyPair(network: .standalone)
        let alice = try KeyPair(seed: Array(repeating: 9, count: 32))
        let usd = try Asset(code: "USD", issuer: root.accountID)
        func submit(_ source: KeyPair, _ ops: [StellarBase.Operation]) async throws -> ClosedLedger {
            let tx = Transaction(sourceAccount: .ed25519(source.accountID), fee: UInt32(100 * ops.count),
                                 sequenceNumber: state.account(source.accountID)!.sequenceNumber + 1, operations: ops)
            let closed = try state.closeLedger([PreparedTransaction.prepare(tx.signed(by: [source], on: .standalone), network: .standalone)],
                                               closeTime: state.header.closeTime + 1)
            try await store.commit(closed)
            return closed
        }
        _ = try await submit(root, [StellarBase.Operation(.createAccount(CreateAccountOperation(destination: alice.accountID, startingBalance: 100 * Amount.stroopsPerUnit)))])
        _ = try await submit(alice, [
            StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: usd))),
            StellarBase.Operation(.manageData(ManageDataOperation(name: Array("config.memo_required".utf8), value: [0x31]))),
            StellarBase.Operation(.setOptions(SetOptionsOperation(homeDomain: Array("example.com".utf8), signer: Signer(key: .ed25519(root.accountID.publicKey), weight: 1)))),
        ])
        _ = try await submit(root, [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(alice.accountID), asset: usd, amount: 50 * Amount.stroopsPerUnit)))])
        let offerLedger = try await submit(alice, [StellarBase.Operation(.manageSellOffer(ManageSellOfferOperation(selling: usd, buying: .native, amount: 10 * Amount.stroopsPerUnit, price: Price(n: 3, d: 2))))])
        // A deletion must reach the disk too.
        _ = try await submit(alice, [StellarBase.Operation(.manageData(ManageDataOperation(name: Array("config.memo_required".utf8), value: nil)))])
        // An account made and merged away again, and one made to stay: the count the state is
        // sized by follows the entry rows.
        let bob = try KeyPair(seed: Array(repeating: 10, count: 32)), carol = try KeyPair(seed: Array(repeating: 11, count: 32))
        _ = try await submit(root, [
            StellarBase.Operation(.createAccount(CreateAccountOperation(destination: bob.accountID, startingBalance: 10 * Amount.stroopsPerUnit))),
            StellarBase.Operation(.createAccount(CreateAccountOperation(destination: carol.accountID, startingBalance: 10 * Amount.stroopsPerUnit))),
        ])
        _ = try await submit(bob, [StellarBase.Operation(.accountMerge(destination: .ed25519(root.accountID)))])
        let counts = try await DatabaseQueue(path: path).read { db in
            (try Int.fetchOne(db, sql: "SELECT n FROM store_counts WHERE name = 'accounts'"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM accounts"))
        }
        #expect(counts.0 == 3 && counts.1 == 3)

        let reloaded = try #require(try await SQLiteLedgerStore(path: path).loadState())
        #expect(reloaded.stateHash() == state.stateHash())
        #expect(reloaded.header == state.header)
        #expect(reloaded.verifyAllInvariants() == nil)
        #expect(reloaded.offers(selling: usd, buying: .native).count == 1)
        #expect(reloaded.data(alice.accountID, Array("config.memo_required".utf8)) == nil)

        // History: the offer's transaction is found by hash with its result.
        let hash = offerLedger.transactions[0].prepared.hash
        let stored = try #require(try await store.transaction(hash: hash))
        #expect(stored.ledger == offerLedger.header.sequence)
        #expect(stored.applicationOrder == 1)
        #expect(stored.result == offerLedger.transactions[0].application.result)
        #expect(stored.envelope == offerLedger.transactions[0].prepared.envelope)
        #expect(try await store.latestLedgerSequence() == state.header.sequence)

        // /assets: alice's 50 USD (the offer only reserves 10 of it).
        let assets = try await store.assets(KeyedPage(), code: nil, issuer: nil)
        #expect(assets == [AssetStats(asset: usd, tally: AssetTally(accounts: [1, 0, 0], balances: [50 * Int128(Amount.stroopsPerUnit), 0, 0]))])
        #expect(try await store.accounts(holding: usd, KeyedPage()).map(\.account.accountID) == [alice.accountID])
        #expect(try await store.accounts(holding: usd, KeyedPage(after: alice.accountID)).isEmpty)

        // /accounts?signer=: root signs for itself and for alice (she added it); alice for herself.
        let byKey = { (a: AccountID, b: AccountID) in a.publicKey.bytes.lexicographicallyPrecedes(b.publicKey.bytes) }
        let signedByRoot = try await store.accounts(signedBy: root.accountID, KeyedPage()).map(\.account.accountID)
        #expect(signedByRoot == [root.accountID, alice.accountID].sorted(by: byKey))
        #expect(try await store.accounts(signedBy: alice.accountID, KeyedPage()).map(\.account.accountID) == [alice.accountID])
        // Her own key signs for her no more once its weight is 0 (root's still does).
        _ = try await submit(alice, [StellarBase.Operation(.setOptions(SetOptionsOperation(masterWeight: 0)))])
        #expect(try await store.accounts(signedBy: alice.accountID, KeyedPage()).isEmpty)
        #expect(try await store.accounts(signedBy: root.accountID, KeyedPage()).map(\.account.accountID) == signedByRoot)
        // No account's own key is stored as its signer.
        let ownRows = { try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM account_signers WHERE signer = account_id") } }
        #expect(try ownRows() == 0)

        // A database from before asset statistics and signers (so before claimable balances too):
        // the migrations count what it holds.
        do {
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(sql: """
                    DROP TABLE asset_stats; DROP INDEX trust_lines_by_asset; DROP TABLE account_signers;
                    DROP TABLE claimable_balances; DROP TABLE claimable_balance_claimants; DROP TABLE claimable_balance_operations;
                    DELETE FROM grdb_migrations WHERE identifier IN ('ledger-v2-assets', 'ledger-v3-signers', 'ledger-v6-claimable-balances', 'ledger-v10-pool-asset-stats')
                    """)
            }
            try queue.close()
        }
        var upgrading: [[String]] = []
        let migrated = try SQLiteLedgerStore(path: path) { upgrading.append($0) }
        // Told before they run, in order: those the older database had not run.
        #expect(upgrading == [["ledger-v2-assets", "ledger-v3-signers", "ledger-v6-claimable-balances", "ledger-v10-pool-asset-stats"]])
        _ = try SQLiteLedgerStore(path: path) { upgrading.append($0) }
        _ = try SQLiteLedgerStore(path: temporary.file("\(UUID().uuidString).sqlite")) { upgrading.append($0) }
        #expect(upgrading.count == 1, "neither an up-to-date database nor a new one is upgraded")
        #expect(try await migrated.assets(KeyedPage(), code: nil, issuer: nil) == assets)
        #expect(try await migrated.accounts(signedBy: root.accountID, KeyedPage()).map(\.account.accountID) == signedByRoot)

        // A database from before master keys were left out of the signers: the migration
        // deletes their rows, and the answers stay.
        do {
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(sql: """
                    INSERT INTO account_signers (signer, account_id) SELECT account_id, account_id FROM accounts;
                    DELETE FROM grdb_migrations WHERE identifier = 'ledger-v12-master-signers'
                    """)
            }
            try queue.close()
        }
        #expect(try ownRows() == 3)
        let withoutOwnRows = try SQLiteLedgerStore(path: path) { upgrading.append($0) }
        #expect(upgrading.last == ["ledger-v12-master-signers"])
        #expect(try ownRows() == 0)
        #expect(try await withoutOwnRows.accounts(signedBy: root.accountID, KeyedPage()).map(\.account.accountID) == signedByRoot)
        #expect(try await withoutOwnRows.accounts(signedBy: alice.accountID, KeyedPage()).isEmpty)
    }

    @Test func entryEncodingsRoundTrip() throws {
        var account = AccountEntry(accountID: LedgerState.rootKeyPair(network: .testnet).accountID, balance: 5, sequenceNumber: 7, lastModifiedLedger: 3)
        account.signers = [Signer(key: .hashX(.zero), weight: 2)]
        account.homeDomain = Array("x.org".utf8)
        account.inflationDestination = account.accountID
        account.thresholds = Thresholds(masterWeight: 1, low: 2, medium: 3, high: 4)
        #expect(try AccountEntry(xdrBytes: account.xdrBytes) == account)
        let header = LedgerHeader(sequence: 9, closeTime: 10, totalCoins: 11, feePool: 12, idPool: 13)
        #expect(try LedgerHeader(xdrBytes: header.xdrBytes) == header)
        var bad = header.xdrBytes
        bad[3] = 99
        #expect(throws: XDRError.self) { try LedgerHeader(xdrBytes: bad) }
    }
}
