import Foundation
import SafeFiles
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// `export --format markdown-dir`: a new directory with one `.md` file per note, its metadata in a
/// front-matter block (`NoteFrontMatter`) and the body after it as stored. The directory is filled
/// under a temporary name beside it (0700, files 0600) and renamed into place at the end, so a failed
/// export leaves no half-filled directory under the name asked for.
enum MarkdownDirectoryExport {
    static func write(_ notes: [Note], to directory: String) throws {
        if let problem = NewPrivateFile.problem(at: directory) { throw problem }
        let temporary = directory + ".tmp-\(UInt64.random(in: 0...UInt64.max))"
        guard mkdir(temporary, 0o700) == 0 else {
            throw CLIError(.dataError, "Cannot create \(temporary): \(String(cString: strerror(errno))). Nothing was exported.")
        }
        var published = false
        defer { if !published { try? FileManager.default.removeItem(atPath: temporary) } }
        var used = Set<String>()
        for note in notes {
            let name = fileName(for: note, avoiding: used)
            used.insert(name.lowercased())
            do throws(SafeFilesError) {
                try NewPrivateFile.write(Array(NoteFrontMatter.file(for: note).utf8), to: temporary + "/" + name)
            } catch {
                throw CLIError(.dataError, error.message + " Nothing was exported.")
            }
            // The file's own date is the note's, for file managers and for tools that ignore front matter.
            var times = [timespec(note.modified), timespec(note.modified)]
            _ = utimensat(AT_FDCWD, temporary + "/" + name, &times, 0)
        }
        // renameat2's RENAME_NOREPLACE would close the gap between the check above and here; rename
        // onto a directory only replaces an empty one, and never a file.
        var existing = stat()
        if lstat(directory, &existing) == 0 {
            throw CLIError(.usage, "\(directory) appeared while the export was written; nothing was exported.")
        }
        guard rename(temporary, directory) == 0 else {
            throw CLIError(.dataError, "Cannot create \(directory): \(String(cString: strerror(errno))). Nothing was exported.")
        }
        published = true
        try? AtomicFile.syncDirectory(AtomicFile.parentDirectory(of: directory))
    }

    /// The title as a file name (no `/`, no control characters, not hidden, at most 80 characters),
    /// with a part of the id when another note already took the name; `untitled` for no title.
    static func fileName(for note: Note, avoiding used: Set<String>) -> String {
        var stem = String(note.title.map { $0 == "/" || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } ? "-" : $0 })
            .trimmingCharacters(in: .whitespaces)
        while stem.hasPrefix(".") { stem.removeFirst() }
        stem = String(stem.prefix(80))
        // A name is at most 255 bytes: room for the id's part and the extension.
        while stem.utf8.count > 200 { stem.removeLast() }
        if stem.isEmpty { stem = "untitled" }
        let plain = stem + ".md"
        if !used.contains(plain.lowercased()) { return plain }
        return "\(stem)-\(note.id.uuidString.lowercased().prefix(8)).md"
    }
}

extension timespec {
    init(_ date: Date) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        self.init(tv_sec: Int(seconds), tv_nsec: Int((date.timeIntervalSince1970 - seconds) * 1e9))
    }
}
