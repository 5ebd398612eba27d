import Foundation
import Logging
import Testing
import StellarBase
import Ledger
import LedgerService
import Store

@Suite("The ledger writer: queue, close, commit")
struct LedgerWriterTests {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tender-writer-\(UUID().uuidString).sqlite").path
    let root = LedgerState.rootKeyPair(network: .standalone)

    func writer(closeInterval: Duration = .zero) async throws -> LedgerWriter {
        try await LedgerWriter(
            store: SQLiteLedgerStore(path: path), configuration: .init(network: .standalone, closeInterval: closeInterval),
            logger: Logger(label: "test"), now: { UInt64(Date().timeIntervalSince1970) })
    }

    func createAccounts(_ count: Int, sequence: Int64) -> ([KeyPair], TransactionEnvelope) {
        let keys = (0..<count).map { try! KeyPair(seed: [UInt8(($0 + 1) & 0xff), UInt8($0 >> 8)] + Array(repeating: 3, count: 30)) }
        let ops = keys.map { StellarBase.Operation(.createAccount(CreateAccountOperation(destination: $0.accountID, startingBalance: 100 * Amount.stroopsPerUnit))) }
        let tx = Transaction(sourceAccount: .ed25519(root.accountID), fee: UInt32(100 * count), sequenceNumber: sequence + 1, operations: ops)
        return (keys, tx.signed(by: [root], on: .standalone))
    }

    @Test func submissionsAreDurableAndAnsweredOnce() async throws {
        let writer = try await writer()
        let rootSequence = await writer.read { $0.account(LedgerState.rootKeyPair(network: .standalone).accountID)!.sequenceNumber }
        let (keys, create) = createAccounts(50, sequence: rootSequence)
        guard case .applied(let stored) = try await writer.submit(create) else { Issue.record("not applied"); return }
        #expect(stored.result.code == .success)
        // The same envelope again: the stored answer, not a second application.
        guard case .applied(let again) = try await writer.submit(create) else { Issue.record("resubmission not answered from history"); return }
        #expect(again == stored)

        // Fifty payments submitted at once share a few ledgers (group commit).
        let payments = keys.map { key in
            Transaction(sourceAccount: .ed25519(key.accountID), fee: 100, sequenceNumber: Int64(stored.ledger) << 32 + 1,
                        operations: [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(root.accountID), asset: .native, amount: Amount.stroopsPerUnit)))])
                .signed(by: [key], on: .standalone)
        }
        let results = try await withThrowingTaskGroup(of: SubmissionResult.self) { group in
            for payment in payments { group.addTask { try await writer.submit(payment) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var ledgers: Set<UInt32> = []
        for result in results {
            guard case .applied(let stored) = result else { Issue.record("payment not applied: \(result.result.code)"); continue }
            #expect(stored.result.code == .success)
            ledgers.insert(stored.ledger)
        }
        #expect(ledgers.count < 50)

        // A bad sequence number is refused and changes nothing.
        guard case .rejected(let rejected) = try await writer.submit(payments[0]) else {
            // The first payment is in history: resubmitting it returns the stored result.
            let hash = PreparedTransaction.prepare(payments[0], network: .standalone).hash
            #expect(try await SQLiteLedgerStore(path: path).transaction(hash: hash) != nil)
            return
        }
        Issue.record("a resubmitted payment was \(rejected.code) instead of its stored result")
    }

    @Test func aRestartedWriterHasTheCommittedState() async throws {
        let first = try await writer()
        let rootSequence = await first.read { $0.account(LedgerState.rootKeyPair(network: .standalone).accountID)!.sequenceNumber }
        let (_, create) = createAccounts(10, sequence: rootSequence)
        _ = try await first.submit(create)
        let hash = await first.read { $0.stateHash() }
        let header = await first.header
        let second = try await writer()
        #expect(await second.read { $0.stateHash() } == hash)
        #expect(await second.header == header)
    }

    @Test func refusedTransactionsAreAnsweredAtOnce() async throws {
        let writer = try await writer()
        let stranger = try KeyPair(seed: Array(repeating: 42, count: 32))
        let tx = Transaction(sourceAccount: .ed25519(stranger.accountID), fee: 100, sequenceNumber: 1,
                             operations: [StellarBase.Operation(.bumpSequence(bumpTo: 0))])
        guard case .rejected(let result) = try await writer.submit(tx.signed(by: [stranger], on: .standalone)) else {
            Issue.record("applied")
            return
        }
        #expect(result.code == .noAccount)
        #expect(result.feeCharged == 0)
    }

    @Test func timerModeClosesLedgersOnItsOwn() async throws {
        let writer = try await writer(closeInterval: .milliseconds(50))
        let start = await writer.header.sequence
        let task = Task { try await writer.run() }
        // Wait (boundedly) for three ledgers that nobody asked for; a busy machine may be slow.
        let deadline = ContinuousClock.now + .seconds(30)
        while await writer.header.sequence < start + 3, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        task.cancel()
        _ = try? await task.value
        #expect(await writer.header.sequence >= start + 3)
    }
}
