/// Why a payment asked for in words cannot be made, with what the answer needs to say so: the
/// handler's refusals, in words any language can render (``Phrasebook/sentence(_:)``).
public enum IntentFailure: Hashable, Sendable {
    /// Nobody in the contacts goes by that name.
    case noContact(name: String)
    /// No contact has that phone number, e-mail address or username.
    case noContactWithHandle(PayeeHandle)
    /// A contact without a Stellar address.
    case noAddress(payee: String)
    /// A federation address its domain's server does not know, or a domain with no server.
    case federationNotFound(address: String)
    case federationUnavailable(domain: String)
    case currencyUnsupported(code: String)
    case amountNotPositive(said: String)
    case tooManyDecimals(said: String)
    case amountBelowMinimum(CurrencyAmount)
    case amountAboveMaximum(CurrencyAmount)
    /// The wallet's own account does not exist on the ledger yet.
    case noAccount
    /// The wallet holds none of the asset (no trustline): it must add it first.
    case holdsNone(asset: String)
    /// The balance does not cover the amount and fee: at most this much can be sent.
    case insufficientFunds(maximum: String, asset: String)
    /// The payee's account does not exist (and this payment cannot create it).
    case recipientNotFound(payee: String)
    /// The payee holds no trustline to the asset.
    case recipientCannotReceive(payee: String, asset: String)
    /// The payee's trustline cannot hold that much more.
    case recipientLimit(payee: String, asset: String)
    case pinIncorrect
    /// Anything else, in the words of whoever refused (the network, the keystore).
    case other(String)
}

/// The sentences of a conversation about a payment, in one language: the questions, the
/// confirmation, the answers and the refusals. Amounts are written with the language's decimal
/// mark ("12,50 EUR"). The SiriKit codes never appear here; they belong to `--json`.
public struct Phrasebook: Sendable {
    public let language: IntentLanguage

    public init(_ language: IntentLanguage) { self.language = language }
    public init(locale: IntentLocale) { language = locale.language }

    private func pick(_ en: String, _ nl: String, _ de: String, _ fr: String, _ es: String) -> String {
        switch language {
        case .en: en
        case .nl: nl
        case .de: de
        case .fr: fr
        case .es: es
        }
    }

    /// "12.50 USD" in English, "12,50 EUR" elsewhere.
    public func amount(_ amount: CurrencyAmount) -> String {
        "\(decimal(amount.decimalString)) \(amount.currency)"
    }

    /// A decimal written with "." as this language writes it.
    public func decimal(_ text: String) -> String {
        language == .en ? text : text.replacing(".", with: ",")
    }

    private func quoted(_ text: String) -> String {
        pick("'\(text)'", "'\(text)'", "„\(text)“", "« \(text) »", "«\(text)»")
    }

    // MARK: Questions

    public var yesNoHint: String { pick("[y/N]", "[j/N]", "[j/N]", "[o/N]", "[s/N]") }

    /// Whether an answer says yes: "y", "yes", and the language's own ("ja", "oui", "sí").
    public func isYes(_ answer: String) -> Bool {
        let folded = Tokenizer.foldedWords(answer).joined(separator: " ")
        return ["y", "yes"].contains(folded) || pick("", "j ja", "j ja", "o oui", "s si").split(separator: " ").contains(Substring(folded))
    }

    public func askPayee(request: Bool) -> String {
        request ? pick("Who should I ask?", "Aan wie moet ik het vragen?", "Wen soll ich fragen?", "À qui dois-je demander ?", "¿A quién se lo pido?")
            : pick("Who should I pay?", "Aan wie moet ik betalen?", "Wen soll ich bezahlen?", "Qui dois-je payer ?", "¿A quién le pago?")
    }

    public func again(_ name: String, request: Bool) -> String {
        request ? pick("Ask \(name) again?", "\(name) opnieuw vragen?", "\(name) noch einmal fragen?", "Redemander à \(name) ?", "¿Pedírselo de nuevo a \(name)?")
            : pick("Pay \(name) again?", "\(name) opnieuw betalen?", "\(name) noch einmal bezahlen?", "Payer à nouveau \(name) ?", "¿Pagar de nuevo a \(name)?")
    }

