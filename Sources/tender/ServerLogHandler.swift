import Logging

/// Standard error logging that keeps metadata as given and formats it only when a message is
/// actually written. (`StreamLogHandler` formats all metadata every time a key is set, and the
/// HTTP server sets a request id on every request, which cost about 6% of a small request.)
struct ServerLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    private let label: String

    init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = logLevel
        handler.metadata = metadata
        handler.log(level: level, message: message, metadata: extra, source: source, file: file, function: function, line: line)
    }
}
