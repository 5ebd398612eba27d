import Testing
import StellarBase

@Suite("Envelopes, hashes and signatures, against stellar-sdk vectors")
struct EnvelopeVectorTests {
    let vectors = Vectors.shared

    @Test func everyEnvelopeDecodesAndReencodesByteForByte() throws {
        #expect(vectors.envelopes.count >= 40)
        for vector in vectors.envelopes {
            let envelope = try TransactionEnvelope(xdrBase64: vector.xdr)
            #expect(envelope.xdrBase64 == vector.xdr, "\(vector.name)")
            #expect(envelope.signatures.count == vector.signature_count, "\(vector.name)")
            if let operationCount = vector.operation_count {
                #expect(envelope.transaction.operations.count == operationCount, "\(vector.name)")
            }
            if let sequence = vector.sequence {
                #expect(String(envelope.transaction.sequenceNumber) == sequence, "\(vector.name)")
            }
            if let source = vector.source {
                #expect(envelope.transaction.sourceAccount.strKey == source, "\(vector.name)")
            }
        }
    }

    @Test func hashesMatchOnBothNetworks() throws {
        for vector in vectors.envelopes {
            let envelope = try TransactionEnvelope(xdrBase64: vector.xdr)
            #expect(envelope.hash(on: .standalone).hex == vector.hash_standalone, "\(vector.name)")
            #expect(envelope.hash(on: .testnet).hex == vector.hash_testnet, "\(vector.name)")
            if let inner = vector.inner_hash_standalone, case .feeBump(let feeBump, _) = envelope {
                #expect(feeBump.innerTransaction.hash(on: .standalone).hex == inner)
            }
        }
    }

    @Test func everySignatureVerifiesWithItsSigner() throws {
        let keys = vectors.keys
        for vector in vectors.envelopes {
            let envelope = try TransactionEnvelope(xdrBase64: vector.xdr)
            for signature in envelope.signatures {
                let signer = try #require(keys.first { $0.hint == signature.hint }, "\(vector.name)")
                #expect(envelope.isSignature(signature, validFor: signer, on: .standalone), "\(vector.name)")
                #expect(!envelope.isSignature(signature, validFor: signer, on: .testnet), "\(vector.name)")
            }
        }
    }

    @Test func envelopeKinds() throws {
        guard case .v0(let v0, _) = try TransactionEnvelope(xdrBase64: vectors.envelope("v0_payment").xdr) else {
            Issue.record("v0_payment is not a V0 envelope")
            return
        }
        #expect(v0.memo == .text(Array("v0".utf8)))
        guard case .feeBump(let feeBump, _) = try TransactionEnvelope(xdrBase64: vectors.envelope("fee_bump_mixed_multi_signer").xdr) else {
            Issue.record("not a fee bump")
            return
        }
        #expect(feeBump.fee == vectors.envelope("fee_bump_mixed_multi_signer").fee)
        #expect(feeBump.feeSource.muxedID == 42)
        #expect(feeBump.innerSignatures.count == 3)
        let pre = try TransactionEnvelope(xdrBase64: vectors.envelope("preconditions_v2").xdr).transaction
        guard case .v2(let v2) = pre.preconditions else {
            Issue.record("no V2 preconditions")
            return
        }
        #expect(v2.timeBounds == TimeBounds(minTime: 5, maxTime: 6))
        #expect(v2.ledgerBounds == LedgerBounds(minLedger: 10, maxLedger: 20))
        #expect(v2.minSequenceNumber == 4_294_967_296_000)
        #expect(v2.minSequenceAge == 3600)
        #expect(v2.minSequenceLedgerGap == 7)
        #expect(v2.extraSigners.count == 2)
    }

