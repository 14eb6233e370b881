import ArgumentParser
import Auth

struct LockCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "Forget the cached key: the passcode is needed before a finger unlocks again.")

    @OptionGroup var global: GlobalOptions

    func run(with dependencies: CLIDependencies) async throws {
        let session = try await AuthSession(global: global, passcode: nil, dependencies: dependencies, needsReader: false)
        let outcome = try Locking(session.environment).lock()
        let console = dependencies.console
        if outcome.cacheUnavailable != nil {
            console.print("Locked: no key can be cached here (the kernel keyring is not usable).")
        } else if outcome.forgotten == 0 {
            console.print("Already locked: no key was cached.")
        } else {
            console.print("Locked: the passcode is needed for the next unlock.")
        }
    }
}

struct UnlockCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock", abstract: "Unlock with the passcode now and cache the key, so a finger unlocks from now on.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions

    func run(with dependencies: CLIDependencies) async throws {
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
        let outcome = try await Locking(session.environment).unlock()
        if let cachedFor = outcome.cachedFor {
            dependencies.console.print("Unlocked: a finger opens the vault for the next \(SecuritySettings.format(cachedFor)).")
        } else {
            dependencies.console.print("Unlocked, but \(outcome.notCachedBecause ?? "the key could not be cached.")")
        }
    }
}
