import Foundation
import Intents
import StellarBase

/// Which ledger asset pays each currency of a payment asked for in words. The app configures it;
/// ``testAnchor(_:)`` is Tender's default: USD → the anchor's USDC, EUR → its EUR, XLM → lumens,
/// and any other anchor asset by its own code.
public struct CurrencyAssets: Sendable {
    public var assets: [String: Asset]

    public init(_ assets: [String: Asset]) {
        self.assets = assets
    }

    public static func testAnchor(_ anchorAssets: [Asset]) -> CurrencyAssets {
        var table: [String: Asset] = ["XLM": .native]
        for asset in anchorAssets {
            guard let code = asset.code?.text else { continue }
            table[code] = asset
            if code == "USDC" { table["USD"] = asset }
        }
        return CurrencyAssets(table)
    }

    /// Stroops for an amount in minor units: exact (`minor × 10^(7 − exponent)`), nil when it
    /// does not fit or has more decimals than the ledger's seven.
    public static func stroops(_ amount: CurrencyAmount) -> Int64? {
        guard amount.exponent >= 0, amount.exponent <= 7 else { return nil }
        var value = amount.minorUnits
        for _ in amount.exponent..<7 {
            let (product, overflow) = value.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            value = product
        }
        return value
    }
}

/// The answer to confirming or handling a payment asked for in words: Apple's response code,
/// Tender's own stable reason for a failure, a sentence for the user, and the record once paid.
public struct PaymentIntentResponse: Sendable, Equatable {
    public var code: SendPaymentResponseCode
    /// `recipient_not_found`, `balance_insufficient`, `pin_incorrect`...; nil when it worked.
    public var reason: String?
    public var message: String
    public var record: PaymentRecord?
    /// Why it was refused, for an answer in the user's language (``Phrasebook/sentence(_:)``).
    public var failure: IntentFailure?

    public init(code: SendPaymentResponseCode, reason: String? = nil, message: String, record: PaymentRecord? = nil) {
        self.code = code
        self.reason = reason
        self.message = message
        self.record = record
    }

    /// A refusal: its message is the failure's English sentence.
    init(code: SendPaymentResponseCode, reason: String, failure: IntentFailure) {
        self.init(code: code, reason: reason, message: Phrasebook(.en).sentence(failure))
        self.failure = failure
    }
}

/// An intents extension for a wallet: resolves against its contacts, confirms a payment against
/// the ledger without moving money, pays through the wallet, asks for payments with SEP-7 URIs,
/// and keeps the history.
public struct PaymentIntentsHandler: Sendable {
    public let wallet: Wallet
    public let assets: CurrencyAssets
    public let history: PaymentHistory
    /// The smallest and largest payment in each currency, in minor units.
    public var limits: [String: (minimum: Int64, maximum: Int64)]

    public init(wallet: Wallet, assets: CurrencyAssets, history: PaymentHistory, limits: [String: (minimum: Int64, maximum: Int64)] = [:]) {
        self.wallet = wallet
        self.assets = assets
        self.history = history
        self.limits = limits
    }

    /// The currencies the ledger can pay, with their limits (by default one minor unit to the
    /// most an Int64 of stroops holds).
    public var currencyRules: [CurrencyRule] {
        assets.assets.keys.sorted().compactMap { code in
            // Currencies the parser knows have their own decimals; other ledger assets the ledger's seven.
            let exponent = UtteranceParser.exponent(of: code) ?? 7
            let limit = limits[code] ?? (1, Int64.max / 100_000)
            return CurrencyRule(code: code, exponent: exponent, minimum: limit.minimum, maximum: limit.maximum)
        }
    }

    /// The wallet's contacts as people to pay.
    public func people() throws -> [Person] {
        try wallet.contacts.all().map { Person(displayName: $0.name, handle: $0.address, aliases: $0.aliases) }
    }

    /// A resolver over the contacts, the last payment sent and the currencies the ledger can pay.
    public func resolver(locale: IntentLocale) throws -> PaymentResolver {
        let people = try people()
        var last = try history.lastSent()
        // The last payee as the contacts know them now (the history keeps a name and address).
        if let handle = last?.payee?.handle, let current = people.first(where: { $0.handle == handle }) { last?.payee = current }
        return PaymentResolver(contacts: people, lastPayment: last, currencies: currencyRules, locale: locale)
    }

    /// A parser that knows the contacts' names and aliases (as INVocabulary registers them).
    public func parser(locale: IntentLocale) throws -> UtteranceParser {
        UtteranceParser(locale: locale, vocabulary: try people().flatMap { [$0.displayName] + $0.aliases }, currencyCodes: Array(assets.assets.keys))
    }

    /// Checks, without moving money, that the payment can be made: the payee's account exists
    /// and can hold the asset, the wallet's balance covers amount and fee, the limits hold.
    public func confirm(_ intent: SendPaymentIntent) async -> PaymentIntentResponse {
        switch await checked(intent) {
        case .failure(let refusal):
            return refusal
        case .success(let payment):
            return PaymentIntentResponse(code: .ready, message: "Ready to send \(payment.amount) to \(payment.payee.displayName) (fee \(Amount.format(payment.fee)) XLM)")
        }
    }

