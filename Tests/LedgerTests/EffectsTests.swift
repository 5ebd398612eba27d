import Testing
import StellarBase
import TenderJSON
@testable import Ledger

/// The effects each operation gives, as Horizon's effects processor derives them from the
/// operation, its result and its meta (stellar-horizon `effects_processor.go`): the vectors
/// here are written from it, field for field and in its order.
@Suite("Effects")
struct EffectsTests {
    /// The last ledger's effects as `type account {details}`: every successful operation's, as
    /// the history stores them or (for ``OperationEffects/derivedTypes``) derives them when read.
    static func effects(_ ledger: TestLedger) -> [String] {
        guard let closed = ledger.lastLedger else { return [] }
        var effects: [Effect] = []
        for transaction in closed.transactions where transaction.application.result.isSuccess {
            let tx = transaction.prepared.transaction
            for (index, op) in tx.operations.enumerated() {
                effects += OperationEffects.of(
                    op.body, source: op.sourceAccount ?? tx.sourceAccount, result: transaction.application.result.outcome.operationResults?[index],
                    meta: transaction.meta[index])
            }
        }
        return effects.map { effect in
            "\(effect.type.name) \(effect.account.strKey)\(effect.muxedID.map { " muxed \($0)" } ?? "") \(JSONValue.object(effect.details).compact())"
        }
    }

    /// The history keeps no rows for the effects it derives when read (payments and the like).
    @Test func paymentsEffectsAreDerivedNotStored() throws {
        var ledger = TestLedger()
        let alice = ledger.account(), bob = ledger.account()
        #expect(LedgerHistory(try #require(ledger.lastLedger)).effects.isEmpty, "a creation")
        ledger.pay(alice, bob, .native, TestLedger.xlm)
        #expect(LedgerHistory(try #require(ledger.lastLedger)).effects.isEmpty, "a payment")
        ledger.submit(alice, .manageData(ManageDataOperation(name: Array("k".utf8), value: [2])))
        #expect(LedgerHistory(try #require(ledger.lastLedger)).effects.map(\.type) == [.dataCreated])
    }

