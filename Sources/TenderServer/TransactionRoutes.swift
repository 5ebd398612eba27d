import Foundation
import Hummingbird
import Ledger
import LedgerService
import MultipartKit
import StellarBase
import Synchronization
import TenderJSON

/// `POST /transactions`, as Horizon answers it: synchronous, the transaction resource on
/// success, problem+json with result codes on failure.
struct TransactionRoutes: Sendable {
    let writer: LedgerWriter
    let horizon: HorizonRoutes
    /// The history the writer commits to (a reading node's Horizon may lag behind it).
    let history: any LedgerReader
    /// How long `POST /transactions` waits for the ledger before answering 504 with the hash.
    let deadlines: SubmissionDeadlines
    /// The largest request body accepted (an envelope of 100 operations and 20 signatures is
    /// well under 100 KB).
    static let maxBodyBytes = 256 * 1024

    /// Asynchronous submissions not yet in a ledger, by hash (a second one is a duplicate).
    let inFlight = InFlight()

    final class InFlight: Sendable {
        private let hashes = Mutex<Set<Bytes32>>([])
        func claim(_ hash: Bytes32) -> Bool { hashes.withLock { $0.insert(hash).inserted } }
        func contains(_ hash: Bytes32) -> Bool { hashes.withLock { $0.contains(hash) } }
        func release(_ hash: Bytes32) { _ = hashes.withLock { $0.remove(hash) } }
    }

    func register(on router: Router<BasicRequestContext>) {
        router.post("/transactions") { request, context in
            try await submit(request, context: context)
        }
        router.post("/transactions_async") { request, _ in
            try await submitAsync(request)
        }
    }

    /// `POST /transactions_async`, as Horizon answers it: at once, `PENDING` (201) once the
    /// transaction passes the checks stellar-core's queue makes (then it goes on to a ledger),
    /// `DUPLICATE` (409) for one already submitted or applied, `ERROR` (400) with the result XDR
    /// for one those checks refuse, `TRY_AGAIN_LATER` (503) when the ledger writer is not running.
    private func submitAsync(_ request: Request) async throws -> Response {
        let envelope: TransactionEnvelope
        switch await Self.envelope(of: request) {
        case .envelope(let read, _): envelope = read
        case .refused(let problem): return problem.response()
        }
        let prepared = PreparedTransaction.prepare(envelope, network: writer.configuration.network)
        func answer(_ status: String, _ code: HTTPResponse.Status, _ extra: [(String, JSONValue)] = []) throws -> Response {
            try horizon.json(.object([("tx_status", .string(status)), ("hash", .string(prepared.hash.hex))] + extra), status: code)
        }
        guard writer.commits.isWriterRunning else { return try answer("TRY_AGAIN_LATER", .serviceUnavailable) }
        // In flight (held until its ledger is committed), then in the history this writer commits
        // to: checked before the state, which may already hold it.
        if inFlight.contains(prepared.hash) { return try answer("DUPLICATE", .conflict) }
        if try await history.transaction(hash: prepared.hash) != nil { return try answer("DUPLICATE", .conflict) }
        if let refused = await writer.read({ state in state.precheck(prepared) }) {
            return try answer("ERROR", .badRequest, [("errorResultXdr", .string(refused.xdrBase64))])
        }
        guard inFlight.claim(prepared.hash) else { return try answer("DUPLICATE", .conflict) }
        let writer = self.writer, inFlight = self.inFlight
        Task {
            defer { inFlight.release(prepared.hash) }
            _ = try? await writer.submit(envelope)
        }
        return try answer("PENDING", .created)
    }

    /// The submitted envelope and its `tx` text, or the problem that answers the request.
    enum Submitted {
        case envelope(TransactionEnvelope, tx: String)
        case refused(Problem)
    }

    /// Reads the `tx` field of a submission (form or multipart, at most ``maxBodyBytes``).
    static func envelope(of request: Request) async -> Submitted {
        var request = request
        let body = try? await request.collectBody(upTo: maxBodyBytes)
        return envelope(of: body, contentType: request.headers[.contentType])
    }

    /// The `tx` field of a submission's body (nil when it was larger than ``maxBodyBytes``).
    static func envelope(of body: ByteBuffer?, contentType: String?) -> Submitted {
        guard let body else {
            // Never 413: the SDKs retry it.
            return .refused(Problem.badRequest("the request body is larger than \(maxBodyBytes) bytes", field: "tx"))
        }
        guard let tx = transactionField(body: body, contentType: contentType), !tx.isEmpty else {
            return .refused(Problem.badRequest("the form field tx (a base64 transaction envelope) is missing", field: "tx"))
        }
        do {
            return .envelope(try TransactionEnvelope(xdrBase64: tx), tx: tx)
        } catch {
            return .refused(Problem.transactionMalformed(tx, detail: error.message))
        }
    }

