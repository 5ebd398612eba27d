import ArgumentParser
import Foundation
import StellarBase
import TenderServer
import WalletKit
#if canImport(Glibc)
import Glibc
#endif

/// Options every `tender wallet` subcommand takes.
struct WalletOptions: ParsableArguments {
    @Option(help: "The wallet's directory (keystore.json, contacts.json). [env: TENDER_WALLET_HOME] (default: ~/.tender-wallet)")
    var home: String?

    @Option(help: "The Horizon server. (default: http://127.0.0.1:8000, the local tender serve)")
    var horizon = "http://127.0.0.1:8000"

    @Option(help: "The network passphrase. (default: the server's, from GET /)")
    var passphrase: String?

    @Flag(help: "Read PINs (and a seed to import) from standard input, one per line, for scripts.")
    var pinStdin = false

    @Flag(help: "Print JSON for programs instead of tables for people.")
    var json = false

    var directory: URL {
        let path = home ?? ProcessInfo.processInfo.environment["TENDER_WALLET_HOME"] ?? (NSHomeDirectory() + "/.tender-wallet")
        return URL(fileURLWithPath: path)
    }

    func wallet() async throws -> Wallet {
        guard let url = URL(string: horizon), url.scheme == "http" || url.scheme == "https" else {
            throw CommandFailure("--horizon must be an http(s) URL, not \(horizon)")
        }
        let client = HorizonClient(baseURL: url)
        let network: Network
        if let passphrase {
            network = Network(passphrase: passphrase)
        } else {
            do {
                network = Network(passphrase: try await client.networkPassphrase())
            } catch {
                throw CommandFailure("cannot reach Horizon at \(horizon): \(error.localizedDescription)")
            }
        }
        return Wallet(
            horizon: client, network: network,
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
        let currencies = (try? await HorizonClient(baseURL: URL(string: horizon)!).anchorCurrencies()) ?? []
        if let asset = currencies.first(where: { $0.code?.text.caseInsensitiveCompare(text) == .orderedSame }) { return asset }
        throw CommandFailure("the server's test anchor has no asset \(text); write CODE:ISSUER")
    }
}

/// Reads a line from the terminal with echo off.
private func readWithoutEcho(_ prompt: String) throws -> String {
    FileHandle.standardError.write(Data(prompt.utf8))
    var original = termios()
    let isTerminal = tcgetattr(STDIN_FILENO, &original) == 0
    if isTerminal {
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
    }
    defer {
        if isTerminal {
            tcsetattr(STDIN_FILENO, TCSANOW, &original)
            FileHandle.standardError.write(Data("\n".utf8))
        }
    }
    guard let line = readLine(strippingNewline: true) else { throw CommandFailure("no input") }
    return line
}

/// Turns WalletKit's and Horizon's errors into the one-line failure every command prints.
func walletFailure(_ error: any Error) -> CommandFailure {
    switch error {
    case let failure as CommandFailure: failure
    case let error as WalletError: CommandFailure(error.message)
    case let error as KeystoreError: CommandFailure(error.message)
    case let error as ContactError: CommandFailure(error.message)
    case let problem as HorizonProblem: CommandFailure("Horizon refused: \(problem)")
    default: CommandFailure("\(error)")
    }
}

protocol WalletSubcommand: AsyncParsableCommand {
    var options: WalletOptions { get }
    func run(_ wallet: Wallet) async throws
}

extension WalletSubcommand {
    func run() async throws {
        do {
            try await run(try await options.wallet())
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

struct WalletCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet",
        abstract: "A Stellar wallet in the terminal: keys under a PIN, balances, payments, trust and contacts.",
        discussion: """
            Works against the local `tender serve` by default and against any Horizon with --horizon. \
            The seed is kept encrypted under a 6-digit PIN (scrypt and AES-GCM) in --home; every \
            signing asks for the PIN. Options go after the subcommand: `tender wallet pay Bob 10 --memo lunch`.
            """,
        subcommands: [Create.self, Import.self, Show.self, Fund.self, Balances.self, History.self, Trust.self, Pay.self, Contacts.self, Reset.self]
    )

    struct Create: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Make a new key pair and keep its seed under a PIN typed twice.")
        @OptionGroup var options: WalletOptions

        func run(_ wallet: Wallet) async throws {
            let pin = try options.secretLine("New PIN (6 digits)")
            try Keystore.validateNewPIN(pin, confirmation: try options.secretLine("PIN again"))
            let keyPair = KeyPair.random()
            try wallet.keystore.create(keyPair, pin: pin)
            emit(.object([("address", .string(keyPair.accountID.strKey))]), "created wallet \(keyPair.accountID.strKey)\nfund it with: tender wallet fund")
        }
    }

