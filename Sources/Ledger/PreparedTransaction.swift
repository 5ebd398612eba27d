import Dispatch
import StellarBase

/// A transaction decoded, hashed and with its likely signatures verified, ready for the
/// single-threaded apply.
///
/// Verifying ed25519 signatures is the costly part of applying a transaction, and it depends on
/// nothing in the ledger, so ``prepare(_:network:)`` checks each signature against the keys
/// that will most likely need it (the source accounts' master keys) on any thread. A signer the
/// apply step needs beyond those is verified then and remembered.
///
/// It is a class so that handing it from the submitter to the writer, the ledger and the store
/// shares one copy; it never changes after ``prepare(_:network:)``.
public final class PreparedTransaction: Sendable {
    public let envelope: TransactionEnvelope
    /// The hash that identifies the transaction (the outer one of a fee bump).
    public let hash: Bytes32
    /// The transaction whose operations run (the inner one of a fee bump), in V1 form.
    public let transaction: Transaction
    /// The envelope's own signatures over ``hash``.
    let outer: SignedPayload
    /// For a fee bump: the inner transaction's signatures over its own hash.
    let inner: SignedPayload?

    struct SignatureCheck: Hashable, Sendable {
        var index: Int
        var key: Bytes32
    }

    /// A hash, the signatures over it, and which of them were checked against which keys.
    struct SignedPayload: Sendable {
        let hash: Bytes32
        let signatures: [DecoratedSignature]
        private(set) var verified: Set<SignatureCheck> = []
        private(set) var checked: Set<SignatureCheck> = []

        init(hash: Bytes32, signatures: [DecoratedSignature]) {
            self.hash = hash
            self.signatures = signatures
        }

        mutating func verifyAll(_ key: Bytes32, own: OwnSignatures?) {
            for index in signatures.indices {
                let check = SignatureCheck(index: index, key: key)
                guard checked.insert(check).inserted, signatures[index].hint == key.lastFourBytes else { continue }
                if own?.take(key: key, hash: hash, signature: signatures[index].signature) == true
                    || Ed25519Verifier.shared.verify(signatures[index].signature, for: hash.bytes, key: key) {
                    verified.insert(check)
                }
            }
        }
    }

    /// Hashes the envelope and verifies its signatures against the source accounts' keys (and,
    /// for a fee bump, the fee source's); a signature in `own` (made here) needs no verifying.
    public static func prepare(_ envelope: TransactionEnvelope, network: Network, own: OwnSignatures? = nil) -> PreparedTransaction {
        let hash = envelope.hash(on: network)
        let transaction = envelope.transaction
        var keys: Set<Bytes32> = [transaction.sourceAccount.accountID.publicKey]
        for op in transaction.operations {
            if let source = op.sourceAccount { keys.insert(source.accountID.publicKey) }
        }
        var outer = SignedPayload(hash: hash, signatures: envelope.signatures)
        var inner: SignedPayload?
        if case .feeBump(let feeBump, _) = envelope {
            outer.verifyAll(feeBump.feeSource.accountID.publicKey, own: own)
            var payload = SignedPayload(hash: feeBump.innerTransaction.hash(on: network), signatures: feeBump.innerSignatures)
            for key in keys { payload.verifyAll(key, own: own) }
            inner = payload
        } else {
            for key in keys { outer.verifyAll(key, own: own) }
        }
        return PreparedTransaction(envelope: envelope, hash: hash, transaction: transaction, outer: outer, inner: inner)
    }

    /// Prepares many envelopes, spreading the signature checks over every core.
    public static func prepareAll(_ envelopes: [TransactionEnvelope], network: Network) -> [PreparedTransaction] {
        guard envelopes.count > 1 else { return envelopes.map { prepare($0, network: network) } }
        let results = UnsafeMutableBufferPointer<PreparedTransaction?>.allocate(capacity: envelopes.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        let buffer = UncheckedBuffer(results)
        DispatchQueue.concurrentPerform(iterations: envelopes.count) { index in
            buffer.pointer[index] = prepare(envelopes[index], network: network)
        }
        return results.map { $0! }
    }

    private init(envelope: TransactionEnvelope, hash: Bytes32, transaction: Transaction, outer: SignedPayload, inner: SignedPayload?) {
        self.envelope = envelope
        self.hash = hash
        self.transaction = transaction
        self.outer = outer
        self.inner = inner
    }
}

/// Lets `concurrentPerform` write each result into its own slot.
private struct UncheckedBuffer<T>: @unchecked Sendable {
    let pointer: UnsafeMutableBufferPointer<T>
    init(_ pointer: UnsafeMutableBufferPointer<T>) { self.pointer = pointer }
}

/// Adds up signer weights the way stellar-core's `SignatureChecker` does, remembering which
/// signatures were used.
struct SignatureChecker {
    let signatures: [DecoratedSignature]
    let hash: Bytes32
    private let verified: Set<PreparedTransaction.SignatureCheck>
    private let checked: Set<PreparedTransaction.SignatureCheck>
    /// Checks the preparation did not make, done here once each.
    private var lateChecks: [PreparedTransaction.SignatureCheck: Bool] = [:]
    private(set) var used: [Bool]
    /// Pre-authorized transaction signers that this transaction used up.
    private(set) var usedPreAuth: Set<Bytes32> = []

