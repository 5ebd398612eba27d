import Crypto
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import Logging
import NIOCore
import StellarBase
import TenderJSON

/// The frame pages: tiny, escaped, nothing loaded from elsewhere, their one script allowed by
/// a nonce.
enum PaylikeFrames {
    static func response(_ html: String, nonce: String?) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        let script = nonce.map { "script-src 'nonce-\($0)'" } ?? "script-src 'none'"
        headers[HTTPFields.headerName("Content-Security-Policy")] = "default-src 'none'; \(script); style-src 'self'; form-action 'self'; base-uri 'none'"
        headers[HTTPFields.headerName("Referrer-Policy")] = "no-referrer"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func document(_ title: String, _ body: String, language: String = "en") -> String {
        """
        <!doctype html>
        <html lang="\(language)"><head><meta charset="utf-8"><title>\(GatewayTestPages.escape(title))</title>
        <link rel="stylesheet" href="/assets/tender.css">
        </head><body><main id="main">
        \(body)
        </main></body></html>
        """
    }

    /// A page whose script posts `{hints}` to the parent window, as Paylike's frames end; its
    /// script allowed by a CSP nonce made of `nonce`'s bytes.
    static func posting(hints: [String], title: String, nonce bytes: [UInt8]) -> Response {
        let nonce = PaylikeRoutes.base64url(bytes)
        let message = JSONValue.object([("hints", .array(hints.map(JSONValue.string)))]).compact()
        // The JSON is safe inside a script: hints are names and base64url, and "<" is escaped.
        let script = message.replacingOccurrences(of: "<", with: "\\u003c")
        return response(document(title, """
            <p id="done">Done.</p>
            <script nonce="\(nonce)">var message = \(script); (window.parent !== window ? window.parent : window).postMessage(message, "*");</script>
            """), nonce: nonce)
    }

    /// The challenge in the browser's language (English, Dutch or German).
    static func challenge(token: String, _ t: ConsoleText) -> Response {
        let value = GatewayTestPages.escape(token)
        let escape = GatewayTestPages.escape
        return response(document(t("3-D Secure test challenge"), """
            <h1>\(escape(t("3-D Secure test challenge")))</h1>
            <p>\(escape(t("Authenticate this payment?")))</p>
            <form method="post" action="challenge"><input type="hidden" name="creq" value="\(value)"><input type="hidden" name="answer" value="authenticated"><button id="complete" type="submit">\(escape(t("Complete")))</button></form>
            <form method="post" action="challenge"><input type="hidden" name="creq" value="\(value)"><input type="hidden" name="answer" value="failed"><button id="fail" type="submit">\(escape(t("Fail")))</button></form>
            """, language: t.locale.rawValue), nonce: nil)
    }
}

extension DecodingError {
    /// The field at fault, as a dotted path (`card.expiry.month`, `plan.0.amount`); empty for
    /// the body itself.
    var fieldPath: String {
        let path: [CodingKey]
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): path = context.codingPath
        case .keyNotFound(let key, let context): path = context.codingPath + [key]
        @unknown default: path = []
        }
        return path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
