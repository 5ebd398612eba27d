import TenderJSON
import StellarBase

/// Renders envelopes as readable JSON, in the spirit of Stellar Laboratory's XDR viewer:
/// amounts with 7 decimals, assets as `CODE:ISSUER`, keys as StrKeys.
enum EnvelopeJSON {
    static func envelope(_ envelope: TransactionEnvelope, network: Network) -> JSONValue {
        var fields: [(String, JSONValue)] = []
        switch envelope {
        case .v0(let tx, _):
            fields.append(("type", .string("ENVELOPE_TYPE_TX_V0")))
            fields.append(("tx", transaction(tx.asTransaction)))
        case .v1(let tx, _):
            fields.append(("type", .string("ENVELOPE_TYPE_TX")))
            fields.append(("tx", transaction(tx)))
        case .feeBump(let feeBump, _):
            fields.append(("type", .string("ENVELOPE_TYPE_TX_FEE_BUMP")))
            fields.append(("fee_source", .string(feeBump.feeSource.strKey)))
            fields.append(("fee", .number(feeBump.fee)))
            fields.append(("inner_tx", .object([
                ("hash", .string(feeBump.innerTransaction.hash(on: network).hex)),
                ("tx", transaction(feeBump.innerTransaction)),
                ("signatures", signatures(feeBump.innerSignatures)),
            ])))
        }
        fields.append(("signatures", signatures(envelope.signatures)))
        fields.append(("hash", .string(envelope.hash(on: network).hex)))
        fields.append(("network_passphrase", .string(network.passphrase)))
        return .object(fields)
    }

