import Gateway
import Mustache

/// The console's words in English, Dutch and German (the payment page's three languages). A
/// text is looked up by its English form: in the templates through the `{{#t}}...{{/t}}`
/// lambda (whose translation may hold the same `{{values}}`, rendered and escaped as any
/// template's), in the code by calling the text with `{name}` placeholders filled in. English,
/// or a text with no translation, is written as it is.
struct ConsoleText: Sendable {
    let locale: CardTextLocale

    static let cookieName = "tender_console_locale"

    /// `?locale=` (remembered in a cookie by the caller), the cookie, or `Accept-Language`.
    static func locale(query: String?, cookie: String?, acceptLanguage: String?) -> CardTextLocale {
        if let query, let locale = CardTextLocale(rawValue: query.lowercased()) { return locale }
        if let cookie, let locale = CardTextLocale(rawValue: cookie) { return locale }
        return CardTextLocale.preferred(acceptLanguage: acceptLanguage)
    }

    func callAsFunction(_ english: String, _ values: KeyValuePairs<String, String> = [:]) -> String {
        var text = Self.translations[locale]?[english] ?? english
        for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }

    /// `minor` units of `currency` as the language writes money: €12.50, € 12,50, 12,50 €.
    func money(_ minor: Int64, _ currency: String) -> String {
        minor < 0 ? "−" + PageText.money(-minor, currency: currency, locale: locale) : PageText.money(minor, currency: currency, locale: locale)
    }

    /// For the templates: `{{#t}}English text{{/t}}`.
    var lambda: MustacheLambda {
        let words = Self.translations[locale] ?? [:]
        return MustacheLambda { english in words[english] ?? english }
    }

    static let translations: [CardTextLocale: [String: String]] = [.nl: dutch, .de: german]

