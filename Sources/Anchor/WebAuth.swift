import Foundation
import StellarBase

/// Why a SEP-10 challenge was refused, with a stable code for each rule.
public struct WebAuthError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// Not a base64 transaction envelope of the kind a challenge is (a V1 envelope).
        case malformed = "challenge_malformed"
        case invalidSourceAccount = "invalid_source_account"
        case invalidSequence = "invalid_sequence"
        /// Time bounds missing, or the challenge is past them.
        case expired = "challenge_expired"
        case notYetValid = "challenge_not_yet_valid"
        case invalidOperation = "invalid_operation"
        case invalidHomeDomain = "invalid_home_domain"
        case invalidWebAuthDomain = "invalid_web_auth_domain"
        case invalidMemo = "invalid_memo"
        /// Signed for another network than this server's.
        case wrongNetwork = "wrong_network"
        case notSignedByServer = "not_signed_by_server"
        case notSignedByClient = "not_signed_by_client"
        case notSignedByClientDomain = "not_signed_by_client_domain"
        /// The client's signers do not reach the account's medium threshold.
        case insufficientWeight = "insufficient_weight"
        /// One signer's signature appears more than once.
        case duplicateSignature = "duplicate_signature"
        /// A signature by nobody the challenge names or the account lists.
        case unrecognizedSignature = "unrecognized_signature"
        /// The challenge was already exchanged for a token.
        case alreadyUsed = "challenge_already_used"
        /// A request for a challenge the server cannot make (bad account, memo, domain).
        case invalidRequest = "invalid_request"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// The client's account as the ledger holds it, for weighing a challenge's signatures: its
/// master key's weight, its other ed25519 signers and its medium threshold.
public struct WebAuthAccount: Sendable, Equatable {
    public var masterWeight: UInt8
    public var signers: [Bytes32: UInt8]
    public var mediumThreshold: UInt8

    public init(masterWeight: UInt8, signers: [Bytes32: UInt8], mediumThreshold: UInt8) {
        self.masterWeight = masterWeight
        self.signers = signers
        self.mediumThreshold = mediumThreshold
    }
}

/// A SEP-10 challenge as the server reads it back: who it is for and what it names.
public struct WebAuthChallenge: Sendable, Equatable {
    public let envelope: TransactionEnvelope
    /// The transaction's hash on the server's network: the token's `jti`.
    public let hash: Bytes32
    public let client: MuxedAccount
    public let memo: UInt64?
    public let homeDomain: String
    public let clientDomain: String?
    public let clientDomainKey: AccountID?
    public let timeBounds: TimeBounds

    /// The token's `sub`: `G...`, `M...`, or `G...:memo`.
    public var subject: String {
        switch client {
        case .muxed: client.description
        case .ed25519(let id): memo.map { "\(id.strKey):\($0)" } ?? id.strKey
        }
    }
}

/// SEP-10's challenge transactions: made by the server, read back with every rule the SEP sets,
/// and their signatures weighed against the client's account. Pure: time, randomness and the
/// account are given.
public enum WebAuth {
    /// A challenge's lifetime, as SEP-10 recommends: 15 minutes.
    public static let lifetime: UInt64 = 900
    /// The random bytes of a nonce (64 once base64-encoded).
    public static let nonceLength = 48
    public static let webAuthDomainKey = "web_auth_domain"
    public static let clientDomainKey = "client_domain"

    /// The challenge for `client`: the server's key as source with sequence 0, time bounds
    /// `now...now + lifetime`, a ManageData `<home domain> auth` from the client with the nonce
    /// (base64), `web_auth_domain` (and `client_domain` from its key) as further ManageData
    /// operations, the memo if given; signed by the server.
    /// - Throws: ``WebAuthError`` (`invalid_request`) for a memo with a muxed account, a nonce
    ///   of another length or a domain too long for a data entry.
    public static func challenge(
        server: KeyPair, client: MuxedAccount, memo: UInt64?, homeDomain: String, webAuthDomain: String,
        clientDomain: (domain: String, key: AccountID)?, nonce: [UInt8], now: UInt64, network: Network
    ) throws(WebAuthError) -> TransactionEnvelope {
        guard nonce.count == nonceLength else { throw WebAuthError(.invalidRequest, "a nonce is \(nonceLength) random bytes") }
        if memo != nil, case .muxed = client { throw WebAuthError(.invalidRequest, "memo cannot be used with a muxed account (M...)") }
        let name = Array("\(homeDomain) auth".utf8)
        guard !homeDomain.isEmpty, name.count <= 64 else { throw WebAuthError(.invalidRequest, "home_domain must be 1 to 59 bytes") }
        guard (1...64).contains(webAuthDomain.utf8.count) else { throw WebAuthError(.invalidRequest, "the web auth domain must be 1 to 64 bytes") }
        var operations = [
            Operation(sourceAccount: client, .manageData(ManageDataOperation(name: name, value: Array(Base64.encode(nonce).utf8)))),
            Operation(sourceAccount: .ed25519(server.accountID), .manageData(ManageDataOperation(name: Array(webAuthDomainKey.utf8), value: Array(webAuthDomain.utf8)))),
        ]
        if let clientDomain {
            guard (1...64).contains(clientDomain.domain.utf8.count) else { throw WebAuthError(.invalidRequest, "client_domain must be 1 to 64 bytes") }
            operations.append(Operation(sourceAccount: .ed25519(clientDomain.key),
                                        .manageData(ManageDataOperation(name: Array(clientDomainKey.utf8), value: Array(clientDomain.domain.utf8)))))
        }
        let transaction = Transaction(
            sourceAccount: .ed25519(server.accountID), fee: 100 * UInt32(operations.count), sequenceNumber: 0,
            preconditions: .time(TimeBounds(minTime: now, maxTime: now + lifetime)), memo: memo.map(Memo.id) ?? .none, operations: operations)
        var envelope = TransactionEnvelope.v1(transaction, signatures: [])
        envelope.sign(with: server, on: network)
        return envelope
    }

