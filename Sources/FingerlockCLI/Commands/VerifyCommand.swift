import ArgumentParser
import Fingerprint

struct VerifyCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "One touch: exit 0 on a match, 1 on no match.",
        discussion: """
            With `any` (the default) the reader identifies the touch among all enrolled fingers where \
            it can; otherwise the first enrolled finger is checked, and the output says which.
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A finger, or `any`.", valueName: "finger")) var finger: String = "any"

    func validate() throws {
        guard finger == "any" || Finger(name: finger) != nil else {
            throw ValidationError("'\(finger)' is not a finger; use `any` or one of: \(Finger.validNames).")
        }
    }

    func run(with dependencies: CLIDependencies) async throws {
        let console = dependencies.console
        let store = FilePrintStore(dataDirectory: try global.dataDirectory(dependencies.environment))
        let reader = try await ReaderResolver(option: global.reader, dependencies: dependencies).requiredReader()
        let enrolled = try store.prints(for: reader.identity)
        guard !enrolled.isEmpty else {
            throw CLIError(.notSetUp, "No finger is enrolled on \(reader.identity); run `fingerlock enroll` first.")
        }
        var candidates = enrolled
        if let wanted = Finger(name: finger) {
            candidates = enrolled.filter { $0.finger == wanted }
            guard !candidates.isEmpty else {
                throw CLIError(.notFound, "\(wanted) is not enrolled on \(reader.identity); `fingerlock fingers` lists the enrolled ones.")
            }
        } else if !reader.info.canIdentify && enrolled.count > 1 {
            console.print("This reader cannot identify among fingers; checking \(enrolled[0].finger).")
            candidates = [enrolled[0]]
        }
        let verb = reader.info.scanType == .swipe ? "Swipe your finger across" : "Touch"
        console.print("\(verb) the fingerprint reader…")
        let timeout = Settings.scanTimeout
        let prints = candidates
        let result = try await withInterruptCancellation {
            var hints = 0
            while true {
                let result = try await reader.match(prints, timeout: timeout)
                guard case .retry(let reason) = result, hints < Settings.maxRetryHints else { return result }
                hints += 1
                console.print("  \(reason.hint)")
            }
        }
        switch result {
        case .match(let print):
            console.print(console.green("Match: \(print.finger)."))
        case .noMatch:
            throw CLIError(.authFailed, "No match.")
        case .retry(let reason):
            throw CLIError(.authFailed, "No usable touch: \(reason.hint)")
        }
    }
}
