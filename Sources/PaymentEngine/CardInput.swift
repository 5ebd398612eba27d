import Gateway

/// Where a field stands as the user types: good to pay with, not finished yet, or wrong.
public enum FieldState: Equatable, Sendable {
    case valid
    case incomplete(String)
    case invalid(String)

    public var isValid: Bool { self == .valid }
}

/// A card form's three fields as typed, checked with the same rules the server applies
/// (`Gateway.CardRules`): the number sanitised (spaces and dashes dropped), its brand recognised as
/// it is typed and grouped for display (4-4-4-4, Amex 4-6-5); the expiry as MM/YY or MM/YYYY,
/// valid through the end of its month; the security code's length by brand.
public struct CardInput: Sendable, Equatable {
    public var number: String
    public var expiry: String
    public var securityCode: String

    public init(number: String = "", expiry: String = "", securityCode: String = "") {
        self.number = number
        self.expiry = expiry
        self.securityCode = securityCode
    }

    /// The number's digits, or nil when it holds anything but digits, spaces and dashes.
    public var digits: String? { CardRules.sanitise(number) }

    /// The brand of what is typed so far.
    public var brand: CardBrand { CardBrand(digits: digits ?? "") }

    /// The number grouped for display as far as it goes ("4242 4242 42").
    public var displayNumber: String { digits.map(CardRules.grouped) ?? number }

    /// The longest number `brand` can have.
    static func maxLength(_ brand: CardBrand) -> Int { (12...19).last { brand.allowsLength($0) } ?? 19 }

    public var numberState: FieldState {
        guard !number.allSatisfy({ $0 == " " || $0 == "-" }) else { return .incomplete(CardMessage.enterNumber.text()) }
        guard let digits else { return .invalid(CardMessage.numberDigitsOnly.text()) }
        let brand = CardBrand(digits: digits)
        let name = brand == .unknown ? "card" : brand.displayName
        if digits.count > Self.maxLength(brand) { return .invalid(CardMessage.numberTooLong.text(brand: name, n: Self.maxLength(brand))) }
        guard brand.allowsLength(digits.count) else { return .incomplete(CardMessage.numberIncomplete.text()) }
        // A number the Luhn check refuses may still grow into a longer one of the brand (Visa 16 → 19).
        guard CardRules.passesLuhn(digits) else {
            return digits.count < Self.maxLength(brand) && brand != .visa ? .incomplete(CardMessage.numberIncomplete.text()) : .invalid(CardMessage.numberIncorrect.text())
        }
        return .valid
    }

    /// The expiry's month and year as typed: "MM/YY", "MM/YYYY", "MMYY", "M/YY" (spaces, "/" or
    /// "-" between); nil parts when not typed yet.
    var expiryParts: (month: String, year: String, separated: Bool)? {
        var month = "", year = ""
        var separated = false
        for character in expiry {
            switch character {
            case "0"..."9":
                if !separated && month.count == 2 { separated = true }
                if separated { year.append(character) } else { month.append(character) }
            case "/", "-", " ":
                if !month.isEmpty { separated = true }
            default:
                return nil
            }
        }
        return (month, year, separated)
    }

    /// The expiry against `today` (injected: the month the app's clock says it is).
    public func expiryState(today: YearMonth) -> FieldState {
        guard let parts = expiryParts else { return .invalid(CardMessage.expiryFormat.text()) }
        if parts.month.isEmpty { return .incomplete(CardMessage.enterExpiry.text()) }
        guard let month = Int(parts.month), parts.month.count <= 2 else { return .invalid(CardMessage.expiryFormat.text()) }
        if parts.month.count == 2 || parts.separated || month > 1 {
            guard (1...12).contains(month) else { return .invalid(CardMessage.monthRange.text()) }
        }
        if parts.year.count < 2 || parts.year.count == 3 { return .incomplete(CardMessage.enterExpiryYear.text()) }
        guard parts.year.count <= 4, let year = Int(parts.year) else { return .invalid(CardMessage.expiryFormatLong.text()) }
        do {
            _ = try CardRules.checkExpiry(month: month, year: year, today: today)
            return .valid
        } catch {
            let fullYear = parts.year.count == 2 ? 2000 + year : year
            return .invalid(YearMonth(year: fullYear, month: month) < today ? CardMessage.expired.text() : CardMessage.expiryTooFar.text())
        }
    }

    public var securityCodeState: FieldState {
        if securityCode.isEmpty { return .incomplete(CardMessage.enterSecurityCode.text()) }
        guard securityCode.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return .invalid(CardMessage.securityCodeDigitsOnly.text()) }
        let length = brand.securityCodeLength
        if securityCode.utf8.count < length { return .incomplete(CardMessage.securityCodeLength.text(n: length)) }
        if securityCode.utf8.count > length { return .invalid(CardMessage.securityCodeLength.text(n: length)) }
        return .valid
    }

    /// True only when all three fields are valid.
    public func canPay(today: YearMonth) -> Bool {
        numberState.isValid && expiryState(today: today).isValid && securityCodeState.isValid
    }
}
