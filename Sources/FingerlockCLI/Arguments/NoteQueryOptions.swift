import ArgumentParser
import Foundation
import Vault

/// What `notes list` and `notes search` keep and in which order: tags, a range of days, a sort
/// order and a count, like `jrnl -from/-to -n` and `git log --since -n`.
struct NoteQueryOptions: ParsableArguments {
    @Option(name: .long, help: "Only notes with this tag (repeat for notes with all of them; a leading # is dropped).")
    var tag: [String] = []
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only notes modified on or after this day (UTC): YYYY-MM-DD, today, yesterday, N days ago, last week, monday…", valueName: "day"))
    var since: String?
    @Option(name: .long, help: ArgumentHelp("Only notes modified on or before this day (UTC), written as for --since.", valueName: "day"))
    var until: String?
    @Option(name: .long, help: "modified (newest first, the default), created (newest first) or title (A to Z).")
    var sort: NoteOrder = .modified
    @Option(name: [.customShort("n"), .customLong("max-count")], help: ArgumentHelp("At most N notes (after sorting).", valueName: "N"))
    var maxCount: Int?

    func validate() throws {
        _ = try query.filter()
        if let maxCount, maxCount < 1 { throw ValidationError("-n takes a number of notes, 1 or more; \(maxCount) is not one.") }
    }

    /// The options as plain values.
    var query: NoteQuery { NoteQuery(tags: tag, since: since, until: until, sort: sort, maxCount: maxCount) }

    func filter() throws(ValidationError) -> NoteFilter { try query.filter() }
    var vaultLimit: Int? { query.vaultLimit }
    func arrange(_ notes: [NoteSummary]) -> [NoteSummary] { query.arrange(notes) }
    var filterDescription: String? { query.filterDescription }
}

/// `NoteQueryOptions` as plain values (what `notes list`'s fast parser makes too).
struct NoteQuery: Equatable {
    /// As given (normalised by `filter()`).
    var tags: [String] = []
    var since: String?
    var until: String?
    var sort: NoteOrder = .modified
    var maxCount: Int?

    /// The tags and days as a vault filter.
    func filter() throws(ValidationError) -> NoteFilter {
        let from = try since.map { text throws(ValidationError) in try UTCDay.start(text, option: "--since") }
        let through = try until.map { text throws(ValidationError) in try UTCDay.start(text, option: "--until") }
        if let from, let through, from > through {
            throw ValidationError("--since \(since ?? "") is after --until \(until ?? ""): no note can match.")
        }
        // --until names a whole day: everything before the next midnight.
        return NoteFilter(
            tags: try TagArgument.normalized(tags), modifiedFrom: from, modifiedBefore: through.map { $0.addingTimeInterval(86_400) })
    }

    /// What the vault may cut the listing to as it scans: `-n` when the order is the vault's own
    /// (newest change first), so that `-n 20` holds 20 notes and not the whole vault; nil otherwise.
    var vaultLimit: Int? { sort == .modified ? maxCount : nil }

    /// `notes` sorted and cut to `-n`.
    func arrange(_ notes: [NoteSummary]) -> [NoteSummary] {
        let sorted = sort.sorted(notes)
        guard let maxCount, sorted.count > maxCount else { return sorted }
        return Array(sorted.prefix(maxCount))
    }

    /// How the days and tags asked for read in a sentence ("tagged #a, modified since 2024-01-01"),
    /// or nil when no filter was given.
    var filterDescription: String? {
        var parts: [String] = []
        if let tags = try? TagArgument.normalized(tags), !tags.isEmpty { parts.append("tagged " + NotesCommand.tagList(tags)) }
        switch (since, until) {
        case (let since?, let until?): parts.append("modified from \(since) to \(until)")
        case (let since?, nil): parts.append("modified since \(since)")
        case (nil, let until?): parts.append("modified until \(until)")
        case (nil, nil): break
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

/// The order of a listing.
enum NoteOrder: String, ExpressibleByArgument, CaseIterable {
    case modified, created, title

    /// `notes` (newest change first, as the vault lists them) in this order; ties keep that order,
    /// so the result is always the same for the same notes.
    func sorted(_ notes: [NoteSummary]) -> [NoteSummary] {
        switch self {
        case .modified:
            return notes
        case .created:
            return notes.enumerated().sorted { ($1.element.created, $0.offset) < ($0.element.created, $1.offset) }.map(\.element)
        case .title:
            // Case-insensitive, keyed once per note: comparing Unicode strings is the costly part.
            let keys = notes.map { $0.title.lowercased() }
            return notes.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }.map { notes[$0] }
        }
    }
}
