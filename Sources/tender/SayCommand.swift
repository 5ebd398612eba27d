import ArgumentParser
import Foundation
import Intents
import StellarBase
import TenderJSON
import WalletKit

/// `tender say "Send $50 to Jane for dinner"`: a payment asked for in words, resolved step by
/// step as SiriKit resolves it, confirmed, and paid from the wallet on the ledger.
struct Say: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask for a payment in words: \"Send $50 to Jane for dinner\", \"Ask Bob for 20 euros\", \"What's my balance\".",
        discussion: """
            Resolves the payee against the wallet's contacts and the amount against the currencies \
            the ledger pays (USD → the test anchor's USDC, EUR → its EUR, XLM → lumens), asks for \
            what is missing or ambiguous (a numbered list to choose from), checks the payment \
            against the ledger, asks to confirm and for the PIN, then pays. Questions are answered \
            on the terminal, or by the next lines of standard input. A request answers a SEP-7 \
            web+stellar:pay URI. --parse only prints how the words were read, touching nothing.
            """)

    @OptionGroup var options: WalletOptions

    @Argument(help: "What to do, in words.")
    var text: String = ""

    @Option(help: "The language and its ways with numbers and a bare \"$\": en_US, en_GB, nl_NL, de_DE, fr_FR or es_ES (or a tag: nl, de-DE). Questions and answers are in its language.")
    var locale: String = "en_US"

    @Flag(help: "Print only how the words were read (intent, payee, amount, currency, note), touching no wallet or server.")
    var parse = false

    @Flag(help: "Pay without asking to confirm.")
    var yes = false

    @Flag(help: "Instead, list the payments sent and asked for in words, newest first (the last 50).")
    var history = false

    func run() async throws {
        guard let locale = IntentLocale(rawValue: locale) ?? IntentLocale(tag: locale) else {
            throw ValidationError("--locale must be one of \(IntentLocale.allCases.map(\.rawValue).joined(separator: ", ")) (or a tag: en, nl, de, fr, es)")
        }
        if parse {
            let parsed = UtteranceParser(locale: locale).parse(text)
            emit(Self.json(parsed), text: Self.describe(parsed))
            return
        }
        if history {
            let dates = ISO8601DateFormatter()
            let entries = try PaymentHistory(storage: FileKeystoreStorage(url: options.directory.appendingPathComponent("payments.json"))).all()
            let json: JSONValue = .array(entries.map { entry in
                let person = entry.kind == .sent ? entry.record.payee : entry.record.payer
                return .object([
                    ("kind", .string(entry.kind.rawValue)), ("person", person.map { .string($0.displayName) } ?? .null),
                    ("amount", .string(entry.record.amount.decimalString)), ("currency", .string(entry.record.amount.currency)),
                    ("note", entry.record.note.map(JSONValue.string) ?? .null), ("date", .string(dates.string(from: entry.date))),
                    ("reference", .string(entry.reference)),
                ])
            })
            let phrases = Phrasebook(locale: locale)
            let width = max(phrases.historySent.count, phrases.historyAsked.count)
            let lines = entries.map { entry in
                let person = (entry.kind == .sent ? entry.record.payee : entry.record.payer)?.displayName ?? "?"
                let kind = (entry.kind == .sent ? phrases.historySent : phrases.historyAsked).padding(toLength: width, withPad: " ", startingAt: 0)
                return "\(dates.string(from: entry.date))  \(kind) \(person.padding(toLength: 16, withPad: " ", startingAt: 0)) \(phrases.amount(entry.record.amount))\(entry.record.note.map { "  '\($0)'" } ?? "")"
            }
            emit(json, text: entries.isEmpty ? phrases.noHistory : lines.joined(separator: "\n"))
            return
        }
        guard !text.isEmpty else { throw ValidationError("say what to do, in words: tender say \"Send $50 to Jane for dinner\"") }
        let wallet = try options.wallet()
        // No wallet, nothing to pay from: say so before anything else.
        guard (try? wallet.keystore.address()) != nil else { throw CommandFailure(Phrasebook(locale: locale).noWallet) }
        let horizon = wallet.horizon
        let assets = CurrencyAssets.testAnchor((try? await horizon.anchorCurrencies()) ?? [])
        let history = PaymentHistory(storage: FileKeystoreStorage(url: options.directory.appendingPathComponent("payments.json")))
        let handler = PaymentIntentsHandler(wallet: wallet, assets: assets, history: history)
        let parsed = try handler.parser(locale: locale).parse(text)
        let conversation = Conversation(options: options, handler: handler, locale: locale, yes: yes)
        switch parsed.intent {
        case .send: try await conversation.send(parsed)
        case .request: try await conversation.request(parsed)
        case .balance: try await conversation.balances()
        case .unknown:
            let phrases = Phrasebook(locale: locale)
            let problems = parsed.problems.map(phrases.problem) + (parsed.unrecognized.isEmpty ? [] : [phrases.didNotUnderstand(parsed.unrecognized)])
            throw CommandFailure(phrases.notUnderstood + (problems.isEmpty ? "" : " (\(problems.joined(separator: "; ")))"))
        }
    }

    func emit(_ json: JSONValue, text: String) {
        print(options.json ? json.rendered() : text)
        fflush(nil)
    }

    static func describe(_ parsed: ParsedUtterance) -> String {
        var lines = ["intent: \(parsed.intent.rawValue)"]
        if let payee = parsed.payee { lines.append("payee: \(payee)") }
        if let amount = parsed.amount { lines.append("amount: \(amount.value) \(parsed.currency ?? "(currency not said)")\(exactness(amount))") }
        if let note = parsed.note { lines.append("note: \(note)") }
        for problem in parsed.problems { lines.append("problem: \(problem.detail)") }
        if !parsed.unrecognized.isEmpty { lines.append("not understood: \(parsed.unrecognized.joined(separator: " "))") }
        return lines.joined(separator: "\n")
    }

    /// How exact the amount was said, after it: " (approximate)", " (a range up to 20)".
    static func exactness(_ amount: ParsedAmount) -> String {
        switch amount.exactness {
        case .exact: ""
        case .approximate: " (approximate)"
        case .atMost: " (at most)"
        case .atLeast: " (at least)"
        case .range(let high): " (a range up to \(high))"
        }
    }

    static func exactnessName(_ amount: ParsedAmount) -> String {
        switch amount.exactness {
        case .exact: "exact"
        case .approximate: "approximate"
        case .atMost: "at_most"
        case .atLeast: "at_least"
        case .range: "range"
        }
    }

    static func json(_ parsed: ParsedUtterance) -> JSONValue {
        .object([
            ("intent", .string(parsed.intent.rawValue)),
            ("payee", parsed.payee.map(JSONValue.string) ?? .null),
            ("amount", parsed.amount.map { .string($0.value.description) } ?? .null),
            ("currency", parsed.currency.map(JSONValue.string) ?? .null),
            ("exactness", parsed.amount.map { .string(exactnessName($0)) } ?? .null),
            ("amount_high", parsed.amount.flatMap { if case .range(let high) = $0.exactness { .string(high.description) } else { nil } } ?? .null),
            ("note", parsed.note.map(JSONValue.string) ?? .null),
            ("locale", .string(parsed.locale.rawValue)),
            ("problems", .array(parsed.problems.map { .object([("code", .string($0.code)), ("detail", .string($0.detail))]) })),
            ("unrecognized", .array(parsed.unrecognized.map(JSONValue.string))),
        ])
    }
}

