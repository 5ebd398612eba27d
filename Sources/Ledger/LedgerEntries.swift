import StellarBase

/// Account flags (`AccountFlags` in XDR).
public enum AccountFlags {
    public static let authRequired: UInt32 = 0x1
    public static let authRevocable: UInt32 = 0x2
    public static let authImmutable: UInt32 = 0x4
    public static let authClawbackEnabled: UInt32 = 0x8
    /// Every flag an account may carry.
    public static let mask: UInt32 = 0xF
    /// The flags that control trustline authorization.
    public static let authFlags: UInt32 = authRequired | authRevocable | authClawbackEnabled
}

/// Trustline flags (`TrustLineFlags` in XDR).
public enum TrustLineFlags {
    public static let authorized: UInt32 = 0x1
    public static let authorizedToMaintainLiabilities: UInt32 = 0x2
    public static let clawbackEnabled: UInt32 = 0x4
}

/// Weights of the master key and the three thresholds.
public struct Thresholds: Hashable, Sendable {
    public var masterWeight: UInt8
    public var low: UInt8
    public var medium: UInt8
    public var high: UInt8

    public init(masterWeight: UInt8 = 1, low: UInt8 = 0, medium: UInt8 = 0, high: UInt8 = 0) {
        self.masterWeight = masterWeight
        self.low = low
        self.medium = medium
        self.high = high
    }
}

/// What an operation needs of its source account's signers.
public enum ThresholdLevel: Sendable {
    case low, medium, high
}

/// An account in the ledger: its id and its ``AccountBody``.
///
/// The state keeps accounts in an ``EntryTable`` by id, holding only the body beside the id it is
/// filed under; this value puts them together. The whole state is held in memory, so an
/// account's size is what ten million of them cost (issue 30).
public struct AccountEntry: Hashable, Sendable, KeyedEntry {
    public var accountID: AccountID
    public var body: AccountBody

    public init(accountID: AccountID, balance: Int64, sequenceNumber: Int64, lastModifiedLedger: UInt32) {
        self.accountID = accountID
        body = AccountBody(balance: balance, sequenceNumber: sequenceNumber, lastModifiedLedger: lastModifiedLedger)
    }

    public init(key: AccountID, body: AccountBody) {
        accountID = key
        self.body = body
    }

    public var key: AccountID { accountID }
}

/// What an account holds besides its id. What every account uses lives inline; what few use
/// (signers, a home domain, an inflation destination, offers' liabilities, sponsorship) lives
/// out of line in one shared, never-changed object, nil for most accounts.
public struct AccountBody: Hashable, Sendable {
    /// Stroops of XLM.
    var balance: Int64
    var sequenceNumber: Int64
    var sequenceTime: UInt64
    var rare: OutOfLine<AccountRareFields>?
    var numSubEntries: UInt32
    var flags: UInt32
    var thresholds: Thresholds
    var sequenceLedger: UInt32
    var lastModifiedLedger: UInt32

    init(balance: Int64, sequenceNumber: Int64, lastModifiedLedger: UInt32) {
        self.balance = balance
        self.sequenceNumber = sequenceNumber
        sequenceTime = 0
        rare = nil
        numSubEntries = 0
        flags = 0
        thresholds = Thresholds()
        sequenceLedger = 0
        self.lastModifiedLedger = lastModifiedLedger
    }
}

/// An account's rarely used fields.
struct AccountRareFields: RareFields {
    var inflationDestination: AccountID?
    var homeDomain: [UInt8] = []
    var signers: [Signer] = []
    var buyingLiabilities: Int64 = 0
    var sellingLiabilities: Int64 = 0
    var numSponsoring: UInt32 = 0
    var numSponsored: UInt32 = 0
    var sponsor: AccountID?
    var signerSponsors: [SignerKey: AccountID] = [:]
}

extension AccountEntry {
    /// Stroops of XLM.
    public var balance: Int64 {
        get { body.balance }
        set { body.balance = newValue }
    }