    private func submit(_ request: Request, context: BasicRequestContext) async throws -> Response {
        var request = request
        let body = try? await request.collectBody(upTo: Self.maxBodyBytes)
        let answer = try await answer(body: body, contentType: request.headers[.contentType], resources: horizon.resources(for: request))
        return Response(status: .init(code: answer.status), headers: [.contentType: answer.contentType], body: ResponseBody(byteBuffer: answer.body))
    }

    /// An answer to `POST /transactions`, as the route and the pipeline's ``TransactionFastPath`` write it.
    struct Answer: Sendable {
        let status: Int
        let contentType: String
        let body: ByteBuffer

        init(status: Int = 200, contentType: String = HorizonRoutes.jsonContentType, body: ByteBuffer) {
            (self.status, self.contentType, self.body) = (status, contentType, body)
        }

        init(_ problem: Problem) {
            self.init(status: problem.status, contentType: Problem.contentType, body: ByteBuffer(bytes: problem.json.compactBytes()))
        }
    }

    /// Submits the envelope in a request's body and answers as Horizon does: once its ledger is
    /// committed, the transaction resource (200) or the failure with its result codes (400); a
    /// 400 for a body without a readable envelope (nil: larger than ``maxBodyBytes``); a 504 with
    /// the hash when `deadlines` pass first (the transaction goes on).
    /// - Throws: ``LedgerWriterError`` when the writer has stopped (``Problem/answering(_:method:path:logger:)`` answers it).
    func answer(body: ByteBuffer?, contentType: String?, resources: HorizonResources) async throws -> Answer {
        let envelope: TransactionEnvelope, tx: String
        switch Self.envelope(of: body, contentType: contentType) {
        case .envelope(let read, let text): (envelope, tx) = (read, text)
        case .refused(let problem): return Answer(problem)
        }
        let submission = try await writer.submit(envelope, within: deadlines)
        guard let submission else {
            let hash = PreparedTransaction.prepare(envelope, network: writer.configuration.network).hash
            return Answer(Problem.timeout(hash: hash.hex))
        }
        switch submission {
        case .applied(let stored) where stored.result.isSuccess:
            return Answer(body: ByteBuffer(bytes: resources.transactionBytes(stored)))
        case .applied(let stored):
            return Answer(Problem.transactionFailed(envelope: tx, result: stored.result))
        case .rejected(let result):
            return Answer(Problem.transactionFailed(envelope: tx, result: result))
        }
    }
}

extension TransactionRoutes {
    /// The `tx` field of a form body: `multipart/form-data` (through MultipartKit) or, by
    /// default, `application/x-www-form-urlencoded`.
    static func transactionField(body: ByteBuffer, contentType: String?) -> String? {
        if let contentType, contentType.lowercased().hasPrefix("multipart/form-data") {
            guard let boundary = multipartBoundary(contentType) else { return nil }
            struct Fields: Decodable { let tx: String? }
            return (try? FormDataDecoder().decode(Fields.self, from: body, boundary: boundary))?.tx
        }
        return FormBody(bytes: body.readableBytesView)["tx"]
    }

    /// The `boundary` parameter of a multipart content type, quoted or not.
    static func multipartBoundary(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            let unquoted = value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 ? String(value.dropFirst().dropLast()) : value
            return unquoted.isEmpty ? nil : unquoted
        }
        return nil
    }
}

/// A form-urlencoded body (`application/x-www-form-urlencoded`), decoded byte by byte.
struct FormBody {
    private(set) var fields: [String: String] = [:]

    init<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        // One pass over contiguous bytes (a request body is one buffer): pairs split at `&`
        // (empty ones skipped), each at its first `=`; a later field of the same name wins.
        func parse(_ body: UnsafeBufferPointer<UInt8>) -> [String: String] {
            var fields: [String: String] = [:]
            var start = 0
            while start <= body.count {
                var end = start
                while end < body.count, body[end] != UInt8(ascii: "&") { end += 1 }
                if end > start {
                    var equals = start
                    while equals < end, body[equals] != UInt8(ascii: "=") { equals += 1 }
                    if let name = Self.decode(body[start..<equals]) {
                        fields[name] = equals < end ? Self.decode(body[(equals + 1)..<end]) ?? "" : ""
                    }
                }
                start = end + 1
            }
            return fields
        }
        fields = bytes.withContiguousStorageIfAvailable(parse) ?? Array(bytes).withUnsafeBufferPointer(parse)
    }

    /// `+` is a space and `%XX` a byte; a malformed escape or invalid UTF-8 gives nil.
    static func decode<Part: Collection>(_ part: Part) -> String? where Part.Element == UInt8 {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(part.count)
        var index = part.startIndex
        while index != part.endIndex {
            let byte = part[index]
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                let high = part.index(after: index)
                guard high != part.endIndex else { return nil }
                let low = part.index(after: high)
                guard low != part.endIndex, let h = hexValue(part[high]), let l = hexValue(part[low]) else { return nil }
                bytes.append(h << 4 | l)
                index = low
            default:
                bytes.append(byte)
            }
            index = part.index(after: index)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    subscript(name: String) -> String? { fields[name] }
}