    public func whichPerson(_ said: String?) -> String {
        let name = said ?? "?"
        return pick("Which \(name)?", "Welke \(name)?", "Welcher Kontakt \(name)?", "Quel contact \(name) ?", "¿Qué contacto \(name)?")
    }

    public var number: String { pick("Number:", "Nummer:", "Nummer:", "Numéro :", "Número:") }

    public var howMuch: String { pick("How much?", "Hoeveel?", "Wie viel?", "Combien ?", "¿Cuánto?") }

    public var whichDollars: String { pick("Which dollars?", "Welke dollars?", "Welche Dollar?", "Quels dollars ?", "¿Qué dólares?") }

    /// The amount offered to confirm: the last one, or the one a "$" leaves to the locale.
    public func confirmAmount(_ amount: CurrencyAmount) -> String { "\(self.amount(amount))?" }

    /// "about 20 dollars" is not paid as it is: the exact amount is asked to confirm.
    public func confirmApproximate(said: String, _ amount: CurrencyAmount) -> String {
        pick("You said \(quoted(said)): exactly \(self.amount(amount))?", "Je zei \(quoted(said)): precies \(self.amount(amount))?",
             "Sie sagten \(quoted(said)): genau \(self.amount(amount))?", "Vous avez dit \(quoted(said)) : exactement \(self.amount(amount)) ?",
             "Has dicho \(quoted(said)): ¿exactamente \(self.amount(amount))?")
    }

    /// A range or a limit is not an amount: how much, exactly?
    public func notOneAmount(said: String) -> String {
        pick("\(quoted(said)) is not one amount. How much, exactly?", "\(quoted(said)) is geen vast bedrag. Hoeveel precies?",
             "\(quoted(said)) ist kein fester Betrag. Wie viel genau?", "\(quoted(said)) n'est pas un montant précis. Combien exactement ?",
             "\(quoted(said)) no es un importe exacto. ¿Cuánto exactamente?")
    }

    public func confirmSend(_ amount: CurrencyAmount, to name: String, note: String?) -> String {
        let a = self.amount(amount)
        return switch language {
        case .en: "Send \(a) to \(name)\(note.map { " for \(quoted($0))" } ?? "")?"
        case .nl: "\(a) naar \(name) sturen\(note.map { " voor \(quoted($0))" } ?? "")?"
        case .de: "\(a) an \(name) überweisen\(note.map { " für \(quoted($0))" } ?? "")?"
        case .fr: "Envoyer \(a) à \(name)\(note.map { " pour \(quoted($0))" } ?? "") ?"
        case .es: "¿Enviar \(a) a \(name)\(note.map { " para \(quoted($0))" } ?? "")?"
        }
    }

    public var cancelled: String {
        pick("Cancelled; nothing was sent.", "Geannuleerd; er is niets verstuurd.", "Abgebrochen; es wurde nichts gesendet.",
             "Annulé ; rien n'a été envoyé.", "Cancelado; no se ha enviado nada.")
    }

    // MARK: Answers

    public func sent(_ amount: CurrencyAmount, to name: String, note: String?, fee: CurrencyAmount?) -> String {
        let a = self.amount(amount)
        let feeText = fee.map { " (" + pick("fee", "kosten", "Gebühr", "frais", "comisión") + " \(self.amount($0)))" } ?? ""
        return switch language {
        case .en: "Sent \(a) to \(name)\(note.map { " for \(quoted($0))" } ?? "")\(feeText)."
        case .nl: "\(a) verstuurd naar \(name)\(note.map { " voor \(quoted($0))" } ?? "")\(feeText)."
        case .de: "\(a) an \(name) überwiesen\(note.map { " für \(quoted($0))" } ?? "")\(feeText)."
        case .fr: "\(a) envoyés à \(name)\(note.map { " pour \(quoted($0))" } ?? "")\(feeText)."
        case .es: "\(a) enviados a \(name)\(note.map { " para \(quoted($0))" } ?? "")\(feeText)."
        }
    }

