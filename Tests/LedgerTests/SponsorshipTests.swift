import Testing
import StellarBase
import TenderJSON
@testable import Ledger

/// Sponsored reserves (CAP-33) with stellar-core's rules and result codes
/// (`SponsorshipUtils`, `BeginSponsoringFutureReservesOpFrame`,
/// `EndSponsoringFutureReservesOpFrame`, `RevokeSponsorshipOpFrame`). `op_too_many_sponsoring`
/// needs 2³² reserves and is not triggered; `op_too_many_subentries` under a sponsor is the
/// same check as without one (`LimitsAndInvariantTests`).
@Suite("Sponsorship")
struct SponsorshipTests {
    static let xlm = TestLedger.xlm
    static let reserve: Int64 = 5_000_000

    /// One transaction from `sponsor`: Begin, `operations` with `sponsored` as their source, End;
    /// signed by both. Its transaction and operation codes.
    @discardableResult
    static func sponsoring(_ ledger: inout TestLedger, _ sponsor: KeyPair, _ sponsored: KeyPair, _ operations: [OperationBody]) -> [String] {
        let source = MuxedAccount.ed25519(sponsored.accountID)
        let ops = [Operation(.beginSponsoringFutureReserves(sponsoredID: sponsored.accountID))]
            + operations.map { Operation(sourceAccount: source, $0) } + [Operation(sourceAccount: source, .endSponsoringFutureReserves)]
        return codes(ledger.submit(sponsor, ops, signers: [sponsor, sponsored]))
    }

    static func account(_ ledger: TestLedger, _ keyPair: KeyPair) -> AccountEntry { ledger.state.account(keyPair.accountID)! }

