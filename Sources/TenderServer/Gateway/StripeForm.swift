/// A form body in Stripe's bracket notation, parsed into a tree: `metadata[order]=7` is a
/// dictionary under `metadata`; `payment_method_types[]=card` and `payment_method_types[0]=card`
/// (the stripe libraries write indices) are lists.
indirect enum FormValue: Sendable, Equatable {
    case string(String)
    case dictionary([String: FormValue])
    case list([FormValue])

    var string: String? { if case .string(let text) = self { text } else { nil } }
}

/// A parsed form, with the checks every parameter goes through before a handler uses it.
struct StripeForm: Sendable {
    /// The most parameters a body may have, and the deepest nesting: bounds on hostile bodies.
    static let maxParameters = 1_000
    static let maxDepth = 4
    /// The longest value or key Stripe takes (metadata values are 500 characters).
    static let maxValueLength = 5_000

    private(set) var root: [String: FormValue] = [:]

    init(root: [String: FormValue] = [:]) { self.root = root }

    /// Parses a `application/x-www-form-urlencoded` body (or a query string).
    /// - Throws: ``StripeError`` `parameter_invalid` for broken encoding, too many or too
    ///   deep parameters, or one name used both as a value and as a dictionary or list.
    init(body: String) throws(StripeError) {
        let pairs = body.split(separator: "&", omittingEmptySubsequences: true)
        guard pairs.count <= Self.maxParameters else { throw .invalid(nil, "A request may have at most \(Self.maxParameters) parameters.") }
        var listCounters: [String: Int] = [:]
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else {
                throw .invalid(nil, "The request body is not valid form encoding.")
            }
            guard name.utf8.count <= Self.maxValueLength, value.utf8.count <= Self.maxValueLength else {
                throw .invalid(nil, "A parameter name or value is longer than \(Self.maxValueLength) characters.")
            }
            var path = try Self.path(name)
            // `a[]` appends: give it the next index of that list.
            for index in path.indices where path[index].isEmpty {
                let prefix = path[..<index].joined(separator: "\u{0}")
                let next = listCounters[prefix, default: 0]
                listCounters[prefix] = next + 1
                path[index] = String(next)
            }
            try Self.insert(value, at: path[...], into: &root, name: name)
        }
        root = root.mapValues(Self.listsFromIndices)
    }

    /// `a[b][c]` as ["a", "b", "c"]; `a[]` as ["a", ""].
    private static func path(_ name: String) throws(StripeError) -> [String] {
        guard let open = name.firstIndex(of: "[") else {
            guard !name.isEmpty else { throw .invalid(nil, "A parameter has no name.") }
            return [name]
        }
        var path = [String(name[..<open])]
        var rest = name[open...]
        while !rest.isEmpty {
            guard rest.first == "[", let close = rest.firstIndex(of: "]") else { throw .invalid(name, "Invalid parameter name \(name).") }
            path.append(String(rest[rest.index(after: rest.startIndex)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        guard !path[0].isEmpty, path.count <= maxDepth + 1 else { throw .invalid(name, "Invalid parameter name \(name).") }
        return path
    }

    private static func insert(_ value: String, at path: ArraySlice<String>, into dictionary: inout [String: FormValue], name: String) throws(StripeError) {
        let key = path.first!
        if path.count == 1 {
            guard dictionary[key] == nil || dictionary[key]?.string != nil else { throw .invalid(name, "\(name) is given as both a value and a hash.") }
            dictionary[key] = .string(value)
            return
        }
        var child: [String: FormValue]
        switch dictionary[key] {
        case nil: child = [:]
        case .dictionary(let existing): child = existing
        default: throw .invalid(name, "\(name) is given as both a value and a hash.")
        }
        try insert(value, at: path.dropFirst(), into: &child, name: name)
        dictionary[key] = .dictionary(child)
    }

    /// Dictionaries whose keys are exactly 0...n-1 become lists.
    private static func listsFromIndices(_ value: FormValue) -> FormValue {
        guard case .dictionary(let entries) = value else { return value }
        let converted = entries.mapValues(listsFromIndices)
        let indices = converted.keys.compactMap { key in key.utf8.allSatisfy { (48...57).contains($0) } && key.utf8.count < 7 ? Int(key) : nil }
        if !converted.isEmpty, indices.count == converted.count, Set(indices) == Set(0..<converted.count) {
            return .list((0..<converted.count).map { converted[String($0)]! })
        }
        return .dictionary(converted)
    }

    /// Percent-decoding with `+` as a space; nil for broken escapes or bytes that are not UTF-8.
    static func decode(_ text: Substring) -> String? { FormBody.decode(text.utf8) }

    // MARK: Typed parameters

    subscript(name: String) -> FormValue? { root[name] }

    /// A text parameter; absent is nil, a hash or list is refused.
    func string(_ name: String, maxLength: Int = 5_000) throws(StripeError) -> String? {
        guard let value = root[name] else { return nil }
        guard let text = value.string else { throw .invalid(name, "Invalid string: \(name) must be a string.") }
        guard text.utf8.count <= maxLength else { throw .invalid(name, "Invalid string: \(name) must be at most \(maxLength) characters.") }
        return text
    }

    func requiredString(_ name: String, maxLength: Int = 5_000) throws(StripeError) -> String {
        guard let text = try string(name, maxLength: maxLength), !text.isEmpty else { throw .missing(name) }
        return text
    }

    /// A whole number written in plain ASCII digits with an optional minus sign.
    static func integer(_ text: String, name: String) throws(StripeError) -> Int64 {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.count <= 19, digits.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int64(text) else {
            throw .invalid(name, "Invalid integer: \(text.prefix(100))")
        }
        return value
    }

    func integer(_ name: String) throws(StripeError) -> Int64? {
        guard let text = try string(name) else { return nil }
        return try Self.integer(text, name: name)
    }

    func boolean(_ name: String) throws(StripeError) -> Bool? {
        guard let text = try string(name) else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default: throw .invalid(name, "Invalid boolean: \(text.prefix(100))")
        }
    }

    /// A nested hash (`card[number]`...), as a form of its own.
    func hash(_ name: String) throws(StripeError) -> StripeForm? {
        guard let value = root[name] else { return nil }
        switch value {
        case .dictionary(let entries): return StripeForm(root: entries)
        case .string(""): return StripeForm()
        default: throw .invalid(name, "Invalid hash: \(name) must be a hash.")
        }
    }

    /// A list of hashes (`line_items[0][quantity]`...), each a form of its own.
    func hashes(_ name: String) throws(StripeError) -> [StripeForm]? {
        guard let value = root[name] else { return nil }
        guard case .list(let items) = value else { throw .invalid(name, "Invalid array: \(name) must be a list of hashes.") }
        var forms: [StripeForm] = []
        for item in items {
            guard case .dictionary(let entries) = item else { throw .invalid(name, "Invalid array: \(name) must be a list of hashes.") }
            forms.append(StripeForm(root: entries))
        }
        return forms
    }

    /// A list of strings (`payment_method_types[]`).
    func stringList(_ name: String) throws(StripeError) -> [String]? {
        guard let value = root[name] else { return nil }
        switch value {
        case .list(let items):
            var strings: [String] = []
            for item in items {
                guard let text = item.string else { throw .invalid(name, "Invalid array: \(name) must hold strings.") }
                strings.append(text)
            }
            return strings
        case .string(let text): return text.isEmpty ? [] : [text]
        case .dictionary: throw .invalid(name, "Invalid array: \(name) must be an array.")
        }
    }

    /// Metadata: at most 50 keys of up to 40 characters with values of up to 500; an empty
    /// value deletes a key (Stripe's rule), so the result maps keys to nil for deletion.
    func metadata() throws(StripeError) -> [String: String?]? {
        guard let hash = try hash("metadata") else { return nil }
        guard hash.root.count <= 50 else { throw .invalid("metadata", "Metadata may have at most 50 keys.") }
        var metadata: [String: String?] = [:]
        for (key, value) in hash.root {
            guard let text = value.string else { throw .invalid("metadata[\(key.prefix(40))]", "Metadata values must be strings.") }
            guard key.count <= 40, text.count <= 500 else { throw .invalid("metadata[\(key.prefix(40))]", "Metadata keys are at most 40 characters and values at most 500.") }
            metadata[key] = text.isEmpty ? .some(nil) : .some(text)
        }
        return metadata
    }

    /// Metadata for a new object: its keys with values (an empty value sets nothing).
    func setMetadata() throws(StripeError) -> [String: String] {
        (try metadata() ?? [:]).compactMapValues { $0 }
    }

    /// Every parameter name outside `known` is refused, as Stripe refuses unknown parameters
    /// (`parameter_unknown`).
    /// `expand` is known everywhere, as Stripe takes it on every request.
    func refuseUnknown(_ known: Set<String>) throws(StripeError) {
        if let unknown = root.keys.sorted().first(where: { !known.contains($0) && $0 != "expand" }) {
            throw .invalid(unknown, "Received unknown parameter: \(unknown.prefix(100))", code: "parameter_unknown")
        }
    }
}
