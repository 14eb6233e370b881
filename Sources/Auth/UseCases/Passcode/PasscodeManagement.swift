import AuthCore
import Fingerprint
import Foundation
import Synchronization
public import TrustedPlatform
public import Vault

/// `passcode set|change|reset` and `rekey`: creating the vault, replacing its passcode (with the
/// current one or the recovery key) and rotating its key. Each asks for a secret every time, never
/// a touch; the vault's custody says who seals the passcode slot and where the key goes after.
public struct PasscodeManagement: Sendable {
    let environment: AuthEnvironment

    public init(_ environment: AuthEnvironment) { self.environment = environment }

    var passcodes: any PasscodeRepository { environment.passcodes }
    var interaction: any AuthInteraction { environment.interaction }
    private var unlock: PasscodeUnlock { PasscodeUnlock(environment) }

    /// `passcode set`: creates the vault. The reader in effect fixes its kind for good — a test
    /// vault with the simulated reader or a libfprint `virtual_*` driver, else a hardware vault.
    /// The recovery key is shown before the vault is created: if it cannot be shown, nothing is.
    /// With `tpm`, the passcode slot is bound to this machine's TPM from the start (the TPM is
    /// asked before the recovery key is shown: a TPM out of reach creates nothing).
    public func setPasscode(tpm: TPMBinding? = nil) async throws -> Vault {
        if passcodes.hasPasscode {
            throw AuthError(.invalidInput, "A passcode is already set: use `fingerlock passcode change` (or `passcode reset` with the recovery key).")
        }
        guard interaction.canAskPasscode else {
            throw AuthError(.passcodeRequired, "A new passcode is needed. " + AuthError.noTerminal)
        }
        // Before the passcode is asked: nobody types one for a TPM that is not there.
        // A new vault is a user-mode one: its custody's TPM.
        if tpm != nil, let asked = environment.custody(for: .user).tpmAskedHere {
            try TPMBindingManagement(environment).requireTPM(asked)
        }
        let passcode = try await runFlow(PasscodeFlow(.set)).newPasscode!
        let kind: VaultKind = try await chosenVaultKind()
        let recoveryKey = RecoveryKey.generate()
        try await presentRecoveryKey(recoveryKey, notCommitted: "No vault was created.")
        return try createVault(passcode: passcode, kind: kind, recoveryKey: recoveryKey, binding: tpm, joining: nil)
    }

    /// Creates the vault in user mode (a new one, or this machine's copy of a synced one), then
    /// counts the passcode as proven and caches the key, as after any passcode.
    func createVault(passcode: String, kind: VaultKind, recoveryKey: RecoveryKey, binding: TPMBinding?, joining: VaultJoinKey?)
        throws -> Vault
    {
        let sealer = environment.custody(for: .user).passcodeSealer(binding: binding)
        let created = try AuthError.mapped {
            try passcodes.create(passcode: passcode, kind: kind, recoveryKey: recoveryKey, sealer: sealer, joining: joining)
        }
        do {
            try AuthError.mapped { try environment.passcodeLedger.succeeded() }
            try environment.cacheKey(of: created)
            environment.custody(of: created).passcodeProven(created)
        } catch {
            created.close()
            throw error
        }
        return created
    }

    /// The kind a vault created now gets: a test vault with a test reader, else a hardware vault.
    func chosenVaultKind() async throws -> VaultKind {
        let isTest: Bool
        if let chosen = environment.dependencies.testReaderChosen {
            isTest = chosen
        } else {
            isTest = await environment.dependencies.readerLookup.outcome().reader?.identity.isTestReader == true
        }
        return isTest ? .test : .hardware
    }

    /// Shows a new recovery key through the interaction before the change that makes it valid; a
    /// key that could not be shown (stdout closed or full) stops the change.
    func presentRecoveryKey(_ key: RecoveryKey, notCommitted: String) async throws {
        do {
            try await interaction.presentRecoveryKey(key.displayString)
        } catch let error as AuthError where error.code == .userCancel {
            throw AuthError(.userCancel, "Cancelled before the recovery key was saved. " + notCommitted)
        } catch {
            throw AuthError(.dataError, "The recovery key could not be shown (\(AuthError.from(error).message)). " + notCommitted)
        }
    }

