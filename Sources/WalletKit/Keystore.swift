import Crypto
import Foundation
import StellarBase
import _CryptoExtras

/// Where a keystore's bytes live. A file on Linux (``FileKeystoreStorage``); an app can keep
/// them in the Keychain by implementing these three calls.
public protocol KeystoreStorage: Sendable {
    /// The stored bytes, or nil when nothing is stored.
    func load() throws -> Data?
    /// Replaces the stored bytes; either the old or the new bytes survive a crash.
    func save(_ data: Data) throws
    /// Deletes the stored bytes (nothing stored is not an error).
    func delete() throws
}

/// A keystore file, written atomically (a temporary file renamed over it) with mode 0600 in a
/// directory of mode 0700.
public struct FileKeystoreStorage: KeystoreStorage {
    public let url: URL

    public init(url: URL) { self.url = url }

    public func load() throws -> Data? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Data(contentsOf: url)
    }

    public func save(_ data: Data) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        // Created with 0600 from the start, so the secret is never readable by others, not even briefly.
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw KeystoreError(.storage, "cannot write \(temporary.path)")
        }
        if rename(temporary.path, url.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw KeystoreError(.storage, "cannot replace \(url.path): \(String(cString: strerror(errno)))")
        }
    }

    public func delete() throws {
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }
}

/// Why a keystore operation failed. `code` is stable; `message` is for people.
public struct KeystoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidPIN = "pin_invalid"
        case pinMismatch = "pin_mismatch"
        case incorrectPIN = "pin_incorrect"
        case lockedOut = "pin_locked_out"
        case noKeystore = "keystore_missing"
        case keystoreExists = "keystore_exists"
        case corrupt = "keystore_corrupt"
        case invalidSeed = "seed_invalid"
        case storage = "keystore_storage"
    }

    public let code: Code
    public let message: String
    /// For ``Code/lockedOut``: seconds until the next attempt is allowed.
    public let retryAfter: Int?

    public init(_ code: Code, _ message: String, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { message }
}

/// The keystore's file format, version 1 (JSON):
///
/// ```json
/// {"version": 1, "address": "G...",
///  "kdf": {"name": "scrypt", "salt": "<base64, 16 bytes>", "n": 32768, "r": 8, "p": 1},
///  "cipher": "AES-256-GCM", "sealed": "<base64: 12-byte nonce | ciphertext | 16-byte tag>",
///  "failedAttempts": 0, "lockedUntil": 0}
/// ```
///
/// The sealed plaintext is the 32-byte ed25519 seed; the address is the additional
/// authenticated data, so a file whose address was swapped does not open.
struct KeystoreFile: Codable, Equatable {
    struct KDF: Codable, Equatable {
        var name: String
        var salt: String
        var n: Int
        var r: Int
        var p: Int
    }

    var version: Int
    var address: String
    var kdf: KDF
    var cipher: String
    var sealed: String
    var failedAttempts: Int
    /// Seconds since 1970 before which no PIN is tried.
    var lockedUntil: Int
}

/// A wallet's secret seed, encrypted under a key derived from a 6-digit PIN with scrypt
/// (a random salt per keystore) and sealed with AES-256-GCM, so a wrong PIN fails the
/// authentication tag rather than producing a wrong key. Repeated wrong PINs lock the keystore
/// for growing periods, and the lock is stored with it.
public final class Keystore: @unchecked Sendable {
    /// scrypt cost parameters: N = 2^15, r = 8, p = 1 (32 MiB, about a tenth of a second).
    public struct Cost: Sendable, Equatable {
        public var n: Int
        public var r: Int
        public var p: Int
        public static let standard = Cost(n: 1 << 15, r: 8, p: 1)
        /// For tests only: fast and weak.
        public static let testing = Cost(n: 1 << 10, r: 8, p: 1)

        public init(n: Int, r: Int, p: Int) {
            self.n = n
            self.r = r
            self.p = p
        }
    }

