import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TenderTesting
import Testing

/// `tender say` end to end: the real binary against a real `tender serve`, scripted on standard
/// input and driven in a real terminal (tmux: send-keys, capture-pane).
@Suite(.serialized, .tags(.slow), TestSpeed.slowSuites)
struct SayCLITests {
    /// Runs a command to its end, its standard output and error together. Through Subprocess, not
    /// Foundation's Process: on Linux Foundation learns that a child exited when a socket the
    /// child inherited closes, and the tmux server that `new-session` starts would keep it open
    /// (the server puts /dev/null on its own standard output, so the pipe here still ends).
    static func command(_ path: String, _ arguments: [String]) async -> (status: Int32, output: String) {
        do {
            let finished = try await ChildProcess.run(path, arguments, directory: nil, combined: true)
            return (finished.status, finished.output)
        } catch {
            return (-1, "cannot start \(path): \(error)")
        }
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func aConversationScriptedAndInATerminal() async throws {
        let temporary = TemporaryDirectory("say-cli")
        let root = temporary.path
        let server = try await Tender.start(["serve", "--port", "0", "--data", root + "/server", "--close-interval", "0"])
        defer { if server.isRunning { server.terminate() } }
        let url = try await server.waitForURL()

        func tender(_ arguments: [String], home: String, input: String? = nil) async throws -> Tender.Result {
            try await Tender.run(arguments + ["--home", root + "/" + home, "--horizon", url, "--pin-stdin"], input: input)
        }
        func ok(_ arguments: [String], home: String, input: String? = nil) async throws -> String {
            let result = try await tender(arguments, home: home, input: input)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var addresses: [String: String] = [:]
        for name in ["alice", "jane", "janesmith"] {
            _ = try await ok(["wallet", "create"], home: name, input: "123456\n123456\n")
            _ = try await ok(["wallet", "fund"], home: name)
            _ = try await ok(["wallet", "trust", "add", "USDC"], home: name, input: "123456\n")
            addresses[name] = try await ok(["wallet", "show"], home: name)
        }
        let (_, response) = try await URLSession.shared.data(from: URL(string: "\(url)/friendbot?addr=\(addresses["alice"]!)&asset=USDC")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        _ = try await ok(["wallet", "contacts", "add", "Jane Doe", addresses["jane"]!, "--alias", "Mom"], home: "alice")

        // The parse alone touches nothing.
        let parse = try await Tender.run(["say", "--parse", "--json", "--locale", "nl_NL", "Stuur €12,50 naar Jan"])
        #expect(parse.status == 0)
        #expect(parse.stdout.contains("\"amount\": \"12.5\"") && parse.stdout.contains("\"currency\": \"EUR\"") && parse.stdout.contains("\"intent\": \"send\"") && parse.stdout.contains("\"payee\": \"Jan\""), "\(parse.stdout)")
        let range = try await Tender.run(["say", "--parse", "--json", "--locale", "es", "Envía entre 10 y 20 euros a Juan"])
        #expect(range.stdout.contains("\"exactness\": \"range\"") && range.stdout.contains("\"amount_high\": \"20\"") && range.stdout.contains("amount_range"), "\(range.stdout)")

        // Scripted: one Jane, confirmed by --yes, the PIN on standard input.
        let sent = try await ok(["say", "--yes", "--json", "Send $5 to Jane for coffee"], home: "alice", input: "123456\n")
        #expect(sent.contains("\"code\": \"success\"") && sent.contains("\"amount\": \"5.00\"") && sent.contains("\"note\": \"coffee\""), "\(sent)")
        // No amount said: the last one offered, refused, asked for, then declined at the
        // confirmation: nothing is sent.
        let declined = try await ok(["say", "Send money to Jane"], home: "alice", input: "n\n$7\nn\n")
        #expect(declined.contains("5.00 USD? [y/N]") && declined.contains("How much?"), "\(declined)")
        #expect(declined.contains("Send 7.00 USD to Jane Doe? [y/N]") && declined.contains("nothing was sent"), "\(declined)")
        let byAlias = try await ok(["say", "--yes", "Send a dollar to Mom"], home: "alice", input: "123456\n")
        #expect(byAlias == "Sent 1.00 USD to Jane Doe (fee 0.0000100 XLM).", "\(byAlias)")
        let noWallet = try await tender(["say", "Send $5 to Jane"], home: "nobody")
        #expect(noWallet.status == 1 && noWallet.stderr == "tender: no wallet here; create or import one with `tender wallet create` or `tender wallet import`\n", "\(noWallet.stderr)")
        let unknown = try await tender(["say", "Pay Dave $5"], home: "alice")
        #expect(unknown.status == 1 && unknown.stderr.contains("no contact named Dave"), "\(unknown.stderr)")
        let unknownDutch = try await tender(["say", "--locale", "nl_NL", "Betaal Dave 5 euro"], home: "alice")
        #expect(unknownDutch.status == 1 && unknownDutch.stderr.contains("geen contact met de naam Dave"), "\(unknownDutch.stderr)")
        // The answer helps; SiriKit's code is only in --json.
        let tooMuch = try await tender(["say", "--yes", "Send $5000 to Jane"], home: "alice")
        #expect(tooMuch.status == 1 && tooMuch.stderr.contains("your balance does not cover that: you can send at most 99") && !tooMuch.stderr.contains("failure"), "\(tooMuch.stderr)")
        let tooMuchJSON = try await tender(["say", "--yes", "--json", "Send $5000 to Jane"], home: "alice")
        #expect(tooMuchJSON.status == 1 && tooMuchJSON.stdout.contains("\"code\": \"failureInsufficientFunds\"") && tooMuchJSON.stdout.contains("\"code_value\": 10"), "\(tooMuchJSON.stdout)")
        // Nobody trusts EUR yet: the answers say what to do, in the utterance's language.
        let holdsNone = try await tender(["say", "--yes", "--locale", "de_DE", "Überweise Jane Doe 5 Euro"], home: "alice")
        #expect(holdsNone.status == 1 && holdsNone.stderr.contains("Sie haben kein EUR: hinzufügen mit `tender wallet trust add EUR`"), "\(holdsNone.stderr)")
        for name in ["alice", "janesmith"] { _ = try await ok(["wallet", "trust", "add", "EUR"], home: name, input: "123456\n") }
        let (_, euros) = try await URLSession.shared.data(from: URL(string: "\(url)/friendbot?addr=\(addresses["alice"]!)&asset=EUR")!)
        #expect((euros as? HTTPURLResponse)?.statusCode == 200)
        let cannotReceive = try await tender(["say", "--yes", "--locale", "de_DE", "Überweise Jane Doe 5 Euro"], home: "alice")
        #expect(cannotReceive.status == 1 && cannotReceive.stderr.contains("Jane Doe kann kein EUR empfangen: Jane Doe muss es zuerst vertrauen"), "\(cannotReceive.stderr)")
        // Digits it cannot read exactly are said so and asked for, never guessed.
        let unreadable = try await tender(["say", "--yes", "Send $12,50 to Jane"], home: "alice", input: "$1\n123456\n")
        #expect(unreadable.status == 0 && unreadable.stdout.contains("I cannot read '12,50' exactly as a number.") && unreadable.stdout.contains("How much?")
                && unreadable.stdout.contains("Sent 1.00 USD to Jane Doe"), "\(unreadable.stdout) \(unreadable.stderr)")
        // About an amount: never paid as said; a range is asked for exactly.
        let about = try await tender(["say", "--yes", "Send about $3 to Jane"], home: "alice", input: "n\n$2\n123456\n")
        #expect(about.status == 0 && about.stdout.contains("You said 'about $3': exactly 3.00 USD? [y/N]") && about.stdout.contains("Sent 2.00 USD to Jane Doe"), "\(about.stdout) \(about.stderr)")
        // Asking for money gives a SEP-7 URI that Jane's wallet pays.
        let request = try await ok(["say", "--json", "Ask Jane for 3 dollars for the cab"], home: "alice")
        let uri = try #require(request.split(separator: "\"").first { $0.hasPrefix("web+stellar:pay?") }).description
        _ = try await ok(["wallet", "pay-uri", uri], home: "jane", input: "123456\n")
        let badURI = try await tender(["wallet", "pay-uri", uri.replacing("amount=3", with: "amount=-3")], home: "jane")
        #expect(badURI.status == 1 && badURI.stderr.contains("amount must be a positive number"))
        let dutchHistory = try await ok(["say", "--history", "--locale", "nl_NL"], home: "alice")
        #expect(dutchHistory.contains("gevraagd aan   Jane Doe") && dutchHistory.contains("verstuurd naar Jane Doe") && dutchHistory.contains("1,00 USD"), "\(dutchHistory)")
        #expect(try await ok(["say", "--history", "--locale", "fr"], home: "nobody-yet") == "aucun paiement demandé en mots pour l'instant")
        let history = try await ok(["say", "--history", "--json"], home: "alice")
        #expect(history.components(separatedBy: "\"kind\": \"requested\"").count == 2 && history.components(separatedBy: "\"kind\": \"sent\"").count == 5, "\(history)")
        #expect(history.firstRange(of: "requested")!.lowerBound < history.firstRange(of: "\"sent\"")!.lowerBound, "newest first")
        let balances = try await ok(["say", "What's my balance"], home: "alice")
        #expect(balances.contains("USD: 994.0000000"), "\(balances)")

        // In a real terminal: two Janes to choose from, the confirmation, the PIN unseen.
        _ = try await ok(["wallet", "contacts", "add", "Jane Smith", addresses["janesmith"]!], home: "alice")
        let installed = await Self.command("/bin/bash", [Self.repository.path + "/Scripts/debian-packages.sh", "tmux"])
        try #require(installed.status == 0, "tmux: \(installed.output)")
        let tmux = try #require(["/usr/bin/tmux", "/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let socket = root + "/tmux.sock"
        func tmuxDo(_ arguments: [String]) async -> String { await Self.command(tmux, ["-S", socket] + arguments).output }
        _ = await tmuxDo(["-f", "/dev/null", "new-session", "-d", "-s", "say", "-x", "160", "-y", "40",
                          Tender.executable.path, "say", "--home", root + "/alice", "--horizon", url, "Send $50 to Jane for dinner"])
        _ = await tmuxDo(["set-option", "-t", "say", "remain-on-exit", "on"])
        // The tmux server outlives kill-server here once its pane's process has exited (it was
        // seen still running): it is stopped by its pid.
        let tmuxServer = pid_t(await tmuxDo(["display-message", "-p", "-t", "say", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        defer { if tmuxServer > 0 { kill(tmuxServer, SIGKILL) } }
        func screen(showing text: String, in session: String = "say") async throws -> String {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let pane = await tmuxDo(["capture-pane", "-p", "-t", session])
                if pane.contains(text) { return pane }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("the terminal never showed \(text): \(await tmuxDo(["capture-pane", "-p", "-t", session]))")
            throw CancellationError()
        }
        var pane = try await screen(showing: "Number:")
        #expect(pane.contains("Which Jane?") && pane.contains("1. Jane Doe") && pane.contains("2. Jane Smith"))
        _ = await tmuxDo(["send-keys", "-t", "say", "2", "Enter"])
        pane = try await screen(showing: "[y/N]")
        #expect(pane.contains("Send 50.00 USD to Jane Smith for 'dinner'? [y/N]"))
        _ = await tmuxDo(["send-keys", "-t", "say", "y", "Enter"])
        _ = try await screen(showing: "PIN:")
        _ = await tmuxDo(["send-keys", "-t", "say", "123456", "Enter"])
        pane = try await screen(showing: "Sent 50.00 USD to Jane Smith for 'dinner'")
        #expect(!pane.contains("123456"), "the PIN is not echoed")
        let smith = try await ok(["wallet", "balances"], home: "janesmith")
        #expect(smith.contains("50.0000000"), "\(smith)")

        // In Dutch: ask, choose, confirm with "j", the PIN, paid.
        func conversation(_ session: String, _ locale: String, _ utterance: String) async {
            _ = await tmuxDo(["new-session", "-d", "-s", session, "-x", "160", "-y", "40",
                              Tender.executable.path, "say", "--home", root + "/alice", "--horizon", url, "--locale", locale, utterance])
            _ = await tmuxDo(["set-option", "-t", session, "remain-on-exit", "on"])
        }
        await conversation("nl", "nl_NL", "Stuur Jane 12,50 euro voor de lunch")
        pane = try await screen(showing: "Nummer:", in: "nl")
        #expect(pane.contains("Welke Jane?") && pane.contains("1. Jane Doe") && pane.contains("2. Jane Smith"), "\(pane)")
        _ = await tmuxDo(["send-keys", "-t", "nl", "2", "Enter"])
        pane = try await screen(showing: "[j/N]", in: "nl")
        #expect(pane.contains("12,50 EUR naar Jane Smith sturen voor 'de lunch'? [j/N]"), "\(pane)")
        _ = await tmuxDo(["send-keys", "-t", "nl", "j", "Enter"])
        _ = try await screen(showing: "PIN:", in: "nl")
        _ = await tmuxDo(["send-keys", "-t", "nl", "123456", "Enter"])
        pane = try await screen(showing: "12,50 EUR verstuurd naar Jane Smith voor 'de lunch'", in: "nl")
        #expect(!pane.contains("123456"), "the PIN is not echoed")

        // In German: about 20 euros is confirmed exactly first.
        await conversation("de", "de_DE", "Überweise Jane Smith etwa 20 Euro für das Abendessen")
        pane = try await screen(showing: "[j/N]", in: "de")
        #expect(pane.contains("Sie sagten „etwa 20 Euro“: genau 20,00 EUR? [j/N]"), "\(pane)")
        _ = await tmuxDo(["send-keys", "-t", "de", "ja", "Enter"])
        pane = try await screen(showing: "überweisen", in: "de")
        #expect(pane.contains("20,00 EUR an Jane Smith überweisen für „das Abendessen“? [j/N]"), "\(pane)")
        _ = await tmuxDo(["send-keys", "-t", "de", "j", "Enter"])
        _ = try await screen(showing: "PIN:", in: "de")
        _ = await tmuxDo(["send-keys", "-t", "de", "123456", "Enter"])
        _ = try await screen(showing: "20,00 EUR an Jane Smith überwiesen für „das Abendessen“", in: "de")
        let smithEuros = try await ok(["wallet", "balances"], home: "janesmith")
        #expect(smithEuros.contains("32.5000000"), "12.50 and 20 euros arrived: \(smithEuros)")
    }
}
