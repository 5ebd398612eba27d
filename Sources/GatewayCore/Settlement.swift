import Crypto
import Foundation
import Gateway
import Ledger
import LedgerService
import Logging
import StellarBase
import TenderJSON

/// Money on the ledger: captured payments settled to the merchants (less the fee), refunds paid
/// back, payouts and holds from the settlement accounts, the balances.
extension GatewayService {
    // MARK: Settlement

    /// Pays a captured amount to the merchant's settlement account (a marketplace order's: to
    /// its escrow account, whole) from the anchor's issuer of its currency, less the fee, which
    /// goes to the fee account: one ledger transaction, with a memo naming the intent so that the
    /// settlement can be found again. Returns once its ledger has committed.
    package func settle(_ intent: PaymentIntentRecord, amount: Int64, merchant: MerchantRecord, memo memoText: String? = nil, beforeServing: Bool = false) async throws -> String {
        guard let currency = GatewayCurrency.named(intent.currency), let anchorCurrency = anchor.currency(code: currency.assetCode),
              let desk = issuerDesks[anchorCurrency.code], let method = intent.machine.paymentMethodType else {
            throw GatewayError(code: "settlement_impossible", message: "intent \(intent.id) cannot be settled in \(intent.currency)")
        }
        let fee = settlementFee(intent, amount: amount, method: method)
        let merchantAccount = try AccountID(intent.escrowAccount ?? merchant.settlementAccount)
        var operations: [StellarBase.Operation] = []
        for (destination, minor) in [(merchantAccount, amount - fee), (feeAccount.accountID, fee)] where minor > 0 {
            operations.append(StellarBase.Operation(.payment(PaymentOperation(
                destination: .ed25519(destination), asset: anchorCurrency.asset,
                amount: try FiatConversion.stroops(minorUnits: minor, exponent: currency.exponent)))))
        }
        let memo = Memo.hash(Bytes32(Array(SHA256.hash(data: Array((memoText ?? "tender settlement \(intent.id)").utf8)))))
        let result: SubmissionResult
        if beforeServing {
            result = try await applyBeforeServing(operations, from: anchorCurrency.keyPair, memo: memo)
        } else {
            result = try await desk.submit(operations, memo: memo)
        }
        guard case .applied(let stored) = result, stored.result.isSuccess else {
            throw GatewayError(code: "settlement_failed", message: "the settlement of \(intent.id) failed: \(result.result.code.name)")
        }
        logger.info("gateway payment settled", metadata: ["payment.intent.id": "\(intent.id)", "payment.amount": "\(amount)", "payment.fee": "\(fee)", "ledger.sequence": "\(stored.ledger)"])
        return stored.hash.hex
    }

    /// The fee taken when `amount` of `intent` settles: none for a marketplace order's payment
    /// (taken when its escrow releases it), else the schedule's.
    /// The account a settlement of `amount` of `intent` is found in: where its money went, or
    /// the fee account when the fee took all of it.
    package func settlementAccount(_ intent: PaymentIntentRecord, amount: Int64, method: PaymentMethodType, merchant: MerchantRecord) throws -> AccountID {
        settlementFee(intent, amount: amount, method: method) < amount ? try AccountID(intent.escrowAccount ?? merchant.settlementAccount) : feeAccount.accountID
    }

    package func settlementFee(_ intent: PaymentIntentRecord, amount: Int64, method: PaymentMethodType) -> Int64 {
        intent.escrowAccount != nil ? 0 : fees.fee(on: amount, method: method)
    }

    /// Pays `amount` of a refund back from the merchant's settlement account to the issuer of
    /// its currency (which takes the money out of circulation, as the card network's refund
    /// leaves the merchant's balance). Returns once its ledger has committed.
    /// - Throws: ``GatewayFailure`` `balance_insufficient` when the settlement account cannot
    ///   cover it (nothing moved).
    package func payBack(_ refund: RefundRecord, merchant: MerchantRecord, beforeServing: Bool = false) async throws -> String {
        guard let currency = GatewayCurrency.named(refund.currency), let anchorCurrency = anchor.currency(code: currency.assetCode) else {
            throw GatewayError(code: "refund_impossible", message: "refund \(refund.id) cannot be paid in \(refund.currency)")
        }
        let stored = try await payFromSettlement(
            refund.amount, of: currency, to: anchorCurrency.keyPair.accountID, memo: "tender refund \(refund.id)", merchant: merchant,
            parameter: "amount", beforeServing: beforeServing)
        logger.info("gateway refund paid", metadata: ["refund.id": "\(refund.id)", "payment.intent.id": "\(refund.paymentIntent)", "ledger.sequence": "\(stored.ledger)"])
        return stored.hash.hex
    }