    init(_ payload: PreparedTransaction.SignedPayload) {
        signatures = payload.signatures
        hash = payload.hash
        verified = payload.verified
        checked = payload.checked
        used = Array(repeating: false, count: payload.signatures.count)
    }

    /// Whether signature `index` is `key`'s signature of the transaction.
    mutating func verifies(_ index: Int, _ key: Bytes32) -> Bool {
        let check = PreparedTransaction.SignatureCheck(index: index, key: key)
        if checked.contains(check) { return verified.contains(check) }
        if let known = lateChecks[check] { return known }
        let signature = signatures[index]
        let valid = signature.hint == key.lastFourBytes
            && Ed25519Verifier.shared.verify(signature.signature, for: hash.bytes, key: key)
        lateChecks[check] = valid
        return valid
    }

    /// Whether `account`'s signers reach its threshold for `level`.
    mutating func check(_ account: AccountEntry, neededWeight: Int) -> Bool {
        // The common case, an account signed by its master key alone, without building a list.
        if account.signers.isEmpty {
            guard account.thresholds.masterWeight > 0 else { return false }
            return checkMaster(account.accountID.publicKey, weight: Int(account.thresholds.masterWeight), neededWeight: neededWeight)
        }
        var signers: [Signer] = []
        signers.reserveCapacity(account.signers.count + 1)
        if account.thresholds.masterWeight > 0 {
            signers.append(Signer(key: .ed25519(account.accountID.publicKey), weight: UInt32(account.thresholds.masterWeight)))
        }
        signers.append(contentsOf: account.signers)
        return check(signers, neededWeight: neededWeight)
    }

    private mutating func checkMaster(_ key: Bytes32, weight: Int, neededWeight: Int) -> Bool {
        for index in used.indices where verifies(index, key) {
            used[index] = true
            return min(weight, 255) >= neededWeight
        }
        return false
    }

    /// Whether signatures of `signers` reach `neededWeight` (weights above 255 count as 255).
    mutating func check(_ signers: [Signer], neededWeight: Int) -> Bool {
        // The common case, an account signed by its master key alone, without the general
        // machinery's allocations.
        if signers.count == 1, case .ed25519(let key) = signers[0].key {
            return checkMaster(key, weight: Int(signers[0].weight), neededWeight: neededWeight)
        }
        var total = 0
        var hashX: [Signer] = [], ed25519: [Signer] = [], signedPayload: [Signer] = []
        for signer in signers {
            switch signer.key {
            case .preAuthTx(let hash):
                if hash == self.hash {
                    usedPreAuth.insert(hash)
                    total += Int(min(signer.weight, 255))
                    if total >= neededWeight { return true }
                }
            case .hashX: hashX.append(signer)
            case .ed25519: ed25519.append(signer)
            case .ed25519SignedPayload: signedPayload.append(signer)
            }
        }
        func verifyAll(_ list: inout [Signer], _ verify: (inout SignatureChecker, Int, Signer) -> Bool) -> Bool {
            for index in signatures.indices {
                if let position = list.firstIndex(where: { verify(&self, index, $0) }) {
                    used[index] = true
                    total += Int(min(list[position].weight, 255))
                    if total >= neededWeight { return true }
                    list.remove(at: position)
                }
            }
            return false
        }
        if verifyAll(&hashX, { checker, index, signer in
            guard case .hashX(let hash) = signer.key else { return false }
            let signature = checker.signatures[index]
            return signature.hint == hash.lastFourBytes && sha256Digest(signature.signature) == hash
        }) { return true }
        if verifyAll(&ed25519, { checker, index, signer in
            guard case .ed25519(let key) = signer.key else { return false }
            return checker.verifies(index, key)
        }) { return true }
        if verifyAll(&signedPayload, { checker, index, signer in
            guard case .ed25519SignedPayload(let key, let payload) = signer.key else { return false }
            let signature = checker.signatures[index]
            // The hint of a signed payload signature mixes the key's and the payload's last bytes.
            var payloadTail: UInt32 = 0
            for byte in payload.suffix(4) { payloadTail = payloadTail << 8 | UInt32(byte) }
            payloadTail <<= UInt32(8 * (4 - min(4, payload.count)))
            guard signature.hint == key.lastFourBytes ^ payloadTail else { return false }
            return Ed25519Verifier.shared.verify(signature.signature, for: payload, key: key)
        }) { return true }
        return false
    }

    var allSignaturesUsed: Bool { used.allSatisfy { $0 } }
}
