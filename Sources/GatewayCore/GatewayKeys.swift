import Crypto
import Foundation
import Gateway
import StellarBase

/// The server's own secret, kept in `server.key` in the data directory (created on first run,
/// readable by its owner only), and the keys derived from it: one seals the merchants'
/// settlement seeds, one keys the card fingerprints.
package struct ServerSecrets: Sendable {
    // SymmetricKey is not Sendable; its bytes are kept and the key made where it is used.
    private let sealingKeyBytes: [UInt8]
    private let fingerprintKeyBytes: [UInt8]
    /// Keys the ids derived from idempotency keys.
    package let idKeyBytes: [UInt8]
    /// Signs the console's session cookies and CSRF tokens.
    package let consoleKeyBytes: [UInt8]
    /// Signs the anchor's SEP-10 tokens.
    package let anchorKeyBytes: [UInt8]
    private var sealingKey: SymmetricKey { SymmetricKey(data: sealingKeyBytes) }
    private var fingerprintKey: SymmetricKey { SymmetricKey(data: fingerprintKeyBytes) }

    package init(master: [UInt8]) {
        precondition(master.count == 32, "the server key is 32 bytes")
        let key = SymmetricKey(data: master)
        func derive(_ info: String) -> [UInt8] {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Array(info.utf8), outputByteCount: 32).withUnsafeBytes { Array($0) }
        }
        sealingKeyBytes = derive("tender settlement seeds")
        fingerprintKeyBytes = derive("tender card fingerprints")
        idKeyBytes = derive("tender idempotent ids")
        consoleKeyBytes = derive("tender console sessions")
        anchorKeyBytes = derive("tender anchor tokens")
    }

    /// Reads the key file under `directory`, or creates it with fresh random bytes.
    /// - Throws: when the file cannot be read or written, or holds something else than 32 bytes.
    package static func load(directory: String) throws -> ServerSecrets {
        let path = (directory as NSString).appendingPathComponent("server.key")
        if let data = FileManager.default.contents(atPath: path) {
            guard data.count == 32 else { throw GatewayError(code: "server_key_invalid", message: "\(path) does not hold a 32-byte key") }
            return ServerSecrets(master: Array(data))
        }
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw GatewayError(code: "server_key_unwritable", message: "cannot create \(path)")
        }
        return ServerSecrets(master: bytes)
    }

    package func seal(_ secret: [UInt8]) throws -> [UInt8] {
        Array(try ChaChaPoly.seal(secret, using: sealingKey).combined)
    }

    package func open(_ sealed: [UInt8]) throws -> [UInt8] {
        Array(try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: sealed), using: sealingKey))
    }

    /// A card's fingerprint: the same number gives the same fingerprint on this server, and the
    /// fingerprint tells nothing of the number without the server's key.
    package func fingerprint(cardDigits: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(cardDigits.utf8), using: fingerprintKey)
        return Hex.encode(Array(mac).prefix(8))
    }
}

/// A failure of the gateway's own set-up (not of a request).
package struct GatewayError: Error, Sendable, CustomStringConvertible {
    package let code: String
    package let message: String
    package var description: String { message }

    package init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// Ids and keys: a prefix and random characters, from the injected random source.
package enum GatewayIDs {
    package static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// `prefix_` and `length` characters drawn evenly from 62 (bytes of 248 and above are
    /// skipped, so no character is likelier than another).
    package static func make(_ prefix: String, random: @Sendable (Int) -> [UInt8], length: Int = 24) -> String {
        make(prefix, random: random, length: length, leading: [])
    }

    /// The characters that make an id made at `time` (unix seconds) sort after those made
    /// before it: six, base 62, enough until the year 3770.
    package static let timeCharacters = 6

    /// An object's id: `prefix_`, then `time` in ``timeCharacters`` base-62 characters, then
    /// random ones up to `length` (18 random characters: 107 bits). Ids made close together
    /// sit close together in the store's id index, so a write of many new objects dirties a few
    /// of its pages instead of one each (with wholly random ids, each new row's index entry
    /// landed on a page of its own). Secrets (keys, client secrets) stay wholly random.
    package static func make(_ prefix: String, random: @Sendable (Int) -> [UInt8], at time: Int64, length: Int = 24) -> String {
        var value = max(time, 0)
        var leading = [UInt8](repeating: alphabet[0], count: timeCharacters)
        for index in stride(from: timeCharacters - 1, through: 0, by: -1) {
            leading[index] = alphabet[Int(value % Int64(alphabet.count))]
            value /= Int64(alphabet.count)
        }
        return make(prefix, random: random, length: length, leading: leading)
    }

    private static func make(_ prefix: String, random: @Sendable (Int) -> [UInt8], length: Int, leading: [UInt8]) -> String {
        var characters: [UInt8] = leading
        while characters.count < length {
            for byte in random(length) where byte < 248 && characters.count < length {
                characters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return prefix + "_" + String(decoding: characters, as: UTF8.self)
    }

    /// A secret key's SHA-256: keys are long random strings, so a plain hash is enough to make
    /// the stored form useless to a thief.
    package static func hash(key: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(key.utf8)))
    }
}
