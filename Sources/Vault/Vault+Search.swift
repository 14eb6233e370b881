import Dispatch
import Foundation
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
        let scope = SearchScope(titlesOnly: titlesOnly, filter: filter)
        let matcher = TextMatcher(query)
        var found = NoteListing(limit: limit)
        try scanNotes(bodies: !titlesOnly, { row, keys in Self.match(row, keys, matcher, scope) }, keep: { found.add(contentsOf: $0) })
        return found.finish()
    }

    private static func match(_ row: SealedNote, _ keys: KeyHierarchy, _ matcher: TextMatcher, _ scope: SearchScope)
        -> Result<NoteSummary?, VaultError>
    {
        do throws(VaultError) {
            let summary = try NoteSealing.openHeader(row.header, keys: keys, id: row.id, revision: row.revision)
            // Every body is authenticated, matched or not, as before filters existed: a search is
            // also a check of the whole set. A title-only search reads headers only, like `list`.
            let wanted = scope.filter.keepsAll || scope.filter.admits(summary)
            let titleHit = wanted && matcher.matches(summary.title)
            var bodyHit = false
            if !scope.titlesOnly {
                bodyHit = try NoteSealing.withOpenedBody(row.body, keys: keys, id: row.id, revision: row.revision) { body in
                    wanted && !titleHit && (summary.tags.contains(where: matcher.matches) || matcher.matches(utf8: body))
                }
            }
            return .success(titleHit || bodyHit ? summary : nil)
        } catch {
            return .failure(error)
        }
    }
}

/// What a search looks at besides the query.
struct SearchScope: Sendable {
    var titlesOnly: Bool
    var filter: NoteFilter
}
