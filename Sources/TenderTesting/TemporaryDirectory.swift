import Foundation

/// A directory of its own under the system's temporary directory, removed with everything in
/// it when the value goes away (or when ``remove()`` is called).
public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory's path.
    public let path: String

    /// Creates `tender-PREFIX-UUID` in the temporary directory.
    public init(_ prefix: String = "test") {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tender-\(prefix)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Removes the directory now.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    deinit { remove() }
}
