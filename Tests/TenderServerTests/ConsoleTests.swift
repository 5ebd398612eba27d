import Foundation
import Gateway
import GatewayCore
import Hummingbird
import HummingbirdTesting
import Store
import TenderTesting
import Testing
@testable import TenderServer

@Suite("The console's sessions, charts and dates")
struct ConsolePartsTests {
    let key = Array(repeating: UInt8(7), count: 32)

    @Test func sessionsAreSignedExpireAndBindTheirCSRFToken() {
        let session = ConsoleSession(role: .merchant("acct_1"), expires: 1_000, id: "abc")
        let token = session.token(key: key)
        #expect(ConsoleSession.read(token, key: key, now: 999) == session)
        #expect(ConsoleSession.read(token, key: key, now: 1_000) == nil, "expired")
        #expect(ConsoleSession.read(token, key: Array(repeating: 8, count: 32), now: 0) == nil, "another server's key")
        // Another role with the same MAC, a MAC changed, garbage.
        let forged = PaylikeRoutes.base64url(Array("v1|operator|1000|abc".utf8)) + "." + token.split(separator: ".")[1]
        #expect(ConsoleSession.read(forged, key: key, now: 0) == nil)
        #expect(ConsoleSession.read(String(token.dropLast()) + (token.last == "A" ? "B" : "A"), key: key, now: 0) == nil)
        for junk in ["", ".", "a.b.c", "%%%.x", String(repeating: "a", count: 600)] { #expect(ConsoleSession.read(junk, key: key, now: 0) == nil) }
        let admin = ConsoleSession(role: .admin, expires: 5, id: "x")
        #expect(ConsoleSession.read(admin.token(key: key), key: key, now: 0)?.role == .admin)
        #expect(session.acceptsCSRF(session.csrfToken(key: key), key: key))
        #expect(!session.acceptsCSRF(admin.csrfToken(key: key), key: key), "another session's token")
        #expect(!session.acceptsCSRF(nil, key: key) && !session.acceptsCSRF("", key: key))
        let signOuts = ConsoleSignOuts()
        signOuts.revoke(session, now: 0)
        #expect(signOuts.isRevoked(session) && !signOuts.isRevoked(admin))
    }

    @Test func everyTextHasItsDutchAndGermanWithTheSamePlaceholders() {
        #expect(Set(ConsoleText.dutch.keys) == Set(ConsoleText.german.keys))
        func placeholders(_ text: String) -> [String] {
            let braces = try! Regex(#"\{\{?[a-zA-Z]+\}\}?"#)
            return text.matches(of: braces).map { String(text[$0.range]) }.sorted()
        }
        for (english, dutch) in ConsoleText.dutch {
            #expect(placeholders(english) == placeholders(dutch), "\(english)")
            #expect(placeholders(english) == placeholders(ConsoleText.german[english] ?? ""), "\(english)")
        }
        let dutch = ConsoleText(locale: .nl)
        #expect(dutch("A refund of {amount} was made.", ["amount": "5,00"]) == "Er is 5,00 terugbetaald.")
        #expect(ConsoleText(locale: .en)("A refund of {amount} was made.", ["amount": "5.00"]) == "A refund of 5.00 was made.")
        #expect(dutch("A text nobody translated") == "A text nobody translated")
        #expect(ConsoleText.locale(query: "DE", cookie: "nl", acceptLanguage: "en") == .de)
        #expect(ConsoleText.locale(query: "xx", cookie: "nl", acceptLanguage: "de") == .nl)
        #expect(ConsoleText.locale(query: nil, cookie: nil, acceptLanguage: "fr, de;q=0.8, nl;q=0.9") == .nl)
    }

    @Test func chartsAreDrawnToScaleAndEscapeTheirTexts() {
        let chart = BarChart(title: "A <b>title</b>", bars: [
            .init(label: "1/1", value: 0, text: "none"), .init(label: "2/1", value: 50, text: "half"), .init(label: "<3/1>", value: 100, text: "all & more"),
        ], width: 300, height: 200)
        let svg = chart.svg()
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>"))
        #expect(!svg.contains("<b>") && svg.contains("A &lt;b&gt;title&lt;/b&gt;") && svg.contains("&lt;3/1&gt;") && svg.contains("all &amp; more"))
        // The plot is 200 - 22 - 16 = 162 high: the largest bar fills it, half of it half.
        #expect(svg.contains(#"height="162""#) && svg.contains(#"height="81""#) && svg.contains(#"height="0""#))
        #expect(BarChart(title: "empty", bars: []).svg().contains("empty"))
    }

    @Test func datesReadAndWrittenInUTC() {
        #expect(ConsoleRoutes.day("1970-01-01") == 0)
        #expect(ConsoleRoutes.day("2026-11-27") == 1_795_737_600)
        #expect(ConsoleRoutes.day("2024-02-29") != nil && ConsoleRoutes.day("2026-02-29") == nil && ConsoleRoutes.day("2026-13-01") == nil)
        for bad in ["", "2026-1-01", "2026/11/27", "x026-11-27", "2026-11-27T00"] { #expect(ConsoleRoutes.day(bad) == nil) }
        #expect(ConsoleRoutes.time(1_795_737_600 + 16 * 3_600 + 40 * 60 + 59) == "2026-11-27 16:40 UTC")
        for seconds in stride(from: Int64(0), to: 4_000_000_000, by: 86_400 * 37) {
            let (year, month, day) = ConsoleRoutes.civil(seconds)
            #expect(ConsoleRoutes.day(String(format: "%04d-%02d-%02d", year, month, day)) == seconds - seconds % 86_400)
        }
    }

    @Test func activityCountsEachDay() {
        func intent(_ created: Int64, amount: Int64, succeeded: Bool) -> PaymentIntentRecord {
            var record = PaymentIntentRecord(
                id: PaymentIntentID("pi_\(created)"), clientSecret: "s", currency: "eur", created: created,
                machine: PaymentIntentStateMachine(amount: amount, captureMethod: .automatic), paymentMethodTypes: [.card])
            if succeeded {
                try! record.machine.attach(paymentMethod: "pm_1", type: .card)
                _ = try! record.machine.confirm(acquirer: .approved)
            } else {
                record.charges = [ChargeAttempt(number: 1, created: created, amount: amount, status: .failed, method: nil)]
            }
            return record
        }
        let now: Int64 = 10 * 86_400 + 3_600
        let activity = PaymentActivity.of([
            intent(now - 60, amount: 1_000, succeeded: true), intent(now - 120, amount: 500, succeeded: false),
            intent(now - 86_400, amount: 250, succeeded: true), intent(now - 30 * 86_400, amount: 9_999, succeeded: true),
        ], days: 3, now: now, complete: true)
        let starts: [Int64] = activity.days.map(\.start)
        #expect(starts == [691_200, 777_600, 864_000])
        let (succeeded, failed): ([Int], [Int]) = (activity.days.map(\.succeeded), activity.days.map(\.failed))
        #expect(succeeded == [0, 1, 1] && failed == [0, 0, 1])
        // By the hour: the last 24 hours end with the one holding now; a day ago is outside them.
        #expect(activity.hours.count == 24 && activity.hours.last?.start == 10 * 86_400 + 3_600 && activity.hours.first?.start == 9 * 86_400 + 7_200)
        #expect(activity.hours[22].succeeded == 1 && activity.hours[22].failed == 1 && activity.hours.map(\.succeeded).reduce(0, +) == 1)
        let volume: [String: Int64] = activity.total(\.volume)
        #expect(volume == ["eur": 1_250])
        #expect(activity.successPerMille == 666)
    }
}

@Suite("The console over HTTP")
struct ConsoleRoutesTests {
    let temporary = TemporaryDirectory("console")

    struct Page {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: String
        var location: String? { headers[.location] }
        func hidden(_ name: String) -> String? {
            guard let range = body.range(of: #"name="\#(name)" value=""#) else { return nil }
            return String(body[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    /// A browser's cookies, as far as the console needs them.
    final class Browser: @unchecked Sendable {
        var cookies: [String: String] = [:]

        func go(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, form: [(String, String)]? = nil, accept: String = "text/html") async throws -> Page {
            var headers = HTTPFields()
            headers[.accept] = accept
            if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
            var body = ByteBuffer()
            if let form {
                headers[.contentType] = "application/x-www-form-urlencoded"
                body = ByteBuffer(string: form.map { "\($0.0)=\(ConsoleRoutes.queryEscaped($0.1))" }.joined(separator: "&"))
            }
            let page = try await client.execute(uri: uri, method: method, headers: headers, body: body) { response in
                Page(status: response.status, headers: response.headers, body: String(buffer: response.body))
            }
            for header in page.headers[values: .setCookie] {
                let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
                cookies[String(pair[0])] = pair.count > 1 ? String(pair[1]) : ""
                if header.contains("Max-Age=0") { cookies[String(pair[0])] = nil }
            }
            return page
        }

        func signIn(_ client: some TestClientProtocol, key: String) async throws -> Page {
            let form = try await go(client, .get, "/console/sign-in")
            return try await go(client, .post, "/console/sign-in", form: [("signin", form.hidden("signin") ?? ""), ("key", key)])
        }
    }

    @Test func signInSessionsAndWhatEachSees() async throws {
        let directory = temporary.file("data")
        let app = try await buildApplication(TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero))
        try await app.test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let a = try await GatewayRoutesTests.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=Shop+%3Cb%3EA%3C/b%3E").json
            let b = try await GatewayRoutesTests.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=Shop+B").json
            let (secretA, publishableA, secretB) = (a["secret_key"] as! String, a["publishable_key"] as! String, b["secret_key"] as! String)
            let paid = try await GatewayRoutesTests.call(client, .post, "/v1/payment_intents", key: secretA,
                body: "amount=2000&currency=eur&payment_method=pm_card_visa&confirm=true&description=%3Cscript%3Ealert(1)%3C/script%3E").json
            let declined = try await GatewayRoutesTests.call(client, .post, "/v1/payment_intents", key: secretA,
                body: "amount=990&currency=eur&payment_method=pm_card_chargeDeclined&confirm=true").json
            let paidID = paid["id"] as! String
            #expect(paid["status"] as? String == "succeeded" && (declined["error"] as? [String: Any])?["code"] as? String == "card_declined")

            // A browser at the root is led to the console, which asks it to sign in; JSON clients get Horizon's root.
            let browser = Browser()
            #expect(try await browser.go(client, .get, "/").location == "/console")
            #expect(try await browser.go(client, .get, "/", accept: "application/json").body.contains("network_passphrase"))
            #expect(try await browser.go(client, .get, "/console").location == "/console/sign-in")
            #expect(try await browser.go(client, .get, "/console/payments/\(paidID)").location == "/console/sign-in")

            // Sign-in: the form's token needs its cookie; a wrong or publishable key is refused and never repeated.
            let form = try await browser.go(client, .get, "/console/sign-in")
            #expect(form.status == .ok && browser.cookies[ConsoleSession.signInCookieName] != nil)
            #expect(form.headers[HTTPFields.headerName("Content-Security-Policy")]?.contains("default-src 'none'") == true && !form.body.contains("<script"))
            let stranger = Browser()
            #expect(try await stranger.go(client, .post, "/console/sign-in", form: [("signin", form.hidden("signin")!), ("key", secretA)]).status == .forbidden)
            for wrong in [secretA + "x", publishableA, "", "sk_test_nobody"] {
                let refused = try await browser.go(client, .post, "/console/sign-in", form: [("signin", form.hidden("signin")!), ("key", wrong)])
                #expect(refused.status == .unauthorized && browser.cookies[ConsoleSession.cookieName] == nil)
                #expect(wrong.isEmpty || !refused.body.contains(wrong))
            }
            let signedIn = try await browser.signIn(client, key: secretA)
            #expect(signedIn.status == .seeOther && signedIn.location == "/console")
            let cookie = signedIn.headers[values: .setCookie].first { $0.hasPrefix(ConsoleSession.cookieName + "=") } ?? ""
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Max-Age=28800"))

            // Home: the merchant's name escaped, its balance (20.00 less 1.5% and 0.25), one succeeded and one failed.
            let home = try await browser.go(client, .get, "/console")
            #expect(home.status == .ok && home.body.contains("Shop &lt;b&gt;A&lt;/b&gt;") && !home.body.contains("<b>A</b>"))
            #expect(home.body.contains("€19.45") && home.body.contains("50.0%") && home.body.contains("<svg class=\"chart\""))
            #expect(!home.body.contains("<script>alert(1)") && home.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))

            // In Dutch or German: asked for by the browser, or chosen and remembered.
            let dutch = try await browser.go(client, .get, "/console?locale=nl")
            #expect(dutch.body.contains(#"<html lang="nl">"#) && dutch.body.contains("Recente betalingen") && dutch.body.contains("Afmelden"))
            #expect(dutch.body.contains("Shop &lt;b&gt;A&lt;/b&gt;") && browser.cookies[ConsoleText.cookieName] == "nl" && dutch.body.contains("€ 19,45"))
            #expect(try await browser.go(client, .get, "/console/payments").body.contains("Betalingen filteren"))
            let inGerman = try await browser.go(client, .get, "/console/payments/\(paidID)?locale=de")
            #expect(inGerman.body.contains("Zahlungsmethode") && inGerman.body.contains("Belastung 1 erfolgreich") && inGerman.body.contains("Ereignis charge.succeeded"))
            _ = try await browser.go(client, .get, "/console?locale=en")
            #expect(try await Browser().go(client, .get, "/console/sign-in").body.contains("Sign in"))
            var german = HTTPFields()
            german[.acceptLanguage] = "de-DE,de;q=0.9,en;q=0.5"
            try await client.execute(uri: "/console/sign-in", method: .get, headers: german) { response in
                #expect(String(buffer: response.body).contains("Anmelden") && String(buffer: response.body).contains(#"lang="de""#))
            }

            // Payments: listed, filtered, searched.
            let all = try await browser.go(client, .get, "/console/payments")
            #expect(all.body.contains(paidID) && all.body.contains(declined["error"].flatMap { ($0 as? [String: Any])?["payment_intent"] as? [String: Any] }?["id"] as? String ?? "missing"))
            let succeeded = try await browser.go(client, .get, "/console/payments?status=succeeded")
            #expect(succeeded.body.contains(paidID) && succeeded.body.components(separatedBy: "/console/payments/pi_").count == 2)
            #expect(try await browser.go(client, .get, "/console/payments?min=20.01").body.contains("No payments."))
            #expect(try await browser.go(client, .get, "/console/payments?min=20&max=20").body.contains(paidID))
            #expect(try await browser.go(client, .get, "/console/payments?q=\(paidID)").location == "/console/payments/\(paidID)")
            #expect(try await browser.go(client, .get, "/console/payments?min=abc").status == .badRequest)
            #expect(try await browser.go(client, .get, "/console/payments?status=nope").status == .badRequest)

            // The payment's page: card, fee, the ledger transaction, the timeline.
            let page = try await browser.go(client, .get, "/console/payments/\(paidID)")
            #expect(page.status == .ok && page.body.contains("Visa •••• 4242") && page.body.contains("€0.55") && page.body.contains("/console/explorer/transactions/"))
            #expect(page.body.contains("Charge 1 succeeded") && !page.body.contains("4242424242424242"))
            // The events it sent, found through the store's index, with what became of them.
            #expect(page.body.contains("Event payment_intent.created") && page.body.contains("Event payment_intent.succeeded")
                && page.body.contains("Event charge.succeeded") && page.body.contains("no endpoint asked for it"))

            // Another merchant sees none of it, and cannot act on it.
            let other = Browser()
            #expect(try await other.signIn(client, key: secretB).location == "/console")
            #expect(try await other.go(client, .get, "/console/payments/\(paidID)").status == .notFound)
            #expect(!(try await other.go(client, .get, "/console/payments").body.contains(paidID)))
            #expect(try await other.go(client, .get, "/console/payments?merchant=\(a["id"] as! String)").body.contains(paidID) == false)
            let otherHome = try await other.go(client, .get, "/console")
            let othersRefund = try await other.go(client, .post, "/console/payments/\(paidID)/refund",
                form: [("csrf", otherHome.hidden("csrf")!), ("idempotency", "x1"), ("amount", "1.00")])
            #expect(othersRefund.status == .notFound)

            // A refund: refused without the session's token, done once when the form is sent twice.
            let refund = [("idempotency", page.hidden("idempotency")!), ("amount", "5.00"), ("reason", "requested_by_customer")]
            #expect(try await browser.go(client, .post, "/console/payments/\(paidID)/refund", form: refund).status == .forbidden)
            #expect(try await browser.go(client, .post, "/console/payments/\(paidID)/refund", form: [("csrf", otherHome.hidden("csrf")!)] + refund).status == .forbidden)
            let first = try await browser.go(client, .post, "/console/payments/\(paidID)/refund", form: [("csrf", page.hidden("csrf")!)] + refund)
            let second = try await browser.go(client, .post, "/console/payments/\(paidID)/refund", form: [("csrf", page.hidden("csrf")!)] + refund)
            #expect(first.status == .seeOther && first.location == "/console/payments/\(paidID)?notice=refunded-500")
            #expect(second.location == "/console/payments/\(paidID)?notice=repeated")
            let refunded = try await GatewayRoutesTests.call(client, .get, "/v1/payment_intents/\(paidID)?expand[]=latest_charge", key: secretA).json
            #expect((refunded["latest_charge"] as? [String: Any])?["amount_refunded"] as? Int == 500)
            let after = try await browser.go(client, .get, first.location!)
            #expect(after.body.contains("A refund of €5.00 was made.") && after.body.contains("Refunded"))
            // In Dutch and German the amount is written as they write money.
            #expect(try await browser.go(client, .get, first.location! + "&locale=nl").body.contains("Er is € 5,00 terugbetaald."))
            #expect(try await browser.go(client, .get, first.location! + "&locale=de").body.contains("5,00 €"))
            _ = try await browser.go(client, .get, "/console?locale=en")
            // Too much is the core's refusal, shown on the page; nothing moves.
            let tooMuch = try await browser.go(client, .post, "/console/payments/\(paidID)/refund",
                form: [("csrf", page.hidden("csrf")!), ("idempotency", "another"), ("amount", "100.00")])
            #expect(tooMuch.status == .badRequest && tooMuch.body.contains("notice error"))

            // The operator sees every merchant and opens one.
            let operatorBrowser = Browser()
            #expect(try await operatorBrowser.signIn(client, key: admin).location == "/console")
            let merchants = try await operatorBrowser.go(client, .get, "/console")
            #expect(merchants.body.contains("Shop B") && merchants.body.contains("Shop &lt;b&gt;A&lt;/b&gt;"))
            #expect(try await operatorBrowser.go(client, .get, "/console/payments/\(paidID)?merchant=\(a["id"] as! String)").status == .ok)
            #expect(try await operatorBrowser.go(client, .get, "/console/payments/\(paidID)?merchant=\(b["id"] as! String)").status == .notFound)
            #expect(try await operatorBrowser.go(client, .get, "/console?merchant=acct_nobody").status == .notFound)

            // Sign-out needs the token, and the session's cookie is refused afterwards.
            let kept = browser.cookies
            #expect(try await browser.go(client, .post, "/console/sign-out", form: [("csrf", "wrong")]).status == .forbidden)
            #expect(try await browser.go(client, .post, "/console/sign-out", form: [("csrf", page.hidden("csrf")!)]).location == "/console/sign-in")
            browser.cookies = kept
            #expect(try await browser.go(client, .get, "/console").location == "/console/sign-in")
            #expect(try await browser.go(client, .get, "/assets/tender.css").body.contains("prefers-color-scheme: dark"))

            // The explorer: the payment's settlement, found from its page, its account and its ledger.
            let payerBrowser = Browser()
            _ = try await payerBrowser.signIn(client, key: secretA)
            let settled = try await payerBrowser.go(client, .get, "/console/payments/\(paidID)")
            let hashStart = settled.body.range(of: "/console/explorer/transactions/")!.upperBound
            let hash = String(settled.body[hashStart...].prefix(64))
            let transaction = try await payerBrowser.go(client, .get, "/console/explorer?q=\(hash)")
            #expect(transaction.location == "/console/explorer/transactions/\(hash)")
            let shown = try await payerBrowser.go(client, .get, transaction.location!)
            #expect(shown.status == .ok && shown.body.contains("tx_success") && shown.body.contains("payment") && shown.body.contains("op_success"))
            let account = a["settlement_account"] as! String
            #expect(try await payerBrowser.go(client, .get, "/console/explorer?q=\(account)").location == "/console/explorer/accounts/\(account)")
            let accountPage = try await payerBrowser.go(client, .get, "/console/explorer/accounts/\(account)")
            #expect(accountPage.status == .ok && accountPage.body.contains("EUR") && accountPage.body.contains("14.4500000") && accountPage.body.contains("Latest payments"))
            // The settlement account's EUR leads to the asset's page: its supply is what /assets counts, its holders include the account.
            let eurStart = accountPage.body.range(of: "/console/explorer/assets/EUR:")!.lowerBound
            let eurPath = String(accountPage.body[eurStart...].prefix(while: { $0 != "\"" }))
            let eurIssuer = String(eurPath.split(separator: ":").last!)
            let assetPage = try await payerBrowser.go(client, .get, eurPath)
            let stats = try await client.execute(uri: "/assets?asset_code=EUR&asset_issuer=\(eurIssuer)", method: .get) { response in
                let records = (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as! [String: Any])["_embedded"] as! [String: Any]
                return (records["records"] as! [[String: Any]]).first!
            }
            let supply = (stats["balances"] as! [String: String])["authorized"]!
            #expect(assetPage.status == .ok && assetPage.body.contains("\(supply) EUR") && assetPage.body.contains("/console/explorer/accounts/\(account)")
                    && assetPage.body.contains("Holders") && assetPage.body.contains("authorized"))
            #expect(Decimal(string: supply)! >= Decimal(string: "14.45")!)
            #expect(try await payerBrowser.go(client, .get, "/console/explorer?q=EUR").location == "/console/explorer/assets?code=EUR")
            #expect(try await payerBrowser.go(client, .get, "/console/explorer?q=EUR:\(eurIssuer)").location == eurPath)
            let assetList = try await payerBrowser.go(client, .get, "/console/explorer/assets?code=EUR")
            #expect(assetList.status == .ok && assetList.body.contains(eurPath))
            #expect(try await payerBrowser.go(client, .get, "/console/explorer").body.contains(eurPath))
            #expect(try await payerBrowser.go(client, .get, "/console/explorer/assets/EUR:GNOTANISSUER").status == .notFound)
            #expect(try await payerBrowser.go(client, .get, "/console/explorer?q=2").location == "/console/explorer/ledgers/2")
            #expect(try await payerBrowser.go(client, .get, "/console/explorer/ledgers/2").body.contains("closed_at"))
            #expect(try await payerBrowser.go(client, .get, "/console/explorer").body.contains("Latest ledgers"))
            #expect(try await payerBrowser.go(client, .get, "/console/explorer?q=nothing-here").status == .notFound)
            #expect(try await payerBrowser.go(client, .get, "/console/explorer/ledgers/99999").status == .notFound)
            #expect(try await payerBrowser.go(client, .get, "/console/explorer/transactions/\(String(repeating: "0", count: 64))").status == .notFound)
        }
    }

    /// A capture whose last write the store fails after the ledger settled it: the page says
    /// it was not finished (500), and the same form sent again says it was done once, with the
    /// money moved once (it said the payment could not be captured before). A refused refund
    /// sent twice is refused twice with the same words, and nothing moves.
    @Test func aFormSentAgainAfterAFailedLastWriteSaysItWasDoneOnce() async throws {
        let directory = temporary.file("failed-write")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let configuration = TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero)
        let store = try CountingGatewayStore(path: directory + "/gateway.sqlite")
        let app = try await buildApplication(
            configuration, store: try SQLiteLedgerStore(path: configuration.databasePath), gatewayStore: store, environment: ManualTime.forServer().environment)
        try await app.test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let key = try #require(try await GatewayRoutesTests.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=A").json["secret_key"] as? String)
            let held = try await GatewayRoutesTests.call(client, .post, "/v1/payment_intents", key: key,
                body: "amount=2000&currency=eur&payment_method=pm_card_visa&confirm=true&capture_method=manual").json
            #expect(held["status"] as? String == "requires_capture")
            let id = try #require(held["id"] as? String)
            let browser = Browser()
            #expect(try await browser.signIn(client, key: key).location == "/console")
            let page = try await browser.go(client, .get, "/console/payments/\(id)")
            let capture = [("csrf", try #require(page.hidden("csrf"))), ("idempotency", try #require(page.hidden("idempotency")))]

            store.beforeNextWrite(where: CountingGatewayStore.settledIntent) { throw CountingGatewayStore.InjectedFailure() }
            let failed = try await browser.go(client, .post, "/console/payments/\(id)/capture", form: capture)
            #expect(failed.status == .internalServerError && failed.body.contains("Send the form again"), "\(failed.status)")
            #expect(try await GatewayRoutesTests.euroBalance(client, key) == 2_000 - 55, "settled on the ledger all the same")
            let again = try await browser.go(client, .post, "/console/payments/\(id)/capture", form: capture)
            #expect(again.status == .seeOther && again.location == "/console/payments/\(id)?notice=repeated", "\(again.status) \(again.body.prefix(300))")
            #expect(try await GatewayRoutesTests.euroBalance(client, key) == 2_000 - 55, "captured once")
            let captured = try await GatewayRoutesTests.call(client, .get, "/v1/payment_intents/\(id)", key: key).json
            #expect(captured["status"] as? String == "succeeded" && captured["amount_received"] as? Int == 2_000)

            let tooMuch = [("csrf", capture[0].1), ("idempotency", "too-much"), ("amount", "100.00")]
            let refused = try await browser.go(client, .post, "/console/payments/\(id)/refund", form: tooMuch)
            let refusedAgain = try await browser.go(client, .post, "/console/payments/\(id)/refund", form: tooMuch)
            #expect(refused.status == .badRequest && refusedAgain.status == .badRequest && refusedAgain.body.contains("notice error"))
            let words = { (page: Page) in page.body.range(of: "notice error").map { String(page.body[$0.upperBound...].prefix(200)) } }
            #expect(words(refused) != nil && words(refused) == words(refusedAgain) && !refusedAgain.body.contains("done once"))
            #expect(try await GatewayRoutesTests.euroBalance(client, key) == 2_000 - 55, "nothing refunded")
        }
    }

    @Test func customersBalanceAndWebhooks() async throws {
        let directory = temporary.file("pages")
        let app = try await buildApplication(TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, closeInterval: .zero))
        try await app.test(.router) { client in
            let admin = try String(contentsOfFile: directory + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let secret = try await GatewayRoutesTests.call(client, .post, "/v1/admin/merchants", key: admin, body: "name=Shop").json["secret_key"] as! String
            let customer = try await GatewayRoutesTests.call(client, .post, "/v1/customers", key: secret, body: "email=jane%40example.com&name=Jane+%3Ci%3EDoe%3C/i%3E").json["id"] as! String
            _ = try await GatewayRoutesTests.call(client, .post, "/v1/customers", key: secret, body: "email=bob%40example.com&name=Bob")
            let saved = try await GatewayRoutesTests.call(client, .post, "/v1/payment_intents", key: secret,
                body: "amount=1000&currency=eur&payment_method=pm_card_visa&confirm=true&customer=\(customer)&setup_future_usage=off_session").json
            #expect(saved["status"] as? String == "succeeded")
            _ = try await GatewayRoutesTests.call(client, .post, "/v1/refunds", key: secret, body: "payment_intent=\(saved["id"] as! String)&amount=300")
            let endpoint = try await GatewayRoutesTests.call(client, .post, "/v1/webhook_endpoints", key: secret,
                body: "url=http%3A%2F%2F127.0.0.1%3A9%2Fhooks&enabled_events[]=charge.refunded").json["id"] as! String
            _ = try await GatewayRoutesTests.call(client, .post, "/v1/refunds", key: secret, body: "payment_intent=\(saved["id"] as! String)&amount=100")

            let browser = Browser()
            _ = try await browser.signIn(client, key: secret)
            // Customers: listed, by e-mail, one with its saved card and its payment.
            let customers = try await browser.go(client, .get, "/console/customers")
            #expect(customers.body.contains("Jane &lt;i&gt;Doe&lt;/i&gt;") && customers.body.contains("Bob"))
            let byEmail = try await browser.go(client, .get, "/console/customers?email=bob%40example.com")
            #expect(byEmail.body.contains("Bob") && !byEmail.body.contains("Jane"))
            let jane = try await browser.go(client, .get, "/console/customers/\(customer)")
            #expect(jane.status == .ok && jane.body.contains("Visa •••• 4242") && jane.body.contains("set up for off session") && jane.body.contains(saved["id"] as! String))
            #expect(try await browser.go(client, .get, "/console/customers/cus_nobody").status == .notFound)

            // Balance: 10.00 less its fee (0.40) less the refunds (4.00): 5.60, and the balance transactions that make it.
            let balance = try await browser.go(client, .get, "/console/balance")
            #expect(balance.body.contains("€5.60") && balance.body.contains("−€3.00") && balance.body.contains("−€1.00") && balance.body.contains("€0.40"))
            let refunds = try await browser.go(client, .get, "/console/balance?type=refund")
            #expect(refunds.body.contains("−€3.00") && !refunds.body.contains("€9.60"))

            // Webhooks: the endpoint and its delivery (never tried here: the deliverer does not run in this test).
            let hooks = try await browser.go(client, .get, "/console/webhooks")
            #expect(hooks.body.contains("http://127.0.0.1:9/hooks") && hooks.body.contains("pending"))
            let csrf = hooks.hidden("csrf")!
            let added = try await browser.go(client, .post, "/console/webhooks", form: [("csrf", csrf), ("action", "add"), ("url", "https://example.com/h"), ("events", "payment_intent.succeeded")])
            #expect(added.status == .ok && added.body.contains("added") && added.body.contains("https://example.com/h"))
            let bad = try await browser.go(client, .post, "/console/webhooks", form: [("csrf", csrf), ("action", "add"), ("url", "ftp://x"), ("events", "")])
            #expect(bad.status == .badRequest && bad.body.contains("notice error"))
            #expect(try await browser.go(client, .post, "/console/webhooks", form: [("action", "delete"), ("endpoint", endpoint)]).status == .forbidden)
            // A test event: one delivery to this endpoint, of a made-up paid intent, not among the merchant's events.
            let tested = try await browser.go(client, .post, "/console/webhooks", form: [("csrf", csrf), ("action", "test"), ("endpoint", endpoint)])
            #expect(tested.status == .ok && tested.body.contains("payment_intent.succeeded) is on its way."))
            let testEvent = try #require(tested.body.range(of: "A test event (").map { String(tested.body[$0.upperBound...].prefix { $0 != "," }) })
            #expect(testEvent.hasPrefix("evt_") && tested.body.contains("<code>\(testEvent)</code>"))
            let events = try await GatewayRoutesTests.call(client, .get, "/v1/events?limit=100", key: secret).json["data"] as? [[String: Any]] ?? []
            #expect(!events.isEmpty && !events.contains { $0["id"] as? String == testEvent })
            let disabled = try await browser.go(client, .post, "/console/webhooks", form: [("csrf", csrf), ("action", "disable"), ("endpoint", endpoint)])
            #expect(disabled.body.contains("Endpoint disabled"))
            let read = try await GatewayRoutesTests.call(client, .get, "/v1/webhook_endpoints/\(endpoint)", key: secret).json
            #expect(read["status"] as? String == "disabled")
            let refusedTest = try await browser.go(client, .post, "/console/webhooks", form: [("csrf", csrf), ("action", "test"), ("endpoint", endpoint)])
            #expect(refusedTest.status == .badRequest && refusedTest.body.contains("disabled"))
            let missing = try await browser.go(client, .post, "/console/webhooks", form: [("csrf", csrf), ("action", "resend"), ("endpoint", endpoint), ("delivery", "whd_nobody")])
            #expect(missing.status == .notFound)
            let deleted = try await browser.go(client, .post, "/console/webhooks", form: [("csrf", csrf), ("action", "delete"), ("endpoint", endpoint)])
            #expect(deleted.body.contains("Endpoint deleted") && !deleted.body.contains("http://127.0.0.1:9/hooks"))
        }
    }

    @Test func aResentDeliveryIsDueNowAndKeepsItsAttempts() {
        let failed = WebhookDelivery(id: "whd_1", merchant: "acct_1", event: "evt_1", endpoint: "we_1", attempts: 16, nextAttemptAt: 50, status: .failed, lastStatusCode: 500, lastAttemptAt: 40)
        let again = failed.resent(now: 100)
        #expect(again.status == .pending && again.nextAttemptAt == 100 && again.attempts == 16 && again.lastStatusCode == 500)
        // One more failure gives it up again; a success delivers it.
        let policy = WebhookRetryPolicy()
        #expect(policy.after(again, statusCode: 500, now: 101).status == .failed)
        #expect(policy.after(again, statusCode: 200, now: 101).status == .delivered)
    }
}
