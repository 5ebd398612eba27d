/// A word, a number or a symbol of an utterance, with where it came from.
struct Token: Sendable {
    /// `handle`: an address to pay written whole (an e-mail, `@name`, `jane*example.com`, a
    /// Stellar account, a phone number).
    enum Kind: Sendable { case word, number, symbol, handle }
    var kind: Kind
    /// Lowercased, accents removed: what the parser compares.
    var folded: String
    /// Where it is in the utterance's scalars (`start..<end`).
    var start: Int
    var end: Int
    /// Whether white space comes before it ("10 k" against "10k").
    var spaced: Bool
}

/// How a language's text splits: which words stay apart from digits that follow them ("RM42",
/// "USD3.14"; but "Kiran1" is one name), the elided words split off ("d'euros"), and spaces
/// that group digits ("1 234,56" in French).
struct TokenizerOptions: Sendable {
    var splitsBeforeDigits: @Sendable (String) -> Bool = { _ in true }
    var elisions: Set<String> = []
    var spaceGroupsDigits = false
}

/// Splits an utterance into tokens: words (letters, with inner apostrophes and hyphens, and
/// digits after the letters of a name), numbers (ASCII digits with inner `.` and `,`, or a
/// leading decimal mark: ".50"), handles, and single symbols. Linear in the input.
enum Tokenizer {
    static func tokens(_ scalars: [Unicode.Scalar], options: TokenizerOptions = TokenizerOptions()) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        var spaced = true
        let count = scalars.count
        func isDigit(_ i: Int) -> Bool { i < count && scalars[i].value >= 48 && scalars[i].value <= 57 }
        func isLetter(_ i: Int) -> Bool {
            guard i < count else { return false }
            let value = scalars[i].value
            if value < 0x80 { return (value | 0x20) >= 97 && (value | 0x20) <= 122 }
            return scalars[i].properties.isAlphabetic || isCombiningMark(scalars[i])
        }
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            let value = scalar.value
            if value < 0x80 { return value == 32 || (value >= 9 && value <= 13) }
            return scalar.properties.isWhitespace
        }
        func isGroupingSpace(_ i: Int) -> Bool {
            options.spaceGroupsDigits && i < count && (scalars[i].value == 0xA0 || scalars[i].value == 0x202F)
                && isDigit(i + 1) && isDigit(i + 2) && isDigit(i + 3) && !isDigit(i + 4)
        }
        while index < count {
            let scalar = scalars[index]
            if isSpace(scalar) {
                spaced = true
                index += 1
                continue
            }
            let start = index
            if spaced, let end = Handle.end(scalars, from: index, isSpace: isSpace) {
                let text = String(String.UnicodeScalarView(scalars[start..<end]))
                tokens.append(Token(kind: .handle, folded: Handle.folded(text), start: start, end: end, spaced: spaced))
                index = end
            } else if isDigit(index) || ((scalar == "." || scalar == ",") && isDigit(index + 1) && (index == 0 || !isDigit(index - 1))) {
                index += 1
                var folded = String(Character(scalar))
                while isDigit(index) || (index < count && (scalars[index] == "." || scalars[index] == ",") && isDigit(index + 1)) || isGroupingSpace(index) {
                    folded.unicodeScalars.append(isGroupingSpace(index) ? " " : scalars[index])
                    index += 1
                }
                tokens.append(Token(kind: .number, folded: folded, start: start, end: index, spaced: spaced))
            } else if isLetter(index) {
                var folded = ""
                while index < count {
                    if isLetter(index) {
                        let value = scalars[index].value
                        if value < 0x80 {
                            folded.unicodeScalars.append(value <= 90 ? Unicode.Scalar(value + 32)! : scalars[index])
                        } else {
                            folded += fold(scalars[index])
                        }
                        index += 1
                    } else if ["'", "\u{2019}", "-"].contains(scalars[index]), isLetter(index + 1), !isDigit(index + 1) {
                        if scalars[index] != "-", options.elisions.contains(folded + "'") {
                            folded += "'"
                            index += 1
                            break
                        }
                        folded += scalars[index] == "-" ? "-" : "'"
                        index += 1
                    } else if isDigit(index), !options.splitsBeforeDigits(folded) {
                        // A name with digits: "Kiran1", "R2D2".
                        while isDigit(index) || isLetter(index) {
                            folded += fold(scalars[index])
                            index += 1
                        }
                    } else {
                        break
                    }
                }
                // "Rs." is one symbol.
                if folded == "rs", index < count, scalars[index] == "." {
                    folded = "rs."
                    index += 1
                }
                tokens.append(Token(kind: .word, folded: folded, start: start, end: index, spaced: spaced))
            } else {
                index += 1
                tokens.append(Token(kind: .symbol, folded: String(Character(scalar)), start: start, end: index, spaced: spaced))
            }
            spaced = false
        }
        return tokens
    }

    static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        (0x300...0x36F).contains(scalar.value)
    }

    /// One letter lowercased with its accents removed ("É" → "e", "ß" → "ss", "Œ" → "oe").
    static func fold(_ scalar: Unicode.Scalar) -> String {
        let value = scalar.value
        if value < 0x80 {
            return value >= 65 && value <= 90 ? String(Character(Unicode.Scalar(value + 32)!)) : String(Character(scalar))
        }
        if isCombiningMark(scalar) { return "" }
        if value >= 0xC0 && value <= 0xFF { return latin1[Int(value - 0xC0)] }
        if value >= 0x100 && value <= 0x17F { return latinExtendedA[Int(value - 0x100)] }
        return String(Character(scalar)).lowercased()
    }

    private static let latin1: [String] = {
        let upper = ["a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
                     "d", "n", "o", "o", "o", "o", "o", "×", "o", "u", "u", "u", "u", "y", "th", "ss"]
        var lower = upper
        lower[23] = "÷"
        lower[31] = "y"
        return upper + lower
    }()

    private static let latinExtendedA: [String] = {
        let groups: [(String, Int)] = [
            ("a", 6), ("c", 8), ("d", 4), ("e", 10), ("g", 8), ("h", 4), ("i", 10), ("ij", 2), ("j", 2), ("k", 3),
            ("l", 10), ("n", 9), ("o", 6), ("oe", 2), ("r", 6), ("s", 8), ("t", 6), ("u", 12), ("w", 2), ("y", 3),
            ("z", 6), ("s", 1),
        ]
        return groups.flatMap { Array(repeating: $0.0, count: $0.1) }
    }()

    /// Folds a whole text the way tokens are folded, words separated by single spaces: for
    /// matching names and vocabulary.
    static func foldedWords(_ text: String) -> [String] {
        tokens(Array(text.unicodeScalars)).filter { $0.kind != .symbol }.map(\.folded)
    }
}
