import Auth
import Foundation
import Vault

/// One `fingerlock notes list`, as plain values: what `NotesCommand.List` parses, and what its fast
/// parser reads.
///
/// Listing is, with `verify`, what scripts and status bars run over and over. ArgumentParser's parse
/// of it reflects every option group and looks up their types (protocol-conformance scans of the
/// whole binary): about 4 ms of CPU, more than listing 1,000 notes. So, as for `verify`,
/// `init(fastParsing:)` reads the usual command lines itself and declines (returns nil) everything
/// else, which ArgumentParser then parses as before, with its help and its error messages. It
/// accepts only what ArgumentParser would accept as the same request; the tests hold the two to that.
struct ListRequest: Equatable {
    var global: GlobalSettings
    /// Where scripted passcodes come from (`--passcode-stdin` is 0), or nil for the terminal.
    var passcodeDescriptor: Int32?
    var query: NoteQuery
    var json: Bool
    /// Only the notes under this folder (`ls bank`); nil: all.
    var folder: NoteFolder?
    /// Drawn as a tree of folders (`ls --tree`).
    var tree: Bool

    init(global: GlobalSettings, passcodeDescriptor: Int32?, query: NoteQuery, json: Bool, folder: NoteFolder? = nil, tree: Bool = false) {
        self.global = global
        self.passcodeDescriptor = passcodeDescriptor
        self.query = query
        self.json = json
        self.folder = folder
        self.tree = tree
    }

    /// Reads `notes list` (or `ls`) with `--reader`, `--data-dir`, `--socket`, `--passcode-stdin`,
    /// `--passcode-fd`, `--json`, `--sort`, `--max-count`/`-n` (each at most once) and `--tag`
    /// (repeatable), as `--name value` or `--name=value` (`-n value` only), as the arguments look after
    /// the global options are hoisted. Nil for everything else: help, `--since`/`--until`, `--`,
    /// positionals, repeats, values that look like options, values ArgumentParser or the command's
    /// validation would refuse.
    init?(fastParsing arguments: [String]) {
        // `notes list`, `notes ls`, and the same at the top level.
        let verbs: Set<String> = ["list", "ls"]
        let start: Int
        if arguments.count >= 2, arguments[0] == "notes", verbs.contains(arguments[1]) {
            start = 2
        } else if arguments.count >= 1, verbs.contains(arguments[0]) {
            start = 1
        } else {
            return nil
        }
        var options: [String: String] = [:]
        var flags: Set<String> = []
        var tags: [String] = []
        var rest = arguments.dropFirst(start)
        while let argument = rest.popFirst() {
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = argument == "-n" ? "--max-count" : String(parts[0])
            let inline = argument.hasPrefix("--") && parts.count == 2 ? String(parts[1]) : nil
            guard argument.hasPrefix("--") || argument == "-n" else { return nil }
            switch name {
            case "--passcode-stdin", "--json":
                guard inline == nil, flags.insert(name).inserted else { return nil }
            case "--reader", "--data-dir", "--socket", "--passcode-fd", "--sort", "--max-count", "--tag":
                guard let value = inline ?? rest.popFirst(), !value.isEmpty, !value.hasPrefix("-") else { return nil }
                if name == "--tag" {
                    tags.append(value)
                } else {
                    guard options[name] == nil else { return nil }
                    options[name] = value
                }
            default:
                return nil
            }
        }
        // Bad values are ArgumentParser's and the command's to report, as their `validate()`s do.
        guard
            let descriptor = PasscodeOptions.fastDescriptor(
                stdin: flags.contains("--passcode-stdin"), fdText: options["--passcode-fd"])
        else { return nil }
        var query = NoteQuery(tags: tags)
        if let text = options["--sort"] {
            guard let sort = NoteOrder(rawValue: text) else { return nil }
            query.sort = sort
        }
        if let text = options["--max-count"] {
            guard let count = Int(text), count >= 1 else { return nil }
            query.maxCount = count
        }
        guard (try? query.filter()) != nil else { return nil }
        // A --reader every command refuses is ArgumentParser's to report, through GlobalOptions.validate.
        if let reader = options["--reader"], (try? ReaderChoice.validate(reader)) == nil { return nil }
        self.init(
            global: GlobalSettings(reader: options["--reader"], dataDir: options["--data-dir"], socket: options["--socket"]),
            passcodeDescriptor: descriptor, query: query, json: flags.contains("--json"))
    }

    func run(with dependencies: CLIDependencies) async throws {
        let filter = try query.filter()
        let session = try await AuthSession(
            global: global, passcodeDescriptor: passcodeDescriptor, dependencies: dependencies, json: json)
        let vault = try await session.context.openTitles()
        defer { vault.close() }
        // A folder is a start of titles, filtered here: the vault's limit would count other notes.
        var listed = try vault.list(filter, limit: folder == nil ? query.vaultLimit : nil)
        if let folder { listed.removeAll { !folder.contains($0.title) } }
        let notes = query.arrange(listed)
        let console = dependencies.console
        if notes.isEmpty && !json {
            let place = folder.map { " in \(TerminalSafeText.line($0.path))/" } ?? ""
            console.print(
                query.filterDescription.map { "No note\(place) is \($0)." }
                    ?? (folder == nil ? "No notes yet: `fingerlock notes add` adds one." : "No note is\(place)."))
            return
        }
        if tree {
            let root = folder.map { TerminalSafeText.line($0.path) + "/" } ?? "Notes"
            let lines = (folder ?? NoteFolder("")).tree(of: notes.map(\.title), root: root)
            Pager.write(lines.joined(separator: "\n") + "\n", environment: dependencies.environment, console: console)
            return
        }
        try NotesCommand.printSummaries(consume notes, json: json, dependencies: dependencies)
    }
}