    /// Pays (the PIN unlocks the key) and answers success with the record, or the failure code.
    public func handle(_ intent: SendPaymentIntent, pin: String) async -> PaymentIntentResponse {
        let payment: CheckedPayment
        switch await checked(intent) {
        case .failure(let refusal): return refusal
        case .success(let checked): payment = checked
        }
        do {
            let submission = try await wallet.pay(to: payment.payee.handle, amount: Amount.format(payment.stroops), asset: payment.asset,
                                                  memo: intent.note.map(Self.memo), pin: pin)
            let record = PaymentRecord(payee: payment.payee, payer: nil, amount: payment.amount, note: intent.note, status: .completed,
                                       fee: CurrencyAmount(minorUnits: payment.fee, currency: "XLM", exponent: 7))
            try history.append(.init(kind: .sent, record: record, reference: submission.hash, date: Date()))
            return PaymentIntentResponse(code: .success, message: "Sent \(payment.amount) to \(payment.payee.displayName)", record: record)
        } catch let error as KeystoreError {
            return PaymentIntentResponse(code: .failureCredentialsUnverified, reason: error.code.rawValue,
                                         failure: error.code == .incorrectPIN ? .pinIncorrect : .other(error.message))
        } catch let error as WalletError {
            return Self.response(error)
        } catch {
            return PaymentIntentResponse(code: .failure, reason: "network", failure: .other("\(error)"))
        }
    }

    /// A memo holds 28 bytes: a longer note is cut at a character (the history keeps it whole).
    static func memo(_ note: String) -> String {
        var memo = ""
        for character in note {
            if memo.utf8.count + String(character).utf8.count > 28 { break }
            memo.append(character)
        }
        return memo
    }

    static func response(_ error: WalletError) -> PaymentIntentResponse {
        let code: SendPaymentResponseCode = switch error.code {
        case .insufficientBalance: .failureInsufficientFunds
        case .accountNotFound: .failureNoBankAccount
        default: .failure
        }
        let failure: IntentFailure = error.code == .accountNotFound ? .noAccount : .other(error.message)
        return PaymentIntentResponse(code: code, reason: error.code.rawValue, failure: failure)
    }

    /// A payment that passed the checks, with what paying it needs.
    struct CheckedPayment {
        var payee: Person
        var amount: CurrencyAmount
        var asset: Asset
        var stroops: Int64
        /// The network's fee, in stroops.
        var fee: Int64
    }

    /// The checks both confirm and handle make, or the response that refuses the payment.
    private func checked(_ intent: SendPaymentIntent) async -> Result<CheckedPayment, PaymentIntentResponse> {
        do {
            return .success(try await check(intent))
        } catch let refusal as PaymentIntentResponse {
            return .failure(refusal)
        } catch {
            return .failure(PaymentIntentResponse(code: .failure, reason: "network", failure: .other("\(error)")))
        }
    }

