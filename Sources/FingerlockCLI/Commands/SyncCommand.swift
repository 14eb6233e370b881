import ArgumentParser
import Auth
import Foundation
import NoteSync
import SafeFiles
import Synchronization
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// `fingerlock sync`: the same notes on several machines, end-to-end encrypted, through a git
/// repository (issue 42). Only sealed change records travel; see docs/sync.md.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Keep your notes on several machines, end-to-end encrypted, through a git repository.",
        discussion: """
            First machine: `fingerlock sync init REMOTE` (an empty git repository: a path, ssh://…, git@host:repo). \
            Other machines: `fingerlock sync join REMOTE` with the recovery key, or with a code from \
            `fingerlock sync pair`. Then `fingerlock sync` fetches, merges and pushes; it needs the vault key (a \
            touch or the passcode), as reading a note does. Conflicts are kept as notes tagged sync-conflict \
            (`fingerlock sync conflicts`).
            """,
        subcommands: [
            Now.self, Init.self, Join.self, Pair.self, Status.self, Conflicts.self, Auto.self, Compact.self, RemoveDevice.self,
            Leave.self,
        ],
        defaultSubcommand: Now.self)

    /// The engine for an open vault set up for sync, on its remote through the mirror in the data directory.
    static func engine(_ vault: Vault, _ dependencies: CLIDependencies, url: String? = nil) throws -> SyncEngine {
        guard let remoteURL = try url ?? SyncEngine.remoteURL(of: vault) else {
            throw CLIError(
                .notSetUp, "Sync is not set up here: run `fingerlock sync init REMOTE`, or `fingerlock sync join REMOTE` on a new machine.")
        }
        // git and what it starts (ssh) get none of this process's inherited descriptors (a --passcode-fd).
        ChildProcess.closeInheritedDescriptorsOnExec()
        let remote = try dependencies.syncRemote(remoteURL, mirror(vault.directory), dependencies.environment)
        var engine = SyncEngine(vault: vault, remote: remote, now: dependencies.now)
        if dependencies.console.err.isTerminal {
            let err = dependencies.console.err
            engine.progress = { err.write($0 + "…\n") }
        }
        return engine
    }

    static func mirror(_ directory: String) -> String { directory + "/sync.git" }

    /// The device name a machine gets unless told otherwise: its host name.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "this machine" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "this machine" : name
    }

    static func checkName(_ name: String?) throws {
        guard let name else { return }
        guard !name.allSatisfy(\.isWhitespace), name.count <= 64,
            !name.unicodeScalars.contains(where: { [.control, .format].contains($0.properties.generalCategory) })
        else {
            throw ValidationError("A device name has 1 to 64 characters, not all spaces, and no control or format characters.")
        }
    }

    static func checkRemote(_ remote: String) throws {
        guard canonicalRemote(remote) != nil else {
            throw ValidationError(
                "\(TerminalSafeText.line(remote)) is not a git remote sync takes: give a path, ssh://host/repo, git@host:repo or https://….")
        }
    }

    /// The remote as kept: a path made absolute (see `GitRemote.canonical`).
    static func canonicalRemote(_ remote: String) -> String? {
        GitRemote.canonical(remote, currentDirectory: FileManager.default.currentDirectoryPath)
    }

    /// One line saying what a sync did.
    static func summary(_ report: SyncReport, remote: String) -> String {
        var parts: [String] = []
        let arrived = report.added + report.changed
        if arrived > 0 {
            parts.append("\(count(arrived, "note")) from other machines (\(report.added) new, \(report.changed) changed)")
        }
        if report.deleted > 0 { parts.append("\(count(report.deleted, "note")) moved to the trash") }
        if report.sent > 0 { parts.append("sent \(count(report.sent, "change"))") }
        if report.conflicts > 0 { parts.append("\(count(report.conflicts, "conflict")) kept as notes tagged sync-conflict") }
        let what = parts.isEmpty ? "up to date" : parts.joined(separator: ", ")
        return "Synced with \(TerminalSafeText.line(remote)): \(what)."
    }

    /// A word a shell reads back as it is (single quotes where needed), for hints to copy.
    static func shellQuoted(_ text: String) -> String {
        let plain = text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-:@+=,".contains($0)) }
        return plain ? text : "'" + TerminalSafeText.line(text).replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    // MARK: - sync (now)

    struct Now: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "now", abstract: "Fetch, merge and push (what `fingerlock sync` alone does).",
            discussion: """
                A sync that would move more than a quarter of your notes (at least 5) to the trash stops and asks \
                first; --allow-deletions applies it without asking. Notes deleted on another machine go to this \
                machine's trash, never straight away. --json prints {added, changed, deleted, conflicts, sent, received}.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Flag(name: .customLong("allow-deletions"), help: "Apply a sync that deletes many notes without asking.")
        var allowDeletions = false
        @Flag(name: .long, help: "Print JSON.") var json = false
        var jsonOutput: Bool { json }

        func run(with dependencies: CLIDependencies) async throws {
            let vault = try await NotesCommand.unlock(global, passcode, dependencies, json: json)
            defer { vault.close() }
            let engine = try SyncCommand.engine(vault, dependencies)
            let report: SyncReport
            do {
                report = try engine.sync(allowDeletions: allowDeletions)
            } catch let error as SyncError where error.code == .massDeletion && !json {
                let confirmed = try await Confirmation.ask(
                    error.message.replacingOccurrences(of: " If that is what you want, run `fingerlock sync --allow-deletions`.", with: "")
                        + " Apply it?", terminal: dependencies.openTerminal(), unlessFlag: "--allow-deletions")
                guard confirmed else { throw CLIError(.cancelled, "Nothing was applied.") }
                report = try engine.sync(allowDeletions: true)
            }
            try SyncCommand.render(report, remote: try SyncEngine.remoteURL(of: vault) ?? "", json: json, dependencies)
        }
    }

    static func render(_ report: SyncReport, remote: String, json: Bool, _ dependencies: CLIDependencies) throws {
        if json { return try dependencies.console.printJSON(report) }
        if report.continuedAsNewDevice {
            dependencies.console.err.write(
                "This data directory is a copy of another machine's (a clone or a restored backup): it continues as a new device, and sent its notes again.\n"
            )
        }
        dependencies.console.print(summary(report, remote: remote))
    }

    // MARK: - sync init

    struct Init: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "init", abstract: "Start syncing this vault through REMOTE (an empty git repository).",
            discussion: """
                Sends every note, sealed, to REMOTE. Nothing there is readable without the vault key; the commits \
                carry a neutral author. On other machines: `fingerlock sync join REMOTE`.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(help: ArgumentHelp("The git remote: a path, ssh://host/repo, git@host:repo or https://….", valueName: "remote"))
        var remote: String
        @Option(name: .long, help: ArgumentHelp("This machine's name among the devices (default: the host name).", valueName: "name"))
        var name: String?
        @Flag(name: .long, help: "Print JSON.") var json = false
        var jsonOutput: Bool { json }

        func validate() throws {
            try SyncCommand.checkRemote(remote)
            try SyncCommand.checkName(name)
        }

        func run(with dependencies: CLIDependencies) async throws {
            let vault = try await NotesCommand.unlock(global, passcode, dependencies, json: json)
            defer { vault.close() }
            let remote = SyncCommand.canonicalRemote(remote) ?? remote
            let engine = try SyncCommand.engine(vault, dependencies, url: remote)
            var report = try engine.start(remoteURL: remote, deviceName: name ?? SyncCommand.hostName())
            report.initialized = true
            if json { return try dependencies.console.printJSON(report) }
            dependencies.console.print(SyncCommand.summary(report, remote: remote))
            dependencies.console.print("On another machine: fingerlock sync join \(SyncCommand.shellQuoted(remote))")
        }
    }

    // MARK: - sync join

    struct Join: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "join", abstract: "Make this machine another copy of the vault at REMOTE.",
            discussion: """
                Asks the recovery key (or, with --pairing-code, the code `fingerlock sync pair` showed on a machine \
                already in), then a new passcode for this machine. Fingers are enrolled on each machine. Use a data \
                directory without a vault.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(help: ArgumentHelp("The git remote the first machine set up with `sync init`.", valueName: "remote"))
        var remote: String
        @Option(name: .long, help: ArgumentHelp("This machine's name among the devices (default: the host name).", valueName: "name"))
        var name: String?
        @Flag(name: .customLong("pairing-code"), help: "Join with a code from `fingerlock sync pair` instead of the recovery key.")
        var pairingCode = false
        @Flag(name: .long, help: "Print JSON.") var json = false
        var jsonOutput: Bool { json }

        func validate() throws {
            try SyncCommand.checkRemote(remote)
            try SyncCommand.checkName(name)
        }

        func run(with dependencies: CLIDependencies) async throws {
            let remote = SyncCommand.canonicalRemote(remote) ?? remote
            let directory = try global.dataDirectory(dependencies.environment)
            if Vault.exists(in: directory) {
                throw CLIError(
                    .usage,
                    "\(directory) already has a vault: join from a new data directory (--data-dir DIR), or run `fingerlock sync init REMOTE` here.")
            }
            ChildProcess.closeInheritedDescriptorsOnExec()
            let gitRemote = try dependencies.syncRemote(remote, SyncCommand.mirror(directory), dependencies.environment)
            let info = try SyncEngine.joinInformation(from: gitRemote)
            let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies)
            let management = PasscodeManagement(session.environment)
            let vault: Vault
            var pairing: SyncPairing?
            if pairingCode {
                let now = dependencies.now
                let opened = Mutex<SyncPairing?>(nil)
                vault = try await management.joinWithPairingCode { text in
                    guard let parsed = SyncPairing(parsing: text) else {
                        throw CLIError(.usage, "That is not a pairing code: it has 8 letters and digits, then 8 groups of 4.")
                    }
                    let key = try parsed.open(from: gitRemote, now: now())
                    opened.withLock { $0 = parsed }
                    return key
                }
                pairing = opened.withLock { $0 }
            } else {
                vault = try await management.joinWithRecoveryKey(recoverySlot: info.recoverySlot, storeID: info.storeID)
            }
            defer { vault.close() }
            let engine = try SyncCommand.engine(vault, dependencies, url: remote)
            let report: SyncReport
            do {
                report = try engine.start(remoteURL: remote, deviceName: name ?? SyncCommand.hostName(), usedPairing: pairing?.label)
            } catch {
                // The vault exists now: what is left of the join is a sync.
                let failed = CLIError.from(error)
                let next =
                    (try? SyncEngine.remoteURL(of: vault)) != nil
                    ? "`fingerlock sync`" : "`fingerlock sync init \(SyncCommand.shellQuoted(remote))`"
                throw CLIError(failed.status, failed.message + " The vault is set up here; \(next) finishes the join.")
            }
            if json { return try dependencies.console.printJSON(report) }
            dependencies.console.print(
                "Joined: \(SyncCommand.count(report.added, "note")) arrived. Enroll a finger on this machine with `fingerlock enroll`.")
        }
    }

    // MARK: - sync pair

    struct Pair: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "pair", abstract: "Show a one-time code for a new machine to join with (valid 15 minutes).",
            discussion: """
                The vault key goes to the remote sealed under the code (160 random bits: whoever reads the remote \
                cannot guess it). On the new machine: `fingerlock sync join REMOTE --pairing-code`. The code works \
                once; it is removed from the remote when used or expired.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions

        func run(with dependencies: CLIDependencies) async throws {
            let vault = try await NotesCommand.unlock(global, passcode, dependencies)
            defer { vault.close() }
            let engine = try SyncCommand.engine(vault, dependencies)
            let (code, expires) = try engine.pair()
            dependencies.console.print(code)
            dependencies.console.err.write(
                "On the new machine: fingerlock sync join \(TerminalSafeText.line(try SyncEngine.remoteURL(of: vault) ?? "")) --pairing-code "
                    + "(valid until \(UTCDay.time(expires)) UTC).\n")
        }
    }
}
