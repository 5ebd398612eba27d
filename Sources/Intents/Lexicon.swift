/// The five languages the parser reads. The language comes from the locale (or a tag per
/// utterance), never from guessing in the middle of a sentence.
public enum IntentLanguage: String, Hashable, Sendable, CaseIterable {
    case en, nl, de, fr, es
}

/// The words of one language that have a part to play in a payment asked for in words, all
/// folded (lowercase, accents removed: "überweise" is "uberweise").
struct Lexicon: Sendable {
    var sendVerbs: Set<String>
    var requestVerbs: Set<String>
    /// Request verbs that only ask for money when this word follows somewhere ("bitte Lukas um
    /// 20 Euro"); otherwise they are fillers ("bitte" is also "please").
    var conditionalRequestVerbs: [String: String] = [:]
    var balanceWords: Set<String>
    /// "how much (money) do I have": all of one of these groups said.
    var balanceQuestions: [[String]]
    /// Before the person paid: "to Jane", "aan Jan", "an Lukas", "à Marie", "a Juan".
    var payeeMarkers: Set<String>
    /// Before the person asked: "from Jane", "van Jan", "von Lukas", "à Marie", "a Juan".
    var payerMarkers: Set<String>
    /// Before the note: "for", "voor", "für", "pour", "para".
    var noteMarkers: Set<String>
    /// Before the amount of a request, not a note: "vraag Jan om 20 euro", "bitte Lukas um 20 Euro".
    var amountMarkers: Set<String> = []
    /// "with"/"using" an app.
    var appMarkers: Set<String>
    /// Always names an app ("using Tender"), registered or not.
    var appMarkersAlways: Set<String>
    /// "and": in numbers ("a hundred and five"), between an amount and its cents.
    var and: Set<String>
    /// Words that end a name.
    var nameStops: Set<String>
    /// Words that make up requests without meaning anything to the payment.
    var fillers: Set<String>
    /// Possessives before a person: "my mom", "mijn moeder", "meiner Mutter".
    var possessives: Set<String>
    /// Said before an amount that is not exact: "about", "ongeveer", "etwa", "environ", "unos".
    var approximations: [[String]]
    /// Said after one: "or so", "give or take".
    var approximationsAfter: [[String]]
    /// "at most", "under"; "at least", "over".
    var atMost: [[String]]
    var atLeast: [[String]]
    /// Before the first amount of a range: "between", "tussen"; "from".
    var rangeStarts: [[String]]
    /// Between the two amounts of a range: "and", "to", "tot", "bis".
    var rangeJoiners: Set<String>
    /// "half" ("half a million"), with the articles that may come between.
    var half: Set<String>
    /// One and a half in a word: "anderhalf", "eineinhalb".
    var oneAndAHalf: Set<String>
    /// Articles that mean one before a unit: "a dollar", "een euro", "ein Euro", "un euro".
    var articles: Set<String>
    /// Money said in slang: "a grand" (×1000), "a tenner" (10), "een tientje", "ein Zehner".
    var slangAmounts: [String: UInt64]
    /// Slang for the local currency after a number: "3 balles", "20 pavos".
    var slangUnits: Set<String> = []
    var slangScales: [String: UInt64]
    /// Coins worth a number of cents of a dollar: "a quarter", "ten dimes".
    var coins: [String: UInt64]
    /// The numbers said in words.
    var numbers: NumberLexicon
    /// Words elided before a vowel that the tokenizer splits off: "d'euros", "l'addition".
    var elisions: Set<String> = []
    /// "of" between a number and its money: "un million d'euros", "un millón de euros".
    var of: Set<String> = []
    /// Counts that are approximate by nature: "une vingtaine", "una veintena".
    var approximateCounts: [String: UInt64] = [:]
    /// Particles of separable verbs said last: "maak 50 euro over", "fordere 20 Euro an".
    var particles: Set<String> = []
    /// A decimal point said: "one point five", "een komma vijf", "un virgule cinq".
    var decimalPoints: Set<String> = []
    /// Besides "and", what joins an amount and its cents: "doce euros con cincuenta".
    var minorJoiners: Set<String> = []
    /// Phrases of politeness that hold a marker word: "por favor", "s'il (te) plaît".
    var politePhrases: [[String]] = []

    static func of(_ language: IntentLanguage) -> Shared {
        switch language {
        case .en: sharedEnglish
        case .nl: sharedDutch
        case .de: sharedGerman
        case .fr: sharedFrench
        case .es: sharedSpanish
        }
    }

    /// One lexicon shared by reference: a parse copies one pointer, not forty sets.
    final class Shared: Sendable {
        let lexicon: Lexicon
        let numbers: NumberReader
        /// The words an amount can start with: currencies said first, number words, articles,
        /// halves, slang, approximate counts. Any other word is passed over in one lookup.
        let amountStarts: Set<String>

