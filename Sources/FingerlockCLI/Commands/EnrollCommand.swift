import ArgumentParser
import Auth
import AuthCore
import Fingerprint
import Synchronization

struct EnrollCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Enroll a finger, with stage-by-stage progress (needs the passcode; Ctrl-C saves nothing).",
        discussion: """
            With --reader fprintd and no finger, the vault takes the fingers fprintd already has for you (the ones \
            your desktop's settings enrolled): a touch then verifies through fprintd.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(
        help: ArgumentHelp("The finger to enroll (default right-index-finger).", valueName: "finger"),
        completion: .list(FingerArgument.names()))
    var finger: String?
    @Flag(name: .long, help: "Replace the finger if it is already enrolled on this reader, without asking (scripts).")
    var replace = false

    func validate() throws {
        if let finger { try FingerArgument.validate(finger) }
    }

    func run(with dependencies: CLIDependencies) async throws {
        let console = dependencies.console
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies)
        if session.resolver.choice == .fprintd {
            try await acceptFprintd(session, console: console)
            return
        }
        let finger = self.finger.flatMap(Finger.init(name:)) ?? .rightIndex
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

    /// `--reader fprintd`: fprintd enrolls in the desktop's settings (with the login password); here the
    /// vault accepts what fprintd has.
    private func acceptFprintd(_ session: AuthSession, console: Console) async throws {
        if let finger {
            throw CLIError(
                .usage,
                "fprintd enrolls fingers in your desktop's settings (or `fprintd-enroll \(finger)`); then"
                    + " `fingerlock enroll --reader fprintd` (no finger) makes this vault take them.")
        }
        let accepted = try await withInterruptCancellation { try await Enrollment(session.environment).acceptFprintdFingers() }
        let fingers = accepted.fingers.map(\.rawValue).joined(separator: ", ")
        console.print(console.green("This vault now takes fprintd's fingers: \(fingers) on \(accepted.device)."))
        console.print("A touch verifies through fprintd; when its fingers change, the passcode accepts the new set.")
    }
}
