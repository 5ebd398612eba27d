/// 32 bytes held inline (no heap allocation), used for keys and hashes.
///
/// The words hold the bytes in big-endian order, so comparing `(w0, w1, w2, w3)` compares the bytes.
public struct Bytes32: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    public init(w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64) {
        self.w0 = w0; self.w1 = w1; self.w2 = w2; self.w3 = w3
    }

    /// Exactly 32 bytes; anything else is a programmer error.
    public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        precondition(bytes.count == 32, "Bytes32 needs exactly 32 bytes, got \(bytes.count)")
        var words: [UInt64] = [0, 0, 0, 0]
        for (index, byte) in bytes.enumerated() {
            words[index / 8] = words[index / 8] << 8 | UInt64(byte)
        }
        self.init(w0: words[0], w1: words[1], w2: words[2], w3: words[3])
    }

    public static let zero = Bytes32(w0: 0, w1: 0, w2: 0, w3: 0)

    /// Keys and hashes are uniformly random, so two of their words identify them well enough
    /// for hashing (equality still compares all 32 bytes); ledger lookups hash them constantly.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(w0)
        hasher.combine(w3)
    }

    /// What Set and Dictionary ask for, without building a SipHash state each time (a third of
    /// the ledger's apply time went to Hasher): one 64×64→128-bit multiply of two words mixed
    /// with the table's random seed, folded (wyhash's "mum" step). Keys are public keys and
    /// hashes, so steering many of them onto one bucket means grinding key pairs for chosen bits
    /// of two 64-bit words under an unknown per-table seed.
    public func _rawHashValue(seed: Int) -> Int {
        let (high, low) = (w0 ^ UInt64(UInt(bitPattern: seed))).multipliedFullWidth(by: w3 ^ 0x9E37_79B9_7F4A_7C15)
        return Int(truncatingIfNeeded: high ^ low)
    }

    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for (wordIndex, word) in [w0, w1, w2, w3].enumerated() {
            for byteIndex in 0..<8 {
                out[wordIndex * 8 + byteIndex] = UInt8(truncatingIfNeeded: word >> (56 - 8 * UInt64(byteIndex)))
            }
        }
        return out
    }

    /// The last four bytes, as a signature hint uses them.
    public var lastFourBytes: UInt32 { UInt32(truncatingIfNeeded: w3) }

    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }

    public static func < (lhs: Bytes32, rhs: Bytes32) -> Bool {
        (lhs.w0, lhs.w1, lhs.w2, lhs.w3) < (rhs.w0, rhs.w1, rhs.w2, rhs.w3)
    }
}

extension Bytes32: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        self = try reader.readBytes32()
    }

    public func encode(to writer: inout XDRWriter) { writer.write(self) }
}

/// Lower-case hexadecimal text.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes an even-length hex string (either case); nil for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