        init(_ lexicon: Lexicon, english: Bool = false) {
            self.lexicon = lexicon
            numbers = NumberReader(lexicon: lexicon.numbers)
            var starts = Set<String>()
            // Single-token symbols and names; a phrase's first word ("a" of "A$") is a start only
            // where the whole phrase stands (`Reading.mayStartAmount`).
            for table in [CurrencyTable.symbolKeys, CurrencyTable.nameKeys] {
                for key in table.keys where !key.contains(" ") { starts.insert(key) }
            }
            starts.formUnion(lexicon.numbers.words.keys)
            starts.formUnion(lexicon.numbers.hundred)
            starts.formUnion(lexicon.numbers.scales.keys.filter { $0.utf8.count > 2 })
            starts.formUnion(lexicon.articles)
            starts.formUnion(lexicon.half)
            starts.formUnion(lexicon.oneAndAHalf)
            starts.formUnion(lexicon.approximateCounts.keys)
            starts.formUnion(lexicon.slangAmounts.keys)
            starts.formUnion(lexicon.slangScales.keys)
            starts.formUnion(lexicon.coins.keys)
            if english { starts.formUnion(["one", "minus", "negative"]) }
            amountStarts = starts
        }
    }

    static let sharedEnglish = Shared(english, english: true)
    static let sharedDutch = Shared(dutch)
    static let sharedGerman = Shared(german)
    static let sharedFrench = Shared(french)
    static let sharedSpanish = Shared(spanish)

    static func words(_ text: String) -> Set<String> { Set(text.split(separator: " ").map(String.init)) }
    static func phrases(_ text: String) -> [[String]] {
        text.split(separator: ",").map { $0.split(separator: " ").map(String.init) }.sorted { $0.count > $1.count }
    }

    static let english = Lexicon(
        sendVerbs: words("send pay transfer give wire tip remit"),
        requestVerbs: words("request ask charge bill invoice collect"),
        balanceWords: words("balance balances"),
        balanceQuestions: [["how", "much", "have"], ["how", "much", "got"]],
        payeeMarkers: ["to"], payerMarkers: ["from"], noteMarkers: ["for"],
        appMarkers: ["with", "using", "via"], appMarkersAlways: ["using"],
        and: ["and"],
        nameStops: words("""
            for to from with using via and please now today tomorrow tonight asap back me money cash some the a an it them \
            this that right away as on in at by because so but or i you my your our is was about around roughly approximately \
            between under over exactly precisely
            """),
        fillers: words("""
            please can could would will you i i'd i'm want wanna need like to hey siri ok okay just some money cash the a an me \
            kindly go ahead now quickly right away let's lets let us do what what's whats is my how much have show tell check in \
            account accounts there back funds payment of thanks thank today tomorrow tonight asap also again for from with using \
            via and on it over exactly precisely
            """),
        possessives: ["my"],
        approximations: phrases("about,around,roughly,approximately,approx,circa,ca,nearly,almost,close to,some,like,more or less,~"),
        approximationsAfter: phrases("or so,give or take,ish,or thereabouts"),
        atMost: phrases("under,less than,lower than,below,at most,up to,no more than,not more than,maximum of,a maximum of"),
        atLeast: phrases("over,more than,above,at least,no less than,not less than,a minimum of"),
        rangeStarts: phrases("between,from"),
        rangeJoiners: ["and", "to", "-", "\u{2013}"],
        half: ["half"], oneAndAHalf: [],
        articles: ["a", "an"],
        slangAmounts: ["tenner": 10, "tenners": 10, "fiver": 5, "fivers": 5],
        slangScales: ["grand": 1_000],
        coins: ["penny": 1, "pennies": 1, "nickel": 5, "nickels": 5, "dime": 10, "dimes": 10, "quarter": 25, "quarters": 25],
        numbers: .english,
        decimalPoints: ["point"])

