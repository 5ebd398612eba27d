/// What the start of a connection's unread bytes is, for ``AccountBytePath``: a whole
/// `GET /accounts/{id}` request head of the one shape that path answers, the start of what may
/// become one, or anything else (the HTTP decoder's).
///
/// Deliberately narrow; whatever it does not recognise is the decoder's (llhttp's) to accept,
/// refuse or frame: the request line exactly `GET /accounts/G… HTTP/1.1` with a 56-character
/// base32 address; header lines of a token name, a colon and a value of visible characters,
/// spaces, tabs or bytes past ASCII, each ended by CRLF; at most one `Host` of authority
/// characters; `Connection` only `keep-alive`; and none of `Origin` (a browser's request needs
/// CORS headers), `Content-Length` or `Transfer-Encoding` (a body), `Upgrade` or `Expect`.
/// These are ``HTTPRequestHead/fastPathAuthority(default:)``'s rules, read from the bytes.
enum AccountRequestScan: Equatable {
    /// A whole request head for `address` made to `authority` (nil: no `Host`), `length` bytes
    /// long; it has no body.
    case account(address: String, authority: String?, length: Int)
    /// The bytes so far may be the start of one: wait for more.
    case incomplete
    /// Anything else.
    case other

    /// Bytes past which a request still incomplete is no longer waited for here.
    static let limit = 8192

    private static let start = Array("GET /accounts/".utf8)
    private static let version = Array(" HTTP/1.1\r\n".utf8)
    private static let addressLength = 56
    private static let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")

    /// The request at the start of `bytes`.
    static func scan(_ bytes: UnsafeRawBufferPointer) -> AccountRequestScan {
        let count = bytes.count
        var incomplete: AccountRequestScan { count >= limit ? .other : .incomplete }
        var i = 0
        for byte in start {
            guard i < count else { return incomplete }
            guard bytes[i] == byte else { return .other }
            i += 1
        }
        let addressStart = i
        while i < addressStart + addressLength {
            guard i < count else { return incomplete }
            guard isBase32(bytes[i]), i > addressStart || bytes[i] == UInt8(ascii: "G") else { return .other }
            i += 1
        }
        for byte in version {
            guard i < count else { return incomplete }
            guard bytes[i] == byte else { return .other }
            i += 1
        }
        var host: Range<Int>?
        while true {
            guard i < count else { return incomplete }
            if bytes[i] == cr {
                guard i + 1 < count else { return incomplete }
                guard bytes[i + 1] == lf else { return .other }
                i += 2
                break
            }
            let nameStart = i
            while i < count, isToken(bytes[i]) { i += 1 }
            guard i < count else { return incomplete }
            guard i > nameStart, bytes[i] == UInt8(ascii: ":") else { return .other }
            let name = nameStart..<i
            i += 1
            while i < count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
            let valueStart = i
            while i < count, isFieldByte(bytes[i]) { i += 1 }
            guard i + 1 < count else { return incomplete }
            guard bytes[i] == cr, bytes[i + 1] == lf else { return .other }
            var valueEnd = i
            while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            let value = valueStart..<valueEnd
            i += 2
            if matches(bytes, name, "host") {
                guard host == nil, !value.isEmpty, value.allSatisfy({ isAuthority(bytes[$0]) }) else { return .other }
                host = value
            } else if matches(bytes, name, "connection") {
                guard onlyKeepAlive(bytes, value) else { return .other }
            } else if refused.contains(where: { matches(bytes, name, $0) }) {
                return .other
            }
        }
        return .account(
            address: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[addressStart..<addressStart + addressLength]), as: UTF8.self),
            authority: host.map { String(decoding: UnsafeRawBufferPointer(rebasing: bytes[$0]), as: UTF8.self) },
            length: i)
    }

    /// Each byte's classes, as bits: ``base32``, ``token``, ``field``, ``authority``.
    private static let classes: [UInt8] = (0...255).map { (byte: Int) -> UInt8 in
        let ascii = byte < 0x80 ? Character(Unicode.Scalar(UInt8(byte))) : nil
        let alphanumeric = ascii.map { $0.isASCII && ($0.isLetter || $0.isNumber) } ?? false
        var bits: UInt8 = 0
        // RFC 4648's base32 alphabet, as StrKey writes it (upper case).
        if ascii.map({ ("A"..."Z").contains($0) || ("2"..."7").contains($0) }) ?? false { bits |= base32 }
        // RFC 9110's `tchar`.
        if alphanumeric || ascii.map({ "!#$%&'*+-.^_`|~".contains($0) }) ?? false { bits |= token }
        // A field value's byte: visible, a space or tab, or past ASCII (RFC 9110's `obs-text`).
        if (0x21...0x7E).contains(byte) || byte == 0x20 || byte == 0x09 || byte >= 0x80 { bits |= field }
        // A host and port, an IPv6 literal's brackets among them (RFC 3986's `unreserved`,
        // `sub-delims`, `:`, `[`, `]`, `%`): links are made from it.
        if alphanumeric || ascii.map({ "-._~!$&'()*+,;=:[]%".contains($0) }) ?? false { bits |= authority }
        return bits
    }
    private static let base32: UInt8 = 1, token: UInt8 = 2, field: UInt8 = 4, authority: UInt8 = 8

    private static func isBase32(_ byte: UInt8) -> Bool { classes[Int(byte)] & base32 != 0 }
    private static func isToken(_ byte: UInt8) -> Bool { classes[Int(byte)] & token != 0 }
    private static func isFieldByte(_ byte: UInt8) -> Bool { classes[Int(byte)] & field != 0 }
    private static func isAuthority(_ byte: UInt8) -> Bool { classes[Int(byte)] & authority != 0 }

    /// Names of headers whose request is not this path's.
    private static let refused: [StaticString] = ["origin", "content-length", "transfer-encoding", "upgrade", "expect"]

    /// Whether `range` of `bytes` is `lowercased`, in any case.
    private static func matches(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ lowercased: StaticString) -> Bool {
        guard range.count == lowercased.utf8CodeUnitCount else { return false }
        let name = UnsafeBufferPointer(start: lowercased.utf8Start, count: lowercased.utf8CodeUnitCount)
        return zip(range, name).allSatisfy { bytes[$0] | 0x20 == $1 }
    }

    /// Whether a `Connection` value lists only `keep-alive` (in any case, empty elements aside).
    private static func onlyKeepAlive(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) -> Bool {
        var start = value.lowerBound
        while start <= value.upperBound {
            var end = start
            while end < value.upperBound, bytes[end] != UInt8(ascii: ",") { end += 1 }
            var element = start..<end
            while let first = element.first, bytes[first] == 0x20 || bytes[first] == 0x09 { element = element.dropFirst() }
            while let last = element.last, bytes[last] == 0x20 || bytes[last] == 0x09 { element = element.dropLast() }
            guard element.isEmpty || matches(bytes, element, "keep-alive") else { return false }
            start = end + 1
        }
        return true
    }
}
