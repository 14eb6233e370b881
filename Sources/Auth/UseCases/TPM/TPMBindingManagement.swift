import AuthCore
import Foundation
public import TrustedPlatform
import Vault

/// `tpm enable|disable|status` and the TPM part of `status` and `doctor`: binding an existing
/// vault's passcode to the TPM and back (the passcode needed each time; the slot is replaced in one
/// transaction, so a crash leaves the old or the new slot, and the same passcode opens either), and
/// what can be said without it. The recovery key never depends on the TPM.
public struct TPMBindingManagement: Sendable {
    let environment: AuthEnvironment

    public init(_ environment: AuthEnvironment) { self.environment = environment }

    /// What `status` says: the binding the vault's slot claims (read without a key) and, when it
    /// is bound in user mode, the TPM's lockout state.
    public struct Report: Sendable, Equatable {
        /// Nil: the passcode is not bound to a TPM.
        public var binding: TPMBinding?
        /// Where this process reaches a TPM (a TCTI).
        public var location: String
        /// The TPM's dictionary-attack state, when it was asked and answered.
        public var lockout: TPMLockoutState?
        /// Why the TPM could not be asked, when it was asked and did not answer.
        public var problem: String?
        /// Whether the TPM work is fingerlockd's (system mode): this process does not ask it.
        public var heldByService: Bool
    }

    /// The binding the vault's passcode slot claims; the TPM asked only when `askTPM` (doctor) or
    /// the slot is bound in user mode (status).
    public func report(askTPM: Bool = false) -> Report {
        let binding = environment.passcodes.claimedPasscodeSlot().flatMap(TPMBoundSlot.binding(of:))
        let heldByService = environment.vaultMode == .system
        var report = Report(
            binding: binding, location: environment.dependencies.tpm.location, lockout: nil, problem: nil,
            heldByService: heldByService)
        if !heldByService && (askTPM || binding != nil) {
            do {
                report.lockout = try environment.dependencies.tpm.lockoutState()
            } catch {
                report.problem = error.message
            }
        }
        return report
    }

    /// Throws, with the fix, when this process cannot reach the TPM (user mode binds here).
    func requireTPM() throws {
        do {
            _ = try environment.dependencies.tpm.lockoutState()
        } catch {
            throw AuthError(.serviceUnavailable, "The passcode cannot be bound to a TPM: \(error.message)")
        }
    }

    /// `tpm enable`: the passcode, then a slot bound to the TPM (with `pcr7`, also to PCR 7) in
    /// place of the current one. Returns false when the slot was already bound so (nothing written).
    public func enable(pcr7: Bool) async throws -> Bool {
        try await rebind(to: TPMBinding(pcr7: pcr7), reason: "bind the passcode to the TPM")
    }

    /// `tpm disable`: the passcode, then an unbound slot. False when it was not bound.
    public func disable() async throws -> Bool {
        try await rebind(to: nil, reason: "unbind the passcode from the TPM")
    }

    private func rebind(to binding: TPMBinding?, reason: String) async throws -> Bool {
        guard environment.passcodes.hasPasscode else { throw AuthError.passcodeNotSet }
        let unlock = PasscodeUnlock(environment)
        try unlock.requirePasscodeSource()
        // User mode binds in this process: nobody types a passcode for a TPM that is not there.
        if binding != nil && environment.vaultMode == .user { try requireTPM() }
        let (vault, passcode) = try await unlock.promptForPasscode(reason: reason, typedAhead: "")
        defer { vault.close() }
        let current = try AuthError.mapped { TPMBoundSlot.binding(of: try vault.passcodeSlotSealed) }
        guard current != binding else { return false }
        let custody = environment.custody(of: vault)
        try AuthError.mapped {
            try environment.passcodes.replacePasscode(of: vault, with: passcode, sealer: custody.passcodeSealer(binding: binding))
        }
        return true
    }
}
