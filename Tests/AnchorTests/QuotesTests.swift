import Anchor
import Testing

@Suite("SEP-38 prices")
struct QuotesTests {
    let issuer = "GCFOV6KIQ6RZSSD3OP2JVSNNESDVAARDJKUZSZ344GVMEW52CMHESEBY"
    var eur: Quotes.AssetName { Quotes.AssetName("stellar:EUR:\(issuer)")! }
    var usdc: Quotes.AssetName { Quotes.AssetName("stellar:USDC:\(issuer)")! }
    let fiatEUR = Quotes.AssetName("iso4217:EUR")!
    let fiatUSD = Quotes.AssetName("iso4217:USD")!
    let anchored = ["EUR": "EUR", "USDC": "USD"]
    /// The euro is worth 100 euro cents per 100; the dollar 92.59... (1 EUR = 1.08 USD).
    let rates = ["EUR": Quotes.Rate(100, 100), "USD": Quotes.Rate(100, 108)]

    func price(_ sell: Quotes.AssetName, _ buy: Quotes.AssetName, sell amount: Int64? = nil, buy bought: Int64? = nil) throws -> Quotes.Price {
        try Quotes.price(sell: sell, buy: buy, sellAmount: amount, buyAmount: bought, anchored: anchored, rates: rates, percentBasisPoints: 150, depositFixed: 25, withdrawFixed: 25)
    }

    @Test func namesAreRead() {
        #expect(Quotes.AssetName("iso4217:EUR")?.isFiat == true)
        #expect(Quotes.AssetName("iso4217:eur") == nil && Quotes.AssetName("stellar:EUR") == nil && Quotes.AssetName("EUR") == nil)
        #expect(eur.description == "stellar:EUR:\(issuer)")
    }

    @Test func sameCurrencyAtPar() throws {
        let deposit = try price(fiatEUR, eur, sell: 1_000)
        // 10.00 EUR by card: 0.40 fee, 9.60 EUR bought.
        #expect(deposit.sellAmount == 1_000 && deposit.fee.total == 40 && deposit.buyAmount == 960 && deposit.price == "1" && deposit.totalPrice == "1.0416667")
        let exact = try price(fiatEUR, eur, buy: 960)
        #expect(exact.sellAmount == 1_000 && exact.buyAmount == 960 && exact.fee.total == 40)
        let withdrawal = try price(eur, fiatEUR, sell: 500)
        #expect(withdrawal.fee.total == 25 && withdrawal.buyAmount == 475)
    }

    @Test func acrossCurrencies() throws {
        // 10.00 USD by card (0.40 fee): 9.60 USD buys 8.88 EUR (rounded down).
        let usdForEUR = try price(fiatUSD, eur, sell: 1_000)
        #expect(usdForEUR.buyAmount == 888 && usdForEUR.price == "1.08" && usdForEUR.fee.asset == fiatUSD)
        // 10.00 EUR bought with dollars costs 10.80 + the fee on the whole, rounded up.
        let bought = try price(fiatUSD, eur, buy: 1_000)
        #expect(bought.buyAmount == 1_000 && bought.sellAmount - bought.fee.total >= 1_080)
        #expect(bought.sellAmount - 1 - Quotes.fee(selling: bought.sellAmount - 1, fiatUSD, percentBasisPoints: 150, depositFixed: 25, withdrawFixed: 25) < 1_080, "the least that covers it")
        let eurForUSD = try price(eur, fiatUSD, sell: 1_000)
        #expect(eurForUSD.buyAmount == 1_053 && eurForUSD.price == "0.9259259")
    }

    @Test func refusals() {
        #expect(throws: Quotes.Refusal.self) { try price(fiatEUR, fiatUSD, sell: 100) }
        #expect(throws: Quotes.Refusal.self) { try price(eur, usdc, sell: 100) }
        #expect(throws: Quotes.Refusal.self) { try price(fiatEUR, eur, sell: 100, buy: 100) }
        #expect(throws: Quotes.Refusal.self) { try price(fiatEUR, eur) }
        #expect(throws: Quotes.Refusal.self) { try price(fiatEUR, eur, sell: 25) }
        #expect(throws: Quotes.Refusal.self) { try price(fiatEUR, eur, sell: 0) }
        #expect(throws: Quotes.Refusal.self) { try price(Quotes.AssetName("iso4217:GBP")!, eur, sell: 1_000) }
    }

    @Test func expiry() throws {
        #expect(try Quotes.expiry(now: 1_000, expireAfter: nil) == 1_300)
        #expect(try Quotes.expiry(now: 1_000, expireAfter: 5_000) == 5_000)
        #expect(try Quotes.expiry(now: 1_000, expireAfter: 1_010) == 1_300)
        #expect(throws: Quotes.Refusal.self) { try Quotes.expiry(now: 1_000, expireAfter: 999) }
        #expect(throws: Quotes.Refusal.self) { try Quotes.expiry(now: 1_000, expireAfter: 1_000 + 86_401) }
    }
}