    /// `passcode change`: current → new → confirm. Rewraps the passcode slot only.
    public func changePasscode() async throws {
        try await replacePasscode(PasscodeFlow(.change))
    }

    /// `passcode reset`: recovery key → new → confirm, for a forgotten passcode.
    public func resetPasscode() async throws {
        try await replacePasscode(PasscodeFlow(.reset))
    }

    private func replacePasscode(_ flow: PasscodeFlow) async throws {
        guard passcodes.hasPasscode else { throw AuthError.passcodeNotSet }
        try unlock.requirePasscodeSource()
        // Checked before the first prompt: nobody types a passcode that would be refused anyway.
        try unlock.refuseDuringPasscodeDelay()
        if flow.kind == .change { try environment.custody.refuseWhileTheTPMWouldNotBeAsked() }
        let opened = OpenedVault()
        defer { opened.vault?.close() }
        let finished = try await runFlow(flow, refusal: { opened.refusal }) { step, input in
            let attempt: CountedAttempt
            switch step {
            case .enterCurrent: attempt = try unlock.openWithRecoveryKeyOrPasscode(.passcode(input))
            case .enterRecoveryKey: attempt = try unlock.openWithRecoveryKeyOrPasscode(.recoveryKey(input))
            default: return false
            }
            switch attempt {
            case .opened(let vault, _):
                opened.vault?.close()
                opened.vault = vault
                return true
            case .refused(let why):
                opened.refusal = why
                return false
            }
        }
        guard let vault = opened.vault, let newPasscode = finished.newPasscode else {
            throw AuthError(.authenticationFailed, "The passcode was not changed.")
        }
        if flow.kind == .change, let old = finished.credential, old == newPasscode {
            throw AuthError(.invalidInput, "The new passcode is the same as the current one; nothing was changed.")
        }
        let custody = environment.custody(of: vault)
        // The new slot is bound as the old one was: to this machine's TPM.
        let binding = try AuthError.mapped { TPMBoundSlot.binding(of: try vault.passcodeSlotSealed) }
        do {
            try passcodes.replacePasscode(of: vault, with: newPasscode, sealer: custody.passcodeSealer(binding: binding))
            if flow.kind == .reset && binding != nil {
                // The recovery key may have been used on another machine: say where the new one is bound.
                interaction.notify(
                    "The new passcode is bound to this machine's TPM" + (binding?.pcr7 == true ? " and its PCR 7." : "."))
            }
        } catch let error where flow.kind == .reset && error.code == .sealerUnavailable && binding != nil {
            // The recovery key opened a vault whose TPM is gone (another machine, a cleared or
            // replaced TPM): the new passcode is not bound, said aloud with how to bind it here.
            try AuthError.mapped { try passcodes.replacePasscode(of: vault, with: newPasscode, sealer: custody.passcodeSealer(binding: nil)) }
            interaction.notify(
                "The new passcode is not bound to a TPM: "
                    + error.message.replacingOccurrences(of: "The passcode could not be bound to the TPM: ", with: "")
                    + " Once a TPM answers here, `fingerlock tpm enable` binds it again.")
        } catch let error where flow.kind == .reset && error.code == .sealerUnavailable {
            // The recovery key opens the vault anywhere: with fingerlockd gone (or its state lost),
            // a reset must not leave the vault unopenable by passcode. It moves to user mode, whose
            // sealer (the vault's own) is always at hand, said aloud; a user-mode sealer that
            // failed has nowhere else to go.
            let fallback = environment.custody(for: .user).passcodeSealer(binding: nil)
            guard custody.passcodeSealer.mode != fallback.mode else { throw AuthError.from(error) }
            environment.forgetRecordedHeader()
            try AuthError.mapped {
                try passcodes.movePasscodeSlot(
                    of: vault, from: custody.passcodeSealer.mode, to: fallback, passcode: newPasscode)
            }
            interaction.notify(
                error.message + " The vault is back in user mode with the new passcode; run "
                    + "`fingerlock system enable` once fingerlockd runs.")
        } catch {
            throw AuthError.from(error)
        }
        try environment.cacheKey(of: vault)
    }

