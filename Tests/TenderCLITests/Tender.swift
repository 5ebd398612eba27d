import Foundation
import TenderTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs the `tender` executable that SwiftPM built next to the tests.
enum Tender {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static var executable: URL {
        // Another build's binary when asked (a release build for the drills at scale).
        if let path = ProcessInfo.processInfo.environment["TENDER_EXECUTABLE"] { return URL(fileURLWithPath: path) }
        // The test bundle lives in the products directory, beside the executable.
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("tender").path), directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("tender")
    }

    /// Runs the binary to the end (with `environment` added to this process's); one still running
    /// after `timeout` seconds is terminated, so a command that hangs fails its test instead of
    /// hanging the suite.
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:], timeout: TimeInterval = 120) async throws -> Result {
        let finished = try await ChildProcess.run(
            executable.path, arguments, environment: environment, directory: nil, input: input, timeout: timeout)
        return Result(status: finished.signalled ? -finished.status : finished.status, stdout: finished.output, stderr: finished.error)
    }

    /// A running `tender serve` whose standard output is kept as it arrives.
    typealias Server = RunningChild

    /// Starts the binary; its standard error (the log) goes to `errorLog` when given.
    static func start(_ arguments: [String], errorLog: String? = nil) async throws -> Server {
        try await RunningChild.start(executable.path, arguments, errorLog: errorLog)
    }
}

extension RunningChild {
    /// The base URL printed in the banner. A server that prints none within 30 seconds is
    /// terminated, which ends its output and fails the wait.
    func waitForURL(timeout: TimeInterval = 30) async throws -> String {
        guard let url = await waitForOutput(matching: #"http://127\.0\.0\.1:\d+"#, timeout: timeout) else { throw URLError(.timedOut) }
        return url
    }
}

/// Where a test's `tender serve` keeps everything: the SQLite default, or a throwaway
/// PostgreSQL; `postgresFollower` starts two nodes on it and the test talks to the follower
/// (its reads from the database, the rest forwarded to the leader).
enum ServedStore: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres
    case postgresFollower

    var description: String { rawValue }
}

/// A `tender serve` (or a leader and its follower) for a test, on a ``ServedStore``.
final class ServedTender: Sendable {
    /// The address the test talks to.
    let url: String
    let nodes: [Tender.Server]
    let postgres: TemporaryPostgres?

    private init(url: String, nodes: [Tender.Server], postgres: TemporaryPostgres?) {
        self.url = url
        self.nodes = nodes
        self.postgres = postgres
    }

    /// Starts `tender` with `arguments` (a `serve` command line) on `store`; the leader's log
    /// goes to `errorLog`, a follower's beside it with `.follower` added.
    static func start(_ store: ServedStore, _ arguments: [String], errorLog: String? = nil) async throws -> ServedTender {
        guard store != .sqlite else {
            let server = try await Tender.start(arguments, errorLog: errorLog)
            do {
                return ServedTender(url: try await server.waitForURL(), nodes: [server], postgres: nil)
            } catch {
                if server.isRunning { server.terminate() }
                throw error
            }
        }
        let postgres = try await TemporaryPostgres.start()
        var nodes: [Tender.Server] = []
        do {
            let leader = try await Tender.start(arguments + ["--database", postgres.url], errorLog: errorLog)
            nodes.append(leader)
            var url = try await leader.waitForURL()
            if store == .postgresFollower {
                let follower = try await Tender.start(arguments + ["--database", postgres.url], errorLog: errorLog.map { $0 + ".follower" })
                nodes.append(follower)
                url = try await follower.waitForURL()
            }
            return ServedTender(url: url, nodes: nodes, postgres: postgres)
        } catch {
            for node in nodes where node.isRunning { node.terminate() }
            await postgres.stop()
            throw error
        }
    }

    /// Stops every node (their logs are complete then), then the database.
    func stop() async {
        await stopNodes()
        await postgres?.stop()
    }

    /// Stops every node; the database stays until ``stop()``.
    func stopNodes() async {
        for node in nodes.reversed() where node.isRunning {
            node.terminate()
            _ = await node.waitForExit(timeout: 30)
        }
    }

    /// Every file under the PostgreSQL cluster's directory (empty on SQLite): checked like the
    /// data directory's for what must never reach disk.
    func databaseFiles() -> [String] {
        guard let postgres else { return [] }
        let root = postgres.directory
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let name = enumerator?.nextObject() as? String {
            // Regular files only (not the server's socket).
            if (try? FileManager.default.attributesOfItem(atPath: root + "/" + name)[.type] as? FileAttributeType) == .typeRegular {
                files.append(root + "/" + name)
            }
        }
        return files
    }
}

extension ServedTender {
    /// Runs `body` with a server on `store`, and stops it (and its database) however `body` ends.
    static func with(_ store: ServedStore, _ arguments: [String], errorLog: String? = nil, _ body: (ServedTender) async throws -> Void) async throws {
        let served = try await start(store, arguments, errorLog: errorLog)
        do {
            try await body(served)
        } catch {
            await served.stop()
            throw error
        }
        await served.stop()
    }
}
