import ArgumentParser
import Foundation
import Intents
import TenderJSON

/// `tender bench say`: how fast the utterance parser reads, on one core.
struct SayBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Parse payments asked for in words on one core, in each language: utterances per second and latency percentiles.",
        discussion: """
            For each language (English, Dutch, German, French, Spanish), parses a mix of its \
            utterances (sends, requests, balances, every amount form: digits in the locale's marks, \
            words, cents said apart, slang, ranges and approximations, handles, notes, vocabulary, \
            nonsense) one after another for --seconds, timing each. Target: at least 100,000 \
            utterances per second per core in every language.
            """)

    @Option(help: "Seconds to measure each language.")
    var seconds: Double = 2

    @Option(help: "Only this language (en, nl, de, fr, es).")
    var language: String?

    @Flag(help: "Print the figures as JSON.")
    var json = false

    static let utterances: [IntentLanguage: [(IntentLocale, String)]] = [
        .en: [
            (.enUS, "Send $50 to Jane for dinner"), (.enUS, "Pay Jane Doe $12.50 for lunch"), (.enUS, "Send money to Jane"),
            (.enUS, "I want to pay Bob twenty five dollars"), (.enUS, "Pay Jane 20 dollars and 43 cents"), (.enUS, "Send $10k to Jane"),
            (.enUS, "Request $20 from Jane for lunch"), (.enUS, "Ask Jane for $20 for lunch"), (.enUS, "What's my balance"),
            (.enUS, "Send $20 to Bob for tickets to the game"), (.enUS, "Can you give Zoë Núñez twenty-five hundred dollars for the tickets for Friday"),
            (.enUS, "Send $5 to Ben and Jerry for ice cream"), (.enUS, "Send 42 bucks to Jane using Tender"), (.enUS, "hello there"),
            (.enGB, "Pay Jane £12.50"), (.enGB, "Send 50p to Jane"), (.enUS, "Send $.50 to Jane"), (.enUS, "send half a million dollars to Jane"),
            (.enUS, "Send Jane about 20 bucks"), (.enUS, "Send Jane between 10 and 20 dollars"), (.enUS, "Pay Bob four quarters"),
            (.enUS, "Send $20 to 555-123-4567"), (.enUS, "Send 10 XLM to jane*example.com"), (.enUS, "Send 5 lakh rupees to Raj"), (.enUS, ""),
        ],
        .nl: [
            (.nlNL, "Stuur Jan 12,50 euro voor de lunch"), (.nlNL, "Betaal Piet tweeënveertig euro"), (.nlNL, "Geef Piet een tientje"),
            (.nlNL, "Vraag 20 euro aan Jan voor de taxi"), (.nlNL, "Vraag Jan om 20 euro"), (.nlNL, "Maak 50 euro over naar Jan voor de huur"),
            (.nlNL, "Stuur ongeveer 20 euro naar Jan"), (.nlNL, "Wat is mijn saldo"), (.nlNL, "Stuur een half miljoen euro naar Jan"),
            (.nlNL, "Stuur tussen 10 en 20 euro naar Jan"), (.nlNL, "Stuur Jan twaalf euro vijftig"), (.nlNL, "Stuur Jan 1.234,56 euro"),
            (.nlNL, "Kun je Jan 20 euro sturen?"), (.nlNL, "Stuur 5 euro naar +31 6 1234 5678"), (.nlNL, "Betaal Piet drieduizendvijfhonderd euro"),
            (.nlNL, "Stuur mijn moeder 50 euro"), (.nlNL, "Stuur Jan €20 voor het cadeau voor oma"), (.nlNL, "Stuur Jan 12.50 euro"),
            (.nlNL, "Hoeveel geld heb ik"), (.nlNL, "Stuur geld naar Jan"),
        ],
        .de: [
            (.deDE, "Überweise Lukas 20 Euro für das Abendessen"), (.deDE, "Überweise Lukas zweiundzwanzig Euro"), (.deDE, "Schick 12,50 € an Anna"),
            (.deDE, "Kannst du Lukas 20 Euro überweisen?"), (.deDE, "Fordere 20 Euro von Lukas für das Taxi an"), (.deDE, "Bitte Lukas um 20 Euro"),
            (.deDE, "Überweise Lukas etwa 20 Euro"), (.deDE, "Wie hoch ist mein Kontostand"), (.deDE, "Gib Max einen Zehner"),
            (.deDE, "Überweise Lukas dreihundertfünfundvierzig Euro"), (.deDE, "Überweise Lukas eine halbe Million Euro"),
            (.deDE, "Überweise Lukas zwischen 10 und 20 Euro"), (.deDE, "Überweise Lukas 12 Euro und 50 Cent"), (.deDE, "Überweise Lukas 1.234,56 €"),
            (.deDE, "Überweise meiner Mutter 50 Euro"), (.deDE, "Überweise 5 Euro an lukas@beispiel.de"), (.deDE, "Überweise Lukas 2 Mio. Euro"),
            (.deDE, "Zeig mir mein Guthaben"), (.deDE, "Überweise Lukas 20 € für Kaffee und Kuchen"), (.deDE, "Überweise Lukas Geld"),
        ],
        .fr: [
            (.frFR, "Envoie 20 euros à Marie pour le dîner"), (.frFR, "Envoie quatre-vingt-dix euros à Marie"), (.frFR, "Envoie soixante et onze euros à Marie"),
            (.frFR, "Paie Marie deux cent cinquante euros"), (.frFR, "Verse 1 234,56 € à Jean"), (.frFR, "Demande 20 euros à Marie pour le taxi"),
            (.frFR, "Quel est mon solde"), (.frFR, "Envoie environ 20 euros à Marie"), (.frFR, "Envoie une vingtaine d'euros à Marie"),
            (.frFR, "Envoie entre 10 et 20 euros à Marie"), (.frFR, "Envoie douze euros cinquante à Marie"), (.frFR, "Paie Marie un million d'euros"),
            (.frFR, "Fais un virement de 100 euros à Luc pour le loyer"), (.frFR, "Envoie 20 euros à ma mère"), (.frFR, "Envoie 5 euros à +33 6 12 34 56 78"),
            (.frFR, "Envoie deux euros et demi à Marie"), (.frFR, "Peux-tu envoyer 20 euros à Marie ?"), (.frFR, "Envoie vingt euros à Marie s'il te plaît"),
            (.frFR, "Combien d'argent ai-je"), (.frFR, "Envoie de l'argent à Marie"),
        ],
        .es: [
            (.esES, "Envía 20 euros a Juan para la cena"), (.esES, "Mándale 15 € a María"), (.esES, "Paga a Pedro treinta y cinco euros"),
            (.esES, "Transfiere cien euros a Lucía por el alquiler"), (.esES, "Pídele 20 euros a Juan"), (.esES, "Envía unos 20 euros a Juan"),
            (.esES, "¿Cuál es mi saldo?"), (.esES, "Envía veintiún euros a Juan por favor"), (.esES, "Envía doscientos cincuenta euros a Juan"),
            (.esES, "Envía un millón y medio de euros a Juan"), (.esES, "Envía 1.234,56 € a Juan"), (.esES, "Envía entre 10 y 20 euros a Juan"),
            (.esES, "Envía doce euros con cincuenta a Juan"), (.esES, "Envía 20 euros a mi madre"), (.esES, "Envía 5 euros a juan@ejemplo.es"),
            (.esES, "Dale a Juan veinte euros"), (.esES, "¿Puedes enviar 20 euros a Juan?"), (.esES, "Envía mil quinientos euros a Juan"),
            (.esES, "¿Cuánto dinero tengo?"), (.esES, "Envía dinero a Juan"),
        ],
    ]

    struct Figures {
        var language: IntentLanguage
        var count: Int
        var kinds: Int
        var rate: Double
        var p50: Double, p90: Double, p99: Double, max: Double
        var checksum: Int
    }

    /// One language measured for `seconds` on this thread.
    func measure(_ language: IntentLanguage) -> Figures {
        let vocabulary = ["Ben and Jerry", "Jane Doe"]
        let parsers = Dictionary(uniqueKeysWithValues: IntentLocale.allCases.map { ($0, UtteranceParser(locale: $0, vocabulary: vocabulary)) })
        let work = Self.utterances[language]!.map { (parsers[$0.0]!, $0.1) }
        var latencies: [UInt64] = []
        latencies.reserveCapacity(1 << 22)
        var checksum = 0
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: .milliseconds(Int64(seconds * 1000)))
        var index = 0
        while latencies.count < (1 << 22) {
            let (parser, text) = work[index]
            let before = clock.now
            let parsed = parser.parse(text)
            latencies.append((clock.now - before).nanoseconds)
            checksum &+= (parsed.payee?.utf8.count ?? 0) &+ Int(parsed.amount?.value.significand ?? 0 & 0xFF)
            index = index == work.count - 1 ? 0 : index + 1
            if index == 0, clock.now >= deadline { break }
        }
        let elapsed = (clock.now - start).seconds
        latencies.sort()
        func percentile(_ p: Double) -> Double { Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1000 }
        return Figures(language: language, count: latencies.count, kinds: work.count, rate: Double(latencies.count) / elapsed,
                       p50: percentile(0.5), p90: percentile(0.9), p99: percentile(0.99), max: Double(latencies.last ?? 0) / 1000, checksum: checksum)
    }

    func run() throws {
        guard seconds > 0, seconds <= 600 else { throw CommandFailure("--seconds must be between 0 and 600") }
        var languages = IntentLanguage.allCases
        if let language {
            guard let chosen = IntentLanguage(rawValue: language) else { throw CommandFailure("--language must be one of en, nl, de, fr, es") }
            languages = [chosen]
        }
        let figures = languages.map(measure)
        let met = figures.allSatisfy { $0.rate >= 100_000 }
        if json {
            print(JSONValue.object([
                ("languages", .array(figures.map { f in
                    .object([
                        ("language", .string(f.language.rawValue)), ("utterances", .number(Int64(f.count))), ("kinds", .number(Int64(f.kinds))),
                        ("per_second_per_core", .number(Int64(f.rate))),
                        ("latency_us_p50", .string(String(format: "%.2f", f.p50))), ("latency_us_p99", .string(String(format: "%.2f", f.p99))),
                        ("latency_us_max", .string(String(format: "%.2f", f.max))), ("target_met", .bool(f.rate >= 100_000)),
                        ("checksum", .number(Int64(f.checksum))),
                    ])
                })),
                ("target_met", .bool(met)),
            ]).rendered())
        } else {
            print("language  utterances  kinds   per second (1 core)   p50 µs   p90 µs   p99 µs    max µs")
            for f in figures {
                print(String(format: "%-8@  %10d  %5d   %19.0f   %6.2f   %6.2f   %6.2f  %8.2f", f.language.rawValue as NSString, f.count, f.kinds, f.rate, f.p50, f.p90, f.p99, f.max))
            }
            print("target: 100,000 per second per core in every language \(met ? "met" : "NOT met")")
        }
    }
}
