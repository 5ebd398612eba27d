import Foundation
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
        // The test bundle lives in the products directory, beside the executable.
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("tender").path), directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("tender")
    }

    /// Runs the binary to the end; one still running after `timeout` seconds is terminated, so a
    /// command that hangs fails its test instead of hanging the suite.
    static func run(_ arguments: [String], input: String? = nil, timeout: TimeInterval = 120) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
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

        init(process: Process, output: Pipe) {
            self.process = process
            self.output = output
        }

        /// The base URL printed in the banner, within 30 seconds.
        func waitForURL() async throws -> String {
            let handle = output.fileHandleForReading
            var text = ""
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let chunk = handle.availableData
                if chunk.isEmpty { try await Task.sleep(for: .milliseconds(20)); continue }
                text += String(decoding: chunk, as: UTF8.self)
                if let range = text.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) {
                    return String(text[range])
                }
            }
            throw URLError(.timedOut)
        }
    }

    static func start(_ arguments: [String]) throws -> Server {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return Server(process: process, output: output)
    }
}
