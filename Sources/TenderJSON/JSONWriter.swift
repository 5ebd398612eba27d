/// Where a JSON document is written as it is walked, key by key and value by value: straight
/// into compact UTF-8 bytes (``JSONBytesWriter``, the API's hot path), or into a ``JSONValue``
/// tree (``JSONTreeWriter``) for a caller that reads fields back. One rendering written against
/// this protocol gives both, with the same keys in the same order.
///
/// Inside an object each value follows its key (``key(_:)``); inside an array values follow
/// one another. The writers do not check that the calls nest: the renderer's shape does.
public protocol JSONWriter {
    mutating func beginObject()
    mutating func endObject()
    mutating func beginArray()
    mutating func endArray()
    mutating func key(_ key: String)
    mutating func string(_ value: String)
    /// The string of `head`, `middle` and `tail` in turn, without joining them first (a link:
    /// the server's base, a path, a template).
    mutating func string(_ head: String, _ middle: String, _ tail: String)
    mutating func number(_ value: Int64)
    mutating func bool(_ value: Bool)
    /// A value already built as a tree.
    mutating func value(_ value: JSONValue)
    /// A HAL link: `{"href":"<head><middle><tail>"}`, with `"templated":true` after the href
    /// when `templated` (an answer's `_links` hold several: an account's, nine).
    mutating func link(_ head: String, _ middle: String, _ tail: String, templated: Bool)
    /// An object of HAL links below one address `head + middle + last`: each of `links` is
    /// the link it names to that address followed by its tail (an account's nine).
    mutating func links(below head: String, _ middle: String, _ last: String, _ links: [JSONLink])
}

/// A link of ``JSONWriter/links(below:_:_:_:)``: its name, what follows the address it is
/// below, and whether it is a template; its bytes around the address are escaped once, when made.
public struct JSONLink: Sendable {
    public let name: String
    public let tail: String
    public let templated: Bool
    /// `"name":{"href":"`, escaped.
    public let opening: [UInt8]
    /// `tail"}` or `tail","templated":true}`, escaped.
    public let closing: [UInt8]

