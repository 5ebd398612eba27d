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

// `tender wallet pay` and `tender wallet path-pay send | receive`.
extension WalletCommand {
    struct Pay: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Pay a contact or an address; XLM to a new address creates its account.")
        @OptionGroup var local: WalletOptions
        @ParentCommand var parent: WalletCommand
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
            _ = try Wallet.checkFee(fee)
            let submission = try await wallet.pay(to: destination, amount: amount, asset: asset, memo: memo, fee: fee, pin: try options.pin())
            submitted(submission, "paid \(amount) \(asset.code?.text ?? "XLM") to \(destination)")
        }
    }

    struct PayURICommand: WalletSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "pay-uri",
            abstract: "Pay a SEP-7 web+stellar:pay URI (from `tender say \"Ask ... for ...\"` or any Stellar wallet), every field checked first.")
        @OptionGroup var local: WalletOptions
        @ParentCommand var parent: WalletCommand
        @Argument(help: "The web+stellar:pay?destination=...&amount=... URI.") var uri: String
        @Option(help: "The amount, when the URI leaves it to the payer.") var amount: String?

        func run(_ wallet: Wallet) async throws {
            var network = wallet.network
            if network == nil { network = Network(passphrase: try await wallet.horizon.networkPassphrase()) }
            let request = try PayURI(parsing: uri, network: network)
            let amountText: String
            if let stroops = request.amount {
                guard amount == nil else { throw CommandFailure("the URI already names the amount") }
                amountText = Amount.format(stroops)
            } else {
                guard let amount else { throw CommandFailure("the URI leaves the amount to you: give --amount") }
                amountText = amount
            }
            _ = try Wallet.parseAmount(amountText)
            if let message = request.message, !options.json { print("Message: \(message)") }
            let submission = try await wallet.pay(to: request.destination.strKey, amount: amountText, asset: request.asset, memo: request.memo, pin: try options.pin())
            submitted(submission, "paid \(amountText) \(request.asset.code?.text ?? "XLM") to \(request.destination.strKey)")
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
            @OptionGroup var local: WalletOptions
            @ParentCommand var parent: WalletCommand
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
            @OptionGroup var local: WalletOptions
            @ParentCommand var parent: WalletCommand
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
}
