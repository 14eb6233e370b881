import ArgumentParser
import Foundation

/// `notes edit --add-tag T --remove-tag U`: changes to a note's tags one at a time, leaving its other
/// tags, title and body as they are.
struct TagEdit: Equatable {
    var adding: [String]
    var removing: [String]

    init(adding: [String], removing: [String]) throws(ValidationError) {
        self.adding = try TagArgument.normalized(adding, option: "--add-tag")
        self.removing = try TagArgument.normalized(removing, option: "--remove-tag")
        let both = Set(self.adding.map { $0.lowercased() }).intersection(self.removing.map { $0.lowercased() })
        if let tag = both.sorted().first {
            throw ValidationError("\"\(tag)\" is both added and removed; give it once.")
        }
    }

    var isEmpty: Bool { adding.isEmpty && removing.isEmpty }

    /// `tags` with the removals taken out and the additions appended (an addition already there,
    /// in any case, stays as it was). A removal the note does not have is an error naming the tags it
    /// has, so a typo is not taken for success.
    func applied(to tags: [String]) throws(CLIError) -> [String] {
        for tag in removing where !tags.contains(where: { $0.lowercased() == tag.lowercased() }) {
            let has = tags.isEmpty ? "it has no tags" : "its tags are " + tags.map { "#" + $0 }.joined(separator: " ")
            throw CLIError(.notFound, "The note has no tag \"\(tag)\" (\(has)); nothing was changed.")
        }
        let removed = Set(removing.map { $0.lowercased() })
        var result = tags.filter { !removed.contains($0.lowercased()) }
        for tag in adding where !result.contains(where: { $0.lowercased() == tag.lowercased() }) {
            result.append(tag)
        }
        return result
    }
}
