import Crypto
import Testing
@testable import StellarBase

/// The table-driven verifier against swift-crypto's (BoringSSL's on Linux), vector by vector.
@Suite("Ed25519 verifier")
struct Ed25519VerifierTests {
    // MARK: Arithmetic, checked against definitions

    @Test func fieldConstants() {
        let minusOne = FieldElement.zero - .one
        #expect(words(EdwardsPoint.sqrtMinusOne.squared) == words(minusOne))
        #expect(words(EdwardsPoint.d * FieldElement(121_666)) == words(-FieldElement(121_665)))
        // p - 1 encodes as itself; p, p + 1 … 2^255 - 1 (the non-canonical encodings) read as 0 … 18.
        for value in UInt8(0)...18 {
            var bytes = pMinus(0)
            bytes[0] = bytes[0] &+ value
            let element = bytes.withUnsafeBytes { FieldElement(bytes: $0) }
            #expect(words(element) == words(FieldElement(UInt64(value))))
        }
        let pMinusOne = pMinus(1).withUnsafeBytes { FieldElement(bytes: $0) }
        #expect(words(pMinusOne) == words(minusOne))
    }

    @Test func fieldInverseAndProductsOfRandomElements() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let a = randomElement(&rng), b = randomElement(&rng), c = randomElement(&rng)
            if !a.isZero { #expect(words(a * a.inverted) == words(.one)) }
            #expect(words((a + b) * c) == words(a * c + b * c))
            #expect(words((a - b) * c) == words(a * c - b * c))
            #expect(words(a.squared) == words(a * a))
            #expect(words(a - a) == words(.zero))
        }
    }

    @Test func scalarReductionMatchesLongDivision() {
        var rng = SystemRandomNumberGenerator()
        var digests: [[UInt8]] = [[UInt8](repeating: 0xFF, count: 64), [UInt8](repeating: 0, count: 64), orderBytes + [UInt8](repeating: 0, count: 32)]
        for _ in 0..<300 { digests.append((0..<64).map { _ in UInt8.random(in: 0...255, using: &rng) }) }
        for digest in digests {
            let fast = Scalar25519.reduce(digest)
            #expect(littleEndianBytes(fast) == Self.slowReduce(digest), "\(digest)")
        }
        #expect(littleEndianBytes(Scalar25519.reduce(orderBytes + [UInt8](repeating: 0, count: 32))) == [UInt8](repeating: 0, count: 32))
    }

    @Test func signedDigitsSumToTheScalar() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let scalar = Scalar25519.reduce((0..<64).map { _ in UInt8.random(in: 0...255, using: &rng) })
            let digits = Scalar25519.signedDigits(scalar)
            #expect(digits.allSatisfy { (-8)...8 ~= $0 })
            // Σ dᵢ·16ⁱ in 32-bit limbs with signed carries.
            var value = [Int64](repeating: 0, count: 9)
            for (index, digit) in digits.enumerated() { value[index / 8] += Int64(digit) << (4 * (index % 8)) }
            for index in 0..<8 {
                let carry = value[index] >> 32
                value[index] -= carry << 32
                value[index + 1] += carry
            }
            let expected: [Int64] = [scalar.0, scalar.1, scalar.2, scalar.3].flatMap { [Int64($0 & 0xFFFF_FFFF), Int64($0 >> 32)] } + [0]
            #expect(value == expected)
        }
    }

    @Test func tableMultiplesMatchRepeatedAddition() {
        let table = MultiplesTable(EdwardsPoint.base)
        var multiple = EdwardsPoint.base
        for j in 1...8 {
            let entry = table.points[j - 1]
            let fromTable = EdwardsPoint.identity.adding(entry)
            #expect(littleEndianBytes(fromTable.encoded) == littleEndianBytes(multiple.encoded), "\(j)·B")
            multiple = multiple.adding(EdwardsPoint.base.cached)
        }
        // 2^32·B two ways: the table's second row, and 32 doublings.
        var doubled = EdwardsPoint.base
        for _ in 0..<32 { doubled = doubled.doubled(withT: true) }
        #expect(littleEndianBytes(EdwardsPoint.identity.adding(table.points[8]).encoded) == littleEndianBytes(doubled.encoded))
    }

    // MARK: Agreement with swift-crypto

    #if os(Linux)
    @Test func validAndTamperedSignaturesAgree() {
        var rng = SystemRandomNumberGenerator()
        var outcomes: [Bool: Int] = [:]
        for round in 0..<60 {
            let key = Curve25519.Signing.PrivateKey()
            let message = (0..<(round % 7 == 0 ? 0 : Int.random(in: 1...300, using: &rng))).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let signature = Array(try! key.signature(for: message))
            let publicKey = Array(key.publicKey.rawRepresentation)
            outcomes[agree(signature, message, publicKey), default: 0] += 1
            // One bit flipped in R, in s, in the message, in the key.
            for target in 0..<4 {
                var s = signature, m = message, k = publicKey
                switch target {
                case 0: s[Int.random(in: 0..<32, using: &rng)] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                case 1: s[Int.random(in: 32..<64, using: &rng)] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                case 2: if m.isEmpty { m = [0] } else { m[Int.random(in: 0..<m.count, using: &rng)] ^= 1 }
                default: k[Int.random(in: 0..<32, using: &rng)] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                }
                outcomes[agree(s, m, k), default: 0] += 1
            }
            // The malleable twin: s + L (refused by both, s must be below L).
            var twin = signature
            var carry: UInt16 = 0
            for index in 0..<32 {
                let sum = UInt16(twin[32 + index]) + UInt16(orderBytes[index]) + carry
                twin[32 + index] = UInt8(truncatingIfNeeded: sum)
                carry = sum >> 8
            }
            outcomes[agree(twin, message, publicKey), default: 0] += 1
            // s's top three bits set.
            var high = signature
            high[63] |= 0xE0
            outcomes[agree(high, message, publicKey), default: 0] += 1
            // The key's sign bit flipped: -A.
            var negated = publicKey
            negated[31] ^= 0x80
            outcomes[agree(signature, message, negated), default: 0] += 1
        }
        #expect(outcomes[true, default: 0] >= 60)
        #expect(outcomes[false, default: 0] >= 300)
    }

    /// Keys of small order (and their non-canonical encodings), with R the identity and s = 0:
    /// both accept exactly when [h]A is the identity, h depending on the message.
    @Test func smallOrderKeysAgree() {
        var accepted = 0, refused = 0
        for encoding in Self.smallOrderEncodings {
            for signBit in [UInt8(0), 0x80] {
                var key = encoding
                key[31] |= signBit
                let table = Ed25519Verifier.KeyTable(Bytes32(key))
                for index in 0..<24 {
                    let message: [UInt8] = [UInt8(index), 0x54]
                    for r in [Self.identityEncoding, Self.identityNonCanonical, encoding] {
                        let signature = r + [UInt8](repeating: 0, count: 32)
                        if agree(signature, message, key, table: table) { accepted += 1 } else { refused += 1 }
                    }
                }
            }
        }
        #expect(accepted > 0)
        #expect(refused > 0)
    }

    /// Keys A + T (T of order 8, A a real key) signing as A would with A + T's bytes in the hash:
    /// both accept exactly when [h]T is the identity, about one message in eight.
    @Test func mixedOrderKeysAgree() {
        var accepted = 0, refused = 0
        let torsion = EdwardsPoint(Self.smallOrderEncodings[2])!
        for round in 0..<4 {
            let seed = (0..<32).map { UInt8(truncatingIfNeeded: $0 * 7 + round) }
            var expanded = Array(SHA512.hash(data: seed))
            expanded[0] &= 248; expanded[31] &= 127; expanded[31] |= 64
            let a = Scalar25519.reduce(Array(expanded[0..<32]) + [UInt8](repeating: 0, count: 32))
            let aPoint = Ed25519Verifier.combination(Scalar25519.signedDigits(a), Ed25519Verifier.baseTable,
                                                     minus: zeroDigits, Ed25519Verifier.baseTable)
            // The real key agrees with swift-crypto's own from the seed.
            #expect(littleEndianBytes(aPoint.encoded) == Array(try! Curve25519.Signing.PrivateKey(rawRepresentation: seed).publicKey.rawRepresentation))
            let mixedKey = littleEndianBytes(aPoint.adding(torsion.cached).encoded)
            let table = Ed25519Verifier.KeyTable(Bytes32(mixedKey))
            for index in 0..<40 {
                let message = [UInt8(index), UInt8(round)]
                let r = Scalar25519.reduce(Array(SHA512.hash(data: message + seed)))
                let rPoint = Ed25519Verifier.combination(Scalar25519.signedDigits(r), Ed25519Verifier.baseTable,
                                                         minus: zeroDigits, Ed25519Verifier.baseTable)
                let rBytes = littleEndianBytes(rPoint.encoded)
                let h = Scalar25519.reduce(Array(SHA512.hash(data: rBytes + mixedKey + message)))
                let s = Self.mulAdd(h, a, r)
                if agree(rBytes + littleEndianBytes(s), message, mixedKey, table: table) { accepted += 1 } else { refused += 1 }
            }
        }
        #expect(accepted > 0)
        #expect(refused > accepted)
    }

    @Test func keysThatDoNotDecodeAgree() {
        var rng = SystemRandomNumberGenerator()
        var undecodable = 0
        let signature = Array(try! Curve25519.Signing.PrivateKey().signature(for: [1, 2, 3]))
        for _ in 0..<200 {
            let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if EdwardsPoint(key) == nil { undecodable += 1 }
            _ = agree(signature, [1, 2, 3], key)
        }
        #expect(undecodable > 50)
    }

    @Test func theCacheMakesTablesOnTheSecondSightAndStaysBounded() {
        let verifier = Ed25519Verifier(tableCapacity: 2, seenCapacity: 8)
        let keys = (0..<3).map { _ in Curve25519.Signing.PrivateKey() }
        for key in keys {
            let signature = Array(try! key.signature(for: [9]))
            let id = Bytes32(Array(key.publicKey.rawRepresentation))
            #expect(verifier.verify(signature, for: [9], key: id))
            #expect(!verifier.verify(signature, for: [8], key: id))
            #expect(verifier.verify(signature, for: [9], key: id))
        }
        #expect(verifier.tableCount == 2)
    }
    #endif

    // MARK: Helpers

    /// Checks the table path against swift-crypto for one vector and returns the common answer.
    private func agree(_ signature: [UInt8], _ message: [UInt8], _ key: [UInt8], table: Ed25519Verifier.KeyTable? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let expected = (try? Curve25519.Signing.PublicKey(rawRepresentation: key))?.isValidSignature(signature, for: message) ?? false
        let id = Bytes32(key)
        let fast = Ed25519Verifier.verify(signature, message, key: id, table: table ?? Ed25519Verifier.KeyTable(id))
        #expect(fast == expected, "signature \(signature) key \(key) message \(message)", sourceLocation: sourceLocation)
        return expected
    }

    private let zeroDigits = [Int8](repeating: 0, count: 64)

    /// The encodings of the eight points of order dividing 8 (y = 1, p - 1, 0 twice as ±√-1, and
    /// the order-8 ys), and y + p for the ys below 19 (the non-canonical encodings).
    static let smallOrderEncodings: [[UInt8]] = {
        var list: [[UInt8]] = []
        list.append([1] + [UInt8](repeating: 0, count: 31))
        list.append(pMinus(1))
        list.append([0x26, 0xE8, 0x95, 0x8F, 0xC2, 0xB2, 0x27, 0xB0, 0x45, 0xC3, 0xF4, 0x89, 0xF2, 0xEF, 0x98, 0xF0,
                     0xD5, 0xDF, 0xAC, 0x05, 0xD3, 0xC6, 0x33, 0x39, 0xB1, 0x38, 0x02, 0x88, 0x6D, 0x53, 0xFC, 0x05])
        list.append([0xC7, 0x17, 0x6A, 0x70, 0x3D, 0x4D, 0xD8, 0x4F, 0xBA, 0x3C, 0x0B, 0x76, 0x0D, 0x10, 0x67, 0x0F,
                     0x2A, 0x20, 0x53, 0xFA, 0x2C, 0x39, 0xCC, 0xC6, 0x4E, 0xC7, 0xFD, 0x77, 0x92, 0xAC, 0x03, 0x7A])
        list.append([UInt8](repeating: 0, count: 32))
        list.append(pMinus(0))
        var pPlusOne = pMinus(0); pPlusOne[0] += 1
        list.append(pPlusOne)
        return list
    }()

    static let identityEncoding: [UInt8] = [1] + [UInt8](repeating: 0, count: 31)
    static var identityNonCanonical: [UInt8] { var e = pMinus(0); e[0] += 1; return e }

    @Test func smallOrderEncodingsAreOfSmallOrder() {
        for encoding in Self.smallOrderEncodings {
            guard var point = EdwardsPoint(encoding) else { Issue.record("\(encoding) does not decode"); continue }
            for _ in 0..<3 { point = point.doubled(withT: true) }
            #expect(littleEndianBytes(point.encoded) == littleEndianBytes(EdwardsPoint.identity.encoded), "\(encoding)")
        }
    }

    /// (h·a + r) mod L with schoolbook products and the long division below.
    static func mulAdd(_ h: (UInt64, UInt64, UInt64, UInt64), _ a: (UInt64, UInt64, UInt64, UInt64), _ r: (UInt64, UInt64, UInt64, UInt64)) -> (UInt64, UInt64, UInt64, UInt64) {
        let hw = [h.0, h.1, h.2, h.3], aw = [a.0, a.1, a.2, a.3], rw = [r.0, r.1, r.2, r.3]
        var product = [UInt64](repeating: 0, count: 9)
        for i in 0..<4 {
            var carry: UInt64 = 0
            for j in 0..<4 {
                let (high, low) = hw[i].multipliedFullWidth(by: aw[j])
                let (s1, o1) = product[i + j].addingReportingOverflow(low)
                let (s2, o2) = s1.addingReportingOverflow(carry)
                product[i + j] = s2
                carry = high &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
            }
            product[i + 4] &+= carry
        }
        var carry: UInt64 = 0
        for i in 0..<8 {
            let (s1, o1) = product[i].addingReportingOverflow(i < 4 ? rw[i] : 0)
            let (s2, o2) = s1.addingReportingOverflow(carry)
            product[i] = s2
            carry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
        }
        let bytes = product[0..<8].flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) } }
        let reduced = slowReduce(bytes)
        return reduced.withUnsafeBytes { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
    }

    /// A 64-byte little-endian number modulo L, bit by bit: r ← 2r + bit, minus L when r ≥ L.
    static func slowReduce(_ digest: [UInt8]) -> [UInt8] {
        var r = [UInt8](repeating: 0, count: 33)
        let order = orderBytes + [0]
        for byteIndex in stride(from: 63, through: 0, by: -1) {
            for bit in stride(from: 7, through: 0, by: -1) {
                var carry = (digest[byteIndex] >> UInt8(bit)) & 1
                for index in 0..<33 {
                    let next = r[index] >> 7
                    r[index] = r[index] << 1 | carry
                    carry = next
                }
                if !lessThan(r, order) {
                    var borrow: Int = 0
                    for index in 0..<33 {
                        let d = Int(r[index]) - Int(order[index]) - borrow
                        r[index] = UInt8(truncatingIfNeeded: d)
                        borrow = d < 0 ? 1 : 0
                    }
                }
            }
        }
        return Array(r[0..<32])
    }

    private static func lessThan(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        for index in stride(from: a.count - 1, through: 0, by: -1) where a[index] != b[index] {
            return a[index] < b[index]
        }
        return false
    }
}

/// L in 32 little-endian bytes.
private let orderBytes: [UInt8] = [
    0xED, 0xD3, 0xF5, 0x5C, 0x1A, 0x63, 0x12, 0x58, 0xD6, 0x9C, 0xF7, 0xA2, 0xDE, 0xF9, 0xDE, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
]

/// p - k in 32 little-endian bytes, for small k.
private func pMinus(_ k: UInt8) -> [UInt8] {
    [0xED - k] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]
}

private func littleEndianBytes(_ w: (UInt64, UInt64, UInt64, UInt64)) -> [UInt8] {
    [w.0, w.1, w.2, w.3].flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) } }
}

private func words(_ element: FieldElement) -> [UInt8] {
    littleEndianBytes(element.bytes)
}

private func randomElement(_ rng: inout SystemRandomNumberGenerator) -> FieldElement {
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
    return bytes.withUnsafeBytes { FieldElement(bytes: $0) }
}