/// One conversation: each parameter resolved, asked about until it resolves, then confirmed, in
/// the utterance's language. SiriKit's codes are only in `--json`.
struct Conversation {
    let options: WalletOptions
    let handler: PaymentIntentsHandler
    let locale: IntentLocale
    let yes: Bool
    var phrases: Phrasebook { Phrasebook(locale: locale) }

    /// A question answered on the terminal or by the next line of standard input.
    func ask(_ question: String) throws -> String {
        print(question, terminator: " ")
        fflush(nil)
        guard let line = readLine(strippingNewline: true) else { throw CommandFailure("standard input ended before an answer to \"\(question)\"") }
        return line.trimmingCharacters(in: .whitespaces)
    }

    func yesOrNo(_ question: String) throws -> Bool {
        phrases.isYes(try ask(question + " " + phrases.yesNoHint))
    }

    /// A numbered list; the answer is a number.
    func choose<T>(_ question: String, _ choices: [T], _ name: (T) -> String) throws -> T {
        print(question)
        for (index, choice) in choices.enumerated() { print("  \(index + 1). \(name(choice))") }
        let answer = try ask(phrases.number)
        guard let number = Int(answer), (1...choices.count).contains(number) else { throw CommandFailure(phrases.notANumber(answer, count: choices.count)) }
        return choices[number - 1]
    }