    public var sequenceNumber: Int64 {
        get { body.sequenceNumber }
        set { body.sequenceNumber = newValue }
    }

    /// Trustlines, offers, data entries and signers.
    public var numSubEntries: UInt32 {
        get { body.numSubEntries }
        set { body.numSubEntries = newValue }
    }

    public var flags: UInt32 {
        get { body.flags }
        set { body.flags = newValue }
    }

    public var thresholds: Thresholds {
        get { body.thresholds }
        set { body.thresholds = newValue }
    }

    /// The ledger and close time of the last sequence number change (CAP-21).
    public var sequenceLedger: UInt32 {
        get { body.sequenceLedger }
        set { body.sequenceLedger = newValue }
    }

    public var sequenceTime: UInt64 {
        get { body.sequenceTime }
        set { body.sequenceTime = newValue }
    }

    public var lastModifiedLedger: UInt32 {
        get { body.lastModifiedLedger }
        set { body.lastModifiedLedger = newValue }
    }

    /// The out-of-line fields, all at once (decoding sets them together).
    var rareFields: AccountRareFields {
        get { body.rare?.fields ?? AccountRareFields() }
        set { body.rare = OutOfLine.make(newValue) }
    }

    public var inflationDestination: AccountID? {
        get { body.rare?.fields.inflationDestination }
        set { rareFields.inflationDestination = newValue }
    }

    public var homeDomain: [UInt8] {
        get { body.rare?.fields.homeDomain ?? [] }
        set { rareFields.homeDomain = newValue }
    }

    /// Sorted by key, at most 20.
    public var signers: [Signer] {
        get { body.rare?.fields.signers ?? [] }
        set { rareFields.signers = newValue }
    }

    /// XLM reserved by this account's offers.
    public var buyingLiabilities: Int64 {
        get { body.rare?.fields.buyingLiabilities ?? 0 }
        set { rareFields.buyingLiabilities = newValue }
    }

    public var sellingLiabilities: Int64 {
        get { body.rare?.fields.sellingLiabilities ?? 0 }
        set { rareFields.sellingLiabilities = newValue }
    }

    /// Reserves this account pays for other accounts' entries (CAP-33).
    public var numSponsoring: UInt32 {
        get { body.rare?.fields.numSponsoring ?? 0 }
        set { rareFields.numSponsoring = newValue }
    }

    /// Reserves others pay for this account's entries (CAP-33).
    public var numSponsored: UInt32 {
        get { body.rare?.fields.numSponsored ?? 0 }
        set { rareFields.numSponsored = newValue }
    }

    /// Whether another pays its own reserves or any of its signers'.
    public var hasSponsors: Bool {
        guard let fields = body.rare?.fields else { return false }
        return fields.sponsor != nil || !fields.signerSponsors.isEmpty
    }

    /// The account paying this account's own two reserves, when another does (CAP-33).
    public var sponsor: AccountID? {
        get { body.rare?.fields.sponsor }
        set { rareFields.sponsor = newValue }
    }

    /// The accounts paying the reserves of some of its signers, by signer.
    public var signerSponsors: [SignerKey: AccountID] {
        get { body.rare?.fields.signerSponsors ?? [:] }
        set { rareFields.signerSponsors = newValue }
    }
}

/// Fields an entry keeps out of line because few entries use them: their defaults are what an
/// entry without them has.
protocol RareFields: Hashable, Sendable {
    init()
}

/// An entry's rarely used fields, never changed once made (a change makes a new one), so an
/// entry holding one stays a value; nil in the entry when all are at their defaults, so that
/// equal entries compare equal.
final class OutOfLine<Fields: RareFields>: Hashable, Sendable {
    let fields: Fields

    private init(_ fields: Fields) { self.fields = fields }

    static func make(_ fields: Fields) -> OutOfLine? { fields == Fields() ? nil : OutOfLine(fields) }

    static func == (a: OutOfLine, b: OutOfLine) -> Bool { a === b || a.fields == b.fields }

