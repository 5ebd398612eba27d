import Testing
import StellarBase
@testable import Ledger

/// A ledger in memory with a funded root account; each submission closes its own ledger.
struct TestLedger {
    var state: LedgerState
    let network = Network.standalone
    let root: KeyPair
    var closeTime: UInt64 = 1_700_000_000
    /// What the last closed ledger changed.
    private(set) var lastChanges = LedgerChanges()
    /// The last closed ledger.
    private(set) var lastLedger: ClosedLedger?
    private var nextSeed: UInt8 = 1

    init() {
        state = LedgerState.genesis(network: .standalone, closeTime: 1_700_000_000)
        root = LedgerState.rootKeyPair(network: .standalone)
    }

    static let xlm = Amount.stroopsPerUnit

    /// A new key pair, deterministic per ledger.
    mutating func keyPair() -> KeyPair {
        defer { nextSeed += 1 }
        return try! KeyPair(seed: [nextSeed] + Array(repeating: 7, count: 31))
    }

    func sequence(_ account: KeyPair) -> Int64 { state.account(account.accountID)?.sequenceNumber ?? 0 }
    func balance(_ account: KeyPair) -> Int64? { state.account(account.accountID)?.balance }
    func balance(_ account: KeyPair, _ asset: Asset) -> Int64? { state.trustLine(account.accountID, asset)?.balance }

    /// Submits a transaction of `operations` from `source`, signed by `signers` (default: the
    /// source), in a new ledger.
    @discardableResult
    mutating func submit(
        _ source: KeyPair, _ operations: [Operation], signers: [KeyPair]? = nil, fee: UInt32? = nil,
        sequence: Int64? = nil, preconditions: Preconditions = .none, memo: Memo = .none,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> TransactionApplication {
        let tx = Transaction(
            sourceAccount: .ed25519(source.accountID), fee: fee ?? UInt32(100 * operations.count),
            sequenceNumber: sequence ?? self.sequence(source) + 1, preconditions: preconditions, memo: memo,
            operations: operations)
        return submit(tx.signed(by: signers ?? [source], on: network), sourceLocation: sourceLocation)
    }

    @discardableResult
    mutating func submit(_ envelope: TransactionEnvelope, sourceLocation: SourceLocation = #_sourceLocation) -> TransactionApplication {
        closeTime += 5
        let prepared = PreparedTransaction.prepare(envelope, network: network)
        do {
            let closed = try state.closeLedger([prepared], closeTime: closeTime)
            lastChanges = closed.changes
            lastLedger = closed
            return closed.transactions[0].application
        } catch {
            Issue.record("ledger did not close: \(error)", sourceLocation: sourceLocation)
            return .rejected(TransactionResult(feeCharged: 0, outcome: .code(.internalError)))
        }
    }

    @discardableResult
    mutating func submit(_ source: KeyPair, _ body: OperationBody, signers: [KeyPair]? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> TransactionApplication {
        submit(source, [Operation(body)], signers: signers, sourceLocation: sourceLocation)
    }

    /// A new account funded by root with `balance` XLM.
    mutating func account(_ balance: Int64 = 100, sourceLocation: SourceLocation = #_sourceLocation) -> KeyPair {
        let keyPair = self.keyPair()
        let result = submit(root, .createAccount(CreateAccountOperation(destination: keyPair.accountID, startingBalance: balance * Self.xlm)))
        #expect(result.result.code == .success, sourceLocation: sourceLocation)
        return keyPair
    }

    /// An issuer and its asset `code`.
    mutating func asset(_ code: String, issuer: KeyPair) -> Asset {
        try! Asset(code: code, issuer: issuer.accountID)
    }

    mutating func trust(_ holder: KeyPair, _ asset: Asset, limit: Int64 = .max, sourceLocation: SourceLocation = #_sourceLocation) {
        let result = submit(holder, .changeTrust(ChangeTrustOperation(asset: asset, limit: limit)))
        #expect(result.result.code == .success, sourceLocation: sourceLocation)
    }

    mutating func pay(_ from: KeyPair, _ to: KeyPair, _ asset: Asset, _ amount: Int64, sourceLocation: SourceLocation = #_sourceLocation) {
        let result = submit(from, .payment(PaymentOperation(destination: .ed25519(to.accountID), asset: asset, amount: amount)))
        #expect(result.result.code == .success, "payment failed: \(result.result.outcome.operationResults?.map(\.name) ?? [result.result.code.name])", sourceLocation: sourceLocation)
    }

    mutating func offer(_ seller: KeyPair, selling: Asset, buying: Asset, amount: Int64, price: Price, sourceLocation: SourceLocation = #_sourceLocation) -> Int64? {
        let result = submit(seller, .manageSellOffer(ManageSellOfferOperation(selling: selling, buying: buying, amount: amount, price: price)))
        guard case .inner(.manageSellOffer(.success(_, let effect))) = result.result.outcome.operationResults?.first else {
            Issue.record("offer failed: \(result.result.outcome.operationResults?.map(\.name) ?? [result.result.code.name])", sourceLocation: sourceLocation)
            return nil
        }
        if case .created(let offer) = effect { return offer.offerID }
        return nil
    }
}

/// The Horizon names of a result: the transaction code and each operation's code.
func codes(_ application: TransactionApplication) -> [String] {
    [application.result.code.name] + (application.result.outcome.operationResults?.map(\.name) ?? [])
}
