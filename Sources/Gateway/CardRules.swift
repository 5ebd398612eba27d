/// A card's network, recognised from the first digits of its number.
public enum CardBrand: String, Sendable, Codable, CaseIterable {
    case visa, mastercard, maestro, amex, unknown

    /// Which leading digits make which brand, tried in order: Visa starts with 4; Amex 34 or 37;
    /// Mastercard 51-55 or 2221-2720; Maestro 50 or 56-69. Data, so the payment page's script
    /// recognises brands from the same table.
    public static let prefixes: [(digits: Int, low: Int, high: Int, brand: CardBrand)] = [
        (1, 4, 4, .visa), (2, 34, 34, .amex), (2, 37, 37, .amex), (2, 51, 55, .mastercard), (4, 2221, 2720, .mastercard),
        (2, 50, 50, .maestro), (2, 56, 69, .maestro),
    ]

    /// The brand of a number's leading digits (as typed so far, or complete).
    public init(digits: some StringProtocol) {
        self = Self.prefixes.first { entry in
            digits.count >= entry.digits && Int(digits.prefix(entry.digits)).map { (entry.low...entry.high).contains($0) } == true
        }?.brand ?? .unknown
    }

    /// The lengths a complete number of this brand may have.
    public var lengths: [Int] {
        switch self {
        case .visa: [13, 16, 19]
        case .mastercard: [16]
        case .amex: [15]
        case .maestro, .unknown: Array(12...19)
        }
    }

    /// Whether a complete number of this brand may have `count` digits.
    public func allowsLength(_ count: Int) -> Bool { lengths.contains(count) }

    /// How many digits the card's security code has: four for Amex, three for the others.
    public var securityCodeLength: Int { self == .amex ? 4 : 3 }

    /// How the number is grouped for display: 4-6-5 for Amex, fours for the others.
    public var grouping: [Int] { self == .amex ? [4, 6, 5] : [4, 4, 4, 4, 3] }
}

/// Why a card was refused before any acquirer saw it, with Stripe's error codes.
public struct CardCheckError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Not a card number at all: other characters, or a length no brand has.
        case invalidNumber = "invalid_number"
        /// The right shape, but the check digit is wrong.
        case incorrectNumber = "incorrect_number"
        case invalidExpiryMonth = "invalid_expiry_month"
        case invalidExpiryYear = "invalid_expiry_year"
        case invalidCVC = "invalid_cvc"
    }

    public let code: Code
    public let message: String
    /// The field at fault, as Stripe names it (`number`, `exp_month`, `exp_year`, `cvc`).
    public let parameter: String
    public var description: String { message }
}

/// A month of the calendar, for expiry dates: the caller passes today's, so the rules stay pure.
public struct YearMonth: Sendable, Hashable, Comparable {
    public let year: Int
    public let month: Int

    public init(year: Int, month: Int) {
        self.year = year
        self.month = month
    }

    public static func < (a: YearMonth, b: YearMonth) -> Bool { (a.year, a.month) < (b.year, b.month) }
}

/// The checks a card passes before it is tokenised, shared by the gateway and the PaymentEngine
/// client library. Pure: no I/O, and today's month comes in as a parameter.
public enum CardRules {
    /// The longest text accepted as a card number before sanitising: no real number, with
    /// separators, comes near it, and it bounds the work done on hostile input.
    public static let maxInputLength = 64

