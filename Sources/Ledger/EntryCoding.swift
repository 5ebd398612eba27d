import StellarBase

// Tender's storage encoding of ledger entries: XDR primitives in a fixed order, versioned by a
// leading byte so the format can grow. It is Tender's own format, not Stellar's LedgerEntry XDR.

private let entryFormatVersion: UInt32 = 1

private func readVersion(_ reader: inout XDRReader, _ what: String) throws(XDRError) {
    let version = try reader.readUInt32("\(what) format version")
    guard version == entryFormatVersion else { throw XDRError(.unknownDiscriminant, "\(what) format version \(version) is not \(entryFormatVersion)") }
}

extension AccountEntry: XDRCodable {
    /// Version 2 adds the sponsorship counts, version 3 also its own and its signers' sponsors; an
    /// account is written in the lowest version that holds it, so the bytes of every account
    /// from before stay as they were.
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let version = try reader.readUInt32("account format version")
        guard (1...3).contains(version) else { throw XDRError(.unknownDiscriminant, "account format version \(version) is not 1, 2 or 3") }
        self.init(accountID: try AccountID(xdr: &reader), balance: try reader.readInt64(), sequenceNumber: try reader.readInt64(), lastModifiedLedger: 0)
        numSubEntries = try reader.readUInt32()
        var rare = AccountRareFields()
        rare.inflationDestination = try reader.readOptional(AccountID.self, "inflation destination")
        flags = try reader.readUInt32()
        rare.homeDomain = try reader.readVariableOpaque(maxLength: 32, "home domain")
        // Four bytes, read as one word: no array an account.
        let weights = try reader.readUInt32("thresholds")
        thresholds = Thresholds(
            masterWeight: UInt8(truncatingIfNeeded: weights >> 24), low: UInt8(truncatingIfNeeded: weights >> 16),
            medium: UInt8(truncatingIfNeeded: weights >> 8), high: UInt8(truncatingIfNeeded: weights))
        rare.signers = try reader.readArray(Signer.self, maxCount: 20, "signers")
        rare.buyingLiabilities = try reader.readInt64()
        rare.sellingLiabilities = try reader.readInt64()
        sequenceLedger = try reader.readUInt32()
        sequenceTime = try reader.readUInt64()
        lastModifiedLedger = try reader.readUInt32()
        if version >= 2 {
            rare.numSponsoring = try reader.readUInt32()
            rare.numSponsored = try reader.readUInt32()
        }
        if version == 3 {
            rare.sponsor = try reader.readOptional(AccountID.self, "sponsor")
            let count = try reader.readUInt32("signer sponsors")
            guard count <= 20 else { throw XDRError(.lengthOutOfBounds, "\(count) signer sponsors, more than 20") }
            for _ in 0..<count { rare.signerSponsors[try SignerKey(xdr: &reader)] = try AccountID(xdr: &reader) }
        }
        rareFields = rare
    }

    public func encode(to writer: inout XDRWriter) {
        let sponsors = sponsor != nil || !signerSponsors.isEmpty
        let sponsorship = sponsors || numSponsoring != 0 || numSponsored != 0
        writer.write(sponsors ? UInt32(3) : sponsorship ? UInt32(2) : entryFormatVersion)
        accountID.encode(to: &writer)
        writer.write(balance)
        writer.write(sequenceNumber)
        writer.write(numSubEntries)
        writer.writeOptional(inflationDestination)
        writer.write(flags)
        writer.writeVariableOpaque(homeDomain)
        writer.writeFixedOpaque([thresholds.masterWeight, thresholds.low, thresholds.medium, thresholds.high])
        writer.writeArray(signers)
        writer.write(buyingLiabilities)
        writer.write(sellingLiabilities)
        writer.write(sequenceLedger)
        writer.write(sequenceTime)
        writer.write(lastModifiedLedger)
        if sponsorship {
            writer.write(numSponsoring)
            writer.write(numSponsored)
        }
        if sponsors {
            writer.writeOptional(sponsor)
            writer.write(UInt32(signerSponsors.count))
            for (key, sponsor) in signerSponsors.sorted(by: { $0.key.xdrBytes.lexicographicallyPrecedes($1.key.xdrBytes) }) {
                key.encode(to: &writer)
                sponsor.encode(to: &writer)
            }
        }
    }
}

/// Trustlines, offers and data entries: version 2 adds the sponsor at the end, written only
/// for a sponsored entry.
private func readSponsoredVersion(_ reader: inout XDRReader, _ what: String) throws(XDRError) -> Bool {
    let version = try reader.readUInt32("\(what) format version")
    guard version == 1 || version == 2 else { throw XDRError(.unknownDiscriminant, "\(what) format version \(version) is not 1 or 2") }
    return version == 2
}

