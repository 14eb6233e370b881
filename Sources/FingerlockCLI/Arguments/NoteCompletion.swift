import Auth
import Foundation
import Vault

/// TAB after `notes show|edit|rm` (or `show|edit|rm` alone) and `otp`: the titles that start with
/// what was typed, folder by folder (`folderStep`), only while the vault's
/// key is already cached in the kernel keyring (user mode). A TAB never prompts, never asks for a
/// touch, never counts an attempt and writes nothing; without a cached key it offers nothing.
///
/// The shell asks through ArgumentParser's `---completion notes show -- positional@0 INDEX CURSOR
/// WORDS…` call, which is answered here before parsing: the vault is opened asynchronously, as every
/// unlock is. Titles are data from anywhere (an import, a shared export): the scripts the binary
/// writes take each line it prints as one literal word (`CompletionScript`), and what is printed here
/// is already filtered, so no shell ever reads a title as code.
struct NoteCompletion: Equatable {
    /// The commands whose first argument is a note, as ArgumentParser names them in the request.
    static let commands: Set<[String]> = [
        ["notes", "show"], ["notes", "edit"], ["notes", "rm"], ["notes", "history"], ["show"], ["edit"], ["rm"], ["otp"],
    ]

    /// What the word being completed means, its quotes removed (`ShellWord`).
    var typed: String
    /// The word as typed, up to the cursor, and the quote it leaves open.
    var raw: String
    var openQuote: ShellWord.OpenQuote
    /// bash: the text readline replaces with what is offered (the end of `raw` after a word break or
    /// an opened quote), which the script passes in `FINGERLOCK_COMPLETION_TEXT`.
    var readlineText: String?
    /// Whether `--` came before the word: only then is a title that starts with `-` offered, as
    /// anywhere else it would be parsed as an option.
    var afterOptionsEnd: Bool
    /// The shell asking (ArgumentParser's scripts say so in `SAP_SHELL`), for its escaping.
    var shell: String?

    /// The request for a note argument in `arguments`, or nil for any other request.
    init?(_ arguments: [String], environment: [String: String] = [:]) {
        guard arguments.first == "---completion", let dash = arguments.firstIndex(of: "--"),
            Self.commands.contains(Array(arguments[1..<dash])), arguments.count > dash + 1,
            arguments[dash + 1] == "positional@0"
        else { return nil }
        // After the argument's name: the word's index, the cursor's offset in it, then the words.
        let words = arguments.count > dash + 4 ? Array(arguments[(dash + 4)...]) : []
        let index = arguments.count > dash + 2 ? Int(arguments[dash + 2]) ?? words.count - 1 : words.count - 1
        var current = words.indices.contains(index) ? words[index] : ""
        if arguments.count > dash + 3 {
            if let cursor = Int(arguments[dash + 3]) {
                // bash and zsh: the cursor's offset in the word.
                if cursor >= 0, cursor < current.count { current = String(current.prefix(cursor)) }
            } else {
                // fish: the word itself up to the cursor, as typed (its word list is unescaped).
                current = arguments[dash + 3]
            }
        }
        raw = current
        (typed, openQuote) = ShellWord.scan(current)
        readlineText = environment["FINGERLOCK_COMPLETION_TEXT"]
        afterOptionsEnd = words.prefix(max(0, min(index, words.count))).contains("--")
        shell = environment["SAP_SHELL"]
    }

    /// The lines to print for `titles`: those that start with what was typed (ignoring case), sorted,
    /// one per line. Left out: a title no shell can take as one word (a line break, a control
    /// character) and, before `--`, one that starts with `-`. zsh's `_describe` reads `value:description`,
    /// so a colon (and so a backslash) in a title is escaped for it. bash gets each line quoted
    /// (`bashLine`): its script adds them as they are, and readline never sees a title unquoted.
    func lines(for titles: some Sequence<String>) -> [String] {
        let wanted = typed.lowercased()
        let offered = Set(
            titles.filter { title in
                !title.isEmpty && title.lowercased().hasPrefix(wanted) && TerminalSafeText.line(title) == title
                    && title.unicodeScalars.allSatisfy { $0 != "\t" }
                    && (afterOptionsEnd || !title.hasPrefix("-"))
            }.map { Self.folderStep(of: $0, typed: typed.count) }
        ).sorted()
        if shell == "bash" { return offered.compactMap(bashLine) }
        guard shell == "zsh" else { return offered }
        // ArgumentParser's zsh script drops the last line it reads (its own replies end with " ").
        return offered.map { $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:") } + [" "]
    }

    /// A `/` in a title is a folder, as in pass: what is offered reaches only to the first `/` after
    /// the `typed` characters (the folder, which the scripts complete without a space after it),
    /// else the whole title. `bank/` is offered for `ba`, and `bank/main` for `bank/`.
    /// Only a folder of plain characters is a step of its own (letters, digits, `_-.,+@%`): a shell
    /// would split a word at a `;`, `:` or `=` between two TABs, so a title with any other
    /// character before its `/` is offered whole, as before.
    static func folderStep(of title: String, typed: Int) -> String {
        let rest = title.dropFirst(typed)
        guard let slash = rest.firstIndex(of: "/"), title.index(after: slash) != title.endIndex,
            title[..<slash].unicodeScalars.allSatisfy(isPlainInFolder)
        else { return title }
        return String(title[...slash])
    }

    private static func isPlainInFolder(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value > 127 { return !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control }
        return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-.,+@%/".unicodeScalars.contains(scalar)
    }

    /// What readline puts in place of `readlineText` so that the word means `title`. What was typed
    /// there is never kept as typed: it is written again, with the rest of the title, quoted for the
    /// quote open before it, and that quote closed (a `$`, `\\` or `!` typed inside an opened quote
    /// would otherwise join the title's next characters into live code: `"c$` + `(touch x)`). nil
    /// where the word and the text readline replaces do not fit together.
    func bashLine(_ title: String) -> String? {
        guard let readlineText, raw.hasSuffix(readlineText) else { return nil }
        let before = String(raw.dropLast(readlineText.count))
        if before.isEmpty { return ShellWord.bashQuoted(title, after: .none) }
        // What the word means up to readline's text (an opened quote, a word before a break), and the
        // start of the title that stands for it (matched ignoring case).
        let (meaning, open) = ShellWord.scan(before)
        var end = title.startIndex
        while end < title.endIndex && title[..<end].lowercased() != meaning.lowercased() { end = title.index(after: end) }
        guard title[..<end].lowercased() == meaning.lowercased() else { return nil }
        return ShellWord.bashQuoted(String(title[end...]), after: open)
    }

    /// The lines to offer; none on any problem (a completion never prints an error).
    func lines(dependencies: CLIDependencies) async -> [String] {
        do {
            let session = try await AuthSession(
                global: GlobalSettings(reader: nil, dataDir: nil), passcodeDescriptor: nil, dependencies: dependencies, needsReader: false)
            guard let vault = try VaultStatusReport(session.environment).notesIfCached() else { return [] }
            defer { vault.close() }
            return lines(for: try vault.list().map(\.title))
        } catch {
            return []
        }
    }
}
