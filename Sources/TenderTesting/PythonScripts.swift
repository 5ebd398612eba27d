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
        try await ChildProcess.run(
            "/bin/bash", ["-c", #"source Scripts/python-env.sh && exec "$TENDER_PYTHON" "$@""#, "interop", script] + arguments)
    }
}
