import ArgumentParser
import Auth
import Fingerprint

struct VerifyCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "One touch: exit 0 on a match, 1 on no match.",
        discussion: """
            The enrolled fingers are sealed in the vault, so the vault key is needed first: the cached \
            one, else the passcode. With `any` (the default) the reader identifies the touch among all \
            enrolled fingers where it can; otherwise the first enrolled finger is checked, and the output \
            says which. A no-match counts towards the lockout. --json prints {matched, finger, reader} \
            on a match and the error object (on stderr) otherwise, with the same exit status.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp("A finger, or `any`.", valueName: "finger"), completion: .list(FingerArgument.names(orAny: true)))
    var finger: String = "any"
    @Flag(name: .long, help: "Print a JSON object {matched, finger, reader}; errors as JSON objects.") var json = false
    var jsonOutput: Bool { json }

    func validate() throws { try FingerArgument.validate(finger, orAny: true) }

    /// The parsed command line as plain values.
    var request: VerifyRequest {
        VerifyRequest(global: global.settings, passcodeDescriptor: passcode.descriptor, finger: Finger(name: finger), json: json)
    }

    func run(with dependencies: CLIDependencies) async throws {
        try await request.run(with: dependencies)
    }
}
