import Testing
@testable import StellarBase
@testable import Ledger

/// Claimable balances (CAP-23) with stellar-core's rules and result codes
/// (`CreateClaimableBalanceOpFrame`, `ClaimClaimableBalanceOpFrame`,
/// `ClawbackClaimableBalanceOpFrame`); CreateClaimableBalance's `op_too_many_sponsoring` needs
/// 2³² reserves and is not triggered.
@Suite("Claimable balances")
struct ClaimableBalanceTests {
    static let xlm = TestLedger.xlm

    static func create(_ ledger: inout TestLedger, _ source: KeyPair, _ asset: Asset, _ amount: Int64, _ claimants: [Claimant]) -> (String, ClaimableBalanceID?) {
        let application = ledger.submit(source, .createClaimableBalance(CreateClaimableBalanceOperation(asset: asset, amount: amount, claimants: claimants)))
        guard case .inner(.createClaimableBalance(let code, let id))? = application.result.outcome.operationResults?.first else {
            return (codes(application).last ?? "", nil)
        }
        return (code.name, id)
    }

    static func claim(_ ledger: inout TestLedger, _ source: KeyPair, _ id: ClaimableBalanceID) -> String {
        codes(ledger.submit(source, .claimClaimableBalance(id))).last ?? ""
    }

