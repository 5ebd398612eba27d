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
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:], timeout: TimeInterval = 120) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// ``run(_:input:)`` on a thread of its own, so waiting for the process never holds one of
    /// Swift concurrency's few threads (on 2 cores, two blocked tests would stall every other).
    static func runDetached(_ arguments: [String], input: String? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Swift.Result { try run(arguments, input: input) })
            }
        }
    }

    /// Waits for a process to exit and returns everything it wrote to `output`, on a thread of
    /// its own (see ``runDetached(_:input:)``).
    static func collect(_ process: Process, output: Pipe) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                continuation.resume(returning: text)
            }
        }
    }

    /// A running `tender serve` whose standard output is read line by line.
    final class Server: @unchecked Sendable {
        let process: Process
        let output: Pipe
        /// Left when the process exits (its termination handler).
        private let exited: DispatchGroup

        init(process: Process, output: Pipe, exited: DispatchGroup) {
            self.process = process
            self.output = output
            self.exited = exited
        }

        /// The base URL printed in the banner. A server that prints none within 30 seconds is
        /// terminated, which ends its output and fails the wait.
        func waitForURL(timeout: TimeInterval = 30) async throws -> String {
            let process = self.process
            let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
            defer { watchdog.cancel() }
            let handle = output.fileHandleForReading
            let url: String? = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    var text = ""
                    while true {
                        // Blocks until the server writes; empty only at the end of its output.
                        let chunk = handle.availableData
                        if chunk.isEmpty { continuation.resume(returning: nil); return }
                        text += String(decoding: chunk, as: UTF8.self)
                        if let range = text.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) {
                            continuation.resume(returning: String(text[range]))
                            return
                        }
                    }
                }
            }
            guard let url else { throw URLError(.timedOut) }
            return url
        }

        /// Waits (on a thread of its own) until the process exits, at most `timeout` seconds;
        /// whether it exited.
        func waitForExit(timeout: TimeInterval) async -> Bool {
            let exited = self.exited
            return await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(returning: exited.wait(timeout: .now() + timeout) == .success)
                }
            }
        }
    }

    /// Starts the binary; its standard error (the log) goes to `errorLog` when given.
    static func start(_ arguments: [String], errorLog: String? = nil) throws -> Server {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        if let errorLog {
            _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: errorLog)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        let exited = DispatchGroup()
        exited.enter()
        process.terminationHandler = { _ in exited.leave() }
        try process.run()
        return Server(process: process, output: output, exited: exited)
    }

    /// Reads `output` on a thread of its own until `marker` appears or the output ends; what was
    /// read.
    static func read(_ output: Pipe, until marker: String) async -> String {
        let handle = output.fileHandleForReading
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var text = ""
                while !text.contains(marker) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    text += String(decoding: chunk, as: UTF8.self)
                }
                continuation.resume(returning: text)
            }
        }
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
            let server = try Tender.start(arguments, errorLog: errorLog)
            do {
                return ServedTender(url: try await server.waitForURL(), nodes: [server], postgres: nil)
            } catch {
                if server.process.isRunning { server.process.terminate() }
                throw error
            }
        }
        let postgres = try await TemporaryPostgres.start()
        var nodes: [Tender.Server] = []
        do {
            let leader = try Tender.start(arguments + ["--database", postgres.url], errorLog: errorLog)
            nodes.append(leader)
            var url = try await leader.waitForURL()
            if store == .postgresFollower {
                let follower = try Tender.start(arguments + ["--database", postgres.url], errorLog: errorLog.map { $0 + ".follower" })
                nodes.append(follower)
                url = try await follower.waitForURL()
            }
            return ServedTender(url: url, nodes: nodes, postgres: postgres)
        } catch {
            for node in nodes where node.process.isRunning { node.process.terminate() }
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
        for node in nodes.reversed() where node.process.isRunning {
            node.process.terminate()
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
