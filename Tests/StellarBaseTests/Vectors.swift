import Foundation
import StellarBase


/// The test vectors made by Scripts/generate_vectors.py with the real Python stellar-sdk 16.1.1.
struct Vectors: Decodable {
    struct KeyPairVector: Decodable {
        struct Muxed: Decodable {
            let id: String
            let address: String
        }
        let seed_hex: String
        let secret: String
        let account_id: String
        let public_key_hex: String
        let hint_hex: String
        let muxed: [Muxed]
        let message_hex: String
        let signature_hex: String
    }

    struct EnvelopeVector: Decodable {
        let name: String
        let xdr: String
        let hash_standalone: String
        let hash_testnet: String
        let signature_count: Int
        let fee: Int64
        let sequence: String?
        let operation_count: Int?
        let source: String?
        let inner_hash_standalone: String?
    }

    struct UnsupportedVector: Decodable {
        let operation: String
        let xdr: String
    }

    struct ResultVector: Decodable {
        let name: String
        let xdr: String
        let fee_charged: Int64
        let transaction: String
        let operations: [String]?
    }

    struct AmountVector: Decodable {
        let text: String
        let stroops: String?
        let formatted: String?
        let error: String?
    }

    let passphrases: [String: String]
    let network_ids: [String: String]
    let keypairs: [KeyPairVector]
    let envelopes: [EnvelopeVector]
    let unsupported: [UnsupportedVector]
    let results: [ResultVector]
    let amounts: [AmountVector]

    static let shared: Vectors = {
        let url = Bundle.module.url(forResource: "vectors", withExtension: "json", subdirectory: "Vectors")!
        return try! JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
    }()

    func envelope(_ name: String) -> EnvelopeVector {
        envelopes.first { $0.name == name }!
    }

    /// The key pairs of the vectors, in order: alice, bob, issuer, carol, fee source, dave.
    var keys: [KeyPair] {
        keypairs.map { try! KeyPair(seed: Hex.decode($0.seed_hex)!) }
    }
}
