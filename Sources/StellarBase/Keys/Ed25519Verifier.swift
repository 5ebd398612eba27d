import Crypto
import Synchronization

/// Ed25519 verification with the same answers as swift-crypto's on Linux (BoringSSL's
/// `ED25519_verify`), faster for a key seen before.
///
/// BoringSSL's check, which this one repeats step by step: s (the signature's second half) is below
/// the group order L; the key decodes to a point A (y taken modulo p, any x parity; a key that
/// does not decode verifies nothing); h = SHA-512(R ‖ key ‖ message) mod L; and the encoding of
/// [s]B - [h]A equals R byte for byte. The point [s]B - [h]A is one group element however it is
/// computed, and its encoding is canonical, so computing it another way cannot change an answer.
///
/// The other way: for a key seen a second time, A is decoded once and a table of 64 of its
/// multiples kept (``MultiplesTable``, 7.5 KB), and [s]B - [h]A is summed from that table and
/// one for B in 28 doublings and at most 128 additions, against BoringSSL's 253 doublings,
/// about 90 additions and a decoding of A each time. A key seen once goes to swift-crypto.
/// Both caches are bounded: the newest ``tableCapacity`` tables and ``seenCapacity`` keys
/// seen once, each forgetting its oldest first.
///
/// On Darwin swift-crypto is CryptoKit, whose edge cases this does not claim to repeat, so
/// there every check goes to swift-crypto.
public final class Ed25519Verifier: Sendable {
    public static let shared = Ed25519Verifier()

    public let tableCapacity: Int
    public let seenCapacity: Int

    /// At most `capacity` keys with a value each; a key added past it displaces the oldest.
    struct BoundedCache<Value> {
        let capacity: Int
        private(set) var values: [Bytes32: Value] = [:]
        private var order: [Bytes32] = []
        private var oldest = 0

        init(capacity: Int) { self.capacity = capacity }

        subscript(key: Bytes32) -> Value? { values[key] }

        /// Adds `key` (a key already held keeps its value).
        mutating func add(_ key: Bytes32, _ value: Value) {
            guard values[key] == nil else { return }
            if order.count < capacity {
                order.append(key)
            } else {
                values[order[oldest]] = nil
                order[oldest] = key
                oldest = (oldest + 1) % capacity
            }
            values[key] = value
        }
    }

    private struct Caches {
        var tables: BoundedCache<KeyTable>
        var seen: BoundedCache<Void>
    }

    private let caches: Mutex<Caches>

    /// A decoded key's table, or nil for a key that does not decode.
    final class KeyTable: Sendable {
        let table: MultiplesTable?
        init(_ key: Bytes32) {
            table = EdwardsPoint(key.bytes).map(MultiplesTable.init)
        }
    }

    static let baseTable = MultiplesTable(EdwardsPoint.base)

    public init(tableCapacity: Int = 4096, seenCapacity: Int = 65536) {
        precondition(tableCapacity > 0 && seenCapacity > 0)
        self.tableCapacity = tableCapacity
        self.seenCapacity = seenCapacity
        caches = Mutex(Caches(tables: BoundedCache(capacity: tableCapacity), seen: BoundedCache(capacity: seenCapacity)))
    }

    /// Whether `signature` is `key`'s valid Ed25519 signature of `message`.
    public func verify(_ signature: [UInt8], for message: [UInt8], key: Bytes32) -> Bool {
        guard signature.count == 64 else { return false }
        #if os(Linux)
        if let table = table(for: key) {
            return Self.verify(signature, message, key: key, table: table)
        }
        #endif
        guard let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: key.bytes) else { return false }
        return publicKey.isValidSignature(signature, for: message)
    }

    /// How often a key has been seen, as far as the caches remember.
    private enum Sighting {
        case first, second, known(KeyTable)
    }

    /// The table for a key seen before (made now if this is the second time), or nil the first time.
    private func table(for key: Bytes32) -> KeyTable? {
        let sighting: Sighting = caches.withLock { caches in
            if let table = caches.tables[key] { return .known(table) }
            if caches.seen[key] != nil { return .second }
            caches.seen.add(key, ())
            return .first
        }
        switch sighting {
        case .known(let table): return table
        case .first: return nil
        case .second:
            let made = KeyTable(key)
            caches.withLock { $0.tables.add(key, made) }
            return made
        }
    }

    /// Decodes `key` and makes its table, the work of a key's second sight, without keeping it
    /// (for `tender bench envelope`); false for a key that does not decode.
    public static func makeTable(for key: Bytes32) -> Bool { KeyTable(key).table != nil }

    /// How many keys have a table now (for tests and figures).
    public var tableCount: Int { caches.withLock { $0.tables.values.count } }

    /// BoringSSL's `ED25519_verify`, with [s]B - [h]A summed from the two tables.
    static func verify(_ signature: [UInt8], _ message: [UInt8], key: Bytes32, table: KeyTable) -> Bool {
        guard let keyTable = table.table else { return false }
        let (r, s) = signature.withUnsafeBytes { raw in
            ((raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self).littleEndian,
              raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian,
              raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self).littleEndian,
              raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self).littleEndian),
             (raw.loadUnaligned(fromByteOffset: 32, as: UInt64.self).littleEndian,
              raw.loadUnaligned(fromByteOffset: 40, as: UInt64.self).littleEndian,
              raw.loadUnaligned(fromByteOffset: 48, as: UInt64.self).littleEndian,
              raw.loadUnaligned(fromByteOffset: 56, as: UInt64.self).littleEndian))
        }
        guard Scalar25519.isCanonical(s) else { return false }
        var hasher = SHA512()
        signature.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<32])) }
        hasher.update(data: key.bytes)
        hasher.update(data: message)
        let h = Scalar25519.reduce(Array(hasher.finalize()))
        let sDigits = Scalar25519.signedDigits(s)
        let hDigits = Scalar25519.signedDigits(h)
        let check = combination(sDigits, Self.baseTable, minus: hDigits, keyTable).encoded
        return check.0 == r.0 && check.1 == r.1 && check.2 == r.2 && check.3 == r.3
    }

    /// Σ sᵢ·16ⁱ·B - Σ hᵢ·16ⁱ·A over the tables of B and A (see ``MultiplesTable``).
    static func combination(_ plus: [Int8], _ plusTable: MultiplesTable, minus: [Int8], _ minusTable: MultiplesTable) -> EdwardsPoint {
        var acc = EdwardsPoint.identity
        plus.withUnsafeBufferPointer { plus in
            minus.withUnsafeBufferPointer { minus in
                plusTable.points.withUnsafeBufferPointer { pt in
                    minusTable.points.withUnsafeBufferPointer { mt in
                        for r in stride(from: 7, through: 0, by: -1) {
                            if r < 7 {
                                acc = acc.doubled(withT: false).doubled(withT: false).doubled(withT: false).doubled(withT: true)
                            }
                            for m in 0..<8 {
                                let dp = Int(plus[8 * m + r])
                                if dp > 0 { acc = acc.adding(pt[8 * m + dp - 1]) } else if dp < 0 { acc = acc.subtracting(pt[8 * m - dp - 1]) }
                                let dm = Int(minus[8 * m + r])
                                if dm > 0 { acc = acc.subtracting(mt[8 * m + dm - 1]) } else if dm < 0 { acc = acc.adding(mt[8 * m - dm - 1]) }
                            }
                        }
                    }
                }
            }
        }
        return acc
    }
}