    private func check(_ intent: SendPaymentIntent) async throws -> CheckedPayment {
        guard let payee = intent.payee, let destination = try? AccountID(payee.handle) else {
            throw PaymentIntentResponse(code: .failure, reason: "payee_invalid", failure: .noAddress(payee: intent.payee?.displayName ?? "?"))
        }
        guard let amount = intent.amount else { throw PaymentIntentResponse(code: .failure, reason: "amount_required", message: "No amount") }
        guard let asset = assets.assets[amount.currency], let stroops = CurrencyAssets.stroops(amount) else {
            throw PaymentIntentResponse(code: .failurePaymentsCurrencyUnsupported, reason: "currency_unsupported", failure: .currencyUnsupported(code: amount.currency))
        }
        if let rule = currencyRules.first(where: { $0.code == amount.currency }) {
            if amount.minorUnits < rule.minimum {
                throw PaymentIntentResponse(code: .failurePaymentsAmountBelowMinimum, reason: "amount_below_minimum",
                                            failure: .amountBelowMinimum(CurrencyAmount(minorUnits: rule.minimum, currency: rule.code, exponent: rule.exponent)))
            }
            if amount.minorUnits > rule.maximum {
                throw PaymentIntentResponse(code: .failurePaymentsAmountAboveMaximum, reason: "amount_above_maximum",
                                            failure: .amountAboveMaximum(CurrencyAmount(minorUnits: rule.maximum, currency: rule.code, exponent: rule.exponent)))
            }
        }
        let account: HorizonAccount
        do {
            account = try await wallet.account()
        } catch let error as WalletError {
            throw Self.response(error)
        } catch let error as KeystoreError {
            throw PaymentIntentResponse(code: .failureRequiringAppLaunch, reason: error.code.rawValue, failure: .other(error.message))
        }
        let code = asset.code?.text ?? "XLM"
        // An issued asset the wallet does not hold at all: it must be added first (its own issuer
        // pays without one).
        if asset != .native, asset.issuer != (try? AccountID(account.accountId)), !account.balances.contains(where: { $0.asset == asset }) {
            throw PaymentIntentResponse(code: .failureInsufficientFunds, reason: WalletError.Code.trustlineMissing.rawValue, failure: .holdsNone(asset: code))
        }
        let fees = try await wallet.horizon.networkFees()
        let maximum = Wallet.maximumSendable(account, asset: asset, fee: fees.baseFee, baseReserve: fees.baseReserve)
        guard stroops <= maximum else {
            throw PaymentIntentResponse(code: .failureInsufficientFunds, reason: WalletError.Code.insufficientBalance.rawValue,
                                        failure: .insufficientFunds(maximum: Amount.format(maximum), asset: code))
        }
        if let recipient = try await wallet.horizon.account(destination.strKey) {
            if asset != .native, asset.issuer != destination {
                guard let line = recipient.balances.first(where: { $0.asset == asset }) else {
                    throw PaymentIntentResponse(code: .failure, reason: WalletError.Code.recipientCannotReceive.rawValue,
                                                failure: .recipientCannotReceive(payee: payee.displayName, asset: code))
                }
                let balance = (try? Amount.parse(line.balance)) ?? 0
                let limit = line.limit.flatMap { try? Amount.parse($0) } ?? Int64.max
                let buying = line.buyingLiabilities.flatMap { try? Amount.parse($0) } ?? 0
                let (room, overflow) = limit.subtractingReportingOverflow(balance)
                let (left, overflow2) = room.subtractingReportingOverflow(buying)
                guard !overflow, !overflow2, stroops <= left else {
                    throw PaymentIntentResponse(code: .failure, reason: WalletError.Code.recipientCannotReceive.rawValue,
                                                failure: .recipientLimit(payee: payee.displayName, asset: code))
                }
            }
        } else if asset != .native || stroops < Amount.stroopsPerUnit {
            throw PaymentIntentResponse(code: .failure, reason: WalletError.Code.recipientNotFound.rawValue, failure: .recipientNotFound(payee: payee.displayName))
        }
        return CheckedPayment(payee: payee, amount: amount, asset: asset, stroops: stroops, fee: fees.baseFee)
    }

    // MARK: Federation

    /// The person a SEP-2 federation address names, looked up at its domain's federation server
    /// (found in the domain's stellar.toml), for ``PaymentResolver/federated``; the failure to say
    /// when there is none.
    public func federated(_ said: String) async -> Result<Person, IntentFailure> {
        guard case .federation(let name, let domain)? = PayeeHandle.parse(said) else { return .failure(.noContact(name: said)) }
        do {
            let record = try await FederationClient(transport: wallet.horizon.transport).resolve(name: name, domain: domain)
            return .success(Person(displayName: record.stellarAddress, handle: record.accountID))
        } catch let error as FederationError {
            return .failure(error.code == .notFound ? .federationNotFound(address: "\(name)*\(domain)") : .federationUnavailable(domain: domain))
        } catch {
            return .failure(.federationUnavailable(domain: domain))
        }
    }

    // MARK: Request payment

    /// Asks `payer` for money with a SEP-7 `web+stellar:pay` URI to the wallet's own account,
    /// which any Stellar wallet can open, and keeps it in the history.
    public func request(_ intent: RequestPaymentIntent) throws -> (code: RequestPaymentResponseCode, uri: String?, message: String) {
        guard let amount = intent.amount, let asset = assets.assets[amount.currency], let stroops = CurrencyAssets.stroops(amount) else {
            return (.failurePaymentsCurrencyUnsupported, nil, "\(intent.amount?.currency ?? "That currency") is not paid on this ledger")
        }
        let uri = PayURI(destination: try AccountID(try wallet.keystore.address()), amount: stroops, asset: asset, memo: intent.note.map(Self.memo)).uri
        let record = PaymentRecord(payee: nil, payer: intent.payer, amount: amount, note: intent.note, status: .unpaid)
        try history.append(.init(kind: .requested, record: record, reference: uri, date: Date()))
        return (.success, uri, "Asked \(intent.payer?.displayName ?? "for") \(amount)")
    }

    // MARK: Balances

    /// The wallet's balances in the currencies it knows (search for accounts).
    public func balances() async throws -> [CurrencyAmount] {
        let account = try await wallet.account()
        var amounts: [CurrencyAmount] = []
        for line in account.balances {
            guard let asset = line.asset, let stroops = try? Amount.parse(line.balance) else { continue }
            let code = assets.assets.filter { $0.value == asset }.keys.sorted().first ?? asset.code?.text ?? "XLM"
            amounts.append(CurrencyAmount(minorUnits: stroops, currency: code, exponent: 7))
        }
        return amounts
    }
}

extension PaymentIntentResponse: Error {}
