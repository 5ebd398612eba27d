import PropertyBased
import Testing
import StellarBase
import TenderTesting
@testable import Ledger

private let xlm = TestLedger.xlm

@Suite("Operation limits, invariants and determinism")
struct LimitsAndInvariantTests {
    @Test func tooManySubentries() {
        var ledger = TestLedger()
        let alice = ledger.account(1000)
        for batch in 0..<10 {
            let ops = (0..<100).map { index in
                Operation(.manageData(ManageDataOperation(name: Array("entry-\(batch)-\(index)".utf8), value: [1])))
            }
            #expect(codes(ledger.submit(alice, ops)).first == "tx_success")
        }
        #expect(ledger.state.account(alice.accountID)!.numSubEntries == 1000)
        #expect(codes(ledger.submit(alice, .manageData(ManageDataOperation(name: Array("one-more".utf8), value: [1])))) == ["tx_failed", "op_too_many_subentries"])
    }

    @Test func crossingMoreThanAThousandOffersExceedsTheWorkLimit() {
        var ledger = TestLedger()
        let issuer = ledger.account(1000)
        // An account holds at most 1000 subentries, so two makers share the 1001 offers.
        let makers = [ledger.account(2000), ledger.account(2000)]
        let taker = ledger.account(3000)
        let usd = ledger.asset("USD", issuer: issuer)
        for maker in makers {
            ledger.trust(maker, usd)
            ledger.pay(issuer, maker, usd, 2000 * xlm)
        }
        ledger.trust(taker, usd)
        for batch in 0..<11 {
            let maker = makers[batch < 6 ? 0 : 1]
            let count = batch == 10 ? 1 : 100
            let ops = (0..<count).map { _ in
                Operation(.manageSellOffer(ManageSellOfferOperation(selling: usd, buying: .native, amount: xlm, price: Price(n: 1, d: 1))))
            }
            let placed = codes(ledger.submit(maker, ops))
            #expect(placed.first == "tx_success", "\(Set(placed))")
        }
        #expect(ledger.state.offers.count == 1001)
        let buyAll = OperationBody.manageSellOffer(ManageSellOfferOperation(selling: .native, buying: usd, amount: 1001 * xlm, price: Price(n: 1, d: 1)))
        #expect(codes(ledger.submit(taker, buyAll)) == ["tx_failed", "op_exceeded_work_limit"])
        let pathPay = OperationBody.pathPaymentStrictSend(PathPaymentStrictSendOperation(
            sendAsset: .native, sendAmount: 1001 * xlm, destination: .ed25519(taker.accountID), destAsset: usd, destMin: 1, path: []))
        #expect(codes(ledger.submit(taker, pathPay)) == ["tx_failed", "op_exceeded_work_limit"])
        // A thousand is allowed.
        let buyThousand = OperationBody.manageSellOffer(ManageSellOfferOperation(selling: .native, buying: usd, amount: 1000 * xlm, price: Price(n: 1, d: 1)))
        #expect(codes(ledger.submit(taker, buyThousand)) == ["tx_success", "op_success"])
        #expect(ledger.state.offers.count == 1)
    }

    @Test func aBrokenInvariantStopsTheLedger() {
        var ledger = TestLedger()
        let alice = ledger.account(100)
        let sequence = ledger.state.header.sequence
        let honest = ledger.state.account(alice.accountID)!
        // Forge money inside the ledger being built, as a bug in an operation would.
        var forged = honest
        forged.balance += 1
        ledger.state.setAccount(forged)
        let prepared = PreparedTransaction.prepare(
            Transaction(sourceAccount: .ed25519(alice.accountID), fee: 100, sequenceNumber: honest.sequenceNumber + 1,
                        operations: [Operation(.bumpSequence(bumpTo: 0))]).signed(by: [alice], on: ledger.network),
            network: ledger.network)
        do {
            _ = try ledger.state.closeLedger([prepared], closeTime: ledger.closeTime + 5)
            Issue.record("the ledger closed with forged XLM")
        } catch {
            #expect(error.code == .invariantViolated)
            #expect(error.message.contains("XLM"))
        }
        // Nothing of that ledger was kept.
        #expect(ledger.state.header.sequence == sequence)
        #expect(ledger.state.account(alice.accountID) == honest)
    }

    @Test func supplyInvariantCatchesIssuedAssetsFromNowhere() {
        var ledger = TestLedger()
        let issuer = ledger.account(100)
        let alice = ledger.account(100)
        let usd = ledger.asset("USD", issuer: issuer)
        ledger.trust(alice, usd)
        var line = ledger.state.trustLine(alice.accountID, usd)!
        line.balance += 5
        ledger.state.setTrustLine(line)
        #expect(ledger.state.checkInvariants()?.contains("supply of USD") == true)
    }
}

