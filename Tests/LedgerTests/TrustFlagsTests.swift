import Testing
@testable import StellarBase
@testable import Ledger

/// AllowTrust, SetTrustLineFlags and Clawback with stellar-core's rules and result codes
/// (`TrustFlagsOpFrameBase`, `AllowTrustOpFrame`, `SetTrustLineFlagsOpFrame`, `ClawbackOpFrame`).
/// Not triggered here because protocol 22 cannot reach them: AllowTrust's `op_not_required`
/// (before protocol 16), `op_self_not_allowed` (malformed since 16), and both operations'
/// `op_low_reserve` (only when redeeming pool shares into claimable balances).
@Suite("Trustline flags and clawback")
struct TrustFlagsTests {
    /// An issuer with `flags`, a holder trusting its USD (authorized when the issuer does not
    /// require authorization) holding `balance`.
    static func setUp(flags: UInt32, balance: Int64 = 0) -> (TestLedger, issuer: KeyPair, holder: KeyPair, usd: Asset) {
        var ledger = TestLedger()
        let issuer = ledger.account(), holder = ledger.account()
        let usd = ledger.asset("USD", issuer: issuer)
        if flags != 0 { ledger.submit(issuer, .setOptions(SetOptionsOperation(setFlags: flags))) }
        ledger.trust(holder, usd)
        if balance > 0 {
            if flags & AccountFlags.authRequired != 0 {
                ledger.submit(issuer, .setTrustLineFlags(SetTrustLineFlagsOperation(trustor: holder.accountID, asset: usd, setFlags: TrustLineFlags.authorized)))
            }
            ledger.pay(issuer, holder, usd, balance)
        }
        return (ledger, issuer, holder, usd)
    }

    static func code(_ application: TransactionApplication) -> String { codes(application).last ?? "" }

    @Test func allowTrustAuthorizesAndRevokes() {
        var (ledger, issuer, holder, usd) = Self.setUp(flags: AccountFlags.authRequired | AccountFlags.authRevocable)
        let code = usd.code!
        #expect(ledger.trustLine(holder, usd)?.flags == 0, "an issuer that requires authorization starts its holders unauthorized")
        func allow(_ authorize: UInt32, trustor: KeyPair? = nil, assetCode: AssetCode? = nil) -> String {
            Self.code(ledger.submit(issuer, .allowTrust(AllowTrustOperation(trustor: (trustor ?? holder).accountID, assetCode: assetCode ?? code, authorize: authorize))))
        }
        #expect(allow(TrustLineFlags.authorized) == "op_success")
        #expect(ledger.trustLine(holder, usd)?.flags == TrustLineFlags.authorized)
        ledger.pay(issuer, holder, usd, 10 * TestLedger.xlm)
        #expect(allow(TrustLineFlags.authorizedToMaintainLiabilities) == "op_success")
        #expect(ledger.trustLine(holder, usd)?.flags == TrustLineFlags.authorizedToMaintainLiabilities)
        #expect(allow(0) == "op_success")
        #expect(ledger.trustLine(holder, usd)?.flags == 0 && ledger.balance(holder, usd) == 10 * TestLedger.xlm, "revoking keeps the balance")
        // Malformed: both flags, oneself, a bad code; no trustline.
        #expect(allow(3) == "op_malformed")
        #expect(allow(TrustLineFlags.authorized, trustor: issuer) == "op_malformed")
        // A zero inside the code.
        #expect(allow(TrustLineFlags.authorized, assetCode: AssetCode(raw: [0x55, 0, 0x53, 0])) == "op_malformed")
        #expect(allow(TrustLineFlags.authorized, trustor: ledger.account()) == "op_no_trust_line")
    }

    @Test func withoutRevocableAuthorizationNothingIsTakenBack() {
        var (ledger, issuer, holder, usd) = Self.setUp(flags: AccountFlags.authRequired)
        #expect(Self.code(ledger.submit(issuer, .allowTrust(AllowTrustOperation(trustor: holder.accountID, assetCode: usd.code!, authorize: 1)))) == "op_success")
        #expect(Self.code(ledger.submit(issuer, .allowTrust(AllowTrustOperation(trustor: holder.accountID, assetCode: usd.code!, authorize: 0)))) == "op_cant_revoke")
        #expect(Self.code(ledger.submit(issuer, .allowTrust(AllowTrustOperation(trustor: holder.accountID, assetCode: usd.code!, authorize: 2)))) == "op_cant_revoke")
        let clear = SetTrustLineFlagsOperation(trustor: holder.accountID, asset: usd, clearFlags: TrustLineFlags.authorized, setFlags: TrustLineFlags.authorizedToMaintainLiabilities)
        #expect(Self.code(ledger.submit(issuer, .setTrustLineFlags(clear))) == "op_cant_revoke")
        #expect(ledger.trustLine(holder, usd)?.flags == TrustLineFlags.authorized)
    }

