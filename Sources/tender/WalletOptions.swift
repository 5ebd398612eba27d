import ArgumentParser
import Foundation
import StellarBase
import TenderJSON
import WalletKit
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Options every `tender wallet` subcommand takes.
struct WalletOptions: ParsableArguments {
    @Option(help: "The wallet's directory (keystore.json, contacts.json). [env: TENDER_WALLET_HOME] (default: ~/.tender-wallet)")
    var home: String?

    @Option(name: .customLong("horizon"), help: "The Horizon server. (default: http://127.0.0.1:8000, the local `tender serve`)")
    var horizonOption: String?

    /// `--horizon`, or the local `tender serve`.
    var horizon: String { horizonOption ?? "http://127.0.0.1:8000" }

    @Option(help: "The network passphrase. (default: the server's, from GET /)")
    var passphrase: String?

    @Flag(help: "Read PINs (and a seed to import, or a path number to pay along) from standard input, one per line, for scripts.")
    var pinStdin = false

    @Flag(help: "Print JSON for programs instead of tables for people.")
    var json = false

    /// These options, with what was given before the subcommand filling in what was not given
    /// after it.
    func merged(with shared: WalletOptions) -> WalletOptions {
        var merged = self
        merged.home = home ?? shared.home
        merged.horizonOption = horizonOption ?? shared.horizonOption
        merged.passphrase = passphrase ?? shared.passphrase
        merged.pinStdin = pinStdin || shared.pinStdin
        merged.json = json || shared.json
        return merged
    }

    var directory: URL {
        let path = home ?? ProcessInfo.processInfo.environment["TENDER_WALLET_HOME"] ?? (NSHomeDirectory() + "/.tender-wallet")
        return URL(fileURLWithPath: path)
    }

    /// `--horizon`, checked.
    /// - Throws: ``CommandFailure`` when it is not an http(s) URL.
    func horizonURL() throws -> URL {
        guard let url = URL(string: horizon), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw CommandFailure("--horizon must be an http(s) URL, not \(horizon)")
        }
        return url
    }

    func wallet() throws -> Wallet {
        let client = HorizonClient(baseURL: try horizonURL())
        // Without --passphrase the server's is asked for when something is signed, so commands
        // that sign nothing (create, show, contacts list...) work with no server running.
        return Wallet(
            horizon: client, network: passphrase.map { Network(passphrase: $0) },
            keystore: Keystore(storage: FileKeystoreStorage(url: directory.appendingPathComponent("keystore.json"))),
            contacts: ContactBook(storage: FileKeystoreStorage(url: directory.appendingPathComponent("contacts.json"))))
    }

    /// One line of input: from standard input with --pin-stdin, else typed at the terminal
    /// without echo.
    func secretLine(_ prompt: String) throws -> String {
        if pinStdin {
            guard let line = readLine(strippingNewline: true) else { throw CommandFailure("standard input ended before the \(prompt.lowercased())") }
            return line
        }
        return try readWithoutEcho(prompt + ": ")
    }

    func pin() throws -> String { try secretLine("PIN") }

    /// An asset written `XLM`, `native`, `CODE:ISSUER`, or a bare `CODE` of the server's test
    /// anchor (from its stellar.toml).
    func asset(_ text: String) async throws -> Asset {
        if text.uppercased() == "XLM" || text == "native" { return .native }
        if text.contains(":") {
            do { return try Asset(parsing: text) } catch { throw CommandFailure("\(text) is not an asset: \(error)") }
        }
        let currencies = (try? await HorizonClient(baseURL: try horizonURL()).anchorCurrencies()) ?? []
        if let asset = currencies.first(where: { $0.code?.text.caseInsensitiveCompare(text) == .orderedSame }) { return asset }
        throw CommandFailure("the server's test anchor has no asset \(text); write CODE:ISSUER")
    }
}

/// Turns WalletKit's and Horizon's errors into the one-line failure every command prints.
func walletFailure(_ error: any Error) -> CommandFailure {
    switch error {
    case let failure as CommandFailure: failure
    case let error as WalletError: CommandFailure(error.message)
    case let error as KeystoreError: CommandFailure(error.message)
    case let error as ContactError: CommandFailure(error.message)
    case let problem as HorizonProblem: CommandFailure("Horizon refused: \(problem)")
    case let error as URLError: CommandFailure("cannot reach Horizon: \(error.localizedDescription)")
    default: CommandFailure("\(error)")
    }
}

/// A `tender wallet` subcommand: it takes the shared options after its name (`local`) and reads
/// those given before it from the parent command (`parent.shared`).
protocol WalletSubcommand: AsyncParsableCommand {
    var local: WalletOptions { get }
    var parent: WalletCommand { get }
    func run(_ wallet: Wallet) async throws
}

extension WalletSubcommand {
    /// The shared options, from after the subcommand's name or else from before it.
    var options: WalletOptions { local.merged(with: parent.shared) }

    func run() async throws {
        do {
            try await run(try options.wallet())
        } catch {
            throw walletFailure(error)
        }
    }

    func emit(_ json: JSONValue, _ text: String) {
        print(options.json ? json.rendered() : text)
    }

    func submitted(_ submission: HorizonSubmission, _ what: String) {
        emit(.object([("hash", .string(submission.hash)), ("ledger", .number(Int64(submission.ledger)))]),
             "\(what) (ledger \(submission.ledger), transaction \(submission.hash))")
    }
}
