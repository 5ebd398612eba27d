import ArgumentParser
import Foundation
import StellarBase
import TenderJSON
import WalletKit

extension WalletCommand {
    /// `tender wallet anchor ACTION`: the anchor's SEPs from the terminal, as the reference
    /// wallet's transfer screens use them.
    struct AnchorCommand: WalletSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "anchor",
            abstract: "Sign in to an anchor (SEP-10), give KYC (SEP-12), deposit and withdraw (SEP-24, SEP-6), ask for quotes (SEP-38).",
            discussion: """
                info                      the anchor's services and currencies (its stellar.toml)
                login                     sign in with SEP-10 and print the token
                kyc [--field name=value]  give KYC fields (SEP-12) and print the status and what is still needed
                deposit CODE [AMOUNT]     without AMOUNT: SEP-24, prints the page to open in a browser; with it: SEP-6, \
                prints where to pay; then follows the transfer to its end
                withdraw CODE AMOUNT      SEP-6: pays the anchor the asset with the memo it gives, then follows the transfer
                quote SELL BUY AMOUNT     a firm quote (SEP-38), e.g. quote iso4217:USD stellar:EUR:G... 10.00
                status ID                 one transfer
                history CODE              the transfers of an asset
                Every action but info signs in, so it asks for the PIN. The anchor is --anchor, else the host of --horizon.
                """)
        @OptionGroup var local: WalletOptions
        @ParentCommand var parent: WalletCommand
        @Argument(help: "info, login, kyc, deposit, withdraw, quote, status or history.") var action: String
        @Argument(help: "The action's values.") var values: [String] = []
        @Option(help: "The anchor's domain (host[:port]). (default: the host of --horizon)") var anchor: String?
        @Option(name: .customLong("field"), help: "A KYC field, name=value (repeat it).") var fields: [String] = []
        @Option(help: "Seconds between two looks at a transfer.") var every: Double = 1

        func validate() throws {
            guard ["info", "login", "kyc", "deposit", "withdraw", "quote", "status", "history"].contains(action) else {
                throw ValidationError("the action is one of info, login, kyc, deposit, withdraw, quote, status, history; not \(action)")
            }
            let counts: [String: ClosedRange<Int>] = ["info": 0...0, "login": 0...0, "kyc": 0...0, "deposit": 1...2, "withdraw": 2...2, "quote": 3...3, "status": 1...1, "history": 1...1]
            guard counts[action]!.contains(values.count) else { throw ValidationError("\(action) takes \(counts[action]!.lowerBound == counts[action]!.upperBound ? "\(counts[action]!.lowerBound)" : "\(counts[action]!.lowerBound) or \(counts[action]!.upperBound)") values") }
            guard every > 0, every <= 60 else { throw ValidationError("--every is more than 0 and at most 60 seconds") }
            for field in fields where !field.contains("=") { throw ValidationError("--field is name=value, not \(field)") }
        }

        func client() throws -> AnchorClient {
            let url = try options.horizonURL()
            let domain = anchor ?? (url.port.map { "\(url.host!):\($0)" } ?? url.host!)
            return AnchorClient(domain: domain)
        }

        func run(_ wallet: Wallet) async throws {
            let anchor = try client()
            if action == "info" {
                let toml = try await anchor.toml()
                let services: [(String, String?)] = [
                    ("WEB_AUTH_ENDPOINT", toml.webAuthEndpoint), ("SIGNING_KEY", toml.signingKey), ("KYC_SERVER", toml.kycServer), ("TRANSFER_SERVER", toml.transferServer),
                    ("TRANSFER_SERVER_SEP0024", toml.transferServerSEP24), ("ANCHOR_QUOTE_SERVER", toml.quoteServer),
                ]
                return emit(
                    .object(services.map { ($0.0.lowercased(), $0.1.map(JSONValue.string) ?? .null) }
                        + [("currencies", .array(toml.currencies.map { .object([("code", .string($0.code)), ("issuer", .string($0.issuer))]) }))]),
                    (services.map { "\($0.0): \($0.1 ?? "-")" } + toml.currencies.map { "currency \($0.code) issued by \($0.issuer)" }).joined(separator: "\n"))
            }
            let pin = try options.pin()
            let keyPair = try wallet.keystore.unlock(pin: pin)
            let token = try await anchor.signIn(keyPair)
            switch action {
            case "login":
                emit(.object([("token", .string(token))]), token)
            case "kyc":
                var given: [String: String] = [:]
                for field in fields {
                    let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
                    given[parts[0]] = parts.count == 2 ? parts[1] : ""
                }
                if !given.isEmpty { _ = try await anchor.putCustomer(token: token, fields: given) }
                let customer = try await anchor.customer(token: token)
                emit(.object([("id", customer.id.map(JSONValue.string) ?? .null), ("status", .string(customer.status)), ("missing_fields", .array(customer.missingFields.map(JSONValue.string)))]),
                     "KYC \(customer.status)" + (customer.missingFields.isEmpty ? "" : "; still needed: \(customer.missingFields.joined(separator: ", "))"))
            case "deposit":
                let code = values[0].uppercased()
                let id: String
                if values.count == 2 {
                    let deposit = try await anchor.deposit(token: token, assetCode: code, amount: values[1], account: keyPair.accountID.strKey)
                    id = deposit.id
                    line(.object([("id", .string(id)), ("url", .string(deposit.paymentURL))]), "Pay at \(deposit.paymentURL)")
                } else {
                    let started = try await anchor.interactive("deposit", token: token, assetCode: code)
                    id = started.id
                    line(.object([("id", .string(id)), ("url", .string(started.url))]), "Open in a browser: \(started.url)")
                }
                try await follow(anchor, token: token, id: id)
            case "withdraw":
                let code = values[0].uppercased()
                guard let issuer = try await anchor.toml().currencies.first(where: { $0.code == code })?.issuer else { throw CommandFailure("the anchor issues no \(code)") }
                let withdrawal = try await anchor.withdraw(token: token, assetCode: code, amount: values[1])
                let asset = try Asset(code: code, issuer: AccountID(issuer))
                let paid = try await wallet.pay(to: withdrawal.account, amount: values[1], asset: asset, memo: .id(withdrawal.memo), pin: pin)
                line(.object([("id", .string(withdrawal.id)), ("paid", .string(paid.hash))]), "Sent \(values[1]) \(code) to \(withdrawal.account) with memo \(withdrawal.memo) (transaction \(paid.hash))")
                try await follow(anchor, token: token, id: withdrawal.id)
            case "quote":
                let quote = try await anchor.quote(token: token, sell: values[0], buy: values[1], sellAmount: values[2])
                emit(.object([("id", .string(quote.id)), ("price", .string(quote.price)), ("sell_amount", .string(quote.sellAmount)), ("buy_amount", .string(quote.buyAmount)), ("expires_at", .string(quote.expiresAt))]),
                     "quote \(quote.id): \(quote.sellAmount) \(quote.sellAsset) for \(quote.buyAmount) \(quote.buyAsset) at \(quote.price), until \(quote.expiresAt)")
            case "status":
                let record = try await anchor.transaction(token: token, id: values[0])
                emit(Self.json(record), Self.text(record))
            default:
                let records = try await anchor.transactions(token: token, assetCode: values[0].uppercased())
                emit(.array(records.map(Self.json)), records.isEmpty ? "no transfers" : records.map(Self.text).joined(separator: "\n"))
            }
        }

        /// One line now (JSON lines with --json), flushed: the transfer's progress follows.
        func line(_ json: JSONValue, _ text: String) {
            print(options.json ? json.compact() : text)
            fflush(nil)
        }

        func follow(_ anchor: AnchorClient, token: String, id: String) async throws {
            var last: AnchorTransaction?
            for try await record in anchor.follow(token: token, id: id, interval: .milliseconds(Int64(every * 1_000))) {
                line(Self.json(record), Self.text(record))
                last = record
            }
            guard let last, last.status == "completed" else { throw CommandFailure("the transfer ended \(last?.status ?? "unfollowed")\(last?.message.map { ": \($0)" } ?? "")") }
        }

        static func json(_ record: AnchorTransaction) -> JSONValue {
            .object([
                ("id", .string(record.id)), ("kind", .string(record.kind)), ("status", .string(record.status)),
                ("amount_in", record.amountIn.map(JSONValue.string) ?? .null), ("amount_out", record.amountOut.map(JSONValue.string) ?? .null),
                ("amount_fee", record.amountFee.map(JSONValue.string) ?? .null), ("stellar_transaction_id", record.stellarTransactionID.map(JSONValue.string) ?? .null),
            ])
        }

        static func text(_ record: AnchorTransaction) -> String {
            var text = "\(record.kind) \(record.id): \(record.status)"
            if let amountIn = record.amountIn { text += ", \(amountIn) in" }
            if let fee = record.amountFee { text += ", \(fee) fee" }
            if let out = record.amountOut { text += ", \(out) out" }
            if let message = record.message { text += " (\(message))" }
            return text
        }
    }
}
