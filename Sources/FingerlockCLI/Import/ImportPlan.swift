import Vault

/// What importing a source with stable names (a pass store: each entry's path is its title) again
/// does to the vault: a title the vault does not have is a new note; one it has once is left alone
/// when the body is the same and it has the entry's tags, else updated (the vault's version joins the
/// note's history; tags given in the vault since are kept, the entry's added);
/// a title several notes share stops the import, so nothing is ever duplicated or updated at random.
struct ImportPlan {
    var new: [Note] = []
    var changed: [(read: Note, with: Note)] = []
    var unchanged = 0

    /// Matches `incoming` to the vault's notes by title (exactly, as pass's paths are).
    init(matchingTitlesOf incoming: [Note], in vault: Vault) throws {
        var byTitle: [String: [NoteSummary]] = [:]
        for summary in try vault.list() { byTitle[summary.title, default: []].append(summary) }
        for note in incoming {
            let matches = byTitle[note.title] ?? []
            guard let match = matches.first else {
                new.append(note)
                continue
            }
            guard matches.count == 1 else {
                throw CLIError(
                    .usage,
                    "\(matches.count) notes are titled \"\(TerminalSafeText.line(note.title))\", so the import cannot tell which one it updates; "
                        + "give them distinct titles. Nothing was imported.")
            }
            let read = try vault.note(id: match.id)
            let missing = note.tags.filter { tag in !read.tags.contains { $0.lowercased() == tag.lowercased() } }
            if read.body == note.body && missing.isEmpty {
                unchanged += 1
            } else {
                var update = note
                update.tags = read.tags + missing
                changed.append((read, update))
            }
        }
    }

    /// "3 new notes, 1 changed, 16 unchanged", the counts that are not 0 ("nothing" when all are).
    var summary: String {
        var parts: [String] = []
        if !new.isEmpty { parts.append("\(new.count) new \(new.count == 1 ? "note" : "notes")") }
        if !changed.isEmpty { parts.append("\(changed.count) changed") }
        if unchanged > 0 { parts.append("\(unchanged) unchanged") }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }
}
