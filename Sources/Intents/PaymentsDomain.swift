// SiriKit's payments domain (INSendPaymentIntent, INRequestPaymentIntent, INSearchForAccountsIntent
// and their resolution results and response codes), as plain Swift values for any platform.

/// Someone to pay or to ask for money: a contact, as SiriKit's INPerson.
public struct Person: Hashable, Sendable {
    /// The name shown to the user ("Jane Doe").
    public var displayName: String
    /// How the payment reaches them: a Stellar address, or an email, or a phone number.
    public var handle: String
    /// Other names they are known by: nicknames, a short name ("Jane"), "Mom".
    public var aliases: [String]

    public init(displayName: String, handle: String, aliases: [String] = []) {
        self.displayName = displayName
        self.handle = handle
        self.aliases = aliases
    }
}

/// An amount of money, exactly: an integer of minor units (cents, stroops) with its currency
/// and the number of decimals the minor unit stands for. No Decimal, no floating point.
public struct CurrencyAmount: Hashable, Sendable, CustomStringConvertible {
    public var minorUnits: Int64
    /// An ISO 4217 code ("USD", "EUR"), or "XLM".
    public var currency: String
    /// Decimals of the minor unit: 2 for USD and EUR, 7 for XLM.
    public var exponent: Int

    public init(minorUnits: Int64, currency: String, exponent: Int) {
        self.minorUnits = minorUnits
        self.currency = currency
        self.exponent = exponent
    }

    /// The amount with all its decimals: "50.00", "0.5000000", "-1.25".
    public var decimalString: String {
        let magnitude = minorUnits.magnitude
        var digits = String(magnitude)
        guard exponent > 0 else { return (minorUnits < 0 ? "-" : "") + digits }
        if digits.count <= exponent { digits = String(repeating: "0", count: exponent - digits.count + 1) + digits }
        let split = digits.index(digits.endIndex, offsetBy: -exponent)
        return (minorUnits < 0 ? "-" : "") + digits[..<split] + "." + digits[split...]
    }

    /// "50.00 USD".
    public var description: String { "\(decimalString) \(currency)" }
}

/// What happened to a payment, as INPaymentStatus (with its raw values).
public enum PaymentStatus: Int, Sendable, CaseIterable {
    case unknown = 0, pending, completed, canceled, failed, unpaid
}

/// A payment made or asked for, as INPaymentRecord.
public struct PaymentRecord: Hashable, Sendable {
    public var payee: Person?
    public var payer: Person?
    public var amount: CurrencyAmount
    /// How it was paid: "stellar" for a ledger payment.
    public var paymentMethod: String
    public var note: String?
    public var status: PaymentStatus
    public var fee: CurrencyAmount?

    public init(payee: Person?, payer: Person?, amount: CurrencyAmount, paymentMethod: String = "stellar", note: String?, status: PaymentStatus, fee: CurrencyAmount? = nil) {
        self.payee = payee
        self.payer = payer
        self.amount = amount
        self.paymentMethod = paymentMethod
        self.note = note
        self.status = status
        self.fee = fee
    }
}

/// Why a payee cannot be paid (INSendPaymentPayeeUnsupportedReason's raw values).
public enum PayeeUnsupportedReason: Int, Sendable {
    case credentialsUnverified = 1, insufficientFunds, noAccount, noValidHandle
}

/// Why an amount cannot be paid: INSendPaymentCurrencyAmountUnsupportedReason's raw values,
/// and two of Tender's own past them (raw values from 100, so they never collide).
public enum AmountUnsupportedReason: Int, Sendable {
    case amountBelowMinimum = 1, amountAboveMaximum, currencyUnsupported
    /// Zero or negative.
    case amountNotPositive = 100
    /// More decimals than the currency has ($12.345).
    case tooManyDecimals = 101
}

/// The answer to resolving one parameter, as SiriKit's resolution results.
public enum Resolution<Value: Hashable & Sendable, Reason: Hashable & Sendable>: Hashable, Sendable {
    /// This is the value.
    case success(Value)
    /// Probably this value: ask the user to confirm it.
    case confirmationRequired(Value)
    /// One of these: ask the user to choose.
    case disambiguation([Value])
    /// Missing and required: ask the user for it.
    case needsValue
    /// Missing, and that is fine.
    case notRequired
    /// Cannot be used, with the reason when there is one.
    case unsupported(Reason?)
}

/// The answer to confirming or handling a send-payment intent (INSendPaymentIntentResponseCode's
/// raw values).
public enum SendPaymentResponseCode: Int, Sendable, CaseIterable {
    case unspecified = 0, ready, inProgress, success, failure, failureRequiringAppLaunch, failureCredentialsUnverified
    case failurePaymentsAmountBelowMinimum, failurePaymentsAmountAboveMaximum, failurePaymentsCurrencyUnsupported
    case failureInsufficientFunds, failureNoBankAccount, failureNotEligible, failureTermsAndConditionsAcceptanceRequired
}

/// The answer to confirming or handling a request-payment intent
/// (INRequestPaymentIntentResponseCode's raw values: as sending, without insufficient funds).
public enum RequestPaymentResponseCode: Int, Sendable, CaseIterable {
    case unspecified = 0, ready, inProgress, success, failure, failureRequiringAppLaunch, failureCredentialsUnverified
    case failurePaymentsAmountBelowMinimum, failurePaymentsAmountAboveMaximum, failurePaymentsCurrencyUnsupported
    case failureNoBankAccount, failureNotEligible, failureTermsAndConditionsAcceptanceRequired
}

/// Send money (INSendPaymentIntent).
public struct SendPaymentIntent: Hashable, Sendable {
    public var payee: Person?
    public var amount: CurrencyAmount?
    public var note: String?
    public init(payee: Person? = nil, amount: CurrencyAmount? = nil, note: String? = nil) {
        self.payee = payee
        self.amount = amount
        self.note = note
    }
}

/// Ask someone for money (INRequestPaymentIntent).
public struct RequestPaymentIntent: Hashable, Sendable {
    public var payer: Person?
    public var amount: CurrencyAmount?
    public var note: String?
    public init(payer: Person? = nil, amount: CurrencyAmount? = nil, note: String? = nil) {
        self.payer = payer
        self.amount = amount
        self.note = note
    }
}

/// What the user has (INSearchForAccountsIntent): balances, by currency.
public struct SearchForAccountsIntent: Hashable, Sendable {
    public init() {}
}
