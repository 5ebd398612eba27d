import Intents

/// Utterances and their expected parse: "intent|payee|amount|currency|note", "-" for none.
/// Locale first; the amount is the exact decimal, the currency the ISO code (or "-" when the
/// words leave it open).
let utteranceTable: [(locale: String, text: String, expected: String)] = [
    // The sample's conversations.
    ("en_US", "Send $50 to Jane for dinner", "send|Jane|50|USD|dinner"),
    ("en_US", "Send money to Jane", "send|Jane|-|-|-"),
    ("en_US", "Send money", "send|-|-|-|-"),
    ("en_US", "Pay Jane", "send|Jane|-|-|-"),
    ("en_US", "Pay Dave $20", "send|Dave|20|USD|-"),
    ("en_US", "Send Jane $50", "send|Jane|50|USD|-"),
    ("en_US", "send jane 50 dollars", "send|jane|50|USD|-"),
    ("en_US", "Pay Jane Doe $12.50 for lunch", "send|Jane Doe|12.5|USD|lunch"),
    ("en_US", "Transfer 100 dollars to Bob", "send|Bob|100|USD|-"),
    ("en_US", "Give Bob 5 bucks", "send|Bob|5|USD|-"),
    ("en_US", "Wire $1,000 to Alice for rent", "send|Alice|1000|USD|rent"),
    ("en_US", "Send $50 to Jane using Tender", "send|Jane|50|USD|-"),
    ("en_US", "Send $50 to Jane with Tender", "send|Jane|50|USD|-"),
    ("en_US", "Using Tender, send $50 to Jane", "send|Jane|50|USD|-"),
    ("en_US", "Send $50 to Jane for dinner with friends", "send|Jane|50|USD|dinner with friends"),
    ("en_US", "Send $20 to Bob for tickets to the game", "send|Bob|20|USD|tickets to the game"),
    ("en_US", "Send $20 for the concert tickets to Bob", "send|Bob|20|USD|the concert tickets"),
    ("en_US", "Pay José 30 euros for the taxi", "send|José|30|EUR|the taxi"),
    ("en_US", "Pay Zoë €15", "send|Zoë|15|EUR|-"),
    ("en_US", "Send 20€ to Jean-Luc Picard", "send|Jean-Luc Picard|20|EUR|-"),
    ("en_US", "Send Mary Anne Smith $5", "send|Mary Anne Smith|5|USD|-"),
    ("en_US", "Send $5 to my mom", "send|mom|5|USD|-"),
    ("en_US", "Pay back Jane $10", "send|Jane|10|USD|-"),
    ("en_US", "Can you send $50 to Jane please", "send|Jane|50|USD|-"),
    ("en_US", "I want to pay Bob twenty five dollars", "send|Bob|25|USD|-"),
    ("en_US", "Send twenty five euros to Jane", "send|Jane|25|EUR|-"),
    ("en_US", "Send a hundred dollars to Jane", "send|Jane|100|USD|-"),
    ("en_US", "Send one hundred and five dollars to Jane", "send|Jane|105|USD|-"),
    ("en_US", "Pay Jane 20 dollars and 43 cents", "send|Jane|20.43|USD|-"),
    ("en_US", "Send 42 bucks to Jane", "send|Jane|42|USD|-"),
    ("en_US", "Send $10k to Jane", "send|Jane|10000|USD|-"),
    ("en_US", "Send 10k$ to Jane", "send|Jane|10000|USD|-"),
    ("en_US", "Pay Jane 50 EUR", "send|Jane|50|EUR|-"),
    ("en_US", "Pay Jane EUR 50", "send|Jane|50|EUR|-"),
    ("en_US", "Pay Jane £10", "send|Jane|10|GBP|-"),
    ("en_US", "Pay Jane 10 pounds", "send|Jane|10|GBP|-"),
    ("en_US", "Pay Jane 50$", "send|Jane|50|USD|-"),
    ("en_US", "Send US$ 3.14 to Jane", "send|Jane|3.14|USD|-"),
    ("en_US", "Send CA$20 to Jane", "send|Jane|20|CAD|-"),
    ("en_US", "Send 50 cents to Jane", "send|Jane|0.5|USD|-"),
    ("en_US", "Send $0.50 to Jane", "send|Jane|0.5|USD|-"),
    ("en_US", "Send $12.345 to Jane", "send|Jane|12.345|USD|-"),
    ("en_US", "Send 50 to Jane", "send|Jane|50|-|-"),
    ("en_US", "Send Jane 50", "send|Jane|50|-|-"),
    ("en_US", "Send -$5 to Jane", "send|Jane|-5|USD|-"),
    ("en_US", "Send $0 to Jane", "send|Jane|0|USD|-"),
    ("en_US", "Send minus 5 dollars to Jane", "send|Jane|-5|USD|-"),
    ("en_US", "Send 100 XLM to Jane", "send|Jane|100|XLM|-"),
    ("en_US", "Send 2.5 lumens to Jane", "send|Jane|2.5|XLM|-"),
    ("en_US", "Pay Bob 20 for 2 tickets", "send|Bob|20|-|2 tickets"),
    ("en_US", "Send $5 to Jane for dinner for two", "send|Jane|5|USD|dinner for two"),
    ("en_US", "Send $5 to Jane.", "send|Jane|5|USD|-"),
    ("en_US", "Send $5 to Jane for coffee!", "send|Jane|5|USD|coffee"),
    ("en_US", "Pay Jane for dinner", "send|Jane|-|-|dinner"),
    ("en_US", "Pay for dinner", "send|-|-|-|dinner"),
    ("en_US", "Send $50", "send|-|50|USD|-"),
    ("en_US", "Send a dollar to Jane", "send|Jane|1|USD|-"),
    ("en_US", "Tip Jane $3", "send|Jane|3|USD|-"),
    // Requests.
    ("en_US", "Request $20 from Jane for lunch", "request|Jane|20|USD|lunch"),
    ("en_US", "Ask Jane for $20", "request|Jane|20|USD|-"),
    ("en_US", "Ask Jane for $20 for lunch", "request|Jane|20|USD|lunch"),
    ("en_US", "Charge Bob 15 dollars for the pizza", "request|Bob|15|USD|the pizza"),
    ("en_US", "Request money from Jane", "request|Jane|-|-|-"),
    ("en_US", "Bill Alice €30", "request|Alice|30|EUR|-"),
    ("en_US", "Request twenty euros from Jean-Luc for the cinema", "request|Jean-Luc|20|EUR|the cinema"),
    // Balances.
    ("en_US", "What's my balance", "balance|-|-|-|-"),
    ("en_US", "What is my balance?", "balance|-|-|-|-"),
    ("en_US", "How much money do I have", "balance|-|-|-|-"),
    ("en_US", "Show my balances", "balance|-|-|-|-"),
    // Nonsense and emptiness.
    ("en_US", "", "unknown|-|-|-|-"),
    ("en_US", "   ", "unknown|-|-|-|-"),
    ("en_US", "hello there", "unknown|-|-|-|-"),
    ("en_US", "$$$ ,,, ???", "unknown|-|-|-|-"),
    ("en_US", "the weather in Paris", "unknown|-|-|-|-"),
    // Locales: decimal comma and point.
    ("nl_NL", "Stuur €12,50 naar Jan", "send|Jan|12.5|EUR|-"),
    ("nl_NL", "Stuur Jan €12,50", "send|Jan|12.5|EUR|-"),
    ("nl_NL", "Betaal Jan 1.234,56 euro", "send|Jan|1234.56|EUR|-"),
    ("de_DE", "Zahle Jürgen 12,50 €", "send|Jürgen|12.5|EUR|-"),
    ("de_DE", "Überweise 1.000 Euro an Jürgen", "send|Jürgen|1000|EUR|-"),
    ("en_GB", "Pay Jane £12.50", "send|Jane|12.5|GBP|-"),
    ("en_GB", "Send 1,234.56 pounds to Jane", "send|Jane|1234.56|GBP|-"),
    ("en_US", "Send $1,234.56 to Jane", "send|Jane|1234.56|USD|-"),
    ("en_GB", "Send $20 to Jane", "send|Jane|20|-|-"),
    ("nl_NL", "Stuur $20 naar Jan", "send|Jan|20|-|-"),
    ("de_DE", "Schicke 20 Dollar an Jürgen", "send|Jürgen|20|-|-"),
    ("en_GB", "Send 50p to Jane", "send|Jane|0.5|GBP|-"),
    ("en_GB", "Send ten pennies to Jane", "send|Jane|0.1|GBP|-"),
]

