@preconcurrency import Crypto

/// An ed25519 key pair, or a public key alone.
///
/// A key pair made from a public key can verify but not sign.
public struct KeyPair: Sendable {
    /// The account id this key controls.
    public let accountID: AccountID
    private let privateKey: Curve25519.Signing.PrivateKey?
    /// Nil only if the platform refuses the 32 bytes as a key; such a key verifies nothing.
    private let publicKey: Curve25519.Signing.PublicKey?

    /// A new random key pair from the system's secure random source.
    public static func random() -> KeyPair {
        KeyPair(privateKey: Curve25519.Signing.PrivateKey())
    }

    /// The key pair of a 32-byte ed25519 seed.
    public init(seed: [UInt8]) throws(StrKeyError) {
        guard seed.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
            throw StrKeyError(.invalidPayload, "a seed has 32 bytes, not \(seed.count)")
        }
        self.init(privateKey: key)
    }

    /// The key pair of a secret seed `S...`.
    /// - Throws: ``StrKeyError`` when the text is not a valid seed.
    public init(secretSeed: String) throws(StrKeyError) {
        try self.init(seed: try StrKey.decode(.seed, secretSeed))
    }

    /// A verify-only key pair for a public key.
    public init(accountID: AccountID) {
        self.accountID = accountID
        self.privateKey = nil
        self.publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: accountID.publicKey.bytes)
    }

    private init(privateKey: Curve25519.Signing.PrivateKey) {
        self.privateKey = privateKey
        self.publicKey = privateKey.publicKey
        self.accountID = AccountID(publicKey: Bytes32(privateKey.publicKey.rawRepresentation))
    }

    /// Whether this key pair holds the secret and can sign.
    public var canSign: Bool { privateKey != nil }

    /// The raw 32-byte seed, when this key pair holds it.
    public var seed: [UInt8]? { privateKey.map { Array($0.rawRepresentation) } }

    /// The secret seed `S...`, when this key pair holds it.
    public var secretSeed: String? { seed.map { StrKey.encode(.seed, $0) } }

    /// The signature hint: the last four bytes of the public key.
    public var hint: UInt32 { accountID.publicKey.lastFourBytes }

    /// Signs `message` (for transactions: the 32-byte transaction hash).
    /// A verify-only key pair cannot sign; calling this on one is a programmer error.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        guard let privateKey else { preconditionFailure("sign(_:) called on a verify-only key pair") }
        return Array(try! privateKey.signature(for: message))
    }

    /// Signs `hash` and returns the decorated signature a transaction envelope carries.
    public func signDecorated(_ hash: Bytes32) -> DecoratedSignature {
        DecoratedSignature(hint: hint, signature: sign(hash.bytes))
    }

    /// Whether `signature` is this key's valid ed25519 signature of `message`.
    public func verify(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == 64, publicKey != nil else { return false }
        return Ed25519Verifier.shared.verify(signature, for: message, key: accountID.publicKey)
    }
}
