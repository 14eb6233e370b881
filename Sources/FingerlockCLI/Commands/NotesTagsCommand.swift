import ArgumentParser
import Foundation
import Vault

extension NotesCommand {
    /// `notes tags`: every tag in use and how many notes carry it, as `jrnl --tags` shows them.
    struct Tags: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "tags", abstract: "List the tags in use, with how many notes carry each (most used first).",
            discussion: "Tags compare ignoring case, as --tag does: `Work` and `work` are one tag, shown as most notes spell it.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Flag(name: .long, help: "Print a JSON array of {tag, count}.") var json = false
        var jsonOutput: Bool { json }

        func run(with dependencies: CLIDependencies) async throws {
            let vault = try await NotesCommand.unlock(global, passcode, dependencies, json: json, titlesOnly: true)
            defer { vault.close() }
            let counts = TagCount.counting(try vault.list())
            let console = dependencies.console
            if json {
                try console.printJSON(counts)
            } else if counts.isEmpty {
                console.print("No tags yet: `fingerlock notes add --tag NAME` or `notes edit ID --add-tag NAME` adds one.")
            } else {
                let width = counts.map { String($0.count).count }.max() ?? 1
                for entry in counts {
                    let count = String(entry.count)
                    console.print(String(repeating: " ", count: width - count.count) + count + "  #" + TerminalSafeText.line(entry.tag))
                }
            }
        }
    }
}

/// One tag and the number of notes that carry it.
struct TagCount: Encodable, Equatable {
    var tag: String
    var count: Int

    /// Tags grouped ignoring case (as `--tag` matches them), each shown in the spelling most notes
    /// use (the first in code-point order on a tie); most used first, then by name.
    static func counting(_ notes: [NoteSummary]) -> [TagCount] {
        var groups: [String: [String: Int]] = [:]
        for note in notes {
            // A note that carries a tag twice (in two spellings) counts once.
            for tag in Set(note.tags.map { $0.lowercased() }) {
                let spelling = note.tags.first { $0.lowercased() == tag } ?? tag
                groups[tag, default: [:]][spelling, default: 0] += 1
            }
        }
        return groups.map { _, spellings in
            let name = spellings.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
            return TagCount(tag: name, count: spellings.values.reduce(0, +))
        }.sorted { ($1.count, $0.tag.lowercased(), $0.tag) < ($0.count, $1.tag.lowercased(), $1.tag) }
    }
}
