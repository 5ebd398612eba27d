import ArgumentParser
import Foundation
import Gateway
import StellarBase
import WalletKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tender gateway`: merchants and card payments against a running `tender serve`, over its
/// Stripe-shaped API.
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Make merchants and take card payments on a running tender serve.",
        subcommands: [Merchants.self, Payments.self, Events.self, Webhooks.self]
    )

    struct Connection: ParsableArguments {
        @Option(help: "The server's URL. [env: TENDER_URL] (default: http://127.0.0.1:8000)")
        var url: String?

        @Flag(help: "Print the server's JSON answers instead of text.")
        var json = false

        var baseURL: String { (url ?? ProcessInfo.processInfo.environment["TENDER_URL"] ?? "http://127.0.0.1:8000").trimmingCharacters(in: CharacterSet(charactersIn: "/")) }
    }

    /// One request to the gateway: the decoded JSON answer, or the Stripe-shaped error printed
    /// and the command failed.
    static func call(_ connection: Connection, _ method: String, _ path: String, bearer: String, form: [(String, String)] = []) async throws -> [String: Any] {
        try await call(connection.baseURL, printing: connection.json, method, path, bearer: bearer, form: form)
    }

    static func call(_ baseURL: String, printing json: Bool, _ method: String, _ path: String, bearer: String, form: [(String, String)] = []) async throws -> [String: Any] {
        guard let url = URL(string: baseURL + path) else { throw ValidationError("--url is not a URL: \(baseURL)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        if method == "POST" {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&").utf8)
        }
        let (status, body) = try await URLSessionTransport().send(request)
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        guard (200..<300).contains(status) else {
            let error = object["error"] as? [String: Any]
            let code = (error?["decline_code"] ?? error?["code"] ?? error?["type"]).map { "\($0)" } ?? "http_\(status)"
            throw GatewayFailure(code: code, message: error?["message"] as? String ?? String(decoding: body, as: UTF8.self), body: body, json: json)
        }
        if json { print(String(decoding: body, as: UTF8.self)) }
        return object
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~[]")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The secret key: `--key`, or TENDER_SECRET_KEY.
    static func secretKey(_ option: String?) throws -> String {
        guard let key = option ?? ProcessInfo.processInfo.environment["TENDER_SECRET_KEY"], !key.isEmpty else {
            throw ValidationError("give the merchant's secret key with --key or TENDER_SECRET_KEY")
        }
        return key
    }

    struct Merchants: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make and list merchants.", subcommands: [Create.self, List.self])

        /// The admin key that `tender serve` keeps in its data directory.
        static func adminKey(data: String?) throws -> String {
            let directory = data ?? ProcessInfo.processInfo.environment["TENDER_DATA"] ?? ".tender"
            guard let contents = FileManager.default.contents(atPath: directory + "/admin.key") else {
                throw ValidationError("no admin key in \(directory)/admin.key: give the data directory of the running tender serve with --data")
            }
            return String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Make a merchant: its secret and publishable keys (shown once) and its settlement account on the ledger.")
            @Argument(help: "The merchant's name.") var name: String
            @Option(help: "The data directory of the running tender serve, where its admin key is. [env: TENDER_DATA] (default: .tender)") var data: String?
            @OptionGroup var connection: Connection

            func run() async throws {
                let merchant = try await GatewayCommand.call(connection, "POST", "/v1/admin/merchants", bearer: try Merchants.adminKey(data: data), form: [("name", name)])
                guard !connection.json else { return }
                print("merchant:           \(merchant["id"] ?? "")  \(name)")
                print("secret key:         \(merchant["secret_key"] ?? "")  (shown once; keep it secret)")
                print("publishable key:    \(merchant["publishable_key"] ?? "")")
                print("settlement account: \(merchant["settlement_account"] ?? "")")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the merchants (never their keys).")
            @Option(help: "The data directory of the running tender serve. [env: TENDER_DATA] (default: .tender)") var data: String?
            @OptionGroup var connection: Connection

            func run() async throws {
                let list = try await GatewayCommand.call(connection, "GET", "/v1/admin/merchants", bearer: try Merchants.adminKey(data: data))
                guard !connection.json else { return }
                for merchant in list["data"] as? [[String: Any]] ?? [] {
                    print("\(merchant["id"] ?? "")  \(merchant["settlement_account"] ?? "")  \(merchant["name"] ?? "")")
                }
            }
        }
    }

    struct Payments: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take, list, show, capture and refund payments.",
            subcommands: [Create.self, List.self, Show.self, Capture.self, Refund.self])

        struct KeyOption: ParsableArguments {
            @Option(help: "The merchant's secret key (sk_test_...). [env: TENDER_SECRET_KEY]") var key: String?
        }

        static func describe(_ intent: [String: Any]) -> String {
            let amount = (intent["amount"] as? Int).map { FiatConversion.format(minorUnits: Int64($0), exponent: 2) } ?? "?"
            var line = "\(intent["id"] ?? "")  \(amount) \((intent["currency"] as? String ?? "").uppercased())  \(intent["status"] ?? "")"
            if let received = intent["amount_received"] as? Int, received > 0 { line += "  received \(FiatConversion.format(minorUnits: Int64(received), exponent: 2))" }
            if let refunded = intent["amount_refunded"] as? Int, refunded > 0 { line += "  refunded \(FiatConversion.format(minorUnits: Int64(refunded), exponent: 2))" }
            if let error = intent["last_payment_error"] as? [String: Any] { line += "  last error: \(error["decline_code"] ?? error["code"] ?? "")" }
            return line
        }

        static func amount(_ text: String, _ name: String) throws -> Int64 {
            guard let minor = FiatConversion.minorUnits(parsing: text, exponent: 2) else {
                throw ValidationError("\(name) must be an amount such as 10.99 (at most 999999.99)")
            }
            return minor
        }

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Pay with a card: makes the payment method and a confirmed payment intent.",
                discussion: "When the card asks for 3-D Secure, the page's URL is printed (open it in a browser), or --complete / --fail answers the test page here.")
            @Option(help: "The amount, e.g. 10.99.") var amount: String
            @Option(help: "The currency: EUR or USD.") var currency: String = "EUR"
            @Option(help: "The card number (spaces and dashes allowed).") var card: String
            @Option(help: "The expiry, MM/YY.") var exp: String = "12/34"
            @Option(help: "The card's security code.") var cvc: String?
            @Flag(help: "Hold the money until `payments capture` (capture_method=manual).") var manual = false
            @Flag(help: "Pass the 3-D Secure test page.") var complete = false
            @Flag(help: "Fail the 3-D Secure test page.") var fail = false
            @OptionGroup var key: KeyOption
            @OptionGroup var connection: Connection

            func validate() throws {
                guard !(complete && fail) else { throw ValidationError("give --complete or --fail, not both") }
            }

            func run() async throws {
                let secret = try GatewayCommand.secretKey(key.key)
                let minor = try Payments.amount(amount, "--amount")
                let parts = exp.split(separator: "/")
                guard parts.count == 2 else { throw ValidationError("--exp must be MM/YY") }
                var cardForm = [("type", "card"), ("card[number]", card), ("card[exp_month]", String(parts[0])), ("card[exp_year]", String(parts[1]))]
                if let cvc { cardForm.append(("card[cvc]", cvc)) }
                let base = connection.baseURL
                let method = try await GatewayCommand.call(base, printing: false, "POST", "/v1/payment_methods", bearer: secret, form: cardForm)
                var intent: [String: Any]
                do {
                    intent = try await GatewayCommand.call(base, printing: false, "POST", "/v1/payment_intents", bearer: secret, form: [
                        ("amount", String(minor)), ("currency", currency.lowercased()), ("payment_method", method["id"] as? String ?? ""),
                        ("capture_method", manual ? "manual" : "automatic"), ("confirm", "true"),
                    ])
                } catch let failure as GatewayFailure where connection.json {
                    print(String(decoding: failure.body, as: UTF8.self))
                    throw ExitCode.failure
                }
                if intent["status"] as? String == "requires_action", let next = intent["next_action"] as? [String: Any],
                   let redirect = next["redirect_to_url"] as? [String: Any], let page = redirect["url"] as? String {
                    guard complete || fail else {
                        if connection.json { print(String(decoding: try JSONSerialization.data(withJSONObject: intent), as: UTF8.self)) } else {
                            print(Payments.describe(intent))
                            print("3-D Secure: open \(page)")
                        }
                        return
                    }
                    // What the customer's browser does: press the page's button.
                    guard var components = URLComponents(string: page) else { throw ValidationError("the server gave a broken page URL") }
                    components.path += complete ? "/complete" : "/fail"
                    var request = URLRequest(url: components.url!)
                    request.httpMethod = "POST"
                    _ = try await URLSessionTransport().send(request)
                    intent = try await GatewayCommand.call(base, printing: false, "GET", "/v1/payment_intents/\(intent["id"] as? String ?? "")", bearer: secret)
                }
                if connection.json {
                    print(String(decoding: try JSONSerialization.data(withJSONObject: intent, options: [.sortedKeys]), as: UTF8.self))
                } else {
                    print(Payments.describe(intent))
                }
                if intent["status"] as? String == "requires_payment_method" { throw ExitCode.failure }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "The newest payments.")
            @Option(help: "How many (1-100).") var limit: Int = 10
            @OptionGroup var key: KeyOption
            @OptionGroup var connection: Connection

            func run() async throws {
                let list = try await GatewayCommand.call(connection, "GET", "/v1/payment_intents?limit=\(limit)", bearer: try GatewayCommand.secretKey(key.key))
                guard !connection.json else { return }
                for intent in list["data"] as? [[String: Any]] ?? [] { print(Payments.describe(intent)) }
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "One payment.")
            @Argument(help: "The payment intent's id (pi_...).") var id: String
            @OptionGroup var key: KeyOption
            @OptionGroup var connection: Connection

            func run() async throws {
                let intent = try await GatewayCommand.call(connection, "GET", "/v1/payment_intents/\(GatewayCommand.encode(id))", bearer: try GatewayCommand.secretKey(key.key))
                if !connection.json { print(Payments.describe(intent)) }
            }
        }

        struct Capture: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Capture a held payment, all or part of it (the rest is released).")
            @Argument(help: "The payment intent's id (pi_...).") var id: String
            @Option(help: "The amount to capture, e.g. 5.00 (default: all).") var amount: String?
            @OptionGroup var key: KeyOption
            @OptionGroup var connection: Connection

            func run() async throws {
                var form: [(String, String)] = []
                if let amount { form.append(("amount_to_capture", String(try Payments.amount(amount, "--amount")))) }
                let intent = try await GatewayCommand.call(connection, "POST", "/v1/payment_intents/\(GatewayCommand.encode(id))/capture", bearer: try GatewayCommand.secretKey(key.key), form: form)
                if !connection.json { print(Payments.describe(intent)) }
            }
        }

        struct Refund: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Refund a captured payment, all or part of it.")
            @Argument(help: "The payment intent's id (pi_...).") var id: String
            @Option(help: "The amount to refund, e.g. 2.50 (default: what is left).") var amount: String?
            @OptionGroup var key: KeyOption
            @OptionGroup var connection: Connection

            func run() async throws {
                var form = [("payment_intent", id)]
                if let amount { form.append(("amount", String(try Payments.amount(amount, "--amount")))) }
                let refund = try await GatewayCommand.call(connection, "POST", "/v1/refunds", bearer: try GatewayCommand.secretKey(key.key), form: form)
                if !connection.json {
                    print("\(refund["id"] ?? "")  \(FiatConversion.format(minorUnits: Int64(refund["amount"] as? Int ?? 0), exponent: 2)) \((refund["currency"] as? String ?? "").uppercased())  \(refund["status"] ?? "")")
                }
            }
        }
    }
}

extension GatewayCommand {
    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Events about payments.", subcommands: [List.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "The newest events.")
            @Option(help: "How many (1-100).") var limit: Int = 10
            @OptionGroup var key: Payments.KeyOption
            @OptionGroup var connection: Connection

            func run() async throws {
                let list = try await GatewayCommand.call(connection, "GET", "/v1/events?limit=\(limit)", bearer: try GatewayCommand.secretKey(key.key))
                guard !connection.json else { return }
                for event in list["data"] as? [[String: Any]] ?? [] {
                    let object = (event["data"] as? [String: Any])?["object"] as? [String: Any]
                    print("\(event["id"] ?? "")  \(event["type"] ?? "")  \(object?["id"] ?? "")")
                }
            }
        }
    }

    struct Webhooks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Receive the gateway's events locally.", subcommands: [Listen.self])

        struct Listen: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Forward new events to a local URL, signed, as the Stripe CLI's `listen --forward-to` does.",
                discussion: "Prints the signing secret to verify them with (stripe.Webhook.construct_event), then one line per event forwarded, until interrupted.")
            @Option(help: "Where to POST each event, e.g. http://127.0.0.1:4242/webhook.") var forwardTo: String
            @Option(help: "The signing secret to use (default: a new one, printed).") var secret: String?
            @Option(help: "Seconds between polls for new events.") var interval: Double = 0.5
            @OptionGroup var key: Payments.KeyOption
            @OptionGroup var connection: Connection

            func run() async throws {
                let apiKey = try GatewayCommand.secretKey(key.key)
                guard URL(string: forwardTo)?.host != nil else { throw ValidationError("--forward-to must be a URL") }
                guard interval >= 0.05, interval <= 60 else { throw ValidationError("--interval must be from 0.05 to 60 seconds") }
                let signingSecret = secret ?? "whsec_" + KeyPair.random().accountID.strKey.suffix(32)
                let base = connection.baseURL
                // Start after the newest event: only what happens from now on is forwarded.
                let newest = try await GatewayCommand.call(base, printing: false, "GET", "/v1/events?limit=1", bearer: apiKey)
                var last = ((newest["data"] as? [[String: Any]])?.first?["id"] as? String)
                print("Ready! Your webhook signing secret is \(signingSecret)")
                // Each line goes out at once, even into a pipe.
                fflush(nil)
                while !Task.isCancelled {
                    let query = last.map { "/v1/events?limit=100&ending_before=\(GatewayCommand.encode($0))" } ?? "/v1/events?limit=100"
                    let page = try await GatewayCommand.call(base, printing: false, "GET", query, bearer: apiKey)
                    // Newest first: forward oldest first.
                    for event in (page["data"] as? [[String: Any]] ?? []).reversed() {
                        let body = try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys])
                        let timestamp = Int64(Date().timeIntervalSince1970)
                        var request = URLRequest(url: URL(string: forwardTo)!)
                        request.httpMethod = "POST"
                        request.httpBody = body
                        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                        request.setValue(WebhookSignature.header(secret: signingSecret, timestamp: timestamp, body: Array(body)), forHTTPHeaderField: "Stripe-Signature")
                        let status = (try? await URLSessionTransport().send(request).status) ?? 0
                        print("--> \(event["type"] ?? "") [\(event["id"] ?? "")]  <-- [\(status)] POST \(forwardTo)")
                        fflush(nil)
                        last = event["id"] as? String
                    }
                    try await Task.sleep(for: .seconds(interval))
                }
            }
        }
    }
}

/// A gateway answer that is not 2xx: its code (the decline code for a card error) and message.
struct GatewayFailure: Error, CustomStringConvertible {
    let code: String
    let message: String
    let body: Data
    let json: Bool
    var description: String { "\(code): \(message)" }
}

