import Testing
import StellarBase
import TenderJSON
@testable import Ledger

/// Liquidity pools (CAP-38) with stellar-core's rules, arithmetic and codes
/// (`ChangeTrustOpFrame`, `LiquidityPoolDepositOpFrame`, `LiquidityPoolWithdrawOpFrame`,
/// `exchangeWithPool`, `removeOffersAndPoolShareTrustLines`); the vectors are worked by hand
/// from the protocol's formulas. `op_pool_full` needs reserves near 2⁶³ and is not triggered.
@Suite("Liquidity pools")
struct LiquidityPoolTests {
    static let xlm = TestLedger.xlm

    /// A ledger with an issuer of USD and `holders` who trust it and hold 10,000 USD each.
    static func setUp(holders count: Int = 1, issuerFlags: UInt32 = 0) -> (TestLedger, KeyPair, Asset, [KeyPair]) {
        var ledger = TestLedger()
        let issuer = ledger.account(1000)
        if issuerFlags != 0 { ledger.submit(issuer, .setOptions(SetOptionsOperation(setFlags: issuerFlags))) }
        let usd = ledger.asset("USD", issuer: issuer)
        var holders: [KeyPair] = []
        for _ in 0..<count {
            let holder = ledger.account(1000)
            ledger.trust(holder, usd)
            if issuerFlags & AccountFlags.authRequired != 0 {
                ledger.submit(issuer, .setTrustLineFlags(SetTrustLineFlagsOperation(trustor: holder.accountID, asset: usd, clearFlags: 0, setFlags: TrustLineFlags.authorized)))
            }
            ledger.pay(issuer, holder, usd, 10_000 * xlm)
            holders.append(holder)
        }
        return (ledger, issuer, usd, holders)
    }

    static func code(_ application: TransactionApplication) -> String { codes(application).last ?? "" }

    static func trustPool(_ ledger: inout TestLedger, _ holder: KeyPair, _ pool: LiquidityPoolParameters, limit: Int64 = .max) -> String {
        code(ledger.submit(holder, .changeTrust(ChangeTrustOperation(pool: pool, limit: limit))))
    }

    static func deposit(_ ledger: inout TestLedger, _ holder: KeyPair, _ pool: LiquidityPoolParameters, _ a: Int64, _ b: Int64,
                        min: Price = Price(n: 1, d: 1_000_000), max: Price = Price(n: 1_000_000, d: 1)) -> String {
        code(ledger.submit(holder, .liquidityPoolDeposit(LiquidityPoolDepositOperation(poolID: pool.poolID, maxAmountA: a, maxAmountB: b, minPrice: min, maxPrice: max))))
    }

    static func withdraw(_ ledger: inout TestLedger, _ holder: KeyPair, _ pool: LiquidityPoolParameters, _ shares: Int64, minA: Int64 = 0, minB: Int64 = 0) -> String {
        code(ledger.submit(holder, .liquidityPoolWithdraw(LiquidityPoolWithdrawOperation(poolID: pool.poolID, amount: shares, minAmountA: minA, minAmountB: minB))))
    }

    @Test func theArithmeticToTheStroop() {
        #expect(PoolMath.squareRoot(1000, 4000) == 2000)
        #expect(PoolMath.squareRoot(2, 3) == 2)
        #expect(PoolMath.squareRoot(Int64.max, Int64.max) == Int64.max)
        #expect(PoolMath.squareRoot(0, 7) == 0)
        // Sending 100 into reserves of 1,000 (in) and 4,000 (out) at 30 bp:
        // ⌊9970 × 4000 × 100 / (10000 × 1000 + 9970 × 100)⌋ = 362.
        #expect(PoolMath.receive(sending: 100, reserveIn: 1000, reserveOut: 4000, fee: 30) == 362)
        // Receiving 362: ⌈10000 × 1000 × 362 / ((4000 − 362) × 9970)⌉ = 100.
        #expect(PoolMath.send(receiving: 362, reserveIn: 1000, reserveOut: 4000, fee: 30) == 100)
        #expect(PoolMath.send(receiving: 4000, reserveIn: 1000, reserveOut: 4000, fee: 30) == nil, "never the whole reserve")
        #expect(PoolMath.receive(sending: 1, reserveIn: 1_000_000, reserveOut: 1, fee: 30) == nil, "nothing comes out")
        #expect(PoolMath.withdrawal(shares: 250, total: 2250, reserve: 1125) == 125)
        #expect(PoolMath.withdrawal(shares: 1, total: 3, reserve: 2) == 0, "rounded down")
    }

