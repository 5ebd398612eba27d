import StellarBase
import Synchronization

/// Signatures this process has just made with its own keys (the funding desks' that settle
/// card payments), so that preparing their transactions need not verify them again: ed25519
/// verification is the costly part of preparing, and a signature made here a moment ago with
/// the key over that very hash is valid. Like stellar-core's cache of verified signatures it
/// changes no rule: an entry only says that one (key, hash, signature) is valid; it is used once.
/// Only ``sign(_:with:on:)`` adds entries. Bounded: emptied when full (then signatures are
/// verified as any other).
public final class OwnSignatures: Sendable {
    struct Entry: Hashable {
        let key: Bytes32
        let hash: Bytes32
        let signature: [UInt8]
    }

    private let entries = Mutex(Set<Entry>())
    private let limit: Int

    public init(limit: Int = 100_000) {
        self.limit = limit
    }

    /// Signs `envelope` with `keyPair` (as ``TransactionEnvelope/sign(with:on:)``) and remembers
    /// the signature as valid.
    public func sign(_ envelope: inout TransactionEnvelope, with keyPair: KeyPair, on network: Network) {
        envelope.sign(with: keyPair, on: network)
        let entry = Entry(key: keyPair.accountID.publicKey, hash: envelope.hash(on: network), signature: envelope.signatures[envelope.signatures.count - 1].signature)
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries.insert(entry)
        }
    }

    /// Whether `signature` was made here by `key` over `hash`; forgets it.
    func take(key: Bytes32, hash: Bytes32, signature: [UInt8]) -> Bool {
        entries.withLock { $0.remove(Entry(key: key, hash: hash, signature: signature)) != nil }
    }

    /// How many are remembered (for tests).
    public var count: Int { entries.withLock { $0.count } }
}