    static func native(_ amount: String) -> String { #"{"asset_type":"native","amount":"\#(amount)"}"# }

    @Test func createAccountPaymentAndMerge() {
        var ledger = TestLedger()
        let alice = ledger.account(100)
        let root = ledger.root.accountID.strKey, a = alice.accountID.strKey
        #expect(Self.effects(ledger) == [
            #"account_created \#(a) {"starting_balance":"100.0000000"}"#,
            "account_debited \(root) \(Self.native("100.0000000"))",
            #"signer_created \#(a) {"weight":1,"public_key":"\#(a)","key":""}"#,
        ])
        let issuer = ledger.account(), bob = ledger.account()
        let usd = ledger.asset("USD", issuer: issuer)
        ledger.trust(bob, usd)
        // To a multiplexed address: the credit names the M account's id.
        ledger.submit(issuer, .payment(PaymentOperation(destination: .muxed(id: 42, bob.accountID), asset: usd, amount: 12 * TestLedger.xlm)))
        let usdFields = #"{"asset_type":"credit_alphanum4","asset_code":"USD","asset_issuer":"\#(issuer.accountID.strKey)","amount":"12.0000000"}"#
        #expect(Self.effects(ledger) == [
            "account_credited \(bob.accountID.strKey) muxed 42 \(usdFields)",
            "account_debited \(issuer.accountID.strKey) \(usdFields)",
        ])
        let balance = ledger.balance(alice)! - 100
        ledger.submit(alice, .accountMerge(destination: .ed25519(bob.accountID)))
        let merged = Self.native(Amount.format(balance))
        #expect(Self.effects(ledger) == [
            "account_debited \(a) \(merged)", "account_credited \(bob.accountID.strKey) \(merged)", "account_removed \(a) {}",
        ])
    }

    @Test func setOptionsGivesEachChangeAndEverySignerChange() {
        var ledger = TestLedger()
        let alice = ledger.account(), carol = ledger.keyPair(), dave = ledger.keyPair()
        let a = alice.accountID.strKey
        ledger.submit(alice, .setOptions(SetOptionsOperation(
            setFlags: AccountFlags.authRequired | AccountFlags.authRevocable, lowThreshold: 1, homeDomain: Array("example.com".utf8),
            signer: Signer(key: .ed25519(carol.accountID.publicKey), weight: 2))))
        #expect(Self.effects(ledger) == [
            #"account_home_domain_updated \#(a) {"home_domain":"example.com"}"#,
            // Horizon's resource writes all three thresholds, 0 for those not set.
            #"account_thresholds_updated \#(a) {"low_threshold":1,"med_threshold":0,"high_threshold":0}"#,
            #"account_flags_updated \#(a) {"auth_required_flag":true,"auth_revocable_flag":true}"#,
            #"signer_created \#(a) {"weight":2,"public_key":"\#(carol.accountID.strKey)","key":""}"#,
        ])
        ledger.submit(alice, .setOptions(SetOptionsOperation(clearFlags: AccountFlags.authRevocable, signer: Signer(key: .ed25519(carol.accountID.publicKey), weight: 5))))
        #expect(Self.effects(ledger) == [
            #"account_flags_updated \#(a) {"auth_revocable_flag":false}"#,
            #"signer_updated \#(a) {"weight":5,"public_key":"\#(carol.accountID.strKey)","key":""}"#,
        ])
        // The master key leaves the summary at weight 0; a signer at weight 0 is removed.
        ledger.submit(alice, .setOptions(SetOptionsOperation(masterWeight: 0, signer: Signer(key: .ed25519(dave.accountID.publicKey), weight: 1))), signers: [carol])
        let created = #"signer_created \#(a) {"weight":1,"public_key":"\#(dave.accountID.strKey)","key":""}"#
        #expect(Self.effects(ledger) == [#"signer_removed \#(a) {"weight":0,"public_key":"\#(a)","key":""}"#, created])
        ledger.submit(alice, .setOptions(SetOptionsOperation(signer: Signer(key: .ed25519(carol.accountID.publicKey), weight: 0))), signers: [carol])
        #expect(Self.effects(ledger) == [#"signer_removed \#(a) {"weight":0,"public_key":"\#(carol.accountID.strKey)","key":""}"#])
        // Setting what is already set changes no signer: only the operation's own fields.
        ledger.submit(alice, .setOptions(SetOptionsOperation(highThreshold: 1)), signers: [dave])
        #expect(Self.effects(ledger) == [#"account_thresholds_updated \#(a) {"low_threshold":0,"med_threshold":0,"high_threshold":1}"#])
    }

    @Test func trustlinesDataAndSequence() {
        var ledger = TestLedger()
        let issuer = ledger.account(), alice = ledger.account()
        let usd = ledger.asset("USD", issuer: issuer)
        let a = alice.accountID.strKey, line = #""asset_type":"credit_alphanum4","asset_code":"USD","asset_issuer":"\#(issuer.accountID.strKey)""#
        ledger.trust(alice, usd, limit: 50 * TestLedger.xlm)
        #expect(Self.effects(ledger) == [#"trustline_created \#(a) {\#(line),"limit":"50.0000000"}"#])
        ledger.trust(alice, usd, limit: 70 * TestLedger.xlm)
        #expect(Self.effects(ledger) == [#"trustline_updated \#(a) {\#(line),"limit":"70.0000000"}"#])
        ledger.trust(alice, usd, limit: 0)
        #expect(Self.effects(ledger) == [#"trustline_removed \#(a) {\#(line),"limit":"0.0000000"}"#])

        ledger.submit(alice, .manageData(ManageDataOperation(name: Array("k".utf8), value: [1, 2])))
        #expect(Self.effects(ledger) == [#"data_created \#(a) {"name":"k","value":"AQI="}"#])
        ledger.submit(alice, .manageData(ManageDataOperation(name: Array("k".utf8), value: [3])))
        #expect(Self.effects(ledger) == [#"data_updated \#(a) {"name":"k","value":"Aw=="}"#])
        ledger.submit(alice, .manageData(ManageDataOperation(name: Array("k".utf8), value: nil)))
        #expect(Self.effects(ledger) == [#"data_removed \#(a) {"name":"k"}"#])

        let target = ledger.sequence(alice) + 100
        ledger.submit(alice, .bumpSequence(bumpTo: target))
        #expect(Self.effects(ledger) == [#"sequence_bumped \#(a) {"new_seq":"\#(target)"}"#])
        // A bump to a number already passed changes nothing: no effect.
        ledger.submit(alice, .bumpSequence(bumpTo: 5))
        #expect(Self.effects(ledger).isEmpty)
        #expect(ledger.lastLedger?.transactions.first?.application.result.isSuccess == true)
    }

    @Test func offersCrossedGiveTwoTradeEffectsEach() throws {
        var ledger = TestLedger()
        let issuer = ledger.account(), maker = ledger.account(), taker = ledger.account()
        let usd = ledger.asset("USD", issuer: issuer)
        ledger.trust(maker, usd)
        ledger.trust(taker, usd)
        ledger.pay(issuer, maker, usd, 100 * TestLedger.xlm)
        let made = ledger.offer(maker, selling: usd, buying: .native, amount: 100 * TestLedger.xlm, price: Price(n: 2, d: 1))
        let offerID = try #require(made)
        // The taker sells 10 XLM for USD at 1/2: crosses 5 USD of the maker's offer.
        ledger.submit(taker, .manageSellOffer(ManageSellOfferOperation(selling: .native, buying: usd, amount: 10 * TestLedger.xlm, price: Price(n: 1, d: 2))))
        let t = taker.accountID.strKey, m = maker.accountID.strKey, i = issuer.accountID.strKey
        #expect(Self.effects(ledger) == [
            #"trade \#(t) {"seller":"\#(m)","offer_id":"\#(offerID)","sold_amount":"10.0000000","sold_asset_type":"native","bought_amount":"5.0000000","bought_asset_type":"credit_alphanum4","bought_asset_code":"USD","bought_asset_issuer":"\#(i)"}"#,
            #"trade \#(m) {"seller":"\#(t)","offer_id":"\#(offerID)","sold_amount":"5.0000000","sold_asset_type":"credit_alphanum4","sold_asset_code":"USD","sold_asset_issuer":"\#(i)","bought_amount":"10.0000000","bought_asset_type":"native"}"#,
        ])
        // A strict-receive path payment: debited by what the first hop bought, then the trades.
        ledger.submit(taker, .pathPaymentStrictReceive(PathPaymentStrictReceiveOperation(
            sendAsset: .native, sendMax: 10 * TestLedger.xlm, destination: .ed25519(taker.accountID), destAsset: usd, destAmount: 2 * TestLedger.xlm, path: [])))
        let effects = Self.effects(ledger)
        #expect(effects.count == 4)
        #expect(effects.first?.hasPrefix("account_credited \(t)") == true && effects.first?.hasSuffix(#""amount":"2.0000000"}"#) == true)
        #expect(effects.dropFirst().first == "account_debited \(t) \(Self.native("4.0000000"))")
    }

    @Test func aFailedTransactionHasNoEffects() {
        var ledger = TestLedger()
        let alice = ledger.account(), bob = ledger.account()
        // The data entry would be created, but the payment after it fails: nothing is kept.
        let application = ledger.submit(alice, [
            Operation(.manageData(ManageDataOperation(name: Array("k".utf8), value: [1]))),
            Operation(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: 1_000 * TestLedger.xlm))),
        ])
        #expect(codes(application) == ["tx_failed", "op_success", "op_underfunded"])
        #expect(ledger.lastLedger?.transactions.first?.meta.isEmpty == true)
        #expect(Self.effects(ledger).isEmpty)
    }

    @Test func aClaimOfNothingIsNoTrade() throws {
        let buyer = try KeyPair(seed: Array(repeating: 3, count: 32)).accountID, seller = try KeyPair(seed: Array(repeating: 4, count: 32)).accountID
        let empty = ClaimAtom.orderBook(sellerID: seller, .init(offerID: 9, assetSold: .native, amountSold: 0, assetBought: .native, amountBought: 0))
        let some = ClaimAtom.orderBook(sellerID: seller, .init(offerID: 9, assetSold: .native, amountSold: 1, assetBought: .native, amountBought: 0))
        #expect(OperationEffects.trades(.ed25519(buyer), [empty]).isEmpty)
        // A muxed taker is named so in the owner's effect.
        let trades = OperationEffects.trades(.muxed(id: 7, buyer), [some])
        #expect(trades.map(\.type) == [.trade, .trade] && trades[0].muxedID == 7 && trades[1].account == seller)
        #expect(JSONValue.object(trades[1].details).compact().hasPrefix(#"{"seller":"\#(buyer.strKey)","seller_muxed":"\#(MuxedAccount.muxed(id: 7, buyer).strKey)","seller_muxed_id":"7""#))
    }

    @Test func cursorsReadAsHorizonsDo() {
        #expect(EffectCursor(token: "12-3") == EffectCursor(operationID: 12, order: 3))
        // A bare operation id stands after all of its effects.
        #expect(EffectCursor(token: "12") == EffectCursor(operationID: 12, order: Int64(Int32.max)))
        #expect(EffectCursor(token: "12-99999999999") == EffectCursor(operationID: 12, order: Int64(Int32.max)))
        #expect(EffectCursor(token: "x-1") == nil && EffectCursor(token: "-1") == nil && EffectCursor(token: "1-x") == nil)
        let record = EffectRecord(operationID: 8_589_938_689, order: 2, account: AccountID(publicKey: .zero), muxedID: nil, type: .trade, details: [], closeTime: 0)
        #expect(record.id == "0000000008589938689-0000000002" && record.pagingToken == "8589938689-2")
    }
}
