/// An element of the field of integers modulo p = 2^255 - 19, in five limbs of 51 bits
/// (the representation of curve25519-donna-64 and BoringSSL's fiat-crypto code).
///
/// Limbs may run a little over 51 bits between operations: every operation here takes limbs
/// below 2^54 and returns limbs below 2^52, so products of five limb pairs (each below
/// 2^54 · 19 · 2^54) fit in 128 bits. Only ``bytes`` gives the unique (canonical) value.
struct FieldElement {
    var l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64

    static let mask: UInt64 = (1 << 51) - 1
    static let zero = FieldElement(l0: 0, l1: 0, l2: 0, l3: 0, l4: 0)
    static let one = FieldElement(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0)

    /// The little-endian 32 bytes with the top bit ignored, as RFC 8032 and BoringSSL read a
    /// point's y: a value from p to 2^255 - 1 is taken as itself minus p.
    init(bytes: UnsafeRawBufferPointer) {
        let x0 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        let x1 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let x2 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        let x3 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        l0 = x0 & Self.mask
        l1 = (x0 >> 51 | x1 << 13) & Self.mask
        l2 = (x1 >> 38 | x2 << 26) & Self.mask
        l3 = (x2 >> 25 | x3 << 39) & Self.mask
        l4 = (x3 >> 12) & Self.mask
    }

    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64) {
        self.l0 = l0; self.l1 = l1; self.l2 = l2; self.l3 = l3; self.l4 = l4
    }

    /// A small non-negative integer.
    init(_ value: UInt64) {
        precondition(value <= Self.mask)
        self.init(l0: value, l1: 0, l2: 0, l3: 0, l4: 0)
    }

    /// The canonical value as 32 little-endian bytes (below p, top bit clear).
    var bytes: (UInt64, UInt64, UInt64, UInt64) {
        var t = self
        t.carryWrapping()
        t.carryWrapping()
        // Now below 2^255 + a little. Adding 19 carries into bit 255 exactly when the value is p or more.
        t.l0 &+= 19
        t.carryWrapping()
        // Offset by 2^255 - 19 + 19 so that dropping bit 255 leaves the value minus p when it was p or more.
        t.l0 &+= (1 << 51) - 19
        t.l1 &+= (1 << 51) - 1
        t.l2 &+= (1 << 51) - 1
        t.l3 &+= (1 << 51) - 1
        t.l4 &+= (1 << 51) - 1
        t.l1 &+= t.l0 >> 51; t.l0 &= Self.mask
        t.l2 &+= t.l1 >> 51; t.l1 &= Self.mask
        t.l3 &+= t.l2 >> 51; t.l2 &= Self.mask
        t.l4 &+= t.l3 >> 51; t.l3 &= Self.mask
        t.l4 &= Self.mask
        return (t.l0 | t.l1 << 51, t.l1 >> 13 | t.l2 << 38, t.l2 >> 26 | t.l3 << 25, t.l3 >> 39 | t.l4 << 12)
    }

    /// Whether the canonical value is odd (RFC 8032's "negative" x).
    var isNegative: Bool { bytes.0 & 1 == 1 }

    var isZero: Bool {
        let b = bytes
        return b.0 | b.1 | b.2 | b.3 == 0
    }

    /// Carries each limb's bits above 51 into the next, the top limb's times 19 into the first.
    @inline(__always)
    mutating func carryWrapping() {
        l1 &+= l0 >> 51; l0 &= Self.mask
        l2 &+= l1 >> 51; l1 &= Self.mask
        l3 &+= l2 >> 51; l2 &= Self.mask
        l4 &+= l3 >> 51; l3 &= Self.mask
        l0 &+= 19 &* (l4 >> 51); l4 &= Self.mask
    }

    @inline(__always)
    static func + (a: FieldElement, b: FieldElement) -> FieldElement {
        var r = FieldElement(l0: a.l0 &+ b.l0, l1: a.l1 &+ b.l1, l2: a.l2 &+ b.l2, l3: a.l3 &+ b.l3, l4: a.l4 &+ b.l4)
        r.carryWrapping()
        return r
    }

    /// a - b as a + 4p - b, so no limb goes below zero for b's limbs below 2^53.
    @inline(__always)
    static func - (a: FieldElement, b: FieldElement) -> FieldElement {
        var r = FieldElement(
            l0: a.l0 &+ 0x1F_FFFF_FFFF_FFB4 &- b.l0, l1: a.l1 &+ 0x1F_FFFF_FFFF_FFFC &- b.l1,
            l2: a.l2 &+ 0x1F_FFFF_FFFF_FFFC &- b.l2, l3: a.l3 &+ 0x1F_FFFF_FFFF_FFFC &- b.l3,
            l4: a.l4 &+ 0x1F_FFFF_FFFF_FFFC &- b.l4)
        r.carryWrapping()
        return r
    }

    @inline(__always)
    static prefix func - (a: FieldElement) -> FieldElement { .zero - a }

    @inline(__always)
    private static func reduce(_ r0: UInt128, _ r1: UInt128, _ r2: UInt128, _ r3: UInt128, _ r4: UInt128) -> FieldElement {
        var r1 = r1, r2 = r2, r3 = r3, r4 = r4
        let mask = UInt128(Self.mask)
        r1 &+= r0 >> 51; let o0 = UInt64(truncatingIfNeeded: r0 & mask)
        r2 &+= r1 >> 51; let o1 = UInt64(truncatingIfNeeded: r1 & mask)
        r3 &+= r2 >> 51; let o2 = UInt64(truncatingIfNeeded: r2 & mask)
        r4 &+= r3 >> 51; let o3 = UInt64(truncatingIfNeeded: r3 & mask)
        let o4 = UInt64(truncatingIfNeeded: r4 & mask)
        let top = UInt64(truncatingIfNeeded: r4 >> 51)
        var out = FieldElement(l0: o0 &+ 19 &* top, l1: o1, l2: o2, l3: o3, l4: o4)
        out.l1 &+= out.l0 >> 51; out.l0 &= Self.mask
        return out
    }

    @inline(__always)
    private static func wide(_ a: UInt64, _ b: UInt64) -> UInt128 { UInt128(a) &* UInt128(b) }

    @inline(__always)
    static func * (a: FieldElement, b: FieldElement) -> FieldElement {
        let b1 = 19 &* b.l1, b2 = 19 &* b.l2, b3 = 19 &* b.l3, b4 = 19 &* b.l4
        let r0 = wide(a.l0, b.l0) &+ wide(a.l1, b4) &+ wide(a.l2, b3) &+ wide(a.l3, b2) &+ wide(a.l4, b1)
        let r1 = wide(a.l0, b.l1) &+ wide(a.l1, b.l0) &+ wide(a.l2, b4) &+ wide(a.l3, b3) &+ wide(a.l4, b2)
        let r2 = wide(a.l0, b.l2) &+ wide(a.l1, b.l1) &+ wide(a.l2, b.l0) &+ wide(a.l3, b4) &+ wide(a.l4, b3)
        let r3 = wide(a.l0, b.l3) &+ wide(a.l1, b.l2) &+ wide(a.l2, b.l1) &+ wide(a.l3, b.l0) &+ wide(a.l4, b4)
        let r4 = wide(a.l0, b.l4) &+ wide(a.l1, b.l3) &+ wide(a.l2, b.l2) &+ wide(a.l3, b.l1) &+ wide(a.l4, b.l0)
        return reduce(r0, r1, r2, r3, r4)
    }

    /// The square, with 15 limb products instead of 25.
    @inline(__always)
    var squared: FieldElement {
        let d0 = 2 &* l0, d1 = 2 &* l1
        let a3_19 = 19 &* l3, a4_19 = 19 &* l4
        let r0 = Self.wide(l0, l0) &+ Self.wide(d1, a4_19) &+ Self.wide(2 &* l2, a3_19)
        let r1 = Self.wide(d0, l1) &+ Self.wide(2 &* l2, a4_19) &+ Self.wide(l3, a3_19)
        let r2 = Self.wide(d0, l2) &+ Self.wide(l1, l1) &+ Self.wide(2 &* l3, a4_19)
        let r3 = Self.wide(d0, l3) &+ Self.wide(d1, l2) &+ Self.wide(l4, a4_19)
        let r4 = Self.wide(d0, l4) &+ Self.wide(d1, l3) &+ Self.wide(l2, l2)
        return Self.reduce(r0, r1, r2, r3, r4)
    }

    /// The square taken `times` times in a row.
    @inline(__always)
    func squared(times: Int) -> FieldElement {
        var r = self
        for _ in 0..<times { r = r.squared }
        return r
    }

    /// self^(2^250 - 1) and self^11, the common start of inverting and of square roots (ref10's chain).
    private var pow2250minus1: (FieldElement, FieldElement) {
        let z2 = squared
        let z9 = squared(times: 3) * self
        let z11 = z9 * z2
        let z2_5_0 = z11.squared * z9
        let z2_10_0 = z2_5_0.squared(times: 5) * z2_5_0
        let z2_20_0 = z2_10_0.squared(times: 10) * z2_10_0
        let z2_40_0 = z2_20_0.squared(times: 20) * z2_20_0
        let z2_50_0 = z2_40_0.squared(times: 10) * z2_10_0
        let z2_100_0 = z2_50_0.squared(times: 50) * z2_50_0
        let z2_200_0 = z2_100_0.squared(times: 100) * z2_100_0
        let z2_250_0 = z2_200_0.squared(times: 50) * z2_50_0
        return (z2_250_0, z11)
    }

    /// self^(p - 2), the inverse (zero for zero).
    var inverted: FieldElement {
        let (z2_250_0, z11) = pow2250minus1
        return z2_250_0.squared(times: 5) * z11
    }

    /// self^((p - 5) / 8) = self^(2^252 - 3), for square roots.
    var pow22523: FieldElement {
        pow2250minus1.0.squared(times: 2) * self
    }
}
