import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Gateway
import PostgresStore
import Store
import TenderTesting
import Testing

/// Runs the real `tender` executable, as a user would.
@Suite("The tender command", .tags(.slow), TestSpeed.slowSuites)
struct CLITests {
    nonisolated(unsafe) static let vectors: [String: Any] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../StellarBaseTests/Vectors/vectors.json")
        return try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }()

    static func envelope(_ name: String) -> [String: Any] {
        (vectors["envelopes"] as! [[String: Any]]).first { $0["name"] as? String == name }!
    }

    @Test func keysGenerateGivesAUsableKeyPair() async throws {
        let result = try await Tender.run(["keys", "generate", "--json"])
        #expect(result.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: String]
        let account = try #require(json["account_id"])
        let secret = try #require(json["secret_seed"])
        #expect(account.hasPrefix("G") && account.count == 56)
        #expect(secret.hasPrefix("S") && secret.count == 56)
        let inspected = try await Tender.run(["keys", "inspect", secret])
        #expect(inspected.stdout.contains(account))
        #expect(!inspected.stdout.contains(secret))
        let plain = try await Tender.run(["keys", "generate"])
        #expect(plain.stdout.contains("account id:") && plain.stdout.contains("secret seed:"))
    }

    @Test func keysInspectExplainsEveryKind() async throws {
        let keypair = (Self.vectors["keypairs"] as! [[String: Any]])[0]
        let account = keypair["account_id"] as! String
        let muxed = (keypair["muxed"] as! [[String: String]])[2]
        let result = try await Tender.run(["keys", "inspect", muxed["address"]!, "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: String]
        #expect(json["type"] == "muxed_account")
        #expect(json["account_id"] == account)
        #expect(json["muxed_id"] == muxed["id"])
        let plain = try await Tender.run(["keys", "inspect", account])
        #expect(plain.stdout.contains("type: account_id"))
    }

    @Test func badKeysFailWithOneLine() async throws {
        let account = (Self.vectors["keypairs"] as! [[String: Any]])[0]["account_id"] as! String
        for bad in [String(account.dropLast()) + "A", "hello", String(account.dropLast())] {
            let result = try await Tender.run(["keys", "inspect", bad])
            #expect(result.status != 0)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("tender: not a valid Stellar key"))
        }
    }

    @Test func txDecodeShowsTheEnvelope() async throws {
        let vector = Self.envelope("mixed_multi_signer")
        let result = try await Tender.run(["tx", "decode", vector["xdr"] as! String])
        #expect(result.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(json["hash"] as? String == vector["hash_standalone"] as? String)
        let tx = json["tx"] as! [String: Any]
        let operations = tx["operations"] as! [[String: Any]]
        #expect(operations.map { $0["type"] as! String } == ["create_account", "change_trust", "payment", "manage_data"])
        #expect(operations[0]["starting_balance"] as? String == "2.0000000")
        #expect((tx["memo"] as! [String: String])["text"] == "mixed")
        #expect((json["signatures"] as! [Any]).count == 3)
    }

    @Test func txDecodeReadsStandardInput() async throws {
        let vector = Self.envelope("fee_bump_payment_native")
        let result = try await Tender.run(["tx", "decode"], input: (vector["xdr"] as! String) + "\n")
        #expect(result.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(json["type"] as? String == "ENVELOPE_TYPE_TX_FEE_BUMP")
        #expect(json["inner_tx"] != nil)
    }

    @Test func txHashOnEachNetwork() async throws {
        for name in ["payment_native", "v0_payment", "fee_bump_mixed_multi_signer", "preconditions_v2"] {
            let vector = Self.envelope(name)
            let xdr = vector["xdr"] as! String
            #expect(try await Tender.run(["tx", "hash", xdr]).stdout == (vector["hash_standalone"] as! String) + "\n")
            let testnet = try await Tender.run(["tx", "hash", "-", "--passphrase", "Test SDF Network ; September 2015"], input: xdr)
            #expect(testnet.stdout == (vector["hash_testnet"] as! String) + "\n")
        }
    }

    @Test func badEnvelopesFailWithOneLine() async throws {
        // An operation Tender refuses (inflation, gone from the protocol).
        let unsupported = (Self.vectors["unsupported"] as! [[String: String]]).first { $0["operation"] == "inflation" }!
        let cases: [(String, String)] = [
            ("not base64!", "not base64"),
            ("AAAA", "not a valid transaction envelope"),
            (unsupported["xdr"]!, unsupported["operation"]!),
        ]
        for (input, expected) in cases {
            for command in [["tx", "decode", input], ["tx", "hash", input]] {
                let result = try await Tender.run(command)
                #expect(result.status == 1)
                #expect(result.stdout.isEmpty)
                #expect(result.stderr.split(separator: "\n").count == 1)
                #expect(result.stderr.contains(expected), "\(result.stderr)")
            }
        }
        let empty = try await Tender.run(["tx", "hash"], input: "")
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("no envelope given"))
    }

    @Test func everyCommandHasHelp() async throws {
        for command in [[], ["serve"], ["keys"], ["keys", "generate"], ["keys", "inspect"], ["tx"], ["tx", "decode"], ["tx", "hash"], ["bench"], ["bench", "envelope"]] {
            let result = try await Tender.run(command + ["--help"])
            #expect(result.status == 0, "\(command)")
            #expect(result.stdout.contains("USAGE"), "\(command)")
            #expect(result.stdout.count > 150, "\(command)")
        }
    }

    @Test func serveAnswersAndStopsOnSIGTERM() async throws {
        let temporary = TemporaryDirectory("cli")
        defer { temporary.remove() }
        let data = temporary.path
        let server = try await Tender.start(["serve", "--port", "0", "--data", data])
        defer { if server.isRunning { server.terminate() } }
        let url = try await server.waitForURL()
        let (body, response) = try await URLSession.shared.data(from: URL(string: url + "/")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let json = try JSONSerialization.jsonObject(with: body) as! [String: Any]
        #expect(json["network_passphrase"] as? String == "Standalone Network ; February 2017")
        server.signal(SIGTERM)
        let exited = await server.waitForExit(timeout: 30)
        #expect(exited)
        if exited { #expect(server.terminationStatus == 0) }
        #expect(FileManager.default.fileExists(atPath: data))
    }

    @Test func serveStopsOnSIGTERMWithAStreamOpen() async throws {
        let temporary = TemporaryDirectory("cli")
        defer { temporary.remove() }
        let data = temporary.path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try await Tender.start(["serve", "--port", "0", "--data", data, "--close-interval", "0.2"])
        defer { if server.isRunning { server.terminate() } }
        let url = try await server.waitForURL()
        // A client following the ledgers stream, as a wallet follows its payments.
        let curlLog = temporary.file("curl.log")
        let curl = try await RunningChild.start(
            "/usr/bin/curl", ["-sSN", "-H", "Accept: text/event-stream", url + "/ledgers?cursor=now"], errorLog: curlLog)
        defer { curl.terminate() }
        // The stream is open once its hello has arrived; then the server is told to stop.
        let opening = await curl.waitForOutput(matching: "\"hello\"", timeout: 30)
        #expect(opening != nil, "curl: \(curl.outputSoFar) \((try? String(contentsOfFile: curlLog, encoding: .utf8)) ?? "")")
        server.signal(SIGTERM)
        // The stream ends by itself, so the server drains and exits instead of hanging.
        let exited = await server.waitForExit(timeout: 15)
        #expect(exited)
        if exited { #expect(server.terminationStatus == 0) }
        // A server that stopped closed the stream; one that did not must not hang the test.
        if !exited { curl.terminate() }
        _ = await curl.waitForExit(timeout: 15)
        let received = curl.outputSoFar
        #expect(received.contains("\"hello\""))
        #expect(received.contains("\"byebye\""))
    }

    /// `tender bench scale` grows a network step by step and writes its series (tiny sizes here:
    /// the figures in docs/ come from `Benchmarks/scale.sh`).
    @Test func theScaleBenchmarkWritesItsSeries() async throws {
        let temporary = TemporaryDirectory("scale-bench")
        defer { temporary.remove() }
        let csv = temporary.file("scale.csv"), svg = temporary.file("scale.svg")
        let result = try await Tender.run([
            "bench", "scale", "--accounts", "1100,1500", "--payments", "200,300", "--transactions", "300", "--requests", "600",
            "--read-rounds", "3", "--post-rounds", "2", "--cards", "700,1400", "--warm-up", "0,50", "--directory", temporary.path, "--csv", csv, "--svg", svg,
        ], timeout: 600)
        #expect(result.status == 0, "\(result.stderr)")
        // Each step's GET rounds printed, the row's rate their median.
        let printedRounds = result.stdout.split(separator: "\n").compactMap { line in
            line.range(of: "GET rounds: ").map { line[$0.upperBound...].prefix { $0 != "|" }.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        }
        #expect(printedRounds.map(\.count) == [3, 3], "\(result.stdout)")
        let printedPostRounds = result.stdout.split(separator: "\n").compactMap { line in
            line.range(of: "POST rounds: ").map { line[$0.upperBound...].prefix { $0 != "|" }.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        }
        #expect(printedPostRounds.map(\.count) == [2, 2], "\(result.stdout)")
        // And the CPU time a GET took in the server's process and in the client's.
        let printedCPU = result.stdout.split(separator: "\n").compactMap { line in
            line.range(of: "CPU a GET: server ").map { line[$0.upperBound...].prefix { $0 != "|" }.split(separator: " ").compactMap { Double($0) } }
        }
        #expect(printedCPU.count == 2 && printedCPU.allSatisfy { $0.count == 2 && $0.allSatisfy { $0 > 0 } }, "\(result.stdout)")
        // And a POST's (300 of them: the server's tens of milliseconds, the client's a few).
        let printedPostCPU = result.stdout.split(separator: "\n").compactMap { line in
            line.range(of: "CPU a POST: server ").map { line[$0.upperBound...].prefix { $0 != "|" }.split(separator: " ").compactMap { Double($0) } }
        }
        #expect(printedPostCPU.count == 2 && printedPostCPU.allSatisfy { $0.count == 2 && $0[0] > 0 && $0[1] >= 0 }, "\(result.stdout)")
        // No cluster's CPU on SQLite.
        #expect(!result.stdout.contains(", PostgreSQL "), "\(result.stdout)")
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.first?.first == "accounts" && rows.count == 3)
        // The payments an account's history query found: about two at the first step (200 over
        // its 100 bulk accounts), about 0.7 at the second (350 over 500, most on the first 100):
        // the first step's 1,200 POSTed payments went to accounts the queries do not read (had
        // they gone anywhere, about 2.2 at the second, a query finding at most ten).
        let found = result.stdout.split(separator: "\n").compactMap { line in
            line.range(of: "| history: ").flatMap { Double(line[$0.upperBound...].prefix { $0 != " " }) }
        }
        #expect(found.count == 2 && found[0] > 1 && found[0] < 3 && found[1] > 0.2 && found[1] < 1.2, "\(found) \(result.stdout)")
        // And where in each step's 3,000 queries the slowest 1% fell: ten tenths, at least the
        // 30 at or over the p99 (more where times tie).
        let slowest = result.stdout.split(separator: "\n").compactMap { line in
            // The ten counts, up to the disk's figures after them.
            line.range(of: "the slowest 1% by tenth of the queries ").map { line[$0.upperBound...].prefix { $0 != "|" && $0 != "," }.split(separator: " ").compactMap { Int($0) } }
        }
        #expect(slowest.count == 2 && slowest.allSatisfy { $0.count == 10 && $0.reduce(0, +) >= 30 }, "\(slowest) \(result.stdout)")
        // And the disk's reads of the ledger's file past the page cache just before and after
        // them, from `bench disk` in a process of its own: two p99s and two p50s a step.
        let disk = result.stdout.split(separator: "\n").compactMap { line in
            line.range(of: "the disk's 8 KiB reads just before and after them p99 ").map {
                line[$0.upperBound...].prefix { $0 != "|" }.split(whereSeparator: { " ,()".contains($0) }).compactMap { Double($0) }
            }
        }
        #expect(disk.count == 2 && disk.allSatisfy { $0.count == 4 && $0.allSatisfy { $0 > 0 } && $0[0] >= $0[2] && $0[1] >= $0[3] }, "\(disk) \(result.stdout)")
        // Each step at its size (every second bulk account with a trustline), a new process's
        // load and memory measured, commits made, a server started and loaded over HTTP; the
        // second step's 50 warm-up payments after its 300 (the first's warm-up 0).
        #expect(rows.dropFirst().map { "\($0[0]),\($0[2])" } == ["1100,200", "1500,350"])
        #expect(rows.dropFirst().map { (Int($0[1]) ?? 0) >= (Int($0[0])! - 1000) / 2 } == [true, true])
        let header = rows[0].map(String.init)
        for ((row, rounds), postRounds) in zip(zip(rows.dropFirst(), printedRounds), printedPostRounds) {
            let value = { (name: String) in Double(row[header.firstIndex(of: name)!]) ?? -1 }
            #expect(abs(value("gets_per_second") - rounds.sorted()[1]) <= 1, "\(row) \(rounds)")
            // Two POST rounds: the lower one is the median.
            #expect(abs(value("posts_per_second") - postRounds.sorted()[0]) <= 1, "\(row) \(postRounds)")
            #expect(value("load_seconds") >= 0 && value("resident_bytes") > 1_000_000 && value("bytes_per_account") > 0, "\(row)")
            #expect(value("bytes_per_trustline") > 0 && value("commits_per_second") > 0 && value("serve_start_seconds") > 0, "\(row)")
            #expect(value("posts_per_second") > 0 && value("gets_per_second") > 0 && value("serve_resident_bytes") > 1_000_000, "\(row)")
            // The gateway's store grown to the step (then the 600 measured), and its rate.
            #expect(value("card_payments") >= 1_300 && value("card_payments_per_second") > 0, "\(row)")
            // How much of the ledger's file the page cache held as the commits and the POSTs began
            // (a file this small, just written and read: most of it).
            #expect(value("cached_at_commits") > 0 && value("cached_at_commits") <= 1 && value("cached_at_posts") > 0 && value("cached_at_posts") <= 1, "\(row)")
            // Without --beside, no new network was measured beside the step.
            #expect(value("beside_commits_per_second") == -1 && !result.stdout.contains("beside it"), "\(row)")
        }
        #expect(rows.dropFirst().map { Int($0[header.firstIndex(of: "card_payments")!])! } == [1_300, 2_000])
        // The data directory is gone unless kept.
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("tender-scale-") }.isEmpty)
        let chart = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(chart.hasPrefix("<svg") && chart.contains("polyline") && chart.contains(">1500<"))
        // The same chart drawn again from the CSV alone.
        let redrawn = temporary.file("redrawn.svg")
        #expect(try await Tender.run(["bench", "scale", "--replot", csv, "--svg", redrawn]).status == 0)
        let again = try String(contentsOfFile: redrawn, encoding: .utf8)
        #expect(again.hasPrefix("<svg") && again.contains("polyline") && again.contains(">1500<") && again.contains("card payments"))
        // The steps must ascend, and the first must hold more than the senders.
        #expect(try await Tender.run(["bench", "scale", "--accounts", "5000,2000", "--payments", "1,2"]).stderr.contains("ascending"))
        #expect(try await Tender.run(["bench", "scale", "--accounts", "1001", "--payments", "1"]).stderr.contains("more than 1001 accounts"))
        #expect(try await Tender.run(["bench", "scale", "--accounts", "1100", "--payments", "1", "--read-rounds", "0"]).stderr.contains("--read-rounds must be positive"))
        #expect(try await Tender.run(["bench", "scale", "--accounts", "1100", "--payments", "1", "--beside", "1001"]).stderr.contains("--beside needs more than 1001"))
        #expect(try await Tender.run(["bench", "scale", "--accounts", "1100", "--payments", "1", "--warm-up=-1"]).stderr.contains("--warm-up must not be negative"))
        #expect(try await Tender.run(["bench", "scale", "--accounts", "1100,1200", "--payments", "1,2", "--warm-up", "0,-1"]).stderr.contains("--warm-up must not be negative"))
        #expect(try await Tender.run(["bench", "scale", "--accounts", "1100,1200", "--payments", "1,2", "--warm-up", "0,1,2"]).stderr.contains("one for each step (2 here)"))
        #expect(try await Tender.run(["bench", "scale", "--accounts", "1100", "--payments", "1", "--warm-up", "ten"]).stderr.contains("one for each step (1 here)"))
        #expect(try await Tender.run(["bench", "load", "--database", temporary.file("none.sqlite")]).status != 0)
    }

    /// A kept network grown further by another run, its accounts and payments found and counted.
    @Test func theScaleBenchmarkGoesOnFromAKeptNetwork() async throws {
        let temporary = TemporaryDirectory("scale-bench-resume")
        defer { temporary.remove() }
        let first = try await Tender.run([
            "bench", "scale", "--accounts", "1100", "--payments", "200", "--transactions", "100", "--requests", "0",
            "--directory", temporary.path, "--keep",
        ], timeout: 600)
        #expect(first.status == 0, "\(first.stderr)")
        let kept = try #require(first.stdout.split(separator: "\n").first { $0.hasPrefix("data directory kept: ") }).dropFirst("data directory kept: ".count)
        let csv = temporary.file("resumed.csv")
        let resumed = try await Tender.run([
            "bench", "scale", "--resume", String(kept), "--accounts", "1300", "--payments", "400", "--transactions", "100", "--requests", "0", "--csv", csv,
            "--beside", "1050", "--directory", temporary.path,
        ], timeout: 600)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        // A new network of 1,050 accounts and payments measured just before and just after the
        // step, each a fresh copy (the same counts both times), and the step's figures against
        // theirs; their copies are gone after the run.
        let besideLines = resumed.stdout.split(separator: "\n").filter { $0.contains("a new network beside it") }
        #expect(besideLines.count == 2 && besideLines.allSatisfy { $0.contains("1050 accounts, 25 trustlines, 1050 payments") }, "\(resumed.stdout)")
        let ratios = try #require(resumed.stdout.split(separator: "\n").first { $0.contains("against the new network beside it: rates commits ") })
        #expect(ratios.contains("%") && ratios.contains("; p99 commits ") && ratios.contains("x") && ratios.contains("POST -"), "\(ratios)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("tender-scale-beside-") }.isEmpty)
        // 200 grown payments, the 100 measured, and the senders' and measured accounts' creations.
        #expect(resumed.stdout.contains("going on from 1100 accounts and "))
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.count == 2 && rows[1][0] == "1300" && (Int(rows[1][2]) ?? 0) >= 400)
        let besideRate = rows[0].firstIndex(of: "beside_commits_per_second").flatMap { Double(rows[1][$0]) } ?? 0
        #expect(besideRate > 0, "\(rows)")
        // The printed share is the CSV's rate over the new network's, within what rounding both
        // rates to whole numbers in the CSV (±0.5 each) and the share to a whole percent can move it.
        let stepRate = Double(rows[1][rows[0].firstIndex(of: "commits_per_second")!])!
        let printedShare = ratios.components(separatedBy: "rates commits ").last.flatMap { Double($0.prefix { $0.isNumber }) } ?? -100
        let rounding = 100 * 0.5 / (besideRate - 0.5) * (1 + (stepRate + 0.5) / besideRate) + 0.5
        #expect(abs(printedShare - stepRate / besideRate * 100) <= rounding, "\(ratios) \(stepRate) \(besideRate)")
        // Measured twice, each measure followed by a new network's: three new-network measures,
        // each measure's shares of the two around it, and their medians (for two, the mean).
        let repeatedCSV = temporary.file("repeated.csv")
        let repeated = try await Tender.run([
            "bench", "scale", "--resume", String(kept), "--accounts", "1300", "--payments", "400", "--transactions", "100", "--requests", "0",
            "--csv", repeatedCSV, "--beside", "1050", "--repeats", "2", "--directory", temporary.path,
        ], timeout: 600)
        #expect(repeated.status == 0, "\(repeated.stderr)")
        let lines = repeated.stdout.split(separator: "\n")
        #expect(lines.filter { $0.contains("a new network beside it, ") }.count == 3, "\(repeated.stdout)")
        let measureRates = lines.filter { $0.contains("measure ") && $0.contains(" of 2: 1300 accounts") }.compactMap { line in
            Double(line.split(separator: "|")[3].trimmingCharacters(in: .whitespaces).prefix { $0.isNumber })
        }
        #expect(measureRates.count == 2, "\(repeated.stdout)")
        let shares = lines.filter { $0.contains("against the new network measured around it: rates commits ") }.compactMap { line in
            line.components(separatedBy: "rates commits ").last.flatMap { Double($0.prefix { $0.isNumber }) }
        }
        let median = try #require(lines.first { $0.contains("the median of 2 measures' shares: rates commits ") })
        let medianShare = median.components(separatedBy: "rates commits ").last.flatMap { Double($0.prefix { $0.isNumber }) } ?? -100
        #expect(shares.count == 2 && abs(medianShare - (shares[0] + shares[1]) / 2) <= 1, "\(shares) \(median)")
        let repeatedRows = try String(contentsOfFile: repeatedCSV, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let medianRate = Double(repeatedRows[1][repeatedRows[0].firstIndex(of: "commits_per_second")!]) ?? -1
        #expect(measureRates.count == 2 && abs(medianRate - (measureRates[0] + measureRates[1]) / 2) <= 1, "\(measureRates) \(medianRate)")
        #expect(try await Tender.run(["bench", "scale", "--accounts", "1100", "--payments", "1", "--repeats", "0"]).stderr.contains("--repeats must be positive"))
        // Kept, not deleted, after a resumed run; a directory without a network is refused.
        #expect(FileManager.default.fileExists(atPath: String(kept) + "/ledger.sqlite"))
        let empty = try await Tender.run(["bench", "scale", "--resume", temporary.file("nothing"), "--accounts", "1300", "--payments", "1"])
        #expect(empty.status != 0 && empty.stderr.contains("holds no ledger"))
        // `bench history` finds the 1,300 accounts and reads their payments: about 600 landed
        // on the 300 bulk accounts, so some queries find some.
        let history = try await Tender.run(["bench", "history", "--database", String(kept) + "/ledger.sqlite", "--queries", "200"])
        #expect(history.status == 0, "\(history.stderr)")
        let historyLines = history.stdout.split(separator: "\n").map(String.init)
        let line = historyLines.first ?? ""
        #expect(line.hasPrefix("200 queries over 1300 accounts, "), "\(line)")
        // Where the slowest 1% (at least two of 200) were asked, by tenth of the queries.
        let byTenth = historyLines.dropFirst().first.flatMap { $0.split(separator: ": ").last }.map { $0.split(separator: " ").compactMap { Int($0) } } ?? []
        #expect(byTenth.count == 10 && byTenth.reduce(0, +) >= 2, "\(history.stdout)")
        let found = line.split(separator: " ").dropFirst(5).first.flatMap { Double($0) } ?? 0
        #expect(found > 0 && found <= 10, "\(line)")
        #expect(line.contains(" p50 ") && line.contains(" p99 "), "\(line)")
        let notGrown = try await Tender.run(["bench", "history", "--database", temporary.file("nothing.sqlite")])
        #expect(notGrown.status != 0 && notGrown.stderr.contains("no database"))
    }

    /// `bench disk` times reads of 8 KiB at random places of files past the page cache.
    @Test func theDiskProbeTimesReadsPastThePageCache() async throws {
        let temporary = TemporaryDirectory("disk-probe")
        defer { temporary.remove() }
        let (large, small, tiny) = (temporary.file("large"), temporary.file("small"), temporary.file("tiny"))
        #expect(FileManager.default.createFile(atPath: large, contents: Data(repeating: 7, count: 64 * 8_192)))
        #expect(FileManager.default.createFile(atPath: small, contents: Data(repeating: 7, count: 8_192 + 100)))
        #expect(FileManager.default.createFile(atPath: tiny, contents: Data(repeating: 7, count: 100)))
        let printed = try await Tender.run(["bench", "disk", "--file", large, "--file", small, "--reads", "300"])
        #expect(printed.status == 0, "\(printed.stderr)")
        let numbers = printed.stdout.split(whereSeparator: { " ,:\n".contains($0) }).compactMap { Double($0) }
        // 300, 8, then p50, p90, p99 and the slowest, in order.
        #expect(printed.stdout.hasPrefix("300 reads of 8 KiB past the page cache: p50 ") && numbers.count == 6, "\(printed.stdout)")
        #expect(numbers.count == 6 && numbers[2] > 0 && numbers[2] <= numbers[3] && numbers[3] <= numbers[4] && numbers[4] <= numbers[5], "\(printed.stdout)")
        let csv = try await Tender.run(["bench", "disk", "--file", large, "--csv"])
        let fields = csv.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Double($0) }
        #expect(csv.status == 0 && fields.count == 2 && fields[0] > 0 && fields[0] <= fields[1], "\(csv.stdout)")
        // A file with no whole block, a file that is not there, no file, no reads: refused.
        let noBlock = try await Tender.run(["bench", "disk", "--file", tiny])
        #expect(noBlock.status != 0 && noBlock.stderr.contains("no whole block"), "\(noBlock.stderr)")
        let missing = try await Tender.run(["bench", "disk", "--file", temporary.file("nothing")])
        #expect(missing.status != 0 && missing.stderr.contains("cannot open") && missing.stderr.contains("nothing"), "\(missing.stderr)")
        #expect(try await Tender.run(["bench", "disk"]).stderr.contains("give at least one --file"))
        #expect(try await Tender.run(["bench", "disk", "--file", large, "--reads", "0"]).stderr.contains("--reads must be above 0"))
    }

    /// With `--cards` and `--beside`, the new network's card payments are measured too, on its
    /// copy's own gateway store (which starts empty: the rate on a new database), and the step's
    /// card rate and p99 are printed against theirs and written to the CSV.
    @Test func theScaleBenchmarkMeasuresCardPaymentsBesideAStep() async throws {
        let temporary = TemporaryDirectory("scale-bench-cards-beside")
        defer { temporary.remove() }
        let csv = temporary.file("cards.csv")
        let result = try await Tender.run([
            "bench", "scale", "--accounts", "1100", "--payments", "200", "--transactions", "100", "--requests", "200",
            "--read-rounds", "1", "--post-rounds", "1", "--cards", "300", "--beside", "1050", "--directory", temporary.path, "--csv", csv, "--keep",
        ], timeout: 600)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        // Each copy's line names its 200 card payments; the step grew 300 and measured 200 more.
        let besideLines = lines.filter { $0.contains("a new network beside it, ") }
        #expect(besideLines.count == 2 && besideLines.allSatisfy { $0.contains("| 200 card payments: ") }, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("1100 accounts") && $0.contains("| 500 card payments: ") }, "\(result.stdout)")
        // The step's 300, through the server before the step's measures (with no checkpoint on SQLite).
        #expect(lines.contains { $0.hasPrefix("  300 card payments through the server, before the step's warm-up and measures: ") }, "\(result.stdout)")
        #expect(!result.stdout.contains("checkpoints while measured"), "\(result.stdout)")
        let ratios = try #require(lines.first { $0.contains("against the new network beside it: rates commits ") })
        func printed(_ after: String) -> Double {
            ratios.components(separatedBy: after).dropFirst().first.flatMap { Double($0.prefix { $0.isNumber || $0 == "." }) } ?? -100
        }
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        func value(_ name: String) -> Double { rows[0].firstIndex(of: name).flatMap { Double(rows[1][$0]) } ?? -1 }
        let (stepRate, besideRate) = (value("card_payments_per_second"), value("beside_card_payments_per_second"))
        let (stepP99, besideP99) = (value("card_p99_ms"), value("beside_card_p99_ms"))
        #expect(stepRate > 0 && besideRate > 0 && stepP99 > 0 && besideP99 > 0, "\(rows)")
        // The share and the multiple are the CSV's figures over the new network's, within what
        // rounding them in the CSV (rates to whole numbers, p99s to hundredths) and in print moves them.
        let rounding = 100 * 0.5 / (besideRate - 0.5) * (1 + (stepRate + 0.5) / besideRate) + 0.5
        #expect(abs(printed(", cards ") - stepRate / besideRate * 100) <= rounding, "\(ratios) \(stepRate) \(besideRate)")
        let p99Rounding = 0.005 / (besideP99 - 0.005) * (1 + (stepP99 + 0.005) / besideP99) + 0.005
        let p99Part = try #require(ratios.components(separatedBy: "; p99 ").last)
        let printedP99 = p99Part.components(separatedBy: ", cards ").dropFirst().first.flatMap { Double($0.prefix { $0.isNumber || $0 == "." }) } ?? -100
        #expect(abs(printedP99 - stepP99 / besideP99) <= p99Rounding, "\(ratios) \(stepP99) \(besideP99)")

        // Going on from the kept network, its store's 500 card payments count toward the step:
        // 100 more reach 600, then 200 are measured (by another merchant, made by this run).
        let kept = try #require(lines.first { $0.hasPrefix("data directory kept: ") }).dropFirst("data directory kept: ".count)
        let resumed = try await Tender.run([
            "bench", "scale", "--resume", String(kept), "--accounts", "1100", "--payments", "200", "--transactions", "100", "--requests", "200",
            "--read-rounds", "1", "--post-rounds", "1", "--cards", "600",
        ], timeout: 600)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains(", its gateway's store holding 500 card payments"), "\(resumed.stdout)")
        #expect(resumed.stdout.split(separator: "\n").contains { $0.hasPrefix("1100 accounts") && $0.contains("| 800 card payments: ") }, "\(resumed.stdout)")
        // The store holds them: 500 of the first run's merchant, 300 of the second's.
        let held = try await Self.cardPaymentsByMerchant(try SQLiteGatewayStore(path: String(kept) + "/gateway.sqlite"))
        #expect(held == [500, 300], "\(held)")
    }

    /// Each merchant's payment intents in `store`, the oldest merchant's first, paged through.
    static func cardPaymentsByMerchant(_ store: any GatewayStore) async throws -> [Int] {
        var held: [Int] = []
        for merchant in try await store.merchants() {
            var (count, after): (Int, String?) = (0, nil)
            while true {
                let page = try await store.list(kind: "payment_intent", merchant: merchant.id, ListRequest(limit: 100, startingAfter: after))
                count += page.objects.count
                after = page.objects.last?.id
                if !page.hasMore { break }
            }
            held.append(count)
        }
        return held
    }

    /// `--sqlite-cache` outside 1-65536 MiB is refused before anything opens.
    @Test func serveRefusesAnSQLiteCacheOutOfRange() async throws {
        let temporary = TemporaryDirectory("cli-cache")
        defer { temporary.remove() }
        for value in ["0", "65537", "-4"] {
            let result = try await Tender.run(["serve", "--port", "0", "--data", temporary.path, "--sqlite-cache=\(value)"])
            #expect(result.status != 0 && result.stderr.contains("is not between 1 and 65536"), "\(value): \(result.stderr)")
        }
        let environment = try await Tender.run(["serve", "--port", "0", "--data", temporary.path], environment: ["TENDER_SQLITE_CACHE": "lots"])
        #expect(environment.status != 0 && environment.stderr.contains("TENDER_SQLITE_CACHE=lots is not a number"), "\(environment.stderr)")
    }

    /// `--sqlite-wal-pages` outside 1,024-16,777,216 pages is refused before anything opens, and
    /// so is a `TENDER_SQLITE_WAL_PAGES` that is not a number or out of range.
    @Test func serveRefusesAnSQLiteWALLimitOutOfRange() async throws {
        let temporary = TemporaryDirectory("cli-wal")
        defer { temporary.remove() }
        for value in ["1023", "16777217", "-1"] {
            let result = try await Tender.run(["serve", "--port", "0", "--data", temporary.path, "--sqlite-wal-pages=\(value)"])
            #expect(result.status != 0 && result.stderr.contains("is not between 1024 and 16777216"), "\(value): \(result.stderr)")
        }
        let words = try await Tender.run(["serve", "--port", "0", "--data", temporary.path], environment: ["TENDER_SQLITE_WAL_PAGES": "many"])
        #expect(words.status != 0 && words.stderr.contains("TENDER_SQLITE_WAL_PAGES=many is not a number"), "\(words.stderr)")
        let small = try await Tender.run(["serve", "--port", "0", "--data", temporary.path], environment: ["TENDER_SQLITE_WAL_PAGES": "12"])
        #expect(small.status != 0 && small.stderr.contains("the SQLite WAL limit 12 pages is not between"), "\(small.stderr)")
        #expect(!FileManager.default.fileExists(atPath: temporary.path + "/ledger.sqlite"))
    }

    /// The same series grown in PostgreSQL: the store, `bench load` and the server all on it,
    /// with a new network beside the step in a database of its own in the same cluster.
    @Test func theScaleBenchmarkRunsOnPostgreSQL() async throws {
        let postgres = try await TemporaryPostgres.start()
        let temporary = TemporaryDirectory("scale-bench-postgres")
        defer { temporary.remove() }
        let csv = temporary.file("scale.csv")
        let result = try await Tender.run([
            "bench", "scale", "--accounts", "1100", "--payments", "200", "--transactions", "300", "--requests", "300",
            "--beside", "1050", "--warm-up", "150", "--directory", temporary.path, "--database", postgres.url, "--csv", csv,
        ], timeout: 600)
        // A database that already holds a ledger is refused.
        let again = try await Tender.run(["bench", "scale", "--accounts", "1100", "--payments", "1", "--directory", temporary.path, "--database", postgres.url])
        // The new network's database and its copies are gone after the run.
        let left: [String]
        do {
            let cluster = try PostgresStore.PostgresDatabase(url: postgres.url)
            defer { cluster.shutdown() }
            left = try await cluster.databases(prefixed: "tender_beside")
        }
        await postgres.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = rows[0], row = rows[1]
        let value = { (name: String) in Double(row[header.firstIndex(of: name)!]) ?? -1 }
        #expect(value("accounts") == 1100 && value("trustlines") >= 50 && value("posts_per_second") > 0 && value("gets_per_second") > 0, "\(row)")
        // The step's 200 payments and the warm-up's 150 after them, before it was measured.
        #expect(value("payments") == 350, "\(row)")
        // PostgreSQL's own size of the database, well above an empty one's few megabytes.
        #expect(value("database_bytes") > 5_000_000 && value("resident_bytes") > 1_000_000, "\(row)")
        #expect(again.status != 0 && again.stderr.contains("already holds a ledger"))
        // The new network measured before and after the step, on PostgreSQL too (its server and
        // `bench load` on the copy: a POST and GET rate, a load), and the step against it.
        let besideLines = result.stdout.split(separator: "\n").filter { $0.contains("a new network beside it") }
        #expect(besideLines.count == 2 && besideLines.allSatisfy { $0.contains("1050 accounts, 25 trustlines, 1050 payments") }, "\(result.stdout)")
        #expect(result.stdout.contains("against the new network beside it: rates commits "), "\(result.stdout)")
        for column in ["beside_commits_per_second", "beside_posts_per_second", "beside_gets_per_second", "beside_history_p99_ms"] {
            #expect(value(column) > 0, "\(column): \(row)")
        }
        #expect(left.isEmpty, "\(left)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("tender-scale-") }.isEmpty)
        // The cluster's CPU a POST beside the server's, for the step and both new networks (in
        // clock ticks, so a few hundred POSTs may read 0).
        let clusterCPU = result.stdout.split(separator: "\n").compactMap { line in
            line.range(of: ", PostgreSQL ").flatMap { Double(line[$0.upperBound...].prefix { $0 != " " }) }
        }
        #expect(clusterCPU.count == 3 && clusterCPU.allSatisfy { $0 >= 0 }, "\(result.stdout)")
        // The disk probed around each history measure (the step's and both new networks') over
        // the segments of the cluster's `transactions` table, where this process may read them.
        let probed = result.stdout.split(separator: "\n").filter { $0.contains("the disk's 8 KiB reads just before and after them p99 ") }
        if geteuid() == 0 { #expect(probed.count == 3, "\(result.stdout)") }
    }

    /// A kept PostgreSQL network's card payments, in its database's gateway tables, count
    /// toward a resumed run's steps as a SQLite network's do.
    @Test func theScaleBenchmarkGoesOnFromAKeptPostgreSQLNetworksCardPayments() async throws {
        let postgres = try await TemporaryPostgres.start()
        let temporary = TemporaryDirectory("scale-bench-postgres-cards")
        defer { temporary.remove() }
        let measure = ["--transactions", "100", "--requests", "100", "--read-rounds", "1", "--post-rounds", "1", "--database", postgres.url]
        let requested = { (database: PostgresStore.PostgresDatabase) in
            try await database.rows("SELECT checkpoints_req FROM pg_stat_bgwriter") { try $0.decode(Int64.self) }.first ?? -1
        }
        let requestedBefore: Int64
        do {
            let database = try PostgresStore.PostgresDatabase(url: postgres.url)
            defer { database.shutdown() }
            requestedBefore = try await requested(database)
        }
        let first = try await Tender.run(
            ["bench", "scale", "--accounts", "1100", "--payments", "200", "--cards", "100", "--warm-up", "50", "--directory", temporary.path, "--keep"] + measure,
            timeout: 600)
        let kept = first.stdout.split(separator: "\n").first { $0.hasPrefix("data directory kept: ") }?.dropFirst("data directory kept: ".count) ?? ""
        // 200 held: 50 more reach 250, then 100 are measured.
        let resumed = try await Tender.run(
            ["bench", "scale", "--resume", String(kept), "--accounts", "1100", "--payments", "200", "--cards", "250"] + measure, timeout: 600)
        let held: [Int]
        let requestedAfter: Int64
        do {
            let database = try PostgresStore.PostgresDatabase(url: postgres.url)
            defer { database.shutdown() }
            held = try await Self.cardPaymentsByMerchant(try await PostgresGatewayStore(database))
            requestedAfter = try await requested(database)
        } catch {
            await postgres.stop()
            throw error
        }
        await postgres.stop()
        #expect(first.status == 0 && !kept.isEmpty, "\(first.stderr)")
        // The step's card payments through the server, then a checkpoint and the warm-up, then
        // the measure, which tells the checkpoints it met: the card payments' writes are not
        // among the measures', and the warm-up's first changes after the checkpoint come first.
        let lines = first.stdout.split(separator: "\n")
        let order = [
            lines.firstIndex { $0.hasPrefix("  100 card payments through the server, before the step's warm-up and measures: ") },
            lines.firstIndex { $0.hasPrefix("  warm-up: 50 payments after a checkpoint; ") && $0.contains(" MB of WAL, 0 checkpoints started") },
            lines.firstIndex { $0.hasPrefix("1100 accounts") && $0.contains("| 200 card payments: ") && $0.contains(" | checkpoints while measured: ") && $0.contains(" MB of WAL") },
        ]
        #expect(order.allSatisfy { $0 != nil } && order == order.sorted { $0! < $1! }, "\(first.stdout)")
        #expect(first.stdout.contains("250 payments"), "\(first.stdout)")
        // The bench's CHECKPOINT, the only one asked for (no database beside it to drop).
        #expect(requestedAfter > requestedBefore, "\(requestedBefore) \(requestedAfter)")
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains(", its gateway's store holding 200 card payments"), "\(resumed.stdout)")
        #expect(resumed.stdout.split(separator: "\n").contains { $0.hasPrefix("1100 accounts") && $0.contains("| 350 card payments: ") }, "\(resumed.stdout)")
        #expect(held == [200, 150], "\(held)")
    }

    @Test func serveRefusesABadPort() async throws {
        let result = try await Tender.run(["serve", "--port", "70000"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("70000"))
    }
}
