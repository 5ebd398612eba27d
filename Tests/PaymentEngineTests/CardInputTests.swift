import Gateway
import PaymentEngine
import Testing

@Suite("Card input")
struct CardInputTests {
    let today = YearMonth(year: 2026, month: 11)

    @Test func numbersAsTheyAreTyped() {
        let cases: [(String, CardBrand, String, FieldState)] = [
            ("", .unknown, "", .incomplete("Enter the card number.")),
            ("4", .visa, "4", .incomplete("The card number is not complete.")),
            ("4242 4242 4242 4242", .visa, "4242 4242 4242 4242", .valid),
            ("4242-4242-4242-4242", .visa, "4242 4242 4242 4242", .valid),
            ("4242424242424241", .visa, "4242 4242 4242 4241", .invalid("The card number is incorrect.")),
            ("42424242424242424242", .visa, "4242 4242 4242 4242 424 2", .invalid("A Visa number has at most 19 digits.")),
            ("5555 5555 5555 4444", .mastercard, "5555 5555 5555 4444", .valid),
            ("2223003122003222", .mastercard, "2223 0031 2200 3222", .valid),
            ("5555555555554445", .mastercard, "5555 5555 5555 4445", .invalid("The card number is incorrect.")),
            ("3782 822463 10005", .amex, "3782 822463 10005", .valid),
            ("378282246310005", .amex, "3782 822463 10005", .valid),
            ("37828224631000", .amex, "3782 822463 1000", .incomplete("The card number is not complete.")),
            ("6759649826438453", .maestro, "6759 6498 2643 8453", .valid),
            ("4242 abcd", .unknown, "4242 abcd", .invalid("A card number has only digits.")),
            ("٤٢٤٢", .unknown, "٤٢٤٢", .invalid("A card number has only digits.")),
        ]
        for (typed, brand, display, state) in cases {
            let input = CardInput(number: typed)
            #expect(input.brand == brand, "\(typed)")
            #expect(input.displayNumber == display, "\(typed)")
            #expect(input.numberState == state, "\(typed)")
        }
        #expect(CardInput(number: String(repeating: "4", count: 100)).numberState == .invalid("A card number has only digits."), "longer than the rules read")
    }

    @Test func expiryThroughTheEndOfItsMonth() {
        let cases: [(String, FieldState)] = [
            ("", .incomplete("Enter the expiry date.")), ("1", .incomplete("Enter the expiry year.")),
            ("11", .incomplete("Enter the expiry year.")), ("11/", .incomplete("Enter the expiry year.")),
            ("11/2", .incomplete("Enter the expiry year.")), ("11/26", .valid), ("11 / 2026", .valid), ("1126", .valid),
            ("10/26", .invalid("The card has expired.")), ("12/25", .invalid("The card has expired.")),
            ("13/27", .invalid("The month must be 1 to 12.")), ("00/27", .invalid("The month must be 1 to 12.")),
            ("1/27", .valid), ("01/2027", .valid), ("11/202", .incomplete("Enter the expiry year.")),
            ("11/2077", .invalid("The expiry year is too far ahead.")), ("11/76", .valid), ("11/77", .invalid("The expiry year is too far ahead.")),
            ("ab/cd", .invalid("Write the expiry as MM/YY.")), ("11/20266", .invalid("Write the expiry as MM/YY or MM/YYYY.")),
        ]
        for (typed, state) in cases {
            #expect(CardInput(expiry: typed).expiryState(today: today) == state, "\(typed)")
        }
        // The month it expires in is still good; the clock is the app's to inject.
        #expect(CardInput(expiry: "11/26").expiryState(today: YearMonth(year: 2026, month: 12)) == .invalid("The card has expired."))
    }

    @Test func securityCodesByBrand() {
        #expect(CardInput(number: "4242424242424242", securityCode: "").securityCodeState == .incomplete("Enter the security code."))
        #expect(CardInput(number: "4242424242424242", securityCode: "12").securityCodeState == .incomplete("The security code has 3 digits."))
        #expect(CardInput(number: "4242424242424242", securityCode: "123").securityCodeState == .valid)
        #expect(CardInput(number: "4242424242424242", securityCode: "1234").securityCodeState == .invalid("The security code has 3 digits."))
        #expect(CardInput(number: "378282246310005", securityCode: "123").securityCodeState == .incomplete("The security code has 4 digits."))
        #expect(CardInput(number: "378282246310005", securityCode: "1234").securityCodeState == .valid)
        #expect(CardInput(number: "4242424242424242", securityCode: "12a").securityCodeState == .invalid("The security code has only digits."))
    }

