import Intents
import Testing

@Suite("Utterance parser")
struct UtteranceParserTests {
    /// The library says each utterance's language with a tag.
    @Test func aLanguageTagPerUtterance() {
        let parser = UtteranceParser()
        #expect(Self.describe(parser.parse("Stuur Jan 5 euro voor de taxi", languageTag: "nl")) == "send|Jan|5|EUR|de taxi")
        #expect(Self.describe(parser.parse("Überweise Lukas 5 Euro", languageTag: "de-DE")) == "send|Lukas|5|EUR|-")
        #expect(Self.describe(parser.parse("Envoie 5 euros à Marie", languageTag: "fr_FR")) == "send|Marie|5|EUR|-")
        #expect(Self.describe(parser.parse("Envía 5 euros a Juan", languageTag: "es")) == "send|Juan|5|EUR|-")
        #expect(Self.describe(parser.parse("Pay Jane £5", languageTag: "en-GB")) == "send|Jane|5|GBP|-")
        #expect(parser.parse("Stuur Jan 5 euro", languageTag: "xx").problems.map(\.code) == ["language_unsupported"])
        #expect(IntentLocale(tag: "en-GB") == .enGB && IntentLocale(tag: "en") == .enUS && IntentLocale(tag: "DE") == .deDE && IntentLocale(tag: "pt") == nil)
    }

    static func describe(_ parse: ParsedUtterance) -> String {
        [
            parse.intent.rawValue, parse.payee ?? "-", parse.amount.map { "\($0.value)" } ?? "-", parse.currency ?? "-", parse.note ?? "-",
        ].joined(separator: "|")
    }

    @Test func theTableParsesAsExpected() {
        var failures: [String] = []
        let table = utteranceTable + generatedUtterances
        for (locale, text, expected) in table {
            let parser = UtteranceParser(locale: IntentLocale(rawValue: locale)!)
            let got = Self.describe(parser.parse(text))
            if got != expected { failures.append("[\(locale)] \"\(text)\": expected \(expected), got \(got)") }
        }
        print("utterance table: \(table.count - failures.count) of \(table.count) as expected")
        #expect(table.count >= 300)
        #expect(failures.isEmpty, Comment(rawValue: "\(failures.count) failures:\n" + failures.joined(separator: "\n")))
    }
}
