import Auth
import AuthCore
import Vault

/// What `restore` says before it asks: every part of the security state the backup brings back.
enum RestorePlanText {
    static func lines(_ plan: RestorePlan) -> [String] {
        var lines: [String] = []
        let after = "\(plan.notesAfter) \(plan.notesAfter == 1 ? "note" : "notes")"
        if let now = plan.notesNow {
            lines.append("Restoring \(plan.backupPath) replaces this vault's \(now) \(now == 1 ? "note" : "notes") with the backup's \(after).")
        } else {
            lines.append("Restoring \(plan.backupPath) creates the vault with the backup's \(after).")
        }
        if plan.otherVault { lines.append("  The backup is of another vault, not an older copy of this one.") }
        if plan.notesNow != nil {
            lines.append("  Passcode afterwards: " + describe(plan.passcodeAfter, "passcode"))
            lines.append("  Recovery key afterwards: " + describe(plan.recoveryKeyAfter, "recovery key"))
        }
        if plan.modeAfter != (plan.modeNow ?? .user) {
            let now = plan.modeNow.map { ", \($0.rawValue) now" } ?? ""
            switch plan.modeAfter {
            case .system: lines.append("  Mode afterwards: system (the passcode goes through fingerlockd)\(now).")
            case .user: lines.append("  Mode afterwards: user (the passcode opens it without fingerlockd)\(now).")
            }
        }
        if let problem = plan.serviceProblem { lines.append("  Warning: " + problem) }
        for finger in plan.fingersBack { lines.append("  Comes back: \(finger) (not enrolled now).") }
        for finger in plan.fingersGone { lines.append("  Goes away: \(finger) (enrolled now, not in the backup).") }
        for change in plan.settingChanges {
            lines.append("  Setting \(change.key.rawValue): \(change.now) now, \(change.after) after the restore.")
        }
        if let notes = plan.noteChanges {
            if !notes.appear.isEmpty { lines.append("  Notes that come back: " + titles(notes.appear) + ".") }
            if !notes.disappear.isEmpty { lines.append("  Notes that go away: " + titles(notes.disappear) + ".") }
            if !notes.change.isEmpty { lines.append("  Notes that go back to the backup's version: " + titles(notes.change) + ".") }
            if !notes.toTrash.isEmpty { lines.append("  Notes that go back to the trash: " + titles(notes.toTrash) + ".") }
            if !notes.trashAppear.isEmpty { lines.append("  Notes in the trash that come back to it: " + titles(notes.trashAppear) + ".") }
            if !notes.trashDisappear.isEmpty {
                lines.append("  Notes in the trash now that go away for good: " + titles(notes.trashDisappear) + ".")
            }
            if !notes.revisionsAppear.isEmpty {
                lines.append("  Earlier revisions that come back: " + revisions(notes.revisionsAppear) + ".")
            }
            if !notes.revisionsDisappear.isEmpty {
                lines.append("  Earlier revisions that go away for good: " + revisions(notes.revisionsDisappear) + ".")
            }
        }
        return lines
    }

    /// How many titles a line names before "and N more".
    static let titlesShown = 5

    /// `"a", "b" and 3 more`, each title made safe for the terminal and cut to a readable length.
    static func titles(_ notes: [NoteSummary]) -> String {
        let named = notes.prefix(titlesShown).map { note in
            let title = note.title.isEmpty ? "(untitled)" : TerminalSafeText.line(String(note.title.prefix(60)))
            return "\"\(title)\""
        }
        let rest = notes.count - named.count
        if rest > 0 { return named.joined(separator: ", ") + " and \(rest) more" }
        if named.count <= 1 { return named.joined() }
        return named.dropLast().joined(separator: ", ") + " and " + named.last!
    }

    /// `3 of "bank" and 1 of "door"`: revisions counted by note, named as `titles` names notes.
    static func revisions(_ counts: [NoteSetChanges.Revisions]) -> String {
        let total = counts.reduce(0) { $0 + $1.count }
        let named = counts.prefix(titlesShown).map { "\($0.count) of \(titles([$0.note]))" }
        let rest = counts.count - named.count
        let list =
            rest > 0
            ? named.joined(separator: ", ") + " and \(rest) more notes"
            : (named.count <= 1 ? named.joined() : named.dropLast().joined(separator: ", ") + " and " + named.last!)
        return "\(total) (\(list))"
    }

    private static func describe(_ secret: RestorePlan.Secret, _ what: String) -> String {
        switch secret {
        case .current: "unchanged (the current \(what) opens it)."
        case .backups: "the \(what) valid when the backup was made, NOT the current one."
        case .backupsUnchecked: "the \(what) valid when the backup was made (it may differ from the current one)."
        }
    }
}
