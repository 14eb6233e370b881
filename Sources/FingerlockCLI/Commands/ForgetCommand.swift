import ArgumentParser
import Auth
import Fingerprint

struct ForgetCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Delete enrolled prints, also from a reader's own storage (needs the passcode).",
        discussion: "With --reader, only prints of that reader; by default, of every reader.")

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
}
