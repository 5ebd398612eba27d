import ArgumentParser
import Foundation
import Ledger
import StellarBase

struct LedgerBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ledger",
        abstract: "Apply pre-verified single-payment transactions in memory, and show how the cost grows.",
        discussion: """
            Signatures are verified before timing starts (in parallel, as the server does), so the \
            figures are the single-threaded apply: validation, fee, sequence, the payment, and each \
            ledger's invariant check. Ledgers hold --batch transactions. Then a mix of XLM and issued \
            payments, new claimable balances and data entries. Then the same measurement \
            with 1,000 to 100,000 accounts, and offer placement and crossing with 100 to 100,000 \
            offers in the book. Durable commits to SQLite are not part of these figures.
            """
    )

    @Option(help: "Transactions per measured run.")
    var transactions = 50_000

    @Option(help: "Transactions per ledger.")
    var batch = 1000

    @Flag(help: "Skip the scaling runs.")
    var quick = false

    func run() throws {
        guard transactions > 0, batch > 0 else { throw CommandFailure("--transactions and --batch must be positive") }
        print("in-memory apply of pre-verified single payments, one core, \(batch) per ledger")
        let main = try measurePayments(accounts: 10_000, count: transactions)
        print(main.line(label: "10,000 accounts"))
        print("target: at least 200,000 per second: \(main.perSecond >= 200_000 ? "met" : "NOT met")")
        let mix = try measureMix(accounts: 10_000, count: transactions)
        print(mix.line(label: "mixed (XLM and issued payments, claimable balances, data entries), 10,000 accounts"))
        guard !quick else { return }
        print("\ncost by number of accounts")
        for accounts in [1_000, 10_000, 100_000] {
            print(try measurePayments(accounts: accounts, count: min(transactions, 20_000)).line(label: "\(accounts) accounts"))
        }
        print("\ncost by number of offers in the book")
        for offers in [100, 1_000, 10_000, 100_000] {
            print(try measureOffers(bookSize: offers))
        }
    }

    struct Figures {
        var perSecond: Double
        var ledgerMillis: [Double]

        func line(label: String) -> String {
            let sorted = ledgerMillis.sorted()
            func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
            return String(format: "%@: %.0f transactions/s; ledger close p50 %.2f ms, p99 %.2f ms", label, perSecond, percentile(0.5), percentile(0.99))
        }
    }

    /// A ledger with `count` funded accounts made directly through transactions from root.
    private func setUp(accounts count: Int) throws -> (LedgerState, [KeyPair]) {
        var state = LedgerState.genesis(network: .standalone, closeTime: 1_700_000_000)
        let root = LedgerState.rootKeyPair(network: .standalone)
        var keys: [KeyPair] = []
        keys.reserveCapacity(count)
        for index in 0..<count {
            var seed = [UInt8](repeating: 0, count: 32)
            withUnsafeBytes(of: UInt64(index + 1).bigEndian) { seed.replaceSubrange(24..<32, with: $0) }
            keys.append(try KeyPair(seed: seed))
        }
        var closeTime: UInt64 = 1_700_000_000
        for chunk in stride(from: 0, to: count, by: 100) {
            let ops = keys[chunk..<min(chunk + 100, count)].map {
                StellarBase.Operation(.createAccount(CreateAccountOperation(destination: $0.accountID, startingBalance: 10_000 * Amount.stroopsPerUnit)))
            }
            let tx = Transaction(sourceAccount: .ed25519(root.accountID), fee: UInt32(100 * ops.count),
                                 sequenceNumber: state.account(root.accountID)!.sequenceNumber + 1, operations: ops)
            closeTime += 1
            _ = try state.closeLedger([PreparedTransaction.prepare(tx.signed(by: [root], on: .standalone), network: .standalone)], closeTime: closeTime)
        }
        return (state, keys)
    }

    private func measurePayments(accounts: Int, count: Int) throws -> Figures {
        var (state, keys) = try setUp(accounts: accounts)
        var sequences = keys.map { state.account($0.accountID)!.sequenceNumber }
        var envelopes: [TransactionEnvelope] = []
        envelopes.reserveCapacity(count)
        var rng = SystemRandomNumberGenerator()
        for index in 0..<count {
            let from = index % keys.count
            let to = Int.random(in: 0..<keys.count, using: &rng)
            sequences[from] += 1
            let tx = Transaction(sourceAccount: .ed25519(keys[from].accountID), fee: 100, sequenceNumber: sequences[from],
                                 operations: [StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(keys[to].accountID), asset: .native, amount: 1)))])
            envelopes.append(tx.signed(by: [keys[from]], on: .standalone))
        }
        return try timeLedgers(envelopes, on: &state, closingAfter: state.header.closeTime, what: "payments")
    }

    /// Applies `envelopes` (verified first, untimed) in ledgers of `batch`, timing each close;
    /// every one must succeed.
    private func timeLedgers(_ envelopes: [TransactionEnvelope], on state: inout LedgerState, closingAfter start: UInt64, what: String) throws -> Figures {
        let prepared = PreparedTransaction.prepareAll(envelopes, network: .standalone)
        var ledgerMillis: [Double] = []
        var closeTime = start
        let clock = ContinuousClock()
        var applied = 0
        let total = try clock.measure {
            for first in stride(from: 0, to: prepared.count, by: batch) {
                closeTime += 1
                let slice = Array(prepared[first..<min(first + batch, prepared.count)])
                var closed: ClosedLedger?
                let elapsed = try clock.measure { closed = try state.closeLedger(slice, closeTime: closeTime) }
                applied += closed!.transactions.filter { $0.application.result.code == .success }.count
                ledgerMillis.append(milliseconds(elapsed))
            }
        }
        guard applied == envelopes.count else { throw CommandFailure("only \(applied) of \(envelopes.count) \(what) applied") }
        return Figures(perSecond: Double(envelopes.count) / (milliseconds(total) / 1000), ledgerMillis: ledgerMillis)
    }

    /// A quarter each of XLM payments, payments of an issued asset (clawback enabled), new
    /// claimable balances and data entries set: the apply loop with operations whose effects
    /// need what they changed.
    private func measureMix(accounts: Int, count: Int) throws -> Figures {
        var (state, keys) = try setUp(accounts: accounts)
        let root = LedgerState.rootKeyPair(network: .standalone)
        let usd = try Asset(code: "USD", issuer: root.accountID)
        var closeTime = state.header.closeTime
        func close(_ envelopes: [TransactionEnvelope]) throws {
            closeTime += 1
            _ = try state.closeLedger(PreparedTransaction.prepareAll(envelopes, network: .standalone), closeTime: closeTime)
        }
        func envelope(_ key: KeyPair, _ ops: [StellarBase.Operation]) -> TransactionEnvelope {
            let tx = Transaction(sourceAccount: .ed25519(key.accountID), fee: UInt32(100 * ops.count),
                                 sequenceNumber: state.account(key.accountID)!.sequenceNumber + 1, operations: ops)
            return tx.signed(by: [key], on: .standalone)
        }
        try close([envelope(root, [StellarBase.Operation(.setOptions(SetOptionsOperation(setFlags: AccountFlags.authRevocable | AccountFlags.authClawbackEnabled)))])])
        for chunk in stride(from: 0, to: keys.count, by: 1_000) {
            try close(keys[chunk..<min(chunk + 1_000, keys.count)].map { envelope($0, [StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: usd)))]) })
        }
        for chunk in stride(from: 0, to: keys.count, by: 100) {
            try close([envelope(root, keys[chunk..<min(chunk + 100, keys.count)].map {
                StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519($0.accountID), asset: usd, amount: 1_000 * Amount.stroopsPerUnit)))
            })])
        }
        var sequences = keys.map { state.account($0.accountID)!.sequenceNumber }
        var envelopes: [TransactionEnvelope] = []
        envelopes.reserveCapacity(count)
        var rng = SystemRandomNumberGenerator()
        for index in 0..<count {
            let from = index % keys.count
            let to = keys[Int.random(in: 0..<keys.count, using: &rng)].accountID
            sequences[from] += 1
            let body: OperationBody
            switch index % 4 {
            case 0: body = .payment(PaymentOperation(destination: .ed25519(to), asset: .native, amount: 1))
            case 1: body = .payment(PaymentOperation(destination: .ed25519(to), asset: usd, amount: 1))
            case 2: body = .createClaimableBalance(CreateClaimableBalanceOperation(asset: .native, amount: 1, claimants: [Claimant(destination: to)]))
            default: body = .manageData(ManageDataOperation(name: Array("mix".utf8), value: [UInt8(truncatingIfNeeded: index)]))
            }
            let tx = Transaction(sourceAccount: .ed25519(keys[from].accountID), fee: 100, sequenceNumber: sequences[from], operations: [StellarBase.Operation(body)])
            envelopes.append(tx.signed(by: [keys[from]], on: .standalone))
        }
        return try timeLedgers(envelopes, on: &state, closingAfter: closeTime, what: "mixed transactions")
    }

    /// Places an offer and crosses one with a path payment, with `bookSize` offers resting.
    private func measureOffers(bookSize: Int) throws -> String {
        let makers = max(1, bookSize / 900)
        var (state, keys) = try setUp(accounts: makers + 1)
        let root = LedgerState.rootKeyPair(network: .standalone)
        let usd = try Asset(code: "USD", issuer: root.accountID)
        var closeTime = state.header.closeTime
        func close(_ envelopes: [TransactionEnvelope]) throws -> ClosedLedger {
            closeTime += 1
            return try state.closeLedger(PreparedTransaction.prepareAll(envelopes, network: .standalone), closeTime: closeTime)
        }
        func envelope(_ key: KeyPair, _ ops: [StellarBase.Operation]) -> TransactionEnvelope {
            let tx = Transaction(sourceAccount: .ed25519(key.accountID), fee: UInt32(100 * ops.count),
                                 sequenceNumber: state.account(key.accountID)!.sequenceNumber + 1, operations: ops)
            return tx.signed(by: [key], on: .standalone)
        }
        _ = try close(keys.map { envelope($0, [StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: usd)))]) })
        for chunk in stride(from: 0, to: keys.count, by: 100) {
            _ = try close([envelope(root, keys[chunk..<min(chunk + 100, keys.count)].map {
                StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519($0.accountID), asset: usd, amount: 1_000_000 * Amount.stroopsPerUnit)))
            })])
        }
        // Offers selling USD for XLM at spread-out prices, 100 per transaction.
        var placed = 0
        while placed < bookSize {
            var batchEnvelopes: [TransactionEnvelope] = []
            for maker in keys.prefix(makers) where placed < bookSize {
                let count = min(100, bookSize - placed)
                let ops = (0..<count).map { index in
                    StellarBase.Operation(.manageSellOffer(ManageSellOfferOperation(
                        selling: usd, buying: .native, amount: Amount.stroopsPerUnit,
                        price: Price(n: Int32(1000 + (placed + index) % 5000), d: 1000))))
                }
                batchEnvelopes.append(envelope(maker, ops))
                placed += count
            }
            _ = try close(batchEnvelopes)
        }
        let taker = keys[makers]
        let clock = ContinuousClock()
        var placeTimes: [Double] = [], crossTimes: [Double] = []
        for round in 0..<50 {
            let place = envelope(taker, [StellarBase.Operation(.manageSellOffer(ManageSellOfferOperation(
                selling: usd, buying: .native, amount: Amount.stroopsPerUnit, price: Price(n: Int32(2000 + round * 37), d: 1000))))])
            let prepared = PreparedTransaction.prepareAll([place], network: .standalone)
            closeTime += 1
            placeTimes.append(milliseconds(try clock.measure { _ = try state.closeLedger(prepared, closeTime: closeTime) }))
            let cross = envelope(taker, [StellarBase.Operation(.pathPaymentStrictSend(PathPaymentStrictSendOperation(
                sendAsset: .native, sendAmount: Amount.stroopsPerUnit / 10, destination: .ed25519(taker.accountID), destAsset: usd, destMin: 1, path: [])))])
            let preparedCross = PreparedTransaction.prepareAll([cross], network: .standalone)
            closeTime += 1
            crossTimes.append(milliseconds(try clock.measure { _ = try state.closeLedger(preparedCross, closeTime: closeTime) }))
        }
        placeTimes.sort()
        crossTimes.sort()
        return String(format: "%6d offers: place an offer p50 %.3f ms, cross with a path payment p50 %.3f ms (one-transaction ledgers)",
                      state.offers.count, placeTimes[placeTimes.count / 2], crossTimes[crossTimes.count / 2])
    }

    private func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
