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

/// An account in the ledger.
///
/// What every account uses lives inline; what few use (signers, a home domain, an inflation
/// destination, offers' liabilities, sponsorship) lives out of line in one shared, never-changed
/// object, nil for most accounts: the whole state is held in memory, so an account's size is
/// what ten million of them cost (issue 30).
public struct AccountEntry: Hashable, Sendable {
    public var accountID: AccountID
    /// Stroops of XLM.
    public var balance: Int64
    public var sequenceNumber: Int64
    /// The close time of the last sequence number change (CAP-21).
    public var sequenceTime: UInt64
    private var extras: AccountExtras?
    /// Trustlines, offers, data entries and signers.
    public var numSubEntries: UInt32
    public var flags: UInt32
    public var thresholds: Thresholds
    /// The ledger of the last sequence number change (CAP-21).
    public var sequenceLedger: UInt32
    public var lastModifiedLedger: UInt32

    public init(accountID: AccountID, balance: Int64, sequenceNumber: Int64, lastModifiedLedger: UInt32) {
        self.accountID = accountID
        self.balance = balance
        self.sequenceNumber = sequenceNumber
        self.sequenceTime = 0
        self.extras = nil
        self.numSubEntries = 0
        self.flags = 0
        self.thresholds = Thresholds()
        self.sequenceLedger = 0
        self.lastModifiedLedger = lastModifiedLedger
    }

    /// The out-of-line fields, all at once (decoding sets them together).
    var rareFields: AccountExtras.Fields {
        get { extras?.fields ?? AccountExtras.Fields() }
        set { extras = AccountExtras.make(newValue) }
    }
}

extension AccountEntry {
    public var inflationDestination: AccountID? {
        get { extras?.fields.inflationDestination }
        set { rareFields.inflationDestination = newValue }
    }

    public var homeDomain: [UInt8] {
        get { extras?.fields.homeDomain ?? [] }
        set { rareFields.homeDomain = newValue }
    }

    /// Sorted by key, at most 20.
    public var signers: [Signer] {
        get { extras?.fields.signers ?? [] }
        set { rareFields.signers = newValue }
    }

    /// XLM reserved by this account's offers.
    public var buyingLiabilities: Int64 {
        get { extras?.fields.buyingLiabilities ?? 0 }
        set { rareFields.buyingLiabilities = newValue }
    }

    public var sellingLiabilities: Int64 {
        get { extras?.fields.sellingLiabilities ?? 0 }
        set { rareFields.sellingLiabilities = newValue }
    }

    /// Reserves this account pays for other accounts' entries (CAP-33).
    public var numSponsoring: UInt32 {
        get { extras?.fields.numSponsoring ?? 0 }
        set { rareFields.numSponsoring = newValue }
    }

    /// Reserves others pay for this account's entries (CAP-33).
    public var numSponsored: UInt32 {
        get { extras?.fields.numSponsored ?? 0 }
        set { rareFields.numSponsored = newValue }
    }

    /// Whether another pays its own reserves or any of its signers'.
    public var hasSponsors: Bool {
        guard let fields = extras?.fields else { return false }
        return fields.sponsor != nil || !fields.signerSponsors.isEmpty
    }

    /// The account paying this account's own two reserves, when another does (CAP-33).
    public var sponsor: AccountID? {
        get { extras?.fields.sponsor }
        set { rareFields.sponsor = newValue }
    }

    /// The accounts paying the reserves of some of its signers, by signer.
    public var signerSponsors: [SignerKey: AccountID] {
        get { extras?.fields.signerSponsors ?? [:] }
        set { rareFields.signerSponsors = newValue }
    }
}

/// An account's rarely used fields, never changed once made (a change makes a new one), so an
/// ``AccountEntry`` holding one stays a value; nil in the account when all are at their defaults,
/// so that equal accounts compare equal.
final class AccountExtras: Hashable, Sendable {
    struct Fields: Hashable, Sendable {
        var inflationDestination: AccountID?
        var homeDomain: [UInt8] = []
        var signers: [Signer] = []
        var buyingLiabilities: Int64 = 0
        var sellingLiabilities: Int64 = 0
        var numSponsoring: UInt32 = 0
        var numSponsored: UInt32 = 0
        var sponsor: AccountID?
        var signerSponsors: [SignerKey: AccountID] = [:]

        var isDefault: Bool {
            inflationDestination == nil && homeDomain.isEmpty && signers.isEmpty && buyingLiabilities == 0 && sellingLiabilities == 0
                && numSponsoring == 0 && numSponsored == 0 && sponsor == nil && signerSponsors.isEmpty
        }
    }

    let fields: Fields

    private init(_ fields: Fields) { self.fields = fields }

    static func make(_ fields: Fields) -> AccountExtras? { fields.isDefault ? nil : AccountExtras(fields) }

    static func == (a: AccountExtras, b: AccountExtras) -> Bool { a === b || a.fields == b.fields }

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

/// A trustline: how much of an issued asset an account holds and may hold.
public struct TrustLineEntry: Hashable, Sendable {
    public var accountID: AccountID
    public var asset: Asset
    public var balance: Int64
    public var limit: Int64
    public var flags: UInt32
    public var buyingLiabilities: Int64
    public var sellingLiabilities: Int64
    /// The account paying its reserve, when not its holder (CAP-33).
    public var sponsor: AccountID?
    /// How many of its holder's pool-share trustlines are to pools of this asset (CAP-38): while
    /// any is, it cannot be removed.
    public var liquidityPoolUseCount: Int32
    public var lastModifiedLedger: UInt32

    public init(accountID: AccountID, asset: Asset, balance: Int64, limit: Int64, flags: UInt32, lastModifiedLedger: UInt32) {
        self.accountID = accountID
        self.asset = asset
        self.balance = balance
        self.limit = limit
        self.flags = flags
        self.buyingLiabilities = 0
        self.sellingLiabilities = 0
        self.sponsor = nil
        self.liquidityPoolUseCount = 0
        self.lastModifiedLedger = lastModifiedLedger
    }

    public var key: TrustLineKey { TrustLineKey(accountID, asset) }
    public var isAuthorized: Bool { flags & TrustLineFlags.authorized != 0 }
    public var isAuthorizedToMaintainLiabilities: Bool {
        flags & (TrustLineFlags.authorized | TrustLineFlags.authorizedToMaintainLiabilities) != 0
    }
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
