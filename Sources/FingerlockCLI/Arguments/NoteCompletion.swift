import Auth
import Foundation
import Vault

/// TAB after `notes show|edit|rm`: the titles that start with what was typed, only while the vault's
/// key is already cached in the kernel keyring (user mode). A TAB never prompts, never asks for a
/// touch, never counts an attempt and writes nothing; without a cached key it offers nothing.
///
/// The shell asks through ArgumentParser's `---completion notes show -- positional@0 …` call, which
/// is answered here before parsing: the vault is opened asynchronously, as every unlock is.
enum NoteCompletion {
    static let commands: Set<String> = ["show", "edit", "rm"]

    /// The word being completed for a note argument, or nil for any other request.
    static func typed(in arguments: [String]) -> String? {
        guard arguments.first == "---completion", let dash = arguments.firstIndex(of: "--"), dash == 3,
            arguments[1] == "notes", commands.contains(arguments[2]), arguments.count > dash + 1, arguments[dash + 1] == "positional@0"
        else { return nil }
        // After the argument's name: the word index, the cursor's offset, then the words themselves.
        return arguments.count > dash + 4 ? arguments[arguments.count - 1] : ""
    }

    /// The titles to offer, sorted; none on any problem (a completion never prints an error).
    static func titles(startingWith typed: String, dependencies: CLIDependencies) async -> [String] {
        do {
            let session = try await AuthSession(
                global: GlobalSettings(reader: nil, dataDir: nil), passcodeDescriptor: nil, dependencies: dependencies, needsReader: false)
            guard let vault = try VaultStatusReport(session.environment).notesIfCached() else { return [] }
            defer { vault.close() }
            let wanted = typed.lowercased()
            // A title a shell could not take as one word (a line break, a control character) is left out.
            return Set(try vault.list().map(\.title)).filter { title in
                !title.isEmpty && title.lowercased().hasPrefix(wanted) && TerminalSafeText.line(title) == title
            }.sorted()
        } catch {
            return []
        }
    }
}