    /// The resolver, with a federation address said ("jane*example.com") looked up first.
    func resolver(for said: String?) async throws -> PaymentResolver {
        var resolver = try handler.resolver(locale: locale)
        if let said, case .federation? = PayeeHandle.parse(said), resolver.contacts(named: said).isEmpty {
            switch await handler.federated(said) {
            case .success(let person): resolver.federated[PayeeHandle.parse(said)!.normalized] = person
            case .failure(let failure): throw CommandFailure(phrases.sentence(failure))
            }
        }
        return resolver
    }

    func person(_ said: String?, resolver: PaymentResolver, request: Bool) throws -> Person {
        var said = said
        while true {
            switch resolver.resolvePayee(said) {
            case .success(let person):
                return person
            case .confirmationRequired(let person):
                if try yesOrNo(phrases.again(person.displayName, request: request)) { return person }
                said = try ask(phrases.askPayee(request: request))
            case .disambiguation(let people):
                return try choose(phrases.whichPerson(said), people) { "\($0.displayName) (\($0.handle.prefix(8))…)" }
            case .needsValue:
                said = try ask(phrases.askPayee(request: request))
            case .notRequired:
                throw CommandFailure(phrases.required(request: request))
            case .unsupported(let reason):
                throw CommandFailure(phrases.sentence(resolver.refusal(payee: said ?? "", reason: reason)))
            }
        }
    }

    /// The amount as said, unless the words could not be read exactly: then the problem is
    /// said and the amount asked for.
    func amount(_ parsed: ParsedUtterance, resolver: PaymentResolver) throws -> CurrencyAmount {
        if let problem = parsed.problems.first(where: { $0.leavesNoAmount }) {
            print(phrases.problem(problem) + ".")
            return try amount(try askAmount(phrases.howMuch), resolver: resolver)
        }
        return try amount(parsed.amount, resolver: resolver)
    }

    func amount(_ said: ParsedAmount?, resolver: PaymentResolver) throws -> CurrencyAmount {
        var said = said
        while true {
            switch resolver.resolveAmount(said) {
            case .success(let amount):
                return amount
            case .confirmationRequired(let amount):
                let question = said.map { $0.exactness == .approximate ? phrases.confirmApproximate(said: $0.text, amount) : nil } ?? nil
                if try yesOrNo(question ?? phrases.confirmAmount(amount)) { return amount }
                said = try askAmount(phrases.howMuch)
            case .disambiguation(let amounts):
                return try choose(phrases.whichDollars, amounts) { phrases.amount($0) }
            case .needsValue:
                // A range or a limit ("between 10 and 20 dollars") is said back, then asked for.
                said = try askAmount(said.map { phrases.notOneAmount(said: $0.text) } ?? phrases.howMuch)
            case .notRequired:
                throw CommandFailure(phrases.howMuch)
            case .unsupported(let reason):
                throw CommandFailure(phrases.sentence(resolver.refusal(amount: said, reason: reason)))
            }
        }
    }