    /// Drives a passcode flow through the interaction. From a script there is no second chance:
    /// a mismatch or a wrong current passcode ends the command. `refusal` is what the last refused
    /// credential check learnt (fingerlockd's count), said instead of the flow's own notice.
    func runFlow(
        _ start: PasscodeFlow, refusal: () -> CountedAttempt.Refusal? = { nil },
        check: (PasscodeFlow.Step, String) throws -> Bool = { _, _ in false }
    ) async throws -> PasscodeFlow {
        var flow = start
        var prompt = flow.prompt
        var wrongCredentials = 0
        while prompt.step != .finished {
            let input = try await interaction.askSecret(prompt: Self.text(for: prompt.step), typedAhead: "")
            let before = prompt.step
            prompt = try flow.submit(input, check: check)
            guard var notice = prompt.notice else { continue }
            let failed = prompt.step == before || (before == .confirmNew && prompt.step == .enterNew)
            if failed && (before == .enterCurrent || before == .enterRecoveryKey) {
                notice = refusal()?.finalMessage(default: notice) ?? notice
                wrongCredentials += 1
                if interaction.passcodeFromScript || wrongCredentials >= PasscodeUnlock.promptsPerCommand {
                    throw AuthError(.authenticationFailed, notice)
                }
            } else if failed && interaction.passcodeFromScript {
                throw AuthError(.invalidInput, notice)
            }
            interaction.notify(notice)
        }
        return flow
    }

    static func text(for step: PasscodeFlow.Step) -> String {
        switch step {
        case .enterCurrent: "Current passcode: "
        case .enterRecoveryKey: "Recovery key: "
        case .enterNew: "New passcode (at least \(PasscodeRules.minimumLength) characters): "
        case .confirmNew: "Confirm the new passcode: "
        case .finished: ""
        }
    }

    // MARK: - Rotating the vault key

    /// Asks the passcode, shows the new recovery key, then rotates the store master key (every note
    /// and template re-sealed, slots rewrapped) and caches the new key in place of the old. If the
    /// recovery key cannot be shown, nothing changes: the old one stays valid.
    /// `progress` hears (notes re-sealed, notes in all) as the rekey goes.
    public func rekey(progress: ((_ done: Int, _ total: Int) -> Void)? = nil) async throws {
        guard passcodes.hasPasscode else { throw AuthError.passcodeNotSet }
        try unlock.requirePasscodeSource()
        let (vault, passcode) = try await unlock.promptForPasscode(reason: "rotate the vault key", typedAhead: "")
        defer { vault.close() }
        // The other machines hold the old key and read records sealed under it: a rekey here alone
        // would cut this machine off from them, not shut anyone out.
        if try AuthError.mapped({ try vault.syncState() }) != nil {
            throw AuthError(
                .invalidInput,
                "This vault syncs with other machines: run `fingerlock sync leave` on every machine, rekey here, start "
                    + "again with `fingerlock sync init` on a new empty repository, and join the others with the new recovery key.")
        }
        let custody = environment.custody(of: vault)
        let recoveryKey = RecoveryKey.generate()
        try await presentRecoveryKey(recoveryKey, notCommitted: "Nothing was changed; the old recovery key is still valid.")
        do {
            let binding = try AuthError.mapped { TPMBoundSlot.binding(of: try vault.passcodeSlotSealed) }
            try passcodes.rekey(
                vault, passcode: passcode, sealer: custody.passcodeSealer(binding: binding), recoveryKey: recoveryKey,
                progress: progress)
        } catch {
            let why = AuthError.from(error)
            var failed = AuthError(
                .dataError, why.message + " The recovery key just shown was NOT applied; the old one is still valid.")
            failed.remedy = why.remedy
            throw failed
        }
        try custody.rekeyed(vault)
    }
}

/// Carries the vault opened inside the flow's synchronous check out to the caller.
private final class OpenedVault: @unchecked Sendable {
    // Invariant: only touched from the one task running the flow, sequentially.
    var vault: Vault?
    var refusal: CountedAttempt.Refusal?
}
