import ArgumentParser
import Foundation

@main
struct Tender: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tender",
        abstract: "A self-hosted payments stack: a Stellar-compatible ledger with Horizon's API, a card and bank gateway, a marketplace checkout and payments asked for in words.",
        discussion: """
            Run everything with `tender serve` (Horizon at the root, Stripe's API under /v1, Paylike's \
            under /paylike, the checkout under /checkout/v1); pay from the terminal with `tender wallet`, \
            `tender gateway`, `tender checkout` and `tender say` (in English, Dutch, German, French or \
            Spanish); inspect keys and transactions with `tender keys` and `tender tx`; measure with \
            `tender bench`; move a network to PostgreSQL with `tender migrate`.
            """,
        subcommands: [Serve.self, Keys.self, Tx.self, WalletCommand.self, GatewayCommand.self, CheckoutCommand.self, Say.self, Bench.self, Migrate.self]
    )

    /// Runs the command; a failure is one line on standard error and exit status 1.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("tender: \(failure.message)\n".utf8))
            Foundation.exit(1)
        } catch {
            exit(withError: error)
        }
    }
}

/// A failure the user can act on, printed as one line.
struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Reads a command's input: the argument, or standard input when it is absent or "-".
func readInput(_ argument: String?, what: String) throws -> String {
    if let argument, argument != "-" {
        return argument
    }
    let data = FileHandle.standardInput.readDataToEndOfFile()
    guard let text = String(data: data, encoding: .utf8) else {
        throw CommandFailure("the \(what) on standard input is not text")
    }
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else { throw CommandFailure("no \(what) given: pass it as an argument or on standard input") }
    return trimmed
}