/// Every amount form in every position: each form (locale, words, amount, currency) in templates
/// that put it before and after the name, with notes that hold "to" and "for", and two-word,
/// hyphenated and accented names.
let amountForms: [(locale: String, text: String, amount: String, currency: String)] = [
    ("en_US", "$50", "50", "USD"), ("en_US", "50 dollars", "50", "USD"), ("en_US", "fifty dollars", "50", "USD"),
    ("en_US", "$12.50", "12.5", "USD"), ("en_US", "12.50 USD", "12.5", "USD"), ("en_US", "USD 12.50", "12.5", "USD"),
    ("en_US", "€20", "20", "EUR"), ("en_US", "20 euros", "20", "EUR"), ("en_US", "twenty euros", "20", "EUR"),
    ("en_US", "€1,250.75", "1250.75", "EUR"), ("en_US", "£10", "10", "GBP"), ("en_US", "10 pounds", "10", "GBP"),
    ("en_US", "42 bucks", "42", "USD"), ("en_US", "$10k", "10000", "USD"), ("en_US", "20 dollars and 43 cents", "20.43", "USD"),
    ("en_US", "a hundred dollars", "100", "USD"), ("en_US", "one hundred and five euros", "105", "EUR"), ("en_US", "$0.50", "0.5", "USD"),
    ("en_US", "75 cents", "0.75", "USD"), ("en_US", "100 XLM", "100", "XLM"), ("en_US", "2,500 lumens", "2500", "XLM"),
    ("en_US", "seventy-five dollars", "75", "USD"), ("en_US", "ninety nine cents", "0.99", "USD"), ("en_US", "three thousand dollars", "3000", "USD"),
    ("en_US", "a dollar", "1", "USD"), ("en_US", "CA$15", "15", "CAD"), ("en_US", "15 canadian dollars", "15", "CAD"),
    ("en_US", "50 EUR", "50", "EUR"), ("en_US", "¥500", "500", "JPY"), ("en_US", "12 swiss francs", "12", "CHF"),
    ("en_US", "$1,000,000", "1000000", "USD"), ("en_US", "twenty-five hundred dollars", "2500", "USD"), ("en_US", "$3.5k", "3500", "USD"),
    ("nl_NL", "€12,50", "12.5", "EUR"), ("nl_NL", "12,50 euro", "12.5", "EUR"), ("nl_NL", "€1.234,56", "1234.56", "EUR"), ("nl_NL", "EUR 7,5", "7.5", "EUR"),
    ("de_DE", "12,50 €", "12.5", "EUR"), ("de_DE", "1.000 EUR", "1000", "EUR"), ("de_DE", "€ 3,99", "3.99", "EUR"),
    ("en_GB", "£12.50", "12.5", "GBP"), ("en_GB", "12 quid", "12", "GBP"), ("en_GB", "50p", "0.5", "GBP"), ("en_GB", "$20", "20", "-"),
]