    public func requestLink(_ name: String) -> String {
        pick("Ask \(name) to open this in their Stellar wallet:", "Vraag \(name) dit te openen in een Stellar-wallet:",
             "Bitte \(name), dies in einer Stellar-Wallet zu öffnen:", "Demandez à \(name) d'ouvrir ceci dans un portefeuille Stellar :",
             "Pide a \(name) que abra esto en una billetera Stellar:")
    }

    /// `tender say --history`: a payment sent to, asked of, and none yet.
    public var historySent: String { pick("sent to", "verstuurd naar", "gesendet an", "envoyé à", "enviado a") }
    public var historyAsked: String { pick("asked of", "gevraagd aan", "angefordert von", "demandé à", "pedido a") }
    public var noHistory: String {
        pick("no payments asked for in words yet", "nog geen betalingen in woorden", "noch keine Zahlungen in Worten",
             "aucun paiement demandé en mots pour l'instant", "todavía no hay pagos pedidos con palabras")
    }

    public var noBalances: String {
        pick("no balances yet", "nog geen saldo", "noch kein Guthaben", "aucun solde pour l'instant", "todavía no hay saldo")
    }

    public var notUnderstood: String {
        pick("I can send money, ask for money or tell your balance; I could not tell which from that",
             "Ik kan geld sturen, om geld vragen of je saldo geven; ik begreep niet welke van de drie",
             "Ich kann Geld senden, Geld anfordern oder den Kontostand nennen; ich habe nicht verstanden, was davon",
             "Je peux envoyer de l'argent, en demander ou donner votre solde ; je n'ai pas compris lequel",
             "Puedo enviar dinero, pedir dinero o decir tu saldo; no he entendido cuál de ellos")
    }

    public var noWallet: String {
        pick("no wallet here; create or import one with `tender wallet create` or `tender wallet import`",
             "hier is geen wallet; maak er een met `tender wallet create` of importeer er een met `tender wallet import`",
             "hier ist keine Wallet; eine anlegen mit `tender wallet create` oder importieren mit `tender wallet import`",
             "aucun portefeuille ici ; créez-en un avec `tender wallet create` ou importez-en un avec `tender wallet import`",
             "no hay billetera aquí; crea una con `tender wallet create` o impórtala con `tender wallet import`")
    }

    public func didNotUnderstand(_ words: [String]) -> String {
        pick("did not understand: ", "niet begrepen: ", "nicht verstanden: ", "pas compris : ", "no entendido: ") + words.joined(separator: " ")
    }

    public func required(request: Bool) -> String {
        request ? pick("a payer is required", "er moet iemand gevraagd worden", "eine Person ist nötig", "il faut une personne", "hace falta una persona")
            : pick("a payee is required", "er moet een ontvanger zijn", "ein Empfänger ist nötig", "il faut un bénéficiaire", "hace falta un destinatario")
    }

    public func notANumber(_ answer: String, count: Int) -> String {
        pick("\"\(answer)\" is not a number from 1 to \(count)", "\"\(answer)\" is geen getal van 1 tot \(count)",
             "\"\(answer)\" ist keine Zahl von 1 bis \(count)", "« \(answer) » n'est pas un nombre de 1 à \(count)",
             "«\(answer)» no es un número del 1 al \(count)")
    }

