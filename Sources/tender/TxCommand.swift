import ArgumentParser
import StellarBase

struct Tx: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read transaction envelopes (base64 XDR).",
        subcommands: [Decode.self, Hash.self]
    )

    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a transaction envelope as readable JSON.",
            discussion: """
                Shows the source, fee, sequence number, conditions, memo, every operation (amounts \
                with 7 decimals, assets as CODE:ISSUER) and the signatures, with the hash on the \
                network of --passphrase. Reads standard input when ENVELOPE is absent or "-".
                """
        )

        @Argument(help: "The envelope as base64 XDR, or - for standard input.")
        var envelope: String?

        @Option(help: "The network passphrase used for the hashes.")
        var passphrase = Network.standalone.passphrase

        func run() throws {
            let decoded = try decodeEnvelope(try readInput(envelope, what: "envelope"))
            print(EnvelopeJSON.envelope(decoded, network: Network(passphrase: passphrase)).rendered())
        }
    }

    struct Hash: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the hash of a transaction envelope in hex (the id Horizon uses).",
            discussion: "For a fee bump envelope this is the outer hash. Reads standard input when ENVELOPE is absent or \"-\"."
        )

        @Argument(help: "The envelope as base64 XDR, or - for standard input.")
        var envelope: String?

        @Option(help: "The network passphrase; the hash differs on every network.")
        var passphrase = Network.standalone.passphrase

        func run() throws {
            let decoded = try decodeEnvelope(try readInput(envelope, what: "envelope"))
            print(decoded.hash(on: Network(passphrase: passphrase)).hex)
        }
    }
}

/// Decodes an envelope or fails with one line that says why.
func decodeEnvelope(_ base64: String) throws -> TransactionEnvelope {
    do {
        return try TransactionEnvelope(xdrBase64: base64)
    } catch {
        switch error.code {
        case .unsupported:
            throw CommandFailure("the envelope uses \(error.unsupportedName ?? "a feature") which Tender does not support (\(error.message))")
        case .invalidBase64:
            throw CommandFailure("the envelope is not base64 text")
        default:
            throw CommandFailure("not a valid transaction envelope: \(error.message) [\(error.code)]")
        }
    }
}
