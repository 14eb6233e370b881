import ArgumentParser
import Auth
import Vault
import Fingerprint

struct ForgetCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Delete enrolled prints, also from a reader's own storage (needs the passcode).",
        discussion: "With --reader, only prints of that reader; by default, of every reader.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(help: ArgumentHelp("The finger to forget.", valueName: "finger")) var finger: String?
    @Flag(name: .long, help: "Forget every enrolled finger.") var all = false

    func validate() throws {
        switch (finger, all) {
        case (nil, false): throw ValidationError("Name a finger to forget, or pass --all.")
        case (.some, true): throw ValidationError("Pass either a finger or --all, not both.")
        case (.some(let name), false) where Finger(name: name) == nil:
            throw ValidationError("'\(name)' is not a finger; use one of: \(Finger.validNames).")
        default: break
        }
    }

    func run(with dependencies: CLIDependencies) async throws {
        let console = dependencies.console
        let resolver = try ReaderResolver(option: global.reader, dependencies: dependencies)
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
        let vault = try await session.context.unlockWithPasscode(reason: "forget a finger")
        defer { vault.close() }
        let store = VaultPrintStore(vault: vault)
        let wanted = finger.flatMap(Finger.init(name:))
        let targets = try store.allPrints().filter { print in
            (wanted == nil || print.finger == wanted) && resolver.covers(print.reader)
        }
        guard !targets.isEmpty else {
            if let wanted { throw CLIError(.notFound, "\(wanted) is not enrolled.") }
            console.print("No finger is enrolled; nothing to forget.")
            return
        }
        var connected: [ReaderIdentity: any FingerprintReader] = [:]
        if targets.contains(where: { !$0.reader.isSimulated }) {
            for reader in (try? await dependencies.hardwareReaders()) ?? [] { connected[reader.identity] = reader }
        }
        for print in targets {
            if let reader = connected[print.reader], reader.info.features.contains(.storageDelete) {
                do {
                    try await reader.deleteStoredPrint(print)
                } catch let error as FingerprintError where error.code == .printNotFound {
                    // Already gone from the device: nothing to do there.
                }
            } else if !print.reader.isSimulated, connected[print.reader] == nil {
                console.print("  (\(print.reader) is not connected: a copy on its own storage stays there,"
                    + " but it no longer unlocks anything.)")
            }
            try store.delete(print.finger, on: print.reader)
            console.print("Forgot \(print.finger) on \(print.reader).")
        }
    }
}