    @Test func aBalanceIsCreatedAndClaimedOnce() throws {
        var ledger = TestLedger()
        let alice = ledger.account(100), bob = ledger.account(10), carol = ledger.account(10)
        let before = ledger.balance(alice)!
        let (code, made) = Self.create(&ledger, alice, .native, 20 * Self.xlm, [Claimant(destination: bob.accountID), Claimant(destination: carol.accountID)])
        #expect(code == "op_success")
        let id = try #require(made)
        // The id is the hash of the operation: the transaction's source and sequence, the operation's index.
        #expect(id == ClaimableBalanceID.created(bySource: alice.accountID, sequence: ledger.sequence(alice), operationIndex: 0))
        #expect(ledger.balance(alice) == before - 20 * Self.xlm - 100)
        // Alice pays the reserves of both claimants.
        #expect(ledger.state.account(alice.accountID)?.numSponsoring == 2)
        #expect(ledger.state.minimumBalance(ledger.state.account(alice.accountID)!) == 4 * 5_000_000)
        #expect(ledger.state.verifyAllInvariants() == nil, "XLM in the balance still counts")
        #expect(Self.claim(&ledger, alice, id) == "op_cannot_claim", "the creator is not a claimant")
        let bobBefore = ledger.balance(bob)!
        #expect(Self.claim(&ledger, bob, id) == "op_success")
        #expect(ledger.balance(bob) == bobBefore + 20 * Self.xlm - 100)
        #expect(ledger.state.account(alice.accountID)?.numSponsoring == 0)
        #expect(Self.claim(&ledger, carol, id) == "op_does_not_exist", "claimed once, by one of its claimants")
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    @Test func predicatesDecideWhenAClaimantMay() throws {
        var ledger = TestLedger()
        let alice = ledger.account(100), bob = ledger.account(10)
        let now = ledger.closeTime
        // Relative times are made absolute from the creating ledger's close time.
        let (_, made) = Self.create(&ledger, alice, .native, Self.xlm, [Claimant(destination: bob.accountID, predicate: .not(.beforeRelativeTime(100)))])
        let id = try #require(made)
        let created = try #require(ledger.state.claimableBalances[id])
        #expect(created.claimants[0].predicate == .not(.beforeAbsoluteTime(Int64(now + 5 + 100))))
        #expect(Self.claim(&ledger, bob, id) == "op_cannot_claim", "not yet: the relative time has not passed")
        ledger.closeTime += 200
        #expect(Self.claim(&ledger, bob, id) == "op_success")

        let t: Int64 = 1_000
        #expect(ClaimPredicate.beforeAbsoluteTime(t).holds(at: 999) && !ClaimPredicate.beforeAbsoluteTime(t).holds(at: 1_000))
        #expect(ClaimPredicate.and([.unconditional, .beforeAbsoluteTime(t)]).holds(at: 10) && !ClaimPredicate.and([.unconditional, .not(.unconditional)]).holds(at: 10))
        #expect(ClaimPredicate.or([.not(.unconditional), .beforeAbsoluteTime(t)]).holds(at: 10) && !ClaimPredicate.or([.not(.unconditional), .beforeAbsoluteTime(t)]).holds(at: 1_000))
        #expect(ClaimPredicate.beforeRelativeTime(Int64.max).absolute(from: 5) == .beforeAbsoluteTime(.max), "saturating")
    }

    @Test func creationCodes() {
        var ledger = TestLedger()
        let issuer = ledger.account(), alice = ledger.account(100), bob = ledger.account()
        let usd = ledger.asset("USD", issuer: issuer)
        let bobClaims = [Claimant(destination: bob.accountID)]
        func create(_ asset: Asset, _ amount: Int64, _ claimants: [Claimant], by source: KeyPair? = nil) -> String {
            Self.create(&ledger, source ?? alice, asset, amount, claimants).0
        }
        #expect(create(.native, 0, bobClaims) == "op_malformed")
        #expect(create(.native, 1, []) == "op_malformed")
        #expect(create(.native, 1, bobClaims + bobClaims) == "op_malformed", "the same claimant twice")
        #expect(create(.native, 1, [Claimant(destination: bob.accountID, predicate: .and([.unconditional]))]) == "op_malformed")
        #expect(create(.native, 1, [Claimant(destination: bob.accountID, predicate: .not(nil))]) == "op_malformed")
        #expect(create(.native, 1, [Claimant(destination: bob.accountID, predicate: .beforeAbsoluteTime(-1))]) == "op_malformed")
        let deep = ClaimPredicate.not(.not(.not(.not(.unconditional))))
        #expect(create(.native, 1, [Claimant(destination: bob.accountID, predicate: deep)]) == "op_malformed", "five levels")
        #expect(create(.native, 1, [Claimant(destination: bob.accountID, predicate: .not(.not(.not(.unconditional))))]) == "op_success", "four levels")
        #expect(create(usd, 1, bobClaims) == "op_no_trust")
        ledger.trust(alice, usd)
        #expect(create(usd, 1, bobClaims) == "op_underfunded")
        #expect(create(.native, 200 * Self.xlm, bobClaims) == "op_underfunded")
        // The issuer needs no trustline and is never underfunded in its own asset.
        #expect(create(usd, 1_000 * Self.xlm, bobClaims, by: issuer) == "op_success")
        // Enough for the amount, not for the reserve of ten claimants.
        let spare = ledger.state.availableBalance(ledger.state.account(alice.accountID)!)
        let ten = (0..<10).map { _ in Claimant(destination: ledger.keyPair().accountID) }
        #expect(create(.native, spare - 9 * 5_000_000 - 100, ten) == "op_low_reserve")
        // An issuer that requires authorization: an unauthorized holder cannot set its asset aside.
        let strict = ledger.account()
        let eur = ledger.asset("EUR", issuer: strict)
        ledger.submit(strict, .setOptions(SetOptionsOperation(setFlags: AccountFlags.authRequired | AccountFlags.authRevocable)))
        ledger.trust(alice, eur)
        #expect(create(eur, 1, bobClaims) == "op_not_authorized")
    }

    @Test func claimCodes() throws {
        var ledger = TestLedger()
        let issuer = ledger.account(), alice = ledger.account(), bob = ledger.account()
        let usd = ledger.asset("USD", issuer: issuer)
        let (_, made) = Self.create(&ledger, issuer, usd, 50 * Self.xlm, [Claimant(destination: bob.accountID)])
        let id = try #require(made)
        #expect(Self.claim(&ledger, bob, ClaimableBalanceID(.zero)) == "op_does_not_exist")
        #expect(Self.claim(&ledger, alice, id) == "op_cannot_claim")
        #expect(Self.claim(&ledger, bob, id) == "op_no_trust")
        ledger.trust(bob, usd, limit: 10 * Self.xlm)
        #expect(Self.claim(&ledger, bob, id) == "op_line_full")
        ledger.trust(bob, usd, limit: 50 * Self.xlm)
        ledger.submit(issuer, .setOptions(SetOptionsOperation(setFlags: AccountFlags.authRevocable)))
        ledger.submit(issuer, .setTrustLineFlags(SetTrustLineFlagsOperation(trustor: bob.accountID, asset: usd, clearFlags: TrustLineFlags.authorized)))
        #expect(Self.claim(&ledger, bob, id) == "op_not_authorized")
        ledger.submit(issuer, .setTrustLineFlags(SetTrustLineFlagsOperation(trustor: bob.accountID, asset: usd, setFlags: TrustLineFlags.authorized)))
        #expect(Self.claim(&ledger, bob, id) == "op_success")
        #expect(ledger.balance(bob, usd) == 50 * Self.xlm)
    }

    @Test func clawbackAndMerge() throws {
        var ledger = TestLedger()
        let issuer = ledger.account(), other = ledger.account(), alice = ledger.account(), bob = ledger.account()
        let usd = ledger.asset("USD", issuer: issuer)
        ledger.submit(issuer, .setOptions(SetOptionsOperation(setFlags: AccountFlags.authRevocable | AccountFlags.authClawbackEnabled)))
        ledger.trust(alice, usd)
        ledger.pay(issuer, alice, usd, 30 * Self.xlm)
        let (_, made) = Self.create(&ledger, alice, usd, 30 * Self.xlm, [Claimant(destination: bob.accountID)])
        let id = try #require(made)
        #expect(ledger.state.claimableBalances[id]?.clawbackEnabled == true, "from a trustline with clawback")
        let (_, plain) = Self.create(&ledger, alice, .native, Self.xlm, [Claimant(destination: bob.accountID)])
        let native = try #require(plain)
        func clawback(_ id: ClaimableBalanceID, by source: KeyPair) -> String { codes(ledger.submit(source, .clawbackClaimableBalance(id))).last ?? "" }
        #expect(clawback(ClaimableBalanceID(.zero), by: issuer) == "op_does_not_exist")
        #expect(clawback(native, by: issuer) == "op_not_issuer")
        #expect(clawback(id, by: other) == "op_not_issuer")
        // An account sponsoring reserves cannot be merged away.
        let dave = ledger.account()
        _ = Self.create(&ledger, dave, .native, Self.xlm, [Claimant(destination: bob.accountID)])
        #expect(codes(ledger.submit(dave, .accountMerge(destination: .ed25519(bob.accountID)))).last == "op_is_sponsor")
        #expect(clawback(id, by: issuer) == "op_success")
        #expect(ledger.state.claimableBalances[id] == nil && ledger.state.account(alice.accountID)?.numSponsoring == 1)
        #expect(ledger.lastChanges.claimableBalances[id] == .some(nil))
        // A balance of an asset without clawback cannot be clawed back.
        let plainIssuer = ledger.account()
        let eur = ledger.asset("EUR", issuer: plainIssuer)
        let (_, euros) = Self.create(&ledger, plainIssuer, eur, Self.xlm, [Claimant(destination: bob.accountID)])
        #expect(clawback(try #require(euros), by: plainIssuer) == "op_not_clawback_enabled")
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    @Test func effectsOfBalances() throws {
        var ledger = TestLedger()
        let alice = ledger.account(100), bob = ledger.account()
        let a = alice.accountID.strKey, b = bob.accountID.strKey
        let (_, made) = Self.create(&ledger, alice, .native, 3 * Self.xlm, [Claimant(destination: bob.accountID, predicate: .beforeRelativeTime(60))])
        let id = try #require(made).hex
        let common = #""asset":"native","balance_id":"\#(id)","amount":"3.0000000""#
        #expect(EffectsTests.effects(ledger) == [
            #"claimable_balance_created \#(a) {\#(common)}"#,
            #"claimable_balance_claimant_created \#(b) {\#(common),"predicate":{"rel_before":"60"}}"#,
            #"account_debited \#(a) {"asset_type":"native","amount":"3.0000000"}"#,
            #"claimable_balance_sponsorship_created \#(a) {"balance_id":"\#(id)","sponsor":"\#(a)"}"#,
        ])
        #expect(Self.claim(&ledger, bob, try #require(made)) == "op_success")
        #expect(EffectsTests.effects(ledger) == [
            #"claimable_balance_claimed \#(b) {\#(common)}"#,
            #"account_credited \#(b) {"asset_type":"native","amount":"3.0000000"}"#,
            #"claimable_balance_sponsorship_removed \#(b) {"balance_id":"\#(id)","former_sponsor":"\#(a)"}"#,
        ])
        #expect(ClaimPredicate.beforeAbsoluteTime(1_598_440_539).json.compact() == #"{"abs_before":"2020-08-26T11:15:39Z","abs_before_epoch":"1598440539"}"#)
    }
}
