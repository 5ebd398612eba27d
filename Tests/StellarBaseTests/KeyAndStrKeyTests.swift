import Testing
@testable import StellarBase
import TenderTesting

@Suite("Key pairs and StrKey, against stellar-sdk vectors")
struct KeyVectorTests {
    let vectors = Vectors.shared

    @Test func keyPairsFromSeedsMatchTheSDK() throws {
        for vector in vectors.keypairs {
            let keyPair = try KeyPair(seed: Hex.decode(vector.seed_hex)!)
            #expect(keyPair.secretSeed == vector.secret)
            #expect(keyPair.accountID.strKey == vector.account_id)
            #expect(keyPair.accountID.publicKey.hex == vector.public_key_hex)
            #expect(String(keyPair.hint, radix: 16).leftPadded(to: 8) == vector.hint_hex)
            let fromSecret = try KeyPair(secretSeed: vector.secret)
            #expect(fromSecret.accountID == keyPair.accountID)
            #expect(try AccountID(vector.account_id) == keyPair.accountID)
        }
    }

    @Test func signaturesMatchAndVerify() throws {
        for vector in vectors.keypairs {
            let keyPair = try KeyPair(secretSeed: vector.secret)
            let message = Hex.decode(vector.message_hex)!
            let expected = Hex.decode(vector.signature_hex)!
            let signature = keyPair.sign(message)
            #if os(Linux)
            // BoringSSL's ed25519 is deterministic (RFC 8032), as the Python SDK's is; CryptoKit on
            // Apple platforms adds randomness, so there only verification is compared.
            #expect(signature == expected)
            #endif
            let verifier = KeyPair(accountID: keyPair.accountID)
            #expect(!verifier.canSign)
            #expect(verifier.verify(expected, for: message))
            #expect(verifier.verify(signature, for: message))
            var tampered = expected
            tampered[10] ^= 1
            #expect(!verifier.verify(tampered, for: message))
            #expect(!verifier.verify(expected, for: message + [0]))
            #expect(!verifier.verify(Array(expected.prefix(63)), for: message))
        }
    }

    @Test func muxedAccountsMatchTheSDK() throws {
        for vector in vectors.keypairs {
            let account = try AccountID(vector.account_id)
            for muxed in vector.muxed {
                let id = UInt64(muxed.id)!
                #expect(MuxedAccount.muxed(id: id, account).strKey == muxed.address)
                let parsed = try MuxedAccount(muxed.address)
                #expect(parsed.accountID == account)
                #expect(parsed.muxedID == id)
            }
            #expect(try MuxedAccount(vector.account_id) == .ed25519(account))
        }
    }

    @Test func networkIDsMatchTheSDK() {
        #expect(Network.standalone.networkID.hex == vectors.network_ids["standalone"])
        #expect(Network.testnet.networkID.hex == vectors.network_ids["testnet"])
        #expect(Network(passphrase: vectors.passphrases["testnet"]!) == .testnet)
    }

    @Test func randomKeyPairsSignAndVerify() {
        let keyPair = KeyPair.random()
        let other = KeyPair.random()
        #expect(keyPair.accountID != other.accountID)
        let signature = keyPair.sign([1, 2, 3])
        #expect(KeyPair(accountID: keyPair.accountID).verify(signature, for: [1, 2, 3]))
        #expect(!KeyPair(accountID: other.accountID).verify(signature, for: [1, 2, 3]))
    }
}

@Suite("StrKey refuses every kind of bad key with its own code")
struct StrKeyErrorTests {
    let account = Vectors.shared.keypairs[0].account_id
    let secret = Vectors.shared.keypairs[0].secret
    let muxed = Vectors.shared.keypairs[0].muxed[2].address

