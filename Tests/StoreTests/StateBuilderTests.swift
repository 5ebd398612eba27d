import Foundation
import Testing
import StellarBase
import Ledger
@testable import Store

/// Start-up reads stored rows on one thread and files them on another (issue 30: ten million
/// accounts load in half the time). The state built must be the one filing them in turn builds.
@Suite("State built while rows are read")
struct StateBuilderTests {
    func id(_ n: Int) -> AccountID {
        var bytes = Array(repeating: UInt8(0), count: 32)
        bytes[0] = UInt8(n >> 8)
        bytes[1] = UInt8(n & 0xff)
        return AccountID(publicKey: Bytes32(bytes))
    }

    /// Accounts, then trustlines, then accounts again: a change of kind ends a batch early.
    func rows() throws -> [(StoredEntryKind, [UInt8])] {
        let issuer = id(9_999)
        let coin = try Asset(code: "COIN", issuer: issuer)
        let usd = try Asset(code: "USD", issuer: issuer)
        var rows: [(StoredEntryKind, [UInt8])] = []
        for n in 0..<200 { rows.append((.account, AccountEntry(accountID: id(n), balance: Int64(n) * 10, sequenceNumber: Int64(n), lastModifiedLedger: 1).xdrBytes)) }
        for n in 0..<100 {
            let line = TrustLineEntry(accountID: id(n), asset: n.isMultiple(of: 2) ? coin : usd, balance: Int64(n), limit: 1_000, flags: TrustLineFlags.authorized, lastModifiedLedger: 1)
            rows.append((.trustLine, line.xdrBytes))
        }
        for n in 200..<251 { rows.append((.account, AccountEntry(accountID: id(n), balance: 1, sequenceNumber: 1, lastModifiedLedger: 1).xdrBytes)) }
        return rows
    }

    @Test(arguments: [(1, 1), (3, 1), (7, 2), (4_096, 4)])
    func theStateBuiltIsTheOneFiledInTurn(batchRows: Int, maxQueued: Int) throws {
        let (genesis, _) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        var inTurn = genesis
        let builder = StateBuilder(genesis, batchRows: batchRows, maxQueued: maxQueued)
        for (kind, bytes) in try rows() {
            try inTurn.restore(kind, xdrBytes: bytes)
            try builder.add(kind, bytes)
        }
        let built = try builder.finish()
        #expect(built.stateHash() == inTurn.stateHash())
        #expect(built.account(id(250))?.balance == 1 && built.account(id(7))?.balance == 70)
        #expect(built.trustLine(id(3), try Asset(code: "USD", issuer: id(9_999)))?.balance == 3)
    }

    /// An entry that does not decode stops the load with its error, whether the reader learns it
    /// while handing over more rows or at the end; nothing waits for ever.
    @Test(arguments: [1, 50])
    func anEntryThatDoesNotDecodeStopsTheLoad(goodRowsAfter: Int) throws {
        let (genesis, _) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        let builder = StateBuilder(genesis, batchRows: 2, maxQueued: 1)
        let good = try rows().prefix(goodRowsAfter)
        #expect(throws: (any Error).self) {
            try builder.add(.account, [0, 0, 0, 1, 2])
            for (kind, bytes) in good { try builder.add(kind, bytes) }
            _ = try builder.finish()
        }
    }
}

extension StateBuilderTests {
    /// Reading that fails part way abandons the builder: its thread ends instead of waiting for
    /// rows (``StateBuilder/finish()`` returns only once the thread has ended), and no state
    /// comes out of it.
    @Test func anAbandonedBuilderEndsItsThread() throws {
        let (genesis, _) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        let builder = StateBuilder(genesis, batchRows: 2, maxQueued: 1)
        for (kind, bytes) in try rows().prefix(5) { try builder.add(kind, bytes) }
        builder.abandon()
        #expect(throws: StateBuilder.Abandoned.self) { try builder.finish() }
    }
}

/// The same from a reader in a task (PostgreSQL's rows, many entries a row): it suspends, not
/// blocks, while the thread is behind, and the state is the same.
extension StateBuilderTests {
    /// `rows` cut into chunks of at most `size` entries of one kind, each laid end to end.
    func chunks(_ rows: [(StoredEntryKind, [UInt8])], size: Int) -> [(StoredEntryKind, [UInt8], [Int])] {
        var chunks: [(StoredEntryKind, [UInt8], [Int])] = []
        for (kind, bytes) in rows {
            if let last = chunks.last, last.0 == kind, last.2.count < size {
                chunks[chunks.count - 1].1 += bytes
                chunks[chunks.count - 1].2.append(chunks[chunks.count - 1].1.count)
            } else {
                chunks.append((kind, bytes, [bytes.count]))
            }
        }
        return chunks
    }

    @Test(arguments: [(1, 1), (3, 1), (7, 2), (4_096, 4)])
    func aReaderInATaskBuildsTheSameState(chunkRows: Int, maxQueued: Int) async throws {
        let (genesis, _) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        var inTurn = genesis
        let builder = StateBuilder(genesis, maxQueued: maxQueued)
        for (kind, bytes) in try rows() { try inTurn.restore(kind, xdrBytes: bytes) }
        let chunks = chunks(try rows(), size: chunkRows)
        #expect(chunks.count == [200, 100, 51].map { ($0 + chunkRows - 1) / chunkRows }.reduce(0, +))
        for (kind, bytes, ends) in chunks {
            try await builder.handOver(kind, rows: bytes, ends: ends)
        }
        // An empty chunk (pages holding no entry) changes nothing.
        try await builder.handOver(.account, rows: [], ends: [])
        let built = try await builder.finished()
        #expect(built.stateHash() == inTurn.stateHash())
        #expect(built.account(id(250))?.balance == 1 && built.account(id(7))?.balance == 70)
    }

    /// Sixteen readers in tasks at once, each with batches of one row and one batch allowed to
    /// wait (so each suspends at nearly every row while its thread files the one before): all
    /// finish, with the same state.
    @Test func manyReadersInTasksAtOnceAllFinish() async throws {
        let (genesis, _) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        let rows = try rows()
        let hashes = try await withThrowingTaskGroup(of: Bytes32.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let builder = StateBuilder(genesis, maxQueued: 1)
                    for (kind, bytes) in rows { try await builder.handOver(kind, rows: bytes, ends: [bytes.count]) }
                    return try await builder.finished().stateHash()
                }
            }
            return try await group.reduce(into: Set<Bytes32>()) { $0.insert($1) }
        }
        #expect(hashes.count == 1)
    }

    /// An entry that does not decode stops a task's load with its error, while it hands over
    /// more rows or at the end.
    @Test(arguments: [1, 50])
    func anEntryThatDoesNotDecodeStopsATasksLoad(goodRowsAfter: Int) async throws {
        let (genesis, _) = try LedgerState.genesisLedger(network: .standalone, closeTime: 1_700_000_000)
        let builder = StateBuilder(genesis, maxQueued: 1)
        let good = try rows().prefix(goodRowsAfter)
        await #expect(throws: (any Error).self) {
            try await builder.handOver(.account, rows: [0, 0, 0, 1, 2], ends: [5])
            for (kind, bytes) in good { try await builder.handOver(kind, rows: bytes, ends: [bytes.count]) }
            _ = try await builder.finished()
        }
    }
}
