import ArgumentParser

/// Where a command that makes a new recovery key (`passcode set`, `rekey`) puts it.
struct RecoveryKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("recovery-key-file"),
        help: ArgumentHelp(
            "Write the new recovery key to this new file (created 0600; an existing file is refused) instead of showing it.",
            valueName: "file"))
    var file: String?
}