    /// Wrong PINs allowed before the first lock.
    public static let freeAttempts = 3
    /// The first lock; each further wrong PIN doubles it, up to a day.
    public static let firstLockSeconds = 30
    public static let longestLockSeconds = 86_400

    private let storage: any KeystoreStorage
    private let cost: Cost
    private let now: @Sendable () -> Date
    private let lock = NSLock()

    public init(storage: any KeystoreStorage, cost: Cost = .standard, now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.cost = cost
        self.now = now
    }

    /// Checks a PIN and its confirmation as sign-up asks for them.
    /// - Throws: ``KeystoreError`` `pin_invalid` ("PIN must be exactly 6 digits") or
    ///   `pin_mismatch` ("PIN and confirmation do not match").
    public static func validateNewPIN(_ pin: String, confirmation: String) throws(KeystoreError) {
        try validatePIN(pin)
        guard pin == confirmation else { throw KeystoreError(.pinMismatch, "PIN and confirmation do not match") }
    }

    static func validatePIN(_ pin: String) throws(KeystoreError) {
        guard pin.utf8.count == 6, pin.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw KeystoreError(.invalidPIN, "PIN must be exactly 6 digits")
        }
    }

    /// Whether a keystore is stored.
    public var exists: Bool { (try? storage.load()) != nil }

    /// The stored wallet's address (sign-in keeps only this).
    /// - Throws: ``KeystoreError`` when there is no keystore or it cannot be read.
    public func address() throws(KeystoreError) -> String { try read().address }

    /// Stores `keyPair`'s seed under `pin` (sign-up, or import of an existing seed).
    /// - Throws: ``KeystoreError`` `keystore_exists` unless `replacing`, `pin_invalid`, `storage`.
    public func create(_ keyPair: KeyPair, pin: String, replacing: Bool = false) throws(KeystoreError) {
        try Self.validatePIN(pin)
        guard let seed = keyPair.seed else { throw KeystoreError(.invalidSeed, "a key pair without its secret seed cannot be stored") }
        lock.lock()
        defer { lock.unlock() }
        if !replacing, (try? storage.load()) != nil {
            throw KeystoreError(.keystoreExists, "a wallet already exists here; reset it first")
        }
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: 0...255, using: &generator) }
        let address = keyPair.accountID.strKey
        let key = try deriveKey(pin: pin, salt: salt, cost: cost)
        let sealed: AES.GCM.SealedBox
        do {
            sealed = try AES.GCM.seal(seed, using: key, authenticating: Array(address.utf8))
        } catch {
            throw KeystoreError(.storage, "cannot encrypt the seed: \(error)")
        }
        let file = KeystoreFile(
            version: 1, address: address,
            kdf: .init(name: "scrypt", salt: Base64.encode(salt), n: cost.n, r: cost.r, p: cost.p),
            cipher: "AES-256-GCM", sealed: Base64.encode(sealed.combined!), failedAttempts: 0, lockedUntil: 0)
        try write(file)
    }

    /// Stores an existing secret seed (`S...`) under `pin`.
    /// - Throws: ``KeystoreError`` `seed_invalid` for a bad seed, and as ``create(_:pin:replacing:)``.
    public func importSeed(_ secretSeed: String, pin: String, replacing: Bool = false) throws(KeystoreError) {
        let keyPair: KeyPair
        do {
            keyPair = try KeyPair(secretSeed: secretSeed)
        } catch {
            throw KeystoreError(.invalidSeed, "not a valid secret seed: \(error)")
        }
        try create(keyPair, pin: pin, replacing: replacing)
    }

    /// The key pair, for one signing. A wrong PIN counts toward the lock.
    /// - Throws: ``KeystoreError`` `pin_incorrect` ("Incorrect PIN"), `pin_locked_out` with
    ///   `retryAfter`, `keystore_missing`, `keystore_corrupt`.
    public func unlock(pin: String) throws(KeystoreError) -> KeyPair {
        lock.lock()
        defer { lock.unlock() }
        var file = try read()
        let nowSeconds = Int(now().timeIntervalSince1970)
        if file.lockedUntil > nowSeconds {
            throw KeystoreError(.lockedOut, "Too many incorrect PINs; try again in \(file.lockedUntil - nowSeconds) s", retryAfter: file.lockedUntil - nowSeconds)
        }
        do {
            try Self.validatePIN(pin)
        } catch {
            // A malformed PIN is a wrong PIN too, or the lock could be sidestepped.
            try recordFailure(&file, now: nowSeconds)
            throw error
        }
        guard file.kdf.name == "scrypt", let salt = Base64.decode(file.kdf.salt), let sealedBytes = Base64.decode(file.sealed),
              let box = try? AES.GCM.SealedBox(combined: sealedBytes) else {
            throw KeystoreError(.corrupt, "the keystore is damaged")
        }
        let key = try deriveKey(pin: pin, salt: salt, cost: Cost(n: file.kdf.n, r: file.kdf.r, p: file.kdf.p))
        guard let seed = try? AES.GCM.open(box, using: key, authenticating: Array(file.address.utf8)) else {
            try recordFailure(&file, now: nowSeconds)
            throw KeystoreError(.incorrectPIN, "Incorrect PIN")
        }
        guard let keyPair = try? KeyPair(seed: Array(seed)), keyPair.accountID.strKey == file.address else {
            throw KeystoreError(.corrupt, "the keystore's seed does not belong to its address")
        }
        if file.failedAttempts != 0 || file.lockedUntil != 0 {
            file.failedAttempts = 0
            file.lockedUntil = 0
            try write(file)
        }
        return keyPair
    }

    /// Deletes the keystore.
    /// - Throws: ``KeystoreError`` `storage`.
    public func reset() throws(KeystoreError) {
        do {
            try storage.delete()
        } catch {
            throw KeystoreError(.storage, "cannot delete the keystore: \(error)")
        }
    }

    /// The seconds a keystore stays locked after `failures` wrong PINs in a row.
    public static func lockSeconds(afterFailures failures: Int) -> Int {
        guard failures >= freeAttempts else { return 0 }
        let doublings = min(failures - freeAttempts, 20)
        return min(firstLockSeconds << doublings, longestLockSeconds)
    }

    private func recordFailure(_ file: inout KeystoreFile, now: Int) throws(KeystoreError) {
        file.failedAttempts += 1
        let seconds = Self.lockSeconds(afterFailures: file.failedAttempts)
        file.lockedUntil = seconds > 0 ? now + seconds : 0
        try write(file)
    }

    private func deriveKey(pin: String, salt: [UInt8], cost: Cost) throws(KeystoreError) -> SymmetricKey {
        do {
            return try KDF.Scrypt.deriveKey(from: Array(pin.utf8), salt: salt, outputByteCount: 32, rounds: cost.n, blockSize: cost.r, parallelism: cost.p)
        } catch {
            throw KeystoreError(.corrupt, "the keystore's key derivation parameters are unusable: \(error)")
        }
    }

    private func read() throws(KeystoreError) -> KeystoreFile {
        let data: Data?
        do {
            data = try storage.load()
        } catch {
            throw KeystoreError(.storage, "cannot read the keystore: \(error)")
        }
        guard let data else { throw KeystoreError(.noKeystore, "no wallet here; create or import one") }
        guard let file = try? JSONDecoder().decode(KeystoreFile.self, from: data), file.version == 1 else {
            throw KeystoreError(.corrupt, "the keystore is damaged or of an unknown version")
        }
        return file
    }

    private func write(_ file: KeystoreFile) throws(KeystoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try storage.save(try encoder.encode(file))
        } catch let error as KeystoreError {
            throw error
        } catch {
            throw KeystoreError(.storage, "cannot write the keystore: \(error)")
        }
    }
}
