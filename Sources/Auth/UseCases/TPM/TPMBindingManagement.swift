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
        let asked = environment.custody.tpmAskedHere
        var report = Report(
            binding: binding, location: environment.dependencies.tpm.location, lockout: nil, problem: nil,
            heldByService: asked == nil)
        if let tpm = asked, askTPM || binding != nil {
            do {
                report.lockout = try tpm.lockoutState()
                // Whether this TPM still opens the slot (another TPM, a clear, PCR 7), at no cost in tries.
                if let binding, let claimed = environment.passcodes.claimedPasscodeSlot() {
                    try tpm.check(try TPMBoundSlot(decoding: claimed).sealedObject, bindingPCR7: binding.pcr7)
                }
            } catch {
                report.problem = error.message
            }
        }
        return report
    }

    /// Throws, with the fix, when this process cannot reach the TPM (user mode binds here), or the
    /// TPM locks out at its first failure (fingerlock could never ask it without risking that).
    func requireTPM(_ tpm: any TrustedPlatformModule) throws {
        let state: TPMLockoutState
        do {
            state = try tpm.lockoutState()
        } catch {
            throw AuthError(.serviceUnavailable, "The passcode cannot be bound to a TPM: \(error.message)")
        }
        guard state.allowsGuarding else {
            throw AuthError(
                .serviceUnavailable,
                "The passcode cannot be bound to this TPM: it locks out at its first failed authorization"
                    + " (MAX_AUTH_FAIL \(state.maximumTries)), so fingerlock could never ask it without risking that.")
        }
    }

    /// What `tpm enable` or `disable` did: the binding before and after (equal: nothing written).
    public struct Change: Sendable, Equatable {
        public var before: TPMBinding?
        public var after: TPMBinding?
        public var changed: Bool { before != after }
    }

    /// `tpm enable`: the passcode, then a slot bound to the TPM (with `pcr7`, also to PCR 7) in
    /// place of the current one.
    public func enable(pcr7: Bool) async throws -> Change {
        try await rebind(to: TPMBinding(pcr7: pcr7), reason: "bind the passcode to the TPM")
    }

    /// `tpm disable`: the passcode, then an unbound slot.
    public func disable() async throws -> Change {
        try await rebind(to: nil, reason: "unbind the passcode from the TPM")
    }

    private func rebind(to binding: TPMBinding?, reason: String) async throws -> Change {
        guard environment.passcodes.hasPasscode else { throw AuthError.passcodeNotSet }
        let unlock = PasscodeUnlock(environment)
        try unlock.requirePasscodeSource()
        // Binding in this process: nobody types a passcode for a TPM that is not there.
        if binding != nil, let tpm = environment.custody.tpmAskedHere { try requireTPM(tpm) }
        let (vault, passcode) = try await unlock.promptForPasscode(reason: reason, typedAhead: "")
        defer { vault.close() }
        let current = try AuthError.mapped { TPMBoundSlot.binding(of: try vault.passcodeSlotSealed) }
        let change = Change(before: current, after: binding)
        guard change.changed else { return change }
        let custody = environment.custody(of: vault)
        try AuthError.mapped {
            try environment.passcodes.replacePasscode(of: vault, with: passcode, sealer: custody.passcodeSealer(binding: binding))
        }
        return change
    }
}
