import Foundation
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a directory of Markdown and text files (`.md`, `.markdown`, `.txt`), one note each, in
/// name order; other files and subdirectories are left out, and counted. The title is the first
/// line when it is a heading (`# Title`, its text), else the file name without its extension; the
/// body is the rest. Both dates are the file's modification time.
///
/// Only regular files in the directory itself are read. A symbolic link with a note's extension
/// is refused, not followed: `env.txt -> /proc/self/environ` imported fingerlock's own environment,
/// and a link can point anywhere. Each file is opened without following links and then checked
/// through its descriptor, so one swapped for a link or a device after the listing is never read.
/// A file is read with a bound (`ImportLimits`).
///
/// A file that begins with a front-matter block (`NoteFrontMatter`, as `export --format markdown-dir`
/// writes) takes its id, title, tags and dates from it, and its body is the rest exactly.
enum MarkdownDirectoryImport {
    static let extensions: Set<String> = ["md", "markdown", "txt"]

    static func notes(in directory: String) throws -> (notes: [Note], ignored: Int) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw CLIError(.notFound, "\(directory) does not exist.")
        }
        guard isDirectory.boolValue else { throw CLIError(.usage, "\(directory) is not a directory: markdown-dir reads a directory.") }
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else {
            throw CLIError(.dataError, "Cannot read the directory \(directory): \(String(cString: strerror(errno))); nothing was imported.")
        }
        defer { close(folder) }
        guard let names = entryNames(folder) else {
            throw CLIError(.dataError, "Cannot read the directory \(directory); nothing was imported.")
        }
        var notes: [Note] = []
        var ignored = 0
        var total = 0
        for name in names where !name.hasPrefix(".") {
            let path = directory + "/" + name
            var info = stat()
            guard extensions.contains((name as NSString).pathExtension.lowercased()),
                fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0
            else {
                ignored += 1
                continue
            }
            let kind = info.st_mode & S_IFMT
            if kind == S_IFLNK { throw symbolicLink(path) }
            guard kind == S_IFREG else {
                ignored += 1
                continue
            }
            let (data, modified) = try read(name, in: folder, path: path)
            total += data.count
            if total > ImportLimits.inputBytes { throw ImportLimits.inputTooLarge("The files in \(directory) hold") }
            guard let text = String(bytes: data, encoding: .utf8) else {
                throw CLIError(.dataError, "\(path) is not UTF-8 text; nothing was imported.")
            }
            notes.append(try note(from: text, fileName: (name as NSString).deletingPathExtension, modified: modified, path: path))
        }
        var seen = Set<UUID>()
        for note in notes where !seen.insert(note.id).inserted {
            throw CLIError(.dataError, "\(directory) holds the id \(note.id.uuidString.lowercased()) twice; nothing was imported.")
        }
        return (notes, ignored)
    }

    /// The names in the open directory, sorted; nil when it cannot be listed.
    private static func entryNames(_ folder: Int32) -> [String]? {
        let copy = dup(folder)
        guard copy >= 0 else { return nil }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return nil
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// One file's bytes and modification time, read through a descriptor that is a regular file.
    private static func read(_ name: String, in folder: Int32, path: String) throws -> ([UInt8], Date) {
        // O_NONBLOCK: should the name have become a FIFO meanwhile, opening it does not wait.
        let fd = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ELOOP { throw symbolicLink(path) }
            throw CLIError(.dataError, "Cannot read \(path): \(String(cString: strerror(errno))); nothing was imported.")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw CLIError(.dataError, "\(path) stopped being a regular file while the directory was read; nothing was imported.")
        }
        let outcome: BoundedRead.Outcome
        do {
            outcome = try BoundedRead.bytes(from: fd, limit: ImportLimits.noteBytes)
        } catch {
            throw CLIError(.dataError, "Cannot read \(path): \(error.reason); nothing was imported.")
        }
        guard case .complete(let data) = outcome else { throw ImportLimits.noteTooLarge(path) }
        let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
        return (data, modified)
    }

    private static func symbolicLink(_ path: String) -> CLIError {
        CLIError(
            .dataError,
            "\(path) is a symbolic link: markdown-dir reads only regular files in the directory, never through a link (copy the file in instead); nothing was imported."
        )
    }

    /// One file's note: its front matter's fields where it has them, else the title from a heading
    /// or the file name, and the file's modification time.
    static func note(from text: String, fileName: String, modified: Date, path: String) throws -> Note {
        let found: (NoteFrontMatter, body: String)?
        do throws(NoteFrontMatter.Problem) {
            found = try NoteFrontMatter.split(text)
        } catch {
            throw CLIError(.dataError, "\(path): the front matter's \(error.message); nothing was imported.")
        }
        guard let found else {
            let (title, body) = split(text, fileName: fileName)
            return Note(title: title, body: body, created: modified, modified: modified)
        }
        let (matter, rest) = found
        var (title, body) = split(rest, fileName: fileName)
        if let given = matter.title { (title, body) = (given, rest) }
        let created = matter.created ?? matter.modified ?? modified
        return Note(
            id: matter.id ?? UUID(), title: title, body: body, tags: FingerlockJSONImport.storableTags(matter.tags ?? []),
            created: created, modified: matter.modified ?? created)
    }

    /// The title and body of one file: a first-line heading (after blank lines) is the title.
    static func split(_ text: String, fileName: String) -> (title: String, body: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let first = lines.first, first.trimmingCharacters(in: .whitespaces).isEmpty, lines.count > 1 { lines = lines.dropFirst() }
        guard let first = lines.first, let title = heading(first) else { return (fileName, text) }
        var rest = lines.dropFirst()
        while let next = rest.first, next.trimmingCharacters(in: .whitespaces).isEmpty, rest.count > 1 { rest = rest.dropFirst() }
        let body = rest.joined(separator: "\n")
        return (title, body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? "" : body)
    }

    /// The text of an ATX heading (`#` to `######`, a space, the text, optional closing `#`s).
    private static func heading(_ line: Substring) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let hashes = trimmed.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes) else { return nil }
        let rest = trimmed.dropFirst(hashes)
        guard rest.first == " " || rest.first == "\t" else { return nil }
        var text = rest.trimmingCharacters(in: .whitespaces)
        // A closing run of #s only after a space: `# C#` keeps its #.
        if text.allSatisfy({ $0 == "#" }) { return nil }
        if let closing = text.range(of: "[ \t]+#+$", options: .regularExpression) { text.removeSubrange(closing) }
        return text.isEmpty ? nil : text
    }
}
