import Foundation
import Vault

/// Reads a directory of Markdown and text files (`.md`, `.markdown`, `.txt`), one note each, in
/// name order; other files and subdirectories are left out, and counted. The title is the first
/// line when it is a heading (`# Title`, its text), else the file name without its extension; the
/// body is the rest. Both dates are the file's modification time.
enum MarkdownDirectoryImport {
    static let extensions: Set<String> = ["md", "markdown", "txt"]

    static func notes(in directory: String) throws -> (notes: [Note], ignored: Int) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw CLIError(.notFound, "\(directory) does not exist.")
        }
        guard isDirectory.boolValue else { throw CLIError(.usage, "\(directory) is not a directory: markdown-dir reads a directory.") }
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw CLIError(.dataError, "Cannot read the directory \(directory); nothing was imported.")
        }
        var notes: [Note] = []
        var ignored = 0
        for name in names {
            let path = directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                extensions.contains((name as NSString).pathExtension.lowercased())
            else {
                ignored += 1
                continue
            }
            guard let data = manager.contents(atPath: path) else {
                throw CLIError(.dataError, "Cannot read \(path); nothing was imported.")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw CLIError(.dataError, "\(path) is not UTF-8 text; nothing was imported.")
            }
            let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
            let (title, body) = split(text, fileName: (name as NSString).deletingPathExtension)
            notes.append(Note(title: title, body: body, created: modified, modified: modified))
        }
        return (notes, ignored)
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

#if canImport(Glibc)
import Glibc
#endif
