import Ledger
import StellarBase
import TenderJSON

/// `GET /accounts/{id}`'s answer for a plain account, written as runs of bytes made once for a
/// server address: at ten million accounts nearly every read renders an account anew (issue 30),
/// and the general writer spent most of a miss's rendering on keys, escaping checks of text that
/// never needs escaping, and the links' nine copies of the server's address.
///
/// A plain account is what nearly every account of a large network is: no inflation
/// destination, no home domain, no signer but its master key, no sponsor of its own or of any
/// trustline, no data entries and no pool shares. For any other account ``render(_:address:to:)``
/// declines and the caller writes it with ``HorizonResources/accountBytes(_:address:)``. For a
/// plain one the bytes are exactly those of ``HorizonResources/writeAccount(_:address:to:)``
/// (`AccountAnswerTests` compares the two over random accounts and over a server address that
/// needs escaping).
struct AccountAnswer {
    /// The server's own address the links are below, `http://host:port`.
    let base: String
    /// The links' object with the `_links` key before it, cut where the account's address goes:
    /// `{"_links":{"self":{"href":"BASE/accounts/` before the first copy, each link's tail and the
    /// next link's opening between copies, and the last tail with the `"id"` key's opening after.
    private let linkRuns: [[UInt8]]
    /// The issuer of the last trustline's asset written, and its address (nearly every
    /// trustline on a network is to one of a few assets).
    private var lastIssuer: (id: AccountID, address: [UInt8])?