    @Test func setTrustLineFlagsCodes() {
        var (ledger, issuer, holder, usd) = Self.setUp(flags: AccountFlags.authRevocable)
        func set(_ op: SetTrustLineFlagsOperation, by source: KeyPair? = nil) -> String { Self.code(ledger.submit(source ?? issuer, .setTrustLineFlags(op))) }
        let h = holder.accountID
        #expect(set(SetTrustLineFlagsOperation(trustor: h, asset: .native, setFlags: 1)) == "op_malformed")
        #expect(set(SetTrustLineFlagsOperation(trustor: h, asset: usd, setFlags: 1), by: holder) == "op_malformed", "only the issuer")
        #expect(set(SetTrustLineFlagsOperation(trustor: issuer.accountID, asset: usd, setFlags: 1)) == "op_malformed", "not on oneself")
        #expect(set(SetTrustLineFlagsOperation(trustor: h, asset: usd, clearFlags: 1, setFlags: 1)) == "op_malformed", "set and cleared")
        #expect(set(SetTrustLineFlagsOperation(trustor: h, asset: usd, setFlags: TrustLineFlags.clawbackEnabled)) == "op_malformed", "clawback is never set")
        #expect(set(SetTrustLineFlagsOperation(trustor: h, asset: usd, setFlags: 3)) == "op_malformed", "both authorizations")
        #expect(set(SetTrustLineFlagsOperation(trustor: h, asset: usd, clearFlags: 8)) == "op_malformed", "an unknown flag")
        #expect(set(SetTrustLineFlagsOperation(trustor: ledger.account().accountID, asset: usd, setFlags: 1)) == "op_no_trust_line")
        // Authorized already: adding maintain-liabilities without clearing authorized is a bad state.
        #expect(set(SetTrustLineFlagsOperation(trustor: h, asset: usd, setFlags: TrustLineFlags.authorizedToMaintainLiabilities)) == "op_invalid_state")
        #expect(set(SetTrustLineFlagsOperation(trustor: h, asset: usd, clearFlags: TrustLineFlags.authorized, setFlags: TrustLineFlags.authorizedToMaintainLiabilities)) == "op_success")
        #expect(ledger.trustLine(holder, usd)?.flags == TrustLineFlags.authorizedToMaintainLiabilities)
    }

    @Test func revokingAuthorizationRemovesTheHoldersOffers() throws {
        var (ledger, issuer, holder, usd) = Self.setUp(flags: AccountFlags.authRevocable, balance: 50 * TestLedger.xlm)
        let made = ledger.offer(holder, selling: usd, buying: .native, amount: 20 * TestLedger.xlm, price: Price(n: 1, d: 1))
        let offer = try #require(made)
        let subentries = ledger.state.account(holder.accountID)!.numSubEntries
        #expect(ledger.trustLine(holder, usd)?.sellingLiabilities == 20 * TestLedger.xlm)
        // To maintain liabilities: the offer stays.
        ledger.submit(issuer, .setTrustLineFlags(SetTrustLineFlagsOperation(
            trustor: holder.accountID, asset: usd, clearFlags: TrustLineFlags.authorized, setFlags: TrustLineFlags.authorizedToMaintainLiabilities)))
        #expect(ledger.state.offers[offer] != nil)
        // Fully revoked: the offer goes, with its liabilities and its reserve.
        #expect(Self.code(ledger.submit(issuer, .setTrustLineFlags(SetTrustLineFlagsOperation(trustor: holder.accountID, asset: usd, clearFlags: TrustLineFlags.authFlags)))) == "op_success")
        #expect(ledger.state.offers[offer] == nil)
        #expect(ledger.state.account(holder.accountID)!.numSubEntries == subentries - 1)
        #expect(ledger.trustLine(holder, usd).map { [$0.sellingLiabilities, $0.buyingLiabilities, $0.balance] } == [0, 0, 50 * TestLedger.xlm])
        #expect(ledger.state.account(holder.accountID)!.buyingLiabilities == 0)
    }

