import Crypto
import Foundation
import Ledger
import LedgerService
import StellarBase

/// The local network's test anchor: issuers of USDC, SRT and EUR whose keys come from a
/// configurable seed, created with a home domain when the network starts, and handing out
/// their assets to accounts that trust them, as friendbot hands out XLM.
public struct TestAnchor: Sendable {
    public struct Currency: Sendable {
        public let code: String
        public let name: String
        public let keyPair: KeyPair
        public var asset: Asset { try! Asset(code: code, issuer: keyPair.accountID) }
    }

    public let currencies: [Currency]
    public let homeDomain: String
    /// SEP-10's signing key (the toml's `SIGNING_KEY`): it signs the challenges.
    public let signingKey: KeyPair
    /// What the test anchor hands out per request, in stroops (1,000 units).
    public static let grant: Int64 = 1_000 * Amount.stroopsPerUnit
    /// The XLM each issuer starts with, for its fees.
    package static let issuerStartingBalance: Int64 = 1_000 * Amount.stroopsPerUnit
    /// The XLM an account made to trust the anchor starts with: reserves for its trustlines.
    package static let trustingStartingBalance: Int64 = 10 * Amount.stroopsPerUnit

    public init(seed: String, homeDomain: String) {
        self.homeDomain = homeDomain
        signingKey = try! KeyPair(seed: Array(SHA256.hash(data: Array("tender test anchor \(seed) SEP-10 signing key".utf8))))
        currencies = [("USDC", "USD Coin (test)"), ("SRT", "Reference token"), ("EUR", "Euro (test)")].map { code, name in
            let digest = SHA256.hash(data: Array("tender test anchor \(seed) \(code)".utf8))
            return Currency(code: code, name: name, keyPair: try! KeyPair(seed: Array(digest)))
        }
    }

    public func currency(code: String) -> Currency? {
        currencies.first { $0.code.caseInsensitiveCompare(code) == .orderedSame }
    }

    /// Creates the issuers that do not exist yet, and the `trusting` accounts that do not (each
    /// with 10 XLM and a trustline to every anchor currency: the gateway's fee account), in one
    /// transaction from the root account, and waits for its ledger.
    /// - Throws: ``LedgerWriterError`` or a description of the failed setup.
    package func install(on writer: LedgerWriter, trusting: [KeyPair] = []) async throws {
        let network = writer.configuration.network
        let root = LedgerState.rootKeyPair(network: network)
        let (missing, missingTrusting, rootSequence, baseFee) = await writer.read { state in
            (currencies.filter { state.account($0.keyPair.accountID) == nil }, trusting.filter { state.account($0.accountID) == nil },
             state.account(root.accountID)?.sequenceNumber, state.header.baseFee)
        }
        guard !missing.isEmpty || !missingTrusting.isEmpty, let rootSequence else { return }
        var operations: [StellarBase.Operation] = []
        for currency in missing {
            operations.append(StellarBase.Operation(.createAccount(CreateAccountOperation(destination: currency.keyPair.accountID, startingBalance: Self.issuerStartingBalance))))
            var options = SetOptionsOperation()
            options.homeDomain = Array(homeDomain.utf8.prefix(32))
            operations.append(StellarBase.Operation(sourceAccount: .ed25519(currency.keyPair.accountID), .setOptions(options)))
        }
        for account in missingTrusting {
            operations.append(StellarBase.Operation(.createAccount(CreateAccountOperation(destination: account.accountID, startingBalance: Self.trustingStartingBalance))))
            for currency in currencies {
                operations.append(StellarBase.Operation(sourceAccount: .ed25519(account.accountID), .changeTrust(ChangeTrustOperation(asset: currency.asset))))
            }
        }
        let transaction = Transaction(
            sourceAccount: .ed25519(root.accountID), fee: baseFee * UInt32(operations.count), sequenceNumber: rootSequence + 1,
            preconditions: .none, memo: .none, operations: operations)
        var envelope = TransactionEnvelope.v1(transaction, signatures: [])
        envelope.sign(with: root, on: network)
        for currency in missing { envelope.sign(with: currency.keyPair, on: network) }
        for account in missingTrusting { envelope.sign(with: account, on: network) }
        let result = try await writer.applyBeforeServing([envelope])[0].result
        guard result.isSuccess else {
            throw FundingError(code: .issuersNotCreated, message: "the test anchor's issuers were not created: \(result.code.name) \(result.outcome.operationResults?.map(\.name) ?? [])")
        }
    }