    func askAmount(_ question: String) throws -> ParsedAmount? {
        let answer = try ask(question)
        let parsed = UtteranceParser(locale: locale).parse(answer)
        if let problem = parsed.problems.first(where: { $0.leavesNoAmount }) ?? (parsed.amount == nil ? parsed.problems.first : nil) {
            throw CommandFailure(phrases.problem(problem))
        }
        return parsed.amount
    }

    func send(_ parsed: ParsedUtterance) async throws {
        let resolver = try await resolver(for: parsed.payee)
        let payee = try person(parsed.payee, resolver: resolver, request: false)
        let amount = try amount(parsed, resolver: resolver)
        let note = Self.note(parsed, resolver)
        let intent = SendPaymentIntent(payee: payee, amount: amount, note: note)
        let ready = await handler.confirm(intent)
        guard ready.code == .ready else { throw failure(ready) }
        if !yes, !(try yesOrNo(phrases.confirmSend(amount, to: payee.displayName, note: note))) {
            print(phrases.cancelled)
            return
        }
        let pin = try options.pin()
        let done = await handler.handle(intent, pin: pin)
        guard done.code == .success, let record = done.record else { throw failure(done) }
        let json: JSONValue = .object([
            ("code", .string("\(done.code)")), ("code_value", .number(Int64(done.code.rawValue))),
            ("payee", .string(payee.displayName)), ("address", .string(payee.handle)),
            ("amount", .string(amount.decimalString)), ("currency", .string(amount.currency)),
            ("note", note.map(JSONValue.string) ?? .null), ("status", .string("completed")),
            ("fee", .string(record.fee?.decimalString ?? "0")),
        ])
        print(options.json ? json.rendered() : phrases.sent(amount, to: payee.displayName, note: note, fee: record.fee))
        fflush(nil)
    }

    /// The note, when one was said.
    static func note(_ parsed: ParsedUtterance, _ resolver: PaymentResolver) -> String? {
        if case .success(let note) = resolver.resolveNote(parsed.note) { return note }
        return nil
    }

    /// A refusal in the conversation's language; with `--json`, SiriKit's code and Tender's
    /// reason are printed first.
    func failure(_ response: PaymentIntentResponse) -> CommandFailure {
        if options.json {
            print(JSONValue.object([
                ("code", .string("\(response.code)")), ("code_value", .number(Int64(response.code.rawValue))),
                ("reason", response.reason.map(JSONValue.string) ?? .null), ("message", .string(response.message)),
            ]).rendered())
            fflush(nil)
        }
        return CommandFailure(response.failure.map(phrases.sentence) ?? response.message)
    }

    func request(_ parsed: ParsedUtterance) async throws {
        let resolver = try await resolver(for: parsed.payee)
        let payer = try person(parsed.payee, resolver: resolver, request: true)
        let amount = try amount(parsed, resolver: resolver)
        let note = Self.note(parsed, resolver)
        let answer = try handler.request(RequestPaymentIntent(payer: payer, amount: amount, note: note))
        guard answer.code == .success, let uri = answer.uri else {
            throw CommandFailure(options.json ? "\(answer.message) [\(answer.code) \(answer.code.rawValue)]" : phrases.sentence(.currencyUnsupported(code: amount.currency)))
        }
        let json: JSONValue = .object([
            ("code", .string("\(answer.code)")), ("payer", .string(payer.displayName)), ("amount", .string(amount.decimalString)),
            ("currency", .string(amount.currency)), ("note", note.map(JSONValue.string) ?? .null), ("uri", .string(uri)),
        ])
        print(options.json ? json.rendered() : "\(phrases.requestLink(payer.displayName))\n\(uri)")
        fflush(nil)
    }

    func balances() async throws {
        let amounts = try await handler.balances()
        let json: JSONValue = .array(amounts.map { .object([("currency", .string($0.currency)), ("balance", .string($0.decimalString))]) })
        print(options.json ? json.rendered() : amounts.isEmpty ? phrases.noBalances : amounts.map { "\($0.currency): \(phrases.decimal($0.decimalString))" }.joined(separator: "\n"))
        fflush(nil)
    }
}