private func writeVersion(sponsor: AccountID?, _ writer: inout XDRWriter) {
    writer.write(sponsor == nil ? entryFormatVersion : UInt32(2))
}

extension ClaimableBalanceEntry: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        try readVersion(&reader, "claimable balance")
        self.init(
            id: try ClaimableBalanceID(xdr: &reader), claimants: try reader.readArray(Claimant.self, maxCount: 10, "claimants"),
            asset: try Asset(xdr: &reader), amount: try reader.readInt64(), clawbackEnabled: try reader.readBool("clawback flag"),
            sponsor: try AccountID(xdr: &reader), lastModifiedLedger: try reader.readUInt32())
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(entryFormatVersion)
        id.encode(to: &writer)
        writer.writeArray(claimants)
        asset.encode(to: &writer)
        writer.write(amount)
        writer.write(clawbackEnabled)
        sponsor.encode(to: &writer)
        writer.write(lastModifiedLedger)
    }
}

extension TrustLineEntry: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        // Version 2 adds the sponsor (optional) and the pool use count.
        let extended = try readSponsoredVersion(&reader, "trustline")
        self.init(accountID: try AccountID(xdr: &reader), asset: try Asset(xdr: &reader), balance: try reader.readInt64(),
                  limit: try reader.readInt64(), flags: try reader.readUInt32(), lastModifiedLedger: 0)
        var rare = TrustLineRareFields()
        rare.buyingLiabilities = try reader.readInt64()
        rare.sellingLiabilities = try reader.readInt64()
        lastModifiedLedger = try reader.readUInt32()
        if extended {
            rare.sponsor = try reader.readOptional(AccountID.self, "sponsor")
            rare.liquidityPoolUseCount = try reader.readInt32("liquidity pool use count")
        }
        rareFields = rare
    }

    public func encode(to writer: inout XDRWriter) {
        let extended = sponsor != nil || liquidityPoolUseCount != 0
        writer.write(extended ? UInt32(2) : entryFormatVersion)
        accountID.encode(to: &writer)
        asset.encode(to: &writer)
        writer.write(balance)
        writer.write(limit)
        writer.write(flags)
        writer.write(buyingLiabilities)
        writer.write(sellingLiabilities)
        writer.write(lastModifiedLedger)
        if extended {
            writer.writeOptional(sponsor)
            writer.write(liquidityPoolUseCount)
        }
    }
}

extension LiquidityPoolEntry: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        try readVersion(&reader, "liquidity pool")
        self.init(
            parameters: try LiquidityPoolParameters(xdr: &reader), reserveA: try reader.readInt64(), reserveB: try reader.readInt64(),
            totalPoolShares: try reader.readInt64(), trustLineCount: try reader.readInt64(), lastModifiedLedger: try reader.readUInt32())
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(entryFormatVersion)
        parameters.encode(to: &writer)
        writer.write(reserveA)
        writer.write(reserveB)
        writer.write(totalPoolShares)
        writer.write(trustLineCount)
        writer.write(lastModifiedLedger)
    }
}

extension PoolShareLine: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        try readVersion(&reader, "pool share trustline")
        self.init(
            accountID: try AccountID(xdr: &reader), poolID: try reader.readBytes32("liquidity pool id"), balance: try reader.readInt64(),
            limit: try reader.readInt64(), sponsor: try reader.readOptional(AccountID.self, "sponsor"), lastModifiedLedger: try reader.readUInt32())
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(entryFormatVersion)
        accountID.encode(to: &writer)
        writer.writeFixedOpaque(poolID.bytes)
        writer.write(balance)
        writer.write(limit)
        writer.writeOptional(sponsor)
        writer.write(lastModifiedLedger)
    }
}

extension DataEntry: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let sponsored = try readSponsoredVersion(&reader, "data entry")
        self.init(accountID: try AccountID(xdr: &reader), name: try reader.readVariableOpaque(maxLength: 64, "name"),
                  value: try reader.readVariableOpaque(maxLength: 64, "value"), lastModifiedLedger: try reader.readUInt32())
        if sponsored { sponsor = try AccountID(xdr: &reader) }
    }

    public func encode(to writer: inout XDRWriter) {
        writeVersion(sponsor: sponsor, &writer)
        accountID.encode(to: &writer)
        writer.writeVariableOpaque(name)
        writer.writeVariableOpaque(value)
        writer.write(lastModifiedLedger)
        sponsor?.encode(to: &writer)
    }
}

