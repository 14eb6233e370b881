import ArgumentParser
import Auth
import Vault

struct LockCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "Forget the cached key: the passcode is needed before a finger unlocks again.")

    @OptionGroup var global: GlobalOptions

    func run(with dependencies: CLIDependencies) async throws {
        let session = try await AuthSession(global: global, passcode: nil, dependencies: dependencies, needsReader: false)
        let removed = try session.context.lock()
        dependencies.console.print(removed ? "Locked: the passcode is needed for the next unlock." : "Already locked.")
    }
}

struct UnlockCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock", abstract: "Unlock with the passcode now and cache the key, so a finger unlocks from now on.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions

    func run(with dependencies: CLIDependencies) async throws {
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
        let vault = try await session.context.unlockWithPasscode(reason: "unlock")
        defer { vault.close() }
        let settings = try SecuritySettings(vault: vault)
        if let reason = dependencies.keyCache.unavailableReason() {
            dependencies.console.print("Unlocked, but \(reason)")
        } else {
            dependencies.console.print("Unlocked: a finger opens the vault for the next \(settings.value(.cacheExpiry)).")
        }
    }
}