    func hash(into hasher: inout Hasher) { hasher.combine(fields) }
}

/// Identifies a trustline: the holder and the asset.
public struct TrustLineKey: Hashable, Sendable {
    public var accountID: AccountID
    public var asset: Asset

    public init(_ accountID: AccountID, _ asset: Asset) {
        self.accountID = accountID
        self.asset = asset
    }
}

/// A trustline: how much of an issued asset an account holds and may hold; its key (holder and
/// asset) and its ``TrustLineBody``, kept apart in the state's ``EntryTable`` as accounts are.
public struct TrustLineEntry: Hashable, Sendable, KeyedEntry {
    public var key: TrustLineKey
    public var body: TrustLineBody

    public init(accountID: AccountID, asset: Asset, balance: Int64, limit: Int64, flags: UInt32, lastModifiedLedger: UInt32) {
        key = TrustLineKey(accountID, asset)
        body = TrustLineBody(balance: balance, limit: limit, rare: nil, flags: flags, lastModifiedLedger: lastModifiedLedger)
    }

    public init(key: TrustLineKey, body: TrustLineBody) {
        self.key = key
        self.body = body
    }

    public var accountID: AccountID {
        get { key.accountID }
        set { key.accountID = newValue }
    }

    public var asset: Asset {
        get { key.asset }
        set { key.asset = newValue }
    }

    public var balance: Int64 {
        get { body.balance }
        set { body.balance = newValue }
    }

    public var limit: Int64 {
        get { body.limit }
        set { body.limit = newValue }
    }

    public var flags: UInt32 {
        get { body.flags }
        set { body.flags = newValue }
    }

    public var lastModifiedLedger: UInt32 {
        get { body.lastModifiedLedger }
        set { body.lastModifiedLedger = newValue }
    }

    public var buyingLiabilities: Int64 {
        get { body.rare?.fields.buyingLiabilities ?? 0 }
        set { rareFields.buyingLiabilities = newValue }
    }

    public var sellingLiabilities: Int64 {
        get { body.rare?.fields.sellingLiabilities ?? 0 }
        set { rareFields.sellingLiabilities = newValue }
    }

    /// The account paying its reserve, when not its holder (CAP-33).
    public var sponsor: AccountID? {
        get { body.rare?.fields.sponsor }
        set { rareFields.sponsor = newValue }
    }

    /// How many of its holder's pool-share trustlines are to pools of this asset (CAP-38): while
    /// any is, it cannot be removed.
    public var liquidityPoolUseCount: Int32 {
        get { body.rare?.fields.liquidityPoolUseCount ?? 0 }
        set { rareFields.liquidityPoolUseCount = newValue }
    }

    var rareFields: TrustLineRareFields {
        get { body.rare?.fields ?? TrustLineRareFields() }
        set { body.rare = OutOfLine.make(newValue) }
    }
    public var isAuthorized: Bool { flags & TrustLineFlags.authorized != 0 }
    public var isAuthorizedToMaintainLiabilities: Bool {
        flags & (TrustLineFlags.authorized | TrustLineFlags.authorizedToMaintainLiabilities) != 0
    }
}

/// What a trustline holds besides its key; offers' liabilities, a sponsor and pool uses, which
/// few trustlines have, out of line.
public struct TrustLineBody: Hashable, Sendable {
    var balance: Int64
    var limit: Int64
    var rare: OutOfLine<TrustLineRareFields>?
    var flags: UInt32
    var lastModifiedLedger: UInt32
}

/// A trustline's rarely used fields.
struct TrustLineRareFields: RareFields {
    var buyingLiabilities: Int64 = 0
    var sellingLiabilities: Int64 = 0
    var sponsor: AccountID?
    var liquidityPoolUseCount: Int32 = 0
}

/// Identifies a data entry: the account and the name.
public struct DataKey: Hashable, Sendable {
    public var accountID: AccountID
    public var name: [UInt8]

    public init(_ accountID: AccountID, _ name: [UInt8]) {
        self.accountID = accountID
        self.name = name
    }
}