    struct Import: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Keep an existing secret seed (S...) under a PIN typed twice.")
        @OptionGroup var options: WalletOptions

        func run(_ wallet: Wallet) async throws {
            let seed = try options.secretLine("Secret seed")
            let pin = try options.secretLine("New PIN (6 digits)")
            try Keystore.validateNewPIN(pin, confirmation: try options.secretLine("PIN again"))
            try wallet.keystore.importSeed(seed.trimmingCharacters(in: .whitespaces), pin: pin)
            let address = try wallet.keystore.address()
            emit(.object([("address", .string(address))]), "imported wallet \(address)")
        }
    }

    struct Show: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Print the wallet's address; --secret also prints the seed, after the PIN.")
        @OptionGroup var options: WalletOptions
        @Flag(help: "Reveal the secret seed (asks for the PIN).") var secret = false

        func run(_ wallet: Wallet) async throws {
            let address = try wallet.keystore.address()
            guard secret else { return emit(.object([("address", .string(address))]), address) }
            let keyPair = try wallet.keystore.unlock(pin: try options.pin())
            emit(.object([("address", .string(address)), ("secret_seed", .string(keyPair.secretSeed!))]), "address:     \(address)\nsecret seed: \(keyPair.secretSeed!)")
        }
    }

    struct Fund: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Fund the wallet's account through friendbot (test networks).")
        @OptionGroup var options: WalletOptions

        func run(_ wallet: Wallet) async throws {
            let submission = try await wallet.horizon.friendbot(try wallet.keystore.address())
            submitted(submission, "funded")
        }
    }

    struct Balances: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Show every balance: XLM and each trusted asset.")
        @OptionGroup var options: WalletOptions

        func run(_ wallet: Wallet) async throws {
            let account = try await wallet.account()
            let rows = account.balances.map { line -> (String, String) in
                (line.assetType == "native" ? "XLM" : "\(line.assetCode ?? ""):\(line.assetIssuer ?? "")", line.balance)
            }
            emit(.array(rows.map { .object([("asset", .string($0.0)), ("balance", .string($0.1))]) }),
                 rows.map { "\($0.1.padding(toLength: 22, withPad: " ", startingAt: 0)) \($0.0)" }.joined(separator: "\n"))
        }
    }

    struct History: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Show recent payments, newest first, from the wallet's side.")
        @OptionGroup var options: WalletOptions
        @Option(help: "How many payments.") var limit = 5

        func run(_ wallet: Wallet) async throws {
            guard (1...200).contains(limit) else { throw CommandFailure("--limit must be from 1 to 200") }
            _ = try await wallet.account()
            let payments = try await wallet.recentPayments(limit: limit)
            emit(.array(payments.map { payment in
                .object([
                    ("direction", .string(payment.direction.rawValue)), ("amount", .string(payment.amount)), ("asset", .string(payment.asset)),
                    ("counterparty", .string(payment.counterparty)), ("contact", payment.contactName.map { .string($0) } ?? .null),
                    ("type", .string(payment.type)), ("created_at", .string(payment.createdAt)),
                ])
            }), payments.isEmpty ? "no payments yet" : payments.map { payment in
                let who = payment.contactName.map { "\($0) (\(payment.counterparty))" } ?? payment.counterparty
                return "\(payment.createdAt)  \(payment.direction == .sent ? "sent    " : "received")  \(payment.amount) \(payment.asset.split(separator: ":").first ?? "")  \(payment.direction == .sent ? "to" : "from") \(who)"
            }.joined(separator: "\n"))
        }
    }

    struct Trust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Trust an asset, or remove an empty trustline.", subcommands: [Add.self, Remove.self])

        struct Add: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "Trust CODE (a test anchor asset) or CODE:ISSUER.")
            @OptionGroup var options: WalletOptions
            @Argument(help: "CODE or CODE:ISSUER") var asset: String

            func run(_ wallet: Wallet) async throws {
                let asset = try await options.asset(asset)
                submitted(try await wallet.addTrust(asset, pin: try options.pin()), "now trusting \(asset)")
            }
        }

        struct Remove: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "Remove the trustline to CODE:ISSUER; its balance must be zero.")
            @OptionGroup var options: WalletOptions
            @Argument(help: "CODE or CODE:ISSUER") var asset: String

            func run(_ wallet: Wallet) async throws {
                let asset = try await options.asset(asset)
                submitted(try await wallet.removeTrust(asset, pin: try options.pin()), "no longer trusting \(asset)")
            }
        }
    }

    struct Pay: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Pay a contact or an address; XLM to a new address creates its account.")
        @OptionGroup var options: WalletOptions
        @Argument(help: "A contact's name or an address (G...).") var destination: String
        @Argument(help: "The amount, up to 7 decimals.") var amount: String
        @Argument(help: "XLM (default), a test anchor CODE or CODE:ISSUER.") var asset: String = "XLM"
        @Option(help: "A text memo (at most 28 bytes).") var memo: String?
        @Option(help: "The fee per operation in stroops (default: the network's base fee).") var fee: Int64?

        func run(_ wallet: Wallet) async throws {
            let asset = try await options.asset(asset)
            // Everything that can be checked is checked before the PIN is asked for.
            _ = try wallet.resolveRecipient(destination)
            _ = try Wallet.parseAmount(amount)
            let submission = try await wallet.pay(to: destination, amount: amount, asset: asset, memo: memo, fee: fee, pin: try options.pin())
            submitted(submission, "paid \(amount) \(asset.code?.text ?? "XLM") to \(destination)")
        }
    }

    struct Contacts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Keep names for addresses.", subcommands: [Add.self, List.self, Remove.self])

        struct Add: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "Add a contact; the account must exist.")
            @OptionGroup var options: WalletOptions
            @Argument var name: String
            @Argument var address: String

            func run(_ wallet: Wallet) async throws {
                let contact = try await wallet.contacts.add(name: name, address: address) { try await wallet.horizon.account($0) != nil }
                emit(.object([("name", .string(contact.name)), ("address", .string(contact.address))]), "added \(contact.name) (\(contact.address))")
            }
        }

        struct List: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "List the contacts.")
            @OptionGroup var options: WalletOptions

            func run(_ wallet: Wallet) async throws {
                let contacts = try wallet.contacts.all()
                emit(.array(contacts.map { .object([("name", .string($0.name)), ("address", .string($0.address))]) }),
                     contacts.isEmpty ? "no contacts" : contacts.map { "\($0.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \($0.address)" }.joined(separator: "\n"))
            }
        }

        struct Remove: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "Remove a contact by name or address.")
            @OptionGroup var options: WalletOptions
            @Argument var contact: String

            func run(_ wallet: Wallet) async throws {
                try wallet.contacts.remove(contact)
                emit(.object([("removed", .string(contact))]), "removed \(contact)")
            }
        }
    }

    struct Reset: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Delete the keystore and the contacts.")
        @OptionGroup var options: WalletOptions

        func run(_ wallet: Wallet) async throws {
            try wallet.keystore.reset()
            try wallet.contacts.reset()
            emit(.object([("reset", true)]), "wallet deleted")
        }
    }
}
