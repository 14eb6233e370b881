import ArgumentParser

/// Where passcodes come from when not from the terminal. Never argv, never the environment.
struct PasscodeOptions: ParsableArguments {
    @Flag(
        name: .customLong("passcode-stdin"),
        help: "Read passcodes from stdin, one per line (skips the reader).")
    var passcodeStdin = false

    @Option(
        name: .customLong("passcode-fd"),
        help: ArgumentHelp("Read passcodes from this open file descriptor, one per line (skips the reader).", valueName: "n"))
    var passcodeFD: Int32?

    func validate() throws {
        if passcodeStdin && passcodeFD != nil {
            throw ValidationError("Use either --passcode-stdin or --passcode-fd, not both.")
        }
        if let passcodeFD, passcodeFD < 0 {
            throw ValidationError("--passcode-fd takes a file descriptor number (0 or more).")
        }
    }

    var descriptor: Int32? { passcodeStdin ? 0 : passcodeFD }
}
