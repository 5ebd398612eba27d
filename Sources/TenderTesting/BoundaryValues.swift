/// Values that break parsers: integer extremes and their neighbours, empty text, signs,
/// exponents, digits from other scripts, escapes and very long strings. Every HTTP route's
/// every parameter is tried with each of them.
public enum BoundaryValues {
    /// Int64, UInt64, Int32 and UInt32 extremes, each with its neighbours.
    public static let integers: [String] = {
        var values: [String] = []
        for (text, below, above) in [
            ("9223372036854775807", "9223372036854775806", "9223372036854775808"),
            ("-9223372036854775808", "-9223372036854775807", "-9223372036854775809"),
            ("18446744073709551615", "18446744073709551614", "18446744073709551616"),
            ("4294967295", "4294967294", "4294967296"),
            ("2147483647", "2147483646", "2147483648"),
            ("-2147483648", "-2147483647", "-2147483649"),
            ("0", "-1", "1"),
        ] {
            values += [text, below, above]
        }
        return values + ["4096", "4095", "4294967296000", "99999999999999999999999999999999"]
    }()

    /// Amounts at Stellar's limits: the largest Int64 in stroops and its neighbours, 7 and 8 decimals.
    public static let amounts: [String] = [
        "922337203685477.5807", "922337203685477.5808", "922337203685477.5806", "-922337203685477.5808",
        "0.0000001", "0.00000001", "0.0000000", "1.", ".5", "1..2", "1,5",
    ]

    /// Signs, exponents, other scripts' digits, whitespace, words.
    public static let malformed: [String] = [
        "", " ", "+1", "-0", "+0", "--1", "1e3", "1E-7", "1e400", "0x10", "0b1", "010", "1_000", "NaN", "nan", "Infinity", "-inf",
        "١٢٣", "１２３", "߁", "٠", " 1", "1 ", "\t1", "1\n", "true", "false", "null", "now", "asc", "desc", "native",
        "credit_alphanum4", "credit_alphanum12", "a:b:c", ":", "XLM:", ":G", ",", ",,", "native,", "\u{0}", "\u{FEFF}1",
        "é", "💸", "\u{202E}1", "../../etc/passwd", "<script>alert(1)</script>", "' OR 1=1 --", "\"", "\\", "%", "{}", "[]",
    ]

    /// Long strings: a long number, a long account-like key, and 100 KB of text.
    public static let long: [String] = [
        String(repeating: "9", count: 4_096),
        "G" + String(repeating: "A", count: 55),
        "G" + String(repeating: "A", count: 56),
        String(repeating: "A", count: 12) + ":G" + String(repeating: "A", count: 55),
        String(repeating: "native,", count: 1_000),
        String(repeating: "x", count: 100_000),
    ]

    /// Everything above.
    public static let all: [String] = integers + amounts + malformed + long

    /// Raw query text that is not valid percent-encoding, sent as it is.
    public static let rawEscapes: [String] = ["%", "%%", "%zz", "%0", "%C3%28", "%FF%FE", "%00", "%2", "a%", "%u0041", "+%2B+"]

    /// `text` percent-encoded for a URL's query or path: everything but unreserved characters.
    public static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%"
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