    /// The digits of `input` with the spaces and dashes people type dropped; nil when anything
    /// else is in it.
    public static func sanitise(_ input: String) -> String? {
        guard input.utf8.count <= maxInputLength else { return nil }
        var digits = ""
        for byte in input.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "), UInt8(ascii: "-"): continue
            default: return nil
            }
        }
        return digits
    }

    /// Whether the digits pass the Luhn check (the last digit checks the others).
    public static func passesLuhn(_ digits: some StringProtocol) -> Bool {
        var sum = 0
        for (index, character) in digits.reversed().enumerated() {
            guard let digit = character.wholeNumberValue, character.isASCII else { return false }
            if index % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return !digits.isEmpty && sum % 10 == 0
    }

    /// `digits` grouped for display (4-4-4-4, Amex 4-6-5), as far as they go.
    public static func grouped(_ digits: String) -> String {
        var groups: [Substring] = []
        var rest = Substring(digits)
        for size in CardBrand(digits: digits).grouping where !rest.isEmpty {
            groups.append(rest.prefix(size))
            rest = rest.dropFirst(size)
        }
        if !rest.isEmpty { groups.append(rest) }
        return groups.joined(separator: " ")
    }

    /// The sanitised number and its brand.
    /// - Throws: ``CardCheckError`` `invalid_number` (other characters, or a length the brand
    ///   does not have) or `incorrect_number` (the Luhn check fails).
    public static func checkNumber(_ input: String) throws(CardCheckError) -> (digits: String, brand: CardBrand) {
        guard let digits = sanitise(input), !digits.isEmpty else {
            throw CardCheckError(code: .invalidNumber, message: "Your card number is not a valid card number.", parameter: "number")
        }
        let brand = CardBrand(digits: digits)
        guard brand.allowsLength(digits.count) else {
            throw CardCheckError(code: .invalidNumber, message: "Your card number is not a valid card number: a \(brand == .unknown ? "card" : brand.rawValue) number does not have \(digits.count) digits.", parameter: "number")
        }
        guard passesLuhn(digits) else {
            throw CardCheckError(code: .incorrectNumber, message: "Your card number is incorrect.", parameter: "number")
        }
        return (digits, brand)
    }

    /// The expiry as a month, valid through the end of that month.
    /// - Parameters:
    ///   - year: two digits (2000 + year) or four.
    ///   - today: the current month.
    /// - Throws: ``CardCheckError`` `invalid_expiry_month` (not 1-12, or earlier this year) or
    ///   `invalid_expiry_year` (past, or more than 50 years ahead).
    public static func checkExpiry(month: Int, year: Int, today: YearMonth) throws(CardCheckError) -> YearMonth {
        guard (1...12).contains(month) else {
            throw CardCheckError(code: .invalidExpiryMonth, message: "Your card's expiration month is invalid.", parameter: "exp_month")
        }
        let fullYear: Int
        switch year {
        case 0...99: fullYear = 2000 + year
        case 1000...9999: fullYear = year
        default: throw CardCheckError(code: .invalidExpiryYear, message: "Your card's expiration year is invalid.", parameter: "exp_year")
        }
        guard fullYear >= today.year, fullYear <= today.year + 50 else {
            throw CardCheckError(code: .invalidExpiryYear, message: "Your card's expiration year is invalid.", parameter: "exp_year")
        }
        let expiry = YearMonth(year: fullYear, month: month)
        guard expiry >= today else {
            throw CardCheckError(code: .invalidExpiryMonth, message: "Your card's expiration month is invalid.", parameter: "exp_month")
        }
        return expiry
    }

    /// Whether `code` is a security code for `brand`: all digits, four for Amex, three otherwise.
    /// - Throws: ``CardCheckError`` `invalid_cvc`.
    public static func checkSecurityCode(_ code: String, brand: CardBrand) throws(CardCheckError) {
        guard code.utf8.count == brand.securityCodeLength, code.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw CardCheckError(code: .invalidCVC, message: "Your card's security code is invalid: a \(brand == .unknown ? "card" : brand.rawValue) card's has \(brand.securityCodeLength) digits.", parameter: "cvc")
        }
    }
}

extension CardBrand {
    /// The brand as a person reads it.
    public var displayName: String {
        switch self {
        case .visa: "Visa"
        case .mastercard: "Mastercard"
        case .maestro: "Maestro"
        case .amex: "American Express"
        case .unknown: "card"
        }
    }
}
