import AuthCore
import Fingerprint
import Vault

/// User mode with fprintd's fingers: the vault keeps, sealed, the set it accepted; fprintd keeps
/// the prints and scans.
extension LocalCustody {
    func acceptFprintdFingers() async throws -> AcceptedFingers {
        // fprintd first: nobody types a passcode to accept fingers fprintd does not have.
        let source = try await environment.fprintdSource(accepted: nil)
        let current = try await source.currentSet()
        guard !current.fingers.isEmpty else {
            throw AuthError(
                .biometryNotEnrolled,
                "fprintd has no finger enrolled for you on \(current.device): enroll one in your desktop's settings"
                    + " (or with `fprintd-enroll`), then run this again.")
        }
        let vault = try await PasscodeUnlock(environment).unlockWithPasscode(reason: "accept fprintd's fingers")
        defer { vault.close() }
        let kind = try AuthError.mapped { try vault.kind }
        if !ReaderKind(kind).accepts(source.reader.identity) {
            throw AuthError.wrongReaderKind(source.reader.identity.description, vaultKind: kind)
        }
        try FprintdAcceptance.write(current, to: vault)
        return current
    }

    func stopAcceptingFprintdFingers() async throws -> AcceptedFingers? {
        let vault = try await PasscodeUnlock(environment).unlockWithPasscode(reason: "stop using fprintd's fingers")
        defer { vault.close() }
        let accepted = try FprintdAcceptance.read(vault)
        if accepted != nil { try FprintdAcceptance.remove(from: vault) }
        return accepted
    }
}
