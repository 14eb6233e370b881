import FingerlockTestSupport
import Foundation
import Testing
import Vault

/// A search's snippet is cut from the line that matched, as `pass grep` prints matching lines: an
/// imported pass entry keeps its password on line 1, and a search for its login line must not show it.
@Suite(.timed) struct VaultSearchSnippetTests {
    @Test func theSnippetIsTheMatchingLineOnly() throws {
        try withScratch { directory in
            let (vault, _) = try makeVault(directory)
            defer { vault.close() }
            let entry = try vault.add(title: "email/work", body: "s3cret-pw\nlogin: me@example.org\nurl: https://example.org/in\n", tags: [])
            let result = try vault.search(terms: ["login example.org"], snippetRadius: 30)
            #expect(result.notes.map(\.id) == [])
            let found = try vault.search(terms: ["example.org"], snippetRadius: 30)
            #expect(found.notes.map(\.id) == [entry.id])
            #expect(found.snippets[entry.id] == "login: me@example.org")
            let short = try vault.search(terms: ["https"], snippetRadius: 3)
            #expect(short.snippets[entry.id] == "…l: https://…")
            for snippet in [found.snippets[entry.id], short.snippets[entry.id]] {
                #expect(snippet?.contains("s3cret") == false)
            }
        }
    }
}