    /// Reads a challenge back and checks every rule of its shape: source and sequence, time
    /// bounds around `now`, the first operation a `<home domain> auth` ManageData from the client
    /// with a 64-byte nonce, the others ManageData from the server (with `web_auth_domain`
    /// equal to `webAuthDomain`) or `client_domain` from the client domain's key, an id memo or
    /// none (and none with a muxed account). Signatures are weighed by ``verifySignatures``.
    public static func read(
        _ text: String, server: AccountID, homeDomains: Set<String>, webAuthDomain: String, now: UInt64, network: Network
    ) throws(WebAuthError) -> WebAuthChallenge {
        guard let envelope = try? TransactionEnvelope(xdrBase64: text) else {
            throw WebAuthError(.malformed, "transaction is not a base64 XDR transaction envelope")
        }
        guard case .v1(let transaction, _) = envelope else {
            throw WebAuthError(.malformed, "a challenge is a version 1 transaction envelope, not a fee bump or version 0 one")
        }
        guard transaction.sourceAccount == .ed25519(server) else {
            throw WebAuthError(.invalidSourceAccount, "the challenge's source account is not the server's signing key \(server.strKey)")
        }
        guard transaction.sequenceNumber == 0 else { throw WebAuthError(.invalidSequence, "a challenge's sequence number is 0") }
        guard let bounds = transaction.preconditions.timeBounds, bounds.maxTime != 0 else {
            throw WebAuthError(.expired, "a challenge has time bounds with an end")
        }
        guard now >= bounds.minTime else { throw WebAuthError(.notYetValid, "the challenge is not valid before \(bounds.minTime)") }
        guard now <= bounds.maxTime else { throw WebAuthError(.expired, "the challenge expired at \(bounds.maxTime); ask for a new one") }
        guard let first = transaction.operations.first, case .manageData(let auth) = first.body, let client = first.sourceAccount else {
            throw WebAuthError(.invalidOperation, "a challenge's first operation is a ManageData from the client's account")
        }
        let name = String(decoding: auth.name, as: UTF8.self)
        guard name.hasSuffix(" auth"), homeDomains.contains(String(name.dropLast(5))) else {
            throw WebAuthError(.invalidHomeDomain, "the challenge is for \"\(name)\", not one of this server's home domains (\(homeDomains.sorted().joined(separator: ", ")))")
        }
        guard let value = auth.value, value.count == 64, Base64.decode(String(decoding: value, as: UTF8.self))?.count == nonceLength else {
            throw WebAuthError(.invalidOperation, "the challenge's nonce is 48 random bytes, base64-encoded")
        }
        var clientDomain: String?
        var domainSigner: AccountID?
        var sawWebAuthDomain = false
        for operation in transaction.operations.dropFirst() {
            guard case .manageData(let data) = operation.body, let source = operation.sourceAccount else {
                throw WebAuthError(.invalidOperation, "a challenge holds only ManageData operations with a source account")
            }
            let key = String(decoding: data.name, as: UTF8.self)
            if key == Self.clientDomainKey, case .ed25519(let domainKey) = source, clientDomain == nil {
                clientDomain = String(decoding: data.value ?? [], as: UTF8.self)
                domainSigner = domainKey
                continue
            }
            guard source == .ed25519(server) else {
                throw WebAuthError(.invalidOperation, "the challenge's operation \"\(key)\" is not from the server's account")
            }
            if key == webAuthDomainKey {
                guard data.value.map({ String(decoding: $0, as: UTF8.self) }) == webAuthDomain else {
                    throw WebAuthError(.invalidWebAuthDomain, "the challenge's web_auth_domain is not \(webAuthDomain), this endpoint's")
                }
                sawWebAuthDomain = true
            }
        }
        guard sawWebAuthDomain else { throw WebAuthError(.invalidWebAuthDomain, "the challenge has no web_auth_domain operation") }
        var memo: UInt64?
        switch transaction.memo {
        case .none: break
        case .id(let id):
            if case .muxed = client { throw WebAuthError(.invalidMemo, "a challenge for a muxed account has no memo") }
            memo = id
        default: throw WebAuthError(.invalidMemo, "a challenge's memo is an id memo or none")
        }
        return WebAuthChallenge(
            envelope: envelope, hash: envelope.hash(on: network), client: client, memo: memo, homeDomain: String(name.dropLast(5)),
            clientDomain: clientDomain, clientDomainKey: domainSigner, timeBounds: bounds)
    }

