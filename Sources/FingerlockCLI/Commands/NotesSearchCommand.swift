import ArgumentParser
import Auth
import Foundation
import Vault

extension NotesCommand {
    struct Search: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "search", abstract: "Find notes whose title, body or tags contain every TEXT (case-insensitive).",
            discussion: """
                Exits 1 when no note matches, like grep (with --json after printing []), so a script can \
                write `if fingerlock notes search TEXT >/dev/null; then`. TEXT on the command line is \
                visible to other processes and in shell history; --query-stdin reads it from stdin instead. \
                On a terminal, matches in titles and tags are highlighted (never with NO_COLOR), and a list \
                longer than the screen goes through $PAGER (default `less -FRX`); never when piped.
                """,
            // pass and gopass users type `grep`.
            aliases: ["grep"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(help: ArgumentHelp("The text to look for; several words are all looked for (AND).", valueName: "text"))
        var terms: [String] = []
        @Flag(name: .customLong("query-stdin"), help: "Read the text to look for from stdin (one line), not from the command line.")
        var queryStdin = false
        @Flag(name: .long, help: "Look in titles only (no body is decrypted).") var title = false
        @OptionGroup var filters: NoteQueryOptions
        @Flag(name: .long, help: "Print a JSON array of {id, title, tags, created, modified}.") var json = false
        var jsonOutput: Bool { json }

        func validate() throws { try Self.validate(terms: terms, queryStdin: queryStdin, passcode: passcode) }

        /// `notes search` and `find`: one source of the query, and stdin not shared with the passcode.
        static func validate(terms: [String], queryStdin: Bool, passcode: PasscodeOptions) throws {
            if let problem = SearchQuery.problem(
                positional: !terms.isEmpty, fromStdin: queryStdin,
                passcodeOnStdin: passcode.passcodeStdin || passcode.passcodeFD.map(PasscodeOptions.isStandardInput) == true)
            {
                throw ValidationError(problem)
            }
        }

        func run(with dependencies: CLIDependencies) async throws {
            try await Self.run(
                terms: terms, queryStdin: queryStdin, titlesOnly: title, filters: filters, json: json, global: global, passcode: passcode,
                dependencies: dependencies)
        }

        /// `notes search` and `find` (titles only).
        static func run(
            terms: [String], queryStdin: Bool, titlesOnly title: Bool, filters: NoteQueryOptions, json: Bool, global: GlobalOptions,
            passcode: PasscodeOptions, dependencies: CLIDependencies
        ) async throws {
            // Read before unlocking: a bad query is refused before any passcode is asked.
            // From stdin, one line is one term (a secret may hold spaces).
            let terms = if queryStdin { [try SearchQuery.read(from: dependencies.input)] } else { terms }
            let vault = try await NotesCommand.unlock(global, passcode, dependencies, json: json, titlesOnly: title)
            defer { vault.close() }
            let result = try vault.search(
                terms: terms, titlesOnly: title, filter: try filters.filter(), limit: filters.vaultLimit,
                snippetRadius: json ? nil : Self.snippetRadius)
            let found = filters.arrange(result.notes)
            if found.isEmpty {
                // No hit is exit 1, as grep: the answer, not an error, so it is said on stderr and
                // stdout holds only results (`[]` with --json).
                if json {
                    try dependencies.console.printJSON(found)
                } else {
                    // A query from stdin may be a secret: never echo it.
                    let what = title ? "note title" : "note"
                    let quoted = terms.map { "\"\(TerminalSafeText.line($0))\"" }.joined(separator: " and ")
                    dependencies.console.err.write(
                        queryStdin ? "No \(what) matches the query.\n" : "No \(what) contains \(quoted).\n")
                }
                throw QuietExit(status: .authFailed)
            }
            try NotesCommand.printSummaries(
                consume found, json: json, highlight: terms, snippets: queryStdin ? [:] : result.snippets, dependencies: dependencies)
        }

        /// Characters shown either side of a body's first hit.
        static let snippetRadius = 30
    }
}
