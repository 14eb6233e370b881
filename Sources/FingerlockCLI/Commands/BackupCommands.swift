import ArgumentParser
import Auth
import Foundation
import Vault

struct BackupCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent, encrypted copy of the vault to FILE.",
        discussion: "The copy opens with the passcode and recovery key valid now. It is as safe to keep as the vault itself.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp("Where to write the backup.", valueName: "file"), completion: .file()) var file: String
    @Flag(name: .long, help: "Replace FILE if it exists (only a regular file is ever replaced).") var force = false

    func run(with dependencies: CLIDependencies) async throws {
        // Before the touch or the passcode: a backup that cannot be written should not ask for either.
        try Vault.checkBackupTarget(file, replacing: force, vaultDirectory: try global.dataDirectory(dependencies.environment))
        let vault = try await NotesCommand.unlock(global, passcode, dependencies)
        defer { vault.close() }
        // Pages, not notes: a bar for a vault of a few thousand notes (about 2,000 pages) and more.
        var bar: ProgressReporter?
        let count = try vault.backup(to: file, replacing: force) { done, total in
            if bar == nil { bar = ProgressReporter("Backing up", total: total, console: dependencies.console) }
            bar?.update(done)
        }
        bar?.finish()
        dependencies.console.print("Backed up \(count) \(count == 1 ? "note" : "notes") to \(file).")
    }
}

struct RestoreCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup back: replaces every note, the passcode, fingers and settings (asks first unless --yes).",
        discussion: """
            Needs the current vault's passcode or recovery key (never a touch): a backup brings back \
            its passcode, recovery key, enrolled fingers and settings too, and restore lists what changes \
            before asking. The backup is checked whole (slots, manifest, every row) before anything is \
            replaced, and the current vault stays as it was if the backup is bad. A backup made before a \
            rekey, or of another vault, asks for the passcode it was made with. A test vault's backup is \
            never restored over a hardware vault (or the reverse). --note ID takes one note out of the \
            backup instead, leaving everything else as it is.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp("The backup file.", valueName: "file"), completion: .file()) var file: String
    @Flag(name: .long, help: "Do not ask for confirmation.") var yes = false
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Take only this note (its title or id in the backup, or a unique start of the id) into the current vault; nothing else changes.",
            valueName: "id-or-title"))
    var note: String?

    func validate() throws {
        if let note { try NoteIDArgument.validate(note) }
    }

    func run(with dependencies: CLIDependencies) async throws {
        if let note { return try await takeNote(note, dependencies) }
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
        // The backup is checked whole before anything is said: a bar for a large one.
        var bar: ProgressReporter?
        let prepared = try await VaultRestore(session.environment).prepareRestore(from: file) { done, total in
            if bar == nil { bar = ProgressReporter("Checking the backup", total: total, console: dependencies.console) }
            bar?.update(done)
        }
        bar?.finish()
        let console = dependencies.console
        let plan = prepared.plan
        for line in RestorePlanText.lines(plan) { console.print(line) }
        if !yes {
            let confirmed: Bool
            do {
                confirmed = try await Confirmation.ask(
                    "Restore the backup?", terminal: dependencies.openTerminal(), unlessFlag: "--yes")
            } catch {
                prepared.cancel()
                throw error
            }
            guard confirmed else {
                prepared.cancel()
                throw CLIError(.cancelled, "Nothing was restored.")
            }
        }
        let count = try prepared.commit()
        console.print("Restored \(count) \(count == 1 ? "note" : "notes") from \(file).")
    }

    /// `--note`: the backup's version of one note joins the vault, as a new note or, when the vault
    /// has it, as its newest revision (the current text stays in its history).
    private func takeNote(_ prefix: String, _ dependencies: CLIDependencies) async throws {
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies)
        let vault = try await session.context.openNotes()
        defer { vault.close() }
        vault.retention = try SecuritySettings(vault: vault).noteRetention
        let staged = try await VaultRestore(session.environment).openBackup(file, besides: vault)
        defer { staged.discard() }
        let wanted = try staged.backup.note(id: try await NoteIDArgument.resolve(prefix, in: staged.backup))
        let exists = try vault.noteIDs(matchingPrefix: wanted.id.uuidString.lowercased(), limit: 1) == [wanted.id]
        if exists {
            let saved = try vault.update(id: wanted.id) { (note: inout Note) throws(VaultError) in
                (note.title, note.body, note.tags) = (wanted.title, wanted.body, wanted.tags)
            }
            guard saved != nil else {
                dependencies.console.print("No changes: \(NotesCommand.shortID(wanted.id)) is the same in the backup.")
                return
            }
            dependencies.console.print(
                "Took \(NotesCommand.shortID(wanted.id)) from \(file): \(TerminalSafeText.line(wanted.title)) "
                    + "(the version it replaced is in `notes history`)")
        } else {
            try vault.add([wanted])
            dependencies.console.print("Took \(NotesCommand.shortID(wanted.id)) from \(file): \(TerminalSafeText.line(wanted.title))")
        }
    }
}

struct RekeyCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Rotate the store master key: re-encrypts everything and shows a new recovery key.",
        discussion: "For when an old passcode, recovery key or copy of the vault may be compromised. Old backups keep their old keys.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var recoveryKey: RecoveryKeyOptions

    func run(with dependencies: CLIDependencies) async throws {
        let session = try await AuthSession(
            global: global, passcode: passcode, dependencies: dependencies, needsReader: false, recoveryKey: recoveryKey)
        // Drawn once the passcode is given and the notes are being re-sealed (a large vault).
        var bar: ProgressReporter?
        try await PasscodeManagement(session.environment).rekey { done, total in
            if bar == nil { bar = ProgressReporter("Rekeying", total: total, console: dependencies.console) }
            bar?.update(done)
        }
        bar?.finish()
        dependencies.console.print("Rekeyed: the old recovery key and old copies of the key slots no longer open this vault.")
    }
}