    @Test func clawbackCodesAndSupply() throws {
        var (ledger, issuer, holder, usd) = Self.setUp(flags: AccountFlags.authRevocable | AccountFlags.authClawbackEnabled, balance: 50 * TestLedger.xlm)
        #expect(ledger.trustLine(holder, usd)?.flags == TrustLineFlags.authorized | TrustLineFlags.clawbackEnabled)
        func claw(_ amount: Int64, from: KeyPair? = nil, asset: Asset? = nil, by source: KeyPair? = nil) -> String {
            Self.code(ledger.submit(source ?? issuer, .clawback(ClawbackOperation(asset: asset ?? usd, from: .ed25519((from ?? holder).accountID), amount: amount))))
        }
        #expect(claw(0) == "op_malformed")
        #expect(claw(1, from: issuer) == "op_malformed")
        #expect(claw(1, asset: .native) == "op_malformed")
        #expect(claw(1, by: holder) == "op_malformed", "only the issuer")
        #expect(claw(1, from: ledger.account()) == "op_no_trust")
        #expect(claw(51 * TestLedger.xlm) == "op_underfunded")
        // What an offer reserves cannot be clawed back.
        _ = ledger.offer(holder, selling: usd, buying: .native, amount: 20 * TestLedger.xlm, price: Price(n: 1, d: 1))
        #expect(claw(31 * TestLedger.xlm) == "op_underfunded")
        #expect(claw(30 * TestLedger.xlm) == "op_success")
        #expect(ledger.balance(holder, usd) == 20 * TestLedger.xlm)
        // The supply fell by what was clawed back (the invariants checked it as the ledger closed).
        #expect(ledger.lastChanges.assets[usd]?[balance: .authorized] == -30 * Int128(TestLedger.xlm))
        #expect(EffectsTests.effects(ledger).map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
                == ["account_credited \(issuer.accountID.strKey)", "account_debited \(holder.accountID.strKey)"])
        // Clearing the trustline's clawback flag ends it; a trustline made before the issuer
        // enabled clawback never had it.
        ledger.submit(issuer, .setTrustLineFlags(SetTrustLineFlagsOperation(trustor: holder.accountID, asset: usd, clearFlags: TrustLineFlags.clawbackEnabled)))
        #expect(claw(1) == "op_not_clawback_enabled")
    }

    @Test func effectsOfTheFlagOperations() {
        var (ledger, issuer, holder, usd) = Self.setUp(flags: AccountFlags.authRequired | AccountFlags.authRevocable)
        let i = issuer.accountID.strKey, h = holder.accountID.strKey
        let asset = #""asset_type":"credit_alphanum4","asset_code":"USD","asset_issuer":"\#(i)""#
        ledger.submit(issuer, .allowTrust(AllowTrustOperation(trustor: holder.accountID, assetCode: usd.code!, authorize: TrustLineFlags.authorized)))
        #expect(EffectsTests.effects(ledger) == [
            #"trustline_authorized \#(i) {"trustor":"\#(h)","asset_type":"credit_alphanum4","asset_code":"USD"}"#,
            #"trustline_flags_updated \#(i) {\#(asset),"trustor":"\#(h)","authorized_flag":true}"#,
        ])
        ledger.submit(issuer, .allowTrust(AllowTrustOperation(trustor: holder.accountID, assetCode: usd.code!, authorize: 0)))
        #expect(EffectsTests.effects(ledger) == [
            #"trustline_deauthorized \#(i) {"trustor":"\#(h)","asset_type":"credit_alphanum4","asset_code":"USD"}"#,
            #"trustline_flags_updated \#(i) {\#(asset),"trustor":"\#(h)","authorized_flag":false,"authorized_to_maintain_liabilites_flag":false}"#,
        ])
        ledger.submit(issuer, .setTrustLineFlags(SetTrustLineFlagsOperation(trustor: holder.accountID, asset: usd, setFlags: TrustLineFlags.authorizedToMaintainLiabilities)))
        #expect(EffectsTests.effects(ledger) == [#"trustline_flags_updated \#(i) {\#(asset),"trustor":"\#(h)","authorized_to_maintain_liabilites_flag":true}"#])
    }
}

extension TestLedger {
    func trustLine(_ account: KeyPair, _ asset: Asset) -> TrustLineEntry? { state.trustLine(account.accountID, asset) }
}
