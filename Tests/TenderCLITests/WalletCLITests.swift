import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tender wallet` end to end: the real binary against a real `tender serve`, PINs on stdin.
@Suite(.serialized)
struct WalletCLITests {
    @Test func theTutorialInTheTerminal() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tender-wallet-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try Tender.start(["serve", "--port", "0", "--data", root + "/server", "--close-interval", "0"])
        defer { if server.process.isRunning { server.process.terminate() } }
        let url = try await server.waitForURL()

        func wallet(_ name: String, _ arguments: [String], input: String? = nil) async throws -> Tender.Result {
            try await Tender.runDetached(["wallet"] + arguments + ["--home", root + "/" + name, "--horizon", url, "--pin-stdin"], input: input)
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

        // The seed is shown only after the PIN and is nowhere in the keystore in clear.
        let secret = try JSONSerialization.jsonObject(with: Data(try await ok("alice", ["show", "--secret", "--json"], input: "123456\n").utf8)) as! [String: Any]
        let seed = try #require(secret["secret_seed"] as? String)
        let keystore = try String(contentsOfFile: root + "/alice/keystore.json", encoding: .utf8)
        #expect(!keystore.contains(seed))
        _ = try await ok("alice", ["reset"])
        #expect(try await wallet("alice", ["show"]).stderr.contains("no wallet here"))
    }
}
