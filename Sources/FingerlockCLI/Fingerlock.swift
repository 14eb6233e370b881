import ArgumentParser

/// `fingerlock`: private notes unlocked by a fingerprint, with a passcode fallback.
struct Fingerlock: ParsableCommand {
    // Never read here (they are moved after the command, see `hoistingGlobalOptions`): declared so
    // the help and the shell completions know that they may come first and take a value.
    @OptionGroup var global: GlobalOptions

    static let configuration = CommandConfiguration(
        commandName: "fingerlock",
        abstract: "Private notes in an encrypted store, unlocked with a USB fingerprint reader.",
        discussion: """
            Exit codes: 0 success, 1 auth_failed, 2 cancelled, 3 locked_out, 4 reader_error, \
            5 not_found, 6 data_error, 7 not_set_up, 8 needs_passcode, 64 usage.
            """,
        version: FingerlockVersion.line,
        subcommands: [
            // The everyday verbs of pass and gopass, the same commands as under `notes`.
            NotesCommand.Show.self, NotesCommand.List.self, FindCommand.self, NotesCommand.Search.self, NotesCommand.Edit.self,
            NotesCommand.Remove.self,
            ReadersCommand.self, EnrollCommand.self, FingersCommand.self, VerifyCommand.self, ForgetCommand.self, StorageCommand.self,
            PasscodeCommand.self, NotesCommand.self, PickCommand.self, GenerateCommand.self, OTPCommand.self, BackupCommand.self, RestoreCommand.self,
            ExportCommand.self, SyncCommand.self,
            RekeyCommand.self, ConfigCommand.self, LockCommand.self, UnlockCommand.self, StatusCommand.self, DoctorCommand.self,
            SystemCommand.self, TPMCommand.self,
        ]
    )
}
