import ArgumentParser
import Auth
import Fingerprint

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

    func validate() throws { try FingerArgument.validate(finger) }

    func run(with dependencies: CLIDependencies) async throws {
        let finger = Finger(name: self.finger)!
        let console = dependencies.console
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies)
        let print = try await withInterruptCancellation {
            try await session.context.enroll(finger, username: dependencies.username) { update in
                switch update {
                case .starting(let info):
                    let verb = info.scanType == .swipe ? "Swipe your finger across" : "Touch"
                    console.print("Enrolling \(finger) on \(info.name) (\(info.identity)).")
                    console.print("\(verb) the sensor \(info.enrollStages) times; Ctrl-C cancels.")
                case .progress(.stage(let completed, let total)):
                    console.print("  stage \(completed)/\(total) \(ProgressBar.render(completed, of: total))")
                case .progress(.retry(let reason)):
                    console.print("  \(reason.hint)")
                case .progress(.enrolled):
                    break
                }
            }
        }
        console.print(console.green("Enrolled \(print.finger) on \(print.reader)."))
    }
}

/// A short text progress bar for enrollment stages.
enum ProgressBar {
    static func render(_ completed: Int, of total: Int) -> String {
        let total = max(total, 1)
        let filled = min(max(completed, 0), total)
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: total - filled) + "]"
    }
}
