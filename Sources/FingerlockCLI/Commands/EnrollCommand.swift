import ArgumentParser
import Auth
import Vault
import Fingerprint

struct EnrollCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Enroll a finger, with stage-by-stage progress (needs the passcode; Ctrl-C saves nothing).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp("The finger to enroll (default right-index-finger).", valueName: "finger"))
    var finger: String = Finger.rightIndex.rawValue

    func validate() throws {
        guard Finger(name: finger) != nil else {
            throw ValidationError("'\(finger)' is not a finger; use one of: \(Finger.validNames).")
        }
    }

    func run(with dependencies: CLIDependencies) async throws {
        let finger = Finger(name: self.finger)!
        let console = dependencies.console
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies)
        let reader = try await session.requireReader()
        let vault = try await session.context.unlockWithPasscode(reason: "enroll a finger")
        defer { vault.close() }
        try session.context.checkReaderKind(reader, vault: vault)
        let store = VaultPrintStore(vault: vault)
        let info = reader.info
        let settings = try SecuritySettings(vault: vault)
        // An on-chip reader refuses a second copy of a print: drop the old one first.
        if info.hasStorage, let old = try store.prints(for: info.identity).first(where: { $0.finger == finger }) {
            try? await reader.deleteStoredPrint(old)
        }
        let verb = info.scanType == .swipe ? "Swipe your finger across" : "Touch"
        console.print("Enrolling \(finger) on \(info.name) (\(info.identity)).")
        console.print("\(verb) the sensor \(info.enrollStages) times; Ctrl-C cancels.")
        let username = dependencies.username
        let timeout = settings.scanTimeout
        do {
            let print = try await withInterruptCancellation {
                try await reader.enroll(finger, username: username, timeout: timeout) { event in
                    switch event {
                    case .stage(let completed, let total):
                        console.print("  stage \(completed)/\(total) \(ProgressBar.render(completed, of: total))")
                    case .retry(let reason):
                        console.print("  \(reason.hint)")
                    case .enrolled:
                        break
                    }
                }
            }
            try store.save(print)
            console.print(console.green("Enrolled \(finger) on \(info.identity)."))
        } catch is CancellationError {
            throw CLIError(.cancelled, "Enrollment cancelled; nothing was saved.")
        } catch let error as FingerprintError {
            throw FingerprintError(error.code, error.message + " Nothing was saved.")
        }
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
