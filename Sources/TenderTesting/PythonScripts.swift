import Foundation

/// Runs the project's Python scripts (interop checks with clients Tender did not write) in the
/// environment Scripts/python-env.sh makes when missing.
public enum PythonScripts {
    /// The package's root directory.
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs `script` (relative to the package root) with `arguments`; its exit status and its
    /// standard output and error, together.
    public static func run(_ script: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/bin/bash")
        python.arguments = ["-c", #"source Scripts/python-env.sh && exec "$TENDER_PYTHON" "$@""#, "interop", script] + arguments
        python.currentDirectoryURL = packageRoot
        let output = Pipe()
        python.standardOutput = output
        python.standardError = output
        try python.run()
        let text = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                python.waitUntilExit()
                continuation.resume(returning: text)
            }
        }
        return (python.terminationStatus, text)
    }
}
