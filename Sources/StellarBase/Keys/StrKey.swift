/// Stellar's textual key encoding (SEP-23): base32 of version byte, payload and CRC16-XModem.
public enum StrKey {
    /// What a StrKey holds; the raw value is the version byte.
    public enum Kind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
        /// An ed25519 public key (account id), `G...`.
        case accountID = 48 // 6 << 3
        /// An ed25519 secret seed, `S...`.
        case seed = 144 // 18 << 3
        /// A muxed account: public key and 64-bit id, `M...`.
        case muxedAccount = 96 // 12 << 3
        /// The hash of a pre-authorized transaction, `T...`.
        case preAuthTx = 152 // 19 << 3
        /// A SHA-256 hash whose preimage signs, `X...`.
        case hashX = 184 // 23 << 3
        /// An ed25519 signed payload signer, `P...`.
        case signedPayload = 120 // 15 << 3

        public var prefix: Character {
            switch self {
            case .accountID: "G"
            case .seed: "S"
            case .muxedAccount: "M"
            case .preAuthTx: "T"
            case .hashX: "X"
            case .signedPayload: "P"
            }
        }

        public var description: String {
            switch self {
            case .accountID: "account id"
            case .seed: "secret seed"
            case .muxedAccount: "muxed account"
            case .preAuthTx: "pre-authorized transaction hash"
            case .hashX: "hash-x signer"
            case .signedPayload: "signed payload signer"
            }
        }

