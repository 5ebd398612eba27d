import Testing
import StellarBase
@testable import Ledger

/// Start-up files stored entries a batch at a time, laid end to end in one buffer (issue 30: at
/// ten million accounts an array a row was fifteen million allocations). A batch must build the
/// state filing its rows one by one builds, with the same trustlines per asset.
@Suite("Stored entries restored a batch at a time")
struct RestoreBatchTests {
    func id(_ n: Int) -> AccountID {
        var bytes = Array(repeating: UInt8(0), count: 32)
        bytes[0] = UInt8(n >> 8)
        bytes[1] = UInt8(n & 0xff)
        bytes[31] = 7
        return AccountID(publicKey: Bytes32(bytes))
    }

    /// `rows` end to end and where each ends.
    func batch(_ rows: [[UInt8]]) -> (bytes: [UInt8], ends: [Int]) {
        var bytes: [UInt8] = [], ends: [Int] = []
        for row in rows {
            bytes += row
            ends.append(bytes.count)
        }
        return (bytes, ends)
    }

    /// Trustlines to `assets` issued assets in a random order, some of them the same key twice
    /// (the later one replaces the earlier, and counts once), accounts with thresholds of every
    /// byte position set.
    @Test(arguments: [1, 3, 8, 9, 20])
    func aBatchBuildsTheStateRowByRowBuilds(assets: Int) throws {
        var random = SystemRandomNumberGenerator()
        let issuers = (0..<assets).map { id(5_000 + $0) }
        let coins = try issuers.enumerated().map { index, issuer in
            try Asset(code: index.isMultiple(of: 2) ? "C\(index)" : "LONGCODE\(index)", issuer: issuer)
        }
        var accounts: [[UInt8]] = []
        for n in 0..<300 {
            var account = AccountEntry(accountID: id(n), balance: Int64(n) * 10_000_000, sequenceNumber: Int64(n) << 32, lastModifiedLedger: 3)
            account.thresholds = Thresholds(masterWeight: UInt8(n % 256), low: UInt8((n * 3) % 256), medium: UInt8((n * 7) % 256), high: 255)
            account.numSubEntries = 2
            accounts.append(account.xdrBytes)
        }
        var lines: [[UInt8]] = []
        for n in 0..<300 {
            for _ in 0..<2 {
                let asset = coins[Int.random(in: 0..<coins.count, using: &random)]
                lines.append(TrustLineEntry(accountID: id(n), asset: asset, balance: Int64(n), limit: 1_000_000, flags: TrustLineFlags.authorized, lastModifiedLedger: 3).xdrBytes)
            }
        }
        lines.shuffle(using: &random)
        let (genesis, _) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        var oneByOne = genesis
        for row in accounts { try oneByOne.restore(.account, xdrBytes: row) }
        for row in lines { try oneByOne.restore(.trustLine, xdrBytes: row) }
        var batched = genesis
        // Batches of uneven sizes, the way a table's rows end in a short last batch.
        for rows in [accounts[..<7], accounts[7..<250], accounts[250...]] {
            let (bytes, ends) = batch(Array(rows))
            try batched.restore(.account, rows: bytes, ends: ends)
        }
        for rows in [lines[..<1], lines[1..<400], lines[400...]] {
            let (bytes, ends) = batch(Array(rows))
            try batched.restore(.trustLine, rows: bytes, ends: ends)
        }
        #expect(batched.stateHash() == oneByOne.stateHash())
        #expect(batched.trustedAssets == oneByOne.trustedAssets)
        #expect(batched.trustedAssets.values.reduce(0, +) == batched.trustLines.count)
        #expect(batched.account(id(299))?.thresholds == Thresholds(masterWeight: 43, low: 129, medium: 45, high: 255))
        for line in batched.trustLines.values {
            #expect(oneByOne.trustLine(line.accountID, line.asset) == line)
        }
    }

    /// A batch's trustlines to one asset hold one copy of its code, not one a line.
    @Test func trustlinesToOneAssetShareItsCode() throws {
        let coin = try Asset(code: "SHARED", issuer: id(9_000))
        let rows = (0..<50).map { TrustLineEntry(accountID: id($0), asset: coin, balance: 1, limit: 10, flags: 1, lastModifiedLedger: 2).xdrBytes }
        let (genesis, _) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        var state = genesis
        let (bytes, ends) = batch(rows)
        try state.restore(.trustLine, rows: bytes, ends: ends)
        let storages = Set(state.trustLines.values.map { line in
            line.asset.code!.raw.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
        })
        #expect(state.trustLines.count == 50 && storages.count == 1)
    }

    /// A row that does not decode stops the batch with its error, and the count per asset still
    /// matches the trustlines filed before it.
    @Test func aRowThatDoesNotDecodeStopsTheBatch() throws {
        let coin = try Asset(code: "COIN", issuer: id(9_000))
        var rows = (0..<5).map { TrustLineEntry(accountID: id($0), asset: coin, balance: 1, limit: 10, flags: 1, lastModifiedLedger: 2).xdrBytes }
        rows.insert([0, 0, 0, 1, 9], at: 3)
        let (genesis, _) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        var state = genesis
        let (bytes, ends) = batch(rows)
        #expect(throws: XDRError.self) { try state.restore(.trustLine, rows: bytes, ends: ends) }
        #expect(state.trustLines.count == 3 && state.trustedAssets[coin] == 3)
        // A row with bytes left over inside its range is refused, as a whole buffer's would be.
        var accountRow = AccountEntry(accountID: id(1), balance: 1, sequenceNumber: 1, lastModifiedLedger: 1).xdrBytes
        accountRow += [0, 0, 0, 0]
        let (more, moreEnds) = batch([accountRow])
        #expect(throws: XDRError.self) { try state.restore(.account, rows: more, ends: moreEnds) }
    }
}