/// A named value an account keeps in the ledger (ManageData).
public struct DataEntry: Hashable, Sendable {
    public var accountID: AccountID
    public var name: [UInt8]
    public var value: [UInt8]
    /// The account paying its reserve, when not its owner (CAP-33).
    public var sponsor: AccountID?
    public var lastModifiedLedger: UInt32

    public init(accountID: AccountID, name: [UInt8], value: [UInt8], sponsor: AccountID? = nil, lastModifiedLedger: UInt32) {
        self.accountID = accountID
        self.name = name
        self.value = value
        self.sponsor = sponsor
        self.lastModifiedLedger = lastModifiedLedger
    }
}

/// A claimable balance (CAP-23): an amount set aside for its claimants, its reserve paid by its
/// sponsor (the account that created it, one base reserve per claimant).
public struct ClaimableBalanceEntry: Hashable, Sendable {
    public var id: ClaimableBalanceID
    /// Their predicates made absolute when the balance was created.
    public var claimants: [Claimant]
    public var asset: Asset
    public var amount: Int64
    /// Whether its issuer may claw it back (`CLAIMABLE_BALANCE_CLAWBACK_ENABLED_FLAG`).
    public var clawbackEnabled: Bool
    public var sponsor: AccountID
    public var lastModifiedLedger: UInt32

    public init(id: ClaimableBalanceID, claimants: [Claimant], asset: Asset, amount: Int64, clawbackEnabled: Bool, sponsor: AccountID, lastModifiedLedger: UInt32) {
        self.id = id
        self.claimants = claimants
        self.asset = asset
        self.amount = amount
        self.clawbackEnabled = clawbackEnabled
        self.sponsor = sponsor
        self.lastModifiedLedger = lastModifiedLedger
    }
}

/// An offer in the ledger with the ledger that last changed it.
public struct LedgerOffer: Hashable, Sendable {
    public var entry: OfferEntry
    /// The account paying its reserve, when not its seller (CAP-33).
    public var sponsor: AccountID?
    public var lastModifiedLedger: UInt32

    public init(_ entry: OfferEntry, sponsor: AccountID? = nil, lastModifiedLedger: UInt32) {
        self.entry = entry
        self.sponsor = sponsor
        self.lastModifiedLedger = lastModifiedLedger
    }
}

/// The header of a ledger.
public struct LedgerHeader: Hashable, Sendable {
    public var sequence: UInt32
    /// Seconds since 1970.
    public var closeTime: UInt64
    /// Stroops per operation.
    public var baseFee: UInt32
    /// Stroops per reserve unit (0.5 XLM).
    public var baseReserve: UInt32
    /// Transactions per ledger before surge pricing.
    public var maxTransactionSetSize: UInt32
    /// Every stroop of XLM in existence.
    public var totalCoins: Int64
    /// Fees collected and not redistributed.
    public var feePool: Int64
    /// The last offer id handed out.
    public var idPool: UInt64
    public var protocolVersion: UInt32

    public init(
        sequence: UInt32, closeTime: UInt64, baseFee: UInt32 = 100, baseReserve: UInt32 = 5_000_000,
        maxTransactionSetSize: UInt32 = 1000, totalCoins: Int64, feePool: Int64 = 0, idPool: UInt64 = 0,
        protocolVersion: UInt32 = LedgerHeader.currentProtocolVersion
    ) {
        self.sequence = sequence
        self.closeTime = closeTime
        self.baseFee = baseFee
        self.baseReserve = baseReserve
        self.maxTransactionSetSize = maxTransactionSetSize
        self.totalCoins = totalCoins
        self.feePool = feePool
        self.idPool = idPool
        self.protocolVersion = protocolVersion
    }

    /// The protocol whose rules Tender applies.
    public static let currentProtocolVersion: UInt32 = 22

    /// The sequence number a new account gets in the ledger being closed.
    public var startingSequenceNumber: Int64 { Int64(sequence) << 32 }
}