    static let dutch: [String: String] = [
        "Tender console": "Tender-console", "Skip to content": "Naar de inhoud", "Console": "Console", "Home": "Overzicht",
        "Payments": "Betalingen", "Customers": "Klanten", "Balance": "Saldo", "Webhooks": "Webhooks", "Marketplace": "Marktplaats",
        "Explorer": "Verkenner", "Sign out": "Afmelden", "Language": "Taal", "Sign in": "Aanmelden",
        "With the admin key of the data directory (<code>admin.key</code>) to see every merchant, or with a merchant's secret key (<code>sk_test_…</code>) to see its own.":
            "Met de beheersleutel van de datamap (<code>admin.key</code>) om alle handelaren te zien, of met de geheime sleutel van een handelaar (<code>sk_test_…</code>) om die van hem te zien.",
        "Key": "Sleutel", "Merchants": "Handelaren", "{{count}} merchants": "{{count}} handelaren", "Name": "Naam", "Id": "Id",
        "Settlement account": "Afrekeningsrekening", "Available, on the ledger; nothing is pending, as payments settle at once": "Beschikbaar, op het grootboek; er staat niets open, want betalingen worden meteen afgerekend",
        "Payments per hour, last 24 hours (UTC)": "Betalingen per uur, de laatste 24 uur (UTC)", "Succeeded payments per hour, last 24 hours": "Geslaagde betalingen per uur, de laatste 24 uur",
        "Payments, {{days}} days": "Betalingen, {{days}} dagen", "Success rate": "Geslaagd", "{{failed}} failed": "{{failed}} mislukt",
        "Refunded": "Terugbetaald", "in {{days}} days": "in {{days}} dagen",
        "More payments were made in these days than the home page reads at once; the figures cover the newest.":
            "In deze dagen zijn meer betalingen gedaan dan het overzicht in één keer leest; de cijfers gaan over de nieuwste.",
        "Volume per day ({{volumeCurrency}})": "Omzet per dag ({{volumeCurrency}})", "Payments per day": "Betalingen per dag",
        "Recent payments": "Recente betalingen", "All payments": "Alle betalingen", "Amount": "Bedrag", "Status": "Status",
        "Method": "Methode", "Description": "Omschrijving", "Created": "Aangemaakt", "No payments.": "Geen betalingen.",
        "Filter payments": "Betalingen filteren", "Any": "Alle", "Currency": "Valuta", "From amount": "Vanaf bedrag", "To amount": "Tot bedrag",
        "From date": "Vanaf datum", "To date": "Tot datum", "Id or e-mail": "Id of e-mail", "Filter": "Filteren",
        "Payments found": "Gevonden betalingen", "Newest": "Nieuwste", "Older": "Ouder", "{{scanned}} read for this page.": "{{scanned}} gelezen voor deze pagina.",
        "Payment": "Betaling", "Customer": "Klant", "Received": "Ontvangen", "Fee": "Kosten", "Net": "Netto", "Settled by": "Afgerekend met",
        "Payment method": "Betaalmethode", "None yet.": "Nog geen.", "Timeline": "Verloop", "Actions": "Acties",
        "Refund amount ({{currency}}), empty for all {{refundable}}": "Terug te betalen bedrag ({{currency}}), leeg voor alles: {{refundable}}",
        "Reason": "Reden", "None": "Geen", "Requested by customer": "Op verzoek van de klant", "Duplicate": "Dubbel", "Fraudulent": "Frauduleus",
        "Refund": "Terugbetalen", "Capture amount ({{currency}}), empty for all {{capturable}}": "Te innen bedrag ({{currency}}), leeg voor alles: {{capturable}}",
        "Capture": "Innen", "Cancel payment": "Betaling annuleren", "Endpoint URL": "URL van het eindpunt", "Events": "Gebeurtenissen",
        "Add endpoint": "Eindpunt toevoegen", "Send test event": "Testgebeurtenis sturen",
        "A test event ({event}, payment_intent.succeeded) is on its way.": "Een testgebeurtenis ({event}, payment_intent.succeeded) is onderweg.", "Delete endpoint": "Eindpunt verwijderen", "Resend": "Opnieuw sturen",
        "Search the ledger": "Het grootboek doorzoeken", "Account, transaction hash, ledger, asset, payment or order id": "Rekening, transactiehash, grootboek, activum, betalings- of bestellings-id",
        "Search": "Zoeken", "Console home": "Naar het overzicht",
        // In the code
        "This sign-in form has expired. Please try again.": "Dit aanmeldformulier is verlopen. Probeer het opnieuw.",
        "That is neither the admin key nor a merchant's secret key.": "Dat is niet de beheersleutel en ook niet de geheime sleutel van een handelaar.",
        "Operator": "Beheerder", "Operator, viewing {name}": "Beheerder, bij {name}", "nothing received": "niets ontvangen",
        "Volume received per day in {currency}, last {days} days": "Ontvangen per dag in {currency}, de laatste {days} dagen",
        "Succeeded payments per day, last {days} days": "Geslaagde betalingen per dag, de laatste {days} dagen",
        "{succeeded} succeeded, {failed} failed": "{succeeded} geslaagd, {failed} mislukt",
        "Unknown status.": "Onbekende status.", "Unknown method.": "Onbekende methode.", "Unknown currency.": "Onbekende valuta.",
        "An amount is written as 12.50.": "Een bedrag schrijf je als 12,50.", "A date is written as 2026-11-27.": "Een datum schrijf je als 2026-11-27.",
        "Search takes a payment (pi_…), charge (ch_…) or customer (cus_…) id, or a customer's e-mail.":
            "Zoeken gaat op het id van een betaling (pi_…), afschrijving (ch_…) of klant (cus_…), of het e-mailadres van een klant.",
        "Type": "Soort", "Card": "Kaart", "Expires": "Verloopt", "Country": "Land", "3-D Secure": "3-D Secure", "Bank": "Bank", "E-mail": "E-mail",
        "asked ({flow})": "gevraagd ({flow})", "not asked": "niet gevraagd", "Customer asked to authenticate": "Klant gevraagd zich te verifiëren",
        "Charge {n} succeeded": "Afschrijving {n} geslaagd", "Charge {n} failed": "Afschrijving {n} mislukt", "Charge {n} pending": "Afschrijving {n} in behandeling",
        "Authorized": "Geautoriseerd", "Captured": "Geïnd", "Released": "Vrijgegeven", "Succeeded": "Geslaagd", "Canceled": "Geannuleerd",
        "settled on the ledger in transaction {hash}…": "afgerekend op het grootboek in transactie {hash}…", "Event {type}": "Gebeurtenis {type}",
        "no endpoint asked for it": "geen eindpunt vroeg erom", "delivered to {n} of {m} endpoints": "bezorgd bij {n} van {m} eindpunten",
        ", {n} failed": ", {n} mislukt", ", retrying": ", wordt opnieuw geprobeerd",
        "The payment was canceled.": "De betaling is geannuleerd.", "This form was already sent; it was done once, not again.": "Dit formulier was al verstuurd; het is één keer uitgevoerd, niet nog eens.",
        "Tender could not finish this. Send the form again: it finishes what was begun and does nothing twice.":
            "Tender kon dit niet afmaken. Verstuur het formulier opnieuw: het maakt af wat begonnen is en doet niets twee keer.",
        "A refund of {amount} was made.": "Er is {amount} terugbetaald.", "Captured: {amount} received in all.": "Geïnd: in totaal {amount} ontvangen.",
        "Unknown reason.": "Onbekende reden.", "Not found": "Niet gevonden", "There is nothing here, or it is not yours to see.": "Hier is niets, of het is niet voor jou.",
        "Refused": "Geweigerd", "This form has expired. Open the page again and repeat.": "Dit formulier is verlopen. Open de pagina opnieuw en probeer het nog eens.",
        "Customers, newest first": "Klanten, nieuwste eerst", "With the e-mail {email}.": "Met het e-mailadres {email}.", "No customers.": "Geen klanten.",
        "Phone": "Telefoon", "Default payment method": "Standaardbetaalmethode", "Saved payment methods": "Bewaarde betaalmethoden", "Use": "Gebruik",
        "Saved": "Bewaard", "No saved payment methods.": "Geen bewaarde betaalmethoden.", "Latest payments": "Laatste betalingen",
        "set up for {use}": "ingesteld voor {use}", "{brand} •••• {last4}, expires {expiry}": "{brand} •••• {last4}, verloopt {expiry}",
        "Available": "Beschikbaar",
        "What the merchant's settlement account holds on the ledger, and so what the balance transactions add up to.":
            "Wat de afrekeningsrekening van de handelaar op het grootboek heeft, en dus waar de saldotransacties samen op uitkomen.",
        "Balance transactions": "Saldotransacties", "Balance transactions: {type}": "Saldotransacties: {type}", "Source": "Bron",
        "No balance transactions.": "Geen saldotransacties.", "Payouts": "Uitbetalingen", "To": "Naar", "Ledger transaction": "Grootboektransactie",
        "No payouts.": "Geen uitbetalingen.", "Add an endpoint": "Een eindpunt toevoegen",
        "Events: * for all, or types separated by commas (payment_intent.succeeded, charge.refunded…).":
            "Gebeurtenissen: * voor alle, of soorten gescheiden door komma's (payment_intent.succeeded, charge.refunded…).",
        "Event": "Gebeurtenis", "Attempts": "Pogingen", "Last answer": "Laatste antwoord", "Last tried": "Laatst geprobeerd", "Next retry": "Volgende poging",
        "Nothing delivered yet.": "Nog niets bezorgd.", "Latest deliveries": "Laatste bezorgingen", "no answer": "geen antwoord", "URL": "URL",
        "disabled": "uitgeschakeld", "enabled": "ingeschakeld", "Enable": "Inschakelen", "Disable": "Uitschakelen",
        "Endpoint {id} added. Its signing secret is shown once, by the API (POST /v1/webhook_endpoints); make one there to receive signed events you can verify.":
            "Eindpunt {id} toegevoegd. Het ondertekeningsgeheim toont alleen de API, één keer (POST /v1/webhook_endpoints); maak er daar een om ondertekende gebeurtenissen te ontvangen die je kunt controleren.",
        "Endpoint disabled: it is sent nothing until enabled.": "Eindpunt uitgeschakeld: het krijgt niets tot het weer is ingeschakeld.",
        "Endpoint enabled.": "Eindpunt ingeschakeld.", "Endpoint deleted.": "Eindpunt verwijderd.", "Event {event} will be sent again now.": "Gebeurtenis {event} wordt nu opnieuw verstuurd.",
        "Latest ledgers": "Laatste grootboeken", "Newest first; a ledger closes every second, or as soon as a batch is full.": "Nieuwste eerst; een grootboek sluit elke seconde, of zodra een partij vol is.",
        "Ledger": "Grootboek", "Closed": "Gesloten", "Transactions": "Transacties", "Failed": "Mislukt", "Operations": "Bewerkingen", "No ledgers yet.": "Nog geen grootboeken.",
        "Assets": "Activa", "Issued assets with their holders, by code.": "Uitgegeven activa met hun houders, op code.", "More assets": "Meer activa",
        "Holders": "Houders", "Supply": "Omloop", "No issued assets are held yet.": "Nog geen uitgegeven activa in bezit.", "none": "geen",
        "Every account with a trustline to it.": "Elke rekening met een vertrouwenslijn ernaar.", "Authorization": "Machtiging",
        "No account holds it.": "Geen rekening heeft het.", "More holders": "Meer houders", "authorized": "gemachtigd",
        "to maintain liabilities": "om verplichtingen aan te houden", "not authorized": "niet gemachtigd",
        "Nothing is found by that: search takes an account (G…), a transaction hash (64 hexadecimal characters), a ledger number, an asset (CODE or CODE:ISSUER) or a payment id (pi_…).":
            "Daarmee is niets gevonden: zoeken gaat op een rekening (G…), een transactiehash (64 hexadecimale tekens), een grootboeknummer, een activum (CODE of CODE:UITGEVER) of een betalings-id (pi_…).",
        // The test issuer's and the test bank's pages
        "3-D Secure test page": "3-D Secure-testpagina", "Test bank": "Testbank", "Tender test issuer": "Tender-testuitgever",
        "Authorise a payment of {amount}.": "Keur een betaling van {amount} goed.", "Authorise a payment of {amount} for {description}.": "Keur een betaling van {amount} voor {description} goed.",
        "Authenticate your card to save it. Nothing is charged now.": "Bevestig je kaart om haar te bewaren. Er wordt nu niets afgeschreven.",
        "Authenticate your card to save it for {description}. Nothing is charged now.": "Bevestig je kaart om haar te bewaren voor {description}. Er wordt nu niets afgeschreven.",
        "Complete": "Voltooien", "Fail": "Mislukken", "Leave": "Weggaan", "Nothing to do": "Niets te doen", "Done": "Klaar", "You left": "Je bent weggegaan",
        "This payment is not waiting for you ({status}).": "Deze betaling wacht niet op jou ({status}).",
        "This payment is no longer waiting for you ({status}).": "Deze betaling wacht niet meer op jou ({status}).",
        "This card is not waiting for you ({status}).": "Deze kaart wacht niet op jou ({status}).", "This card is no longer waiting for you.": "Deze kaart wacht niet meer op jou.",
        "Payment authorised. You may close this page.": "Betaling goedgekeurd. Je kunt deze pagina sluiten.", "Payment failed. You may close this page.": "Betaling mislukt. Je kunt deze pagina sluiten.",
        "Card authenticated. You may close this page.": "Kaart bevestigd. Je kunt deze pagina sluiten.", "Authentication failed. You may close this page.": "Bevestiging mislukt. Je kunt deze pagina sluiten.",
        "You left your bank without paying. The shop will find out that the payment was not made.": "Je hebt je bank verlaten zonder te betalen. De winkel komt te weten dat er niet is betaald.",
        "3-D Secure test challenge": "3-D Secure-testcontrole", "Authenticate this payment?": "Deze betaling bevestigen?",
        // The test anchor's interactive pages
        "Deposit {code}": "{code} storten", "Withdraw {code}": "{code} opnemen", "Pay by": "Betalen met", "Continue to payment": "Verder naar betalen", "Continue": "Verder",
        "Pay {currency} by card or bank; {code} arrives on {account}.": "Betaal {currency} met kaart of bank; {code} komt aan op {account}.",
        "Send {code} from {account}; {currency} is paid out to you.": "Stuur {code} vanaf {account}; {currency} wordt aan je uitbetaald.",
        "{min} to {max}; fee {fee}.": "{min} tot {max}; kosten {fee}.", "Amount in {currency}": "Bedrag in {currency}",
        "Write the amount as {example}.": "Schrijf het bedrag als {example}.", "The amount is {min} to {max}.": "Het bedrag is {min} tot {max}.",
        "You receive": "Je ontvangt", "Send the {code}": "Stuur de {code}", "Message": "Bericht",
        "Pay exactly {amount} {code} to {account} with the id memo {memo}. Your wallet can do it for you.":
            "Betaal precies {amount} {code} aan {account} met het id-memo {memo}. Je wallet kan het voor je doen.",
        "Deposit of {code}": "Storting van {code}", "Withdrawal of {code}": "Opname van {code}", "Tender test anchor": "Tender-testanchor",
        "You can close this page: your wallet follows the transfer.": "Je kunt deze pagina sluiten: je wallet volgt de overboeking.",
        "Order books": "Orderboeken", "Markets with offers, selling → buying.": "Markten met aanbiedingen, verkopen → kopen.", "Market": "Markt", "Offers": "Aanbiedingen",
        "No offers on the ledger.": "Geen aanbiedingen op het grootboek.",
        "Transaction": "Transactie", "Result": "Resultaat", "Details": "Details", "No operations.": "Geen bewerkingen.", "Account": "Rekening",
        "Balances and trustlines": "Saldi en vertrouwenslijnen", "Asset": "Activum", "Limit": "Limiet", "Issuer": "Uitgever", "No balances.": "Geen saldi.",
        "Signers": "Ondertekenaars", "Weight": "Gewicht", "No signers.": "Geen ondertekenaars.", "Offer": "Aanbieding", "Selling": "Verkoopt", "Buying": "Koopt",
        "Price": "Prijs", "No offers.": "Geen aanbiedingen.", "From": "Van", "No payments yet.": "Nog geen betalingen.", "Horizon's JSON": "Horizons JSON",
        "Bids": "Biedingen", "Asks": "Vragen", "No bids.": "Geen biedingen.", "No asks.": "Geen vragen.",
        "Escrow": "Bewaring", "What the orders hold equals the escrow account on the ledger.": "Wat de bestellingen vasthouden is gelijk aan de bewaarrekening op het grootboek.",
        "What the orders hold differs from the escrow account on the ledger.": "Wat de bestellingen vasthouden verschilt van de bewaarrekening op het grootboek.",
        "Held by paid and shipped orders": "Vastgehouden voor betaalde en verzonden bestellingen", "Escrow account on the ledger": "Bewaarrekening op het grootboek",
        "Escrow account": "Bewaarrekening", "The escrow account in the explorer": "De bewaarrekening in de verkenner", "Orders by status": "Bestellingen per status",
        "All": "Alle", "Orders": "Bestellingen", "Order": "Bestelling", "Total": "Totaal", "In escrow": "In bewaring", "No orders.": "Geen bestellingen.",
        // The shop and the marketplace's pages
        "Tender shop": "Tender-winkel", "Shop": "Winkel", "For sale": "Te koop",
        "My orders": "Mijn bestellingen", "For sale at {{marketplace}}": "Te koop bij {{marketplace}}", "Buy now": "Nu kopen",
        "Nothing for sale.": "Niets te koop.", "Pickup": "Ophalen", "Pickup: free": "Ophalen: gratis",
        "This listing is {{status}}.": "Deze advertentie is {{status}}.", "Pay for": "Betalen voor", "You left the payment page before paying: you can pay now.": "Je verliet de betaalpagina voordat je betaalde: je kunt nu betalen.",
        "Delivery": "Bezorging", "Address": "Adres", "Delivery address": "Bezorgadres",
        "Update totals": "Totalen bijwerken", "Saved card": "Bewaarde kaart", "Pay {{total}}": "Betaal {{total}}",
        "Order for": "Bestelling voor", "Status:": "Status:", "Total:": "Totaal:",
        "Back to the payment": "Terug naar de betaling", "All my orders": "Al mijn bestellingen", "Listing": "Advertentie",
        "No orders yet.": "Nog geen bestellingen.", "Signed out": "Afgemeld", "Open the shop's sign-in link again to come back.": "Open de aanmeldlink van de winkel opnieuw om terug te komen.",
        "iDEAL": "iDEAL", "Bancontact": "Bancontact", "Item": "Artikel",
        "Shipping": "Verzending", "Payment fee": "Betaalkosten", "of which VAT": "waarvan btw",
        "Not paid yet": "Nog niet betaald", "Waiting for the payment": "Wacht op de betaling", "Paid": "Betaald",
        "Shipped": "Verzonden", "Completed": "Afgerond", "Cancelled": "Geannuleerd",
        "Expired": "Verlopen", "Buyer": "Koper", "Seller": "Verkoper",
        "Gateway's fee": "Kosten van de gateway", "Bid accepted, order made": "Bod aanvaard, bestelling gemaakt", "Held in escrow": "In bewaring gehouden",
        "Released to seller and marketplace": "Vrijgegeven aan verkoper en marktplaats", "Returned from escrow": "Teruggegeven uit bewaring", "Order book": "Orderboek",
        "Escrow and ledger differ by {amount}.": "Bewaring en grootboek verschillen {amount}.", "What": "Wat", "When": "Wanneer",
        "Where": "Waar", "Its story": "Het verloop", "Totals": "Totalen",
        "Line": "Regel",
    ]

