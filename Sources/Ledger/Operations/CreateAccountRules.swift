import StellarBase

extension CreateAccountOperation {
    /// Checks that need no ledger state (stellar-core's `doCheckValid`).
    func checkValid(source: AccountID) -> CreateAccountResultCode? {
        if startingBalance < 0 || destination == source { return .malformed }
        return nil
    }
}

extension LedgerState {
    mutating func apply(_ op: CreateAccountOperation, source: AccountID) -> CreateAccountResultCode {
        guard accounts[op.destination] == nil else { return .alreadyExists }
        var created = AccountEntry(
            accountID: op.destination, balance: op.startingBalance, sequenceNumber: header.startingSequenceNumber,
            lastModifiedLedger: header.sequence)
        created.sequenceLedger = header.sequence
        guard op.startingBalance >= minimumBalance(created) else { return .lowReserve }
        guard availableBalance(accounts[source]!) >= op.startingBalance else { return .underfunded }
        guard addBalance(.native(source), -op.startingBalance) else { return .underfunded }
        setAccount(created)
        return .success
    }
}