    /// The SDK's envelopes with operations Tender applied only later (AllowTrust,
    /// SetTrustLineFlags, CreateClaimableBalance, CreatePassiveSellOffer, Begin/EndSponsoringFutureReserves,
    /// LiquidityPoolDeposit, ChangeTrust to pool shares) decode and encode again byte for byte; the rest
    /// (inflation, Soroban) are refused by name.
    @Test func unsupportedOperationsAreRefusedByName() throws {
        #expect(vectors.unsupported.count >= 10)
        let applied = [
            "allow_trust", "set_trust_line_flags", "create_claimable_balance", "create_passive_sell_offer",
            "begin_sponsoring_future_reserves", "end_sponsoring_future_reserves", "liquidity_pool_deposit", "liquidity_pool_shares",
        ]
        for vector in vectors.unsupported where applied.contains(vector.operation) {
            let envelope = try TransactionEnvelope(xdrBase64: vector.xdr)
            // The pool-share vector is a ChangeTrust to a pool's shares.
            #expect(envelope.transaction.operations.map(\.body.type.name).contains(vector.operation == "liquidity_pool_shares" ? "change_trust" : vector.operation))
            #expect(envelope.xdrBase64 == vector.xdr, "\(vector.operation) round-trips")
        }
        for vector in vectors.unsupported where !applied.contains(vector.operation) {
            do {
                _ = try TransactionEnvelope(xdrBase64: vector.xdr)
                Issue.record("\(vector.operation) decoded")
            } catch {
                #expect(error.code == .unsupported, "\(vector.operation)")
                #expect(error.unsupportedName == vector.operation, "\(vector.operation)")
                #expect(error.message.contains(vector.operation) || error.message.contains("not supported"))
            }
        }
    }

    /// The builder must produce the SDK's exact bytes for the same inputs.
    @Test func builderReproducesTheSDK() throws {
        let keys = vectors.keys
        let (alice, bob, issuer, carol, _, dave) = (keys[0], keys[1], keys[2], keys[3], keys[4], keys[5])
        let sequence: Int64 = 4_294_967_296_123

        func build(_ name: String, signers: [KeyPair] = [alice], _ configure: (inout TransactionBuilder) throws -> Void) throws {
            var builder = TransactionBuilder(source: alice.accountID, currentSequenceNumber: sequence)
            try configure(&builder)
            let envelope = try builder.build().signed(by: signers, on: .standalone)
            #if os(Linux)
            #expect(envelope.xdrBase64 == vectors.envelope(name).xdr, "\(name)")
            #else
            #expect(envelope.transaction == (try TransactionEnvelope(xdrBase64: vectors.envelope(name).xdr)).transaction, "\(name)")
            #endif
            #expect(envelope.hash(on: .standalone).hex == vectors.envelope(name).hash_standalone, "\(name)")
        }

        try build("create_account") {
            $0.add(.createAccount(CreateAccountOperation(destination: bob.accountID, startingBalance: try Amount.parse("10000.5"))))
        }
        try build("payment_native") {
            $0.add(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: try Amount.parse("12.3456789"))))
        }
        try build("payment_credit12") {
            let long = try Asset(code: "LONGASSET12", issuer: issuer.accountID)
            $0.add(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: long, amount: .max)))
        }
        try build("payment_to_muxed") {
            let eurt = try Asset(code: "EURT", issuer: issuer.accountID)
            $0.add(.payment(PaymentOperation(destination: .muxed(id: 1_234_567_890_123, bob.accountID), asset: eurt, amount: 50 * Amount.stroopsPerUnit)))
        }
        try build("memo_text") {
            $0.memo = try .text("Dinner 🍝 at Jane's")
            $0.add(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: 50 * Amount.stroopsPerUnit)))
        }
        try build("time_bounds") {
            $0.setTimeBounds(minTime: 1_700_000_000, maxTime: 1_800_000_000)
            $0.add(.payment(PaymentOperation(destination: .ed25519(bob.accountID), asset: .native, amount: Amount.stroopsPerUnit)))
        }
        try build("manage_sell_offer_new") {
            let usd = try Asset(code: "USD", issuer: issuer.accountID)
            $0.add(.manageSellOffer(ManageSellOfferOperation(selling: usd, buying: .native, amount: 100 * Amount.stroopsPerUnit, price: Price(n: 3, d: 7))))
        }
        try build("change_trust_default_limit") {
            $0.add(.changeTrust(ChangeTrustOperation(asset: try Asset(code: "USD", issuer: issuer.accountID))))
        }
        try build("manage_data_set") {
            $0.add(.manageData(ManageDataOperation(name: Array("config.memo_required".utf8), value: Array("1".utf8))))
        }
        try build("mixed_multi_signer", signers: [alice, carol, bob]) {
            let five = try Asset(code: "ABCDE", issuer: carol.accountID)
            $0.memo = try .text("mixed")
            $0.setTimeBounds(minTime: 0, maxTime: 1_900_000_000)
            $0.add(.createAccount(CreateAccountOperation(destination: dave.accountID, startingBalance: 2 * Amount.stroopsPerUnit)))
            $0.add(.changeTrust(ChangeTrustOperation(asset: five, limit: 1000 * Amount.stroopsPerUnit)))
            $0.add(.payment(PaymentOperation(destination: .ed25519(dave.accountID), asset: five, amount: 3 * Amount.stroopsPerUnit)),
                   source: .ed25519(carol.accountID))
            $0.add(.manageData(ManageDataOperation(name: [UInt8(ascii: "k")], value: [UInt8(ascii: "v")])),
                   source: .muxed(id: 1_234_567_890_123, bob.accountID))
        }
    }

    @Test func builderRefusesBadTransactions() throws {
        let alice = vectors.keys[0]
        var builder = TransactionBuilder(source: alice.accountID, currentSequenceNumber: 1)
        #expect(throws: TransactionBuildError.self) { try builder.build() }
        for _ in 0..<101 { builder.add(.bumpSequence(bumpTo: 1)) }
        #expect(throws: TransactionBuildError.self) { try builder.build() }
        var overflow = TransactionBuilder(source: alice.accountID, currentSequenceNumber: .max)
        overflow.add(.bumpSequence(bumpTo: 1))
        #expect(throws: TransactionBuildError.self) { try overflow.build() }
        var expensive = TransactionBuilder(source: alice.accountID, currentSequenceNumber: 1)
        expensive.baseFee = .max
        expensive.add(.bumpSequence(bumpTo: 1))
        expensive.add(.bumpSequence(bumpTo: 2))
        #expect(throws: TransactionBuildError.self) { try expensive.build() }
        #expect(throws: MemoError.self) { try Memo.text(String(repeating: "x", count: 29)) }
        #expect(throws: AssetError.self) { try Asset(code: "TOOLONGCODE13", issuer: alice.accountID) }
        #expect(throws: AssetError.self) { try Asset(code: "U$D", issuer: alice.accountID) }
        #expect(throws: AssetError.self) { try Asset(code: "", issuer: alice.accountID) }
    }
}