    /// Pays `amount` minor units of `currency` from the merchant's settlement account to
    /// `destination`, with a memo hash of `memo`, and returns once its ledger has committed.
    /// - Throws: ``GatewayFailure``: `balance_insufficient` when the account cannot cover it,
    ///   `payout_destination_invalid` when the destination does not exist or does not trust the
    ///   asset (nothing moved either way).
    package func payFromSettlement(_ amount: Int64, of currency: GatewayCurrency, to destination: AccountID, memo: String, merchant: MerchantRecord, parameter: String, beforeServing: Bool = false) async throws -> StoredTransaction {
        guard let anchorCurrency = anchor.currency(code: currency.assetCode) else {
            throw GatewayError(code: "currency_unsettled", message: "\(currency.code) has no ledger asset")
        }
        let operation = StellarBase.Operation(.payment(PaymentOperation(
            destination: .ed25519(destination), asset: anchorCurrency.asset,
            amount: try FiatConversion.stroops(minorUnits: amount, exponent: currency.exponent))))
        let memoHash = Memo.hash(Bytes32(Array(SHA256.hash(data: Array(memo.utf8)))))
        let result: SubmissionResult
        if beforeServing {
            let account = try KeyPair(seed: try secrets.open(merchant.sealedSettlementSeed))
            result = try await applyBeforeServing([operation], from: account, memo: memoHash)
        } else {
            let desk = try await desks.desk(for: merchant.settlementAccount, sealedSeed: merchant.sealedSettlementSeed)
            result = try await desk.submit([operation], memo: memoHash)
        }
        guard case .applied(let stored) = result, stored.result.isSuccess else {
            let codes = result.result.outcome.operationResults?.map(\.name) ?? [result.result.code.name]
            if codes.contains(where: { ["op_no_destination", "op_no_trust", "op_not_authorized", "op_line_full"].contains($0) }) {
                throw GatewayFailure.invalid("destination", "The destination cannot receive \(anchorCurrency.code) (\(codes.joined(separator: ", "))): it must exist and trust \(anchorCurrency.code):\(anchorCurrency.keyPair.accountID.strKey).", code: .payoutDestinationInvalid)
            }
            throw GatewayFailure.invalid(parameter, "The merchant's balance cannot cover this (\(codes.joined(separator: ", "))).", code: .balanceInsufficient)
        }
        return stored
    }

    /// At start-up, before the writer's loop runs (the recovery): `operations` in one transaction
    /// from `source`, at its next sequence number, closed into a ledger directly, as the test
    /// anchor's genesis transaction is.
    package func applyBeforeServing(_ operations: [StellarBase.Operation], from source: KeyPair, memo: Memo) async throws -> SubmissionResult {
        let (sequence, baseFee) = await writer.read { state in (state.account(source.accountID)?.sequenceNumber ?? 0, state.header.baseFee) }
        var envelope = TransactionEnvelope.v1(Transaction(
            sourceAccount: .ed25519(source.accountID), fee: baseFee * UInt32(operations.count), sequenceNumber: sequence + 1,
            preconditions: .none, memo: memo, operations: operations), signatures: [])
        envelope.sign(with: source, on: writer.configuration.network)
        return try await writer.applyBeforeServing([envelope])[0]
    }

    /// The merchant's settlement balances on the ledger, in minor units per currency.
    package func balances(_ merchant: MerchantRecord) async throws -> [(GatewayCurrency, Int64)] {
        try await balances(ofAccount: merchant.settlementAccount)
    }

    /// An account's balances of the anchor's currencies on the ledger, in minor units.
    package func balances(ofAccount address: String) async throws -> [(GatewayCurrency, Int64)] {
        let account = try AccountID(address)
        let assets = GatewayCurrency.supported.compactMap { currency in anchor.currency(code: currency.assetCode).map { (currency, $0.asset) } }
        return await writer.read { state in
            assets.map { currency, asset in
                let stroops = state.trustLine(account, asset)?.balance ?? 0
                // Settlements and refunds move whole minor units, so the division is exact.
                return (currency, stroops / (FiatConversion.stroopsPerUnit / Int64(pow(10, Double(currency.exponent)))))
            }
        }
    }
}
