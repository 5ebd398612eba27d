/// The token of an `Authorization: Bearer <token>` header, spaces and tabs around it dropped,
/// read on the header's bytes (Foundation's trimming was a tenth of a cached read's CPU).
/// nil when the header is not Bearer auth.
func bearerToken(_ header: String) -> String? {
    let prefix = "Bearer ".utf8
    let bytes = header.utf8
    guard bytes.starts(with: prefix) else { return nil }
    var token = bytes.dropFirst(prefix.count)
    let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    while let first = token.first, blank(first) { token = token.dropFirst() }
    while let last = token.last, blank(last) { token = token.dropLast() }
    return String(Substring(token))
}
