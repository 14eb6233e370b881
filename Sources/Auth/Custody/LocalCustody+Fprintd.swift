import AuthCore
import Fingerprint
import Vault

/// User mode with fprintd's fingers: the vault keeps, sealed, the set it accepted; fprintd keeps
/// the prints and scans.
extension LocalCustody {
    func acceptFprintdFingers(enrolling: (@Sendable () async throws -> Void)?) async throws -> AcceptedFingers {
        // fprintd first: nobody types a passcode to accept fingers fprintd does not have.
        var source = try await environment.fprintdSource(accepted: nil)
        if enrolling == nil {
            let current = try await source.currentSet()
            guard !current.fingers.isEmpty else { throw AuthError.noFingersAtFprintd(on: current.device) }
        }
        let vault = try await PasscodeUnlock(environment).unlockWithPasscode(
            reason: enrolling == nil ? "accept fprintd's fingers" : "enroll a finger with fprintd")
        defer { vault.close() }
        let kind = try AuthError.mapped { try vault.kind }
        if !ReaderKind(kind).accepts(source.reader.identity) {
            throw AuthError.wrongReaderKind(source.reader.identity.description, vaultKind: kind)
        }
        if let enrolling {
            try await enrolling()
            // fprintd's set as the enrollment left it.
            source = try await environment.fprintdSource(accepted: nil)
        }
        let current = try await source.currentSet()
        guard !current.fingers.isEmpty else { throw AuthError.noFingersAtFprintd(on: current.device) }
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
