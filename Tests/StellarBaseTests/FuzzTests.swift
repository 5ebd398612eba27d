import Testing
import StellarBase
import TenderTesting

/// Feeds random and mutated inputs to the decoders: every input either decodes to a value that
/// re-encodes to the same bytes, or fails with a typed error. A crash fails the whole run.
@Suite("Decoder robustness")
struct FuzzTests {
    static let iterations = 100_000

    @Test func envelopeDecoderSurvivesRandomAndMutatedInput() throws {
        let seeds = Vectors.shared.envelopes.map { Base64.decode($0.xdr)! }
            + Vectors.shared.unsupported.map { Base64.decode($0.xdr)! }
        var rng = SplitMix64(seed: 0x7E4D_E2)
        var decoded = 0
        var failures: [XDRError.Code: Int] = [:]
        for iteration in 0..<Self.iterations {
            let input: [UInt8]
            if iteration % 10 == 0 {
                input = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                input = mutate(seeds[Int.random(in: 0..<seeds.count, using: &rng)], &rng)
            }
            do {
                let envelope = try TransactionEnvelope(xdrBytes: input)
                decoded += 1
                // Whatever decodes must be canonical: re-encoding gives the same bytes.
                #expect(envelope.xdrBytes == input)
                _ = envelope.hash(on: .standalone)
            } catch {
                failures[error.code, default: 0] += 1
            }
        }
        // Both outcomes must be exercised, or the mutations are too weak or too strong.
        #expect(decoded > 1000)
        #expect(failures.values.reduce(0, +) > Self.iterations / 2)
        #expect(failures.count >= 4)
    }

    @Test func resultDecoderSurvivesMutatedInput() {
        let seeds = Vectors.shared.results.map { Base64.decode($0.xdr)! }
        var rng = SplitMix64(seed: 0x2E5)
        for _ in 0..<(Self.iterations / 4) {
            let input = mutate(seeds[Int.random(in: 0..<seeds.count, using: &rng)], &rng)
            if let result = try? TransactionResult(xdrBytes: input) {
                #expect(result.xdrBytes == input)
            }
        }
    }

    @Test func strKeyDecoderSurvivesRandomAndMutatedInput() {
        let valid = Vectors.shared.keypairs.flatMap { [$0.account_id, $0.secret] + $0.muxed.map(\.address) }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567abcxyz01890=+/ é")
        var rng = SplitMix64(seed: 0x5712)
        var accepted = 0
        var codes: Set<StrKeyError.Code> = []
        for iteration in 0..<Self.iterations {
            var chars = Array(valid[Int.random(in: 0..<valid.count, using: &rng)])
            switch iteration % 5 {
            case 0:
                chars = (0..<Int.random(in: 0...80, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
                chars.insert(["G", "S", "M", "T", "X", "P"].randomElement(using: &rng)!, at: 0)
            case 1:
                chars[Int.random(in: 0..<chars.count, using: &rng)] = alphabet.randomElement(using: &rng)!
            case 2:
                chars.remove(at: Int.random(in: 0..<chars.count, using: &rng))
            case 3:
                chars.insert(alphabet.randomElement(using: &rng)!, at: Int.random(in: 0...chars.count, using: &rng))
            default:
                break
            }
            let text = String(chars)
            do {
                let (kind, payload) = try StrKey.decodeAny(text)
                accepted += 1
                #expect(StrKey.encode(kind, payload) == text)
            } catch {
                codes.insert(error.code)
            }
        }
        #expect(accepted >= Self.iterations / 5)
        #expect(codes.isSuperset(of: [.invalidLength, .invalidCharacter, .invalidChecksum, .unknownVersionByte]))
    }

    /// Flips, overwrites, inserts, deletes or truncates bytes, or swaps in interesting integers.
    func mutate(_ seed: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = seed
        let interesting: [[UInt8]] = [[0, 0, 0, 0], [0xff, 0xff, 0xff, 0xff], [0x7f, 0xff, 0xff, 0xff], [0, 0, 0, 1], [0, 0, 0, 2],
                                      [0, 0, 1, 0], [0x80, 0, 0, 0], [0, 0, 0, 100], [0, 0, 0, 101], [0, 0, 0, 21]]
        for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
            let index = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0...6, using: &rng) {
            case 0: bytes[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
            case 1: bytes[index] = UInt8.random(in: 0...255, using: &rng)
            case 2: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: index)
            case 3: bytes.remove(at: index)
            case 4: bytes = Array(bytes.prefix(index))
            case 5:
                let aligned = index & ~3
                let value = interesting.randomElement(using: &rng)!
                for offset in 0..<4 where aligned + offset < bytes.count { bytes[aligned + offset] = value[offset] }
            default:
                bytes += (0..<4).map { _ in UInt8.random(in: 0...255, using: &rng) }
            }
        }
        return bytes
    }
}