/// Random sequences of valid and invalid transactions keep every invariant, and applying the
/// same sets to the same start gives the same state.
@Suite("Ledger properties")
struct LedgerPropertyTests {
    @Test func randomTransactionsKeepInvariantsAndAreDeterministic() async {
        await propertyCheck(count: 25, input: Gen.uint64()) { seed throws in
            var setup = TestLedger()
            var accounts: [KeyPair] = []
            for _ in 0..<6 { accounts.append(setup.account(1000)) }
            let issuer = accounts[0]
            let assets: [Asset] = [.native, setup.asset("USD", issuer: issuer), setup.asset("EURO5", issuer: issuer)]
            for account in accounts.dropFirst() {
                setup.trust(account, assets[1])
                setup.trust(account, assets[2])
                setup.pay(issuer, account, assets[1], 500 * xlm)
                setup.pay(issuer, account, assets[2], 500 * xlm)
            }
            var rng = SplitMix64(seed: seed)
            var batches: [[TransactionEnvelope]] = []
            var sequences = Dictionary(uniqueKeysWithValues: accounts.map { ($0.accountID, setup.sequence($0)) })
            for _ in 0..<15 {
                var batch: [TransactionEnvelope] = []
                for _ in 0..<8 {
                    let source = accounts[Int(rng.next() % UInt64(accounts.count))]
                    let ops = (0..<Int(1 + rng.next() % 3)).map { _ in randomOperation(&rng, accounts: accounts, assets: assets) }
                    // Now and then a wrong sequence number or a missing signature.
                    let badSequence = rng.next() % 10 == 0
                    let next = sequences[source.accountID]! + (badSequence ? 2 : 1)
                    if !badSequence { sequences[source.accountID] = next }
                    let tx = Transaction(sourceAccount: .ed25519(source.accountID), fee: UInt32(100 * ops.count), sequenceNumber: next, operations: ops)
                    batch.append(tx.signed(by: rng.next() % 15 == 0 ? [] : [source], on: setup.network))
                }
                batches.append(batch)
            }
            func run(_ start: LedgerState) throws -> (LedgerState, [[String]]) {
                var state = start
                var results: [[String]] = []
                for (index, batch) in batches.enumerated() {
                    let prepared = PreparedTransaction.prepareAll(batch, network: .standalone)
                    let closed = try state.closeLedger(prepared, closeTime: 1_800_000_000 + UInt64(index))
                    results.append(closed.transactions.map { codes($0.application).joined(separator: ",") })
                    try #require(state.verifyAllInvariants() == nil, "\(state.verifyAllInvariants() ?? "")")
                }
                return (state, results)
            }
            let (first, firstResults) = try run(setup.state)
            let (second, secondResults) = try run(setup.state)
            #expect(first.stateHash() == second.stateHash())
            #expect(firstResults == secondResults)
            #expect(first.stateHash() != setup.state.stateHash())
        }
    }

    func randomOperation(_ rng: inout SplitMix64, accounts: [KeyPair], assets: [Asset]) -> Operation {
        let other = accounts[Int(rng.next() % UInt64(accounts.count))].accountID
        let asset = assets[Int(rng.next() % UInt64(assets.count))]
        let otherAsset = assets[Int(rng.next() % UInt64(assets.count))]
        let amount = Int64(rng.next() % UInt64(300 * xlm))
        let price = Price(n: Int32(1 + rng.next() % 5), d: Int32(1 + rng.next() % 5))
        // Pools of the first asset with each of the others (their assets in XDR order).
        let pool = LiquidityPoolParameters(assets[0], assets[1 + Int(rng.next() % UInt64(assets.count - 1))])
        switch rng.next() % 12 {
        case 8: return Operation(.changeTrust(ChangeTrustOperation(pool: pool, limit: rng.next() % 4 == 0 ? 0 : .max)))
        case 9: return Operation(.liquidityPoolDeposit(LiquidityPoolDepositOperation(
            poolID: pool.poolID, maxAmountA: max(amount, 1), maxAmountB: max(amount / 3, 1), minPrice: Price(n: 1, d: 100), maxPrice: Price(n: 100, d: 1))))
        case 10: return Operation(.liquidityPoolWithdraw(LiquidityPoolWithdrawOperation(poolID: pool.poolID, amount: max(amount / 7, 1), minAmountA: 0, minAmountB: 0)))
        case 11:
            // Alone in its transaction, a Begin is tx_bad_sponsorship; a revocation of one's own unsponsored entry changes nothing.
            return rng.next() % 2 == 0
                ? Operation(.beginSponsoringFutureReserves(sponsoredID: other))
                : Operation(.revokeSponsorship(.ledgerEntry(.trustLine(other, assets[1 + Int(rng.next() % UInt64(assets.count - 1))]))))
        case 0, 1: return Operation(.payment(PaymentOperation(destination: .ed25519(other), asset: asset, amount: amount)))
        case 2: return Operation(.manageSellOffer(ManageSellOfferOperation(selling: asset, buying: otherAsset, amount: amount, price: price)))
        case 3: return Operation(.manageBuyOffer(ManageBuyOfferOperation(selling: asset, buying: otherAsset, buyAmount: amount, price: price)))
        case 4: return Operation(.pathPaymentStrictSend(PathPaymentStrictSendOperation(
            sendAsset: asset, sendAmount: max(amount, 1), destination: .ed25519(other), destAsset: otherAsset, destMin: 1, path: [])))
        case 5: return Operation(.pathPaymentStrictReceive(PathPaymentStrictReceiveOperation(
            sendAsset: asset, sendMax: .max, destination: .ed25519(other), destAsset: otherAsset, destAmount: max(amount / 10, 1), path: [assets[0]])))
        case 6: return Operation(.manageData(ManageDataOperation(name: Array("k\(rng.next() % 4)".utf8), value: rng.next() % 2 == 0 ? nil : [1, 2])))
        default: return Operation(.changeTrust(ChangeTrustOperation(asset: asset, limit: rng.next() % 3 == 0 ? 0 : .max)))
        }
    }
}
