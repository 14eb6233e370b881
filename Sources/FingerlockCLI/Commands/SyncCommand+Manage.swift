import ArgumentParser
import Auth
import Foundation
import NoteSync
import Vault

/// The `sync` subcommands that look after a set-up sync: status, conflicts, auto, compact,
/// remove-device, leave (`SyncCommand.swift` has syncing itself and joining).
extension SyncCommand {
    // MARK: - sync status

    struct Status: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Ahead, behind, conflicts, last sync, the remote and its devices.",
            discussion: """
                Fetches from the remote first (--offline: not). While the key is cached it needs no touch, as `ls`. \
                --json prints {remote, device, deviceName, ahead, behind, conflicts, lastSync, devices: [{id, name, \
                records, lastRecord, thisMachine}]}.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Flag(name: .long, help: "Do not fetch: say only what this machine knows.") var offline = false
        @Flag(name: .long, help: "Print JSON.") var json = false
        var jsonOutput: Bool { json }

        func run(with dependencies: CLIDependencies) async throws {
            let vault = try await NotesCommand.unlock(global, passcode, dependencies, json: json, titlesOnly: true)
            defer { vault.close() }
            let status = try SyncCommand.engine(vault, dependencies).status(fetch: !offline)
            if json { return try dependencies.console.printJSON(status) }
            let console = dependencies.console
            console.print("Remote:     \(TerminalSafeText.line(status.remote))")
            console.print("This device: \(TerminalSafeText.line(status.deviceName)) (\(status.device.prefix(8)))")
            console.print("Ahead:      \(SyncCommand.count(status.ahead, "change")) not yet sent")
            if let behind = status.behind { console.print("Behind:     \(SyncCommand.count(behind, "record")) to apply") }
            console.print("Conflicts:  \(status.conflicts)" + (status.conflicts > 0 ? " (fingerlock sync conflicts)" : ""))
            console.print("Last sync:  " + (status.lastSync.map { UTCDay.time($0) + " UTC" } ?? "never"))
            for device in status.devices {
                console.print(
                    "  \(device.id.prefix(8))  \(TerminalSafeText.line(device.name))\(device.thisMachine ? " (this machine)" : "")"
                        + "\(device.removed ? " (removed)" : "")  "
                        + "\(SyncCommand.count(Int(device.records), "record"))"
                        + (device.lastRecord.map { ", last \(UTCDay.time($0)) UTC" } ?? ""))
            }
        }
    }

    // MARK: - sync conflicts

    struct Conflicts: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "conflicts", abstract: "List the notes a sync kept as conflicts (tagged sync-conflict).",
            discussion: """
                A conflict copy holds the other machine's version whole ("TITLE (conflict)"); a note brought back \
                over a deletion keeps its text. Compare, keep what you want, then delete the copy or remove the \
                tag (`fingerlock notes edit`). --json prints [{id, title, tags, created, modified}].
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Flag(name: .long, help: "Print JSON.") var json = false
        var jsonOutput: Bool { json }