    static let dutch = Lexicon(
        sendVerbs: words("stuur stuurt sturen verstuur versturen betaal betaalt betalen maak overmaken boek overboeken geef geven schenk overboeking"),
        requestVerbs: words("vraag vraagt vragen verzoek factureer"),
        balanceWords: words("saldo saldi tegoed"),
        balanceQuestions: [["hoeveel", "heb"], ["hoeveel", "staat"]],
        payeeMarkers: ["aan", "naar"], payerMarkers: ["van", "aan"], noteMarkers: ["voor"], amountMarkers: ["om"],
        appMarkers: ["met", "via"], appMarkersAlways: [],
        and: ["en"],
        nameStops: words("""
            voor aan naar van met via en alsjeblieft alstublieft graag nu vandaag morgen de het een mij me mijn geld terug over \
            om op in is dat dit die als ongeveer rond tussen zo'n even ik je jij u
            """),
        fillers: words("""
            kun kan kunt je jij u wil wilt ik zou graag alsjeblieft alstublieft even he hey hoi siri ok oke nu mijn me mij de het een \
            geld over terug op wat is hoeveel heb toon laat zien ik's dan ook nog eens aan naar van voor met via en om bedankt \
            dank vandaag morgen er staat rekening precies exact
            """),
        possessives: ["mijn"],
        approximations: phrases("ongeveer,circa,ca,zo'n,rond,rond de,rondom,pakweg,bijna,zowat,omstreeks,~"),
        approximationsAfter: phrases("of zo,ofzo"),
        atMost: phrases("minder dan,lager dan,onder,onder de,hooguit,hoogstens,maximaal,tot,tot maximaal,niet meer dan"),
        atLeast: phrases("meer dan,boven,boven de,minstens,ten minste,tenminste,minimaal,ruim,niet minder dan"),
        rangeStarts: phrases("tussen,van,vanaf"),
        rangeJoiners: ["en", "tot", "-", "\u{2013}"],
        half: ["half", "halve"], oneAndAHalf: ["anderhalf", "anderhalve"],
        articles: ["een"],
        slangAmounts: ["tientje": 10, "tientjes": 10, "vijfje": 5, "vijfjes": 5],
        slangScales: [:],
        coins: [:],
        numbers: .dutch,
        approximateCounts: ["tiental": 10, "tientallen": 10, "twintigtal": 20, "dertigtal": 30, "veertigtal": 40, "vijftigtal": 50, "honderdtal": 100],
        particles: ["over", "terug"],
        decimalPoints: ["komma"])

    static let german = Lexicon(
        sendVerbs: words("""
            uberweise uberweis uberweisen ueberweise sende senden schicke schick schicken zahle zahl zahlen bezahle bezahl \
            bezahlen gib gebe geben uberweisung
            """),
        requestVerbs: words("fordere fordern anfordern verlange verlangen frag frage fragen stelle"),
        conditionalRequestVerbs: ["bitte": "um"],
        balanceWords: words("kontostand guthaben saldo kontostande"),
        balanceQuestions: [["wie", "viel", "habe"], ["wieviel", "habe"], ["wie", "viel", "hab"]],
        payeeMarkers: ["an"], payerMarkers: ["von"], noteMarkers: ["fur", "furs"], amountMarkers: ["um", "nach"],
        appMarkers: ["mit", "uber", "per"], appMarkersAlways: [],
        and: ["und"],
        nameStops: words("""
            fur furs an von mit uber per und bitte jetzt heute morgen der die das den dem des ein eine einen einem mir mich mein \
            meine meinem meiner geld zuruck um nach zu ist etwa ungefahr rund zwischen ich du sie er als
            """),
        fillers: words("""
            kannst konntest kann konnen du sie ich mochte will wurde bitte mal eben hey hallo siri ok okay jetzt mein meine meinem \
            meiner mir mich der die das den dem ein eine einen einem geld zuruck wie viel wieviel habe hab ist was zeig zeige \
            zeigen sag sage auf meinem konto an von fur mit und um nach danke heute morgen noch auch doch schon genau exakt \
            zu bis in rechnung hoch
            """),
        possessives: ["mein", "meine", "meinem", "meiner", "meinen"],
        approximations: phrases("etwa,ungefahr,ungefaehr,circa,zirka,ca,rund,so um die,um die,so,fast,knapp,beinahe,gut,~"),
        approximationsAfter: phrases("oder so,in etwa"),
        atMost: phrases("weniger als,unter,hochstens,maximal,bis zu,nicht mehr als"),
        atLeast: phrases("mehr als,uber,mindestens,wenigstens,minimal,nicht weniger als"),
        rangeStarts: phrases("zwischen,von"),
        rangeJoiners: ["und", "bis", "-", "\u{2013}"],
        half: ["halb", "halbe", "halben"], oneAndAHalf: ["anderthalb", "eineinhalb"],
        articles: ["ein", "eine", "einen", "einem"],
        slangAmounts: ["zehner": 10, "zehnern": 10, "funfer": 5, "funfern": 5, "zwanziger": 20, "zwanzigern": 20, "funfziger": 50, "hunderter": 100, "zwanni": 20, "zwannis": 20, "fuffi": 50, "fuffis": 50],
        slangScales: ["mille": 1_000, "riese": 1_000],
        coins: [:],
        numbers: .german,
        particles: ["an", "zuruck"],
        decimalPoints: ["komma"])