    /// The networks a signature for the wrong one is looked for on, to say so.
    static let knownNetworks: [Network] = [.publicNetwork, .testnet, Network(passphrase: "Test SDF Future Network ; October 2022"), .standalone]

    /// Weighs the challenge's signatures: the server's and (with a client domain) its key's
    /// must be there; every other one must be by a different signer of the client's account
    /// (its master key if the account does not exist), together reaching the account's medium
    /// threshold. Returns the client's signers that signed.
    public static func verifySignatures(
        _ challenge: WebAuthChallenge, server: AccountID, account: WebAuthAccount?, network: Network
    ) throws(WebAuthError) -> [AccountID] {
        let envelope = challenge.envelope
        var remaining = envelope.signatures
        func verifies(_ signature: DecoratedSignature, _ key: AccountID, on network: Network) -> Bool {
            envelope.isSignature(signature, validFor: KeyPair(accountID: key), on: network)
        }
        /// A signature that verifies for `key` on another network than this one.
        func wrongNetwork(_ signature: DecoratedSignature, _ keys: [AccountID]) -> Network? {
            knownNetworks.first { other in other.networkID != network.networkID && keys.contains { verifies(signature, $0, on: other) } }
        }
        func take(_ key: AccountID) -> Bool {
            guard let index = remaining.firstIndex(where: { verifies($0, key, on: network) }) else { return false }
            remaining.remove(at: index)
            return true
        }
        guard take(server) else {
            if let other = remaining.lazy.compactMap({ wrongNetwork($0, [server]) }).first {
                throw WebAuthError(.wrongNetwork, "the challenge was signed for \"\(other.passphrase)\", not this network's \"\(network.passphrase)\"")
            }
            throw WebAuthError(.notSignedByServer, "the challenge is not signed by the server's key \(server.strKey)")
        }
        if let domainKey = challenge.clientDomainKey, !take(domainKey) {
            throw WebAuthError(.notSignedByClientDomain, "the challenge is not signed by \(challenge.clientDomain ?? "the client domain")'s key \(domainKey.strKey)")
        }
        let clientID = challenge.client.accountID
        var weights: [AccountID: Int] = [:]
        if let account {
            if account.masterWeight > 0 { weights[clientID] = Int(account.masterWeight) }
            for (key, weight) in account.signers where weight > 0 { weights[AccountID(publicKey: key), default: 0] += Int(weight) }
        } else {
            weights[clientID] = 1
        }
        var signed: [AccountID] = []
        for signature in remaining {
            guard let signer = weights.keys.first(where: { signature.hint == KeyPair(accountID: $0).hint && verifies(signature, $0, on: network) }) else {
                if let other = wrongNetwork(signature, Array(weights.keys) + [clientID]) {
                    throw WebAuthError(.wrongNetwork, "the challenge was signed for \"\(other.passphrase)\", not this network's \"\(network.passphrase)\"")
                }
                throw WebAuthError(.unrecognizedSignature, "the challenge carries a signature by a key that is not a signer of \(clientID.strKey)")
            }
            guard !signed.contains(signer) else {
                throw WebAuthError(.duplicateSignature, "\(signer.strKey) signed the challenge more than once; each signer counts once")
            }
            signed.append(signer)
        }
        guard !signed.isEmpty else { throw WebAuthError(.notSignedByClient, "the challenge is not signed by \(clientID.strKey) or its signers") }
        if let account {
            let weight = signed.reduce(0) { $0 + (weights[$1] ?? 0) }
            guard weight >= max(1, Int(account.mediumThreshold)) else {
                throw WebAuthError(.insufficientWeight, "the signatures weigh \(weight), below \(clientID.strKey)'s medium threshold \(account.mediumThreshold)")
            }
        }
        return signed
    }
}

/// A top-level string key of a stellar.toml (SEP-1), such as `SIGNING_KEY`; nil when absent.
public func stellarTomlValue(_ key: String, in toml: String) -> String? {
    for raw in toml.split(whereSeparator: \.isNewline) {
        let line = raw.trimmingCharacters(in: .whitespaces)
        if line.hasPrefix("[") { return nil }
        let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, parts[0] == key, parts[1].count >= 2, parts[1].hasPrefix("\""), parts[1].hasSuffix("\"") else { continue }
        return String(parts[1].dropFirst().dropLast())
    }
    return nil
}
