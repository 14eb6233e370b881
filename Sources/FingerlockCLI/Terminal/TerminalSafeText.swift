/// Vault text made safe to print for a person. A title, a tag or a body may hold control
/// characters (typed, imported, or planted in a shared note) that a terminal would obey: an escape
/// sequence can clear the screen, retitle the window or write the clipboard, and a newline in a
/// title fakes extra lines in a listing. Such characters are shown as visible escapes instead —
/// `\n`, `\r`, `\t`, otherwise `\u{1B}` — so the text stays readable and nothing is hidden.
/// Machine output (`--json`) never goes through here: it stays exact.
enum TerminalSafeText {
    /// A one-line field (title, tag, a user's argument echoed back): every C0 and C1 control and DEL,
    /// newline and tab included, and the Unicode line separators and bidirectional overrides, which
    /// can make a line look like another.
    static func line(_ text: String) -> String {
        escaping(text) { needsEscapeInLine($0) }
    }

    /// A note body for a terminal: as `line`, except that newline and tab stay (they are the body's
    /// own layout) and bidirectional marks stay (right-to-left text needs them); a carriage return is
    /// escaped, as it could overwrite the line before it.
    static func body(_ text: String) -> String {
        escaping(text) { $0 != "\n" && $0 != "\t" && isControl($0) }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func needsEscapeInLine(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: isControl(scalar)
        }
    }

    private static func escaping(_ text: String, where needsEscape: (Unicode.Scalar) -> Bool) -> String {
        // Almost every title is clean: return it untouched without building a copy.
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.append(scalar)
                continue
            }
            let visible: String
            switch scalar {
            case "\n": visible = "\\n"
            case "\r": visible = "\\r"
            case "\t": visible = "\\t"
            default: visible = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
            result.append(contentsOf: visible.unicodeScalars)
        }
        return String(result)
    }
}
