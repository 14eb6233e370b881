import ArgumentParser
import Auth
import AuthCore
import Fingerprint

struct ForgetCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Delete enrolled prints, also from a reader's own storage (needs the passcode).",
        discussion: """
            With --reader, only prints of that reader; by default, of every reader. With --reader fprintd and \
            --all, the vault stops taking fprintd's fingers (fprintd keeps them for your desktop).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp("The finger to forget.", valueName: "finger"), completion: .list(FingerArgument.names()))
    var finger: String?
    @Flag(name: .long, help: "Forget every enrolled finger.") var all = false

    func validate() throws {
        switch (finger, all) {
        case (nil, false): throw ValidationError("Name a finger to forget, or pass --all.")
        case (.some, true): throw ValidationError("Pass either a finger or --all, not both.")
        case (.some(let name), false): try FingerArgument.validate(name)
        default: break
        }
    }

    func run(with dependencies: CLIDependencies) async throws {
        let console = dependencies.console
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
        let resolver = session.resolver
        if resolver.choice == .fprintd {
            try await stopAcceptingFprintd(session, console: console)
            return
        }
        let forgotten = try await Enrollment(session.environment).forget(finger.flatMap(Finger.init(name:))) { resolver.covers($0) }
        guard !forgotten.isEmpty else {
            console.print("No finger is enrolled; nothing to forget.")
            return
        }
        for print in forgotten {
            if print.onReader == .leftOnDisconnectedReader {
                console.print(
                    "  (\(print.reader) is not connected: a copy on its own storage stays there,"
                        + " but it no longer unlocks anything.)")
            }
            console.print("Forgot \(print.finger) on \(print.reader).")
        }
    }

    /// fprintd's fingers unlock a vault together (one touch, fprintd's `any`), so the vault can only
    /// stop taking them all; a single finger is removed in fprintd itself.
    private func stopAcceptingFprintd(_ session: AuthSession, console: Console) async throws {
        guard all else {
            throw CLIError(
                .usage,
                "fprintd's fingers unlock this vault together: remove \(finger ?? "the finger") in your desktop's settings"
                    + " (or with `fprintd-delete`) and the passcode accepts the new set at the next unlock; `fingerlock forget"
                    + " --reader fprintd --all` stops using fprintd's fingers.")
        }
        guard let accepted = try await Enrollment(session.environment).stopAcceptingFprintdFingers() else {
            console.print("This vault does not take fprintd's fingers; nothing to forget.")
            return
        }
        let fingers = accepted.fingers.map(\.rawValue).joined(separator: ", ")
        console.print("This vault no longer takes fprintd's fingers (\(fingers) on \(accepted.device)); fprintd keeps them for your desktop.")
    }
}
