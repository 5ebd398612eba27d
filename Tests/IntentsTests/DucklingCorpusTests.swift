import Intents
import Testing

/// The single-amount cases of facebook/duckling's English amount-of-money corpus
/// (Duckling/AmountOfMoney/EN/Corpus.hs), turned into cases of our own: each must parse to the
/// same amount and currency. Duckling's "Dollar", "Cent" and "Unnamed" ("bucks") are a dollar the
/// words leave open (`.ambiguous(.dollar)`; en_US resolves it to USD); its "Pound" is GBP here;
/// "Dinar", "Riyal" and "Rial" stay open. Its ranges and bounds ("between 10 and 20 dollars",
/// "under seven euros") are not single amounts and are left out.
@Suite("Duckling's amount-of-money corpus")
struct DucklingCorpusTests {
    static let dollar = MoneyUnit.ambiguous(.dollar)

    static let cases: [(String, String, MoneyUnit)] = [
        ("$1", "1", dollar), ("one dollar", "1", dollar), ("a dollar", "1", dollar),
        ("$10", "10", dollar), ("$ 10", "10", dollar), ("10$", "10", dollar), ("10 dollars", "10", dollar), ("ten dollars", "10", dollar),
        ("10 cent", "0.1", dollar), ("ten pennies", "0.1", dollar), ("ten cents", "0.1", dollar), ("10 c", "0.1", dollar), ("10¢", "0.1", dollar),
        ("$10K", "10000", dollar), ("10k$", "10000", dollar), ("$10,000", "10000", dollar),
        ("USD3.14", "3.14", .currency("USD")), ("3.14US$", "3.14", .currency("USD")), ("US$ 3.14", "3.14", .currency("USD")),
        ("20\u{20ac}", "20", .currency("EUR")), ("20 euros", "20", .currency("EUR")), ("20 Euro", "20", .currency("EUR")),
        ("20 Euros", "20", .currency("EUR")), ("EUR 20", "20", .currency("EUR")), ("EUR 20.0", "20", .currency("EUR")),
        ("20€", "20", .currency("EUR")), ("20 €ur", "20", .currency("EUR")),
        ("\u{00a3}10", "10", .currency("GBP")), ("ten pounds", "10", .currency("GBP")),
        ("Rs. 20", "20", .currency("INR")), ("Rs 20", "20", .currency("INR")), ("20 Rupees", "20", .currency("INR")),
        ("20Rs", "20", .currency("INR")), ("Rs20", "20", .currency("INR")),
        ("20 Rupees 43", "20.43", .currency("INR")), ("twenty rupees 43", "20.43", .currency("INR")),
        ("$20 and 43c", "20.43", dollar), ("$20 43", "20.43", dollar), ("20 dollar 43c", "20.43", dollar),
        ("20 dollars 43 cents", "20.43", dollar), ("twenty dollar 43 cents", "20.43", dollar), ("20 dollar 43", "20.43", dollar),
        ("twenty dollar and 43", "20.43", dollar),
        ("GBP3.01", "3.01", .currency("GBP")), ("GBP 3.01", "3.01", .currency("GBP")), ("3 GBP 1 pence", "3.01", .currency("GBP")),
        ("42 bucks", "42", dollar), ("around 42 bucks", "42", dollar), ("exactly 42 bucks", "42", dollar),
        ("42 KWD", "42", .currency("KWD")), ("42 kuwaiti Dinar", "42", .currency("KWD")),
        ("42 LBP", "42", .currency("LBP")), ("42 Lebanese Pounds", "42", .currency("LBP")),
        ("42 EGP", "42", .currency("EGP")), ("42 egyptianpound", "42", .currency("EGP")),
        ("42 QAR", "42", .currency("QAR")), ("42 qatari riyals", "42", .currency("QAR")),
        ("42 SAR", "42", .currency("SAR")), ("42 Saudiriyal", "42", .currency("SAR")),
        ("42 BGN", "42", .currency("BGN")),
        ("42 MYR", "42", .currency("MYR")), ("42 RM", "42", .currency("MYR")), ("RM 42", "42", .currency("MYR")),
        ("MYR 42", "42", .currency("MYR")), ("42MYR", "42", .currency("MYR")), ("42RM", "42", .currency("MYR")),
        ("RM42", "42", .currency("MYR")), ("MYR42", "42", .currency("MYR")), ("ringgit 42", "42", .currency("MYR")),
        ("42 ringgit", "42", .currency("MYR")), ("42 malaysia ringgit", "42", .currency("MYR")),
        ("malaysia ringgit 42", "42", .currency("MYR")), ("42 malaysian ringgit", "42", .currency("MYR")),
        ("malaysian ringgit 42", "42", .currency("MYR")), ("42 malaysia ringgits", "42", .currency("MYR")),
        ("malaysia ringgits 42", "42", .currency("MYR")), ("42 malaysian ringgits", "42", .currency("MYR")),
        ("malaysian ringgits 42", "42", .currency("MYR")),
        ("20 ringgit and 43c", "20.43", .currency("MYR")), ("20 ringgit and 43 sen", "20.43", .currency("MYR")),
        ("twenty ringgit 43 sens", "20.43", .currency("MYR")), ("20 ringgit 43", "20.43", .currency("MYR")),
        ("twenty ringgit and 43", "20.43", .currency("MYR")),
        ("10 dinars", "10", .ambiguous(.dinar)),
        ("ten shekels", "10", .currency("ILS")), ("10 ILS", "10", .currency("ILS")),
        ("ten riyals", "10", .ambiguous(.riyal)), ("10 riyals", "10", .ambiguous(.riyal)),
        ("ten rials", "10", .ambiguous(.rial)), ("10 rials", "10", .ambiguous(.rial)),
        // The latent corpus: numbers with no currency.
        ("five", "5", .unspecified), ("5", "5", .unspecified), ("about 5", "5", .unspecified),
        ("7.2", "7.2", .unspecified), ("7.20000", "7.2", .unspecified),
    ]

    @Test func everySingleAmountParsesToTheSameAmountAndCurrency() {
        let parser = UtteranceParser(locale: .enUS)
        var failures: [String] = []
        for (text, amount, unit) in Self.cases {
            let parsed = parser.parse(text).amount
            if parsed.map({ "\($0.value)" }) != amount || parsed?.unit != unit {
                failures.append("\"\(text)\": expected \(amount) \(unit), got \(parsed.map { "\($0.value) \($0.unit)" } ?? "nothing")")
            }
        }
        print("duckling corpus: \(Self.cases.count - failures.count) of \(Self.cases.count) single amounts parsed alike")
        #expect(failures.isEmpty, Comment(rawValue: failures.joined(separator: "\n")))
    }

    /// Its negative corpus: no amount in these words.
    @Test func wordsWithoutANumberAreNoAmount() {
        #expect(UtteranceParser().parse("exactly dollars").amount == nil)
    }
}
