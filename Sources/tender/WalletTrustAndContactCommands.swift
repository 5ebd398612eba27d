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

// `tender wallet trust add | remove` and `tender wallet contacts add | list | remove`.
extension WalletCommand {
    struct Trust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Trust an asset, or remove an empty trustline.", subcommands: [Add.self, Remove.self])

        struct Add: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "Trust CODE (a test anchor asset) or CODE:ISSUER.")
            @OptionGroup var local: WalletOptions
            @ParentCommand var parent: WalletCommand
            @Argument(help: "CODE or CODE:ISSUER") var asset: String

            func run(_ wallet: Wallet) async throws {
                let asset = try await options.asset(asset)
                submitted(try await wallet.addTrust(asset, pin: try options.pin()), "now trusting \(asset)")
            }
        }

        struct Remove: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "Remove the trustline to CODE:ISSUER; its balance must be zero.")
            @OptionGroup var local: WalletOptions
            @ParentCommand var parent: WalletCommand
            @Argument(help: "CODE or CODE:ISSUER") var asset: String

            func run(_ wallet: Wallet) async throws {
                let asset = try await options.asset(asset)
                submitted(try await wallet.removeTrust(asset, pin: try options.pin()), "no longer trusting \(asset)")
            }
        }
    }

    struct Contacts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Keep names for addresses.", subcommands: [Add.self, List.self, Remove.self])

        struct Add: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "Add a contact; the account must exist.")
            @OptionGroup var local: WalletOptions
            @ParentCommand var parent: WalletCommand
            @Argument var name: String
            @Argument var address: String
            @Option(help: "Another name the contact goes by (\"Mom\"), for `tender say`; may be given several times.") var alias: [String] = []

            func run(_ wallet: Wallet) async throws {
                let contact = try await wallet.contacts.add(name: name, address: address, aliases: alias) { try await wallet.horizon.account($0) != nil }
                emit(.object([("name", .string(contact.name)), ("address", .string(contact.address)), ("aliases", .array(contact.aliases.map(JSONValue.string)))]),
                     "added \(contact.name) (\(contact.address))" + (contact.aliases.isEmpty ? "" : ", also called \(contact.aliases.joined(separator: ", "))"))
            }
        }

        struct List: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "List the contacts.")
            @OptionGroup var local: WalletOptions
            @ParentCommand var parent: WalletCommand

            func run(_ wallet: Wallet) async throws {
                let contacts = try wallet.contacts.all()
                emit(.array(contacts.map { .object([("name", .string($0.name)), ("address", .string($0.address)), ("aliases", .array($0.aliases.map(JSONValue.string)))]) }),
                     contacts.isEmpty ? "no contacts" : contacts.map { "\($0.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \($0.address)" }.joined(separator: "\n"))
            }
        }

        struct Remove: WalletSubcommand {
            static let configuration = CommandConfiguration(abstract: "Remove a contact by name or address.")
            @OptionGroup var local: WalletOptions
            @ParentCommand var parent: WalletCommand
            @Argument var contact: String

            func run(_ wallet: Wallet) async throws {
                try wallet.contacts.remove(contact)
                emit(.object([("removed", .string(contact))]), "removed \(contact)")
            }
        }
    }
}