    static let german: [String: String] = [
        "Tender console": "Tender-Konsole", "Skip to content": "Zum Inhalt", "Console": "Konsole", "Home": "Übersicht",
        "Payments": "Zahlungen", "Customers": "Kunden", "Balance": "Guthaben", "Webhooks": "Webhooks", "Marketplace": "Marktplatz",
        "Explorer": "Explorer", "Sign out": "Abmelden", "Language": "Sprache", "Sign in": "Anmelden",
        "With the admin key of the data directory (<code>admin.key</code>) to see every merchant, or with a merchant's secret key (<code>sk_test_…</code>) to see its own.":
            "Mit dem Admin-Schlüssel des Datenverzeichnisses (<code>admin.key</code>), um alle Händler zu sehen, oder mit dem geheimen Schlüssel eines Händlers (<code>sk_test_…</code>), um dessen Daten zu sehen.",
        "Key": "Schlüssel", "Merchants": "Händler", "{{count}} merchants": "{{count}} Händler", "Name": "Name", "Id": "ID",
        "Settlement account": "Abrechnungskonto", "Available, on the ledger; nothing is pending, as payments settle at once": "Verfügbar, im Ledger; nichts ist ausstehend, da Zahlungen sofort abgerechnet werden",
        "Payments per hour, last 24 hours (UTC)": "Zahlungen pro Stunde, letzte 24 Stunden (UTC)", "Succeeded payments per hour, last 24 hours": "Erfolgreiche Zahlungen pro Stunde, letzte 24 Stunden",
        "Payments, {{days}} days": "Zahlungen, {{days}} Tage", "Success rate": "Erfolgsquote", "{{failed}} failed": "{{failed}} fehlgeschlagen",
        "Refunded": "Erstattet", "in {{days}} days": "in {{days}} Tagen",
        "More payments were made in these days than the home page reads at once; the figures cover the newest.":
            "In diesen Tagen gab es mehr Zahlungen, als die Übersicht auf einmal liest; die Zahlen betreffen die neuesten.",
        "Volume per day ({{volumeCurrency}})": "Umsatz pro Tag ({{volumeCurrency}})", "Payments per day": "Zahlungen pro Tag",
        "Recent payments": "Neueste Zahlungen", "All payments": "Alle Zahlungen", "Amount": "Betrag", "Status": "Status",
        "Method": "Methode", "Description": "Beschreibung", "Created": "Erstellt", "No payments.": "Keine Zahlungen.",
        "Filter payments": "Zahlungen filtern", "Any": "Alle", "Currency": "Währung", "From amount": "Ab Betrag", "To amount": "Bis Betrag",
        "From date": "Ab Datum", "To date": "Bis Datum", "Id or e-mail": "ID oder E-Mail", "Filter": "Filtern",
        "Payments found": "Gefundene Zahlungen", "Newest": "Neueste", "Older": "Ältere", "{{scanned}} read for this page.": "{{scanned}} für diese Seite gelesen.",
        "Payment": "Zahlung", "Customer": "Kunde", "Received": "Erhalten", "Fee": "Gebühr", "Net": "Netto", "Settled by": "Abgerechnet mit",
        "Payment method": "Zahlungsmethode", "None yet.": "Noch keine.", "Timeline": "Verlauf", "Actions": "Aktionen",
        "Refund amount ({{currency}}), empty for all {{refundable}}": "Zu erstattender Betrag ({{currency}}), leer für alles: {{refundable}}",
        "Reason": "Grund", "None": "Keiner", "Requested by customer": "Auf Wunsch des Kunden", "Duplicate": "Doppelt", "Fraudulent": "Betrügerisch",
        "Refund": "Erstatten", "Capture amount ({{currency}}), empty for all {{capturable}}": "Einzuziehender Betrag ({{currency}}), leer für alles: {{capturable}}",
        "Capture": "Einziehen", "Cancel payment": "Zahlung stornieren", "Endpoint URL": "URL des Endpunkts", "Events": "Ereignisse",
        "Add endpoint": "Endpunkt hinzufügen", "Send test event": "Testereignis senden",
        "A test event ({event}, payment_intent.succeeded) is on its way.": "Ein Testereignis ({event}, payment_intent.succeeded) ist unterwegs.", "Delete endpoint": "Endpunkt löschen", "Resend": "Erneut senden",
        "Search the ledger": "Das Ledger durchsuchen", "Account, transaction hash, ledger, asset, payment or order id": "Konto, Transaktions-Hash, Ledger, Asset, Zahlungs- oder Bestell-ID",
        "Search": "Suchen", "Console home": "Zur Übersicht",
        "This sign-in form has expired. Please try again.": "Dieses Anmeldeformular ist abgelaufen. Bitte versuchen Sie es erneut.",
        "That is neither the admin key nor a merchant's secret key.": "Das ist weder der Admin-Schlüssel noch der geheime Schlüssel eines Händlers.",
        "Operator": "Betreiber", "Operator, viewing {name}": "Betreiber, bei {name}", "nothing received": "nichts erhalten",
        "Volume received per day in {currency}, last {days} days": "Erhaltener Umsatz pro Tag in {currency}, letzte {days} Tage",
        "Succeeded payments per day, last {days} days": "Erfolgreiche Zahlungen pro Tag, letzte {days} Tage",
        "{succeeded} succeeded, {failed} failed": "{succeeded} erfolgreich, {failed} fehlgeschlagen",
        "Unknown status.": "Unbekannter Status.", "Unknown method.": "Unbekannte Methode.", "Unknown currency.": "Unbekannte Währung.",
        "An amount is written as 12.50.": "Ein Betrag wird als 12,50 geschrieben.", "A date is written as 2026-11-27.": "Ein Datum wird als 2026-11-27 geschrieben.",
        "Search takes a payment (pi_…), charge (ch_…) or customer (cus_…) id, or a customer's e-mail.":
            "Die Suche nimmt die ID einer Zahlung (pi_…), Belastung (ch_…) oder eines Kunden (cus_…) oder die E-Mail eines Kunden.",
        "Type": "Art", "Card": "Karte", "Expires": "Gültig bis", "Country": "Land", "3-D Secure": "3-D Secure", "Bank": "Bank", "E-mail": "E-Mail",
        "asked ({flow})": "verlangt ({flow})", "not asked": "nicht verlangt", "Customer asked to authenticate": "Kunde zur Authentifizierung aufgefordert",
        "Charge {n} succeeded": "Belastung {n} erfolgreich", "Charge {n} failed": "Belastung {n} fehlgeschlagen", "Charge {n} pending": "Belastung {n} ausstehend",
        "Authorized": "Autorisiert", "Captured": "Eingezogen", "Released": "Freigegeben", "Succeeded": "Erfolgreich", "Canceled": "Storniert",
        "settled on the ledger in transaction {hash}…": "im Ledger abgerechnet mit Transaktion {hash}…", "Event {type}": "Ereignis {type}",
        "no endpoint asked for it": "kein Endpunkt wollte es", "delivered to {n} of {m} endpoints": "an {n} von {m} Endpunkten zugestellt",
        ", {n} failed": ", {n} fehlgeschlagen", ", retrying": ", wird erneut versucht",
        "The payment was canceled.": "Die Zahlung wurde storniert.", "This form was already sent; it was done once, not again.": "Dieses Formular wurde bereits gesendet; es wurde einmal ausgeführt, nicht erneut.",
        "Tender could not finish this. Send the form again: it finishes what was begun and does nothing twice.":
            "Tender konnte das nicht abschließen. Senden Sie das Formular erneut: Es schließt ab, was begonnen wurde, und tut nichts zweimal.",
        "A refund of {amount} was made.": "Es wurden {amount} erstattet.", "Captured: {amount} received in all.": "Eingezogen: insgesamt {amount} erhalten.",
        "Unknown reason.": "Unbekannter Grund.", "Not found": "Nicht gefunden", "There is nothing here, or it is not yours to see.": "Hier ist nichts, oder es ist nicht für Sie bestimmt.",
        "Refused": "Abgelehnt", "This form has expired. Open the page again and repeat.": "Dieses Formular ist abgelaufen. Öffnen Sie die Seite erneut und wiederholen Sie es.",
        "Customers, newest first": "Kunden, neueste zuerst", "With the e-mail {email}.": "Mit der E-Mail {email}.", "No customers.": "Keine Kunden.",
        "Phone": "Telefon", "Default payment method": "Standardzahlungsmethode", "Saved payment methods": "Gespeicherte Zahlungsmethoden", "Use": "Verwendung",
        "Saved": "Gespeichert", "No saved payment methods.": "Keine gespeicherten Zahlungsmethoden.", "Latest payments": "Letzte Zahlungen",
        "set up for {use}": "eingerichtet für {use}", "{brand} •••• {last4}, expires {expiry}": "{brand} •••• {last4}, gültig bis {expiry}",
        "Available": "Verfügbar",
        "What the merchant's settlement account holds on the ledger, and so what the balance transactions add up to.":
            "Was das Abrechnungskonto des Händlers im Ledger hält, und damit die Summe der Guthabenbuchungen.",
        "Balance transactions": "Guthabenbuchungen", "Balance transactions: {type}": "Guthabenbuchungen: {type}", "Source": "Quelle",
        "No balance transactions.": "Keine Guthabenbuchungen.", "Payouts": "Auszahlungen", "To": "An", "Ledger transaction": "Ledger-Transaktion",
        "No payouts.": "Keine Auszahlungen.", "Add an endpoint": "Einen Endpunkt hinzufügen",
        "Events: * for all, or types separated by commas (payment_intent.succeeded, charge.refunded…).":
            "Ereignisse: * für alle, oder Arten durch Kommas getrennt (payment_intent.succeeded, charge.refunded…).",
        "Event": "Ereignis", "Attempts": "Versuche", "Last answer": "Letzte Antwort", "Last tried": "Zuletzt versucht", "Next retry": "Nächster Versuch",
        "Nothing delivered yet.": "Noch nichts zugestellt.", "Latest deliveries": "Letzte Zustellungen", "no answer": "keine Antwort", "URL": "URL",
        "disabled": "deaktiviert", "enabled": "aktiviert", "Enable": "Aktivieren", "Disable": "Deaktivieren",
        "Endpoint {id} added. Its signing secret is shown once, by the API (POST /v1/webhook_endpoints); make one there to receive signed events you can verify.":
            "Endpunkt {id} hinzugefügt. Sein Signaturgeheimnis zeigt nur die API, einmal (POST /v1/webhook_endpoints); legen Sie dort einen an, um signierte Ereignisse zu erhalten, die Sie prüfen können.",
        "Endpoint disabled: it is sent nothing until enabled.": "Endpunkt deaktiviert: er erhält nichts, bis er wieder aktiviert ist.",
        "Endpoint enabled.": "Endpunkt aktiviert.", "Endpoint deleted.": "Endpunkt gelöscht.", "Event {event} will be sent again now.": "Ereignis {event} wird jetzt erneut gesendet.",
        "Latest ledgers": "Neueste Ledger", "Newest first; a ledger closes every second, or as soon as a batch is full.": "Neueste zuerst; ein Ledger schließt jede Sekunde oder sobald ein Stapel voll ist.",
        "Ledger": "Ledger", "Closed": "Geschlossen", "Transactions": "Transaktionen", "Failed": "Fehlgeschlagen", "Operations": "Operationen", "No ledgers yet.": "Noch keine Ledger.",
        "Assets": "Assets", "Issued assets with their holders, by code.": "Ausgegebene Assets mit ihren Inhabern, nach Code.", "More assets": "Weitere Assets",
        "Holders": "Inhaber", "Supply": "Umlauf", "No issued assets are held yet.": "Noch werden keine ausgegebenen Assets gehalten.", "none": "keines",
        "Every account with a trustline to it.": "Jedes Konto mit einer Trustline dazu.", "Authorization": "Autorisierung",
        "No account holds it.": "Kein Konto hält es.", "More holders": "Weitere Inhaber", "authorized": "autorisiert",
        "to maintain liabilities": "zum Erhalt von Verbindlichkeiten", "not authorized": "nicht autorisiert",
        "Nothing is found by that: search takes an account (G…), a transaction hash (64 hexadecimal characters), a ledger number, an asset (CODE or CODE:ISSUER) or a payment id (pi_…).":
            "Damit wurde nichts gefunden: die Suche nimmt ein Konto (G…), einen Transaktions-Hash (64 Hexadezimalzeichen), eine Ledger-Nummer, ein Asset (CODE oder CODE:EMITTENT) oder eine Zahlungs-ID (pi_…).",
        // The test issuer's and the test bank's pages
        "3-D Secure test page": "3-D-Secure-Testseite", "Test bank": "Testbank", "Tender test issuer": "Tender-Testemittent",
        "Authorise a payment of {amount}.": "Bestätigen Sie eine Zahlung von {amount}.", "Authorise a payment of {amount} for {description}.": "Bestätigen Sie eine Zahlung von {amount} für {description}.",
        "Authenticate your card to save it. Nothing is charged now.": "Bestätigen Sie Ihre Karte, um sie zu speichern. Jetzt wird nichts abgebucht.",
        "Authenticate your card to save it for {description}. Nothing is charged now.": "Bestätigen Sie Ihre Karte, um sie für {description} zu speichern. Jetzt wird nichts abgebucht.",
        "Complete": "Abschließen", "Fail": "Fehlschlagen", "Leave": "Verlassen", "Nothing to do": "Nichts zu tun", "Done": "Fertig", "You left": "Sie sind gegangen",
        "This payment is not waiting for you ({status}).": "Diese Zahlung wartet nicht auf Sie ({status}).",
        "This payment is no longer waiting for you ({status}).": "Diese Zahlung wartet nicht mehr auf Sie ({status}).",
        "This card is not waiting for you ({status}).": "Diese Karte wartet nicht auf Sie ({status}).", "This card is no longer waiting for you.": "Diese Karte wartet nicht mehr auf Sie.",
        "Payment authorised. You may close this page.": "Zahlung bestätigt. Sie können diese Seite schließen.", "Payment failed. You may close this page.": "Zahlung fehlgeschlagen. Sie können diese Seite schließen.",
        "Card authenticated. You may close this page.": "Karte bestätigt. Sie können diese Seite schließen.", "Authentication failed. You may close this page.": "Bestätigung fehlgeschlagen. Sie können diese Seite schließen.",
        "You left your bank without paying. The shop will find out that the payment was not made.": "Sie haben Ihre Bank verlassen, ohne zu bezahlen. Der Shop erfährt, dass die Zahlung nicht erfolgt ist.",
        "3-D Secure test challenge": "3-D-Secure-Testprüfung", "Authenticate this payment?": "Diese Zahlung bestätigen?",
        // The test anchor's interactive pages
        "Deposit {code}": "{code} einzahlen", "Withdraw {code}": "{code} auszahlen", "Pay by": "Bezahlen mit", "Continue to payment": "Weiter zur Zahlung", "Continue": "Weiter",
        "Pay {currency} by card or bank; {code} arrives on {account}.": "Zahlen Sie {currency} per Karte oder Bank; {code} kommt auf {account} an.",
        "Send {code} from {account}; {currency} is paid out to you.": "Senden Sie {code} von {account}; {currency} wird Ihnen ausgezahlt.",
        "{min} to {max}; fee {fee}.": "{min} bis {max}; Gebühr {fee}.", "Amount in {currency}": "Betrag in {currency}",
        "Write the amount as {example}.": "Schreiben Sie den Betrag als {example}.", "The amount is {min} to {max}.": "Der Betrag ist {min} bis {max}.",
        "You receive": "Sie erhalten", "Send the {code}": "Senden Sie die {code}", "Message": "Nachricht",
        "Pay exactly {amount} {code} to {account} with the id memo {memo}. Your wallet can do it for you.":
            "Zahlen Sie genau {amount} {code} an {account} mit dem ID-Memo {memo}. Ihre Wallet kann das für Sie tun.",
        "Deposit of {code}": "Einzahlung von {code}", "Withdrawal of {code}": "Auszahlung von {code}", "Tender test anchor": "Tender-Testanchor",
        "You can close this page: your wallet follows the transfer.": "Sie können diese Seite schließen: Ihre Wallet verfolgt die Überweisung.",
        "Order books": "Orderbücher", "Markets with offers, selling → buying.": "Märkte mit Angeboten, verkauft → kauft.", "Market": "Markt", "Offers": "Angebote",
        "No offers on the ledger.": "Keine Angebote im Ledger.",
        "Transaction": "Transaktion", "Result": "Ergebnis", "Details": "Details", "No operations.": "Keine Operationen.", "Account": "Konto",
        "Balances and trustlines": "Guthaben und Trustlines", "Asset": "Asset", "Limit": "Limit", "Issuer": "Emittent", "No balances.": "Keine Guthaben.",
        "Signers": "Unterzeichner", "Weight": "Gewicht", "No signers.": "Keine Unterzeichner.", "Offer": "Angebot", "Selling": "Verkauft", "Buying": "Kauft",
        "Price": "Preis", "No offers.": "Keine Angebote.", "From": "Von", "No payments yet.": "Noch keine Zahlungen.", "Horizon's JSON": "Horizons JSON",
        "Bids": "Gebote", "Asks": "Angebote zum Verkauf", "No bids.": "Keine Gebote.", "No asks.": "Keine Verkaufsangebote.",
        "Escrow": "Treuhand", "What the orders hold equals the escrow account on the ledger.": "Was die Bestellungen halten, entspricht dem Treuhandkonto im Ledger.",
        "What the orders hold differs from the escrow account on the ledger.": "Was die Bestellungen halten, weicht vom Treuhandkonto im Ledger ab.",
        "Held by paid and shipped orders": "Gehalten für bezahlte und versandte Bestellungen", "Escrow account on the ledger": "Treuhandkonto im Ledger",
        "Escrow account": "Treuhandkonto", "The escrow account in the explorer": "Das Treuhandkonto im Explorer", "Orders by status": "Bestellungen nach Status",
        "All": "Alle", "Orders": "Bestellungen", "Order": "Bestellung", "Total": "Summe", "In escrow": "In Treuhand", "No orders.": "Keine Bestellungen.",
        // The shop and the marketplace's pages
        "Tender shop": "Tender-Shop", "Shop": "Shop", "For sale": "Zu verkaufen",
        "My orders": "Meine Bestellungen", "For sale at {{marketplace}}": "Zu verkaufen bei {{marketplace}}", "Buy now": "Sofort kaufen",
        "Nothing for sale.": "Nichts zu verkaufen.", "Pickup": "Abholung", "Pickup: free": "Abholung: kostenlos",
        "This listing is {{status}}.": "Dieses Angebot ist {{status}}.", "Pay for": "Bezahlen für", "You left the payment page before paying: you can pay now.": "Sie haben die Zahlungsseite vor dem Bezahlen verlassen: Sie können jetzt bezahlen.",
        "Delivery": "Lieferung", "Address": "Adresse", "Delivery address": "Lieferadresse",
        "Update totals": "Summen aktualisieren", "Saved card": "Gespeicherte Karte", "Pay {{total}}": "{{total}} bezahlen",
        "Order for": "Bestellung für", "Status:": "Status:", "Total:": "Summe:",
        "Back to the payment": "Zurück zur Zahlung", "All my orders": "Alle meine Bestellungen", "Listing": "Angebot",
        "No orders yet.": "Noch keine Bestellungen.", "Signed out": "Abgemeldet", "Open the shop's sign-in link again to come back.": "Öffnen Sie den Anmeldelink des Shops erneut, um zurückzukommen.",
        "iDEAL": "iDEAL", "Bancontact": "Bancontact", "Item": "Artikel",
        "Shipping": "Versand", "Payment fee": "Zahlungsgebühr", "of which VAT": "davon MwSt.",
        "Not paid yet": "Noch nicht bezahlt", "Waiting for the payment": "Wartet auf die Zahlung", "Paid": "Bezahlt",
        "Shipped": "Versandt", "Completed": "Abgeschlossen", "Cancelled": "Storniert",
        "Expired": "Abgelaufen", "Buyer": "Käufer", "Seller": "Verkäufer",
        "Gateway's fee": "Gebühr des Gateways", "Bid accepted, order made": "Gebot angenommen, Bestellung erstellt", "Held in escrow": "In Treuhand gehalten",
        "Released to seller and marketplace": "An Verkäufer und Marktplatz freigegeben", "Returned from escrow": "Aus Treuhand zurückgegeben", "Order book": "Orderbuch",
        "Escrow and ledger differ by {amount}.": "Treuhand und Ledger weichen um {amount} ab.", "What": "Was", "When": "Wann",
        "Where": "Wo", "Its story": "Verlauf", "Totals": "Summen",
        "Line": "Zeile",
    ]
}
