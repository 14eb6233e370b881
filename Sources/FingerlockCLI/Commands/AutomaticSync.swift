import Auth
import NoteSync
import Vault

/// A command that changes notes: with `sync auto on`, a sync follows it when it succeeds.
protocol ChangesNotes: FingerlockCommand {
    var global: GlobalOptions { get }
    /// Whether this run changed notes (a listing action of the same command did not).
    var changesNotes: Bool { get }
}

extension ChangesNotes {
    var changesNotes: Bool { true }
}

/// The sync after a change (`sync auto on`): with the key the change left cached, never asking
/// for a touch or a passcode again; what it did, or why it did not, is one line on stderr (the
/// change itself is saved either way, and the command's exit status stays its own).
enum AutomaticSync {
    static func afterChange(_ global: GlobalOptions, _ dependencies: CLIDependencies) async {
        let err = dependencies.console.err
        guard let session = try? await AuthSession(global: global, passcode: nil, dependencies: dependencies, needsReader: false),
            let vault = try? session.context.openIfCached()
        else { return }
        defer { vault.close() }
        guard (try? SyncEngine.isAutomatic(vault)) == true else { return }
        do {
            let engine = try SyncCommand.engine(vault, dependencies)
            let report = try engine.sync()
            err.write(SyncCommand.summary(report, remote: try SyncEngine.remoteURL(of: vault) ?? "") + "\n")
        } catch {
            err.write("fingerlock: saved here; the automatic sync did not finish: \(CLIError.from(error).message)\n")
        }
    }
}

extension NotesCommand.Add: ChangesNotes {}
extension NotesCommand.Edit: ChangesNotes {}
extension NotesCommand.Remove: ChangesNotes {}
extension ImportCommand: ChangesNotes {}
extension GenerateCommand: ChangesNotes {}
extension RestoreCommand: ChangesNotes {}
extension NotesTrashCommand: ChangesNotes {
    var changesNotes: Bool { action != .list }
}
extension NotesHistoryCommand: ChangesNotes {
    var changesNotes: Bool { restore != nil }
}
