import StellarBase

extension CreateAccountOperation {
    /// Checks that need no ledger state (stellar-core's `doCheckValid`).
    func checkValid(source: AccountID) -> CreateAccountResultCode? {
        if startingBalance < 0 || destination == source { return .malformed }
        return nil
    }
}

extension LedgerState {
    /// The new account's two reserves are paid by the sponsor of its future reserves when it has
    /// one (then it may start with nothing), otherwise by its starting balance.
    mutating func apply(_ op: CreateAccountOperation, source: AccountID) -> OperationOutcome<CreateAccountResultCode> {
        guard accounts[op.destination] == nil else { return .inner(.alreadyExists) }
        var created = AccountEntry(
            accountID: op.destination, balance: op.startingBalance, sequenceNumber: header.startingSequenceNumber,
            lastModifiedLedger: header.sequence)
        created.sequenceLedger = header.sequence
        if let sponsor = sponsorships[op.destination] {
            if let failure = cannotSponsor(sponsor, 2) { return failure.outcome(lowReserve: .lowReserve) }
            addSponsoring(sponsor, 2)
            created.sponsor = sponsor
            created.numSponsored = 2
        } else if op.startingBalance < minimumBalance(created) {
            return .inner(.lowReserve)
        }
        guard availableBalance(accounts[source]!) >= op.startingBalance else { return .inner(.underfunded) }
        guard addBalance(.native(source), -op.startingBalance) else { return .inner(.underfunded) }
        setAccount(created)
        return .inner(.success)
    }
}