extension LedgerOffer: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let sponsored = try readSponsoredVersion(&reader, "offer")
        self.init(try OfferEntry(xdr: &reader), lastModifiedLedger: try reader.readUInt32())
        if sponsored { sponsor = try AccountID(xdr: &reader) }
    }

    public func encode(to writer: inout XDRWriter) {
        writeVersion(sponsor: sponsor, &writer)
        entry.encode(to: &writer)
        writer.write(lastModifiedLedger)
        sponsor?.encode(to: &writer)
    }
}

extension LedgerHeader: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        try readVersion(&reader, "ledger header")
        self.init(
            sequence: try reader.readUInt32(), closeTime: try reader.readUInt64(), baseFee: try reader.readUInt32(),
            baseReserve: try reader.readUInt32(), maxTransactionSetSize: try reader.readUInt32(), totalCoins: try reader.readInt64(),
            feePool: try reader.readInt64(), idPool: try reader.readUInt64(), protocolVersion: try reader.readUInt32())
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(entryFormatVersion)
        writer.write(sequence)
        writer.write(closeTime)
        writer.write(baseFee)
        writer.write(baseReserve)
        writer.write(maxTransactionSetSize)
        writer.write(totalCoins)
        writer.write(feePool)
        writer.write(idPool)
        writer.write(protocolVersion)
    }
}

/// The tables a state is stored in, in the order a loader restores them (pools before their
/// shares; accounts before what they hold).
public enum StoredEntryKind: CaseIterable, Sendable {
    case liquidityPool, poolShare, account, trustLine, offer, data, claimableBalance

    /// The table both stores keep these entries in (column `entry`).
    public var table: String {
        switch self {
        case .liquidityPool: "liquidity_pools"
        case .poolShare: "pool_share_lines"
        case .account: "accounts"
        case .trustLine: "trust_lines"
        case .offer: "offers"
        case .data: "account_data"
        case .claimableBalance: "claimable_balances"
        }
    }
}

extension LedgerState {
    /// Adds one stored entry, in Tender's storage encoding, of the given kind: a store streams its
    /// rows through this instead of holding them all first.
    public mutating func restore(_ kind: StoredEntryKind, xdrBytes bytes: [UInt8]) throws {
        try restore(kind, rows: bytes, ends: [bytes.count])
    }

    /// Adds stored entries of one kind laid end to end in `bytes`, the `n`th ending at `ends[n]`
    /// (start-up's batches: one buffer a batch instead of an array a row, at ten million
    /// accounts fifteen million allocations made on one thread and freed on another).
    ///
    /// Trustlines to one asset share one copy of its code (a bulk network's five million
    /// trustlines are to a few assets), and their count for ``trustedAssets`` is kept for the
    /// batch and filed once, for up to a few assets at a time.
    public mutating func restore(_ kind: StoredEntryKind, rows bytes: [UInt8], ends: [Int]) throws {
        switch kind {
        case .trustLine: try restore(trustLines: bytes, ends: ends)
        case .account: try Self.eachRow(ends) { restore(account: try AccountEntry(xdrBytes: bytes, in: $0)) }
        case .liquidityPool: try Self.eachRow(ends) { restore(liquidityPool: try LiquidityPoolEntry(xdrBytes: bytes, in: $0)) }
        case .poolShare: try Self.eachRow(ends) { restore(poolShare: try PoolShareLine(xdrBytes: bytes, in: $0)) }
        case .offer: try Self.eachRow(ends) { restore(offer: try LedgerOffer(xdrBytes: bytes, in: $0)) }
        case .data: try Self.eachRow(ends) { restore(data: try DataEntry(xdrBytes: bytes, in: $0)) }
        case .claimableBalance: try Self.eachRow(ends) { restore(claimableBalance: try ClaimableBalanceEntry(xdrBytes: bytes, in: $0)) }
        }
    }

    /// Each row's range, from rows laid end to end that end at `ends`.
    static func eachRow(_ ends: [Int], _ body: (Range<Int>) throws -> Void) rethrows {
        var start = 0
        for end in ends {
            try body(start..<end)
            start = end
        }
    }

    /// A state rebuilt from stored entries, with its order book indexed.
    public init(
        header: LedgerHeader, accounts: [AccountEntry], trustLines: [TrustLineEntry], offers: [LedgerOffer], data: [DataEntry],
        claimableBalances: [ClaimableBalanceEntry] = [], liquidityPools: [LiquidityPoolEntry] = [], poolShares: [PoolShareLine] = []
    ) {
        self.init(header: header)
        for pool in liquidityPools { restore(liquidityPool: pool) }
        for line in poolShares { restore(poolShare: line) }
        for account in accounts { restore(account: account) }
        for line in trustLines { restore(trustLine: line) }
        for offer in offers { restore(offer: offer) }
        for item in data { restore(data: item) }
        for balance in claimableBalances { restore(claimableBalance: balance) }
    }
}
