public import Fingerprint
import Foundation
import Synchronization
public import Vault

/// System mode (fingerlockd holds a per-vault secret entangled into the passcode slot and counts the
/// passcode attempts): moving a vault in and out, and what it changes for unlocking.
extension AuthContext {
    /// The vault's mode as recorded (unauthenticated; the slot-table MAC checks it at unlock).
    /// A vault that cannot be read is treated as user mode here; opening it reports the problem.
    public var vaultMode: VaultMode {
        if let known = recordedMode.withLock({ $0 }) { return known }
        guard passcodes.hasPasscode, let mode = try? passcodes.mode() else { return .user }
        recordedMode.withLock { $0 = mode }
        return mode
    }

    var isSystemMode: Bool { vaultMode == .system }

    var systemModeTouch: AuthError {
        AuthError(
            .biometryNotAvailable, "System mode: the key is kept by fingerlockd, never in your keyring.",
            unavailability: .systemMode)
    }

    /// A system-mode vault never uses the user's keyring or in-process matching: that would
    /// silently break what system mode promises. Touches go through fingerlockd instead.
    func refuseSystemModeTouch() throws {
        if isSystemMode { throw systemModeTouch }
    }

    /// `system enable`: the current passcode, then fingerlockd registers the vault and seals the new
    /// passcode slot; the user-mode slot is destroyed in the same transaction. Whatever this vault
    /// left in the user's keyring is removed. Returns the fingers enrolled in user mode: their
    /// templates stay in the vault (for user mode) and are not moved to the service, so they are
    /// enrolled again through it.
    @discardableResult
    public func enableSystemMode() async throws -> [Finger] {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        guard vaultMode == .user else { throw AuthError(.invalidInput, "This vault is already in system mode.") }
        try requirePasscodeSource()
        try refuseDuringPasscodeDelay()
        let (vault, passcode) = try await promptForPasscode(reason: "move this vault into system mode", typedAhead: "")
        defer { vault.close() }
        recordedMode.withLock { $0 = nil }
        try Self.vaultCall { try passcodes.enableSystemMode(of: vault, passcode: passcode) }
        forgetUserKeyringEntries(of: vault)
        let fingers = (try? VaultPrintStore(vault: vault).allPrints().map(\.finger)) ?? []
        return Array(Set(fingers)).sorted()
    }

    /// `system disable`: the passcode through fingerlockd, then a user-mode slot for it, then the
    /// service forgets the vault. Returns a warning when the service could not forget it (the vault
    /// is in user mode all the same).
    public func disableSystemMode() async throws -> String? {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        guard vaultMode == .system else { throw AuthError(.invalidInput, "This vault is not in system mode.") }
        try requirePasscodeSource()
        let (vault, passcode) = try await promptForPasscode(reason: "move this vault back to user mode", typedAhead: "")
        defer { vault.close() }
        recordedMode.withLock { $0 = nil }
        let leftover = try Self.vaultCall { try passcodes.disableSystemMode(of: vault, passcode: passcode) }
        return leftover.map { "The vault is in user mode, but fingerlockd could not forget it: \($0.message)" }
    }
}
