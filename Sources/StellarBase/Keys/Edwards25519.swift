/// Points of edwards25519 (-x² + y² = 1 + d·x²·y² over the integers modulo 2^255 - 19) in the
/// coordinates and with the formulas of ref10 (the code BoringSSL's Ed25519 is built from).
///
/// The addition and doubling formulas are complete on this curve (d is not a square), so they give
/// the right point for every pair of points, the identity and points of small order included.
struct EdwardsPoint {
    /// Extended coordinates: x = X/Z, y = Y/Z, x·y = T/Z.
    var x: FieldElement, y: FieldElement, z: FieldElement, t: FieldElement

    static let identity = EdwardsPoint(x: .zero, y: .one, z: .one, t: .zero)

    /// d = -121665/121666.
    static let d: FieldElement = -FieldElement(121_665) * FieldElement(121_666).inverted
    static let d2: FieldElement = d + d
    /// A square root of -1: 2^((p - 1) / 4).
    static let sqrtMinusOne: FieldElement = {
        // (p - 1) / 4 = 2^253 - 5, by squaring and multiplying from the top bit down.
        let two = FieldElement(2)
        var r = FieldElement.one
        for bit in stride(from: 252, through: 0, by: -1) {
            r = r.squared
            if bit != 2 { r = r * two }
        }
        return r
    }()

    /// The base point B, y = 4/5 with x even.
    static let base: EdwardsPoint = {
        var encoding = [UInt8](repeating: 0x66, count: 32)
        encoding[0] = 0x58
        return EdwardsPoint(encoding)!
    }()

    init(x: FieldElement, y: FieldElement, z: FieldElement, t: FieldElement) {
        self.x = x; self.y = y; self.z = z; self.t = t
    }

    /// The point a 32-byte encoding names, as BoringSSL's `x25519_ge_frombytes_vartime` reads it:
    /// y is the low 255 bits taken modulo p, x the root of (y² - 1)/(d·y² + 1) whose parity is the
    /// top bit (for x = 0 either bit gives x = 0). Nil when that is not a square.
    init?(_ encoding: some Collection<UInt8>) {
        guard encoding.count == 32 else { return nil }
        let bytes = Array(encoding)
        let y = bytes.withUnsafeBytes { FieldElement(bytes: $0) }
        let yy = y.squared
        let u = yy - .one
        let v = yy * Self.d + .one
        let w = u * v
        var x = w.pow22523 * u
        let vxx = x.squared * v
        if !(vxx - u).isZero {
            guard (vxx + u).isZero else { return nil }
            x = x * Self.sqrtMinusOne
        }
        if x.isNegative != (bytes[31] >> 7 == 1) { x = -x }
        self.init(x: x, y: y, z: .one, t: x * y)
    }

    /// The 32-byte encoding: y canonical, x's parity in the top bit.
    var encoded: (UInt64, UInt64, UInt64, UInt64) {
        let inverse = z.inverted
        let ax = x * inverse, ay = y * inverse
        var e = ay.bytes
        if ax.isNegative { e.3 |= 1 << 63 }
        return e
    }

    /// 2P (ref10's `ge_p2_dbl` and the conversion back; T only when `withT`).
    @inline(__always)
    func doubled(withT: Bool) -> EdwardsPoint {
        let xx = x.squared, yy = y.squared
        let zz2 = z.squared + z.squared
        let h = yy + xx
        let g = yy - xx
        let e = (x + y).squared - h
        let f = zz2 - g
        return EdwardsPoint(x: e * f, y: h * g, z: g * f, t: withT ? e * h : .zero)
    }

    /// P + Q for Q in projective Niels form.
    @inline(__always)
    func adding(_ q: CachedPoint) -> EdwardsPoint {
        let a = (y + x) * q.yPlusX
        let b = (y - x) * q.yMinusX
        let c = q.t2d * t
        let zz = z * q.z
        let dd = zz + zz
        let e = a - b, h = a + b, g = dd + c, f = dd - c
        return EdwardsPoint(x: e * f, y: h * g, z: g * f, t: e * h)
    }

