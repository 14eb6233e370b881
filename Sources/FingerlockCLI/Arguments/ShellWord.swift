/// A word as a shell passes it to a completion function: still quoted as the user typed it
/// (`zz\$`, `'bank of'`, `"a b`). Completion compares what the word *means* with titles, so the
/// quoting is removed here, in Swift, and never by the shell (an `eval` there would run the word).
enum ShellWord {
    /// What `typed` stands for once its quotes and backslashes are taken away: POSIX single and
    /// double quotes, backslash escapes and bash's `$'…'`. An unclosed quote (the user is still
    /// typing inside it) ends the word. Nothing is expanded: `$HOME` stays `$HOME`.
    static func dequoted(_ typed: String) -> String {
        var result = ""
        var characters = Array(typed)[...]
        while let character = characters.popFirst() {
            switch character {
            case "\\":
                if let next = characters.popFirst() { result.append(next) }
            case "'":
                while let next = characters.popFirst(), next != "'" { result.append(next) }
            case "\"":
                while let next = characters.popFirst(), next != "\"" {
                    // Inside double quotes a backslash escapes only these.
                    if next == "\\", let escaped = characters.first, "$`\"\\".contains(escaped) {
                        result.append(characters.removeFirst())
                    } else {
                        result.append(next)
                    }
                }
            case "$" where characters.first == "'":
                characters.removeFirst()
                while let next = characters.popFirst(), next != "'" {
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
        return result
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