@Suite("Transaction results, against stellar-sdk vectors")
struct ResultVectorTests {
    @Test func everyResultDecodesReencodesAndNamesItsCodes() throws {
        let vectors = Vectors.shared.results
        #expect(vectors.count > 100)
        for vector in vectors {
            let result = try TransactionResult(xdrBase64: vector.xdr)
            #expect(result.xdrBase64 == vector.xdr, "\(vector.name)")
            #expect(result.feeCharged == vector.fee_charged, "\(vector.name)")
            #expect(result.code.name == vector.transaction, "\(vector.name)")
            #expect(result.outcome.operationResults?.map(\.name) == vector.operations, "\(vector.name)")
        }
    }

    @Test func referenceExamples() throws {
        // From reference/stellar.md.
        let failed = try TransactionResult(xdrBase64: "AAAAAAAAAGT/////AAAAAQAAAAAAAAAA/////AAAAAA=")
        #expect(failed.feeCharged == 100)
        #expect(failed.code == .failed)
        #expect(failed.outcome.operationResults == [.inner(.createAccount(.alreadyExists))])
        let badSeq = try TransactionResult(xdrBase64: "AAAAAAAAAAD////7AAAAAA==")
        #expect(badSeq.code == .badSequence)
        #expect(badSeq.code.name == "tx_bad_seq")
        #expect(TransactionResult(feeCharged: 0, outcome: .code(.badSequence)).xdrBase64 == "AAAAAAAAAAD////7AAAAAA==")
    }

    @Test func everyCodeHasItsHorizonName() {
        func check<C: OperationResultCodeProtocol>(_ type: C.Type) {
            for code in C.allCases {
                #expect(code.name.hasPrefix("op_") || code.name.hasSuffix("_authorized") || code.name == "buy_no_issuer")
            }
        }
        check(CreateAccountResultCode.self)
        check(PaymentResultCode.self)
        check(PathPaymentStrictReceiveResultCode.self)
        check(PathPaymentStrictSendResultCode.self)
        check(ManageSellOfferResultCode.self)
        check(ManageBuyOfferResultCode.self)
        check(SetOptionsResultCode.self)
        check(ChangeTrustResultCode.self)
        check(AccountMergeResultCode.self)
        check(ManageDataResultCode.self)
        check(BumpSequenceResultCode.self)
        #expect(Set(TransactionResultCode.allCases.map(\.name)).count == TransactionResultCode.allCases.count)
    }
}