    public init(_ name: String, tail: String = "", templated: Bool = false) {
        self.name = name
        self.tail = tail
        self.templated = templated
        var opening: [UInt8] = []
        JSONValue.appendQuoted(name, to: &opening)
        opening.append(contentsOf: #":{"href":""#.utf8)
        self.opening = opening
        var closing: [UInt8] = []
        JSONValue.appendEscaped(tail, to: &closing)
        closing.append(contentsOf: (templated ? #"","templated":true}"# : #""}"#).utf8)
        self.closing = closing
    }
}

extension JSONWriter {
    public mutating func field(_ key: String, _ value: String) {
        self.key(key)
        string(value)
    }

    public mutating func field(_ key: String, _ value: Int64) {
        self.key(key)
        number(value)
    }

    public mutating func field(_ key: String, _ value: Bool) {
        self.key(key)
        bool(value)
    }

    public mutating func field(_ key: String, _ value: JSONValue) {
        self.key(key)
        self.value(value)
    }

    /// The link as its object, key by key: what a writer without a shorter way writes.
    public mutating func link(_ head: String, _ middle: String, _ tail: String, templated: Bool) {
        beginObject()
        key("href")
        string(head, middle, tail)
        if templated { field("templated", true) }
        endObject()
    }

    /// The links' object, link by link.
    public mutating func links(below head: String, _ middle: String, _ last: String, _ links: [JSONLink]) {
        beginObject()
        for link in links {
            key(link.name)
            self.link(head, middle + last, link.tail, templated: link.templated)
        }
        endObject()
    }

    /// Each of `fields` in turn, in the object being written.
    public mutating func fields(_ fields: [(String, JSONValue)]) {
        for (key, value) in fields { field(key, value) }
    }

    /// An object whose fields `body` writes.
    public mutating func object(_ body: (inout Self) -> Void) {
        beginObject()
        body(&self)
        endObject()
    }

    /// An array whose values `body` writes.
    public mutating func array(_ body: (inout Self) -> Void) {
        beginArray()
        body(&self)
        endArray()
    }
}

/// Compact UTF-8 bytes, written into one buffer as the calls come: the same bytes as
/// ``JSONValue/compactBytes()`` of the tree the same calls build.
public struct JSONBytesWriter: JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether the container being written holds a value yet (a comma goes before the next).
    private var needsComma = false

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    public mutating func key(_ key: String) {
        separate()
        JSONValue.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        // The value after a key takes no comma.
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        JSONValue.appendQuoted(value, to: &bytes)
        needsComma = true
    }

    public mutating func string(_ head: String, _ middle: String, _ tail: String) {
        separate()
        JSONValue.appendQuoted(head, middle, tail, to: &bytes)
        needsComma = true
    }

    public mutating func number(_ value: Int64) {
        separate()
        JSONValue.appendDecimal(value, to: &bytes)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? JSONValue.trueBytes : JSONValue.falseBytes)
        needsComma = true
    }

    public mutating func value(_ value: JSONValue) {
        separate()
        value.writeCompact(to: &bytes)
        needsComma = true
    }

    /// The link's object in three appends of fixed bytes around its escaped href.
    public mutating func link(_ head: String, _ middle: String, _ tail: String, templated: Bool) {
        separate()
        bytes.append(contentsOf: Self.linkOpening)
        JSONValue.appendEscaped(head, to: &bytes)
        JSONValue.appendEscaped(middle, to: &bytes)
        JSONValue.appendEscaped(tail, to: &bytes)
        bytes.append(contentsOf: templated ? Self.templatedLinkClosing : Self.linkClosing)
        needsComma = true
    }

    /// The links' object with the address checked for escaping once: each link is then its
    /// opening, the address's bytes and its closing.
    public mutating func links(below head: String, _ middle: String, _ last: String, _ links: [JSONLink]) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        var (head, middle, last) = (head, middle, last)
        head.withUTF8 { head in
            middle.withUTF8 { middle in
                last.withUTF8 { last in
                    let plain = !JSONValue.needsEscaping(head) && !JSONValue.needsEscaping(middle) && !JSONValue.needsEscaping(last)
                    for (index, link) in links.enumerated() {
                        if index > 0 { bytes.append(UInt8(ascii: ",")) }
                        bytes.append(contentsOf: link.opening)
                        if plain {
                            bytes.append(contentsOf: head)
                            bytes.append(contentsOf: middle)
                            bytes.append(contentsOf: last)
                        } else {
                            JSONValue.appendEscaped(bytes: head, to: &bytes)
                            JSONValue.appendEscaped(bytes: middle, to: &bytes)
                            JSONValue.appendEscaped(bytes: last, to: &bytes)
                        }
                        bytes.append(contentsOf: link.closing)
                    }
                }
            }
        }
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    private static let linkOpening = Array(#"{"href":""#.utf8)
    private static let linkClosing = Array(#""}"#.utf8)
    private static let templatedLinkClosing = Array(#"","templated":true}"#.utf8)
}

extension JSONBytesWriter {
    /// The compact bytes of the document `write` writes.
    public static func document(capacity: Int = 1024, _ write: (inout JSONBytesWriter) -> Void) -> [UInt8] {
        var writer = JSONBytesWriter(capacity: capacity)
        write(&writer)
        return writer.bytes
    }
}

/// A ``JSONValue`` tree built from the calls: for renderings whose fields a caller reads back.
public struct JSONTreeWriter: JSONWriter {
    /// A container being written: an object's fields (and the key its next value takes) or an
    /// array's values.
    private struct Frame {
        let isObject: Bool
        var fields: [(String, JSONValue)] = []
        var values: [JSONValue] = []
        var key = ""
    }

    private var open: [Frame] = []
    /// The document, once its outermost value is written.
    public private(set) var result: JSONValue?

    public init() {}

    private mutating func add(_ value: JSONValue) {
        guard !open.isEmpty else {
            result = value
            return
        }
        let last = open.count - 1
        if open[last].isObject {
            open[last].fields.append((open[last].key, value))
        } else {
            open[last].values.append(value)
        }
    }

    public mutating func beginObject() { open.append(Frame(isObject: true)) }

    public mutating func endObject() {
        guard let frame = open.popLast(), frame.isObject else { preconditionFailure("endObject() outside an object") }
        add(.object(frame.fields))
    }

    public mutating func beginArray() { open.append(Frame(isObject: false)) }

    public mutating func endArray() {
        guard let frame = open.popLast(), !frame.isObject else { preconditionFailure("endArray() outside an array") }
        add(.array(frame.values))
    }

    public mutating func key(_ key: String) {
        guard let last = open.indices.last, open[last].isObject else { preconditionFailure("key(_:) outside an object") }
        open[last].key = key
    }

    public mutating func string(_ value: String) { add(.string(value)) }
    public mutating func string(_ head: String, _ middle: String, _ tail: String) { add(.string(head + middle + tail)) }
    public mutating func number(_ value: Int64) { add(.number(value)) }
    public mutating func bool(_ value: Bool) { add(.bool(value)) }
    public mutating func value(_ value: JSONValue) { add(value) }
}

extension JSONTreeWriter {
    /// The tree of the document `write` writes (it must write one value).
    public static func document(_ write: (inout JSONTreeWriter) -> Void) -> JSONValue {
        var writer = JSONTreeWriter()
        write(&writer)
        return writer.result!
    }
}
