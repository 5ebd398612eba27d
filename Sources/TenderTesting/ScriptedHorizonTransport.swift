import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WalletKit

/// A Horizon transport for client tests: each stream request gets the next step of a script
/// (events sent byte by byte, a failed connection, or a problem answer), and every URL asked
/// for is recorded. Plain requests are not part of a script: they are answered 500 and kept in
/// ``unexpectedRequests`` for the test to check.
public final class ScriptedHorizonTransport: HorizonTransport, @unchecked Sendable {
    public enum Step: Sendable {
        /// A stream that delivers this text, then ends.
        case events(String)
        /// A connection that fails (`URLError.cannotConnectToHost`).
        case failure
        /// A problem+json answer with this status.
        case problem(Int)
    }

    private let lock = NSLock()
    private var scripts: [Step]
    private var requested: [URL] = []
    private var unexpected: [URLRequest] = []

    public init(_ scripts: [Step]) { self.scripts = scripts }

    /// The URLs of the stream requests, in order.
    public var urls: [URL] { lock.withLock { requested } }
    /// Plain requests, which no script answers.
    public var unexpectedRequests: [URLRequest] { lock.withLock { unexpected } }

    public func send(_ request: URLRequest) async throws -> (status: Int, body: Data) {
        lock.withLock { unexpected.append(request) }
        return (500, Data())
    }

    public func stream(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error> {
        let step: Step? = lock.withLock {
            if let url = request.url { requested.append(url) }
            return scripts.isEmpty ? nil : scripts.removeFirst()
        }
        return AsyncThrowingStream { continuation in
            switch step {
            case .events(let text):
                for byte in text.utf8 { continuation.yield(Data([byte])) }
                continuation.finish()
            case .failure:
                continuation.finish(throwing: URLError(.cannotConnectToHost))
            case .problem(let status):
                let body = #"{"type":"https://stellar.org/horizon-errors/bad_request","title":"Bad Request","status":\#(status),"detail":"refused by the script"}"#
                continuation.finish(throwing: HorizonProblem(status: status, body: Data(body.utf8)))
            case nil:
                // Out of script: a connection that stays open with nothing on it.
                break
            }
        }
    }
}
