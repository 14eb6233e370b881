import Foundation
import Vault

/// Reads a password store through the `pass` command: every `NAME.gpg` under the store (dot
/// directories such as `.git` left out) is decrypted by `pass show -- NAME`, in memory only. The
/// note's title is NAME (`web/github.com`), its tags the folders (`web`), its body what `pass show`
/// printed, its dates the file's modification time. The `--`: an entry named `-c` was taken for
/// pass's option (copy to the clipboard), and its note got the store's whole listing instead.
struct PassStoreImport {
    var store: String
    var pass: String
    var environment: [String: String]
    var runner: any ChildProcessRunner

    /// The store at `path`, else `$PASSWORD_STORE_DIR`, else `~/.password-store`; and `pass` on PATH.
    /// Checked before any touch or passcode is asked for.
    init(path: String?, environment: [String: String], runner: any ChildProcessRunner) throws {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let store = path ?? environment["PASSWORD_STORE_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.password-store"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: store, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError(.notFound, "No password store at \(store).")
        }
        guard let pass = ExecutableSearch.find("pass", environment: environment) else {
            throw CLIError(.dataError, "The pass command is not on PATH: it decrypts the store's entries.")
        }
        self.store = store
        self.pass = pass
        // `pass` must read the same store we listed.
        var environment = environment.merging(["PASSWORD_STORE_DIR": store]) { $1 }
        // gpg asks for a key's passphrase on the terminal GPG_TTY names, else on stdin's, which is
        // /dev/null here: without this, a key with a passphrase fails as "No secret key".
        if environment["GPG_TTY"] == nil, let terminal = ControllingTerminal.path() { environment["GPG_TTY"] = terminal }
        self.environment = environment
        self.runner = runner
    }

    /// Entry names (paths without `.gpg`) with their files' modification times, sorted.
    func entries() throws -> [(name: String, modified: Date)] {
        guard
            let walker = FileManager.default.enumerator(
                at: URL(fileURLWithPath: store), includingPropertiesForKeys: [.isRegularFileKey, .contentModificationDateKey],
                options: [.skipsHiddenFiles])
        else { throw CLIError(.dataError, "Cannot read the password store at \(store).") }
        let root = URL(fileURLWithPath: store).standardizedFileURL.path
        var found: [(String, Date)] = []
        for case let url as URL in walker where url.pathExtension == "gpg" {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .contentModificationDateKey])
            guard values?.isRegularFile == true else { continue }
            var relative = String(url.standardizedFileURL.path.dropFirst(root.count))
            while relative.hasPrefix("/") { relative.removeFirst() }
            found.append((String(relative.dropLast(".gpg".count)), values?.contentModificationDate ?? Date(timeIntervalSince1970: 0)))
        }
        return found.sorted { $0.0 < $1.0 }
    }

    /// Every entry as a note; the first entry `pass show` cannot decrypt stops the import.
    /// Each entry's output and all of them together are bounded (`ImportLimits`).
    func notes() throws -> [Note] {
        var total = 0
        return try entries().map { name, modified in
            var output = try runner.capture(pass, ["show", "--", name], environment: environment, outputLimit: ImportLimits.noteBytes)
            defer { output.stdout.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
            if output.exceededLimit { throw ImportLimits.noteTooLarge("What pass show \(name) printed") }
            total += output.stdout.count
            if total > ImportLimits.inputBytes { throw ImportLimits.inputTooLarge("The entries of \(store) hold") }
            guard output.status == 0 else {
                let reason = output.firstErrorLine.isEmpty ? "exit status \(output.status)" : TerminalSafeText.line(output.firstErrorLine)
                // gpg could not ask for a passphrase: there is no terminal to name in GPG_TTY.
                if environment["GPG_TTY"] == nil, String(decoding: output.stderr, as: UTF8.self).contains("No secret key") {
                    throw CLIError(
                        .dataError,
                        "pass show \(name) failed (\(reason)); if its key has a passphrase, gpg had no terminal to ask for it: run `pass show \(name)` in a terminal first (gpg-agent then keeps the passphrase a while), or import from a terminal; nothing was imported."
                    )
                }
                throw CLIError(.dataError, "pass show \(name) failed (\(reason)); nothing was imported.")
            }
            guard let body = String(bytes: output.stdout, encoding: .utf8) else {
                throw CLIError(.dataError, "pass show \(name) printed something that is not UTF-8 text; nothing was imported.")
            }
            var folders: [String] = []
            for folder in name.split(separator: "/").dropLast().map(String.init) where !folders.contains(folder) { folders.append(folder) }
            return Note(title: name, body: body, tags: folders, created: modified, modified: modified)
        }
    }
}
