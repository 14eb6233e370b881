import ArgumentParser
import Foundation

/// A tag as typed on the command line. People write `#work` (as listings show it) or ` work` from a
/// pasted list: a tag is stored trimmed and without one leading `#`, so all of them mean the same
/// tag. An empty tag would match nothing and show as a bare `#`, so it is refused.
enum TagArgument {
    /// `raw` trimmed, one leading `#` dropped; throws for a tag that is empty after that.
    static func normalized(_ raw: String, option: String = "--tag") throws(ValidationError) -> String {
        var tag = Substring(raw.trimmingCharacters(in: .whitespacesAndNewlines))
        if tag.first == "#" { tag = tag.dropFirst() }
        let trimmed = tag.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw ValidationError("\(option) needs a tag name; \"\(raw)\" is empty.")
        }
        return trimmed
    }

    /// Each of `raws` normalized, the first spelling kept of tags that differ only in case (tags
    /// compare ignoring case everywhere).
    static func normalized(_ raws: [String], option: String = "--tag") throws(ValidationError) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for raw in raws {
            let tag = try normalized(raw, option: option)
            if seen.insert(tag.lowercased()).inserted { result.append(tag) }
        }
        return result
    }
}
