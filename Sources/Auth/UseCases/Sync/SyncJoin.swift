public import Foundation
import Synchronization
public import Vault

/// `sync join`: this machine becomes another copy of a synced vault. It takes the vault's store id
/// and key from the remote (opened with the recovery key, or with a pairing code a machine already
/// in showed), and gets a passcode of its own: no passcode slot ever travels, fingers are enrolled
/// per machine.
extension PasscodeManagement {
    /// Recovery key (checked against the remote's recovery slot) → new passcode → confirm.
    public func joinWithRecoveryKey(recoverySlot: Data, storeID: UUID) async throws -> Vault {
        try refuseExistingVault()
        let opened = Mutex<(VaultJoinKey, RecoveryKey)?>(nil)
        let finished = try await runFlow(
            PasscodeFlow(.reset),
            check: { step, input in
                guard step == .enterRecoveryKey else { return false }
                guard let key = RecoveryKey(parsing: input) else { return false }
                guard let joined = try? Vault.joinKey(recoverySlot: recoverySlot, storeID: storeID, recoveryKey: key) else { return false }
                opened.withLock { $0 = (joined, key) }
                return true
            })
        guard let (joined, key) = opened.withLock({ $0 }), let passcode = finished.newPasscode else {
            throw AuthError(.authenticationFailed, "That recovery key does not open the remote's vault; nothing was joined.")
        }
        return try await create(passcode: passcode, recoveryKey: key, joining: joined)
    }

    /// Pairing code (checked by `open`) → new passcode → confirm.
    public func joinWithPairingCode(_ open: @Sendable (String) throws -> VaultJoinKey?) async throws -> Vault {
        try refuseExistingVault()
        guard interaction.canAskPasscode else {
            throw AuthError(.passcodeRequired, "A pairing code and a new passcode are needed. " + AuthError.noTerminal)
        }
        let code = try await interaction.askSecret(prompt: "Pairing code (shown by `fingerlock sync pair`): ", typedAhead: "")
        guard let joined = try open(code) else {
            throw AuthError(.authenticationFailed, "That pairing code does not open a pairing on the remote; nothing was joined.")
        }
        let passcode = try await runFlow(PasscodeFlow(.set)).newPasscode!
        // The recovery key stays the vault's: its slot comes from the remote, the key itself is never needed here.
        return try await create(passcode: passcode, recoveryKey: RecoveryKey.generate(), joining: joined)
    }

    private func refuseExistingVault() throws {
        if passcodes.hasPasscode {
            throw AuthError(
                .invalidInput,
                "This data directory already has a vault: join from a new one (--data-dir DIR), or sync this one with `fingerlock sync init`.")
        }
    }

    private func create(passcode: String, recoveryKey: RecoveryKey, joining: VaultJoinKey) async throws -> Vault {
        try createVault(passcode: passcode, kind: try await chosenVaultKind(), recoveryKey: recoveryKey, binding: nil, joining: joining)
    }
}
