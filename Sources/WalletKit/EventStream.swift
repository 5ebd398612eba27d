import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One server-sent event (the `text/event-stream` format Horizon streams in).
public struct ServerSentEvent: Sendable, Equatable {
    public var id: String?
    public var event: String?
    /// The `data` lines, joined by newlines.
    public var data: String
    /// The reconnection delay the server asked for, in milliseconds.
    public var retry: Int?

    public init(id: String? = nil, event: String? = nil, data: String = "", retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }
}

/// Splits a `text/event-stream` body into events as its bytes arrive, in chunks cut anywhere.
/// Lines end with LF, CRLF or CR; comments (`:`) are skipped; an event ends at a blank line.
public struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    private var pending = ServerSentEvent()
    private var hasFields = false
    private var dataLines: [String] = []
    /// The previous chunk ended with CR, so an LF opening this one belongs to it.
    private var afterCR = false

    public init() {}

    /// Feeds the next bytes and returns the events they complete.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [ServerSentEvent] where Bytes.Element == UInt8 {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\r"):
                afterCR = true
                endLine(&events)
            case UInt8(ascii: "\n"):
                endLine(&events)
            default:
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine(_ events: inout [ServerSentEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            if hasFields {
                pending.data = dataLines.joined(separator: "\n")
                events.append(pending)
            }
            pending = ServerSentEvent()
            dataLines.removeAll()
            hasFields = false
            return
        }
        if line.first == UInt8(ascii: ":") { return }
        let text = String(decoding: line, as: UTF8.self)
        let field: Substring, value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            let rest = text[text.index(after: colon)...]
            value = rest.first == " " ? rest.dropFirst() : rest
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "data": dataLines.append(String(value))
        case "id": pending.id = String(value)
        case "event": pending.event = String(value)
        case "retry":
            guard let milliseconds = Int(value), milliseconds >= 0 else { return }
            pending.retry = milliseconds
        default: return
        }
        hasFields = true
    }
}

extension URLSessionTransport {
    /// Opens `request` and yields its body as it arrives, until the server closes it or the
    /// consumer stops iterating (which cancels the request).
    /// - Throws: ``HorizonProblem`` for an answer that is not 2xx; the session's error when the
    ///   connection fails.
    public func stream(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            let delegate = StreamingDelegate(continuation)
            let session = URLSession(configuration: self.session.configuration, delegate: delegate, delegateQueue: nil)
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                // Not here and now: a consumer's cancellation runs this holding its task's lock,
                // and cancelling waits for the session's queue, which may be waiting for that
                // lock to hand over the last chunk.
                DispatchQueue.global().async {
                    task.cancel()
                    session.invalidateAndCancel()
                }
            }
            task.resume()
        }
    }
}

/// Hands a streaming answer's bytes to an AsyncThrowingStream. URLSession calls a delegate one
/// callback at a time on its own queue, so the mutable state is never touched concurrently.
private final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var status = 0
    private var errorBody = Data()

    init(_ continuation: AsyncThrowingStream<Data, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if (200..<300).contains(status) {
            continuation.yield(data)
        } else {
            errorBody.append(data)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            continuation.finish(throwing: error)
        } else if !(200..<300).contains(status) {
            continuation.finish(throwing: HorizonProblem(status: status, body: errorBody))
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
