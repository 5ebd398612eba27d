import Foundation
import Ledger
@testable import PostgresStore
import StellarBase
import Store
import TenderTesting
import Testing

/// The same ledgers committed to SQLite and to PostgreSQL: the same state reloads from both, and
/// every query behind Horizon's API answers the same from both.
@Suite("The ledger's store, on SQLite and on PostgreSQL")
struct LedgerStoreContractTests {
    let temporary = TemporaryDirectory("ledger-store-contract")

    /// A small history: accounts, a trust line, data set and deleted, a payment, an offer, a failed
    /// transaction, several transactions in one ledger.
    static func ledgers() throws -> (ledgers: [ClosedLedger], state: LedgerState, alice: KeyPair, bob: KeyPair, usd: Asset) {
        var (state, first) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        var ledgers = [first]
        let root = LedgerState.rootKeyPair(network: .standalone)
        let alice = try KeyPair(seed: Array(repeating: 9, count: 32))
        let bob = try KeyPair(seed: Array(repeating: 8, count: 32))
        let usd = try Asset(code: "USD", issuer: root.accountID)
        var sequences: [AccountID: Int64] = [:]
        func envelope(_ source: KeyPair, _ ops: [StellarBase.Operation], memo: Memo = .none) -> PreparedTransaction {
            let next = (sequences[source.accountID] ?? state.account(source.accountID)!.sequenceNumber) + 1
            sequences[source.accountID] = next
            let tx = Transaction(sourceAccount: .ed25519(source.accountID), fee: UInt32(100 * ops.count), sequenceNumber: next, memo: memo, operations: ops)
            return PreparedTransaction.prepare(tx.signed(by: [source], on: .standalone), network: .standalone)
        }
        func close(_ transactions: [PreparedTransaction]) throws {
            ledgers.append(try state.closeLedger(transactions, closeTime: state.header.closeTime + 1))
            sequences = [:]
        }
        let xlm = Amount.stroopsPerUnit
        try close([envelope(root, [
            StellarBase.Operation(.createAccount(CreateAccountOperation(destination: alice.accountID, startingBalance: 100 * xlm))),
            StellarBase.Operation(.createAccount(CreateAccountOperation(destination: bob.accountID, startingBalance: 100 * xlm))),
        ])])
        try close([
            envelope(alice, [
                StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: usd))),
                StellarBase.Operation(.manageData(ManageDataOperation(name: Array("config.memo_required".utf8), value: [0x31]))),
            ]),
            envelope(bob, [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(alice.accountID), asset: .native, amount: 5 * xlm)))], memo: .id(77)),
            // Fails: bob does not trust USD.
            envelope(root, [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: usd, amount: xlm)))]),
        ])
        try close([envelope(root, [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(alice.accountID), asset: usd, amount: 50 * xlm)))], memo: .text(Array("rent".utf8)))])
        try close([envelope(alice, [StellarBase.Operation(.manageSellOffer(ManageSellOfferOperation(selling: usd, buying: .native, amount: 10 * xlm, price: Price(n: 3, d: 2))))])])
        try close([envelope(alice, [StellarBase.Operation(.manageData(ManageDataOperation(name: Array("config.memo_required".utf8), value: nil)))])])
        // Bob trusts USD and EUROC, is paid USD, and gives up EUROC: it leaves /assets.
        let euroc = try Asset(code: "EUROC", issuer: root.accountID)
        try close([envelope(bob, [
            StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: usd))),
            StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: euroc))),
        ])])
        try close([envelope(root, [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: usd, amount: 7 * xlm)))])])
        // Bob sells 3 XLM for USD: he crosses 2 USD of alice's offer, a trade.
        try close([envelope(bob, [StellarBase.Operation(.manageSellOffer(ManageSellOfferOperation(selling: .native, buying: usd, amount: 3 * xlm, price: Price(n: 2, d: 3))))])])
        try close([envelope(bob, [StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: euroc, limit: 0)))])])
        // Root sets 3 USD aside for alice and bob, and 1 XLM for bob, who claims it.
        try close([envelope(root, [
            StellarBase.Operation(.createClaimableBalance(CreateClaimableBalanceOperation(asset: usd, amount: 3 * xlm, claimants: [
                Claimant(destination: alice.accountID), Claimant(destination: bob.accountID, predicate: .beforeRelativeTime(600)),
            ]))),
            StellarBase.Operation(.createClaimableBalance(CreateClaimableBalanceOperation(asset: .native, amount: xlm, claimants: [Claimant(destination: bob.accountID)]))),
        ])])
        let sequence = state.account(root.accountID)!.sequenceNumber
        try close([envelope(bob, [StellarBase.Operation(.claimClaimableBalance(.created(bySource: root.accountID, sequence: sequence, operationIndex: 1)))])])
        // Root sponsors carol's account (made with nothing), her trustline and data entry, and an offer of bob's.
        let carol = try KeyPair(seed: Array(repeating: 7, count: 32))
        let asCarol = MuxedAccount.ed25519(carol.accountID), asBob = MuxedAccount.ed25519(bob.accountID)
        let sponsored = Transaction(
            sourceAccount: .ed25519(root.accountID), fee: 1_100, sequenceNumber: state.account(root.accountID)!.sequenceNumber + 1, operations: [
                StellarBase.Operation(.beginSponsoringFutureReserves(sponsoredID: carol.accountID)),
                StellarBase.Operation(.createAccount(CreateAccountOperation(destination: carol.accountID, startingBalance: 0))),
                StellarBase.Operation(sourceAccount: asCarol, .changeTrust(ChangeTrustOperation(asset: usd))),
                StellarBase.Operation(sourceAccount: asCarol, .manageData(ManageDataOperation(name: Array("n".utf8), value: [1]))),
                StellarBase.Operation(sourceAccount: asCarol, .endSponsoringFutureReserves),
                StellarBase.Operation(.beginSponsoringFutureReserves(sponsoredID: bob.accountID)),
                StellarBase.Operation(sourceAccount: asBob, .manageSellOffer(ManageSellOfferOperation(selling: .native, buying: usd, amount: xlm, price: Price(n: 10, d: 1)))),
                StellarBase.Operation(sourceAccount: asBob, .endSponsoringFutureReserves),
            ])
        try close([PreparedTransaction.prepare(sponsored.signed(by: [root, carol, bob], on: .standalone), network: .standalone)])
        // Alice makes the XLM/USD pool and puts 10 XLM and 20 USD in; bob pays her through it.
        let pool = LiquidityPoolParameters(.native, usd)
        try close([envelope(alice, [
            StellarBase.Operation(.changeTrust(ChangeTrustOperation(pool: pool))),
            StellarBase.Operation(.liquidityPoolDeposit(LiquidityPoolDepositOperation(
                poolID: pool.poolID, maxAmountA: 10 * xlm, maxAmountB: 20 * xlm, minPrice: Price(n: 1, d: 100), maxPrice: Price(n: 100, d: 1)))),
        ])])
        try close([envelope(bob, [StellarBase.Operation(.pathPaymentStrictSend(PathPaymentStrictSendOperation(
            sendAsset: .native, sendAmount: xlm, destination: .ed25519(alice.accountID), destAsset: usd, destMin: 1, path: [])))])])
        return (ledgers, state, alice, bob, usd)
    }

    struct LedgerView: Equatable {
        let header: LedgerHeader, hash: Bytes32, previous: Bytes32?, counts: [Int]
        init(_ record: LedgerRecord) {
            header = record.header
            hash = record.hash
            previous = record.previousHash
            counts = [record.transactionCount, record.successfulTransactionCount, record.operationCount]
        }
    }

    struct OperationView: Equatable {
        let id: Int64, transaction: StoredTransaction, index: Int
        init(_ record: OperationRecord) {
            id = record.id
            transaction = record.transaction
            index = record.index
        }
    }

    struct AccountView: Equatable {
        let account: AccountEntry, lines: [TrustLineEntry], data: [DataEntry], shares: [PoolShareLine], pools: [LiquidityPoolEntry?]
        init?(_ record: AccountRecord?) {
            guard let record else { return nil }
            account = record.account
            lines = record.trustLines
            data = record.data
            shares = record.poolShares.map(\.line)
            pools = record.poolShares.map(\.pool)
        }
    }

    /// Everything the reader answers for this history, in comparable form.
    static func answers(_ store: any LedgerReader, alice: KeyPair, bob: KeyPair, usd: Asset, hashes: [Bytes32]) async throws -> [String] {
        var out: [String] = []
        func add(_ label: String, _ value: some Any) { out.append("\(label): \(value)") }
        for descending in [false, true] {
            for cursor in [nil, Int64(3) << 32, (Int64(3) << 32) + 1] as [Int64?] {
                let page = PageRequest(cursor: cursor, limit: 3, descending: descending)
                add("ledgers \(page)", try await store.ledgers(page).map(LedgerView.init))
                for account in [nil, alice.accountID, bob.accountID] as [AccountID?] {
                    for failed in [false, true] {
                        add("transactions \(page) \(String(describing: account)) \(failed)", try await store.transactions(page, account: account, includeFailed: failed))
                    }
                }
            }
            for cursor in [nil, Int64(0)] as [Int64?] {
                let page = PageRequest(cursor: cursor, limit: 50, descending: descending)
                for filter in [
                    OperationFilter(), OperationFilter(includeFailed: true), OperationFilter(account: alice.accountID),
                    OperationFilter(account: bob.accountID, includeFailed: true), OperationFilter(paymentsOnly: true),
                    OperationFilter(transactionHash: hashes[1], includeFailed: true),
                ] {
                    add("operations \(page) \(filter)", try await store.operations(page, filter: filter).map(OperationView.init))
                }
                add("offers \(page)", try await store.offers(page, seller: nil, selling: nil, buying: nil, sponsor: nil))
                add("offers by alice", try await store.offers(page, seller: alice.accountID, selling: usd, buying: .native, sponsor: nil))
                add("offers by bob", try await store.offers(page, seller: bob.accountID, selling: nil, buying: nil, sponsor: nil))
            }
        }
        for sequence: UInt32 in [0, 1, 2, 3, 6, 7, 99] { add("ledger \(sequence)", try await store.ledger(sequence).map(LedgerView.init) as Any) }
        add("latest", try await store.latestLedgerSequence() as Any)
        for hash in hashes { add("transaction \(hash)", try await store.transaction(hash: hash) as Any) }
        add("missing transaction", try await store.transaction(hash: Bytes32(Array(repeating: 1, count: 32))) as Any)
        for id in [Int64(1), (Int64(3) << 32) + (1 << 12) + 1, (Int64(3) << 32) + (3 << 12) + 1, Int64.max] {
            add("operation \(id)", try await store.operation(id).map(OperationView.init) as Any)
        }
        for account in [alice.accountID, bob.accountID, LedgerState.rootKeyPair(network: .standalone).accountID] {
            add("account \(account.strKey)", AccountView(try await store.account(account)) as Any)
            add("exists \(account.strKey)", try await store.accountExists(account))
        }
        add("no account", AccountView(try await store.account(try KeyPair(seed: Array(repeating: 3, count: 32)).accountID)) as Any)
        for offer in try await store.offers(PageRequest(cursor: nil, limit: 10, descending: false), seller: nil, selling: nil, buying: nil, sponsor: nil) {
            add("offer \(offer.entry.offerID)", try await store.offer(offer.entry.offerID) as Any)
        }
        add("offer 999", try await store.offer(999) as Any)
        let root = LedgerState.rootKeyPair(network: .standalone).accountID
        for descending in [false, true] {
            add("assets", try await store.assets(KeyedPage(limit: 10, descending: descending), code: nil, issuer: nil))
            add("assets after USD", try await store.assets(KeyedPage(after: AssetCursor(code: "USD", issuer: root.strKey), descending: descending), code: nil, issuer: nil))
            for holder in [nil, alice.accountID, bob.accountID] as [AccountID?] {
                add("holders of USD after \(String(describing: holder))", try await store.accounts(holding: usd, KeyedPage(after: holder, descending: descending)).map(AccountView.init))
            }
        }
        add("assets by code", try await store.assets(KeyedPage(), code: "USD", issuer: root))
        for signer in [root, alice.accountID, bob.accountID] {
            add("accounts signed by \(signer.strKey)", try await store.accounts(signedBy: signer, KeyedPage()).map(AccountView.init))
            add("accounts sponsored by \(signer.strKey)", try await store.accounts(sponsoredBy: signer, KeyedPage()).map(AccountView.init))
            add("offers sponsored by \(signer.strKey)", try await store.offers(PageRequest(limit: 10), seller: nil, selling: nil, buying: nil, sponsor: signer))
        }
        add("assets by another issuer", try await store.assets(KeyedPage(), code: nil, issuer: alice.accountID))
        // Liquidity pools: every filter, the pool's holders, operations (with what they moved), transactions, effects and trades.
        let pool = LiquidityPoolParameters(.native, usd).poolID
        for filter in [LiquidityPoolFilter(), LiquidityPoolFilter(reserves: [usd]), LiquidityPoolFilter(reserves: [.native, usd]),
                       LiquidityPoolFilter(reserves: [try Asset(code: "EUROC", issuer: root)]), LiquidityPoolFilter(account: alice.accountID),
                       LiquidityPoolFilter(account: bob.accountID)] {
            for descending in [false, true] { add("pools \(filter) \(descending)", try await store.liquidityPools(KeyedPage(limit: 5, descending: descending), filter: filter)) }
        }
        add("pools after it", try await store.liquidityPools(KeyedPage(after: pool), filter: LiquidityPoolFilter()))
        add("pool", try await store.liquidityPool(pool) as Any)
        add("no pool", try await store.liquidityPool(Bytes32(Array(repeating: 2, count: 32))) as Any)
        add("pool holders", try await store.accounts(inPool: pool, KeyedPage()).map(AccountView.init))
        add("pool operations", try await store.operations(PageRequest(limit: 10), filter: OperationFilter(liquidityPool: pool)).map { "\(OperationView($0)) \(String(describing: $0.poolAmounts))" })
        add("pool transactions", try await store.transactions(PageRequest(limit: 10), liquidityPool: pool))
        add("pool effects", try await store.effects(KeyedPage(limit: 10), filter: .liquidityPool(pool)).map(Self.effectText))
        add("pool trades", try await store.trades(KeyedPage(limit: 10), filter: TradeFilter(liquidityPool: pool)))
        let fees = try await store.recentFees(ledgers: 5)
        add("fees", [fees.charged, fees.offered])
        // Effects: every filter, from the ends and from a cursor inside an operation, both ways.
        let payment = (Int64(4) << 32) + (1 << 12) + 1
        for descending in [false, true] {
            for after in [nil, EffectCursor(operationID: payment, order: 1), EffectCursor(token: String(payment))] as [EffectCursor?] {
                for filter in [
                    EffectFilter.all, .account(alice.accountID), .account(bob.accountID), .account(root),
                    .operations((Int64(4) << 32)..<(Int64(5) << 32)), .operations(payment..<(payment + 1)),
                ] {
                    add("effects \(String(describing: after)) \(descending) \(filter)", try await store.effects(KeyedPage(after: after, limit: 4, descending: descending), filter: filter).map(Self.effectText))
                }
            }
        }
        for descending in [false, true] {
            for filter in [
                TradeFilter(), TradeFilter(account: alice.accountID), TradeFilter(account: bob.accountID, kind: .orderbook), TradeFilter(offerID: 1),
                TradeFilter(pair: (usd, .native)), TradeFilter(pair: (.native, usd)), TradeFilter(kind: .liquidityPool), TradeFilter(closed: 0..<1_700_000_009),
            ] {
                add("trades \(descending) \(filter)", try await store.trades(KeyedPage(limit: 5, descending: descending), filter: filter))
            }
        }
        // Beyond Horizon: memos and assets.
        for descending in [false, true] {
            let page = PageRequest(limit: 10, descending: descending)
            for filter in [
                TransactionFilter(memo: "77"), TransactionFilter(memo: "rent"), TransactionFilter(account: alice.accountID, memo: "rent"),
                TransactionFilter(account: bob.accountID, memo: "rent"), TransactionFilter(asset: usd), TransactionFilter(account: bob.accountID, asset: .native),
                TransactionFilter(asset: usd, includeFailed: true), TransactionFilter(memo: "nothing"),
            ] {
                add("transactions \(descending) \(filter)", try await store.transactions(page, filter: filter))
            }
            for filter in [
                OperationFilter(memo: "77", paymentsOnly: true), OperationFilter(account: alice.accountID, memo: "rent"), OperationFilter(asset: usd, paymentsOnly: true),
                OperationFilter(account: bob.accountID, asset: .native), OperationFilter(asset: usd, includeFailed: true),
            ] {
                add("operations \(descending) \(filter)", try await store.operations(page, filter: filter).map(OperationView.init))
            }
        }
        for descending in [false, true] {
            for filter in [
                ClaimableBalanceFilter(), ClaimableBalanceFilter(asset: usd), ClaimableBalanceFilter(asset: .native), ClaimableBalanceFilter(sponsor: root),
                ClaimableBalanceFilter(sponsor: alice.accountID), ClaimableBalanceFilter(claimant: alice.accountID), ClaimableBalanceFilter(claimant: bob.accountID),
            ] {
                let page = try await store.claimableBalances(KeyedPage(limit: 5, descending: descending), filter: filter)
                add("claimable balances \(descending) \(filter)", page)
                for balance in page {
                    add("balance \(balance.id)", try await store.claimableBalance(balance.id) as Any)
                    add("after \(balance.id)", try await store.claimableBalances(KeyedPage(after: balance.cursor, descending: descending), filter: filter))
                    add("its transactions", try await store.transactions(PageRequest(limit: 10), claimableBalance: balance.id))
                    add("its operations", try await store.operations(PageRequest(limit: 10), filter: OperationFilter(claimableBalance: balance.id)).map(OperationView.init))
                }
            }
        }
        return out
    }

    static func effectText(_ effect: EffectRecord) -> String {
        "\(effect.pagingToken) \(effect.type.name) \(effect.account.strKey) \(String(describing: effect.muxedID)) \(String(decoding: effect.details, as: UTF8.self)) \(effect.closeTime)"
    }

    @Test func bothStoresKeepAndAnswerTheSame() async throws {
        let (ledgers, state, alice, bob, usd) = try Self.ledgers()
        let hashes = ledgers.flatMap { $0.transactions.map(\.prepared.hash) }
        #expect(hashes.count == 16)
        let sqlite = try SQLiteLedgerStore(path: temporary.file("ledger.sqlite"))
        let server = try await TemporaryPostgres.start()
        do {
            let database = try PostgresDatabase(url: server.url)
            defer { database.shutdown() }
            let postgres = try await PostgresLedgerStore(database)
            #expect(try await postgres.loadState() == nil)
            #expect(try await postgres.latestLedgerSequence() == nil)
            for ledger in ledgers {
                try await sqlite.commit(ledger)
                try await postgres.commit(ledger)
            }
            // A ledger committed twice is refused, and leaves nothing of itself.
            await #expect(throws: (any Error).self) { try await postgres.commit(ledgers[3]) }

            let reloaded = try #require(try await PostgresLedgerStore(database).loadState())
            #expect(reloaded.stateHash() == state.stateHash())
            #expect(reloaded.header == state.header)
            #expect(reloaded.verifyAllInvariants() == nil)
            #expect(reloaded.offers(selling: usd, buying: .native).count == 1)

            let fromSQLite = try await Self.answers(sqlite, alice: alice, bob: bob, usd: usd, hashes: hashes)
            let fromPostgres = try await Self.answers(postgres, alice: alice, bob: bob, usd: usd, hashes: hashes)
            #expect(fromSQLite.count == fromPostgres.count && fromSQLite.count > 100)
            for (a, b) in zip(fromSQLite, fromPostgres) where a != b {
                Issue.record("SQLite and PostgreSQL differ:\n\(a.prefix(600))\n\(b.prefix(600))")
            }
            // The history is not empty where it matters (the comparison would pass on two empty stores).
            #expect(try await postgres.transactions(PageRequest(cursor: nil, limit: 50, descending: false), account: alice.accountID, includeFailed: true).count == 9)
            #expect(try await postgres.operations(PageRequest(cursor: nil, limit: 50, descending: false), filter: OperationFilter(includeFailed: true)).count == 28)
            // Every successful operation's effects, in order: 46 (two creations of 3, a trustline, a
            // data entry, a payment of 2, none for the failed payment, a credit of 2, none for an
            // offer that crosses nothing, a data removal, two trustlines, a payment of 2, a trade
            // of 2, a removal; two claimable balances of 5 and 4, a claim of 3; a sponsored
            // creation of 3 derived and 1 stored, a sponsored trustline and data entry of 2 each; a
            // pool-share trustline of 2 (the pool made), a deposit, a payment through the pool of 3).
            let effects = try await postgres.effects(KeyedPage(limit: 200), filter: .all)
            #expect(effects.count == 46)
            #expect(effects.suffix(11).map(\.type) == [
                .accountSponsorshipCreated, .trustlineCreated, .trustlineSponsorshipCreated, .dataCreated, .dataSponsorshipCreated,
                .trustlineCreated, .liquidityPoolCreated, .liquidityPoolDeposited, .accountCredited, .accountDebited, .liquidityPoolTrade,
            ])
            // The pool: 10 XLM and 20 USD in, then 1 XLM more for what bob's payment took out.
            let pool = try #require(reloaded.liquidityPools.values.first)
            #expect(pool.reserveA == 11 * Amount.stroopsPerUnit && pool.reserveB < 20 * Amount.stroopsPerUnit && pool.trustLineCount == 1)
            let poolTrades = try await postgres.trades(KeyedPage(), filter: TradeFilter(liquidityPool: pool.id))
            #expect(poolTrades.map(\.kind) == [.liquidityPool] && poolTrades.first?.counter.liquidityPool == pool.id, "XLM, the lower asset, is base: bob's side")
            let deposit = try await postgres.operations(PageRequest(limit: 5), filter: OperationFilter(liquidityPool: pool.id)).compactMap(\.poolAmounts)
            #expect(deposit == [PoolAmounts(assetA: .native, assetB: usd, reserveA: 10 * Amount.stroopsPerUnit, reserveB: 20 * Amount.stroopsPerUnit, shares: PoolMath.squareRoot(10 * Amount.stroopsPerUnit, 20 * Amount.stroopsPerUnit))])
            // Root sponsors carol (her account, trustline and data entry) and bob's offer.
            let carol = try KeyPair(seed: Array(repeating: 7, count: 32)).accountID
            let root = LedgerState.rootKeyPair(network: .standalone)
            for store in [sqlite, postgres] as [any LedgerReader] {
                #expect(try await store.accounts(sponsoredBy: root.accountID, KeyedPage()).map(\.account.accountID) == [carol])
                #expect(try await store.offers(PageRequest(limit: 10), seller: nil, selling: nil, buying: nil, sponsor: root.accountID).map(\.entry.sellerID) == [bob.accountID])
                #expect(try await store.account(carol)?.account.sponsor == root.accountID)
            }
            #expect(reloaded.account(carol)?.numSponsored == 4 && reloaded.account(bob.accountID)?.numSponsored == 1)
            // Stored and derived effects merge into one order: paged one, or three, at a time,
            // either way, each scope gives the same effects as one page of all of them.
            let payment = (Int64(4) << 32) + (2 << 12) + 1
            for store in [sqlite, postgres] as [any LedgerReader] {
                for filter in [EffectFilter.all, .account(alice.accountID), .account(bob.accountID), .operations((Int64(4) << 32)..<(Int64(5) << 32)), .operations(payment..<(payment + 1))] {
                    let whole = try await store.effects(KeyedPage(limit: 200), filter: filter).map(\.cursor)
                    #expect(!whole.isEmpty, "\(filter)")
                    for limit in [1, 3] {
                        for descending in [false, true] {
                            var seen: [EffectCursor] = []
                            var page = KeyedPage<EffectCursor>(limit: limit, descending: descending)
                            while true {
                                let records = try await store.effects(page, filter: filter)
                                seen += records.map(\.cursor)
                                guard records.count == limit, let last = records.last else { break }
                                page.after = last.cursor
                            }
                            #expect(seen == (descending ? whole.reversed() : whole), "\(filter) by \(limit), descending \(descending)")
                        }
                    }
                }
            }
            // Memos and assets: one transaction with id memo 77, the USD payments (three, one failed).
            #expect(try await postgres.transactions(PageRequest(limit: 10), filter: TransactionFilter(memo: "77")).count == 1)
            #expect(try await postgres.operations(PageRequest(limit: 10), filter: OperationFilter(asset: usd, includeFailed: true)).count == 4)
            #expect(try await postgres.operations(PageRequest(limit: 10), filter: OperationFilter(account: alice.accountID, memo: "rent")).count == 1)
            // The USD balance waits; the XLM one was claimed.
            let balances = try await postgres.claimableBalances(KeyedPage(), filter: ClaimableBalanceFilter())
            #expect(balances.map(\.asset) == [usd] && balances.first?.amount == 3 * Amount.stroopsPerUnit)
            // Root pays for the balance's two claimants, and for carol's account (2), trustline, data entry and bob's offer.
            #expect(reloaded.claimableBalances.count == 1 && reloaded.account(LedgerState.rootKeyPair(network: .standalone).accountID)?.numSponsoring == 7)
            // The trade: XLM (the lower asset) as base, bob's side; alice's offer at 3/2 turned round.
            let trades = try await postgres.trades(KeyedPage(), filter: TradeFilter(kind: .orderbook))
            #expect(trades.count == 1)
            #expect(trades.first.map { [$0.base.amount, $0.counter.amount, $0.priceN, $0.priceD] } == [3 * Amount.stroopsPerUnit, 2 * Amount.stroopsPerUnit, 2, 3])
            #expect(trades.first?.base.account == bob.accountID && trades.first?.counter.account == alice.accountID && trades.first?.baseIsSeller == false)
            #expect(effects.map(\.cursor) == effects.map(\.cursor).sorted())
            #expect(effects.prefix(3).map(\.type) == [.accountCreated, .accountDebited, .signerCreated])
            // What /assets counts: USD held by alice (50, less 20 in the pool, plus what bob paid), bob (7) and carol (none); EUROC given up.
            let assets = try await postgres.assets(KeyedPage(), code: nil, issuer: nil)
            let received = try #require(PoolMath.receive(sending: Amount.stroopsPerUnit, reserveIn: 10 * Amount.stroopsPerUnit, reserveOut: 20 * Amount.stroopsPerUnit, fee: 30))
            #expect(assets.map(\.asset) == [usd])
            // And 3 set aside in a claimable balance.
            #expect(assets.first?.tally == AssetTally(
                accounts: [3, 0, 0], balances: [Int128(37 * Amount.stroopsPerUnit + received), 0, 0], claimableBalances: 1,
                claimableAmount: 3 * Int128(Amount.stroopsPerUnit), liquidityPools: 1, liquidityPoolsAmount: Int128(20 * Amount.stroopsPerUnit - received)))
            #expect(try await postgres.accounts(holding: usd, KeyedPage()).map(\.account.accountID)
                == [alice.accountID, bob.accountID, carol].sorted { $0.publicKey.bytes.lexicographicallyPrecedes($1.publicKey.bytes) })

            // A database from before asset statistics (so before claimable balances too): the
            // migration counts the trustlines it holds.
            try await database.execute("DROP TABLE asset_stats")
            try await database.execute("DROP INDEX trust_lines_by_asset")
            try await database.execute("DELETE FROM tender_migration WHERE number = 102")
            try await database.execute("DROP TABLE claimable_balances")
            try await database.execute("DROP TABLE claimable_balance_claimants")
            try await database.execute("DROP TABLE claimable_balance_operations")
            try await database.execute("DELETE FROM tender_migration WHERE number = 106")
            try await database.execute("DELETE FROM tender_migration WHERE number = 110")
            let signedByBob = try await postgres.accounts(signedBy: bob.accountID, KeyedPage()).map(\.account.accountID)
            #expect(signedByBob == [bob.accountID])
            try await database.execute("DROP TABLE account_signers")
            try await database.execute("DELETE FROM tender_migration WHERE number = 103")
            let migrated = try await PostgresLedgerStore(database)
            #expect(try await migrated.assets(KeyedPage(), code: nil, issuer: nil) == assets.map {
                AssetStats(asset: $0.asset, tally: AssetTally(accounts: $0.tally.accounts, balances: $0.tally.balances))
            })
            #expect(try await migrated.accounts(signedBy: bob.accountID, KeyedPage()).map(\.account.accountID) == signedByBob)

            // A database from before master keys were left out of the signers: the migration
            // deletes their rows, and the answers stay.
            let ownRows = { try await database.rows("SELECT count(*) FROM account_signers WHERE signer = account_id") { try $0.decode(Int64.self) }.first }
            #expect(try await ownRows() == 0)
            try await database.execute("INSERT INTO account_signers (signer, account_id) SELECT account_id, account_id FROM accounts")
            try await database.execute("DELETE FROM tender_migration WHERE number = 112")
            #expect(try await ownRows() ?? 0 > 0)
            let withoutOwnRows = try await PostgresLedgerStore(database)
            #expect(try await ownRows() == 0)
            #expect(try await withoutOwnRows.accounts(signedBy: bob.accountID, KeyedPage()).map(\.account.accountID) == signedByBob)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