    /// A problem of the parse, said to the user: why the amount was not taken as said.
    public func problem(_ problem: ParseProblem) -> String {
        let words = quoted(problem.words)
        return switch problem.code {
        case "unreadable_number":
            pick("I cannot read \(words) exactly as a number", "ik kan \(words) niet precies als getal lezen", "ich kann \(words) nicht genau als Zahl lesen",
                 "je ne peux pas lire \(words) exactement comme un nombre", "no puedo leer \(words) exactamente como un número")
        case "unreadable_amount":
            pick("I cannot read the amount in \(words) exactly", "ik kan het bedrag in \(words) niet precies lezen", "ich kann den Betrag in \(words) nicht genau lesen",
                 "je ne peux pas lire exactement le montant dans \(words)", "no puedo leer exactamente el importe en \(words)")
        case "several_amounts":
            pick("you said several amounts: \(problem.words)", "je noemde meerdere bedragen: \(problem.words)", "Sie nannten mehrere Beträge: \(problem.words)",
                 "vous avez dit plusieurs montants : \(problem.words)", "has dicho varios importes: \(problem.words)")
        case "amount_too_large":
            pick("that amount is too large", "dat bedrag is te groot", "dieser Betrag ist zu groß", "ce montant est trop grand", "ese importe es demasiado grande")
        case "approximate_amount":
            pick("\(words) is not an exact amount", "\(words) is geen precies bedrag", "\(words) ist kein genauer Betrag",
                 "\(words) n'est pas un montant exact", "\(words) no es un importe exacto")
        case "amount_range", "amount_bound":
            pick("\(words) is not one amount", "\(words) is geen vast bedrag", "\(words) ist kein fester Betrag",
                 "\(words) n'est pas un montant précis", "\(words) no es un importe exacto")
        case "empty":
            pick("there is nothing to read", "er staat niets", "da steht nichts", "il n'y a rien à lire", "no hay nada que leer")
        case "too_long":
            pick("that is too long to read", "dat is te lang om te lezen", "das ist zu lang zum Lesen", "c'est trop long à lire", "es demasiado largo para leerlo")
        default:
            problem.detail
        }
    }


    // MARK: Refusals

