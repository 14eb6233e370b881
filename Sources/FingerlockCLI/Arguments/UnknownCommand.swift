import ArgumentParser

/// `fingerlock enrol`: a word where a command was expected that names none. ArgumentParser calls it
/// an unexpected argument; this says which command was meant, like git's "did you mean".
enum UnknownCommand {
    /// The one-line message for the first word in `arguments` that should name a subcommand and
    /// does not, or nil when the command path is fine (the error is elsewhere).
    static func message(for arguments: [String]) -> String? {
        var command: any ParsableCommand.Type = Fingerlock.self
        var path = ["fingerlock"]
        for word in arguments {
            let subcommands = command.configuration.subcommands
            // Options, `--`, and words after a leaf command are not command names.
            guard !word.hasPrefix("-"), !subcommands.isEmpty else { return nil }
            if let next = subcommands.first(where: { names(of: $0).contains(word) }) {
                command = next
                path.append(word)
                continue
            }
            if word == "help" { return nil }
            // pass and jrnl users type notes commands at the top: the everyday ones are there too
            // (`show`, `ls`, …), the others are said to be under `notes`.
            if path.count == 1, NotesCommand.configuration.subcommands.contains(where: { names(of: $0).contains(word) }) {
                return "`\(word)` is not a fingerlock command; did you mean `fingerlock notes \(word)`?"
            }
            let place = path.count == 1 ? "a fingerlock command" : "a `\(path.joined(separator: " "))` command"
            // One word per command: its name or alias nearest to the typo (the name on a tie), so
            // `lst` suggests `list`, not "`list` or `ls`".
            let candidates = subcommands.compactMap { Suggestion.closest(to: word, among: names(of: $0)).first }
            let hint = Suggestion.didYouMean(word, among: candidates).map { "; " + $0 } ?? " (see `\(path.joined(separator: " ")) --help`)"
            return "`\(word)` is not \(place)\(hint)"
        }
        return nil
    }

    private static func names(of command: any ParsableCommand.Type) -> [String] {
        [command.configuration.commandName].compactMap { $0 } + command.configuration.aliases
    }
}