    /// P + Q, or P - Q when `negated`, for Q in affine Niels form (ref10's `ge_madd` and
    /// `ge_msub`: -Q swaps y + x with y - x and negates 2d·x·y).
    @inline(__always)
    func adding(_ q: AffinePoint, negated: Bool = false) -> EdwardsPoint {
        let a = (y + x) * (negated ? q.yMinusX : q.yPlusX)
        let b = (y - x) * (negated ? q.yPlusX : q.yMinusX)
        let c = q.xy2d * t
        let dd = z + z
        let e = a - b, h = a + b
        let (g, f) = negated ? (dd - c, dd + c) : (dd + c, dd - c)
        return EdwardsPoint(x: e * f, y: h * g, z: g * f, t: e * h)
    }

    /// P - Q for Q in affine Niels form.
    @inline(__always)
    func subtracting(_ q: AffinePoint) -> EdwardsPoint { adding(q, negated: true) }

    var cached: CachedPoint {
        CachedPoint(yPlusX: y + x, yMinusX: y - x, z: z, t2d: t * Self.d2)
    }
}

/// (Y + X, Y - X, Z, 2d·T) of a point.
struct CachedPoint {
    var yPlusX: FieldElement, yMinusX: FieldElement, z: FieldElement, t2d: FieldElement
}

/// (y + x, y - x, 2d·x·y) of a point with Z = 1.
struct AffinePoint {
    var yPlusX: FieldElement, yMinusX: FieldElement, xy2d: FieldElement
}

/// j · 2^(32m) · P for j in 1...8 and m in 0..<8: with a scalar's 64 signed radix-16 digits
/// d₀…d₆₃, Σ dᵢ·16ⁱ·P = Σ over r of 16^r · Σ over m of d₈ₘ₊ᵣ · (16^(8m)·P), so a multiple
/// of P costs 28 doublings and at most 64 additions from this table, and two multiples taken
/// together share the doublings.
struct MultiplesTable {
    /// 64 points: entry 8m + j - 1 is j · 2^(32m) · P.
    let points: [AffinePoint]

    init(_ point: EdwardsPoint) {
        var projective: [EdwardsPoint] = []
        projective.reserveCapacity(64)
        var base = point
        for m in 0..<8 {
            if m > 0 {
                for step in 0..<32 { base = base.doubled(withT: step == 31) }
            }
            let cachedBase = base.cached
            let two = base.doubled(withT: true)
            let three = two.adding(cachedBase)
            let four = two.doubled(withT: true)
            let five = four.adding(cachedBase)
            let six = three.doubled(withT: true)
            let seven = six.adding(cachedBase)
            let eight = four.doubled(withT: true)
            projective += [base, two, three, four, five, six, seven, eight]
        }
        // One inversion for all 64 Zs (Montgomery's trick).
        var prefix: [FieldElement] = []
        prefix.reserveCapacity(64)
        var running = FieldElement.one
        for p in projective {
            prefix.append(running)
            running = running * p.z
        }
        var inverse = running.inverted
        var affine = [AffinePoint](repeating: AffinePoint(yPlusX: .one, yMinusX: .one, xy2d: .zero), count: 64)
        for index in stride(from: 63, through: 0, by: -1) {
            let p = projective[index]
            let zInverse = inverse * prefix[index]
            inverse = inverse * p.z
            let ax = p.x * zInverse, ay = p.y * zInverse
            affine[index] = AffinePoint(yPlusX: ay + ax, yMinusX: ay - ax, xy2d: ax * ay * EdwardsPoint.d2)
        }
        points = affine
    }
}

/// Integers modulo the group order L = 2^252 + 27742317777372353535851937790883648493.
enum Scalar25519 {
    /// L in four little-endian 64-bit words.
    static let order: (UInt64, UInt64, UInt64, UInt64) = (0x5812_631A_5CF5_D3ED, 0x14DE_F9DE_A2F7_9CD6, 0, 0x1000_0000_0000_0000)