    static func transaction(_ tx: Transaction) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("source_account", .string(tx.sourceAccount.strKey)),
            ("fee", .unsigned(UInt64(tx.fee))),
            ("seq_num", .string(String(tx.sequenceNumber))),
        ]
        switch tx.preconditions {
        case .none: break
        case .time(let bounds): fields.append(("time_bounds", timeBounds(bounds)))
        case .v2(let v2):
            var cond: [(String, JSONValue)] = []
            if let bounds = v2.timeBounds { cond.append(("time_bounds", timeBounds(bounds))) }
            if let ledgers = v2.ledgerBounds {
                cond.append(("ledger_bounds", .object([
                    ("min_ledger", .unsigned(UInt64(ledgers.minLedger))), ("max_ledger", .unsigned(UInt64(ledgers.maxLedger))),
                ])))
            }
            if let minSeq = v2.minSequenceNumber { cond.append(("min_seq_num", .string(String(minSeq)))) }
            cond.append(("min_seq_age", .unsigned(v2.minSequenceAge)))
            cond.append(("min_seq_ledger_gap", .unsigned(UInt64(v2.minSequenceLedgerGap))))
            cond.append(("extra_signers", .array(v2.extraSigners.map { .string($0.strKey) })))
            fields.append(("preconditions", .object(cond)))
        }
        fields.append(("memo", memo(tx.memo)))
        fields.append(("operations", .array(tx.operations.map(operation))))
        return .object(fields)
    }

    static func timeBounds(_ bounds: TimeBounds) -> JSONValue {
        .object([("min_time", .unsigned(bounds.minTime)), ("max_time", .unsigned(bounds.maxTime))])
    }

    static func memo(_ memo: Memo) -> JSONValue {
        switch memo {
        case .none: return .object([("type", .string("none"))])
        case .text(let bytes):
            if let text = String(validating: bytes, as: UTF8.self) {
                return .object([("type", .string("text")), ("text", .string(text))])
            }
            return .object([("type", .string("text")), ("text_base64", .string(Base64.encode(bytes)))])
        case .id(let id): return .object([("type", .string("id")), ("id", .string(String(id)))])
        case .hash(let hash): return .object([("type", .string("hash")), ("hash", .string(hash.hex))])
        case .return(let hash): return .object([("type", .string("return")), ("hash", .string(hash.hex))])
        }
    }

    static func asset(_ asset: Asset) -> JSONValue {
        switch asset {
        case .native: return .string("native")
        case .alphanum4(let code, let issuer), .alphanum12(let code, let issuer):
            if code.isValid { return .string("\(code.text):\(issuer.strKey)") }
            return .object([("code_hex", .string(Hex.encode(code.raw))), ("issuer", .string(issuer.strKey))])
        }
    }

    static func amount(_ stroops: Int64) -> JSONValue { .string(Amount.format(stroops)) }

    static func path(_ assets: [Asset]) -> JSONValue { .array(assets.map(asset)) }

    static func price(_ price: Price) -> JSONValue {
        .object([("n", .number(Int64(price.n))), ("d", .number(Int64(price.d)))])
    }

    static func bytes(_ bytes: [UInt8]) -> JSONValue {
        if let text = String(validating: bytes, as: UTF8.self), text.unicodeScalars.allSatisfy({ $0.value >= 0x20 }) {
            return .string(text)
        }
        return .object([("base64", .string(Base64.encode(bytes)))])
    }

    static func operation(_ op: Operation) -> JSONValue {
        var fields: [(String, JSONValue)] = [("type", .string(op.body.type.name))]
        if let source = op.sourceAccount { fields.append(("source_account", .string(source.strKey))) }
        switch op.body {
        case .createAccount(let body):
            fields += [("destination", .string(body.destination.strKey)), ("starting_balance", amount(body.startingBalance))]
        case .payment(let body):
            fields += [("destination", .string(body.destination.strKey)), ("asset", asset(body.asset)), ("amount", amount(body.amount))]
        case .pathPaymentStrictReceive(let body):
            fields += [
                ("send_asset", asset(body.sendAsset)), ("send_max", amount(body.sendMax)),
                ("destination", .string(body.destination.strKey)), ("dest_asset", asset(body.destAsset)),
                ("dest_amount", amount(body.destAmount)), ("path", path(body.path)),
            ]
        case .pathPaymentStrictSend(let body):
            fields += [
                ("send_asset", asset(body.sendAsset)), ("send_amount", amount(body.sendAmount)),
                ("destination", .string(body.destination.strKey)), ("dest_asset", asset(body.destAsset)),
                ("dest_min", amount(body.destMin)), ("path", path(body.path)),
            ]
        case .manageSellOffer(let body):
            fields += [
                ("selling", asset(body.selling)), ("buying", asset(body.buying)), ("amount", amount(body.amount)),
                ("price", price(body.price)), ("offer_id", .string(String(body.offerID))),
            ]
        case .manageBuyOffer(let body):
            fields += [
                ("selling", asset(body.selling)), ("buying", asset(body.buying)), ("buy_amount", amount(body.buyAmount)),
                ("price", price(body.price)), ("offer_id", .string(String(body.offerID))),
            ]
        case .setOptions(let body):
            if let destination = body.inflationDestination { fields.append(("inflation_dest", .string(destination.strKey))) }
            let numbers: [(String, UInt32?)] = [
                ("clear_flags", body.clearFlags), ("set_flags", body.setFlags), ("master_weight", body.masterWeight),
                ("low_threshold", body.lowThreshold), ("med_threshold", body.mediumThreshold), ("high_threshold", body.highThreshold),
            ]
            for (name, value) in numbers { if let value { fields.append((name, .unsigned(UInt64(value)))) } }
            if let domain = body.homeDomain { fields.append(("home_domain", bytes(domain))) }
            if let signer = body.signer {
                fields.append(("signer", .object([("key", .string(signer.key.strKey)), ("weight", .unsigned(UInt64(signer.weight)))])))
            }
        case .changeTrust(let body):
            switch body.line {
            case .asset(let line): fields.append(("line", asset(line)))
            case .poolShare(let pool):
                fields.append(("line", .object([("liquidity_pool", .object([
                    ("asset_a", asset(pool.assetA)), ("asset_b", asset(pool.assetB)), ("fee", .number(Int64(pool.fee))),
                ]))])))
            }
            fields.append(("limit", amount(body.limit)))
        case .accountMerge(let destination):
            fields.append(("destination", .string(destination.strKey)))
        case .manageData(let body):
            fields.append(("data_name", bytes(body.name)))
            fields.append(("data_value", body.value.map { .object([("base64", .string(Base64.encode($0)))]) } ?? .null))
        case .bumpSequence(let bumpTo):
            fields.append(("bump_to", .string(String(bumpTo))))
        case .createPassiveSellOffer(let body):
            fields += [("selling", asset(body.selling)), ("buying", asset(body.buying)), ("amount", amount(body.amount)), ("price", price(body.price))]
        case .allowTrust(let body):
            fields += [("trustor", .string(body.trustor.strKey)), ("asset_code", .string(body.assetCode.text)), ("authorize", .unsigned(UInt64(body.authorize)))]
        case .setTrustLineFlags(let body):
            fields += [
                ("trustor", .string(body.trustor.strKey)), ("asset", asset(body.asset)),
                ("clear_flags", .unsigned(UInt64(body.clearFlags))), ("set_flags", .unsigned(UInt64(body.setFlags))),
            ]
        case .clawback(let body):
            fields += [("asset", asset(body.asset)), ("from", .string(body.from.strKey)), ("amount", amount(body.amount))]
        case .createClaimableBalance(let body):
            fields += [
                ("asset", asset(body.asset)), ("amount", amount(body.amount)),
                ("claimants", .array(body.claimants.map { .object([("destination", .string($0.destination.strKey)), ("predicate", $0.predicate.json)]) })),
            ]
        case .claimClaimableBalance(let id), .clawbackClaimableBalance(let id):
            fields.append(("balance_id", .string(id.hex)))
        case .beginSponsoringFutureReserves(let sponsored):
            fields.append(("sponsored_id", .string(sponsored.strKey)))
        case .endSponsoringFutureReserves:
            break
        case .revokeSponsorship(.signer(let account, let key)):
            fields.append(("signer", .object([("account_id", .string(account.strKey)), ("signer_key", .string(key.strKey))])))
        case .revokeSponsorship(.ledgerEntry(let key)):
            let entry: [(String, JSONValue)] = switch key {
            case .account(let id): [("account", .object([("account_id", .string(id.strKey))]))]
            case .trustLine(let id, let line): [("trustline", .object([("account_id", .string(id.strKey)), ("asset", asset(line))]))]
            case .offer(let seller, let offerID): [("offer", .object([("seller_id", .string(seller.strKey)), ("offer_id", .string(String(offerID)))]))]
            case .data(let id, let name): [("data", .object([("account_id", .string(id.strKey)), ("data_name", bytes(name))]))]
            case .poolShareLine(let id, let pool): [("trustline", .object([("account_id", .string(id.strKey)), ("liquidity_pool_id", .string(pool.hex))]))]
            case .claimableBalance(let id): [("claimable_balance", .object([("balance_id", .string(id.hex))]))]
            case .liquidityPool(let id): [("liquidity_pool", .object([("liquidity_pool_id", .string(id.hex))]))]
            }
            fields.append(("ledger_key", .object(entry)))
        case .liquidityPoolDeposit(let body):
            fields += [
                ("liquidity_pool_id", .string(body.poolID.hex)), ("max_amount_a", amount(body.maxAmountA)), ("max_amount_b", amount(body.maxAmountB)),
                ("min_price", price(body.minPrice)), ("max_price", price(body.maxPrice)),
            ]
        case .liquidityPoolWithdraw(let body):
            fields += [
                ("liquidity_pool_id", .string(body.poolID.hex)), ("amount", amount(body.amount)),
                ("min_amount_a", amount(body.minAmountA)), ("min_amount_b", amount(body.minAmountB)),
            ]
        }
        return .object(fields)
    }

    static func signatures(_ signatures: [DecoratedSignature]) -> JSONValue {
        .array(signatures.map {
            .object([("hint", .string(Hex.encode($0.hintBytes))), ("signature", .string(Base64.encode($0.signature)))])
        })
    }
}