    @Test func aPoolIsMadeWithItsFirstTrustlineAndGoesWithItsLast() throws {
        var (ledger, issuer, usd, holders) = Self.setUp(holders: 2)
        let (alice, bob) = (holders[0], holders[1])
        let pool = LiquidityPoolParameters(.native, usd)
        #expect(pool.assetA == .native && pool.assetB == usd)
        // Malformed: out of order, one asset twice, another fee, a negative limit.
        #expect(Self.trustPool(&ledger, alice, LiquidityPoolParameters(assetA: usd, assetB: .native)) == "op_malformed")
        #expect(Self.trustPool(&ledger, alice, LiquidityPoolParameters(assetA: usd, assetB: usd)) == "op_malformed")
        #expect(Self.trustPool(&ledger, alice, LiquidityPoolParameters(assetA: .native, assetB: usd, fee: 31)) == "op_malformed")
        #expect(Self.trustPool(&ledger, alice, pool, limit: -1) == "op_malformed")
        #expect(Self.trustPool(&ledger, alice, pool, limit: 0) == "op_invalid_limit")
        let eur = ledger.asset("EUR", issuer: issuer)
        #expect(Self.trustPool(&ledger, alice, LiquidityPoolParameters(eur, usd)) == "op_trust_line_missing")

        let before = ledger.state.account(alice.accountID)!.numSubEntries
        #expect(Self.trustPool(&ledger, alice, pool) == "op_success")
        #expect(ledger.state.account(alice.accountID)!.numSubEntries == before + 2, "two reserves")
        #expect(ledger.state.liquidityPools[pool.poolID]?.trustLineCount == 1)
        #expect(ledger.state.trustLine(alice.accountID, usd)?.liquidityPoolUseCount == 1)
        #expect(Self.trustPool(&ledger, bob, pool) == "op_success")
        #expect(ledger.state.liquidityPools[pool.poolID]?.trustLineCount == 2)
        #expect(ledger.state.verifyAllInvariants() == nil)
        // The asset's trustline stays while a pool uses it.
        ledger.pay(alice, issuer, usd, 10_000 * Self.xlm)
        #expect(Self.code(ledger.submit(alice, .changeTrust(ChangeTrustOperation(asset: usd, limit: 0)))) == "op_cannot_delete")
        // Shares held: the limit may not fall below them.
        #expect(Self.deposit(&ledger, bob, pool, 1000, 4000) == "op_success")
        #expect(Self.trustPool(&ledger, bob, pool, limit: 1999) == "op_invalid_limit")
        #expect(Self.trustPool(&ledger, bob, pool, limit: 2000) == "op_success")
        #expect(Self.trustPool(&ledger, alice, pool, limit: 0) == "op_success")
        #expect(ledger.state.account(alice.accountID)!.numSubEntries == before)
        #expect(ledger.state.trustLine(alice.accountID, usd)?.liquidityPoolUseCount == 0)
        #expect(Self.code(ledger.submit(alice, .changeTrust(ChangeTrustOperation(asset: usd, limit: 0)))) == "op_success")
        #expect(Self.withdraw(&ledger, bob, pool, 2000) == "op_success")
        #expect(Self.trustPool(&ledger, bob, pool, limit: 0) == "op_success")
        #expect(ledger.state.liquidityPools.isEmpty, "gone with its last trustline")
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    @Test func aHolderWithoutAuthorizationCannotTrustAPool() {
        var (ledger, issuer, usd, holders) = Self.setUp(holders: 1, issuerFlags: AccountFlags.authRequired | AccountFlags.authRevocable)
        let alice = holders[0]
        ledger.submit(issuer, .setTrustLineFlags(SetTrustLineFlagsOperation(trustor: alice.accountID, asset: usd, clearFlags: TrustLineFlags.authorized, setFlags: 0)))
        #expect(Self.trustPool(&ledger, alice, LiquidityPoolParameters(.native, usd)) == "op_not_aut_maintain_liabilities")
        // Authorized to maintain liabilities is enough to hold shares, not to deposit.
        ledger.submit(issuer, .setTrustLineFlags(SetTrustLineFlagsOperation(trustor: alice.accountID, asset: usd, clearFlags: 0, setFlags: TrustLineFlags.authorizedToMaintainLiabilities)))
        #expect(Self.trustPool(&ledger, alice, LiquidityPoolParameters(.native, usd)) == "op_success")
        #expect(Self.deposit(&ledger, alice, LiquidityPoolParameters(.native, usd), 10, 10) == "op_not_authorized")
    }

    @Test func depositsAndWithdrawalsToTheStroop() throws {
        var (ledger, _, usd, holders) = Self.setUp(holders: 2)
        let (alice, bob) = (holders[0], holders[1])
        let pool = LiquidityPoolParameters(.native, usd)
        #expect(Self.deposit(&ledger, alice, pool, 1000, 4000) == "op_no_trust")
        #expect(Self.trustPool(&ledger, alice, pool) == "op_success")
        #expect(Self.trustPool(&ledger, bob, pool, limit: 100) == "op_success")
        // Malformed before anything is read.
        #expect(Self.deposit(&ledger, alice, pool, 0, 1) == "op_malformed")
        #expect(Self.deposit(&ledger, alice, pool, 1, 1, min: Price(n: 0, d: 1)) == "op_malformed")
        #expect(Self.deposit(&ledger, alice, pool, 1, 1, min: Price(n: 2, d: 1), max: Price(n: 1, d: 1)) == "op_malformed")
        // Into an empty pool: what is offered, at its own price; √(1000 × 4000) shares.
        #expect(Self.deposit(&ledger, alice, pool, 1000, 4000, min: Price(n: 1, d: 2), max: Price(n: 1, d: 1)) == "op_bad_price", "1000/4000 is below a half")
        #expect(Self.deposit(&ledger, alice, pool, 1000, 20_000 * Self.xlm) == "op_underfunded")
        let aliceXLM = ledger.balance(alice)!
        #expect(Self.deposit(&ledger, alice, pool, 1000, 4000) == "op_success")
        var entry = try #require(ledger.state.liquidityPools[pool.poolID])
        #expect([entry.reserveA, entry.reserveB, entry.totalPoolShares] == [1000, 4000, 2000])
        #expect(ledger.balance(alice) == aliceXLM - 1000 - 100)
        #expect(ledger.state.poolShares[PoolShareKey(alice.accountID, pool.poolID)]?.balance == 2000)
        // Into a pool with reserves: the fewer shares either amount buys, and what they cost, rounded up.
        // min(2000 × 500 / 1000, 2000 × 500 / 4000) = 250 shares for ⌈250 × 1000 / 2000⌉ = 125 and 500.
        #expect(Self.deposit(&ledger, bob, pool, 500, 500, min: Price(n: 1, d: 3), max: Price(n: 1, d: 1)) == "op_bad_price", "125/500 is a quarter")
        #expect(Self.deposit(&ledger, bob, pool, 500, 500) == "op_line_full", "a limit of 100 shares")
        #expect(Self.trustPool(&ledger, bob, pool) == "op_success")
        let bobUSD = ledger.balance(bob, usd)!
        #expect(Self.deposit(&ledger, bob, pool, 500, 500) == "op_success")
        entry = try #require(ledger.state.liquidityPools[pool.poolID])
        #expect([entry.reserveA, entry.reserveB, entry.totalPoolShares] == [1125, 4500, 2250])
        #expect(ledger.balance(bob, usd) == bobUSD - 500)
        #expect(ledger.state.verifyAllInvariants() == nil)

        // Withdrawals: each reserve's share, rounded down.
        #expect(Self.withdraw(&ledger, bob, pool, 0) == "op_malformed")
        #expect(Self.withdraw(&ledger, bob, pool, 251) == "op_underfunded")
        #expect(Self.withdraw(&ledger, bob, pool, 250, minA: 126) == "op_under_minimum")
        #expect(Self.withdraw(&ledger, bob, pool, 250, minB: 501) == "op_under_minimum")
        let bobXLM = ledger.balance(bob)!
        #expect(Self.withdraw(&ledger, bob, pool, 250, minA: 125, minB: 500) == "op_success")
        #expect(ledger.balance(bob) == bobXLM + 125 - 100 && ledger.balance(bob, usd) == bobUSD)
        entry = try #require(ledger.state.liquidityPools[pool.poolID])
        #expect([entry.reserveA, entry.reserveB, entry.totalPoolShares] == [1000, 4000, 2000])
        #expect(Self.withdraw(&ledger, ledger.root, pool, 1) == "op_no_trust")
        // A trustline too full for what comes out.
        #expect(Self.code(ledger.submit(alice, .changeTrust(ChangeTrustOperation(asset: usd, limit: 10_000 * Self.xlm - 4000)))) == "op_success")
        #expect(Self.withdraw(&ledger, alice, pool, 2000) == "op_line_full")
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    @Test func pathPaymentsTakeThePoolWhenItPaysAtLeastAsWell() throws {
        var (ledger, _, usd, holders) = Self.setUp(holders: 3)
        let (maker, sender, receiver) = (holders[0], holders[1], holders[2])
        let pool = LiquidityPoolParameters(.native, usd)
        #expect(Self.trustPool(&ledger, maker, pool) == "op_success")
        #expect(Self.deposit(&ledger, maker, pool, 1000, 4000) == "op_success")
        // Strict send of 100 stroops of XLM: 362 of USD from the pool, the only way.
        let receiverUSD = ledger.balance(receiver, usd)!
        let send = ledger.submit(sender, .pathPaymentStrictSend(PathPaymentStrictSendOperation(
            sendAsset: .native, sendAmount: 100, destination: .ed25519(receiver.accountID), destAsset: usd, destMin: 362, path: [])))
        guard case .inner(.pathPaymentStrictSend(.success(let claims, let last)))? = send.result.outcome.operationResults?.first else {
            Issue.record("strict send failed: \(codes(send))")
            return
        }
        #expect(last.amount == 362 && ledger.balance(receiver, usd) == receiverUSD + 362)
        #expect(claims == [.liquidityPool(poolID: pool.poolID, ClaimAtom.ClaimedAmounts(offerID: 0, assetSold: usd, amountSold: 362, assetBought: .native, amountBought: 100))])
        var entry = try #require(ledger.state.liquidityPools[pool.poolID])
        #expect([entry.reserveA, entry.reserveB] == [1100, 3638])
        #expect(EffectsTests.effects(ledger).last?.hasPrefix("liquidity_pool_trade \(sender.accountID.strKey)") == true)
        #expect(LedgerHistory(try #require(ledger.lastLedger)).trades.map(\.kind) == [.liquidityPool])

        // Strict receive of 100 USD: ⌈10000 × 1100 × 100 / ((3638 − 100) × 9970)⌉ = 32 XLM stroops.
        let receive = ledger.submit(sender, .pathPaymentStrictReceive(PathPaymentStrictReceiveOperation(
            sendAsset: .native, sendMax: 32, destination: .ed25519(receiver.accountID), destAsset: usd, destAmount: 100, path: [])))
        #expect(codes(receive) == ["tx_success", "op_success"])
        entry = try #require(ledger.state.liquidityPools[pool.poolID])
        #expect([entry.reserveA, entry.reserveB] == [1132, 3538])

        // An offer at a better price than the pool's is taken instead.
        _ = ledger.offer(maker, selling: usd, buying: .native, amount: 10_000, price: Price(n: 1, d: 10))
        let viaBook = ledger.submit(sender, .pathPaymentStrictSend(PathPaymentStrictSendOperation(
            sendAsset: .native, sendAmount: 100, destination: .ed25519(receiver.accountID), destAsset: usd, destMin: 1, path: [])))
        guard case .inner(.pathPaymentStrictSend(.success(let bookClaims, let bookLast)))? = viaBook.result.outcome.operationResults?.first else {
            Issue.record("strict send failed: \(codes(viaBook))")
            return
        }
        #expect(bookLast.amount == 1000)
        if case .orderBook = bookClaims.first {} else { Issue.record("the book was not used: \(bookClaims)") }
        #expect(ledger.state.liquidityPools[pool.poolID]?.reserveA == 1132, "the pool untouched")
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    /// The path search prices a hop as the operation would cross it: through the pool unless the
    /// book does strictly better, so what it finds is what a payment gets.
    @Test func pathsGoThroughPools() throws {
        var (ledger, _, usd, holders) = Self.setUp(holders: 2)
        let (maker, sender) = (holders[0], holders[1])
        let pool = LiquidityPoolParameters(.native, usd)
        #expect(try ledger.state.strictSendPaths(sourceAsset: .native, sourceAmount: 100, destinationAssets: [usd]).isEmpty, "no market yet")
        #expect(Self.trustPool(&ledger, maker, pool) == "op_success")
        #expect(Self.deposit(&ledger, maker, pool, 1000, 4000) == "op_success")
        #expect(try ledger.state.strictSendPaths(sourceAsset: .native, sourceAmount: 100, destinationAssets: [usd]).map(\.destinationAmount) == [362])
        #expect(try ledger.state.strictReceivePaths(sourceAssets: [.native], destinationAsset: usd, destinationAmount: 362).map(\.sourceAmount) == [100])
        // Both ways: USD for XLM through the same pool.
        #expect(try ledger.state.strictSendPaths(sourceAsset: usd, sourceAmount: 400, destinationAssets: [.native]).map(\.destinationAmount)
            == [PoolMath.receive(sending: 400, reserveIn: 4000, reserveOut: 1000, fee: 30)!])
        // A better book wins, and the payment agrees with the search.
        _ = ledger.offer(maker, selling: usd, buying: .native, amount: 10_000, price: Price(n: 1, d: 10))
        let found = try ledger.state.strictSendPaths(sourceAsset: .native, sourceAmount: 100, destinationAssets: [usd])
        #expect(found.map(\.destinationAmount) == [1000])
        let paid = ledger.submit(sender, .pathPaymentStrictSend(PathPaymentStrictSendOperation(
            sendAsset: .native, sendAmount: 100, destination: .ed25519(sender.accountID), destAsset: usd, destMin: 1000, path: [])))
        #expect(codes(paid) == ["tx_success", "op_success"])
    }

    @Test func aRevokedHolderGetsItsSharesAsClaimableBalances() throws {
        var (ledger, issuer, usd, holders) = Self.setUp(holders: 2, issuerFlags: AccountFlags.authRequired | AccountFlags.authRevocable)
        let (alice, bob) = (holders[0], holders[1])
        let pool = LiquidityPoolParameters(.native, usd)
        #expect(Self.trustPool(&ledger, alice, pool) == "op_success")
        #expect(Self.trustPool(&ledger, bob, pool) == "op_success")
        #expect(Self.deposit(&ledger, alice, pool, 1000, 4000) == "op_success")
        #expect(Self.deposit(&ledger, bob, pool, 1000, 4000) == "op_success")
        let subEntries = ledger.state.account(alice.accountID)!.numSubEntries
        // The issuer takes away even the authorization to maintain liabilities.
        let revoke = Transaction(
            sourceAccount: .ed25519(issuer.accountID), fee: 100, sequenceNumber: ledger.sequence(issuer) + 1,
            operations: [Operation(.setTrustLineFlags(SetTrustLineFlagsOperation(trustor: alice.accountID, asset: usd, clearFlags: TrustLineFlags.authorized, setFlags: 0)))])
        #expect(codes(ledger.submit(revoke.signed(by: [issuer], on: ledger.network))) == ["tx_success", "op_success"])
        #expect(ledger.state.poolShares[PoolShareKey(alice.accountID, pool.poolID)] == nil)
        #expect(ledger.state.account(alice.accountID)!.numSubEntries == subEntries - 2)
        let entry = try #require(ledger.state.liquidityPools[pool.poolID])
        #expect([entry.reserveA, entry.reserveB, entry.totalPoolShares, entry.trustLineCount] == [1000, 4000, 2000, 1])
        for (asset, amount) in [(Asset.native, Int64(1000)), (usd, Int64(4000))] {
            let id = ClaimableBalanceID.revoked(bySource: issuer.accountID, sequence: revoke.sequenceNumber, operationIndex: 0, pool: pool.poolID, asset: asset)
            let balance = try #require(ledger.state.claimableBalances[id])
            #expect(balance.amount == amount && balance.claimants.map(\.destination) == [alice.accountID] && balance.sponsor == alice.accountID)
        }
        #expect(ledger.state.account(alice.accountID)!.numSponsoring == 2)
        #expect(ledger.state.trustLine(alice.accountID, usd)?.liquidityPoolUseCount == 0)
        let types = EffectsTests.effects(ledger).map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(types == [
            "trustline_flags_updated", "claimable_balance_created", "claimable_balance_claimant_created",
            "claimable_balance_created", "claimable_balance_claimant_created", "liquidity_pool_revoked",
            "claimable_balance_sponsorship_created", "claimable_balance_sponsorship_created",
        ])
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    /// The claimable balances a revocation makes are paid for by the shares' backer, or by that
    /// account's own sponsor when it has one in the transaction; one that cannot pay fails the
    /// revocation with the operation's own `op_low_reserve`.
    @Test func aRevocationWhoseBalancesNoOneCanPayFor() throws {
        for allowTrust in [false, true] {
            var (ledger, issuer, usd, holders) = Self.setUp(holders: 1, issuerFlags: AccountFlags.authRequired | AccountFlags.authRevocable)
            let alice = holders[0]
            let pool = LiquidityPoolParameters(.native, usd)
            #expect(Self.trustPool(&ledger, alice, pool) == "op_success")
            #expect(Self.deposit(&ledger, alice, pool, 1000, 4000) == "op_success")
            let poor = ledger.account(1)
            ledger.pay(ledger.root, poor, .native, 1_000)
            let revoke: OperationBody = allowTrust
                ? .allowTrust(AllowTrustOperation(trustor: alice.accountID, assetCode: usd.code!, authorize: 0))
                : .setTrustLineFlags(SetTrustLineFlagsOperation(trustor: alice.accountID, asset: usd, clearFlags: TrustLineFlags.authorized, setFlags: 0))
            let ops = [
                Operation(sourceAccount: .ed25519(poor.accountID), .beginSponsoringFutureReserves(sponsoredID: alice.accountID)),
                Operation(revoke),
                Operation(sourceAccount: .ed25519(alice.accountID), .endSponsoringFutureReserves),
            ]
            #expect(codes(ledger.submit(issuer, ops, signers: [issuer, poor, alice])) == ["tx_failed", "op_success", "op_low_reserve", "op_success"])
            #expect(ledger.state.poolShares[PoolShareKey(alice.accountID, pool.poolID)]?.balance == 2000, "nothing was redeemed")
        }
    }

    @Test func poolEffectsAsHorizonWritesThem() throws {
        var (ledger, _, usd, holders) = Self.setUp(holders: 1)
        let alice = holders[0]
        let pool = LiquidityPoolParameters(.native, usd)
        let id = pool.poolID.hex, a = alice.accountID.strKey
        #expect(Self.trustPool(&ledger, alice, pool) == "op_success")
        #expect(EffectsTests.effects(ledger) == [
            #"trustline_created \#(a) {"asset_type":"liquidity_pool_shares","liquidity_pool_id":"\#(id)","limit":"922337203685.4775807"}"#,
            #"liquidity_pool_created \#(a) {"liquidity_pool":{"id":"\#(id)","fee_bp":30,"type":"constant_product","total_trustlines":"1","total_shares":"0.0000000","reserves":[{"asset":"native","amount":"0.0000000"},{"asset":"\#(usd.description)","amount":"0.0000000"}]}}"#,
        ])
        #expect(Self.deposit(&ledger, alice, pool, 1000, 4000) == "op_success")
        let after = #"{"id":"\#(id)","fee_bp":30,"type":"constant_product","total_trustlines":"1","total_shares":"0.0002000","reserves":[{"asset":"native","amount":"0.0001000"},{"asset":"\#(usd.description)","amount":"0.0004000"}]}"#
        #expect(EffectsTests.effects(ledger) == [
            #"liquidity_pool_deposited \#(a) {"liquidity_pool":\#(after),"reserves_deposited":[{"asset":"native","amount":"0.0001000"},{"asset":"\#(usd.description)","amount":"0.0004000"}],"shares_received":"0.0002000"}"#,
        ])
        #expect(Self.withdraw(&ledger, alice, pool, 2000) == "op_success")
        #expect(EffectsTests.effects(ledger).first?.hasPrefix(#"liquidity_pool_withdrew \#(a) {"liquidity_pool":{"id":"\#(id)""#) == true)
        #expect(EffectsTests.effects(ledger).first?.hasSuffix(#""reserves_received":[{"asset":"native","amount":"0.0001000"},{"asset":"\#(usd.description)","amount":"0.0004000"}],"shares_redeemed":"0.0002000"}"#) == true)
        #expect(Self.trustPool(&ledger, alice, pool, limit: 0) == "op_success")
        #expect(EffectsTests.effects(ledger).last == #"liquidity_pool_removed \#(a) {"liquidity_pool_id":"\#(id)"}"#)
    }

    @Test func aSponsorPaysBothReservesOfAPoolShareTrustline() {
        var (ledger, _, usd, holders) = Self.setUp(holders: 1)
        let sponsor = ledger.account(100), alice = holders[0]
        let pool = LiquidityPoolParameters(.native, usd)
        let result = SponsorshipTests.sponsoring(&ledger, sponsor, alice, [.changeTrust(ChangeTrustOperation(pool: pool))])
        #expect(result.first == "tx_success")
        #expect(ledger.state.account(sponsor.accountID)?.numSponsoring == 2 && ledger.state.account(alice.accountID)?.numSponsored == 2)
        #expect(ledger.state.poolShares[PoolShareKey(alice.accountID, pool.poolID)]?.sponsor == sponsor.accountID)
        #expect(EffectsTests.effects(ledger).contains(#"trustline_sponsorship_created \#(alice.accountID.strKey) {"asset_type":"liquidity_pool","liquidity_pool_id":"\#(pool.poolID.hex)","sponsor":"\#(sponsor.accountID.strKey)"}"#))
        #expect(ledger.state.verifyAllInvariants() == nil)
    }
}
