import Foundation
import SafeFiles

#if canImport(Glibc)
    import Glibc
#endif

/// Edits text in `$VISUAL`/`$EDITOR` without plaintext ever touching a disk: the file lives in a
/// private (0700) directory on tmpfs — `$XDG_RUNTIME_DIR`, else `/dev/shm` — is 0600, and is
/// overwritten and removed afterwards, also when the editor fails or Ctrl-C is pressed. With no
/// tmpfs available it refuses rather than write a note to disk. The editors it knows are started
/// with their own history, swap and backup files off (see `EditorLaunch`).
struct SecureEditor {
    let environment: [String: String]
    /// Where the notice about an unknown editor goes (stderr).
    let console: Console

    /// The editor command from `$VISUAL`, else `$EDITOR`, else as git finds one: `editor` (Debian's
    /// alternatives), then `vi`, then `nano` on PATH (by its full path, so the shell runs that one).
    var command: String? {
        for variable in ["VISUAL", "EDITOR"] {
            if let value = environment[variable]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
        }
        for fallback in Self.fallbacks {
            if let path = EditorLaunch.resolve(fallback, path: environment["PATH"]) { return EditorLaunch.shellQuoted(path) }
        }
        return nil
    }

    static let fallbacks = ["editor", "vi", "nano"]

    /// A tmpfs directory this user owns, or nil.
    func scratchRoot() -> String? {
        var candidates: [String] = []
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { candidates.append(runtime) }
        candidates.append("/dev/shm")
        for candidate in candidates where Self.isMemoryFileSystem(candidate) && access(candidate, W_OK | X_OK) == 0 {
            return candidate
        }
        return nil
    }

    /// Whether `path` lives on tmpfs or ramfs, by the longest mount point above it in
    /// /proc/self/mounts (statfs is not visible from Swift here).
    static func isMemoryFileSystem(_ path: String, mounts: String = "/proc/self/mounts") -> Bool {
        guard let resolved = realpath(path, nil) else { return false }
        let target = String(cString: resolved)
        free(resolved)
        guard let table = try? AtomicFile.read(mounts) else { return false }
        var best: (length: Int, type: String)?
        for line in String(decoding: table, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            // Mount points escape spaces as \040.
            let point = fields[1].replacingOccurrences(of: "\\040", with: " ")
            let covers = target == point || point == "/" || target.hasPrefix(point + "/")
            if covers && point.count >= (best?.length ?? -1) { best = (point.count, String(fields[2])) }
        }
        return best.map { ["tmpfs", "ramfs"].contains($0.type) } ?? false
    }

    /// Everything editing needs, checked before the caller asks for a touch or the passcode: a
    /// terminal, an editor and a memory file system. Returns the editor command and scratch root.
    func preflight(terminal: Terminal?, noTerminal: String) throws -> (command: String, root: String) {
        guard terminal != nil else { throw CLIError(.usage, noTerminal) }
        guard let command else {
            throw CLIError(
                .usage, "Set $VISUAL or $EDITOR to edit notes (none of editor, vi or nano is on PATH), or pipe the body on stdin.")
        }
        guard let root = scratchRoot() else {
            throw CLIError(
                .dataError,
                "Neither $XDG_RUNTIME_DIR nor /dev/shm is a memory file system, so the note cannot be edited without writing it to disk; pipe the body on stdin instead."
            )
        }
        return (command, root)
    }

    /// Opens `text` in the editor on the controlling terminal and returns what was saved.
    func edit(_ text: String, terminal: Terminal) throws -> String {
        let (command, root) = try preflight(terminal: terminal, noTerminal: "")
        Self.removeAbandoned(in: root)
        var template = Array("\(root)/fingerlock-edit-\(getpid())-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CLIError(.dataError, "Cannot create a private editing directory in \(root): \(String(cString: strerror(errno))).")
        }
        let directory = String(cString: made)
        chmod(directory, 0o700)
        let file = directory + "/note.md"
        defer { Self.shred(directory: directory) }

        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CLIError(.dataError, "Cannot create the editing file: \(String(cString: strerror(errno))).") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw CLIError(.dataError, "Cannot write the editing file.") }

