import Crypto
import StellarBase

func sha256Digest(_ bytes: [UInt8]) -> Bytes32 {
    SHA256.hash(data: bytes).withUnsafeBytes { Bytes32($0) }
}
