import Foundation

/// Where the searched-for text occurs in a title or tag, marked as grep marks matches. Only used
/// where the console uses colour (a terminal, without `NO_COLOR`): piped output stays plain.
enum MatchHighlight {
    /// `text` (already made terminal-safe) with each occurrence of `query`, ignoring case, passed
    /// through `mark` and the text between them through `rest`.
    static func apply(_ text: String, query: String, mark: (String) -> String, rest: (String) -> String) -> String {
        apply(text, queries: [query], mark: mark, rest: rest)
    }

    /// The same for several searched-for texts: at each point the earliest (the longest there).
    static func apply(_ text: String, queries: [String], mark: (String) -> String, rest: (String) -> String) -> String {
        let queries = queries.filter { !$0.isEmpty }
        guard !queries.isEmpty else { return rest(text) }
        var result = ""
        var position = text.startIndex
        func next() -> Range<String.Index>? {
            queries.compactMap { text.range(of: $0, options: .caseInsensitive, range: position..<text.endIndex) }
                .filter { !$0.isEmpty }
                .min {
                    ($0.lowerBound, text.distance(from: $1.lowerBound, to: $1.upperBound)) < (
                        $1.lowerBound, text.distance(from: $0.lowerBound, to: $0.upperBound)
                    )
                }
        }
        while position < text.endIndex, let found = next() {
            if position < found.lowerBound { result += rest(String(text[position..<found.lowerBound])) }
            result += mark(String(text[found]))
            position = found.upperBound
        }
        if position < text.endIndex { result += rest(String(text[position...])) }
        return result
    }
}