    public func sentence(_ failure: IntentFailure) -> String {
        switch failure {
        case .noContact(let name):
            return pick("no contact named \(name) (add one with `tender wallet contacts add NAME ADDRESS`)",
                        "geen contact met de naam \(name) (voeg er een toe met `tender wallet contacts add NAAM ADRES`)",
                        "kein Kontakt namens \(name) (einen hinzufügen mit `tender wallet contacts add NAME ADRESSE`)",
                        "aucun contact nommé \(name) (ajoutez-en un avec `tender wallet contacts add NOM ADRESSE`)",
                        "ningún contacto llamado \(name) (añade uno con `tender wallet contacts add NOMBRE DIRECCIÓN`)")
        case .noContactWithHandle(let handle):
            let what: String
            switch handle {
            case .phone(let digits): what = pick("the phone number", "het telefoonnummer", "der Telefonnummer", "le numéro", "el teléfono") + " " + digits
            case .email(let address): what = pick("the e-mail address", "het e-mailadres", "der E-Mail-Adresse", "l'adresse e-mail", "el correo") + " " + address
            case .username(let name): what = "@" + name
            case .federation(let name, let domain): what = "\(name)*\(domain)"
            case .stellarAccount(let account): what = account
            }
            return pick("no contact with \(what)", "geen contact met \(what)", "kein Kontakt mit \(what)", "aucun contact avec \(what)", "ningún contacto con \(what)")
        case .noAddress(let payee):
            return pick("\(payee) has no Stellar address in your contacts", "\(payee) heeft geen Stellar-adres in je contacten",
                        "\(payee) hat keine Stellar-Adresse in Ihren Kontakten", "\(payee) n'a pas d'adresse Stellar dans vos contacts",
                        "\(payee) no tiene dirección Stellar en tus contactos")
        case .federationNotFound(let address):
            return pick("\(address) is not known to its federation server", "\(address) is onbekend bij de federatieserver",
                        "\(address) ist dem Federation-Server unbekannt", "\(address) est inconnu de son serveur de fédération",
                        "\(address) no es conocido por su servidor de federación")
        case .federationUnavailable(let domain):
            return pick("\(domain) offers no federation server to find that address", "\(domain) biedt geen federatieserver om dat adres te vinden",
                        "\(domain) bietet keinen Federation-Server für diese Adresse", "\(domain) n'offre pas de serveur de fédération pour cette adresse",
                        "\(domain) no ofrece servidor de federación para esa dirección")
        case .currencyUnsupported(let code):
            return pick("\(code) is not a currency this ledger pays", "\(code) is geen munt die dit grootboek betaalt",
                        "\(code) ist keine Währung, die dieses Ledger zahlt", "\(code) n'est pas une monnaie que ce registre paie",
                        "\(code) no es una moneda que pague este registro")
        case .amountNotPositive(let said):
            return pick("\(said) is not more than zero", "\(said) is niet meer dan nul", "\(said) ist nicht mehr als null",
                        "\(said) n'est pas supérieur à zéro", "\(said) no es mayor que cero")
        case .tooManyDecimals(let said):
            return pick("\(said) has more decimals than its currency", "\(said) heeft meer decimalen dan de munt",
                        "\(said) hat mehr Nachkommastellen als die Währung", "\(said) a plus de décimales que sa monnaie",
                        "\(said) tiene más decimales que su moneda")
        case .amountBelowMinimum(let minimum):
            return pick("the least you can send is \(amount(minimum))", "je kunt minstens \(amount(minimum)) sturen",
                        "der kleinste Betrag ist \(amount(minimum))", "le minimum est de \(amount(minimum))", "lo mínimo es \(amount(minimum))")
        case .amountAboveMaximum(let maximum):
            return pick("the most you can send is \(amount(maximum))", "je kunt hooguit \(amount(maximum)) sturen",
                        "der größte Betrag ist \(amount(maximum))", "le maximum est de \(amount(maximum))", "lo máximo es \(amount(maximum))")
        case .noAccount:
            return pick("your account does not exist on the ledger yet: fund it with `tender wallet fund`",
                        "je rekening bestaat nog niet op het grootboek: vul hem met `tender wallet fund`",
                        "Ihr Konto existiert noch nicht im Ledger: aufladen mit `tender wallet fund`",
                        "votre compte n'existe pas encore sur le registre : alimentez-le avec `tender wallet fund`",
                        "tu cuenta todavía no existe en el registro: cárgala con `tender wallet fund`")
        case .holdsNone(let asset):
            return pick("you hold no \(asset): add it with `tender wallet trust add \(asset)`",
                        "je hebt geen \(asset): voeg het toe met `tender wallet trust add \(asset)`",
                        "Sie haben kein \(asset): hinzufügen mit `tender wallet trust add \(asset)`",
                        "vous ne détenez pas de \(asset) : ajoutez-le avec `tender wallet trust add \(asset)`",
                        "no tienes \(asset): añádelo con `tender wallet trust add \(asset)`")
        case .insufficientFunds(let maximum, let asset):
            let most = "\(decimal(maximum)) \(asset)"
            return pick("your balance does not cover that: you can send at most \(most)", "je saldo is niet genoeg: je kunt hooguit \(most) sturen",
                        "Ihr Guthaben reicht nicht: Sie können höchstens \(most) senden", "votre solde ne suffit pas : vous pouvez envoyer au plus \(most)",
                        "tu saldo no alcanza: puedes enviar como máximo \(most)")
        case .recipientNotFound(let payee):
            return pick("\(payee)'s account does not exist yet", "de rekening van \(payee) bestaat nog niet", "das Konto von \(payee) existiert noch nicht",
                        "le compte de \(payee) n'existe pas encore", "la cuenta de \(payee) todavía no existe")
        case .recipientCannotReceive(let payee, let asset):
            return pick("\(payee) cannot receive \(asset): they must trust it first", "\(payee) kan geen \(asset) ontvangen: die moet het eerst vertrouwen",
                        "\(payee) kann kein \(asset) empfangen: \(payee) muss es zuerst vertrauen", "\(payee) ne peut pas recevoir de \(asset) : il faut d'abord lui faire confiance",
                        "\(payee) no puede recibir \(asset): primero tiene que confiar en él")
        case .recipientLimit(let payee, let asset):
            return pick("\(payee)'s \(asset) trustline cannot hold that much more", "de \(asset)-trustline van \(payee) kan niet zoveel meer bevatten",
                        "die \(asset)-Trustline von \(payee) fasst nicht so viel mehr", "la ligne de confiance \(asset) de \(payee) ne peut pas en contenir autant",
                        "la línea de confianza \(asset) de \(payee) no admite tanto más")
        case .pinIncorrect:
            return pick("wrong PIN", "verkeerde pincode", "falsche PIN", "code PIN incorrect", "PIN incorrecto")
        case .other(let text):
            return text
        }
    }
}

extension IntentFailure: Error {}
