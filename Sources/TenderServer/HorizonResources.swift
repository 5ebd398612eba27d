import TenderJSON
import Foundation
import Ledger
import StellarBase
import Store

/// Horizon's JSON resources, field for field as Horizon names and types them: amounts are
/// strings with 7 decimals, sequence numbers and fees are strings, ledgers and counts numbers.
struct HorizonResources: Sendable {
    /// The server's own address, for HAL links: `http://host:port`.
    let base: String
    let network: Network

    func link(_ path: String, templated: Bool = false) -> JSONValue {
        templated ? .object([("href", .string(base + path)), ("templated", true)]) : .object([("href", .string(base + path))])
    }

    /// `self` and a templated link to each of `collections` below `path`, as Horizon gives them.
    func links(_ path: String, collections: [String]) -> JSONValue {
        .object([("self", link(path))] + collections.map { ($0, link("\(path)/\($0){?cursor,limit,order}", templated: true)) })
    }

    static func amount(_ stroops: Int64) -> JSONValue { .string(Amount.format(stroops)) }

    static func time(_ seconds: UInt64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).ISO8601Format()
    }

    /// `asset_type`, `asset_code`, `asset_issuer` with a prefix (`""`, `"source_"`, `"selling_"`...).
    static func assetFields(_ asset: Asset, prefix: String = "") -> [(String, JSONValue)] {
        OperationEffects.assetFields(asset, prefix: prefix)
    }

    static func asset(_ asset: Asset) -> JSONValue { .object(assetFields(asset)) }

    /// ``assetFields(_:prefix:)`` without a prefix, written one by one (no array of pairs built):
    /// a balance's asset in `GET /accounts/{id}`.
    static func writeAssetFields<Writer: JSONWriter>(_ asset: Asset, to writer: inout Writer) {
        switch asset {
        case .native:
            writer.field("asset_type", "native")
        case .alphanum4(let code, let issuer):
            writer.field("asset_type", "credit_alphanum4")
            writer.field("asset_code", code.text)
            writer.field("asset_issuer", issuer.strKey)
        case .alphanum12(let code, let issuer):
            writer.field("asset_type", "credit_alphanum12")
            writer.field("asset_code", code.text)
            writer.field("asset_issuer", issuer.strKey)
        }
    }

    static func price(_ price: Price) -> [(String, JSONValue)] {
        [("price_r", .object([("n", .number(Int64(price.n))), ("d", .number(Int64(price.d)))])), ("price", .string(priceText(n: Int64(price.n), d: Int64(price.d))))]
    }

    /// A price n/d as Horizon prints it: 7 decimals, rounded half up.
    static func priceText(n: Int64, d: Int64) -> String {
        guard d != 0 else { return "0.0000000" }
        // n and d are 32-bit, so n × 2×10^7 fits in 64 bits.
        return Amount.format((n * 20_000_000 / d + 1) / 2)
    }

    // MARK: Accounts

    /// An account as Horizon's `GET /accounts/{id}` gives it, as a tree (for callers that read
    /// its fields back: collections, the console).
    func account(_ record: AccountRecord) -> JSONValue {
        JSONTreeWriter.document { writeAccount(record, to: &$0) }
    }

    /// The same account as compact bytes, written straight without a tree: the answer of
    /// `GET /accounts/{id}`, the API's hottest read, which at ten million accounts is rendered
    /// anew for nearly every request (issue 30).
    ///
    /// - Parameter address: the account's `G...` text when the caller holds it already (the
    ///   canonical address it was asked for), so it is not encoded again; it must be the
    ///   record's account's.
    func accountBytes(_ record: AccountRecord, address: String? = nil) -> [UInt8] {
        JSONBytesWriter.document(capacity: 2_048) { writeAccount(record, address: address, to: &$0) }
    }

    /// An account's links, below its address: itself, its collections (each a template) and its
    /// data (``AccountAnswer`` writes the same list).
    static let accountLinks = [JSONLink("self")]
        + ["transactions", "operations", "payments", "effects", "offers", "trades"].map { JSONLink($0, tail: "/\($0){?cursor,limit,order}", templated: true) }
        + [JSONLink("data", tail: "/data/{key}", templated: true)]

    /// A HAL link to `path` followed by `template`.
    private func writeLink<Writer: JSONWriter>(_ path: String, _ template: String = "", templated: Bool = false, to writer: inout Writer) {
        writer.link(base, path, template, templated: templated)
    }

    private static func writeAmount<Writer: JSONWriter>(_ key: String, _ stroops: Int64, to writer: inout Writer) {
        writer.field(key, Amount.format(stroops))
    }

    func writeAccount<Writer: JSONWriter>(_ record: AccountRecord, address: String? = nil, to writer: inout Writer) {
        let account = record.account
        assert(address == nil || address == account.accountID.strKey, "the address given is not the account's")
        let id = address ?? account.accountID.strKey
        writer.beginObject()
        writer.key("_links")
        writer.links(below: base, "/accounts/", id, Self.accountLinks)
        writer.field("id", id)
        writer.field("account_id", id)
        writer.field("sequence", String(account.sequenceNumber))
        writer.field("sequence_ledger", Int64(account.sequenceLedger))
        writer.field("sequence_time", String(account.sequenceTime))
        writer.field("subentry_count", Int64(account.numSubEntries))
        if let destination = account.inflationDestination { writer.field("inflation_destination", destination.strKey) }
        if !account.homeDomain.isEmpty { writer.field("home_domain", String(decoding: account.homeDomain, as: UTF8.self)) }
        writer.field("last_modified_ledger", Int64(account.lastModifiedLedger))
        writer.key("thresholds")
        writer.object { writer in
            writer.field("low_threshold", Int64(account.thresholds.low))
            writer.field("med_threshold", Int64(account.thresholds.medium))
            writer.field("high_threshold", Int64(account.thresholds.high))
        }
        writer.key("flags")
        writer.object { writer in
            writer.field("auth_required", account.flags & AccountFlags.authRequired != 0)
            writer.field("auth_revocable", account.flags & AccountFlags.authRevocable != 0)
            writer.field("auth_immutable", account.flags & AccountFlags.authImmutable != 0)
            writer.field("auth_clawback_enabled", account.flags & AccountFlags.authClawbackEnabled != 0)
        }
        writer.key("balances")
        writer.array { writer in
            let lines = record.trustLines.count < 2 ? record.trustLines : record.trustLines.sorted { $0.asset.description < $1.asset.description }
            for line in lines {
                writer.object { writer in
                    Self.writeAmount("balance", line.balance, to: &writer)
                    Self.writeAmount("limit", line.limit, to: &writer)
                    Self.writeAmount("buying_liabilities", line.buyingLiabilities, to: &writer)
                    Self.writeAmount("selling_liabilities", line.sellingLiabilities, to: &writer)
                    if let sponsor = line.sponsor { writer.field("sponsor", sponsor.strKey) }
                    writer.field("last_modified_ledger", Int64(line.lastModifiedLedger))
                    writer.field("is_authorized", line.isAuthorized)
                    writer.field("is_authorized_to_maintain_liabilities", line.isAuthorizedToMaintainLiabilities)
                    writer.field("is_clawback_enabled", line.flags & TrustLineFlags.clawbackEnabled != 0)
                    Self.writeAssetFields(line.asset, to: &writer)
                }
            }
            // Pool shares after the assets, before XLM, as Horizon's (no sponsor shown for them, as Horizon's).
            for (line, _) in record.poolShares {
                writer.object { writer in
                    Self.writeAmount("balance", line.balance, to: &writer)
                    writer.field("liquidity_pool_id", line.poolID.hex)
                    Self.writeAmount("limit", line.limit, to: &writer)
                    writer.field("last_modified_ledger", Int64(line.lastModifiedLedger))
                    writer.field("is_authorized", false)
                    writer.field("is_authorized_to_maintain_liabilities", false)
                    writer.field("asset_type", "liquidity_pool_shares")
                }
            }
            writer.object { writer in
                Self.writeAmount("balance", account.balance, to: &writer)
                Self.writeAmount("buying_liabilities", account.buyingLiabilities, to: &writer)
                Self.writeAmount("selling_liabilities", account.sellingLiabilities, to: &writer)
                writer.field("asset_type", "native")
            }
        }
        writer.key("signers")
        writer.array { writer in
            for signer in account.signers {
                writer.object { writer in
                    writer.field("weight", Int64(signer.weight))
                    writer.field("key", signer.key.strKey)
                    writer.field("type", signer.key.typeName)
                    if let sponsor = account.signerSponsors[signer.key] { writer.field("sponsor", sponsor.strKey) }
                }
            }
            writer.object { writer in
                writer.field("weight", Int64(account.thresholds.masterWeight))
                writer.field("key", id)
                writer.field("type", "ed25519_public_key")
            }
        }
        writer.key("data")
        writer.object { writer in
            for entry in record.data { writer.field(String(decoding: entry.name, as: UTF8.self), Base64.encode(entry.value)) }
        }
        writer.field("num_sponsoring", Int64(account.numSponsoring))
        writer.field("num_sponsored", Int64(account.numSponsored))
        if let sponsor = account.sponsor { writer.field("sponsor", sponsor.strKey) }
        writer.field("paging_token", id)
        writer.endObject()
    }

    // MARK: Ledgers

    func ledger(_ record: LedgerRecord) -> JSONValue {
        let header = record.header
        let path = "/ledgers/\(header.sequence)"
        var fields: [(String, JSONValue)] = [
            ("_links", links(path, collections: ["transactions", "operations", "payments", "effects"])),
            ("id", .string(record.hash.hex)), ("paging_token", .string(String(record.pagingToken))),
            ("hash", .string(record.hash.hex)),
        ]
        if let previous = record.previousHash { fields.append(("prev_hash", .string(previous.hex))) }
        fields += [
            ("sequence", .number(Int64(header.sequence))),
            ("successful_transaction_count", .number(Int64(record.successfulTransactionCount))),
            ("failed_transaction_count", .number(Int64(record.transactionCount - record.successfulTransactionCount))),
            ("operation_count", .number(Int64(record.operationCount))),
            ("tx_set_operation_count", .number(Int64(record.operationCount))),
            ("closed_at", .string(Self.time(header.closeTime))),
            ("total_coins", Self.amount(header.totalCoins)),
            ("fee_pool", Self.amount(header.feePool)),
            ("base_fee_in_stroops", .number(Int64(header.baseFee))),
            ("base_reserve_in_stroops", .number(Int64(header.baseReserve))),
            ("max_tx_set_size", .number(Int64(header.maxTransactionSetSize))),
            ("protocol_version", .number(Int64(header.protocolVersion))),
        ]
        return .object(fields)
    }

    // MARK: Transactions

    /// A transaction as Horizon's `GET /transactions/{hash}` gives it, as a tree (for callers
    /// that read its fields back or place it in a collection).
    func transaction(_ stored: StoredTransaction) -> JSONValue {
        JSONTreeWriter.document { writeTransaction(stored, to: &$0) }
    }

    /// The same transaction as compact bytes, written straight without a tree: the answer of
    /// every applied `POST /transactions` (issue 30).
    func transactionBytes(_ stored: StoredTransaction) -> [UInt8] {
        JSONBytesWriter.document(capacity: 2_048) { writeTransaction(stored, to: &$0) }
    }

    func writeTransaction<Writer: JSONWriter>(_ stored: StoredTransaction, to writer: inout Writer) {
        let envelope = stored.envelope
        let tx = envelope.transaction
        let hash = stored.hash.hex
        let path = "/transactions/" + hash
        let source = tx.sourceAccount
        let sourceID = source.accountID.strKey
        writer.beginObject()
        writer.key("_links")
        writer.object { writer in
            writer.key("self")
            writeLink(path, to: &writer)
            writer.key("account")
            writeLink("/accounts/", sourceID, to: &writer)
            writer.key("ledger")
            writeLink("/ledgers/", String(stored.ledger), to: &writer)
            writer.key("operations")
            writeLink(path, "/operations{?cursor,limit,order}", templated: true, to: &writer)
            writer.key("effects")
            writeLink(path, "/effects{?cursor,limit,order}", templated: true, to: &writer)
            writer.key("precedes")
            writeLink("/transactions?order=asc&cursor=", String(stored.id), to: &writer)
            writer.key("succeeds")
            writeLink("/transactions?order=desc&cursor=", String(stored.id), to: &writer)
            writer.key("transaction")
            writeLink(path, to: &writer)
        }
        writer.field("id", hash)
        writer.field("paging_token", String(stored.id))
        writer.field("successful", stored.result.isSuccess)
        writer.field("hash", hash)
        writer.field("ledger", Int64(stored.ledger))
        writer.field("created_at", Self.time(stored.closeTime))
        writer.field("source_account", sourceID)
        if case .muxed(let id, _) = source {
            writer.field("account_muxed", source.strKey)
            writer.field("account_muxed_id", String(id))
        }
        writer.field("source_account_sequence", String(tx.sequenceNumber))
        let feeSource: MuxedAccount
        let maxFee: Int64
        if case .feeBump(let bump, _) = envelope {
            feeSource = bump.feeSource
            maxFee = bump.fee
        } else {
            feeSource = source
            maxFee = Int64(tx.fee)
        }
        writer.field("fee_account", feeSource.accountID.strKey)
        if case .muxed(let id, _) = feeSource {
            writer.field("fee_account_muxed", feeSource.strKey)
            writer.field("fee_account_muxed_id", String(id))
        }
        writer.field("fee_charged", String(stored.result.feeCharged))
        writer.field("max_fee", String(maxFee))
        writer.field("operation_count", Int64(tx.operations.count))
        writer.field("envelope_xdr", envelope.xdrBase64)
        writer.field("result_xdr", stored.result.xdrBase64)
        writer.field("fee_meta_xdr", "")
        writer.field("memo_type", tx.memo.typeName)
        switch tx.memo {
        case .none: break
        case .text(let bytes):
            writer.field("memo", String(decoding: bytes, as: UTF8.self))
            writer.field("memo_bytes", Base64.encode(bytes))
        case .id(let id): writer.field("memo", String(id))
        case .hash(let hash), .return(let hash): writer.field("memo", Base64.encode(hash.bytes))
        }
        writer.key("signatures")
        writer.array { writer in
            for signature in envelope.signatures { writer.string(Base64.encode(signature.signature)) }
        }
        var preconditions: [(String, JSONValue)] = []
        if let bounds = tx.preconditions.timeBounds {
            preconditions.append(("timebounds", .object([("min_time", .string(String(bounds.minTime))), ("max_time", .string(String(bounds.maxTime)))])))
            writer.field("valid_after", Self.time(bounds.minTime))
            if bounds.maxTime > 0 { writer.field("valid_before", Self.time(bounds.maxTime)) }
        }
        if case .v2(let v2) = tx.preconditions {
            if let ledgers = v2.ledgerBounds {
                preconditions.append(("ledgerbounds", .object([("min_ledger", .number(Int64(ledgers.minLedger))), ("max_ledger", .number(Int64(ledgers.maxLedger)))])))
            }
            if let minimum = v2.minSequenceNumber { preconditions.append(("min_account_sequence", .string(String(minimum)))) }
            if v2.minSequenceAge > 0 { preconditions.append(("min_account_sequence_age", .string(String(v2.minSequenceAge)))) }
            if v2.minSequenceLedgerGap > 0 { preconditions.append(("min_account_sequence_ledger_gap", .number(Int64(v2.minSequenceLedgerGap)))) }
            if !v2.extraSigners.isEmpty { preconditions.append(("extra_signers", .array(v2.extraSigners.map { .string($0.strKey) }))) }
        }
        if !preconditions.isEmpty { writer.field("preconditions", .object(preconditions)) }
        if case .feeBump(let bump, let signatures) = envelope {
            writer.field("fee_bump_transaction", .object([
                ("hash", .string(hash)), ("signatures", .array(signatures.map { .string(Base64.encode($0.signature)) })),
            ]))
            writer.field("inner_transaction", .object([
                ("hash", .string(bump.innerTransaction.hash(on: network).hex)),
                ("signatures", .array(bump.innerSignatures.map { .string(Base64.encode($0.signature)) })),
                ("max_fee", .string(String(bump.innerTransaction.fee))),
            ]))
        }
        writer.endObject()
    }

    // MARK: Operations

    func operation(_ record: OperationRecord) -> JSONValue {
        let operation = record.operation
        let stored = record.transaction
        let tx = stored.envelope.transaction
        let source = operation.sourceAccount ?? tx.sourceAccount
        let id = String(record.id)
        let hash = stored.hash.hex
        var fields: [(String, JSONValue)] = [
            ("_links", .object([
                ("self", link("/operations/\(id)")),
                ("transaction", link("/transactions/\(hash)")),
                ("effects", link("/operations/\(id)/effects")),
                ("succeeds", link("/effects?order=desc&cursor=\(id)")),
                ("precedes", link("/effects?order=asc&cursor=\(id)")),
            ])),
            ("id", .string(id)), ("paging_token", .string(id)),
            ("transaction_successful", .bool(stored.result.isSuccess)),
            ("source_account", .string(source.accountID.strKey)),
        ]
        if case .muxed(let muxedID, _) = source {
            fields += [("source_account_muxed", .string(source.strKey)), ("source_account_muxed_id", .string(String(muxedID)))]
        }
        fields += [
            ("type", .string(operation.body.type.name)), ("type_i", .number(Int64(operation.body.type.rawValue))),
            ("created_at", .string(Self.time(stored.closeTime))), ("transaction_hash", .string(hash)),
        ]
        fields += details(operation, source: source.accountID, result: stored.result.isSuccess ? record.result : nil, poolAmounts: record.poolAmounts)
        if case .endSponsoringFutureReserves = operation.body {
            // The source of the last BeginSponsoringFutureReserves before it that named its source.
            let index = Int(record.id & 0xFFF) - 1
            let begin = tx.operations.prefix(max(0, index)).last {
                if case .beginSponsoringFutureReserves(let sponsored) = $0.body { return sponsored == source.accountID }
                return false
            }
            if let begin {
                let sponsor = begin.sourceAccount ?? tx.sourceAccount
                fields += [("begin_sponsor", .string(sponsor.accountID.strKey))] + Self.muxed(sponsor, "begin_sponsor")
            }
        }
        // Beyond Horizon: a payment carries its transaction's memo.
        if operation.isPayment {
            fields.append(("memo_type", .string(tx.memo.typeName)))
            if let memo = tx.memo.horizonText { fields.append(("memo", .string(memo))) }
        }
        return .object(fields)
    }

    /// The fields particular to each operation type.
    private func details(_ operation: StellarBase.Operation, source: AccountID, result: OperationResult?, poolAmounts: PoolAmounts?) -> [(String, JSONValue)] {
        let assets = poolAmounts.map { ($0.assetA.description, $0.assetB.description) }
        switch operation.body {
        case .createAccount(let op):
            return [("starting_balance", Self.amount(op.startingBalance)), ("funder", .string(source.strKey)), ("account", .string(op.destination.strKey))]
        case .payment(let op):
            return Self.assetFields(op.asset) + [("from", .string(source.strKey)), ("to", .string(op.destination.accountID.strKey)), ("amount", Self.amount(op.amount))]
                + Self.muxed(op.destination, "to")
        case .pathPaymentStrictReceive(let op):
            var sent: Int64 = 0
            if case .inner(.pathPaymentStrictReceive(.success(let offers, let last)))? = result {
                sent = PathPaymentAmounts.sourceAmount(offers: offers, last: last)
            }
            return Self.assetFields(op.destAsset) + [
                ("from", .string(source.strKey)), ("to", .string(op.destination.accountID.strKey)),
                ("amount", Self.amount(op.destAmount)),
                ("path", .array(op.path.map(Self.asset))),
                ("source_amount", Self.amount(sent)), ("source_max", Self.amount(op.sendMax)),
            ] + Self.assetFields(op.sendAsset, prefix: "source_") + Self.muxed(op.destination, "to")
        case .pathPaymentStrictSend(let op):
            var received: Int64 = 0
            if case .inner(.pathPaymentStrictSend(.success(_, let last)))? = result { received = last.amount }
            return Self.assetFields(op.destAsset) + [
                ("from", .string(source.strKey)), ("to", .string(op.destination.accountID.strKey)),
                ("amount", Self.amount(received)),
                ("path", .array(op.path.map(Self.asset))),
                ("source_amount", Self.amount(op.sendAmount)), ("destination_min", Self.amount(op.destMin)),
            ] + Self.assetFields(op.sendAsset, prefix: "source_") + Self.muxed(op.destination, "to")
        case .manageSellOffer(let op):
            return [("amount", Self.amount(op.amount))] + Self.price(op.price)
                + Self.assetFields(op.buying, prefix: "buying_") + Self.assetFields(op.selling, prefix: "selling_")
                + [("offer_id", .string(String(Self.offerID(op.offerID, result))))]
        case .createPassiveSellOffer(let op):
            return [("amount", Self.amount(op.amount))] + Self.price(op.price)
                + Self.assetFields(op.buying, prefix: "buying_") + Self.assetFields(op.selling, prefix: "selling_")
        case .manageBuyOffer(let op):
            return [("amount", Self.amount(op.buyAmount))] + Self.price(op.price)
                + Self.assetFields(op.buying, prefix: "buying_") + Self.assetFields(op.selling, prefix: "selling_")
                + [("offer_id", .string(String(Self.offerID(op.offerID, result))))]
        case .setOptions(let op):
            var fields: [(String, JSONValue)] = []
            if let destination = op.inflationDestination { fields.append(("inflation_dest", .string(destination.strKey))) }
            if let signer = op.signer { fields += [("signer_key", .string(signer.key.strKey)), ("signer_weight", .number(Int64(signer.weight)))] }
            if let weight = op.masterWeight { fields.append(("master_key_weight", .number(Int64(weight)))) }
            if let value = op.lowThreshold { fields.append(("low_threshold", .number(Int64(value)))) }
            if let value = op.mediumThreshold { fields.append(("med_threshold", .number(Int64(value)))) }
            if let value = op.highThreshold { fields.append(("high_threshold", .number(Int64(value)))) }
            if let domain = op.homeDomain { fields.append(("home_domain", .string(String(decoding: domain, as: UTF8.self)))) }
            if let flags = op.setFlags, flags != 0 { fields += Self.flagFields(flags, prefix: "set_flags") }
            if let flags = op.clearFlags, flags != 0 { fields += Self.flagFields(flags, prefix: "clear_flags") }
            return fields
        case .changeTrust(let op):
            switch op.line {
            case .asset(let asset):
                return Self.assetFields(asset) + [("limit", Self.amount(op.limit))]
                    + (asset.issuer.map { [("trustee", .string($0.strKey))] } ?? []) + [("trustor", .string(source.strKey))]
            case .poolShare(let parameters):
                return [("asset_type", "liquidity_pool_shares"), ("liquidity_pool_id", .string(parameters.poolID.hex)), ("limit", Self.amount(op.limit)),
                        ("trustor", .string(source.strKey))]
            }
        case .accountMerge(let destination):
            return [("account", .string(source.strKey)), ("into", .string(destination.accountID.strKey))] + Self.muxed(destination, "into")
        case .manageData(let op):
            return [("name", .string(String(decoding: op.name, as: UTF8.self))), ("value", .string(op.value.map { Base64.encode($0) } ?? ""))]
        case .bumpSequence(let bumpTo):
            return [("bump_to", .string(String(bumpTo)))]
        case .allowTrust(let op):
            return Self.assetFields(op.asset(issuer: source)) + [("trustee", .string(source.strKey)), ("trustor", .string(op.trustor.strKey)),
                ("authorize", .bool(op.authorize == TrustLineFlags.authorized)),
                ("authorize_to_maintain_liabilities", .bool(op.authorize == TrustLineFlags.authorizedToMaintainLiabilities))]
        case .setTrustLineFlags(let op):
            return Self.assetFields(op.asset) + [("trustor", .string(op.trustor.strKey))]
                + Self.trustLineFlagFields(op.setFlags, prefix: "set_flags") + Self.trustLineFlagFields(op.clearFlags, prefix: "clear_flags")
        case .clawback(let op):
            return Self.assetFields(op.asset) + [("from", .string(op.from.accountID.strKey))] + Self.muxed(op.from, "from") + [("amount", Self.amount(op.amount))]
        case .createClaimableBalance(let op):
            return [("asset", .string(op.asset.description)), ("amount", Self.amount(op.amount)), ("claimants", Self.claimants(op.claimants))]
        case .claimClaimableBalance(let id):
            return [("balance_id", .string(id.hex)), ("claimant", .string(source.strKey))]
        case .clawbackClaimableBalance(let id):
            return [("balance_id", .string(id.hex))]
        case .beginSponsoringFutureReserves(let sponsored):
            return [("sponsored_id", .string(sponsored.strKey))]
        case .endSponsoringFutureReserves:
            return []
        case .revokeSponsorship(.signer(let account, let key)):
            return [("signer_account_id", .string(account.strKey)), ("signer_key", .string(key.strKey))]
        case .revokeSponsorship(.ledgerEntry(let key)):
            switch key {
            case .account(let id): return [("account_id", .string(id.strKey))]
            case .claimableBalance(let id): return [("claimable_balance_id", .string(id.hex))]
            case .data(let id, let name): return [("data_account_id", .string(id.strKey)), ("data_name", .string(String(decoding: name, as: UTF8.self)))]
            case .offer(_, let offerID): return [("offer_id", .string(String(offerID)))]
            case .trustLine(let id, let asset): return [("trustline_account_id", .string(id.strKey)), ("trustline_asset", .string(asset.description))]
            case .poolShareLine(let id, let pool): return [("trustline_account_id", .string(id.strKey)), ("trustline_liquidity_pool_id", .string(pool.hex))]
            case .liquidityPool: return []
            }
        case .liquidityPoolDeposit(let op):
            // What went in, when it succeeded, in the pool's asset order.
            let amounts = poolAmounts
            return [
                ("liquidity_pool_id", .string(op.poolID.hex)),
                ("reserves_max", Self.reserves(assets, op.maxAmountA, op.maxAmountB)),
                ("min_price", .string(Self.priceText(n: Int64(op.minPrice.n), d: Int64(op.minPrice.d)))),
                ("min_price_r", .object([("n", .number(Int64(op.minPrice.n))), ("d", .number(Int64(op.minPrice.d)))])),
                ("max_price", .string(Self.priceText(n: Int64(op.maxPrice.n), d: Int64(op.maxPrice.d)))),
                ("max_price_r", .object([("n", .number(Int64(op.maxPrice.n))), ("d", .number(Int64(op.maxPrice.d)))])),
                ("reserves_deposited", Self.reserves(assets, amounts?.reserveA ?? 0, amounts?.reserveB ?? 0)),
                ("shares_received", Self.amount(amounts?.shares ?? 0)),
            ]
        case .liquidityPoolWithdraw(let op):
            let amounts = poolAmounts
            return [
                ("liquidity_pool_id", .string(op.poolID.hex)),
                ("reserves_min", Self.reserves(assets, op.minAmountA, op.minAmountB)),
                ("shares", Self.amount(op.amount)),
                ("reserves_received", Self.reserves(assets, -(amounts?.reserveA ?? 0), -(amounts?.reserveB ?? 0))),
            ]
        }
    }

    /// `[{asset, amount}]` for a pool's two assets (`assets`: their canonical names, when known).
    private static func reserves(_ assets: (String, String)?, _ a: Int64, _ b: Int64) -> JSONValue {
        .array([
            .object([("asset", .string(assets?.0 ?? "")), ("amount", amount(a))]),
            .object([("asset", .string(assets?.1 ?? "")), ("amount", amount(b))]),
        ])
    }

    static func claimants(_ claimants: [Claimant]) -> JSONValue {
        .array(claimants.map { .object([("destination", .string($0.destination.strKey)), ("predicate", $0.predicate.json)]) })
    }

    /// A trustline's flags as Horizon lists them (`authorized_to_maintain_liabilites` spelled as
    /// Horizon spells it); nothing when there are none.
    private static func trustLineFlagFields(_ flags: UInt32, prefix: String) -> [(String, JSONValue)] {
        let names: [(UInt32, String)] = [
            (TrustLineFlags.authorized, "authorized"), (TrustLineFlags.authorizedToMaintainLiabilities, "authorized_to_maintain_liabilites"),
            (TrustLineFlags.clawbackEnabled, "clawback_enabled"),
        ]
        let set = names.filter { flags & $0.0 != 0 }
        guard !set.isEmpty else { return [] }
        return [(prefix, .array(set.map { .number(Int64($0.0)) })), (prefix + "_s", .array(set.map { .string($0.1) }))]
    }

    private static func muxed(_ account: MuxedAccount, _ name: String) -> [(String, JSONValue)] {
        guard case .muxed(let id, _) = account else { return [] }
        return [(name + "_muxed", .string(account.strKey)), (name + "_muxed_id", .string(String(id)))]
    }

    private static func flagFields(_ flags: UInt32, prefix: String) -> [(String, JSONValue)] {
        let names: [(UInt32, String)] = [
            (AccountFlags.authRequired, "auth_required"), (AccountFlags.authRevocable, "auth_revocable"),
            (AccountFlags.authImmutable, "auth_immutable"), (AccountFlags.authClawbackEnabled, "auth_clawback_enabled"),
        ]
        let set = names.filter { flags & $0.0 != 0 }
        return [(prefix, .array(set.map { .number(Int64($0.0)) })), (prefix + "_s", .array(set.map { .string($0.1) }))]
    }

    private static func offerID(_ requested: Int64, _ result: OperationResult?) -> Int64 {
        switch result {
        case .inner(.manageSellOffer(.success(_, .created(let offer))))?, .inner(.manageSellOffer(.success(_, .updated(let offer))))?,
             .inner(.manageBuyOffer(.success(_, .created(let offer))))?, .inner(.manageBuyOffer(.success(_, .updated(let offer))))?:
            offer.offerID
        default: requested
        }
    }

    // MARK: Effects

    /// An effect: Horizon's common fields, then the type's own as stored (compact JSON, spliced
    /// in without being parsed again).
    func effect(_ record: EffectRecord) -> JSONValue {
        let token = record.pagingToken
        var fields: [(String, JSONValue)] = [
            ("_links", .object([
                ("operation", link("/operations/\(record.operationID)")),
                ("succeeds", link("/effects?order=desc&cursor=\(token)")),
                ("precedes", link("/effects?order=asc&cursor=\(token)")),
            ])),
            ("id", .string(record.id)), ("paging_token", .string(token)), ("account", .string(record.account.strKey)),
        ]
        if let muxedID = record.muxedID {
            fields += [("account_muxed", .string(MuxedAccount.muxed(id: muxedID, record.account).strKey)), ("account_muxed_id", .string(String(muxedID)))]
        }
        fields += [
            ("type", .string(record.type.name)), ("type_i", .number(Int64(record.type.rawValue))),
            ("created_at", .string(Self.time(record.closeTime))),
        ]
        var bytes = JSONValue.object(fields).compactBytes()
        // Both are compact objects: drop the closing brace, then the details' opening one.
        if record.details.count > 2, record.details.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") {
            bytes.removeLast()
            bytes.append(UInt8(ascii: ","))
            bytes.append(contentsOf: record.details.dropFirst())
        }
        return .raw(bytes)
    }

    // MARK: Liquidity pools

    /// A liquidity pool as Horizon shows it (`closeTime`: its last change's ledger's).
    func liquidityPool(_ pool: LiquidityPoolEntry, closeTime: UInt64?) -> JSONValue {
        let id = pool.id.hex
        let path = "/liquidity_pools/\(id)"
        return .object([
            ("_links", .object([
                ("self", link(path)),
                ("transactions", link(path + "/transactions{?cursor,limit,order}", templated: true)),
                ("operations", link(path + "/operations{?cursor,limit,order}", templated: true)),
            ])),
            ("id", .string(id)), ("paging_token", .string(id)), ("fee_bp", .number(Int64(pool.parameters.fee))), ("type", "constant_product"),
            ("total_trustlines", .string(String(pool.trustLineCount))), ("total_shares", Self.amount(pool.totalPoolShares)),
            ("reserves", .array([
                .object([("asset", .string(pool.parameters.assetA.description)), ("amount", Self.amount(pool.reserveA))]),
                .object([("asset", .string(pool.parameters.assetB.description)), ("amount", Self.amount(pool.reserveB))]),
            ])),
            ("last_modified_ledger", .number(Int64(pool.lastModifiedLedger))),
            ("last_modified_time", closeTime.map { .string(Self.time($0)) } ?? .null),
        ])
    }

    // MARK: Claimable balances

    /// A claimable balance as Horizon shows it (`closeTime`: its last change's ledger's).
    func claimableBalance(_ balance: ClaimableBalanceEntry, closeTime: UInt64?) -> JSONValue {
        let id = balance.id.hex
        let path = "/claimable_balances/\(id)"
        return .object([
            ("_links", .object([
                ("self", link(path)),
                ("transactions", link(path + "/transactions{?cursor,limit,order}", templated: true)),
                ("operations", link(path + "/operations{?cursor,limit,order}", templated: true)),
            ])),
            ("id", .string(id)), ("asset", .string(balance.asset.description)), ("amount", Self.amount(balance.amount)),
            ("sponsor", .string(balance.sponsor.strKey)), ("last_modified_ledger", .number(Int64(balance.lastModifiedLedger))),
            ("last_modified_time", closeTime.map { .string(Self.time($0)) } ?? .null),
            ("claimants", Self.claimants(balance.claimants)),
            ("flags", .object([("clawback_enabled", .bool(balance.clawbackEnabled))])),
            ("paging_token", .string(balance.cursor.token)),
        ])
    }

    // MARK: Trades

    /// A trade as Horizon's `/trades` shows it.
    func trade(_ trade: TradeRecord) -> JSONValue {
        func side(_ name: String, _ side: TradeSide) -> [(String, JSONValue)] {
            var fields: [(String, JSONValue)] = []
            if let pool = side.liquidityPool { fields.append((name + "_liquidity_pool_id", .string(pool.hex))) }
            if let offer = side.offerID { fields.append((name + "_offer_id", .string(String(offer)))) }
            if let account = side.account { fields.append((name + "_account", .string(account.strKey))) }
            return fields + [(name + "_amount", Self.amount(side.amount))] + Self.assetFields(side.asset, prefix: name + "_")
        }
        func accountLink(_ side: TradeSide) -> JSONValue {
            if let pool = side.liquidityPool { return link("/liquidity_pools/\(pool.hex)") }
            return side.account.map { link("/accounts/\($0.strKey)") } ?? .object([("href", "")])
        }
        return .object([
            ("_links", .object([
                ("self", .object([("href", "")])), ("base", accountLink(trade.base)), ("counter", accountLink(trade.counter)),
                ("operation", link("/operations/\(trade.operationID)")),
            ])),
            ("id", .string(trade.pagingToken)), ("paging_token", .string(trade.pagingToken)),
            ("ledger_close_time", .string(Self.time(trade.closeTime))), ("trade_type", .string(trade.kind.name)),
        ] + (trade.kind == .liquidityPool ? [("liquidity_pool_fee_bp", .number(Int64(LiquidityPoolParameters.fee)))] : []) + side("base", trade.base) + side("counter", trade.counter) + [
            ("base_is_seller", .bool(trade.baseIsSeller)),
            ("price", .object([("n", .string(String(trade.priceN))), ("d", .string(String(trade.priceD)))])),
        ])
    }

    /// A `/trade_aggregations` bucket, as Horizon writes one.
    static func tradeBucket(_ bucket: TradeBucket) -> JSONValue {
        func price(_ name: String, _ price: TradePrice) -> [(String, JSONValue)] {
            [(name, .string(priceText(n: price.n, d: price.d))), (name + "_r", .object([("n", .string(String(price.n))), ("d", .string(String(price.d)))]))]
        }
        let average = bucket.baseVolume == 0 ? 0 : Double(bucket.counterVolume) / Double(bucket.baseVolume)
        return .object([
            ("timestamp", .string(String(bucket.timestamp))), ("trade_count", .string(String(bucket.count))),
            ("base_volume", .string(Amount.format(bucket.baseVolume))), ("counter_volume", .string(Amount.format(bucket.counterVolume))),
            ("avg", .string(String(format: "%.7f", average))),
        ] + price("high", bucket.high) + price("low", bucket.low) + price("open", bucket.open) + price("close", bucket.close))
    }

    // MARK: Offers, order books, paths

    func offer(_ offer: LedgerOffer) -> JSONValue {
        let entry = offer.entry
        let id = String(entry.offerID)
        return .object([
            ("_links", .object([("self", link("/offers/\(id)")), ("offer_maker", link("/accounts/\(entry.sellerID.strKey)"))])),
            ("id", .string(id)), ("paging_token", .string(id)), ("seller", .string(entry.sellerID.strKey)),
            ("selling", Self.asset(entry.selling)), ("buying", Self.asset(entry.buying)),
            ("amount", Self.amount(entry.amount)),
        ] + Self.price(entry.price) + [("last_modified_ledger", .number(Int64(offer.lastModifiedLedger)))]
            + (offer.sponsor.map { [("sponsor", .string($0.strKey))] } ?? []))
    }

    static func path(_ path: PaymentPath) -> JSONValue {
        .object(assetFields(path.sourceAsset, prefix: "source_") + [("source_amount", amount(path.sourceAmount))]
            + assetFields(path.destinationAsset, prefix: "destination_") + [("destination_amount", amount(path.destinationAmount))]
            + [("path", .array(path.path.map(asset)))])
    }

    /// An issued asset as `/assets` shows it: its holders and balances by authorization, its
    /// issuer's flags and stellar.toml, and what claimable balances and liquidity pools hold.
    /// Contracts hold none of it: this ledger has none.
    func asset(_ stats: AssetStats, issuer: AccountEntry?) -> JSONValue {
        let tally = stats.tally
        func balance(_ authorization: TrustLineAuthorization) -> JSONValue { .string(Amount.format(tally[balance: authorization])) }
        let flags = issuer?.flags ?? 0
        let domain = issuer.map { String(decoding: $0.homeDomain, as: UTF8.self) } ?? ""
        return .object([
            ("_links", .object([("toml", .object([("href", .string(domain.isEmpty ? "" : "https://\(domain)/.well-known/stellar.toml"))]))])),
            ("asset_type", .string(stats.asset.typeName)),
            ("asset_code", .string(stats.asset.code?.text ?? "")),
            ("asset_issuer", .string(stats.asset.issuer?.strKey ?? "")),
            ("paging_token", .string(stats.pagingToken)),
            ("num_accounts", .number(tally[accounts: .authorized])),
            ("num_claimable_balances", .number(tally.claimableBalances)),
            ("num_liquidity_pools", .number(tally.liquidityPools)),
            ("num_contracts", 0),
            ("amount", balance(.authorized)),
            ("accounts", .object([
                ("authorized", .number(tally[accounts: .authorized])),
                ("authorized_to_maintain_liabilities", .number(tally[accounts: .authorizedToMaintainLiabilities])),
                ("unauthorized", .number(tally[accounts: .unauthorized])),
            ])),
            ("claimable_balances_amount", .string(Amount.format(tally.claimableAmount))),
            ("liquidity_pools_amount", .string(Amount.format(tally.liquidityPoolsAmount))),
            ("contracts_amount", .string(Amount.format(Int64(0)))),
            ("balances", .object([
                ("authorized", balance(.authorized)),
                ("authorized_to_maintain_liabilities", balance(.authorizedToMaintainLiabilities)),
                ("unauthorized", balance(.unauthorized)),
            ])),
            ("flags", .object([
                ("auth_required", .bool(flags & AccountFlags.authRequired != 0)),
                ("auth_revocable", .bool(flags & AccountFlags.authRevocable != 0)),
                ("auth_immutable", .bool(flags & AccountFlags.authImmutable != 0)),
                ("auth_clawback_enabled", .bool(flags & AccountFlags.authClawbackEnabled != 0)),
            ])),
        ])
    }
}
