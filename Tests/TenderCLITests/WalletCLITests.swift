import Foundation
import StellarBase
import TenderTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tender wallet` end to end: the real binary against a real `tender serve`, PINs on stdin.
@Suite(.serialized, .tags(.slow), TestSpeed.slowSuites)
struct WalletCLITests {
    @Test(arguments: [ServedStore.sqlite, .postgres])
    func theTutorialInTheTerminal(_ store: ServedStore) async throws {
        let temporary = TemporaryDirectory("wallet-cli")
        defer { temporary.remove() }
        let root = temporary.path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await ServedTender.with(store, ["serve", "--port", "0", "--data", root + "/server", "--close-interval", "0"]) { served in
        let url = served.url

        func wallet(_ name: String, _ arguments: [String], input: String? = nil) async throws -> Tender.Result {
            try await Tender.run(["wallet"] + arguments + ["--home", root + "/" + name, "--horizon", url, "--pin-stdin"], input: input)
        }
        func ok(_ name: String, _ arguments: [String], input: String? = nil) async throws -> String {
            let result = try await wallet(name, arguments, input: input)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result.stdout
        }

        #expect(try await wallet("alice", ["create"], input: "123456\n123457\n").stderr == "tender: PIN and confirmation do not match\n")
        #expect(try await wallet("alice", ["create"], input: "12345\n12345\n").stderr == "tender: PIN must be exactly 6 digits\n")
        _ = try await ok("alice", ["create"], input: "123456\n123456\n")
        _ = try await ok("bob", ["create"], input: "654321\n654321\n")
        let alice = try await ok("alice", ["show"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let bob = try await ok("bob", ["show"]).trimmingCharacters(in: .whitespacesAndNewlines)
        // The shared options may also come before the subcommand, as `tender wallet --home D show`.
        let before = try await Tender.run(["wallet", "--home", root + "/bob", "--horizon=" + url, "--json", "show"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout.contains("\"address\": \"\(bob)\""))
        #expect(try await wallet("alice", ["balances"]).stderr.contains("Account not found"))
        _ = try await ok("alice", ["fund"])
        _ = try await ok("bob", ["fund"])

        // SRT from the test anchor, then a payment to a contact with a memo.
        _ = try await ok("alice", ["trust", "add", "SRT"], input: "123456\n")
        _ = try await ok("bob", ["trust", "add", "SRT"], input: "654321\n")
        let (_, response) = try await URLSession.shared.data(from: URL(string: "\(url)/friendbot?addr=\(alice)&asset=SRT")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        _ = try await ok("alice", ["contacts", "add", "Bob", bob])
        #expect(try await wallet("alice", ["contacts", "add", "bob", bob]).stderr.contains("already exists"))
        #expect(try await ok("alice", ["contacts", "list"]).contains(bob))
        // Validation fails before the PIN is read: nothing on stdin is needed.
        let bad = try await wallet("alice", ["pay", "Bob", "1,5", "SRT"])
        #expect(bad.status == 1)
        #expect(bad.stderr == "tender: Invalid amount format\n")
        // A name nobody has is said to be one, not an invalid address.
        let nobody = try await wallet("alice", ["pay", "Bobby", "1", "SRT"])
        #expect(nobody.status == 1 && nobody.stderr == "tender: no contact named Bobby\n", "\(nobody.stderr)")
        // A fee outside 1 to UInt32.max stroops is refused before the PIN is asked for.
        for fee in ["0", "4294967296", "9223372036854775807"] {
            let badFee = try await wallet("alice", ["pay", "Bob", "1", "SRT", "--fee", fee])
            #expect(badFee.status == 1, "--fee \(fee)")
            #expect(badFee.stderr.contains("Fee must be 1 to 4294967295 stroops"), "--fee \(fee): \(badFee.stderr)")
        }
        let wrong = try await wallet("alice", ["pay", "Bob", "1", "SRT"], input: "000000\n")
        #expect(wrong.stderr == "tender: Incorrect PIN\n")
        _ = try await ok("alice", ["pay", "Bob", "12.5", "SRT", "--memo", "lunch"], input: "123456\n")

        let history = try JSONSerialization.jsonObject(with: Data(try await ok("alice", ["history", "--json"]).utf8)) as! [[String: Any]]
        #expect(history.first?["direction"] as? String == "sent")
        #expect(history.first?["contact"] as? String == "Bob")
        #expect(history.first?["amount"] as? String == "12.5000000")
        let bobsHistory = try JSONSerialization.jsonObject(with: Data(try await ok("bob", ["history", "--json"]).utf8)) as! [[String: Any]]
        #expect(bobsHistory.first?["direction"] as? String == "received")
        #expect(bobsHistory.first?["counterparty"] as? String == alice)

        // A trustline with a balance stays; once empty it goes.
        #expect(try await wallet("bob", ["trust", "remove", "SRT"], input: "654321\n").stderr.contains("must be zero"))
        _ = try await ok("bob", ["pay", alice, "12.5", "SRT"], input: "654321\n")
        _ = try await ok("bob", ["trust", "remove", "SRT"], input: "654321\n")
        let balances = try JSONSerialization.jsonObject(with: Data(try await ok("bob", ["balances", "--json"]).utf8)) as! [[String: Any]]
        #expect(balances.map { $0["asset"] as? String } == ["XLM"])

        // A third account issues GOLD, SILVER and COPPER and sells each for the one before, one
        // for one; Bob trusts COPPER; Alice path-pays him both ways from XLM through the books.
        _ = try await ok("maker", ["create"], input: "333333\n333333\n")
        _ = try await ok("maker", ["fund"])
        let makerSeed = try #require((try JSONSerialization.jsonObject(with: Data(try await ok("maker", ["show", "--secret", "--json"], input: "333333\n").utf8)) as? [String: Any])?["secret_seed"] as? String)
        let maker = try KeyPair(secretSeed: makerSeed)
        try await submitOffers(url, maker: maker)
        let copper = "COPPER:\(maker.accountID.strKey)"
        #expect(try await wallet("bob", ["trust", "add", "COPPER:" + KeyPair.random().accountID.strKey], input: "654321\n").stderr == "tender: Asset issuer not found\n")
        _ = try await ok("bob", ["trust", "add", copper], input: "654321\n")

        // Bob watches from his latest payment on, so nothing is missed however fast it starts.
        let bobsLatest = try #require(bobsHistory.first?["id"] as? String)
        async let watched = wallet("bob", ["watch", "--cursor", bobsLatest, "--count", "3", "--json"])

        let sendPaths = try JSONSerialization.jsonObject(with: Data(try await ok("alice", ["path-pay", "send", "Bob", "10", "XLM", "--list", "--json"]).utf8)) as! [[String: Any]]
        let throughMetals = try #require(sendPaths.first { $0["destination_asset"] as? String == copper })
        #expect(throughMetals["destination_amount"] as? String == "10.0000000")
        #expect((throughMetals["via"] as? [String])?.map { $0.split(separator: ":")[0] } == ["GOLD", "SILVER"])
        let number = try #require(throughMetals["path"] as? Int)
        #expect(try await wallet("alice", ["path-pay", "send", "Bob", "10", "XLM", "--path", "9"]).stderr.contains("choose one from 1 to"))
        #expect(try await wallet("alice", ["path-pay", "send", "Bob", "10", "XLM", "--path", "\(number)", "--slippage", "1.234"]).stderr == "tender: Slippage must be a percentage such as 1 or 0.5\n")
        _ = try await ok("alice", ["path-pay", "send", "Bob", "10", "XLM", "--path", "\(number)"], input: "123456\n")
        // Strict receive, choosing the path at the prompt: the only one costs 5 XLM.
        let receive = try await ok("alice", ["path-pay", "receive", "Bob", "5", copper], input: "1\n123456\n")
        #expect(receive.contains("delivered 5.0000000 COPPER"))
        #expect(receive.contains("spending at most 5.0500000 XLM"))
        let bobsBalances = try JSONSerialization.jsonObject(with: Data(try await ok("bob", ["balances", "--json"]).utf8)) as! [[String: Any]]
        #expect(bobsBalances.first { $0["asset"] as? String == copper }?["balance"] as? String == "15.0000000")
        let alicesLatest = try JSONSerialization.jsonObject(with: Data(try await ok("alice", ["history", "--json", "--limit", "2"]).utf8)) as! [[String: Any]]
        #expect(alicesLatest.map { $0["type"] as? String } == ["path_payment_strict_receive", "path_payment_strict_send"])
        #expect(alicesLatest.map { $0["asset"] as? String } == ["XLM", "XLM"])
        #expect(alicesLatest.map { $0["amount"] as? String } == ["5.0000000", "10.0000000"])
        #expect(alicesLatest.map { $0["direction"] as? String } == ["sent", "sent"])

        // Bob's watch printed his three payments since (12.5 SRT back to Alice, then the two
        // path payments), from his side, one JSON line each, and stopped.
        let watch = try await watched
        #expect(watch.status == 0, "\(watch.stderr)")
        let lines = watch.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.map { $0?["direction"] as? String } == ["sent", "received", "received"])
        #expect(lines.map { $0?["amount"] as? String } == ["12.5000000", "10.0000000", "5.0000000"])
        #expect(lines.dropFirst().map { $0?["asset"] as? String } == [copper, copper])

        // Wrong PINs are refused, and after three the keystore backs off even the right one.
        for _ in 0..<3 {
            #expect(try await wallet("alice", ["show", "--secret"], input: "999999\n").stderr == "tender: Incorrect PIN\n")
        }
        let lockedOut = try await wallet("alice", ["show", "--secret"], input: "123456\n")
        #expect(lockedOut.status == 1)
        #expect(lockedOut.stderr.hasPrefix("tender: Too many incorrect PINs; try again in "))

        // The seed is shown only after the PIN and is nowhere in the keystore in clear.
        let keystore = try String(contentsOfFile: root + "/maker/keystore.json", encoding: .utf8)
        #expect(!keystore.contains(makerSeed))
        _ = try await ok("alice", ["reset"])
        #expect(try await wallet("alice", ["show"]).stderr.contains("no wallet here"))
    }

    /// The maker's three offers, signed with its seed and posted to Horizon directly (the wallet
    /// has no offer command).
    func submitOffers(_ url: String, maker: KeyPair) async throws {
        let (body, _) = try await URLSession.shared.data(from: URL(string: "\(url)/accounts/\(maker.accountID.strKey)")!)
        let sequence = try #require(((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["sequence"] as? String).flatMap { Int64($0) })
        let gold = try Asset(code: "GOLD", issuer: maker.accountID)
        let silver = try Asset(code: "SILVER", issuer: maker.accountID)
        let copper = try Asset(code: "COPPER", issuer: maker.accountID)
        var builder = TransactionBuilder(source: maker.accountID, currentSequenceNumber: sequence)
        for (selling, buying) in [(gold, Asset.native), (silver, gold), (copper, silver)] {
            builder.add(.manageSellOffer(ManageSellOfferOperation(selling: selling, buying: buying, amount: 1_000 * Amount.stroopsPerUnit, price: Price(n: 1, d: 1))))
        }
        let passphrase = try await networkPassphrase(url)
        let envelope = try builder.build().signed(by: [maker], on: Network(passphrase: passphrase))
        var request = URLRequest(url: URL(string: "\(url)/transactions")!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(("tx=" + envelope.xdrBase64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!).utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    func networkPassphrase(_ url: String) async throws -> String {
        let (body, _) = try await URLSession.shared.data(from: URL(string: url)!)
        return try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["network_passphrase"] as? String)
    }
    }
    
    /// `tender wallet anchor`: KYC asked for, given, then a withdrawal paid with the anchor's memo
    /// and followed to completed; the history; the token.
    @Test func theAnchorFromTheTerminal() async throws {
        let temporary = TemporaryDirectory("wallet-anchor-cli")
        defer { temporary.remove() }
        let root = temporary.path
        try await ServedTender.with(.sqlite, ["serve", "--port", "0", "--data", root + "/server", "--close-interval", "0.1"]) { served in
            let url = served.url
            func wallet(_ arguments: [String], input: String? = nil) async throws -> Tender.Result {
                try await Tender.run(["wallet"] + arguments + ["--home", root + "/alice", "--horizon", url, "--pin-stdin"], input: input)
            }
            #expect(try await wallet(["create"], input: "123456\n123456\n").status == 0)
            #expect(try await wallet(["fund"]).status == 0)
            #expect(try await wallet(["trust", "add", "EUR"], input: "123456\n").status == 0)
            let alice = try await wallet(["show"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let (_, funded) = try await URLSession.shared.data(from: URL(string: "\(url)/friendbot?addr=\(alice)&asset=EUR")!)
            #expect((funded as? HTTPURLResponse)?.statusCode == 200)

            let info = try await wallet(["anchor", "info"])
            #expect(info.status == 0 && info.stdout.contains("WEB_AUTH_ENDPOINT: \(url)/auth") && info.stdout.contains("currency EUR"), "\(info.stderr)")
            #expect(try await wallet(["anchor", "teleport"]).stderr.contains("the action is one of"))
            let early = try await wallet(["anchor", "withdraw", "EUR", "5.00"], input: "123456\n")
            #expect(early.status == 1 && early.stderr.contains("the anchor needs first_name, last_name, email_address first (SEP-12)"), "\(early.stderr)")
            let kyc = try await wallet(["anchor", "kyc", "--field", "first_name=Alice", "--field", "last_name=A", "--field", "email_address=alice@example.com"], input: "123456\n")
            #expect(kyc.status == 0 && kyc.stdout == "KYC ACCEPTED\n", "\(kyc.stdout) \(kyc.stderr)")
            let withdrawal = try await wallet(["anchor", "withdraw", "EUR", "5.00", "--every", "0.1"], input: "123456\n")
            #expect(withdrawal.status == 0, "\(withdrawal.stderr)")
            #expect(withdrawal.stdout.contains("with memo") && withdrawal.stdout.contains(": completed, 5.00 in, 0.25 fee, 4.75 out"), "\(withdrawal.stdout)")
            let history = try await wallet(["anchor", "history", "EUR", "--json"], input: "123456\n")
            #expect(history.status == 0 && history.stdout.contains("\"status\": \"completed\"") && history.stdout.contains("\"amount_out\": \"4.75\""), "\(history.stdout)")
            // Login prints the SEP-10 token, for curl.
            let login = try await wallet(["anchor", "login"], input: "123456\n")
            #expect(login.status == 0 && login.stdout.split(separator: ".").count == 3, "a JWT: \(login.stdout)")
        }
    }
}
