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

    @Option(help: "The Horizon server; by default the local `tender serve`.")
    var horizon = "http://127.0.0.1:8000"

    @Option(help: "The network passphrase. (default: the server's, from GET /)")
    var passphrase: String?

    @Flag(help: "Read PINs (and a seed to import, or a path number to pay along) from standard input, one per line, for scripts.")
    var pinStdin = false

    @Flag(help: "Print JSON for programs instead of tables for people.")
    var json = false

    var directory: URL {
        let path = home ?? ProcessInfo.processInfo.environment["TENDER_WALLET_HOME"] ?? (NSHomeDirectory() + "/.tender-wallet")
        return URL(fileURLWithPath: path)
    }

    func wallet() throws -> Wallet {
        guard let url = URL(string: horizon), url.scheme == "http" || url.scheme == "https" else {
            throw CommandFailure("--horizon must be an http(s) URL, not \(horizon)")
        }
        let client = HorizonClient(baseURL: url)
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
    case let error as URLError: CommandFailure("cannot reach Horizon: \(error.localizedDescription)")
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

struct WalletCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet",
        abstract: "A Stellar wallet in the terminal: keys under a PIN, balances, payments, trust and contacts.",
        discussion: """
            Works against the local `tender serve` by default and against any Horizon with --horizon. \
            The seed is kept encrypted under a 6-digit PIN (scrypt and AES-GCM) in --home; every \
            signing asks for the PIN. The shared options (--home, --horizon, --passphrase, --pin-stdin, \
            --json) may come before or after the subcommand: `tender wallet --home ~/w pay Bob 10 --memo lunch`.
            """,
        subcommands: [Create.self, Import.self, Show.self, Fund.self, Balances.self, History.self, Watch.self, Trust.self, Pay.self, PathPay.self, Contacts.self, Reset.self]
    )

    /// `tender wallet --home D --horizon U pay ...` as the issue writes it: ArgumentParser gives a
    /// subcommand only the options after its name, so the options every wallet subcommand shares
    /// are moved from before the subcommand to after it (before a `--`, if there is one).
    static func movingSharedOptions(_ arguments: [String]) -> [String] {
        guard arguments.first == "wallet" else { return arguments }
        let valued: Set = ["--home", "--horizon", "--passphrase"]
        let flags: Set = ["--pin-stdin", "--json"]
        var shared: [String] = []
        var index = 1
        while index < arguments.count {
            let token = arguments[index]
            let name = String(token.split(separator: "=", maxSplits: 1).first ?? "")
            if flags.contains(token) || (valued.contains(name) && token.contains("=")) {
                shared.append(token)
                index += 1
            } else if valued.contains(token), index + 1 < arguments.count {
                shared += arguments[index...(index + 1)]
                index += 2
            } else {
                break
            }
        }
        guard !shared.isEmpty else { return arguments }
        var rest = Array(arguments[index...])
        rest.insert(contentsOf: shared, at: rest.firstIndex(of: "--") ?? rest.endIndex)
        return ["wallet"] + rest
    }

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
            emit(.array(payments.map(Self.json)), payments.isEmpty ? "no payments yet" : payments.map(Self.line).joined(separator: "\n"))
        }

        static func json(_ payment: WalletPayment) -> JSONValue {
            .object([
                ("id", .string(payment.id)),
                ("direction", .string(payment.direction.rawValue)), ("amount", .string(payment.amount)), ("asset", .string(payment.asset)),
                ("counterparty", .string(payment.counterparty)), ("contact", payment.contactName.map { .string($0) } ?? .null),
                ("type", .string(payment.type)), ("created_at", .string(payment.createdAt)),
            ])
        }

        static func line(_ payment: WalletPayment) -> String {
            let who = payment.contactName.map { "\($0) (\(payment.counterparty))" } ?? payment.counterparty
            return "\(payment.createdAt)  \(payment.direction == .sent ? "sent    " : "received")  \(payment.amount) \(payment.asset.split(separator: ":").first ?? "")  \(payment.direction == .sent ? "to" : "from") \(who)"
        }
    }

    struct Watch: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Print payments to and from the wallet as they happen, until interrupted.")
        @OptionGroup var options: WalletOptions
        @Option(help: "Start after this payment id (from history --json); `now` shows only new ones.") var cursor = "now"
        @Option(help: "Stop after this many payments.") var count: Int?

        func run(_ wallet: Wallet) async throws {
            if let count, count < 1 { throw CommandFailure("--count must be at least 1") }
            guard cursor == "now" || (UInt64(cursor) != nil) else { throw CommandFailure("--cursor must be a payment id or now") }
            FileHandle.standardError.write(Data("watching payments of \(try wallet.keystore.address()) (Ctrl-C to stop)\n".utf8))
            var seen = 0
            for try await payment in try wallet.paymentUpdates(cursor: cursor) {
                // One JSON document per line, so a program can read the stream line by line.
                print(options.json ? History.json(payment).compact() : History.line(payment))
                fflush(nil)
                seen += 1
                if let count, seen >= count { return }
            }
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
        @Argument(help: "XLM, a test anchor CODE or CODE:ISSUER.") var asset: String = "XLM"
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

    struct PathPay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "path-pay",
            abstract: "Pay through the order books: choose among the paths found, best first.",
            subcommands: [Send.self, Receive.self])

        /// What both directions share: the recipient, the amount, the choice of path, slippage.
        struct Choice: ParsableArguments {
            @Option(help: "Pay along path N of the list without asking.") var path: Int?
            @Flag(help: "Only list the paths found; pay nothing.") var list = false
            @Option(help: "How far the payment may stray from the quote, in percent.") var slippage = "1"
        }

        static func render(_ paths: [HorizonPath], receive: Bool) -> (JSONValue, String) {
            func name(_ type: String, _ code: String?) -> String { type == "native" ? "XLM" : code ?? "?" }
            let full = WalletPayment.assetName
            let json = JSONValue.array(paths.enumerated().map { index, path in
                .object([
                    ("path", .number(Int64(index + 1))),
                    ("source_asset", .string(full(path.sourceAssetType, path.sourceAssetCode, path.sourceAssetIssuer))), ("source_amount", .string(path.sourceAmount)),
                    ("destination_asset", .string(full(path.destinationAssetType, path.destinationAssetCode, path.destinationAssetIssuer))), ("destination_amount", .string(path.destinationAmount)),
                    ("via", .array(path.path.map { .string(full($0.assetType, $0.assetCode, $0.assetIssuer)) })),
                ])
            })
            let text: String = paths.enumerated().map { index, path -> String in
                let via = path.path.isEmpty ? "directly" : "via " + path.path.map { name($0.assetType, $0.assetCode) }.joined(separator: " → ")
                let figure = receive
                    ? "costs \(path.sourceAmount) \(name(path.sourceAssetType, path.sourceAssetCode))"
                    : "delivers \(path.destinationAmount) \(name(path.destinationAssetType, path.destinationAssetCode))"
                return "\(String(index + 1).leftPadded(3)). \(figure)  \(via)"
            }.joined(separator: "\n")
            return (json, text)
        }

        /// Lists the paths and returns the one to pay along (nil with --list), asking on
        /// standard input unless --path chose it.
        static func choose(_ paths: [HorizonPath], _ choice: Choice, receive: Bool, options: WalletOptions) throws -> HorizonPath? {
            guard !paths.isEmpty else { throw WalletError(.noPath, "No path found: no order book leads there") }
            let (json, text) = render(paths, receive: receive)
            if choice.list {
                print(options.json ? json.rendered() : text)
                return nil
            }
            let number: Int
            if let path = choice.path {
                number = path
            } else {
                FileHandle.standardError.write(Data("\(text)\nPath (1-\(paths.count)): ".utf8))
                let line = readLine(strippingNewline: true)
                // Typed at a terminal, the answer is on the screen already; read from a pipe, show it.
                if isatty(STDIN_FILENO) == 0 { FileHandle.standardError.write(Data("\(line ?? "")\n".utf8)) }
                guard let line, let typed = Int(line.trimmingCharacters(in: .whitespaces)) else {
                    throw CommandFailure("choose a path by its number (or pass --path N)")
                }
                number = typed
            }
            guard (1...paths.count).contains(number) else {
                throw CommandFailure("there \(paths.count == 1 ? "is 1 path" : "are \(paths.count) paths"); choose one from 1 to \(paths.count)")
            }
            return paths[number - 1]
        }

        struct Send: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "Send exactly AMOUNT of ASSET; the recipient gets what the path delivers (at least the quote less the slippage).")
            @OptionGroup var options: WalletOptions
            @Argument(help: "A contact's name or an address (G...).") var destination: String
            @Argument(help: "The amount to send.") var amount: String
            @Argument(help: "The asset to send: XLM, a test anchor CODE or CODE:ISSUER.") var asset: String = "XLM"
            @OptionGroup var choice: Choice

            func run(_ wallet: Wallet) async throws {
                let slippage = try Slippage(percent: choice.slippage)
                let source = try await options.asset(asset)
                let paths = try await wallet.strictSendPaths(to: destination, source: source, amount: amount)
                guard let path = try PathPay.choose(paths, choice, receive: false, options: options) else { return }
                let submission = try await wallet.pathPayStrictSend(to: destination, path: path, slippage: slippage, pin: try options.pin())
                submitted(submission, "sent \(path.sourceAmount) \(source.code?.text ?? "XLM") to \(destination), delivering at least \(Amount.format(slippage.lowered(try Amount.parse(path.destinationAmount)))) \(path.destinationAssetCode ?? "XLM")")
            }
        }

        struct Receive: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "Deliver exactly AMOUNT of ASSET; pay with what the path costs (at most the quote plus the slippage).")
            @OptionGroup var options: WalletOptions
            @Argument(help: "A contact's name or an address (G...); the account must exist.") var destination: String
            @Argument(help: "The amount the recipient gets.") var amount: String
            @Argument(help: "The asset the recipient gets: XLM, a test anchor CODE or CODE:ISSUER.") var asset: String
            @OptionGroup var choice: Choice

            func run(_ wallet: Wallet) async throws {
                let slippage = try Slippage(percent: choice.slippage)
                let target = try await options.asset(asset)
                let paths = try await wallet.strictReceivePaths(to: destination, asset: target, amount: amount)
                guard let path = try PathPay.choose(paths, choice, receive: true, options: options) else { return }
                let submission = try await wallet.pathPayStrictReceive(to: destination, path: path, slippage: slippage, pin: try options.pin())
                submitted(submission, "delivered \(path.destinationAmount) \(target.code?.text ?? "XLM") to \(destination), spending at most \(Amount.format(slippage.raised(try Amount.parse(path.sourceAmount)))) \(path.sourceAssetCode ?? "XLM")")
            }
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

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
