import Foundation
import Vault

/// A note's metadata as a YAML front-matter block (`---` lines around `key: value`), as static site
/// generators and Obsidian read it. `export --format markdown-dir` writes one per file and
/// `notes import --format markdown-dir` reads it back. Titles and tags are written as JSON strings
/// (valid YAML), so any text survives; dates as ISO 8601 in UTC, as `export --format json` has them.
struct NoteFrontMatter: Equatable {
    var id: UUID?
    var title: String?
    var tags: [String]?
    var created: Date?
    var modified: Date?

    /// The block for `note`, then its body exactly as stored.
    static func file(for note: Note) -> String {
        var text = "---\n"
        text += "id: \(note.id.uuidString.lowercased())\n"
        text += "title: \(jsonString(note.title))\n"
        text += "tags: [\(note.tags.map(jsonString).joined(separator: ", "))]\n"
        text += "created: \(note.created.formatted(.iso8601))\n"
        text += "modified: \(note.modified.formatted(.iso8601))\n"
        text += "---\n"
        return text + note.body
    }

    /// Splits a file into its front matter and the rest; nil when it does not begin with `---` on a
    /// line of its own or the block never closes (the whole file is then the note's text).
    /// - Throws: `Problem` for a block that is there but unreadable.
    static func split(_ text: String) throws(Problem) -> (NoteFrontMatter, body: String)? {
        guard text.hasPrefix("---\n") || text.hasPrefix("---\r\n") else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
        var block: [Substring] = []
        while let line = lines.first {
            lines = lines.dropFirst()
            if line.trimmingCharacters(in: .whitespaces.union(["\r"])) == "---" {
                return (try parse(block), lines.joined(separator: "\n"))
            }
            block.append(line)
        }
        return nil
    }

    struct Problem: Error {
        let message: String
    }

    /// `key: value` lines; a key without a value takes the `- item` lines under it (a YAML list).
    /// Keys other than these five, and indented lines, are left alone (other tools' `aliases`,
    /// `draft`, nested values, …).
    private static func parse(_ lines: [Substring]) throws(Problem) -> NoteFrontMatter {
        var matter = NoteFrontMatter()
        var listKey: String?
        for raw in lines {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            if let key = listKey, line.first == " " || line.first == "-" {
                let item = line.trimmingCharacters(in: .whitespaces)
                guard item.hasPrefix("-") else { continue }
                let value = try scalar(item.dropFirst().trimmingCharacters(in: .whitespaces), key: key)
                if key == "tags" { matter.tags = (matter.tags ?? []) + [value] }
                continue
            }
            listKey = nil
            // Another tool's nested or continued values: not ours to read.
            guard line.first != " ", line.first != "\t", let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "title": matter.title = try scalar(value, key: key)
            case "tags":
                if value.isEmpty {
                    listKey = key
                    matter.tags = []
                } else {
                    matter.tags = try list(value)
                }
            case "id":
                guard let id = UUID(uuidString: try scalar(value, key: key)) else { throw Problem(message: "id \(quoted(value)) is not a UUID") }
                matter.id = id
            case "created": matter.created = try date(value, key: key)
            case "modified": matter.modified = try date(value, key: key)
            default: continue
            }
        }
        return matter
    }

    /// A JSON (YAML double-quoted) string, a single-quoted one, or plain text.
    private static func scalar(_ value: String, key: String) throws(Problem) -> String {
        if value.hasPrefix("\"") {
            guard let text = try? JSONDecoder().decode(String.self, from: Data(value.utf8)) else {
                throw Problem(message: "\(key) \(quoted(value)) is not a complete quoted string")
            }
            return text
        }
        if value.hasPrefix("'"), value.hasSuffix("'"), value.count >= 2 {
            return String(value.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
        }
        return value
    }

    /// `[a, "b c"]` (a flow list: JSON, or plain items split at commas) or `a, b`.
    private static func list(_ value: String) throws(Problem) -> [String] {
        if value.hasPrefix("["), let items = try? JSONDecoder().decode([String].self, from: Data(value.utf8)) { return items }
        var inner = Substring(value)
        if inner.hasPrefix("[") {
            guard inner.hasSuffix("]") else { throw Problem(message: "tags \(quoted(value)) is not a complete list") }
            inner = inner.dropFirst().dropLast()
        }
        var items: [String] = []
        for part in inner.split(separator: ",") {
            let item = try scalar(part.trimmingCharacters(in: .whitespaces), key: "tags")
            if !item.isEmpty { items.append(item) }
        }
        return items
    }

    private static func date(_ value: String, key: String) throws(Problem) -> Date {
        let text = (try? scalar(value, key: key)) ?? value
        do throws(ImportDates.Problem) {
            return try ImportDates.iso8601(text)
        } catch {
            throw Problem(message: "\(key) \(ImportDates.quoted(text)) \(error.predicate)")
        }
    }

    private static func jsonString(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    private static func quoted(_ text: some StringProtocol) -> String { "'\(TerminalSafeText.line(String(text.prefix(60))))'" }
}