        init?(prefix: Character) {
            guard let kind = Kind.allCases.first(where: { $0.prefix == prefix }) else { return nil }
            self = kind
        }
    }

    /// Encodes `payload` with the version byte of `kind`.
    public static func encode(_ kind: Kind, _ payload: [UInt8]) -> String {
        var data = [kind.rawValue]
        data.append(contentsOf: payload)
        let crc = crc16XModem(data)
        data.append(UInt8(truncatingIfNeeded: crc))
        data.append(UInt8(truncatingIfNeeded: crc >> 8))
        return base32Encode(data)
    }

    /// Decodes `text`, which must be a canonical StrKey of `kind`.
    /// - Throws: ``StrKeyError`` naming what is wrong.
    public static func decode(_ kind: Kind, _ text: String) throws(StrKeyError) -> [UInt8] {
        let (found, payload) = try decodeAny(text)
        guard found == kind else {
            throw StrKeyError(.wrongKind, "expected a \(kind) (\(kind.prefix)...), got a \(found) (\(found.prefix)...)")
        }
        return payload
    }

    /// Decodes a canonical StrKey of any known kind.
    /// - Throws: ``StrKeyError`` naming what is wrong.
    public static func decodeAny(_ text: String) throws(StrKeyError) -> (Kind, [UInt8]) {
        let utf8 = Array(text.utf8)
        guard !utf8.isEmpty else { throw StrKeyError(.invalidLength, "the key is empty") }
        guard utf8.count <= 200 else {
            throw StrKeyError(.invalidLength, "the key is \(utf8.count) characters long; no Stellar key is longer than 165")
        }
        guard let kind = Kind(prefix: Character(Unicode.Scalar(utf8[0]))) else {
            throw StrKeyError(.unknownVersionByte, "a Stellar key starts with G, S, M, T, X or P, not \"\(Character(Unicode.Scalar(utf8[0])))\"")
        }
        let expectedLengths: [Int]
        switch kind {
        case .accountID, .seed, .preAuthTx, .hashX: expectedLengths = [56]
        case .muxedAccount: expectedLengths = [69]
        case .signedPayload: expectedLengths = Array(69...165)
        }
        guard expectedLengths.contains(utf8.count) else {
            let want = expectedLengths.count == 1 ? "\(expectedLengths[0])" : "\(expectedLengths.first!)-\(expectedLengths.last!)"
            throw StrKeyError(.invalidLength, "a \(kind) has \(want) characters, this one has \(utf8.count)")
        }
        let data = try base32Decode(utf8)
        guard data.count >= 3 else { throw StrKeyError(.invalidLength, "the key is too short") }
        guard data[0] == kind.rawValue else {
            throw StrKeyError(.unknownVersionByte, "version byte \(data[0]) is not a \(kind)")
        }
        let crc = crc16XModem(data[0..<(data.count - 2)])
        let stored = UInt16(data[data.count - 2]) | UInt16(data[data.count - 1]) << 8
        guard crc == stored else { throw StrKeyError(.invalidChecksum, "the checksum does not match; the key is mistyped") }
        let payload = Array(data[1..<(data.count - 2)])
        try checkPayload(kind, payload)
        // Base32 can spell the same bytes with different trailing bits, or with a last character
        // that holds no whole byte; only the canonical text is valid. The decoder refused nonzero
        // trailing bits, so the text is the encoding of its bytes exactly when encoding them
        // gives as many characters: n characters decode to ⌊5n/8⌋ bytes, r = 5n mod 8 bits left
        // over, and those bytes encode to n - ⌊r/5⌋ characters (a test checks this against
        // encoding again, over every length).
        guard Self.isCanonicalLength(utf8.count) else {
            throw StrKeyError(.nonCanonical, "the key is not in canonical form")
        }
        return (kind, payload)
    }

    private static func checkPayload(_ kind: Kind, _ payload: [UInt8]) throws(StrKeyError) {
        switch kind {
        case .accountID, .seed, .preAuthTx, .hashX:
            guard payload.count == 32 else { throw StrKeyError(.invalidPayload, "a \(kind) holds 32 bytes, not \(payload.count)") }
        case .muxedAccount:
            guard payload.count == 40 else { throw StrKeyError(.invalidPayload, "a muxed account holds 40 bytes, not \(payload.count)") }
        case .signedPayload:
            // 32-byte key, then the payload as XDR opaque<64>: length, bytes, zero padding.
            guard payload.count >= 36 else { throw StrKeyError(.invalidPayload, "a signed payload signer is too short") }
            let length = Int(payload[32]) << 24 | Int(payload[33]) << 16 | Int(payload[34]) << 8 | Int(payload[35])
            guard length >= 1, length <= 64 else { throw StrKeyError(.invalidPayload, "a signed payload holds 1-64 bytes, not \(length)") }
            let padded = (length + 3) & ~3
            guard payload.count == 36 + padded else { throw StrKeyError(.invalidPayload, "the signed payload length does not match") }
            guard payload[(36 + length)...].allSatisfy({ $0 == 0 }) else {
                throw StrKeyError(.invalidPayload, "the signed payload has non-zero padding")
            }
        }
    }

    /// The key of a valid `G...` account id, decoded without allocating (every
    /// `GET /accounts/{id}` decodes one: the general decoder's arrays were about 2.7% of the
    /// server's samples on a miss); nil for any text that is not one, which the general decoder
    /// then refuses with its reason. 56 characters are 35 bytes exactly (no trailing bits, so
    /// the text is canonical): the version byte, the key and the CRC, low byte first.
    static func accountKey(_ text: String) -> Bytes32? {
        var text = text
        return text.withUTF8 { utf8 -> Bytes32? in
            guard utf8.count == 56 else { return nil }
            // Seven groups of eight characters, each 40 bits.
            var groups = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
            let valid = withUnsafeMutableBytes(of: &groups) { raw -> Bool in
                let words = raw.bindMemory(to: UInt64.self)
                var invalid: Int8 = 0
                for group in 0..<7 {
                    var word: UInt64 = 0
                    for index in (group * 8)..<(group * 8 + 8) {
                        let value = reverse[Int(utf8[index])]
                        invalid |= value
                        word = word << 5 | UInt64(UInt8(truncatingIfNeeded: value) & 31)
                    }
                    words[group] = word
                }
                return invalid >= 0
            }
            guard valid else { return nil }
            // The 35 bytes, big-endian within each group.
            var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
            return withUnsafeMutableBytes(of: &bytes) { out -> Bytes32? in
                withUnsafeBytes(of: groups) { raw in
                    let words = raw.bindMemory(to: UInt64.self)
                    for group in 0..<7 {
                        for shift in 0..<5 {
                            out[group * 5 + shift] = UInt8(truncatingIfNeeded: words[group] >> UInt64(32 - 8 * shift))
                        }
                    }
                }
                guard out[0] == Kind.accountID.rawValue else { return nil }
                guard crc16XModem(out[0..<33]) == UInt16(out[33]) | UInt16(out[34]) << 8 else { return nil }
                func word(_ start: Int) -> UInt64 {
                    var word: UInt64 = 0
                    for index in start..<(start + 8) { word = word << 8 | UInt64(out[index]) }
                    return word
                }
                return Bytes32(w0: word(1), w1: word(9), w2: word(17), w3: word(25))
            }
        }
    }

    /// Whether base32 text of `count` characters, with zero trailing bits, is the encoding of
    /// the bytes it decodes to (see ``decodeAny(_:)``).
    static func isCanonicalLength(_ count: Int) -> Bool { (5 * count) % 8 < 5 }

    /// CRC-16/XMODEM: polynomial 0x1021, initial value 0; a byte at a time through a table
    /// (every StrKey read or written pays it: eight shifts a byte were about 2.6% of the
    /// server's samples answering `GET /accounts/{id}` at ten million accounts).
    static func crc16XModem<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ crcTable[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    /// The CRC of each byte value as the top byte of a register of zeros.
    private static let crcTable: [UInt16] = (0..<256).map { value in
        var crc = UInt16(value) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
    private static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = Int8(index) }
        return table
    }()

    static func base32Encode(_ data: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((data.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in data {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func base32Decode(_ text: [UInt8]) throws(StrKeyError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for char in text {
            let value = reverse[Int(char)]
            guard value >= 0 else {
                let shown = char < 0x80 ? String(UnicodeScalar(char)) : "non-ASCII byte"
                throw StrKeyError(.invalidCharacter, "\"\(shown)\" is not a base32 character (A-Z, 2-7)")
            }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits - 8)))
                bits -= 8
            }
        }
        // Leftover bits must be zero, or the text is not canonical.
        if bits > 0, buffer & ((1 << UInt32(bits)) - 1) != 0 {
            throw StrKeyError(.nonCanonical, "the key has non-zero trailing bits")
        }
        return out
    }
}

/// Why a StrKey could not be decoded.
public struct StrKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let invalidLength = Code("strkey_invalid_length")
        public static let invalidCharacter = Code("strkey_invalid_character")
        public static let unknownVersionByte = Code("strkey_unknown_version_byte")
        public static let wrongKind = Code("strkey_wrong_kind")
        public static let invalidChecksum = Code("strkey_invalid_checksum")
        public static let invalidPayload = Code("strkey_invalid_payload")
        public static let nonCanonical = Code("strkey_non_canonical")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
