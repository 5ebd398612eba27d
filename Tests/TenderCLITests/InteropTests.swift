import Foundation
import TenderTesting
import Testing

/// The real Python stellar-sdk (16.1.1, installed into .venv by Scripts/python-env.sh) against
/// a real `tender serve`: every check of Tests/Interop/horizon_interop.py must pass.
@Suite(.serialized)
struct InteropTests {

    /// Runs an interop script with the project's Python environment (made by
    /// Scripts/python-env.sh when missing); it must exit 0 after saying its checks passed.
    static func runPython(_ script: String, _ arguments: [String]) async throws {
        let (status, text) = try await PythonScripts.run(script, arguments)
        #expect(status == 0, "\(text)")
        #expect(text.contains("checks passed"), "\(text)")
    }

    @Test func pythonStellarSDKAgainstTenderServe() async throws {
        let temporary = TemporaryDirectory("interop")
        defer { temporary.remove() }
        let data = temporary.path
        defer { try? FileManager.default.removeItem(atPath: data) }
        // A short close interval keeps the suite quick and still exercises the ledger timer.
        let server = try Tender.start(["serve", "--port", "0", "--data", data, "--close-interval", "0.2"])
        defer { if server.process.isRunning { server.process.terminate() } }
        let url = try await server.waitForURL()

        try await Self.runPython("Tests/Interop/horizon_interop.py", [url])
    }

    /// The real `stripe` Python library (installed into .venv by Scripts/python-env.sh) against
    /// the gateway of a real `tender serve`: every check of Tests/Interop/stripe_interop.py must
    /// pass. Afterwards no card number it used is anywhere in the data directory's files or in
    /// the server's log, written at trace level.
    @Test func pythonStripeLibraryAgainstTenderServe() async throws {
        let temporary = TemporaryDirectory("stripe-interop")
        defer { temporary.remove() }
        let data = temporary.path + "/data"
        let log = temporary.path + "/server.log"
        let server = try Tender.start(["serve", "--port", "0", "--data", data, "--close-interval", "0.05", "--log-level", "trace"], errorLog: log)
        defer { if server.process.isRunning { server.process.terminate() } }
        let url = try await server.waitForURL()
        let adminKey = try String(contentsOfFile: data + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)

        try await Self.runPython("Tests/Interop/stripe_interop.py", [url, adminKey, Tender.executable.path])

        server.process.terminate()
        _ = await server.waitForExit(timeout: 30)
        let script = try String(contentsOf: PythonScripts.packageRoot.appendingPathComponent("Tests/Interop/stripe_interop.py"), encoding: .utf8)
        let numbers = Set(script.matches(of: /"([0-9]{15,16}|4242 4242 4242 4242)"/).map { String($0.1).replacingOccurrences(of: " ", with: "") })
        #expect(numbers.count >= 15)
        let files = try FileManager.default.contentsOfDirectory(atPath: data).map { data + "/" + $0 } + [log]
        #expect(files.contains { $0.hasSuffix("gateway.sqlite") })
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            for number in numbers {
                #expect(bytes.range(of: Data(number.utf8)) == nil, "\(number) is in \(file)")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)).count > 1_000, "the trace log was written")
    }
}
