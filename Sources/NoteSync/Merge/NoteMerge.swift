/// The three-way merge of two versions of one note against the version both were based on.
/// Different fields both apply; tags merge as sets; the body merges by lines. Only a real
/// conflict (the title changed both ways, or overlapping hunks) keeps the other side whole in a
/// conflict copy. A deletion never removes a change it did not see: an edit made beside a
/// deletion brings the note back, marked. Clocks never decide anything.
enum NoteMerge {
    /// The tag that marks a conflict copy and a note brought back over a deletion.
    static let conflictTag = "sync-conflict"

    struct Outcome: Equatable {
        var state: NoteState
        /// The other side whole, when the merge had to choose.
        var conflictCopy: NoteState?
        /// A deletion met an edit it had not seen: the note stays, marked.
        var restored = false
    }

    /// `base` is nil when the two have no common version (a note made on two machines with one id).
    static func merge(base: NoteState?, ours: NoteState, theirs: NoteState) -> Outcome {
        if ours.sameContent(as: theirs) {
            return Outcome(state: later(ours, theirs))
        }
        switch (ours.deleted, theirs.deleted) {
        case (true, true):
            return Outcome(state: ours)
        case (true, false):
            return deletion(versus: theirs, base: base)
        case (false, true):
            return deletion(versus: ours, base: base)
        case (false, false):
            break
        }
        let common = base.flatMap { $0.deleted ? nil : $0 }
        var result = ours
        var conflicted = false
        // Title: one side's change is taken; changes on both sides conflict.
        if let common {
            if ours.title == common.title {
                result.title = theirs.title
            } else if theirs.title != common.title && theirs.title != ours.title {
                conflicted = true
            }
        } else if ours.title != theirs.title {
            conflicted = true
        }
        let body = LineMerge.merge(base: common?.body ?? "", ours: ours.body, theirs: theirs.body)
        result.body = body.text
        conflicted = conflicted || body.conflicted
        result.tags = mergedTags(base: common?.tags ?? [], ours: ours.tags, theirs: theirs.tags)
        result.created = min(ours.created, theirs.created)
        result.modified = max(ours.modified, theirs.modified)
        guard conflicted else { return Outcome(state: result) }
        var copy = theirs
        copy.title = theirs.title + " (conflict)"
        if !copy.tags.contains(conflictTag) { copy.tags.append(conflictTag) }
        return Outcome(state: result, conflictCopy: copy)
    }

    /// A deletion beside a live version: the deletion wins only when that version is the one it
    /// deleted (unchanged since the base); an edit it did not see brings the note back, marked.
    private static func deletion(versus live: NoteState, base: NoteState?) -> Outcome {
        if let base, !base.deleted, base.sameContent(as: live) {
            return Outcome(state: NoteState.tombstone(at: live.modified))
        }
        var kept = live
        if !kept.tags.contains(conflictTag) { kept.tags.append(conflictTag) }
        return Outcome(state: kept, restored: true)
    }

    /// Tags as sets: what either side added is in, what either side removed is out, in the order
    /// `ours` has them, then those only `theirs` added.
    static func mergedTags(base: [String], ours: [String], theirs: [String]) -> [String] {
        let (o, b) = (Set(base), Set(theirs))
        let removedByTheirs = o.subtracting(b)
        var result = ours.filter { !removedByTheirs.contains($0) }
        for tag in theirs where !o.contains(tag) && !result.contains(tag) { result.append(tag) }
        return result
    }

    private static func later(_ a: NoteState, _ b: NoteState) -> NoteState {
        var result = a
        result.modified = max(a.modified, b.modified)
        result.created = min(a.created, b.created)
        return result
    }
}
