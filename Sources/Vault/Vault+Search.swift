import Dispatch
public import Foundation
import GRDB

extension Vault {
    /// Notes whose title, body or a tag contains `query` (only the title with `titlesOnly`),
    /// ignoring case, among those `filter` keeps; newest change first, with `limit` only the newest
    /// that many (as `list`). Reads and verifies the whole set like `list`.
    ///
    /// Searching means decrypting every body, so rows are read in batches and each batch is
    /// decrypted, matched and tallied on all cores (see `scanNotes`). A title-only search decrypts
    /// no body.
    public func search(
        _ query: String, titlesOnly: Bool = false, filter: NoteFilter = NoteFilter(), limit: Int? = nil
    ) throws(VaultError) -> [NoteSummary] {
        try search(terms: [query], titlesOnly: titlesOnly, filter: filter, limit: limit).notes
    }

    /// As `search(_:)`, for notes that contain every one of `terms` (each in the title, a tag or the
    /// body), with, for each note found in its body, the text around the first place a term occurs
    /// there (`snippetRadius` characters either side, on one line).
    public func search(
        terms: [String], titlesOnly: Bool = false, filter: NoteFilter = NoteFilter(), limit: Int? = nil, snippetRadius: Int? = nil
    ) throws(VaultError) -> SearchResult {
        let scope = SearchScope(titlesOnly: titlesOnly, filter: filter, snippetRadius: snippetRadius)
        let matchers = terms.map(TextMatcher.init)
        var found = NoteListing(limit: limit)
        var snippets: [UUID: String] = [:]
        try scanNotes(
            bodies: !titlesOnly, { row, keys in Self.match(row, keys, matchers, scope) },
            keep: { hits in
                found.add(contentsOf: hits.map(\.summary))
                for hit in hits { if let snippet = hit.snippet { snippets[hit.summary.id] = snippet } }
            })
        let notes = found.finish()
        // Only the notes kept: with a limit, the rest were let go.
        let kept = Set(notes.map(\.id))
        return SearchResult(notes: notes, snippets: snippets.filter { kept.contains($0.key) })
    }

    private static func match(_ row: SealedNote, _ keys: KeyHierarchy, _ matchers: [TextMatcher], _ scope: SearchScope)
        -> Result<SearchHit?, VaultError>
    {
        do throws(VaultError) {
            let summary = try NoteSealing.openHeader(row.header, keys: keys, id: row.id, revision: row.revision)
            // Every body is authenticated, matched or not, as before filters existed: a search is
            // also a check of the whole set. A title-only search reads headers only, like `list`.
            let wanted = scope.filter.keepsAll || scope.filter.admits(summary)
            let inTitle = matchers.map { wanted && $0.matches(summary.title) }
            let titleHit = !matchers.isEmpty && inTitle.allSatisfy { $0 }
            let byTitle: SearchHit? = titleHit ? SearchHit(summary: summary, snippet: nil) : nil
            var hit = byTitle
            if !scope.titlesOnly {
                hit = try NoteSealing.withOpenedBody(row.body, keys: keys, id: row.id, revision: row.revision) { body in
                    guard wanted, !titleHit, !matchers.isEmpty else { return byTitle }
                    var inBody: [String] = []
                    for (matcher, found) in zip(matchers, inTitle) where !found {
                        if matcher.matches(utf8: body) {
                            inBody.append(matcher.query)
                        } else if !summary.tags.contains(where: matcher.matches) {
                            return nil
                        }
                    }
                    let snippet = scope.snippetRadius.flatMap { radius in
                        inBody.isEmpty ? nil : Snippet.around(inBody, in: String(decoding: body, as: UTF8.self), radius: radius)
                    }
                    return SearchHit(summary: summary, snippet: snippet)
                }
            }
            return .success(hit)
        } catch {
            return .failure(error)
        }
    }
}

/// What `search(terms:)` found: the notes, and the snippets of those found in their bodies.
public struct SearchResult: Sendable {
    public var notes: [NoteSummary]
    public var snippets: [UUID: String]
}

/// One note found, with the text around its first hit in the body.
struct SearchHit: Sendable {
    var summary: NoteSummary
    var snippet: String?
}

/// What a search looks at besides the query.
struct SearchScope: Sendable {
    var titlesOnly: Bool
    var filter: NoteFilter
    var snippetRadius: Int? = nil
}

/// The text around where a term first occurs in a body, from that line only, as `pass grep` shows
/// the lines that match: the lines around it (a pass entry's first line is its password) never
/// show.
enum Snippet {
    static func around(_ terms: [String], in body: String, radius: Int) -> String? {
        let first = terms.compactMap { body.range(of: $0, options: .caseInsensitive) }.min { $0.lowerBound < $1.lowerBound }
        guard let first else { return nil }
        let line = body.lineRange(for: first)
        var lineEnd = line.upperBound
        while lineEnd > line.lowerBound, body[body.index(before: lineEnd)].isNewline { lineEnd = body.index(before: lineEnd) }
        let start = body.index(first.lowerBound, offsetBy: -radius, limitedBy: line.lowerBound) ?? line.lowerBound
        let end = body.index(first.upperBound, offsetBy: radius, limitedBy: lineEnd) ?? lineEnd
        return (start > line.lowerBound ? "…" : "") + body[start..<min(end, lineEnd)] + (end < lineEnd ? "…" : "")
    }
}
