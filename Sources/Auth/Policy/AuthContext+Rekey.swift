import Vault

/// `rekey`: a new store master key and recovery key.
extension AuthContext {
    /// Asks the passcode, shows the new recovery key, then rotates the store master key (every note
    /// and template re-sealed, slots rewrapped) and caches the new key in place of the old. If the
    /// recovery key cannot be shown, nothing changes: the old one stays valid.
    public func rekey() async throws {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        try requirePasscodeSource()
        let (vault, passcode) = try await promptForPasscode(reason: "rotate the vault key", typedAhead: "")
        defer { vault.close() }
        let custody = custody(of: vault)
        let recoveryKey = RecoveryKey.generate()
        try await presentRecoveryKey(recoveryKey, notCommitted: "Nothing was changed; the old recovery key is still valid.")
        do {
            try passcodes.rekey(vault, passcode: passcode, sealer: custody.passcodeSealer, recoveryKey: recoveryKey)
        } catch {
            let why = Self.authError(error)
            var failed = AuthError(
                .dataError, why.message + " The recovery key just shown was NOT applied; the old one is still valid.")
            failed.remedy = why.remedy
            throw failed
        }
        try custody.rekeyed(vault)
    }
}
