/// What an app accepts in one currency: its decimals and the smallest and largest payment, in
/// minor units.
public struct CurrencyRule: Hashable, Sendable {
    public var code: String
    public var exponent: Int
    public var minimum: Int64
    public var maximum: Int64

    public init(code: String, exponent: Int, minimum: Int64, maximum: Int64) {
        self.code = code
        self.exponent = exponent
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// Resolves a payment's parameters one at a time, as an intents extension's resolve methods do,
/// and again after each answer: the payee against the contacts, the amount against the
/// currencies the app accepts and their limits, the note.
public struct PaymentResolver: Sendable {
    public var contacts: [Person]
    /// The last payment made, offered for confirmation when a parameter is missing.
    public var lastPayment: PaymentRecord?
    /// The currencies accepted, by code.
    public var currencies: [String: CurrencyRule]
    public var locale: IntentLocale
    /// The currency of an amount said with none ("send 50 to Jane"): the locale's by default.
    public var defaultCurrency: String
    /// People found by a SEP-2 federation lookup, by federation address (``PayeeHandle/normalized``):
    /// the app looks them up (it may do I/O; the resolver does not) and they resolve like contacts.
    public var federated: [String: Person] = [:]

    public init(contacts: [Person], lastPayment: PaymentRecord? = nil, currencies: [CurrencyRule], locale: IntentLocale = .enUS, defaultCurrency: String? = nil) {
        self.contacts = contacts
        self.lastPayment = lastPayment
        self.currencies = Dictionary(currencies.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
        self.locale = locale
        self.defaultCurrency = defaultCurrency ?? locale.localCurrency
    }

    // MARK: Payee

    /// One contact whose name, first name, alias or handle is what was said (any case, any
    /// accents) → success; several → disambiguation; none → unsupported(noAccount); a contact
    /// without a handle → unsupported(noValidHandle). Nothing said → the last payee to confirm,
    /// or needsValue.
    public func resolvePayee(_ name: String?) -> Resolution<Person, PayeeUnsupportedReason> {
        guard let name, !Tokenizer.foldedWords(name).isEmpty else {
            if let payee = lastPayment?.payee { return .confirmationRequired(payee) }
            return .needsValue
        }
        let matches = contacts(named: name)
        switch matches.count {
        case 0:
            // A Stellar account said whole is payable as it is; a federation address once looked up.
            switch PayeeHandle.parse(name) {
            case .stellarAccount(let account)?: return .success(Person(displayName: account, handle: account))
            case let handle? where federated[handle.normalized] != nil: return .success(federated[handle.normalized]!)
            default: return .unsupported(.noAccount)
            }
        case 1: return matches[0].handle.isEmpty ? .unsupported(.noValidHandle) : .success(matches[0])
        default: return .disambiguation(matches)
        }
    }

    /// Why nobody could be paid for what was said, for the answer.
    public func refusal(payee said: String, reason: PayeeUnsupportedReason?) -> IntentFailure {
        if reason == .noValidHandle { return .noAddress(payee: said) }
        switch PayeeHandle.parse(said) {
        case .federation(let name, let domain)?: return .federationNotFound(address: "\(name)*\(domain)")
        case let handle?: return .noContactWithHandle(handle)
        case nil: return .noContact(name: said)
        }
    }

    /// The contacts a name may mean.
    public func contacts(named name: String) -> [Person] {
        // A phone number, e-mail address, username or account: the contacts with it as their
        // handle or one of their aliases ("+31 6 1234 5678" is "+31612345678").
        if let handle = PayeeHandle.parse(name) {
            return contacts.filter { person in
                ([person.handle] + person.aliases).contains { PayeeHandle.parse($0)?.normalized == handle.normalized }
            }
        }
        let said = Tokenizer.foldedWords(name)
        return contacts.filter { person in
            let names = [person.displayName, person.handle] + person.aliases
            if names.contains(where: { Tokenizer.foldedWords($0) == said }) { return true }
            // "Jane" for "Jane Doe".
            return said.count == 1 && Tokenizer.foldedWords(person.displayName).first == said[0]
        }
    }

    // MARK: Amount

    /// The amount in a currency the app accepts, within its limits, exactly: ≤ 0 →
    /// unsupported(amountNotPositive); a currency not accepted → unsupported(currencyUnsupported);
    /// more decimals than the currency has → unsupported(tooManyDecimals); under the minimum or
    /// over the maximum → unsupported with that reason; a "$" the locale leaves open →
    /// disambiguation between the dollars accepted. An approximate amount ("about 20 dollars") →
    /// confirmationRequired of the exact one; a range or a limit → needsValue. Nothing said → the
    /// last amount to confirm, or needsValue.
    public func resolveAmount(_ amount: ParsedAmount?) -> Resolution<CurrencyAmount, AmountUnsupportedReason> {
        guard let amount else {
            if let last = lastPayment?.amount { return .confirmationRequired(last) }
            return .needsValue
        }
        if amount.unit == .ambiguous(.dollar), locale.dollar == nil {
            let choices = IntentLocale.dollars.compactMap { currencies[$0] }.compactMap { rule -> CurrencyAmount? in
                guard case .success(let resolved) = resolve(amount.value, in: rule) else { return nil }
                return resolved
            }
            if choices.count == 1 { return .confirmationRequired(choices[0]) }
            return choices.isEmpty ? .unsupported(.currencyUnsupported) : .disambiguation(choices)
        }
        guard let code = code(of: amount.unit), let rule = currencies[code] else { return .unsupported(.currencyUnsupported) }
        let resolved = resolve(amount.value, in: rule)
        switch amount.exactness {
        case .exact:
            return resolved
        case .approximate:
            // "about 20 dollars": never paid as said; the exact amount is asked to confirm.
            if case .success(let exact) = resolved { return .confirmationRequired(exact) }
            return resolved
        case .atMost, .atLeast, .range:
            // "under 20 dollars", "between 10 and 20": not one amount; ask for it.
            return .needsValue
        }
    }

    /// The currency an amount's unit is here, or nil when the words leave it open.
    func code(of unit: MoneyUnit) -> String? {
        switch unit {
        case .currency(let code): code
        case .ambiguous(.dollar): locale.dollar
        case .ambiguous(.yen): locale.yen
        case .ambiguous(.local): locale.localCurrency
        case .ambiguous: nil
        case .unspecified: defaultCurrency
        }
    }

    /// Why an amount could not be paid, for the answer: with the limit it broke.
    public func refusal(amount said: ParsedAmount?, reason: AmountUnsupportedReason?) -> IntentFailure {
        let text = said?.text ?? "?"
        let rule = said.flatMap { code(of: $0.unit) }.flatMap { currencies[$0] }
        switch reason {
        case .amountNotPositive: return .amountNotPositive(said: text)
        case .tooManyDecimals: return .tooManyDecimals(said: text)
        case .amountBelowMinimum?:
            guard let rule else { return .currencyUnsupported(code: text) }
            return .amountBelowMinimum(CurrencyAmount(minorUnits: rule.minimum, currency: rule.code, exponent: rule.exponent))
        case .amountAboveMaximum?:
            guard let rule else { return .currencyUnsupported(code: text) }
            return .amountAboveMaximum(CurrencyAmount(minorUnits: rule.maximum, currency: rule.code, exponent: rule.exponent))
        case .currencyUnsupported?, nil:
            return .currencyUnsupported(code: said.flatMap { code(of: $0.unit) } ?? text)
        }
    }

    func resolve(_ value: DecimalNumber, in rule: CurrencyRule) -> Resolution<CurrencyAmount, AmountUnsupportedReason> {
        let normalized = value.normalized
        if normalized.isNegative || normalized.significand == 0 { return .unsupported(.amountNotPositive) }
        if normalized.scale > rule.exponent { return .unsupported(.tooManyDecimals) }
        guard let minor = normalized.minorUnits(exponent: rule.exponent) else { return .unsupported(.amountAboveMaximum) }
        if minor < rule.minimum { return .unsupported(.amountBelowMinimum) }
        if minor > rule.maximum { return .unsupported(.amountAboveMaximum) }
        return .success(CurrencyAmount(minorUnits: minor, currency: rule.code, exponent: rule.exponent))
    }

    // MARK: Note

    /// A note is optional: said → success, not said → notRequired.
    public func resolveNote(_ note: String?) -> Resolution<String, Never> {
        guard let note, !note.allSatisfy(\.isWhitespace) else { return .notRequired }
        return .success(note)
    }
}