/// The templates of each language: the amount before and after the name, notes that hold the
/// language's "to" and "for", two-word, hyphenated and accented names.
let amountTemplates: [IntentLanguage: [(text: String, expected: String)]] = [
    .en: [
        ("Send {} to Jane for dinner", "send|Jane|{}|dinner"),
        ("Pay Jean-Luc {}", "send|Jean-Luc|{}|-"),
        ("Request {} from José for the taxi", "request|José|{}|the taxi"),
        ("Ask Mary Anne for {}", "request|Mary Anne|{}|-"),
        ("Transfer {} to my sister for rent to the landlord", "send|sister|{}|rent to the landlord"),
        ("Can you give Zoë Núñez {} for the tickets for Friday", "send|Zoë Núñez|{}|the tickets for Friday"),
    ],
    .nl: [
        ("Stuur {} naar Jane voor het eten", "send|Jane|{}|het eten"),
        ("Betaal Jean-Luc {}", "send|Jean-Luc|{}|-"),
        ("Vraag {} aan José voor de taxi", "request|José|{}|de taxi"),
        ("Vraag Mary Anne om {}", "request|Mary Anne|{}|-"),
        ("Maak {} over naar mijn zus voor de huur aan de verhuurder", "send|zus|{}|de huur aan de verhuurder"),
        ("Kun je Zoë Núñez {} geven voor de kaartjes voor vrijdag", "send|Zoë Núñez|{}|de kaartjes voor vrijdag"),
    ],
    .de: [
        ("Überweise {} an Jane für das Essen", "send|Jane|{}|das Essen"),
        ("Zahle Jean-Luc {}", "send|Jean-Luc|{}|-"),
        ("Fordere {} von José für das Taxi an", "request|José|{}|das Taxi"),
        ("Bitte Mary Anne um {}", "request|Mary Anne|{}|-"),
        ("Schick {} an meine Schwester für die Miete an den Vermieter", "send|Schwester|{}|die Miete an den Vermieter"),
        ("Kannst du Zoë Núñez {} für die Karten für Freitag überweisen", "send|Zoë Núñez|{}|die Karten für Freitag"),
    ],
]

let generatedUtterances: [(locale: String, text: String, expected: String)] = amountForms.flatMap { form in
    amountTemplates[IntentLocale(rawValue: form.locale)!.language]!.map { template in
        (form.locale, template.text.replacing("{}", with: form.text),
         template.expected.replacing("{}", with: "\(form.amount)|\(form.currency)"))
    }
}
