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

// `tender wallet balances | history | watch`: what the account holds and what it paid and received.
extension WalletCommand {
    struct Balances: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Show every balance: XLM and each trusted asset.")
        @OptionGroup var local: WalletOptions
        @ParentCommand var parent: WalletCommand

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
        @OptionGroup var local: WalletOptions
        @ParentCommand var parent: WalletCommand
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
        @OptionGroup var local: WalletOptions
        @ParentCommand var parent: WalletCommand
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
}