    func code(_ body: () throws -> Void) -> StrKeyError.Code? {
        do {
            try body()
            return nil
        } catch let error as StrKeyError {
            #expect(!error.message.isEmpty)
            return error.code
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func lengths() {
        #expect(code { _ = try AccountID("") } == .invalidLength)
        #expect(code { _ = try AccountID(String(account.dropLast())) } == .invalidLength)
        #expect(code { _ = try AccountID(account + "A") } == .invalidLength)
        #expect(code { _ = try MuxedAccount(String(muxed.dropLast())) } == .invalidLength)
        #expect(code { _ = try AccountID(String(repeating: "G", count: 500)) } == .invalidLength)
    }

    @Test func characters() {
        #expect(code { _ = try AccountID(account.lowercased()) } == .unknownVersionByte)
        var chars = Array(account)
        chars[10] = "1"
        #expect(code { _ = try AccountID(String(chars)) } == .invalidCharacter)
        chars[10] = "é"
        #expect(code { _ = try AccountID(String(chars)) } != nil)
        #expect(code { _ = try AccountID("G" + String(account.dropFirst()).lowercased()) } == .invalidCharacter)
    }

    @Test func wrongKindAndVersion() throws {
        #expect(code { _ = try AccountID(secret) } == .wrongKind)
        #expect(code { _ = try KeyPair(secretSeed: account) } == .wrongKind)
        #expect(code { _ = try AccountID(muxed) } == .wrongKind)
        #expect(code { _ = try MuxedAccount(secret) } == .wrongKind)
        #expect(code { _ = try AccountID("A" + account.dropFirst()) } == .unknownVersionByte)
        // "G" with the low three bits of the version byte set: the first character is still G but
        // the version byte is 6 << 3 | 1. Build it by hand.
        let payload = Array(repeating: UInt8(7), count: 32)
        let valid = StrKey.encode(.accountID, payload)
        #expect(try AccountID(valid).publicKey.bytes == payload)
    }

    @Test func checksum() {
        var chars = Array(account)
        chars[20] = chars[20] == "A" ? "B" : "A"
        #expect(code { _ = try AccountID(String(chars)) } == .invalidChecksum)
        var secretChars = Array(secret)
        secretChars[55] = secretChars[55] == "A" ? "B" : "A"
        #expect(code { _ = try KeyPair(secretSeed: String(secretChars)) } != nil)
    }

    @Test func nonCanonicalTrailingBits() throws {
        // A muxed address has 345 bits for 344 bits of data; setting the spare bit keeps the
        // checksum but is not canonical.
        var chars = Array(muxed)
        let last = chars[68]
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        let index = alphabet.firstIndex(of: last)!
        #expect(index & 1 == 0)
        chars[68] = alphabet[index | 1]
        #expect(code { _ = try MuxedAccount(String(chars)) } == .nonCanonical)
    }

    /// The decoder's canonical check (a length rule, no encoding again) against its definition:
    /// text is canonical when encoding the bytes it decodes to gives the text back. Every length
    /// to 200, random characters with the trailing bits cleared (the decoder refuses others).
    @Test func canonicalLengthsAreThoseThatEncodeBack() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
        var random = SplitMix64(seed: 30)
        var canonical: [Int] = []
        for length in 1...200 {
            for _ in 0..<20 {
                var values = (0..<length).map { _ in Int(random.next() % 32) }
                // The last 5n mod 8 bits of the stream, which may reach into the character before the last.
                for bit in 0..<(5 * length) % 8 { values[length - 1 - bit / 5] &= ~(1 << (bit % 5)) }
                let text = values.map { alphabet[$0] }
                let bytes = try StrKey.base32Decode(text)
                let encodesBack = StrKey.base32Encode(bytes) == String(decoding: text, as: UTF8.self)
                #expect(encodesBack == StrKey.isCanonicalLength(length), "length \(length)")
            }
            if StrKey.isCanonicalLength(length) { canonical.append(length) }
        }
        // The kinds' own lengths are canonical ones; a length three characters on from one is not.
        for length in [56, 69, 165] { #expect(canonical.contains(length)) }
        #expect(!StrKey.isCanonicalLength(3))
        #expect(!StrKey.isCanonicalLength(59))
    }

    @Test func otherKindsRoundTrip() throws {
        let hash = (0..<32).map { UInt8($0) }
        for kind in [StrKey.Kind.preAuthTx, .hashX, .seed, .accountID] {
            let text = StrKey.encode(kind, hash)
            #expect(text.first == kind.prefix)
            #expect(try StrKey.decode(kind, text) == hash)
        }
        let signed = SignerKey.ed25519SignedPayload(Bytes32(hash), payload: [1, 2, 3, 4, 5])
        let (kind, payload) = try StrKey.decodeAny(signed.strKey)
        #expect(kind == .signedPayload)
        #expect(payload.count == 32 + 4 + 8)
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}

@Suite("Account ids as dictionary keys")
struct AccountIDHashingTests {
    /// The fast hash must agree with equality and spread real keys evenly over a table's
    /// buckets whatever its seed, or every ledger lookup slows down.
    @Test func equalKeysHashEqualAndKeysSpreadEvenly() throws {
        var random = SplitMix64(seed: 7)
        let keys = (0..<20_000).map { _ in
            AccountID(publicKey: Bytes32(w0: random.next(), w1: random.next(), w2: random.next(), w3: random.next()))
        }
        for seed in [0, 1, -1, Int.max, Int(truncatingIfNeeded: random.next())] {
            var buckets = [Int](repeating: 0, count: 4_096)
            for key in keys {
                let copy = AccountID(publicKey: key.publicKey)
                #expect(copy._rawHashValue(seed: seed) == key._rawHashValue(seed: seed))
                buckets[key._rawHashValue(seed: seed) & 4_095] += 1
            }
            // About 4.9 per bucket; a Poisson tail beyond 20 is vanishingly rare.
            #expect(buckets.max()! <= 20, "seed \(seed): \(buckets.max()!) keys in one bucket")
            #expect(buckets.filter { $0 == 0 }.count < 100, "seed \(seed): too many empty buckets")
        }
        // Dictionaries built from the keys find every one of them, and nothing else.
        let table = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        for (index, key) in keys.enumerated() { #expect(table[key] == index) }
        #expect(table[AccountID(publicKey: .zero)] == nil)
        // Keys that differ only in the words the hash skips still stay distinct.
        let a = AccountID(publicKey: Bytes32(w0: 1, w1: 2, w2: 3, w3: 4)), b = AccountID(publicKey: Bytes32(w0: 1, w1: 9, w2: 3, w3: 4))
        #expect(Set([a, b]).count == 2)
    }
}

/// StrKey's checksum, a byte at a time through a table, against the standard's check value and
/// the bit-by-bit definition.
@Suite("StrKey's checksum")
struct StrKeyChecksumTests {
    /// CRC-16/XMODEM bit by bit: polynomial 0x1021, initial value 0, no reflection.
    static func bitwise(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return crc
    }

    @Test func theTableGivesTheDefinitionsChecksum() {
        // The catalogue's check value for CRC-16/XMODEM.
        #expect(StrKey.crc16XModem(Array("123456789".utf8)) == 0x31C3)
        #expect(StrKey.crc16XModem([UInt8]()) == 0)
        // Every byte value alone, and random inputs of every length up to 70.
        for value in 0...255 { #expect(StrKey.crc16XModem([UInt8(value)]) == Self.bitwise([UInt8(value)])) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for length in 0...70 {
            let bytes = (0..<length).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            #expect(StrKey.crc16XModem(bytes) == Self.bitwise(bytes), "\(bytes)")
        }
    }
}

/// ``StrKey/accountKey(_:)``, the allocation-free decoder of `G...` account ids, against the
/// general decoder: the same key for every valid account id, and nil for every text the general
/// decoder refuses as an account id (which `AccountID(_:)` then refuses with its reason).
@Suite("StrKey's account id decoder")
struct AccountKeyDecoderTests {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    func agrees(_ text: String) -> Bool {
        let general = try? StrKey.decode(.accountID, text)
        return StrKey.accountKey(text) == general.map { Bytes32($0) }
    }

    @Test func agreesOnValidKeysAndEveryOneCharacterChange() throws {
        var random = SplitMix64(seed: 38)
        for round in 0..<200 {
            let key = (0..<32).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let text = StrKey.encode(.accountID, key)
            #expect(StrKey.accountKey(text) == Bytes32(key))
            #expect(try AccountID(text).publicKey == Bytes32(key))
            // Every position changed to another base32 character, to a lowercase one and to one outside the alphabet.
            var chars = Array(text)
            let position = round % 56
            let original = chars[position]
            for replacement in Self.alphabet + ["a", "1", "=", "é"] where replacement != original {
                chars[position] = replacement
                #expect(agrees(String(chars)), "\(String(chars))")
            }
        }
    }

    @Test func agreesOnOtherKindsAndRandomText() {
        let payload = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        for kind in [StrKey.Kind.seed, .preAuthTx, .hashX] {
            let text = StrKey.encode(kind, payload)
            #expect(text.utf8.count == 56 && StrKey.accountKey(text) == nil)
        }
        var random = SplitMix64(seed: 56)
        for length in [0, 1, 55, 56, 57, 69] {
            for _ in 0..<50 {
                let text = String((0..<length).map { _ in Self.alphabet[Int(random.next() % 32)] })
                #expect(agrees(text), "\(text)")
            }
        }
        #expect(StrKey.accountKey("") == nil)
    }
}