    init(base: String) {
        self.base = base
        var escapedBase: [UInt8] = []
        JSONValue.appendEscaped(base, to: &escapedBase)
        let below = escapedBase + Array("/accounts/".utf8)
        var runs: [[UInt8]] = []
        var run = Array(#"{"_links":{"#.utf8)
        for (index, link) in HorizonResources.accountLinks.enumerated() {
            if index > 0 { run += Array(",".utf8) }
            run += link.opening + below
            runs.append(run)
            run = link.closing
        }
        run += Array(#"},"id":""#.utf8)
        runs.append(run)
        linkRuns = runs
    }

    /// Whether memory's record of an account has nothing but what ``render(_:address:to:)`` writes.
    static func isPlain(_ record: AccountRecord) -> Bool {
        let account = record.account
        return account.inflationDestination == nil && account.homeDomain.isEmpty && account.signers.isEmpty
            && account.sponsor == nil && record.data.isEmpty && record.poolShares.isEmpty
            && record.trustLines.allSatisfy { $0.sponsor == nil && $0.asset != .native }
    }

    /// Appends the answer for `record` to `out` when the account is plain (see
    /// ``isPlain(_:)``); returns false and leaves `out` as it was otherwise.
    /// - Parameter address: the account's canonical `G...` text (base32 letters and digits only).
    mutating func render(_ record: AccountRecord, address: String, to out: inout [UInt8]) -> Bool {
        guard Self.isPlain(record) else { return false }
        let account = record.account
        assert(address == account.accountID.strKey, "the address given is not the account's")
        var address = address
        address.withUTF8 { id in
            for run in linkRuns.dropLast() {
                out.append(contentsOf: run)
                out.append(contentsOf: id)
            }
            out.append(contentsOf: linkRuns[linkRuns.count - 1])
            out.append(contentsOf: id)
            Self.put(#"","account_id":""#, &out)
            out.append(contentsOf: id)
            Self.put(#"","sequence":""#, &out)
            Self.decimal(account.sequenceNumber, &out)
            Self.put(#"","sequence_ledger":"#, &out)
            Self.decimal(Int64(account.sequenceLedger), &out)
            Self.put(#","sequence_time":""#, &out)
            Self.decimal(account.sequenceTime, &out)
            Self.put(#"","subentry_count":"#, &out)
            Self.decimal(Int64(account.numSubEntries), &out)
            Self.put(#","last_modified_ledger":"#, &out)
            Self.decimal(Int64(account.lastModifiedLedger), &out)
            Self.put(#","thresholds":{"low_threshold":"#, &out)
            Self.decimal(Int64(account.thresholds.low), &out)
            Self.put(#","med_threshold":"#, &out)
            Self.decimal(Int64(account.thresholds.medium), &out)
            Self.put(#","high_threshold":"#, &out)
            Self.decimal(Int64(account.thresholds.high), &out)
            Self.put(#"},"flags":{"auth_required":"#, &out)
            Self.bool(account.flags & AccountFlags.authRequired != 0, &out)
            Self.put(#","auth_revocable":"#, &out)
            Self.bool(account.flags & AccountFlags.authRevocable != 0, &out)
            Self.put(#","auth_immutable":"#, &out)
            Self.bool(account.flags & AccountFlags.authImmutable != 0, &out)
            Self.put(#","auth_clawback_enabled":"#, &out)
            Self.bool(account.flags & AccountFlags.authClawbackEnabled != 0, &out)
            Self.put(#"},"balances":["#, &out)
            let lines = record.trustLines.count < 2 ? record.trustLines : record.trustLines.sorted { $0.asset.description < $1.asset.description }
            for line in lines {
                writeTrustLine(line, to: &out)
                out.append(UInt8(ascii: ","))
            }
            Self.put(#"{"balance":""#, &out)
            Self.amount(account.balance, &out)
            Self.put(#"","buying_liabilities":""#, &out)
            Self.amount(account.buyingLiabilities, &out)
            Self.put(#"","selling_liabilities":""#, &out)
            Self.amount(account.sellingLiabilities, &out)
            Self.put(#"","asset_type":"native"}],"signers":[{"weight":"#, &out)
            Self.decimal(Int64(account.thresholds.masterWeight), &out)
            Self.put(#","key":""#, &out)
            out.append(contentsOf: id)
            Self.put(#"","type":"ed25519_public_key"}],"data":{},"num_sponsoring":"#, &out)
            Self.decimal(Int64(account.numSponsoring), &out)
            Self.put(#","num_sponsored":"#, &out)
            Self.decimal(Int64(account.numSponsored), &out)
            Self.put(#","paging_token":""#, &out)
            out.append(contentsOf: id)
            Self.put(#""}"#, &out)
        }
        return true
    }

    /// A trustline's balance object, as ``HorizonResources/writeAccount(_:address:to:)`` writes
    /// one without a sponsor.
    private mutating func writeTrustLine(_ line: TrustLineEntry, to out: inout [UInt8]) {
        Self.put(#"{"balance":""#, &out)
        Self.amount(line.balance, &out)
        Self.put(#"","limit":""#, &out)
        Self.amount(line.limit, &out)
        Self.put(#"","buying_liabilities":""#, &out)
        Self.amount(line.buyingLiabilities, &out)
        Self.put(#"","selling_liabilities":""#, &out)
        Self.amount(line.sellingLiabilities, &out)
        Self.put(#"","last_modified_ledger":"#, &out)
        Self.decimal(Int64(line.lastModifiedLedger), &out)
        Self.put(#","is_authorized":"#, &out)
        Self.bool(line.isAuthorized, &out)
        Self.put(#","is_authorized_to_maintain_liabilities":"#, &out)
        Self.bool(line.isAuthorizedToMaintainLiabilities, &out)
        Self.put(#","is_clawback_enabled":"#, &out)
        Self.bool(line.flags & TrustLineFlags.clawbackEnabled != 0, &out)
        let code: AssetCode, issuer: AccountID
        switch line.asset {
        case .native:
            preconditionFailure("a plain account's trustline is to an issued asset")
        case .alphanum4(let fourCode, let fourIssuer):
            Self.put(#","asset_type":"credit_alphanum4","asset_code":"#, &out)
            (code, issuer) = (fourCode, fourIssuer)
        case .alphanum12(let twelveCode, let twelveIssuer):
            Self.put(#","asset_type":"credit_alphanum12","asset_code":"#, &out)
            (code, issuer) = (twelveCode, twelveIssuer)
        }
        JSONValue.appendQuoted(code.text, to: &out)
        Self.put(#","asset_issuer":""#, &out)
        if lastIssuer?.id != issuer { lastIssuer = (issuer, Array(issuer.strKey.utf8)) }
        out.append(contentsOf: lastIssuer!.address)
        Self.put(#""}"#, &out)
    }

    private static func put(_ text: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func bool(_ value: Bool, _ out: inout [UInt8]) {
        put(value ? "true" : "false", &out)
    }

    /// `value`'s decimal digits, with a sign when negative.
    private static func decimal(_ value: Int64, _ out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        decimal(value.magnitude, &out)
    }

    private static func decimal(_ value: UInt64, _ out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var (rest, start) = (value, digits.count)
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Stroops as ``Amount/format(_:)`` writes them: the whole units, a point, seven decimals.
    private static func amount(_ stroops: Int64, _ out: inout [UInt8]) {
        if stroops < 0 { out.append(UInt8(ascii: "-")) }
        let (units, fraction) = stroops.magnitude.quotientAndRemainder(dividingBy: 10_000_000)
        decimal(units, &out)
        out.append(UInt8(ascii: "."))
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 7) { digits in
            var rest = fraction
            for index in (0..<7).reversed() {
                digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            out.append(contentsOf: UnsafeBufferPointer(digits))
        }
    }
}
