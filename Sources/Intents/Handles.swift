/// An address to pay written whole instead of a name: read as one payee, never as a number.
public enum PayeeHandle: Hashable, Sendable {
    /// A Stellar account (`G...`, 56 characters) or a muxed one (`M...`, 69).
    case stellarAccount(String)
    /// A SEP-2 federation address: `jane*example.com`.
    case federation(name: String, domain: String)
    case email(String)
    /// `@jane`.
    case username(String)
    /// Digits with a leading `+` when said: `+31612345678`, `5551234567`.
    case phone(String)

    /// What kind of handle a payee's text is, or nil for a name.
    public static func parse(_ text: String) -> PayeeHandle? {
        let scalars = Array(text.unicodeScalars)
        if Handle.end(scalars, from: 0, isSpace: { $0 == " " }) == scalars.count {
            return Handle.kind(scalars)
        }
        // A phone number as the parser joins it: digits, spaces, "-", ".", "(", ")".
        let digits = scalars.filter { $0.properties.numericType != nil && $0.isASCII }
        guard digits.count >= 7, digits.count <= 15,
              scalars.allSatisfy({ ($0.isASCII && $0.properties.numericType != nil) || " -.()+".unicodeScalars.contains($0) }) else { return nil }
        return .phone((scalars.first == "+" ? "+" : "") + String(String.UnicodeScalarView(digits)))
    }

    /// The form contacts are compared in: lowercase for e-mail, federation and usernames, digits
    /// for phones, as written for Stellar accounts.
    public var normalized: String {
        switch self {
        case .stellarAccount(let account): account
        case .federation(let name, let domain): "\(name.lowercased())*\(domain.lowercased())"
        case .email(let address): address.lowercased()
        case .username(let name): "@" + name.lowercased()
        case .phone(let digits): digits
        }
    }
}

enum Handle {
    static func isBase32(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value >= 65 && scalar.value <= 90) || (scalar.value >= 50 && scalar.value <= 55)
    }

    static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value >= 48 && value <= 57) || ((value | 0x20) >= 97 && (value | 0x20) <= 122)
    }

    /// A domain: labels of letters, digits and hyphens with a dot and a final label of letters,
    /// or `localhost`; either with a `:port`.
    static func isDomain(_ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
        var host = scalars
        if let colon = scalars.firstIndex(of: ":") {
            let port = scalars[(colon + 1)...]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.value >= 48 && $0.value <= 57 }) else { return false }
            host = scalars[..<colon]
        }
        if String(String.UnicodeScalarView(host)).lowercased() == "localhost" { return true }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && $0.allSatisfy { isAlphanumeric($0) || $0 == "-" } }) else { return false }
        let last = labels.last!
        return last.count >= 2 && last.allSatisfy { ($0.value | 0x20) >= 97 && ($0.value | 0x20) <= 122 }
    }

    /// The kind of a whole chunk, or nil.
    static func kind(_ chunk: [Unicode.Scalar]) -> PayeeHandle? {
        let text = String(String.UnicodeScalarView(chunk))
        if (chunk.count == 56 && chunk.first == "G") || (chunk.count == 69 && chunk.first == "M"), chunk.allSatisfy(isBase32) {
            return .stellarAccount(text)
        }
        if chunk.first == "@" {
            let name = chunk.dropFirst()
            guard !name.isEmpty, name.count <= 64, name.allSatisfy({ isAlphanumeric($0) || $0 == "_" || $0 == "." }), isAlphanumeric(name.first!) else { return nil }
            return .username(String(String.UnicodeScalarView(name)))
        }
        if let star = chunk.firstIndex(of: "*"), chunk.lastIndex(of: "*") == star, star > 0 {
            let name = chunk[..<star]
            guard isDomain(chunk[(star + 1)...]) else { return nil }
            return .federation(name: String(String.UnicodeScalarView(name)), domain: String(String.UnicodeScalarView(chunk[(star + 1)...])))
        }
        if let at = chunk.firstIndex(of: "@"), chunk.lastIndex(of: "@") == at, at > 0 {
            guard chunk[..<at].allSatisfy({ isAlphanumeric($0) || "._%+-".unicodeScalars.contains($0) }), isDomain(chunk[(at + 1)...]) else { return nil }
            return .email(text)
        }
        return nil
    }

    /// Where a handle that starts at `start` ends (trailing punctuation left out), or nil when
    /// the text there is no handle.
    static func end(_ scalars: [Unicode.Scalar], from start: Int, isSpace: (Unicode.Scalar) -> Bool) -> Int? {
        let first = scalars[start]
        // A handle starts with "@", a letter or a digit; only a chunk with "@" or "*" in it, or of
        // a Stellar account's length, is read further.
        guard first == "@" || isAlphanumeric(first) || first.properties.isAlphabetic else { return nil }
        var end = start
        var marked = first == "@"
        while end < scalars.count, !isSpace(scalars[end]) {
            if scalars[end] == "@" || scalars[end] == "*" { marked = true }
            end += 1
            if end - start > 320 { return nil }
        }
        while end > start, ".,!?;:)\"'\u{2019}".unicodeScalars.contains(scalars[end - 1]) { end -= 1 }
        let length = end - start
        guard marked || length == 56 || length == 69 else { return nil }
        return kind(Array(scalars[start..<end])) == nil ? nil : end
    }

    static func folded(_ text: String) -> String {
        guard let kind = kind(Array(text.unicodeScalars)) else { return text }
        if case .stellarAccount = kind { return text }
        return text.lowercased()
    }
}
