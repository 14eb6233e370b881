import ArgumentParser
import Auth
import Fingerprint
import Synchronization

struct EnrollCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Enroll a finger, with stage-by-stage progress (needs the passcode; Ctrl-C saves nothing).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(
        help: ArgumentHelp("The finger to enroll (default right-index-finger).", valueName: "finger"),
        completion: .list(FingerArgument.names()))
    var finger: String = Finger.rightIndex.rawValue
    @Flag(name: .long, help: "Replace the finger if it is already enrolled on this reader, without asking (scripts).")
    var replace = false

    func validate() throws { try FingerArgument.validate(finger) }

    func run(with dependencies: CLIDependencies) async throws {
        let finger = Finger(name: self.finger)!
        let console = dependencies.console
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies)
        let text = Mutex(EnrollProgressText(finger: finger))
        let print = try await withInterruptCancellation {
            try await Enrollment(session.environment).enroll(
                finger, username: dependencies.username,
                confirmReplacing: { [replace] old in
                    if replace { return true }
                    let enrolled = "\(old.finger) is already enrolled on \(old.reader) (since \(UTCDay.string(old.enrolled)))"
                    guard let terminal = dependencies.openTerminal() else {
                        throw CLIError(.usage, enrolled + "; --replace replaces it, or name another finger. Nothing was changed.")
                    }
                    return try await Confirmation.ask(enrolled + ". Replace it?", terminal: terminal, unlessFlag: "--replace")
                }
            ) { update in
                for line in text.withLock({ $0.lines(for: update) }) { console.print(line) }
            }
        }
        console.print(console.green("Enrolled \(print.finger) on \(print.reader)."))
    }
}
