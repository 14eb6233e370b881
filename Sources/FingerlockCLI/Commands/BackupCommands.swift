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
    @Argument(help: ArgumentHelp("Where to write the backup.", valueName: "file")) var file: String

    func run(with dependencies: CLIDependencies) async throws {
        let vault = try await NotesCommand.unlock(global, passcode, dependencies)
        defer { vault.close() }
        try vault.backup(to: file)
        dependencies.console.print("Backed up \(try vault.noteCount()) notes to \(file).")
    }
}

struct RestoreCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup back: replaces every note (asks first unless --yes).",
        discussion: """
            The backup is checked whole (slots, manifest, every row) before anything is replaced, and the \
            current vault stays as it was if the backup is bad. A backup made before a passcode change \
            or a rekey asks for the passcode it was made with.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp("The backup file.", valueName: "file")) var file: String
    @Flag(name: .long, help: "Do not ask for confirmation.") var yes = false

    func run(with dependencies: CLIDependencies) async throws {
        guard FileManager.default.fileExists(atPath: file) else {
            throw CLIError(.notFound, "No backup at \(file).")
        }
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies)
        let context = session.context
        let restored: Vault
        if Vault.exists(in: session.dataDirectory) {
            let vault = try await context.evaluate(.biometricsOrPasscode, reason: "restore a backup")
            if !yes {
                let count = try vault.noteCount()
                let confirmed = try await Confirmation.ask(
                    "Replace all \(count) notes with the backup's?", terminal: dependencies.openTerminal(), unlessFlag: "--yes")
                guard confirmed else {
                    vault.close()
                    throw CLIError(.cancelled, "Nothing was restored.")
                }
            }
            do {
                try vault.restore(from: file)
            } catch where [.wrongKey, .wrongPasscode].contains(error.code) {
                let backupPasscode = try await context.askSecret("Passcode the backup was made with: ")
                try vault.restore(from: file, using: .passcode(backupPasscode))
            } catch {
                vault.close()
                throw error
            }
            restored = vault
        } else {
            let backupPasscode = try await context.askSecret("Passcode the backup was made with: ")
            restored = try Vault.restore(
                from: file, into: session.dataDirectory, using: .passcode(backupPasscode),
                configuration: VaultConfiguration(now: dependencies.now))
        }
        defer { restored.close() }
        try context.cacheKey(of: restored)
        dependencies.console.print("Restored \(try restored.noteCount()) notes from \(file).")
    }
}

struct ExportCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every note in plaintext to stdout, after an explicit confirmation.")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, markdown
    }

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Option(name: .long, help: "json or markdown.") var format: Format = .json
    @Flag(name: .customLong("yes-plaintext"), help: "Confirm that the notes leave the vault unencrypted.") var yesPlaintext = false

    func run(with dependencies: CLIDependencies) async throws {
        if !yesPlaintext {
            let confirmed = try await Confirmation.ask(
                "This writes all your notes UNENCRYPTED to stdout. Continue?", terminal: dependencies.openTerminal(),
                unlessFlag: "--yes-plaintext")
            guard confirmed else { throw CLIError(.cancelled, "Nothing was exported.") }
        }
        let vault = try await NotesCommand.unlock(global, passcode, dependencies)
        defer { vault.close() }
        switch format {
        case .json: dependencies.console.out.write(String(decoding: try vault.exportJSON(), as: UTF8.self) + "\n")
        case .markdown: dependencies.console.out.write(try vault.exportMarkdown())
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

    func run(with dependencies: CLIDependencies) async throws {
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
        let recoveryKey = try await session.context.rekey()
        if let terminal = session.interaction as? TerminalInteraction {
            try await terminal.presentRecoveryKey(recoveryKey.displayString)
        } else {
            dependencies.console.print("New recovery key (shown once, keep it safe): \(recoveryKey.displayString)")
        }
        dependencies.console.print("Rekeyed: the old recovery key and old copies of the key slots no longer open this vault.")
    }
}
