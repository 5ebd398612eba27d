import Foundation

/// The languages of the card form's text: English, Dutch, German.
public enum CardTextLocale: String, Sendable, CaseIterable {
    case en, nl, de

    /// The first of an `Accept-Language` header's languages that is one of these (by quality,
    /// then order), else English.
    public static func preferred(acceptLanguage header: String?) -> CardTextLocale {
        guard let header else { return .en }
        var choices: [(quality: Double, index: Int, locale: CardTextLocale)] = []
        for (index, part) in header.split(separator: ",").prefix(20).enumerated() {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = fields.first?.lowercased(), let locale = CardTextLocale(rawValue: String(tag.prefix(2))) else { continue }
            var quality = 1.0
            if let q = fields.dropFirst().first(where: { $0.hasPrefix("q=") }) { quality = Double(q.dropFirst(2)) ?? 0 }
            if quality > 0 { choices.append((quality, index, locale)) }
        }
        return choices.sorted { ($0.quality, -$0.index) > ($1.quality, -$1.index) }.first?.locale ?? .en
    }
}

/// What the card form says about a field, in each language: written once, used by the
/// PaymentEngine's `CardInput` and by the hosted payment page (whose script receives these
/// texts, with `{brand}` and `{n}` to fill in).
public enum CardMessage: String, Sendable, CaseIterable {
    case enterNumber, numberDigitsOnly, numberTooLong, numberIncomplete, numberIncorrect
    case expiryFormat, enterExpiry, monthRange, enterExpiryYear, expiryFormatLong, expired, expiryTooFar
    case enterSecurityCode, securityCodeDigitsOnly, securityCodeLength

    /// The text with its placeholders: `{brand}` (the brand's name, or "card") and `{n}`.
    public func template(_ locale: CardTextLocale) -> String {
        switch (self, locale) {
        case (.enterNumber, .en): "Enter the card number."
        case (.enterNumber, .nl): "Vul het kaartnummer in."
        case (.enterNumber, .de): "Geben Sie die Kartennummer ein."
        case (.numberDigitsOnly, .en): "A card number has only digits."
        case (.numberDigitsOnly, .nl): "Een kaartnummer bestaat alleen uit cijfers."
        case (.numberDigitsOnly, .de): "Eine Kartennummer hat nur Ziffern."
        case (.numberTooLong, .en): "A {brand} number has at most {n} digits."
        case (.numberTooLong, .nl): "Een {brand}-nummer heeft hoogstens {n} cijfers."
        case (.numberTooLong, .de): "Eine {brand}-Nummer hat höchstens {n} Ziffern."
        case (.numberIncomplete, .en): "The card number is not complete."
        case (.numberIncomplete, .nl): "Het kaartnummer is niet compleet."
        case (.numberIncomplete, .de): "Die Kartennummer ist nicht vollständig."
        case (.numberIncorrect, .en): "The card number is incorrect."
        case (.numberIncorrect, .nl): "Het kaartnummer klopt niet."
        case (.numberIncorrect, .de): "Die Kartennummer ist falsch."
        case (.expiryFormat, .en): "Write the expiry as MM/YY."
        case (.expiryFormat, .nl): "Schrijf de vervaldatum als MM/JJ."
        case (.expiryFormat, .de): "Schreiben Sie das Ablaufdatum als MM/JJ."
        case (.enterExpiry, .en): "Enter the expiry date."
        case (.enterExpiry, .nl): "Vul de vervaldatum in."
        case (.enterExpiry, .de): "Geben Sie das Ablaufdatum ein."
        case (.monthRange, .en): "The month must be 1 to 12."
        case (.monthRange, .nl): "De maand moet 1 tot 12 zijn."
        case (.monthRange, .de): "Der Monat muss 1 bis 12 sein."
        case (.enterExpiryYear, .en): "Enter the expiry year."
        case (.enterExpiryYear, .nl): "Vul het jaar van de vervaldatum in."
        case (.enterExpiryYear, .de): "Geben Sie das Ablaufjahr ein."
        case (.expiryFormatLong, .en): "Write the expiry as MM/YY or MM/YYYY."
        case (.expiryFormatLong, .nl): "Schrijf de vervaldatum als MM/JJ of MM/JJJJ."
        case (.expiryFormatLong, .de): "Schreiben Sie das Ablaufdatum als MM/JJ oder MM/JJJJ."
        case (.expired, .en): "The card has expired."
        case (.expired, .nl): "De kaart is verlopen."
        case (.expired, .de): "Die Karte ist abgelaufen."
        case (.expiryTooFar, .en): "The expiry year is too far ahead."
        case (.expiryTooFar, .nl): "Het jaar van de vervaldatum ligt te ver vooruit."
        case (.expiryTooFar, .de): "Das Ablaufjahr liegt zu weit in der Zukunft."
        case (.enterSecurityCode, .en): "Enter the security code."
        case (.enterSecurityCode, .nl): "Vul de beveiligingscode in."
        case (.enterSecurityCode, .de): "Geben Sie den Sicherheitscode ein."
        case (.securityCodeDigitsOnly, .en): "The security code has only digits."
        case (.securityCodeDigitsOnly, .nl): "De beveiligingscode bestaat alleen uit cijfers."
        case (.securityCodeDigitsOnly, .de): "Der Sicherheitscode hat nur Ziffern."
        case (.securityCodeLength, .en): "The security code has {n} digits."
        case (.securityCodeLength, .nl): "De beveiligingscode heeft {n} cijfers."
        case (.securityCodeLength, .de): "Der Sicherheitscode hat {n} Ziffern."
        }
    }

    /// The text with its placeholders filled in.
    public func text(_ locale: CardTextLocale = .en, brand: String = "card", n: Int = 0) -> String {
        template(locale).replacingOccurrences(of: "{brand}", with: brand).replacingOccurrences(of: "{n}", with: String(n))
    }
}
