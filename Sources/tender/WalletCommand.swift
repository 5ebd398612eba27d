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
        subcommands: [Create.self, Import.self, Show.self, Fund.self, Balances.self, History.self, Watch.self, Trust.self, Pay.self, PayURICommand.self, PathPay.self, Contacts.self, AnchorCommand.self, Reset.self]
    )

    /// The shared options given before the subcommand (`tender wallet --home D pay ...`); each
    /// subcommand takes them after its name too, and reads these through `@ParentCommand`.
    @OptionGroup var shared: WalletOptions

    struct Create: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Make a new key pair and keep its seed under a PIN typed twice.")
        @OptionGroup var local: WalletOptions
        @ParentCommand var parent: WalletCommand

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
        @OptionGroup var local: WalletOptions
        @ParentCommand var parent: WalletCommand

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
        @OptionGroup var local: WalletOptions
        @ParentCommand var parent: WalletCommand
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
        @OptionGroup var local: WalletOptions
        @ParentCommand var parent: WalletCommand

        func run(_ wallet: Wallet) async throws {
            let submission = try await wallet.horizon.friendbot(try wallet.keystore.address())
            submitted(submission, "funded")
        }
    }

    struct Reset: WalletSubcommand {
        static let configuration = CommandConfiguration(abstract: "Delete the keystore and the contacts.")
        @OptionGroup var local: WalletOptions
        @ParentCommand var parent: WalletCommand

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