    static let french = Lexicon(
        sendVerbs: words("""
            envoie envoyer envoyez envoies paie paye payer payez verse verser versez vire virer virez donne donner donnez \
            transfere transferer transferez rembourse rembourser virement
            """),
        requestVerbs: words("demande demander demandez reclame reclamer reclamez facture facturer"),
        balanceWords: words("solde soldes"),
        balanceQuestions: [["combien", "j'ai"], ["combien", "ai-je"], ["combien", "ai"], ["combien", "reste"]],
        payeeMarkers: ["a"], payerMarkers: ["a", "de"], noteMarkers: ["pour"],
        appMarkers: ["avec", "via"], appMarkersAlways: [],
        and: ["et"],
        nameStops: words("""
            pour a de d avec via et s'il te vous plait maintenant aujourd'hui demain le la les l un une du des moi mon ma mes \
            argent en sur est environ entre que qui je tu
            """),
        fillers: words("""
            peux-tu pourrais-tu pouvez-vous peux peut pouvez tu vous je veux voudrais voudrait aimerais s'il te plait plait stp svp hey salut siri ok d'accord \
            maintenant mon ma mes moi me m le la les l un une de d du des argent en est quel quelle combien j'ai ai ai-je sur \
            compte montre montrer dis affiche merci aujourd'hui demain aussi encore a pour avec via et exactement pile il me reste fais faire fait effectue
            """),
        possessives: ["mon", "ma"],
        approximations: phrases("environ,a peu pres,approximativement,presque,autour de,aux alentours de,vers,quasi,quasiment,dans les,pres de,~"),
        approximationsAfter: phrases("a peu pres,environ"),
        atMost: phrases("moins de,moins que,en-dessous de,en dessous de,au plus,au maximum,jusqu'a,pas plus de,maximum"),
        atLeast: phrases("plus de,plus que,au moins,au minimum,pas moins de,minimum"),
        rangeStarts: phrases("entre,de"),
        rangeJoiners: ["et", "a", "-", "\u{2013}"],
        half: ["demi", "demie"], oneAndAHalf: [],
        articles: ["un", "une"],
        slangAmounts: [:],
        slangUnits: ["balle", "balles"],
        slangScales: [:],
        coins: [:],
        numbers: .french,
        elisions: ["d'", "l'", "j'", "qu'", "m'", "t'", "s'"],
        of: ["de", "d'"],
        approximateCounts: ["dizaine": 10, "douzaine": 12, "quinzaine": 15, "vingtaine": 20, "trentaine": 30, "quarantaine": 40,
                            "cinquantaine": 50, "soixantaine": 60, "centaine": 100],
        decimalPoints: ["virgule"],
        politePhrases: [["s'", "il"]])

    static let spanish = Lexicon(
        sendVerbs: words("""
            envia envie enviar enviale envie mande manda mandar mandale paga pague pagar pagale transfiere transferir \
            transfierele da dale dar deposita haz hazle transferencia gira girale
            """),
        requestVerbs: words("pide pidele pedir solicita solicitale solicitar cobra cobrale cobrar reclama reclamale"),
        balanceWords: words("saldo saldos"),
        balanceQuestions: [["cuanto", "tengo"], ["cuanto", "dinero", "tengo"], ["cuanto", "me", "queda"]],
        payeeMarkers: ["a"], payerMarkers: ["a", "de"], noteMarkers: ["para", "por"],
        appMarkers: ["con", "mediante", "via"], appMarkersAlways: [],
        and: ["y"],
        nameStops: words("""
            para por a de con mediante via y por favor ahora hoy manana el la los las lo un una unos unas mi mis me dinero \
            en es cerca alrededor entre que yo tu
            """),
        fillers: words("""
            puedes puede podrias quiero quisiera me gustaria tu usted yo por favor oye hola siri ok vale ahora mi mis me el la \
            los las lo un una dinero de del en es cual cuanto tengo queda muestra muestrame dime cuenta gracias hoy manana \
            tambien otra vez a para con y exactamente justo hazme le una
            """),
        possessives: ["mi"],
        approximations: phrases("unos,unas,alrededor de,aproximadamente,mas o menos,casi,cerca de,como,sobre,aprox,~"),
        approximationsAfter: phrases("mas o menos,aproximadamente"),
        atMost: phrases("menos de,no mas de,como maximo,como mucho,hasta,maximo,a lo sumo"),
        atLeast: phrases("mas de,no menos de,al menos,como minimo,por lo menos,minimo"),
        rangeStarts: phrases("entre,de"),
        rangeJoiners: ["y", "a", "-", "\u{2013}"],
        half: ["medio", "media"], oneAndAHalf: [],
        articles: ["un", "una", "uno"],
        slangAmounts: [:],
        slangUnits: ["pavo", "pavos"],
        slangScales: [:],
        coins: [:],
        numbers: .spanish,
        of: ["de"],
        approximateCounts: ["decena": 10, "veintena": 20, "treintena": 30, "cuarentena": 40, "cincuentena": 50, "centenar": 100],
        decimalPoints: ["coma", "punto"],
        minorJoiners: ["con"],
        politePhrases: [["por", "favor"]])
}