    @Test func aSponsoredAccountStartsWithNothing() {
        var ledger = TestLedger()
        let sponsor = ledger.account(100), newcomer = ledger.keyPair()
        let before = ledger.balance(sponsor)!
        let result = codes(ledger.submit(sponsor, .beginSponsoringFutureReserves(sponsoredID: newcomer.accountID)))
        #expect(result == ["tx_bad_sponsorship"], "a Begin never ended fails the transaction")
        #expect(ledger.balance(sponsor) == before - 100, "its fee is charged")
        #expect(Self.account(ledger, sponsor).numSponsoring == 0)

        // The sponsor creates the account with 0 XLM; the newcomer ends the sponsorship.
        let ops = [
            Operation(.beginSponsoringFutureReserves(sponsoredID: newcomer.accountID)),
            Operation(.createAccount(CreateAccountOperation(destination: newcomer.accountID, startingBalance: 0))),
            Operation(sourceAccount: .ed25519(newcomer.accountID), .endSponsoringFutureReserves),
        ]
        #expect(codes(ledger.submit(sponsor, ops, signers: [sponsor, newcomer])) == ["tx_success", "op_success", "op_success", "op_success"])
        let created = Self.account(ledger, newcomer)
        #expect(created.balance == 0 && created.sponsor == sponsor.accountID && created.numSponsored == 2)
        #expect(ledger.state.minimumBalance(created) == 0)
        #expect(Self.account(ledger, sponsor).numSponsoring == 2)
        #expect(ledger.state.minimumBalance(Self.account(ledger, sponsor)) == 4 * Self.reserve)
        #expect(ledger.state.verifyAllInvariants() == nil)
        #expect(ledger.lastChanges.sponsorships == [SponsoredAccount(sponsor: sponsor.accountID, account: newcomer.accountID): 1])

        // The sponsor cannot leave while it pays for another.
        #expect(codes(ledger.submit(sponsor, .accountMerge(destination: .ed25519(ledger.root.accountID)))).last == "op_is_sponsor")
        // When the newcomer leaves, the sponsor gets its reserves back.
        ledger.pay(ledger.root, newcomer, .native, Self.xlm)
        #expect(codes(ledger.submit(newcomer, .accountMerge(destination: .ed25519(sponsor.accountID)))).last == "op_success")
        #expect(Self.account(ledger, sponsor).numSponsoring == 0)
        #expect(ledger.lastChanges.sponsorships == [SponsoredAccount(sponsor: sponsor.accountID, account: newcomer.accountID): -1])
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    @Test func creationUnderASponsorThatCannotPay() {
        var ledger = TestLedger()
        let poor = ledger.account(1), newcomer = ledger.keyPair()
        ledger.pay(ledger.root, poor, .native, 1_000)
        // 1 XLM is the poor account's own reserve: nothing is left for two more (but fees).
        let ops = [
            Operation(.beginSponsoringFutureReserves(sponsoredID: newcomer.accountID)),
            Operation(.createAccount(CreateAccountOperation(destination: newcomer.accountID, startingBalance: 0))),
            Operation(sourceAccount: .ed25519(newcomer.accountID), .endSponsoringFutureReserves),
        ]
        #expect(codes(ledger.submit(poor, ops, signers: [poor, newcomer])) == ["tx_failed", "op_success", "op_low_reserve", "op_no_source_account"], "the End's source was never made")
        // Without a sponsor, 0 XLM is below the new account's reserve.
        #expect(codes(ledger.submit(ledger.root, .createAccount(CreateAccountOperation(destination: newcomer.accountID, startingBalance: 0)))).last == "op_low_reserve")
    }

    @Test func subentriesPaidByASponsor() throws {
        var ledger = TestLedger()
        let sponsor = ledger.account(100), issuer = ledger.account(100)
        // Exactly its own reserve: it can pay for nothing more itself.
        let owner = ledger.account(1)
        let usd = ledger.asset("USD", issuer: issuer)
        ledger.pay(ledger.root, owner, .native, 1_000)
        #expect(codes(ledger.submit(owner, .changeTrust(ChangeTrustOperation(asset: usd)))).last == "op_low_reserve")
        let signer = ledger.keyPair()
        let result = Self.sponsoring(&ledger, sponsor, owner, [
            .changeTrust(ChangeTrustOperation(asset: usd)),
            .manageData(ManageDataOperation(name: Array("k".utf8), value: [1])),
            .setOptions(SetOptionsOperation(signer: Signer(key: .ed25519(signer.accountID.publicKey), weight: 1))),
            .manageSellOffer(ManageSellOfferOperation(selling: .native, buying: usd, amount: 1, price: Price(n: 1, d: 1))),
        ])
        #expect(result == ["tx_success"] + Array(repeating: "op_success", count: 6))
        let account = Self.account(ledger, owner)
        #expect(account.numSubEntries == 4 && account.numSponsored == 4 && account.sponsor == nil)
        #expect(account.signerSponsors == [.ed25519(signer.accountID.publicKey): sponsor.accountID])
        #expect(Self.account(ledger, sponsor).numSponsoring == 4)
        #expect(ledger.state.trustLine(owner.accountID, usd)?.sponsor == sponsor.accountID)
        #expect(ledger.state.data(owner.accountID, Array("k".utf8))?.sponsor == sponsor.accountID)
        let offer = try #require(ledger.state.offers.values.first { $0.entry.sellerID == owner.accountID })
        #expect(offer.sponsor == sponsor.accountID)
        #expect(ledger.state.verifyAllInvariants() == nil)
        #expect(ledger.lastChanges.sponsorships == [SponsoredAccount(sponsor: sponsor.accountID, account: owner.accountID): 3], "the offer is not counted")

        // Updating keeps the sponsor; removing gives the reserve back to it.
        ledger.submit(owner, .manageData(ManageDataOperation(name: Array("k".utf8), value: [2])))
        #expect(ledger.state.data(owner.accountID, Array("k".utf8))?.sponsor == sponsor.accountID)
        ledger.submit(owner, [
            Operation(.manageData(ManageDataOperation(name: Array("k".utf8), value: nil))),
            Operation(.manageSellOffer(ManageSellOfferOperation(selling: .native, buying: usd, amount: 0, price: Price(n: 1, d: 1), offerID: offer.entry.offerID))),
            Operation(.setOptions(SetOptionsOperation(signer: Signer(key: .ed25519(signer.accountID.publicKey), weight: 0)))),
            Operation(.changeTrust(ChangeTrustOperation(asset: usd, limit: 0))),
        ])
        #expect(Self.account(ledger, owner).numSubEntries == 0 && Self.account(ledger, owner).numSponsored == 0)
        #expect(Self.account(ledger, owner).signerSponsors.isEmpty)
        #expect(Self.account(ledger, sponsor).numSponsoring == 0)
        #expect(ledger.state.verifyAllInvariants() == nil)
        #expect(ledger.lastChanges.sponsorships == [SponsoredAccount(sponsor: sponsor.accountID, account: owner.accountID): -3])
    }

    @Test func aSponsoredOfferTakenWholeGivesItsReserveBack() {
        var ledger = TestLedger()
        let sponsor = ledger.account(100), issuer = ledger.account(100), seller = ledger.account(10), buyer = ledger.account(100)
        let usd = ledger.asset("USD", issuer: issuer)
        ledger.trust(seller, usd)
        ledger.trust(buyer, usd)
        ledger.pay(issuer, buyer, usd, 10 * Self.xlm)
        Self.sponsoring(&ledger, sponsor, seller, [.manageSellOffer(ManageSellOfferOperation(selling: .native, buying: usd, amount: Self.xlm, price: Price(n: 1, d: 1)))])
        #expect(Self.account(ledger, sponsor).numSponsoring == 1)
        // The buyer takes all of it.
        #expect(ledger.offer(buyer, selling: usd, buying: .native, amount: Self.xlm, price: Price(n: 1, d: 1)) == nil)
        #expect(ledger.state.offers.isEmpty)
        #expect(Self.account(ledger, sponsor).numSponsoring == 0 && Self.account(ledger, seller).numSponsored == 0)
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    @Test func beginAndEndCodes() {
        var ledger = TestLedger()
        let a = ledger.account(100), b = ledger.account(100), c = ledger.account(100)
        let begin = { (sponsored: KeyPair) in OperationBody.beginSponsoringFutureReserves(sponsoredID: sponsored.accountID) }
        #expect(codes(ledger.submit(a, begin(a))) == ["tx_failed", "op_malformed"])
        #expect(codes(ledger.submit(a, .endSponsoringFutureReserves)) == ["tx_failed", "op_not_sponsored"])
        #expect(codes(ledger.submit(a, [Operation(begin(b)), Operation(begin(b))], signers: [a])) == ["tx_failed", "op_success", "op_already_sponsored"])
        // B, sponsored by A, may not sponsor C; nor may A sponsor C while C sponsors B.
        #expect(codes(ledger.submit(a, [Operation(begin(b)), Operation(sourceAccount: .ed25519(b.accountID), begin(c))], signers: [a, b]))
            == ["tx_failed", "op_success", "op_recursive"])
        #expect(codes(ledger.submit(a, [Operation(sourceAccount: .ed25519(c.accountID), begin(b)), Operation(begin(c))], signers: [a, c]))
            == ["tx_failed", "op_success", "op_recursive"])
        // A sponsor cannot merge away in the middle of its sponsorship.
        #expect(codes(ledger.submit(a, [
            Operation(begin(b)), Operation(.accountMerge(destination: .ed25519(c.accountID))), Operation(sourceAccount: .ed25519(b.accountID), .endSponsoringFutureReserves),
        ], signers: [a, b])) == ["tx_failed", "op_success", "op_is_sponsor", "op_success"])
        // One sponsor for two accounts, each ended.
        #expect(codes(ledger.submit(a, [
            Operation(begin(b)), Operation(begin(c)),
            Operation(sourceAccount: .ed25519(c.accountID), .endSponsoringFutureReserves), Operation(sourceAccount: .ed25519(b.accountID), .endSponsoringFutureReserves),
        ], signers: [a, b, c])).first == "tx_success")
        #expect(ledger.state.sponsorships.isEmpty)
    }

    @Test func revokeMovesAReserveBackToItsOwner() {
        var ledger = TestLedger()
        let sponsor = ledger.account(100), owner = ledger.account(10)
        let name = Array("k".utf8)
        Self.sponsoring(&ledger, sponsor, owner, [.manageData(ManageDataOperation(name: name, value: [1]))])
        let key = LedgerKey.data(owner.accountID, name: name)
        #expect(codes(ledger.submit(owner, .revokeSponsorship(.ledgerEntry(key)))).last == "op_not_sponsor", "only its sponsor")
        #expect(codes(ledger.submit(sponsor, .revokeSponsorship(.ledgerEntry(key)))).last == "op_success")
        #expect(ledger.state.data(owner.accountID, name)?.sponsor == nil)
        #expect(Self.account(ledger, sponsor).numSponsoring == 0 && Self.account(ledger, owner).numSponsored == 0)
        #expect(ledger.state.verifyAllInvariants() == nil)
        // Now unsponsored: its owner may revoke it (nothing changes), no one else.
        #expect(codes(ledger.submit(owner, .revokeSponsorship(.ledgerEntry(key)))).last == "op_success")
        #expect(codes(ledger.submit(sponsor, .revokeSponsorship(.ledgerEntry(key)))).last == "op_not_sponsor")
    }

    @Test func revokeTransfersAndEstablishes() throws {
        var ledger = TestLedger()
        let first = ledger.account(100), second = ledger.account(100), owner = ledger.account(10), issuer = ledger.account(10)
        let usd = ledger.asset("USD", issuer: issuer)
        Self.sponsoring(&ledger, first, owner, [.changeTrust(ChangeTrustOperation(asset: usd))])
        let line = LedgerKey.trustLine(owner.accountID, usd)
        // The first sponsor hands it to the second, inside the second's sponsorship of the first.
        #expect(Self.sponsoring(&ledger, second, first, [.revokeSponsorship(.ledgerEntry(line))]) == ["tx_success", "op_success", "op_success", "op_success"])
        #expect(ledger.state.trustLine(owner.accountID, usd)?.sponsor == second.accountID)
        #expect(Self.account(ledger, first).numSponsoring == 0 && Self.account(ledger, second).numSponsoring == 1)
        #expect(Self.account(ledger, owner).numSponsored == 1)
        #expect(ledger.lastChanges.sponsorships == [
            SponsoredAccount(sponsor: first.accountID, account: owner.accountID): -1, SponsoredAccount(sponsor: second.accountID, account: owner.accountID): 1,
        ])
        // The owner's own data entry, unsponsored, becomes the first's to pay.
        ledger.submit(owner, .manageData(ManageDataOperation(name: Array("d".utf8), value: [1])))
        Self.sponsoring(&ledger, first, owner, [.revokeSponsorship(.ledgerEntry(.data(owner.accountID, name: Array("d".utf8))))])
        #expect(ledger.state.data(owner.accountID, Array("d".utf8))?.sponsor == first.accountID)
        #expect(Self.account(ledger, owner).numSponsored == 2 && Self.account(ledger, first).numSponsoring == 1)
        // Its account entry too.
        Self.sponsoring(&ledger, first, owner, [.revokeSponsorship(.ledgerEntry(.account(owner.accountID)))])
        #expect(Self.account(ledger, owner).sponsor == first.accountID && Self.account(ledger, owner).numSponsored == 4)
        // And a signer.
        let signer = SignerKey.ed25519(ledger.keyPair().accountID.publicKey)
        ledger.submit(owner, .setOptions(SetOptionsOperation(signer: Signer(key: signer, weight: 1))))
        Self.sponsoring(&ledger, second, owner, [.revokeSponsorship(.signer(account: owner.accountID, key: signer))])
        #expect(Self.account(ledger, owner).signerSponsors == [signer: second.accountID])
        #expect(codes(ledger.submit(first, .revokeSponsorship(.signer(account: owner.accountID, key: signer)))).last == "op_not_sponsor")
        #expect(codes(ledger.submit(second, .revokeSponsorship(.signer(account: owner.accountID, key: signer)))).last == "op_success")
        #expect(Self.account(ledger, owner).signerSponsors.isEmpty)
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    @Test func revokeCodes() throws {
        var ledger = TestLedger()
        let sponsor = ledger.account(100), owner = ledger.account(10), issuer = ledger.account(10), other = ledger.account(100)
        let usd = ledger.asset("USD", issuer: issuer)
        func revoke(_ key: LedgerKey, by source: KeyPair) -> String { codes(ledger.submit(source, .revokeSponsorship(.ledgerEntry(key)))).last ?? "" }
        // Malformed: checked before anything is read.
        #expect(revoke(.trustLine(owner.accountID, .native), by: owner) == "op_malformed")
        #expect(revoke(.trustLine(issuer.accountID, usd), by: issuer) == "op_malformed", "an issuer's own asset")
        #expect(revoke(.offer(seller: owner.accountID, offerID: 0), by: owner) == "op_malformed")
        #expect(revoke(.data(owner.accountID, name: []), by: owner) == "op_malformed")
        #expect(revoke(.data(owner.accountID, name: [0x07]), by: owner) == "op_malformed")
        #expect(revoke(.liquidityPool(.zero), by: owner) == "op_malformed")
        // Does not exist.
        #expect(revoke(.trustLine(owner.accountID, usd), by: owner) == "op_does_not_exist")
        #expect(revoke(.offer(seller: owner.accountID, offerID: 99), by: owner) == "op_does_not_exist")
        #expect(revoke(.data(owner.accountID, name: Array("x".utf8)), by: owner) == "op_does_not_exist")
        #expect(revoke(.account(ledger.keyPair().accountID), by: owner) == "op_does_not_exist")
        #expect(revoke(.claimableBalance(ClaimableBalanceID(.zero)), by: owner) == "op_does_not_exist")
        #expect(codes(ledger.submit(owner, .revokeSponsorship(.signer(account: owner.accountID, key: .ed25519(other.accountID.publicKey))))).last == "op_does_not_exist")
        // Not the sponsor: an unsponsored entry is its owner's alone.
        ledger.trust(owner, usd)
        #expect(revoke(.trustLine(owner.accountID, usd), by: other) == "op_not_sponsor")

        // Low reserve: the owner cannot take back what it cannot pay for.
        Self.sponsoring(&ledger, sponsor, owner, [.manageData(ManageDataOperation(name: Array("k".utf8), value: [1]))])
        let spare = ledger.state.availableBalance(Self.account(ledger, owner))
        ledger.pay(owner, other, .native, spare - 200)
        #expect(revoke(.data(owner.accountID, name: Array("k".utf8)), by: sponsor) == "op_low_reserve")
        // Nor can a new sponsor without the means.
        let poor = ledger.account(1)
        ledger.pay(ledger.root, poor, .native, 1_000)
        #expect(Self.sponsoring(&ledger, poor, sponsor, [.revokeSponsorship(.ledgerEntry(.data(owner.accountID, name: Array("k".utf8))))])
            == ["tx_failed", "op_success", "op_low_reserve", "op_success"])

        // A claimable balance can be handed to another sponsor, never to no one.
        let (code, made) = ClaimableBalanceTests.create(&ledger, sponsor, .native, Self.xlm, [Claimant(destination: owner.accountID), Claimant(destination: other.accountID)])
        #expect(code == "op_success")
        let id = try #require(made)
        #expect(revoke(.claimableBalance(id), by: sponsor) == "op_only_transferable")
        #expect(revoke(.claimableBalance(id), by: other) == "op_not_sponsor")
        #expect(Self.sponsoring(&ledger, other, sponsor, [.revokeSponsorship(.ledgerEntry(.claimableBalance(id)))]).first == "tx_success")
        #expect(ledger.state.claimableBalances[id]?.sponsor == other.accountID)
        #expect(Self.account(ledger, other).numSponsoring == 2 && Self.account(ledger, sponsor).numSponsoring == 1)
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    @Test func aSponsoredClaimableBalanceIsPaidByTheSponsor() throws {
        var ledger = TestLedger()
        let sponsor = ledger.account(100), creator = ledger.account(10), claimant = ledger.account(10)
        let result = Self.sponsoring(&ledger, sponsor, creator, [
            .createClaimableBalance(CreateClaimableBalanceOperation(asset: .native, amount: Self.xlm, claimants: [Claimant(destination: claimant.accountID)])),
        ])
        #expect(result.first == "tx_success")
        let balance = try #require(ledger.state.claimableBalances.values.first)
        #expect(balance.sponsor == sponsor.accountID)
        #expect(Self.account(ledger, sponsor).numSponsoring == 1 && Self.account(ledger, creator).numSponsoring == 0)
        #expect(Self.account(ledger, creator).numSponsored == 0, "a balance is no one's subentry")
        #expect(ClaimableBalanceTests.claim(&ledger, claimant, balance.id) == "op_success")
        #expect(Self.account(ledger, sponsor).numSponsoring == 0)
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    /// A pre-authorized transaction's signer, sponsored, gives its reserve back when it is used.
    @Test func aUsedPreAuthorizedSignerReleasesItsSponsor() {
        var ledger = TestLedger()
        let sponsor = ledger.account(100), owner = ledger.account(10)
        let later = Transaction(sourceAccount: .ed25519(owner.accountID), fee: 100, sequenceNumber: ledger.sequence(owner) + 1,
                                operations: [Operation(.bumpSequence(bumpTo: 0))])
        let hash = later.hash(on: ledger.network)
        Self.sponsoring(&ledger, sponsor, owner, [.setOptions(SetOptionsOperation(signer: Signer(key: .preAuthTx(hash), weight: 1)))])
        #expect(Self.account(ledger, owner).signerSponsors == [.preAuthTx(hash): sponsor.accountID])
        #expect(codes(ledger.submit(TransactionEnvelope.v1(later, signatures: []))).first == "tx_success")
        #expect(Self.account(ledger, owner).signers.isEmpty && Self.account(ledger, owner).signerSponsors.isEmpty)
        #expect(Self.account(ledger, sponsor).numSponsoring == 0 && Self.account(ledger, owner).numSponsored == 0)
        #expect(ledger.state.verifyAllInvariants() == nil)
    }

    @Test func theCloseTimeInvariantCatchesAReserveFromNowhere() {
        var ledger = TestLedger()
        let alice = ledger.account(100)
        var forged = ledger.state.account(alice.accountID)!
        forged.numSponsored += 1
        ledger.state.setAccount(forged)
        #expect(ledger.state.checkInvariants()?.contains("sponsored reserves") == true)
    }

    @Test func sponsoredEntriesKeepTheirSponsorsInStorage() throws {
        var ledger = TestLedger()
        let sponsor = ledger.account(100), owner = ledger.account(10), issuer = ledger.account(10)
        let usd = ledger.asset("USD", issuer: issuer)
        let signer = SignerKey.ed25519(ledger.keyPair().accountID.publicKey)
        // An entry with no sponsor is written as before.
        let plain = try #require(ledger.state.data(owner.accountID, []) ?? DataEntry(accountID: owner.accountID, name: [1], value: [2], lastModifiedLedger: 3))
        #expect(plain.xdrBytes.prefix(4) == [0, 0, 0, 1])
        Self.sponsoring(&ledger, sponsor, owner, [
            .changeTrust(ChangeTrustOperation(asset: usd)), .manageData(ManageDataOperation(name: [0x41], value: [1])),
            .setOptions(SetOptionsOperation(signer: Signer(key: signer, weight: 1))),
            .manageSellOffer(ManageSellOfferOperation(selling: .native, buying: usd, amount: 1, price: Price(n: 1, d: 1))),
        ])
        Self.sponsoring(&ledger, sponsor, owner, [.revokeSponsorship(.ledgerEntry(.account(owner.accountID)))])
        let account = Self.account(ledger, owner)
        #expect(try AccountEntry(xdrBytes: account.xdrBytes) == account)
        let line = try #require(ledger.state.trustLine(owner.accountID, usd))
        #expect(try TrustLineEntry(xdrBytes: line.xdrBytes) == line)
        let item = try #require(ledger.state.data(owner.accountID, [0x41]))
        #expect(try DataEntry(xdrBytes: item.xdrBytes) == item)
        let offer = try #require(ledger.state.offers.values.first)
        #expect(try LedgerOffer(xdrBytes: offer.xdrBytes) == offer)
        #expect(offer.xdrBytes.prefix(4) == [0, 0, 0, 2])
    }

    @Test func sponsorshipEffects() {
        var ledger = TestLedger()
        let sponsor = ledger.account(100), owner = ledger.account(10), issuer = ledger.account(10), newcomer = ledger.keyPair()
        let usd = ledger.asset("USD", issuer: issuer)
        let s = sponsor.accountID.strKey, o = owner.accountID.strKey
        Self.sponsoring(&ledger, sponsor, owner, [.changeTrust(ChangeTrustOperation(asset: usd)), .manageData(ManageDataOperation(name: Array("k".utf8), value: [1]))])
        let limit = "922337203685.4775807"
        #expect(EffectsTests.effects(ledger) == [
            #"trustline_created \#(o) {"asset_type":"credit_alphanum4","asset_code":"USD","asset_issuer":"\#(issuer.accountID.strKey)","limit":"\#(limit)"}"#,
            #"trustline_sponsorship_created \#(o) {"asset_type":"","asset":"USD:\#(issuer.accountID.strKey)","sponsor":"\#(s)"}"#,
            #"data_created \#(o) {"name":"k","value":"AQ=="}"#,
            #"data_sponsorship_created \#(o) {"data_name":"k","sponsor":"\#(s)"}"#,
        ])
        let signer = SignerKey.ed25519(newcomer.accountID.publicKey)
        Self.sponsoring(&ledger, sponsor, owner, [.setOptions(SetOptionsOperation(signer: Signer(key: signer, weight: 2)))])
        #expect(EffectsTests.effects(ledger) == [
            #"signer_created \#(o) {"weight":2,"public_key":"\#(signer.strKey)","key":""}"#,
            #"signer_sponsorship_created \#(o) {"signer":"\#(signer.strKey)","sponsor":"\#(s)"}"#,
        ])
        ledger.submit(sponsor, .revokeSponsorship(.signer(account: owner.accountID, key: signer)))
        #expect(EffectsTests.effects(ledger) == [#"signer_sponsorship_removed \#(o) {"signer":"\#(signer.strKey)","former_sponsor":"\#(s)"}"#])
        let other = ledger.account(100)
        Self.sponsoring(&ledger, other, sponsor, [.revokeSponsorship(.ledgerEntry(.trustLine(owner.accountID, usd)))])
        #expect(EffectsTests.effects(ledger) == [
            #"trustline_sponsorship_updated \#(o) {"asset_type":"","asset":"USD:\#(issuer.accountID.strKey)","former_sponsor":"\#(s)","new_sponsor":"\#(other.accountID.strKey)"}"#,
        ])
        // A sponsored creation: the derived effects, then the stored sponsorship's after them.
        let ops = [
            Operation(.beginSponsoringFutureReserves(sponsoredID: newcomer.accountID)),
            Operation(.createAccount(CreateAccountOperation(destination: newcomer.accountID, startingBalance: 0))),
            Operation(sourceAccount: .ed25519(newcomer.accountID), .endSponsoringFutureReserves),
        ]
        ledger.submit(sponsor, ops, signers: [sponsor, newcomer])
        let n = newcomer.accountID.strKey
        #expect(EffectsTests.effects(ledger).last == #"account_sponsorship_created \#(n) {"sponsor":"\#(s)"}"#)
        let stored = LedgerHistory(ledger.lastLedger!).effects
        #expect(stored.map(\.type) == [.accountSponsorshipCreated])
        #expect(stored.first?.order == 4, "after the creation's three derived effects")
    }
}
