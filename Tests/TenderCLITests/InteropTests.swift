import Foundation
import Gateway
import PaymentEngine
import TenderTesting
import Testing

/// The real Python stellar-sdk (16.1.1, installed into .venv by Scripts/python-env.sh) against
/// a real `tender serve`: every check of Tests/Interop/horizon_interop.py must pass.
@Suite(.serialized, .tags(.slow), TestSpeed.slowSuites)
struct InteropTests {

    /// Runs an interop script with the project's Python environment (made by
    /// Scripts/python-env.sh when missing); it must exit 0 after saying its checks passed.
    static func runPython(_ script: String, _ arguments: [String]) async throws {
        let (status, text) = try await PythonScripts.run(script, arguments)
        #expect(status == 0, "\(text)")
        #expect(text.contains("checks passed"), "\(text)")
    }

    /// Debian's chromium, installed by the project's script when missing.
    static func installChromium() async throws {
        let install = try await ChildProcess.run("/bin/bash", [PythonScripts.packageRoot.path + "/Scripts/debian-packages.sh", "chromium"])
        try #require(install.status == 0, "chromium is needed: \(install.output)")
    }

    /// A `tender serve` on `store` for a browser test: Chromium installed, a data directory of
    /// its own, the server stopped when `body` returns or throws.
    func inChromium(
        _ store: ServedStore, _ name: String, _ arguments: [String] = [], errorLog: (String) -> String? = { _ in nil },
        _ body: (ServedTender, TemporaryDirectory, String) async throws -> Void
    ) async throws {
        try await Self.installChromium()
        let temporary = TemporaryDirectory(name)
        defer { temporary.remove() }
        let data = temporary.path + "/data"
        let served = try await ServedTender.start(
            store, ["serve", "--port", "0", "--data", data, "--close-interval", "0.05"] + arguments, errorLog: errorLog(temporary.path))
        do {
            try await body(served, temporary, data)
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    /// An empty `.build/screenshots/{name}` for a browser test's screenshots.
    static func screenshots(_ name: String) throws -> String {
        let shots = PythonScripts.packageRoot.path + "/.build/screenshots/" + name
        try? FileManager.default.removeItem(atPath: shots)
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        return shots
    }

    /// On SQLite, on PostgreSQL, and through a follower node of a PostgreSQL cluster (its reads
    /// and streams from the database, its submissions forwarded to the leader).
    @Test(arguments: ServedStore.allCases)
    func pythonStellarSDKAgainstTenderServe(_ store: ServedStore) async throws {
        let temporary = TemporaryDirectory("interop")
        defer { temporary.remove() }
        let data = temporary.path
        defer { try? FileManager.default.removeItem(atPath: data) }
        // A short close interval keeps the suite quick and still exercises the ledger timer.
        let served = try await ServedTender.start(store, ["serve", "--port", "0", "--data", data, "--close-interval", "0.2"])
        do {
            try await Self.runPython("Tests/Interop/horizon_interop.py", [served.url])
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    /// The test anchor's SEP-10 through the real Python stellar-sdk: its toml reader, its
    /// SEP-10 helpers as a wallet uses them (and its server-side verifiers as a second opinion),
    /// and each refusal: every check of Tests/Interop/anchor_interop.py must pass.
    @Test(arguments: [ServedStore.sqlite, .postgres])
    func pythonStellarSDKSignsInToTheAnchor(_ store: ServedStore) async throws {
        let temporary = TemporaryDirectory("anchor-interop")
        defer { temporary.remove() }
        let data = temporary.path + "/data"
        let log = temporary.path + "/server.log"
        let served = try await ServedTender.start(store, ["serve", "--port", "0", "--data", data, "--close-interval", "0.2", "--log-level", "trace"], errorLog: log)
        do {
            try await Self.runPython("Tests/Interop/anchor_interop.py", [served.url])
            // The customers' fields are sealed at rest and never logged: no file holds them.
            await served.stopNodes()
            let files = try FileManager.default.contentsOfDirectory(atPath: data).map { data + "/" + $0 } + [log] + served.databaseFiles()
            #expect(try Data(contentsOf: URL(fileURLWithPath: log)).count > 1_000, "the trace log was written")
            for file in files {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                for secret in ["Zyxwvutsrq", "zyxwvutsrq", "+31612345678"] { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in \(file)") }
            }
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    /// A SEP-24 deposit (3-D Secure card, a declined card, a missing trustline) and a
    /// withdrawal end to end: the Python stellar-sdk as the wallet, Debian's Chromium as the user
    /// on the interactive pages and the payment page; every check of Tests/Interop/sep24_page.py.
    @Test(arguments: [ServedStore.sqlite, .postgres])
    func sep24DepositAndWithdrawalInChromium(_ store: ServedStore) async throws {
        try await Self.installChromium()
        let temporary = TemporaryDirectory("sep24")
        defer { temporary.remove() }
        let shots = try Self.screenshots("sep24-\(store)")
        let served = try await ServedTender.start(store, ["serve", "--port", "0", "--data", temporary.path, "--close-interval", "0.2"])
        do {
            try await Self.runPython("Tests/Interop/sep24_page.py", [served.url, "/usr/bin/chromium", shots])
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    /// The real `stripe` Python library (installed into .venv by Scripts/python-env.sh) against
    /// the gateway of a real `tender serve`: every check of Tests/Interop/stripe_interop.py must
    /// pass. Afterwards no card number it used is anywhere in the data directory's files or in
    /// the server's log, written at trace level.
    /// On SQLite and on PostgreSQL (whose cluster's files are searched for card numbers too).
    @Test(arguments: [ServedStore.sqlite, .postgres])
    func pythonStripeLibraryAgainstTenderServe(_ store: ServedStore) async throws {
        let temporary = TemporaryDirectory("stripe-interop")
        defer { temporary.remove() }
        let data = temporary.path + "/data"
        let log = temporary.path + "/server.log"
        let served = try await ServedTender.start(store, ["serve", "--port", "0", "--data", data, "--close-interval", "0.05", "--log-level", "trace"], errorLog: log)
        do {
            try await checkStripe(served, data: data, log: log)
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }

    func checkStripe(_ served: ServedTender, data: String, log: String) async throws {
        let adminKey = try String(contentsOfFile: data + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)

        try await Self.runPython("Tests/Interop/stripe_interop.py", [served.url, adminKey, Tender.executable.path])

        await served.stopNodes()
        let script = try String(contentsOf: PythonScripts.packageRoot.appendingPathComponent("Tests/Interop/stripe_interop.py"), encoding: .utf8)
        let numbers = Set(script.matches(of: /"([0-9]{15,16}|4242 4242 4242 4242)"/).map { String($0.1).replacingOccurrences(of: " ", with: "") })
        #expect(numbers.count >= 15)
        let files = try FileManager.default.contentsOfDirectory(atPath: data).map { data + "/" + $0 } + [log] + served.databaseFiles()
        #expect(files.contains { $0.hasSuffix(served.postgres == nil ? "gateway.sqlite" : "postgresql.conf") })
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            for number in numbers {
                #expect(bytes.range(of: Data(number.utf8)) == nil, "\(number) is in \(file)")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)).count > 1_000, "the trace log was written")
    }

    /// The hosted payment page in a real headless Chromium (Debian's package, installed by
    /// Scripts/debian-packages.sh when missing, driven by Playwright for Python): every check
    /// of Tests/Interop/payment_page.py must pass, with the same field messages as
    /// PaymentEngine's CardInput; screenshots go to .build/screenshots/payment-page. Afterwards
    /// no card number typed is in the server's files or its trace log.
    @Test(arguments: [ServedStore.sqlite, .postgres])
    func paymentPageInChromium(_ store: ServedStore) async throws {
        try await inChromium(store, "payment-page", ["--log-level", "trace"], errorLog: { $0 + "/server.log" }) { served, temporary, data in
            try await checkPaymentPage(served, temporary: temporary, data: data, log: temporary.path + "/server.log")
        }
    }

    func checkPaymentPage(_ served: ServedTender, temporary: TemporaryDirectory, data: String, log: String) async throws {
        let url = served.url
        let adminKey = try String(contentsOfFile: data + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)

        // What CardInput says for these fields is what the page must say.
        let now = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
        let today = YearMonth(year: now.year!, month: now.month!)
        let inputs = [
            ("4242 4242 4242 4242", "12/30", "123"), ("4242 4242 4242 4241", "13/30", "12"), ("3782 822463 10005", "01/20", "123"),
            ("3782 822463 10005", "1230", "1234"), ("5555 5555 5555 444", "12", "12a"), ("4242-4242-4242-4242-4242", "12/2099", ""),
            ("42x", "ab", "1234"), ("6759 6498 2643 8453", "12/3", "123"),
        ]
        let cases: [[String: Any]] = inputs.map { number, expiry, code in
            let input = CardInput(number: number, expiry: expiry, securityCode: code)
            let messages = [input.numberState, input.expiryState(today: today), input.securityCodeState].map { state -> String in
                switch state {
                case .valid: ""
                case .incomplete(let text), .invalid(let text): text
                }
            }
            return ["number": number, "expiry": expiry, "cvc": code, "messages": messages, "canPay": input.canPay(today: today)]
        }
        let casesFile = temporary.path + "/cases.json"
        try JSONSerialization.data(withJSONObject: cases).write(to: URL(fileURLWithPath: casesFile))
        let shots = try Self.screenshots("payment-page")

        try await Self.runPython("Tests/Interop/payment_page.py", [url, adminKey, "/usr/bin/chromium", shots, casesFile])

        await served.stopNodes()
        #expect(try FileManager.default.contentsOfDirectory(atPath: shots).filter { $0.hasSuffix(".png") }.count >= 8)
        let files = try FileManager.default.contentsOfDirectory(atPath: data).map { data + "/" + $0 } + [log] + served.databaseFiles()
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            for number in ["4242424242424242", "4000002500003155", "5555555555554444", "4000000000009995"] {
                #expect(bytes.range(of: Data(number.utf8)) == nil, "\(number) is in \(file)")
            }
        }
    }

    /// The console in Debian's Chromium: every check of Tests/Interop/console_page.py must pass
    /// (payments made with the stripe library listed and acted on, a webhook resent, the explorer,
    /// another merchant's 404, axe-core on every page); screenshots at desktop and phone width go
    /// to .build/screenshots/console.
    @Test(arguments: [ServedStore.sqlite, .postgres])
    func consoleInChromium(_ store: ServedStore) async throws {
        try await inChromium(store, "console-page") { served, _, data in
            let adminKey = try String(contentsOfFile: data + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let shots = try Self.screenshots("console-\(store)")
            try await Self.runPython("Tests/Interop/console_page.py", [served.url, adminKey, "/usr/bin/chromium", shots])
            #expect(try FileManager.default.contentsOfDirectory(atPath: shots).filter { $0.hasSuffix(".png") }.count >= 20)
        }
    }

    /// The marketplace's `/shop` page in Debian's Chromium: `tender checkout demo` seeds it, and
    /// Tests/Interop/shop_page.py buys now, changes the delivery (the total follows), pays by
    /// iDEAL through the bank page and sees the order paid; screenshots go to
    /// .build/screenshots/shop.
    @Test(arguments: [ServedStore.sqlite, .postgres])
    func shopPageInChromium(_ store: ServedStore) async throws {
        try await inChromium(store, "shop-page") { served, _, data in
            try await checkShop(served, data: data)
        }
    }

    func checkShop(_ served: ServedTender, data: String) async throws {
        let url = served.url
        let demo = try await Tender.run(["checkout", "demo", "--data", data, "--url", url, "--json"])
        let seeded = try #require(try JSONSerialization.jsonObject(with: Data(demo.stdout.utf8)) as? [String: Any], "\(demo.stdout) \(demo.stderr)")
        let shop = try #require(seeded["shop"] as? String)
        let marketplaceKey = try #require(seeded["secret_key"] as? String)
        let shots = try Self.screenshots("shop")
        try await Self.runPython("Tests/Interop/shop_page.py", [shop, "/usr/bin/chromium", shots, marketplaceKey])
        #expect(try FileManager.default.contentsOfDirectory(atPath: shots).filter { $0.hasSuffix(".png") }.count >= 5)
    }
}