    @Test func payOnlyWhenEveryFieldIsValid() {
        var input = CardInput(number: "4242 4242 4242 4242", expiry: "12/30", securityCode: "123")
        #expect(input.canPay(today: today))
        input.securityCode = "12"
        #expect(!input.canPay(today: today))
        input.securityCode = "123"
        input.expiry = "10/26"
        #expect(!input.canPay(today: today))
        input.expiry = "12/30"
        input.number = "4242 4242 4242 4241"
        #expect(!input.canPay(today: today))
    }

    /// The form accepts what the server accepts: every valid number of the form passes the
    /// gateway's own check, with the same brand.
    @Test func theFormAndTheServerAgree() throws {
        for number in ["4242424242424242", "4000056655665556", "5555555555554444", "2223003122003222", "378282246310005", "6759649826438453"] {
            let input = CardInput(number: number)
            #expect(input.numberState == .valid)
            #expect(try CardRules.checkNumber(number).brand == input.brand)
        }
    }
}

@Suite("Paylike amounts")
struct PaymentAmountTests {
    @Test func equalityAtACommonExponent() throws {
        let ten = try PaymentAmount(currency: "EUR", value: 1_000, exponent: 2)
        #expect(ten == (try PaymentAmount(currency: "EUR", value: 10, exponent: 0)))
        #expect(ten == (try PaymentAmount(currency: "EUR", value: 10_000_000_000_000_000, exponent: 15)))
        #expect(ten != (try PaymentAmount(currency: "USD", value: 10, exponent: 0)))
        #expect(ten != (try PaymentAmount(currency: "EUR", value: 1_001, exponent: 2)))
        #expect(Set([ten, try PaymentAmount(currency: "EUR", value: 100, exponent: 1)]).count == 1, "equal amounts hash alike")
        #expect(ten.compare(to: try PaymentAmount(currency: "EUR", value: 1_001, exponent: 2)) == -1)
        #expect(ten.compare(to: try PaymentAmount(currency: "EUR", value: 9, exponent: 0)) == 1)
        #expect(ten.compare(to: try PaymentAmount(currency: "DKK", value: 9, exponent: 0)) == nil)
        // Extremes compare without overflowing.
        let most = try PaymentAmount(currency: "EUR", value: .max, exponent: 0)
        let tiny = try PaymentAmount(currency: "EUR", value: .max, exponent: 18)
        #expect(most.compare(to: tiny) == 1 && tiny.compare(to: most) == -1)
        #expect((try PaymentAmount(currency: "EUR", value: .min, exponent: 0)).compare(to: most) == -1)
        #expect(ten.value(atExponent: 4) == 100_000 && ten.value(atExponent: 0) == 10)
        #expect((try PaymentAmount(currency: "EUR", value: 1_050, exponent: 2)).value(atExponent: 0) == nil, "10.50 has decimals")
        #expect(most.value(atExponent: 1) == nil, "overflow")
        let negative = try PaymentAmount(currency: "EUR", value: -5, exponent: 3)
        #expect(ten.description == "10 EUR" && negative.description == "-0.005 EUR")
    }

    @Test func badAmountsAreRefused() {
        #expect(throws: PaymentAmount.AmountError.invalidCurrency) { try PaymentAmount(currency: "eur", value: 1, exponent: 2) }
        #expect(throws: PaymentAmount.AmountError.invalidCurrency) { try PaymentAmount(currency: "EURO", value: 1, exponent: 2) }
        #expect(throws: PaymentAmount.AmountError.invalidExponent) { try PaymentAmount(currency: "EUR", value: 1, exponent: -1) }
        #expect(throws: PaymentAmount.AmountError.invalidExponent) { try PaymentAmount(currency: "EUR", value: 1, exponent: 19) }
    }
}
