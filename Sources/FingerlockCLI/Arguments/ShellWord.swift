import Foundation

/// A word as a shell passes it to a completion function: still quoted as the user typed it
/// (`zz\$`, `'bank of'`, `"a b`). Completion compares what the word *means* with titles, so the
/// quoting is removed here, in Swift, and never by the shell (an `eval` there would run the word);
/// and for bash the rest of a title is quoted here too, for the quote the user left open.
enum ShellWord {
    /// The quote open at the end of a typed word.
    enum OpenQuote: Equatable, Sendable {
        case none
        /// `'…`: everything literal; a `'` ends it.
        case single
        /// `"…`: `$`, `` ` ``, `"` and `\` are special, and bash's history expansion sees `!`.
        case double
        /// bash's `$'…'`: backslash escapes.
        case ansiC
    }

    /// What `typed` stands for once its quotes and backslashes are taken away: POSIX single and
    /// double quotes, backslash escapes and bash's `$'…'`. An unclosed quote (the user is still
    /// typing inside it) ends the word. Nothing is expanded: `$HOME` stays `$HOME`.
    static func dequoted(_ typed: String) -> String { scan(typed).text }

    /// `typed` dequoted, and the quote still open at its end.
    static func scan(_ typed: String) -> (text: String, open: OpenQuote) {
        var result = ""
        var characters = Array(typed)[...]
        var open = OpenQuote.none
        while let character = characters.popFirst() {
            switch character {
            case "\\":
                if let next = characters.popFirst() { result.append(next) }
            case "'":
                open = .single
                while let next = characters.popFirst() {
                    if next == "'" {
                        open = .none
                        break
                    }
                    result.append(next)
                }
            case "\"":
                open = .double
                while let next = characters.popFirst() {
                    if next == "\"" {
                        open = .none
                        break
                    }
                    // Inside double quotes a backslash escapes only these.
                    if next == "\\", let escaped = characters.first, "$`\"\\".contains(escaped) {
                        result.append(characters.removeFirst())
                    } else {
                        result.append(next)
                    }
                }
            case "$" where characters.first == "'":
                characters.removeFirst()
                open = .ansiC
                while let next = characters.popFirst() {
                    if next == "'" {
                        open = .none
                        break
                    }
                    if next == "\\", let escaped = characters.popFirst() {
                        result.append(ansiCEscape(escaped))
                    } else {
                        result.append(next)
                    }
                }
            default:
                result.append(character)
            }
        }
        return (result, open)
    }

    /// `text` as bash reads it back where `open` is the quote left open before it, with that quote
    /// closed after it: what a completion appends to a typed word so that the whole word means the
    /// typed part followed by `text`. Every character that bash would treat as syntax, expansion or
    /// history (`$`, backquotes, `!`, quotes, `\`, spaces, globs, `~`, `#`, `;`, `|`, `&`, `<`, `>`,
    /// parentheses, braces, `=`, `:`) is quoted.
    static func bashQuoted(_ text: String, after open: OpenQuote) -> String {
        switch open {
        case .none:
            return text.map { character in
                character.unicodeScalars.allSatisfy(isPlainInBash) ? String(character) : "\\" + String(character)
            }.joined()
        case .single:
            return text.replacingOccurrences(of: "'", with: "'\\''") + "'"
        case .ansiC:
            return text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        case .double:
            var quoted = ""
            for character in text {
                switch character {
                case "\"", "\\", "$", "`": quoted += "\\" + String(character)
                // A backslash does not stop history expansion inside double quotes without
                // staying in the word: `!` goes outside them.
                case "!": quoted += "\"\\!\""
                default: quoted.append(character)
                }
            }
            return quoted + "\""
        }
    }

    /// Characters that are never syntax, expansion or history to bash, unquoted.
    private static func isPlainInBash(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value > 127 { return !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control }
        return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-./,+@%".unicodeScalars.contains(scalar)
    }

    /// The character a `$'…'` escape stands for (the common ones; any other is itself).
    private static func ansiCEscape(_ character: Character) -> Character {
        switch character {
        case "n": "\n"
        case "t": "\t"
        case "r": "\r"
        case "e", "E": "\u{1B}"
        case "a": "\u{07}"
        case "b": "\u{08}"
        case "f": "\u{0C}"
        case "v": "\u{0B}"
        default: character
        }
    }
}
