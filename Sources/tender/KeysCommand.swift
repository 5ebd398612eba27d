import TenderJSON
import ArgumentParser
import StellarBase

struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make and inspect Stellar keys.",
        subcommands: [Generate.self, Inspect.self]
    )

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new random key pair: the public account id (G...) and its secret seed (S...).",
            discussion: "Keep the secret seed private: whoever has it controls the account."
        )

        @Flag(help: "Print JSON ({\"account_id\", \"secret_seed\"}) instead of two labelled lines.")
        var json = false

        func run() throws {
            let keyPair = KeyPair.random()
            let secret = keyPair.secretSeed!
            if json {
                print(JSONValue.object([
                    ("account_id", .string(keyPair.accountID.strKey)),
                    ("secret_seed", .string(secret)),
                ]).rendered())
            } else {
                print("account id:  \(keyPair.accountID.strKey)")
                print("secret seed: \(secret)")
            }
        }
    }

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Tell what a Stellar key is, or why it is not valid.",
            discussion: """
                KEY may be an account id (G...), a secret seed (S...), a muxed account (M...), a \
                pre-authorized transaction hash (T...), a hash-x signer (X...) or a signed payload (P...). \
                For a seed it prints the account id it controls, never the seed again.
                """
        )

        @Argument(help: "The key to inspect.")
        var key: String

        @Flag(help: "Print JSON instead of labelled lines.")
        var json = false

        func run() throws {
            let (kind, payload): (StrKey.Kind, [UInt8])
            do {
                (kind, payload) = try StrKey.decodeAny(key)
            } catch {
                throw CommandFailure("not a valid Stellar key: \(error.message)")
            }
            var fields: [(String, JSONValue)] = [("type", .string(typeName(kind)))]
            switch kind {
            case .accountID:
                fields.append(("account_id", .string(key)))
                fields.append(("public_key_hex", .string(Hex.encode(payload))))
            case .seed:
                let keyPair = try KeyPair(seed: payload)
                fields.append(("account_id", .string(keyPair.accountID.strKey)))
                fields.append(("public_key_hex", .string(keyPair.accountID.publicKey.hex)))
            case .muxedAccount:
                let muxed = try MuxedAccount(key)
                fields.append(("account_id", .string(muxed.accountID.strKey)))
                fields.append(("muxed_id", .string(String(muxed.muxedID ?? 0))))
                fields.append(("public_key_hex", .string(muxed.accountID.publicKey.hex)))
            case .preAuthTx, .hashX:
                fields.append(("hash_hex", .string(Hex.encode(payload))))
            case .signedPayload:
                fields.append(("account_id", .string(StrKey.encode(.accountID, Array(payload.prefix(32))))))
                let length = Int(payload[32]) << 24 | Int(payload[33]) << 16 | Int(payload[34]) << 8 | Int(payload[35])
                fields.append(("payload_hex", .string(Hex.encode(payload[36..<(36 + length)]))))
            }
            if json {
                print(JSONValue.object(fields).rendered())
            } else {
                for (name, value) in fields {
                    if case .string(let text) = value { print("\(name.replacingOccurrences(of: "_", with: " ")): \(text)") }
                }
            }
        }

        func typeName(_ kind: StrKey.Kind) -> String {
            switch kind {
            case .accountID: "account_id"
            case .seed: "secret_seed"
            case .muxedAccount: "muxed_account"
            case .preAuthTx: "pre_auth_tx"
            case .hashX: "hash_x"
            case .signedPayload: "signed_payload"
            }
        }
    }
}
