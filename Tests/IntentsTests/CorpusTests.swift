import Foundation
import Intents
import Testing

/// How people ask for payments, one file per language (Corpora/en.txt ...): each line an
/// utterance and what it means, `intent|payee|amount|currency|note`. The amount is exact
/// ("12.5"), approximate ("~20"), a limit ("<=50", ">=5"), a range ("10..20"), or a problem
/// the parser must report instead of an amount ("!unreadable_number"). A line may start with
/// a locale of its own ("en_GB: ...").
@Suite("Corpora of payments asked for in words")
struct CorpusTests {
    static let minimum: [IntentLanguage: Int] = [.en: 150, .nl: 80, .de: 80, .fr: 80, .es: 80]
    static let locales: [IntentLanguage: IntentLocale] = [.en: .enUS, .nl: .nlNL, .de: .deDE, .fr: .frFR, .es: .esES]

    static func amount(_ parsed: ParsedUtterance) -> String {
        guard let amount = parsed.amount else { return "-" }
        return switch amount.exactness {
        case .exact: "\(amount.value)"
        case .approximate: "~\(amount.value)"
        case .atMost: "<=\(amount.value)"
        case .atLeast: ">=\(amount.value)"
        case .range(let high): "\(amount.value)..\(high)"
        }
    }

    static func lines(_ language: IntentLanguage) throws -> [(locale: IntentLocale, text: String, expected: [String])] {
        let url = try #require(Bundle.module.url(forResource: "Corpora/\(language.rawValue)", withExtension: "txt"))
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").compactMap { line in
            let parts = line.components(separatedBy: " => ")
            guard parts.count == 2 else { return nil }
            var text = parts[0]
            var locale = locales[language]!
            if let colon = text.firstIndex(of: ":"), let own = IntentLocale(rawValue: String(text[..<colon])) {
                locale = own
                text = String(text[text.index(colon, offsetBy: 2)...])
            }
            return (locale, text, parts[1].components(separatedBy: "|"))
        }
    }

    @Test(arguments: IntentLanguage.allCases)
    func everyUtteranceMeansWhatWasSaid(_ language: IntentLanguage) throws {
        let corpus = try Self.lines(language)
        #expect(corpus.count >= Self.minimum[language]!, "\(language): \(corpus.count) utterances")
        var failures: [String] = []
        for (locale, text, expected) in corpus {
            let parsed = UtteranceParser(locale: locale).parse(text)
            if expected[2].hasPrefix("!") {
                // Not readable exactly: reported, and never an amount to pay as it stands.
                let code = String(expected[2].dropFirst())
                if !parsed.problems.contains(where: { $0.code == code }) || [parsed.intent.rawValue, parsed.payee ?? "-"] != Array(expected[0..<2]) {
                    failures.append("[\(locale.rawValue)] \"\(text)\": expected \(expected.joined(separator: "|")), got \(parsed.intent.rawValue)|\(parsed.payee ?? "-") problems \(parsed.problems.map(\.code))")
                }
                continue
            }
            let got = [parsed.intent.rawValue, parsed.payee ?? "-", Self.amount(parsed), parsed.currency ?? "-", parsed.note ?? "-"]
            if got != expected {
                failures.append("[\(locale.rawValue)] \"\(text)\": expected \(expected.joined(separator: "|")), got \(got.joined(separator: "|")) \(parsed.problems.map(\.code))")
            }
            // An amount that is not exact is always said to be so.
            if let amount = parsed.amount, amount.exactness != .exact, parsed.problems.isEmpty {
                failures.append("[\(locale.rawValue)] \"\(text)\": an inexact amount without a problem")
            }
        }
        print("\(language.rawValue) corpus: \(corpus.count - failures.count) of \(corpus.count) as meant")
        #expect(failures.isEmpty, Comment(rawValue: "\(failures.count) failures:\n" + failures.joined(separator: "\n")))
    }
}
