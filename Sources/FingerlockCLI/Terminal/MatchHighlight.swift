import Foundation

/// Where the searched-for text occurs in a title or tag, marked as grep marks matches. Only used
/// where the console uses colour (a terminal, without `NO_COLOR`): piped output stays plain.
enum MatchHighlight {
    /// `text` (already made terminal-safe) with each occurrence of `query`, ignoring case, passed
    /// through `mark` and the text between them through `rest`.
    static func apply(_ text: String, query: String, mark: (String) -> String, rest: (String) -> String) -> String {
        guard !query.isEmpty else { return rest(text) }
        var result = ""
        var position = text.startIndex
        while position < text.endIndex,
            let found = text.range(of: query, options: .caseInsensitive, range: position..<text.endIndex), !found.isEmpty
        {
            if position < found.lowerBound { result += rest(String(text[position..<found.lowerBound])) }
            result += mark(String(text[found]))
            position = found.upperBound
        }
        if position < text.endIndex { result += rest(String(text[position...])) }
        return result
    }
}
