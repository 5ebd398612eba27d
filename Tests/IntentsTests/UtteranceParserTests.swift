import Intents
import Testing

@Suite("Utterance parser")
struct UtteranceParserTests {
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