    /// Whether 32 little-endian bytes are below L (BoringSSL's check on a signature's s).
    static func isCanonical(_ w: (UInt64, UInt64, UInt64, UInt64)) -> Bool {
        if w.3 != order.3 { return w.3 < order.3 }
        if w.2 != order.2 { return w.2 < order.2 }
        if w.1 != order.1 { return w.1 < order.1 }
        return w.0 < order.0
    }

    /// A 64-byte little-endian integer (a SHA-512 digest) modulo L, as four little-endian words.
    ///
    /// Byte by byte from the top: r ← 256·r + byte, then with v = q·2^252 + low (q < 2^9),
    /// v ≡ low - q·c (mod L) where c = L - 2^252 < 2^125, and adding L once makes it non-negative.
    static func reduce(_ digest: some Collection<UInt8>) -> (UInt64, UInt64, UInt64, UInt64) {
        let bytes = Array(digest)
        precondition(bytes.count == 64)
        var r0: UInt64 = 0, r1: UInt64 = 0, r2: UInt64 = 0, r3: UInt64 = 0
        for byte in bytes.reversed() {
            // v = 256·r + byte (r < L < 2^253, so v < 2^261: the top word holds bits 192-260 as r3 << 8 | r2 >> 56).
            let top = r3 >> 56
            r3 = r3 << 8 | r2 >> 56
            r2 = r2 << 8 | r1 >> 56
            r1 = r1 << 8 | r0 >> 56
            r0 = r0 << 8 | UInt64(byte)
            // q = v >> 252, low = v mod 2^252.
            let q = top << 4 | r3 >> 60
            r3 &= (1 << 60) - 1
            // q·c, c = order.0 + order.1·2^64.
            let (h0, l0) = q.multipliedFullWidth(by: order.0)
            let (h1, l1) = q.multipliedFullWidth(by: order.1)
            let (m1, carry) = l1.addingReportingOverflow(h0)
            let m2 = h1 &+ (carry ? 1 : 0)
            // low - q·c.
            var borrow: Bool
            (r0, borrow) = r0.subtractingReportingOverflow(l0)
            (r1, borrow) = subtract(r1, m1, borrow)
            (r2, borrow) = subtract(r2, m2, borrow)
            (r3, borrow) = subtract(r3, 0, borrow)
            if borrow {
                // Negative: add L (the sum's carry out of the top word cancels the borrow).
                var carry: Bool
                (r0, carry) = r0.addingReportingOverflow(order.0)
                (r1, carry) = add(r1, order.1, carry)
                (r2, carry) = add(r2, order.2, carry)
                (r3, _) = add(r3, order.3, carry)
            }
        }
        return (r0, r1, r2, r3)
    }

    @inline(__always)
    private static func subtract(_ a: UInt64, _ b: UInt64, _ borrow: Bool) -> (UInt64, Bool) {
        let (d, o1) = a.subtractingReportingOverflow(b)
        let (e, o2) = d.subtractingReportingOverflow(borrow ? 1 : 0)
        return (e, o1 || o2)
    }

    @inline(__always)
    private static func add(_ a: UInt64, _ b: UInt64, _ carry: Bool) -> (UInt64, Bool) {
        let (s, o1) = a.addingReportingOverflow(b)
        let (t, o2) = s.addingReportingOverflow(carry ? 1 : 0)
        return (t, o1 || o2)
    }

    /// The 64 signed radix-16 digits (each in -8...8) of a scalar below 2^255 (ref10's recoding).
    static func signedDigits(_ w: (UInt64, UInt64, UInt64, UInt64)) -> [Int8] {
        var digits = [Int8](repeating: 0, count: 64)
        let words = [w.0, w.1, w.2, w.3]
        for index in 0..<64 {
            digits[index] = Int8(truncatingIfNeeded: (words[index / 16] >> (UInt64(index % 16) * 4)) & 15)
        }
        var carry: Int8 = 0
        for index in 0..<63 {
            digits[index] += carry
            carry = (digits[index] + 8) >> 4
            digits[index] -= carry << 4
        }
        digits[63] += carry
        return digits
    }
}
