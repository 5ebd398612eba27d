/// Builds a transaction for Swift callers, in the way the Stellar SDKs do.
///
/// ```swift
/// var builder = TransactionBuilder(source: alice.accountID, currentSequenceNumber: account.sequence)
/// builder.memo = try .text("dinner")
/// builder.setTimeout(30, now: clock.now)
/// builder.add(.payment(PaymentOperation(destination: .ed25519(bob), asset: .native, amount: 10_0000000)))
/// let envelope = try builder.build().signed(by: [alice], on: .standalone)
/// ```
public struct TransactionBuilder: Sendable {
    public var source: MuxedAccount
    /// The source account's sequence number now; the transaction uses the next one.
    public var currentSequenceNumber: Int64
    /// Stroops per operation; at least 100 for the ledger to accept it.
    public var baseFee: UInt32 = 100
    public var memo: Memo = .none
    public var preconditions: Preconditions = .none
    public private(set) var operations: [Operation] = []

    public init(source: MuxedAccount, currentSequenceNumber: Int64) {
        self.source = source
        self.currentSequenceNumber = currentSequenceNumber
    }

    public init(source: AccountID, currentSequenceNumber: Int64) {
        self.init(source: .ed25519(source), currentSequenceNumber: currentSequenceNumber)
    }

    /// Adds an operation, optionally with its own source account.
    public mutating func add(_ body: OperationBody, source: MuxedAccount? = nil) {
        operations.append(Operation(sourceAccount: source, body))
    }

    /// Valid from `minTime` to `maxTime` (seconds since 1970; 0 = unbounded).
    public mutating func setTimeBounds(minTime: UInt64, maxTime: UInt64) {
        preconditions = .time(TimeBounds(minTime: minTime, maxTime: maxTime))
    }

    /// Valid until `seconds` after `now` (seconds since 1970), as the SDKs' `set_timeout` does.
    public mutating func setTimeout(_ seconds: UInt64, now: UInt64) {
        setTimeBounds(minTime: 0, maxTime: now + seconds)
    }

    /// The transaction.
    /// - Throws: ``TransactionBuildError`` when there are no or too many operations, the sequence
    ///   number would overflow, or the fee does not fit in 32 bits.
    public func build() throws(TransactionBuildError) -> Transaction {
        guard !operations.isEmpty else { throw TransactionBuildError("a transaction needs at least one operation") }
        guard operations.count <= TransactionLimits.maxOperations else {
            throw TransactionBuildError("a transaction holds at most 100 operations, not \(operations.count)")
        }
        let (sequence, sequenceOverflow) = currentSequenceNumber.addingReportingOverflow(1)
        guard !sequenceOverflow else { throw TransactionBuildError("the sequence number \(currentSequenceNumber) cannot be incremented") }
        let (fee, feeOverflow) = baseFee.multipliedReportingOverflow(by: UInt32(operations.count))
        guard !feeOverflow else { throw TransactionBuildError("the fee \(baseFee) × \(operations.count) operations does not fit in 32 bits") }
        return Transaction(
            sourceAccount: source, fee: fee, sequenceNumber: sequence, preconditions: preconditions, memo: memo, operations: operations)
    }
}

extension Transaction {
    /// A V1 envelope with the signatures of `signers` on `network`.
    /// Precondition: at most 20 signers, each able to sign.
    public func signed(by signers: [KeyPair], on network: Network) -> TransactionEnvelope {
        var envelope = TransactionEnvelope.v1(self, signatures: [])
        for signer in signers { envelope.sign(with: signer, on: network) }
        return envelope
    }
}

/// Why a transaction could not be built.
public struct TransactionBuildError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