        // The editor gets the terminal; Ctrl-C is its business, so ignore it here meanwhile.
        let restoreInterrupts = latchInterrupts()
        defer { restoreInterrupts() }
        // Closing the terminal (SIGHUP) or a SIGTERM must not leave the note on tmpfs: the editor is
        // stopped, the directory shredded (the `defer` above), and then the process dies of it.
        let restoreTermination = latchTerminationSignals()
        defer { restoreTermination() }
        // posix_spawn, not Process: the editor must stay in our (foreground) process group to own
        // the terminal and receive Ctrl-C, with the terminal as its stdin, stdout and stderr.
        let launch = EditorLaunch(command: command, environment: environment)
        if let notice = launch.notice { console.err.write("fingerlock: \(notice)\n") }
        let status = try Self.spawnAndWait(
            ["/bin/sh", "-c", launch.shellCommand, "editor", file], environment: environment, terminal: terminal.fd)
        try checkTerminationSignal()
        guard status == 0 else {
            throw CLIError(.cancelled, "The editor did not finish normally; nothing was saved.")
        }
        guard let data = FileManager.default.contents(atPath: file), let edited = String(data: data, encoding: .utf8) else {
            throw CLIError(.dataError, "The edited note is not UTF-8 text; nothing was saved.")
        }
        return edited
    }

    /// Runs `arguments` with the terminal as stdio; returns the exit status, or -1 when the
    /// editor was killed by a signal.
    static func spawnAndWait(_ arguments: [String], environment: [String: String], terminal: Int32) throws -> Int32 {
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                arguments, environment: environment,
                redirections: [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO].map { (terminal, $0) })
        } catch {
            throw CLIError(.usage, "Cannot start the editor: \(error.reason).")
        }
        // Polled, not a blocking waitpid: a signal may land on any thread, so waitpid is not
        // reliably interrupted by it.
        var status: Int32 = 0
        var stopped = false
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { break }
            if result < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if pendingTerminationSignal != nil && !stopped {
                stopped = true
                kill(pid, SIGTERM)
            }
            usleep(20_000)
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
    }

    /// Shreds editing directories left by a fingerlock that was killed outright (SIGKILL, a crash):
    /// their names carry the pid, and only those of processes that no longer exist are touched.
    static func removeAbandoned(in root: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where name.hasPrefix("fingerlock-edit-") {
            let parts = name.split(separator: "-")
            guard parts.count == 4, let pid = pid_t(parts[2]) else { continue }
            let path = root + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_uid == geteuid(), (info.st_mode & S_IFMT) == S_IFDIR else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { shred(directory: path) }
        }
    }

    /// Overwrites every file in the directory (editors leave swap and backup files there too),
    /// then removes them and the directory.
    static func shred(directory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names {
            let path = directory + "/" + name
            var info = stat()
            if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 {
                let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
                if fd >= 0 {
                    let zeros = [UInt8](repeating: 0, count: Int(info.st_size))
                    _ = zeros.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                    close(fd)
                }
            }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                shred(directory: path)
            } else {
                unlink(path)
            }
        }
        rmdir(directory)
    }
}

/// The note as the editor shows it: a `Tags: a, b` line, a `# Title` line, a blank line, then the
/// body. The tags line is read back and removed; a file without it leaves the tags as they were.
enum EditableNote {
    static let tagsPrefix = "Tags:"

    static func render(title: String, tags: [String], body: String) -> String {
        "\(tagsPrefix) \(tags.joined(separator: ", "))\n# \(title)\n\n\(body)"
    }

    /// Title, body and tags from edited text: a first line `Tags: …` (any case) gives the tags,
    /// comma-separated (nil when there is no such line); then the first line is the title when it is a
    /// `# ` heading, otherwise the first non-empty line names the note and stays in the body.
    static func parse(_ text: String) -> (title: String, body: String, tags: [String]?) {
        var rest = Substring(text)
        var tags: [String]?
        if rest.prefix(tagsPrefix.count).lowercased() == tagsPrefix.lowercased() {
            let end = rest.firstIndex(of: "\n") ?? rest.endIndex
            tags = tagList(rest[rest.index(rest.startIndex, offsetBy: tagsPrefix.count)..<end])
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
        }
        let (title, body) = parseTitle(String(rest))
        return (title, body, tags)
    }

    /// Comma-separated tags as `--tag` takes them: trimmed, one leading `#` dropped, empty ones and
    /// repeats (ignoring case) left out.
    static func tagList(_ text: Substring) -> [String] {
        var seen = Set<String>()
        return text.split(separator: ",").compactMap { try? TagArgument.normalized(String($0)) }.filter { seen.insert($0.lowercased()).inserted }
    }

    private static func parseTitle(_ text: String) -> (title: String, body: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let first = lines.first, first.hasPrefix("# ") || first == "#" {
            let title = first.dropFirst(first == "#" ? 1 : 2).trimmingCharacters(in: .whitespaces)
            lines.removeFirst()
            while lines.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeFirst() }
            return (title, lines.joined(separator: "\n"))
        }
        return (derivedTitle(text), text)
    }

    /// A body piped to `notes add` without `--title`: a first heading (after blank lines) is the
    /// title and leaves the body, as in the editor, so it is not there twice; otherwise the first
    /// non-empty line names the note and stays in the body.
    static func titleAndBody(piped text: String) -> (title: String, body: String) {
        let start = text.drop { $0 == "\n" || $0 == " " || $0 == "\t" || $0 == "\r" }
        if start.hasPrefix("# ") || start.hasPrefix("#\n") {
            let (title, body) = parseTitle(String(start))
            // A longer heading would be cut short as a title: it then stays in the body, whole.
            if !title.isEmpty && title.count <= 80 { return (title, body) }
        }
        return (derivedTitle(text), text)
    }

    /// The first non-empty line, shortened, for a note added without `--title`.
    static func derivedTitle(_ body: String) -> String {
        let first = body.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty } ?? ""
        let stripped = first.hasPrefix("#") ? first.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces) : first
        return stripped.count > 80 ? String(stripped.prefix(79)) + "…" : stripped
    }
}
