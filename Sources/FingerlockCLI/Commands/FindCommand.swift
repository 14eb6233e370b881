import ArgumentParser

/// `find TEXT`, as `pass find`: the notes whose title holds every TEXT; `notes search --title`,
/// where no body is decrypted.
struct FindCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "find", abstract: "Find notes whose title contains every TEXT (notes search --title; like pass find).",
        discussion: "Exits 1 when no title matches. `fingerlock grep TEXT` looks in bodies and tags too.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp("The text to look for in titles; several words are all looked for (AND).", valueName: "text"))
    var terms: [String] = []
    @Flag(name: .customLong("query-stdin"), help: "Read the text to look for from stdin (one line), not from the command line.")
    var queryStdin = false
    @OptionGroup var filters: NoteQueryOptions
    @Flag(name: .long, help: "Print a JSON array of {id, title, tags, created, modified}.") var json = false
    var jsonOutput: Bool { json }

    func validate() throws { try NotesCommand.Search.validate(terms: terms, queryStdin: queryStdin, passcode: passcode) }

    func run(with dependencies: CLIDependencies) async throws {
        try await NotesCommand.Search.run(
            terms: terms, queryStdin: queryStdin, titlesOnly: true, filters: filters, json: json, global: global, passcode: passcode,
            dependencies: dependencies)
    }
}