    /// SEP-1's stellar.toml for the local network and its test anchor, its URLs on `base` (the
    /// host it was fetched from).
    package func stellarToml(network: Network, horizonURL base: String) -> String {
        var lines = [
            "# The local Tender network and its test anchor (SEP-1).",
            "VERSION=\"2.7.0\"",
            "NETWORK_PASSPHRASE=\(tomlString(network.passphrase))",
            "HORIZON_URL=\(tomlString(base))",
            "WEB_AUTH_ENDPOINT=\(tomlString(base + "/auth"))",
            "SIGNING_KEY=\(tomlString(signingKey.accountID.strKey))",
            "KYC_SERVER=\(tomlString(base + "/kyc"))",
            "TRANSFER_SERVER=\(tomlString(base + "/sep6"))",
            "TRANSFER_SERVER_SEP0024=\(tomlString(base + "/sep24"))",
            "ANCHOR_QUOTE_SERVER=\(tomlString(base + "/sep38"))",
            "ACCOUNTS=[\(currencies.map { tomlString($0.keyPair.accountID.strKey) }.joined(separator: ", "))]",
            "",
            "[DOCUMENTATION]",
            "ORG_NAME=\"Tender test anchor\"",
            "ORG_DESCRIPTION=\"Test assets of a local Tender network. Get 1000 of one with GET /friendbot?addr=G...&asset=CODE.\"",
        ]
        for currency in currencies {
            lines += [
                "",
                "[[CURRENCIES]]",
                "code=\(tomlString(currency.code))",
                "issuer=\(tomlString(currency.keyPair.accountID.strKey))",
                "display_decimals=7",
                "name=\(tomlString(currency.name))",
                "desc=\(tomlString("A test asset with no value, handed out by the local network's test anchor."))",
                "status=\"test\"",
            ] + (currency.code == "SRT" ? ["is_asset_anchored=false", "anchor_asset_type=\"other\""] : [
                "is_asset_anchored=true", "anchor_asset_type=\"fiat\"", "anchor_asset=\(tomlString(currency.code == "EUR" ? "EUR" : "USD"))",
            ])
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func tomlString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// Submits transactions from one account of the server's own (the root for friendbot, an
/// issuer for the test anchor): requests that arrive together share consecutive sequence
/// numbers and are queued in order, so many fundings fit in one ledger.
package actor LedgerDesk {
    private struct Request {
        let operations: [StellarBase.Operation]
        let memo: Memo
        let cosigners: [KeyPair]
        let continuation: CheckedContinuation<SubmissionResult, any Error>
    }

    private let writer: LedgerWriter
    private let keyPair: KeyPair
    private var pending: [Request] = []
    private var draining = false

    /// The most fundings waiting for a ledger; past it a request is refused as busy.
    private let maxPending: Int

    package init(writer: LedgerWriter, keyPair: KeyPair, maxPending: Int) {
        self.writer = writer
        self.keyPair = keyPair
        self.maxPending = maxPending
    }

    /// Submits `operation` in a transaction of its own from the desk's account.
    package func submit(_ operation: StellarBase.Operation) async throws -> SubmissionResult {
        try await submit([operation])
    }

    /// Submits `operations` in one transaction of its own from the desk's account, with
    /// `memo`, signed also by `cosigners` (the sources of operations that are not the desk's).
    package func submit(_ operations: [StellarBase.Operation], memo: Memo = .none, cosigners: [KeyPair] = []) async throws -> SubmissionResult {
        precondition((1...100).contains(operations.count), "a transaction has 1 to 100 operations")
        guard pending.count < maxPending else {
            throw FundingError(code: .busy, message: "\(maxPending) fundings are already waiting; try again in a moment")
        }
        return try await withCheckedThrowingContinuation { continuation in
            pending.append(Request(operations: operations, memo: memo, cosigners: cosigners, continuation: continuation))
            if !draining {
                draining = true
                Task { await drain() }
            }
        }
    }

    private func drain() async {
        while !pending.isEmpty {
            let batch = Array(pending.prefix(100))
            pending.removeFirst(batch.count)
            let source = keyPair.accountID
            // The network's base fee, as any client reads it.
            guard let (sequence, fee) = await writer.read({ state in state.account(source).map { ($0.sequenceNumber, state.header.baseFee) } }) else {
                for request in batch {
                    request.continuation.resume(throwing: FundingError(code: .fundingAccountMissing, message: "the funding account \(source.strKey) does not exist"))
                }
                continue
            }
            let network = writer.configuration.network
            let envelopes = batch.enumerated().map { index, request in
                let transaction = Transaction(
                    sourceAccount: .ed25519(source), fee: fee * UInt32(request.operations.count), sequenceNumber: sequence + 1 + Int64(index),
                    preconditions: .none, memo: request.memo, operations: request.operations)
                var envelope = TransactionEnvelope.v1(transaction, signatures: [])
                // Made here: the writer need not verify them again.
                writer.ownSignatures.sign(&envelope, with: keyPair, on: network)
                for cosigner in request.cosigners { writer.ownSignatures.sign(&envelope, with: cosigner, on: network) }
                return envelope
            }
            do {
                let results = try await writer.submitInOrder(envelopes)
                for (request, result) in zip(batch, results) { request.continuation.resume(returning: result) }
            } catch {
                for request in batch { request.continuation.resume(throwing: error) }
            }
        }
        draining = false
    }
}

/// Why friendbot or the test anchor could not fund an account.
package struct FundingError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        case issuersNotCreated = "anchor_issuers_not_created"
        case fundingAccountMissing = "funding_account_missing"
        /// The queue of fundings is full.
        case busy = "funding_busy"
    }

    package let code: Code
    package let message: String
    package var description: String { "\(code.rawValue): \(message)" }
}