        func run(with dependencies: CLIDependencies) async throws {
            let vault = try await NotesCommand.unlock(global, passcode, dependencies, json: json, titlesOnly: true)
            defer { vault.close() }
            let notes = try vault.list(tag: SyncEngine.conflictTag)
            if json { return try dependencies.console.printJSON(notes) }
            if notes.isEmpty {
                dependencies.console.err.write("No conflicts.\n")
                return
            }
            for note in notes {
                dependencies.console.print("\(NotesCommand.shortID(note.id))  \(TerminalSafeText.line(note.title))")
            }
        }
    }

    // MARK: - sync auto

    struct Auto: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "auto", abstract: "Sync after every command that changes notes (on), or only when asked (off).",
            discussion: """
                With on, `notes add`, `edit`, `rm`, `import`, `generate`, `restore`, the trash and history actions each \
                end with a sync, using the key the change left cached (no second touch). It says in one line on \
                stderr what it did, or why it did not; the change is saved either way.
                """)

        enum Setting: String, ExpressibleByArgument, CaseIterable { case on, off }

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(help: ArgumentHelp("on or off.", valueName: "on|off")) var setting: Setting

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies)
            let vault = try await session.context.openTitles(reason: "change how this machine syncs")
            defer { vault.close() }
            // The sync after a change reuses the key the change left cached: where none stays cached
            // (system mode keeps it in the service), it could never run.
            if setting == .on {
                guard let cached = try session.context.openIfCached() else {
                    throw CLIError(
                        .usage,
                        "No key stays cached here for a sync after each change to use (system mode keeps it in fingerlockd): run `fingerlock sync` when you want."
                    )
                }
                cached.close()
            }
            try SyncCommand.engine(vault, dependencies).setAutomatic(setting == .on)
            dependencies.console.print(
                setting == .on ? "Every change is now followed by a sync." : "Changes now sync when you run `fingerlock sync`.")
        }
    }

    // MARK: - sync compact

    struct Compact: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "compact", abstract: "Replace the remote's history of records by one sealed snapshot.",
            discussion: """
                Syncs first, then pushes a new history holding one snapshot of every note (deleted ones included), \
                so a new machine fetches one file. It rewrites the remote's branch (a forced push, refused if \
                another machine pushed meanwhile). Machines that were offline take the snapshot on their next sync \
                and lose nothing. --json prints {records, notes, tombstones, recordBytes, snapshotBytes}.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Flag(name: .long, help: "Print JSON.") var json = false
        var jsonOutput: Bool { json }

        func run(with dependencies: CLIDependencies) async throws {
            let vault = try await NotesCommand.unlock(global, passcode, dependencies, json: json)
            defer { vault.close() }
            let report = try SyncCommand.engine(vault, dependencies).compact()
            if json { return try dependencies.console.printJSON(report) }
            dependencies.console.print(
                "Compacted: \(SyncCommand.count(report.records, "record")) (\(report.recordBytes) bytes) became one snapshot of "
                    + "\(SyncCommand.count(report.notes, "note")) (\(report.snapshotBytes) bytes, \(report.tombstones) deleted).")
        }
    }

    // MARK: - sync remove-device

    struct RemoveDevice: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-device", abstract: "Remove a lost or retired machine from sync.",
            discussion: """
                Every machine stops applying that device's records after this point, and the device itself stops \
                syncing when it next tries. What it already has stays readable to whoever holds it (it has the vault \
                key): to shut it out of future changes too, leave sync everywhere, `fingerlock rekey`, and start a new \
                remote with `sync init` (see docs/sync.md). Ids are in `fingerlock sync status`.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(help: ArgumentHelp("The device's id, or a unique start of it.", valueName: "device")) var device: String

        func validate() throws {
            guard !device.isEmpty, device.count <= 36, device.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
                throw ValidationError("\"\(device)\" is not a device id: `fingerlock sync status` lists them.")
            }
        }

        func run(with dependencies: CLIDependencies) async throws {
            let vault = try await NotesCommand.unlock(global, passcode, dependencies)
            defer { vault.close() }
            let (removed, _) = try SyncCommand.engine(vault, dependencies).removeDevice(device)
            dependencies.console.print(
                "Removed device \(removed.uuidString.lowercased().prefix(8)) from sync: its later records are applied nowhere.")
        }
    }

    // MARK: - sync leave

    struct Leave: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "leave", abstract: "Stop syncing on this machine (the notes stay; the remote is not touched).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions

        func run(with dependencies: CLIDependencies) async throws {
            let vault = try await NotesCommand.unlock(global, passcode, dependencies)
            defer { vault.close() }
            guard let remote = try SyncEngine.remoteURL(of: vault) else {
                throw CLIError(.notSetUp, "Sync is not set up here.")
            }
            try vault.forgetSync()
            try? FileManager.default.removeItem(atPath: SyncCommand.mirror(vault.directory))
            dependencies.console.print("This machine no longer syncs with \(TerminalSafeText.line(remote)); its notes stay.")
        }
    }
}
