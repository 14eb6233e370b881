import AuthCore
import Fingerprint
import Foundation
import Synchronization
public import Vault

/// The passcode: unlocking with it (counted and delayed), and setting, changing or resetting it.
extension AuthContext {
    /// Always asks for the passcode (enrolling or forgetting a finger, a setting, `unlock`), then
    /// caches the key for fingerprint unlocks.
    public func unlockWithPasscode(reason: String, typedAhead: String = "", why: AuthError? = nil) async throws -> Vault {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        try requirePasscodeSource(why: why)
        let (vault, _) = try await promptForPasscode(reason: reason, typedAhead: typedAhead)
        do {
            try cacheKey(of: vault)
        } catch {
            vault.close()
            throw error
        }
        startPasscodeWindow(vault)
        return vault
    }

    func requirePasscodeSource(why: AuthError? = nil) throws {
        guard interaction.canAskPasscode else {
            // A reason already says the passcode is needed: it is not said twice.
            let because = why.map { $0.message + " " } ?? "The passcode is required. "
            throw AuthError(.passcodeRequired, because + Self.noTerminal)
        }
    }

    /// Asks until the passcode opens the vault (three tries at a terminal, one from a script).
    /// Returns the passcode too, for work that re-derives with it (rekey, restore's comparison).
    func promptForPasscode(reason: String, typedAhead: String) async throws -> (Vault, String) {
        let prompts = interaction.passcodeFromScript ? 1 : Self.passcodePromptsPerEvaluation
        var typed = typedAhead
        var refusal = CountedAttempt.Refusal(serviceSays: nil)
        for attempt in 1...prompts {
            try refuseDuringPasscodeDelay()
            let passcode = try await interaction.askSecret(prompt: "Passcode (\(reason)): ", typedAhead: typed)
            typed = ""
            switch try countedAttempt(anyOf: [.passcode(passcode)]) {
            case .opened(let vault, _): return (vault, passcode)
            case .refused(let why): refusal = why
            }
            if attempt < prompts { interaction.notify(refusal.retryNotice(default: "Wrong passcode, try again.")) }
        }
        throw AuthError(.authenticationFailed, refusal.finalMessage(default: "Wrong passcode."))
    }

    /// Opens with the recovery key (for `passcode reset`) or the current passcode, counted like a
    /// passcode attempt.
    func openWithRecoveryKeyOrPasscode(_ credential: VaultCredential) throws -> CountedAttempt {
        try refuseDuringPasscodeDelay()
        return try countedAttempt(anyOf: [credential])
    }

    /// Refuses at once while a delay runs (so nobody is asked for a passcode that would be refused).
    func refuseDuringPasscodeDelay() throws {
        try custody.refuseDuringPasscodeDelay()
    }

    /// Checks the delay and counts the attempt in one step under the counters' lock — so parallel
    /// runs waiting at their prompts cannot all slip past one check — then opens; a success clears
    /// every counter (and lockout). An empty passcode is not an attempt. One secret may be any of
    /// `credentials` (a passcode that could also be a recovery key): one attempt is counted,
    /// whichever of them opens. A refusal carries what fingerlockd said about its count and delay;
    /// the caller says it, once.
    func countedAttempt(anyOf credentials: [VaultCredential]) throws -> CountedAttempt {
        let attempts = credentials.filter { if case .passcode(let text) = $0 { !text.isEmpty } else { true } }
        guard !attempts.isEmpty else { return .refused(.init(serviceSays: nil)) }
        // Counted here, or (a system-mode passcode) first by fingerlockd: the custody says.
        let custody = custody
        let ledger = custody.passcodeLedger(for: attempts)
        let interaction = interaction
        let counted = try ledger.map { ledger in
            try Self.vaultCall {
                try ledger.checkDelayAndCount { interaction.notify(PasscodesStillInFlight.waitingNotice($0)) }
            }
        }
        // In flight until judged: released early, a run beside this one would take it for wrong.
        defer { withExtendedLifetime(counted) {} }
        var serviceSays: String?
        var judgedWrong = false
        for credential in attempts {
            do {
                let vault = try passcodes.open(with: credential, sealers: passcodeSealers)
                custody.opened(vault, with: credential)
                do {
                    try Self.vaultCall { try passcodeLedger.succeeded() }
                } catch {
                    vault.close()
                    throw error
                }
                return .opened(vault, credential)
            } catch let error as VaultError where [.wrongPasscode, .wrongRecoveryKey, .invalidInput].contains(error.code) {
                // A malformed recovery key is just a wrong one, and counts as such.
                if let said = custody.refusal(error, for: credential) { serviceSays = said }
                judgedWrong = true
                continue
            } catch {
                // Nothing judged the secret (a damaged vault, a failed read): this was no wrong
                // passcode, so it must not count as one, or a damaged vault would lock its owner out.
                if let ledger, let counted, !judgedWrong { ledger.notJudged(counted) }
                throw Self.authError(error)
            }
        }
        return .refused(.init(serviceSays: serviceSays))
    }

    // MARK: - Setting and replacing the passcode

    /// `passcode set`: creates the vault. The reader in effect fixes its kind for good — a test
    /// vault with the simulated reader or a libfprint `virtual_*` driver, else a hardware vault.
    /// The recovery key is shown before the vault is created: if it cannot be shown, nothing is.
    public func setPasscode() async throws -> Vault {
        if passcodes.hasPasscode {
            throw AuthError(.invalidInput, "A passcode is already set: use `fingerlock passcode change` (or `passcode reset` with the recovery key).")
        }
        guard interaction.canAskPasscode else {
            throw AuthError(.passcodeRequired, "A new passcode is needed. " + Self.noTerminal)
        }
        let passcode = try await runFlow(PasscodeFlow(.set)).newPasscode!
        let kind: VaultKind = try await chosenVaultKind()
        let recoveryKey = RecoveryKey.generate()
        try await presentRecoveryKey(recoveryKey, notCommitted: "No vault was created.")
        let created = try Self.vaultCall { try passcodes.create(passcode: passcode, kind: kind, recoveryKey: recoveryKey) }
        do {
            try Self.vaultCall { try passcodeLedger.succeeded() }
            try cacheKey(of: created)
            startPasscodeWindow(created)
        } catch {
            created.close()
            throw error
        }
        return created
    }

    /// The kind a vault created now gets: a test vault with a test reader, else a hardware vault.
    func chosenVaultKind() async throws -> VaultKind {
        let isTest: Bool
        if let chosen = dependencies.testReaderChosen {
            isTest = chosen
        } else {
            isTest = await dependencies.readerLookup.outcome().reader?.identity.isTestReader == true
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
            throw AuthError(.dataError, "The recovery key could not be shown (\(Self.authError(error).message)). " + notCommitted)
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
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        try requirePasscodeSource()
        // Checked before the first prompt: nobody types a passcode that would be refused anyway.
        try refuseDuringPasscodeDelay()
        let opened = OpenedVault()
        defer { opened.vault?.close() }
        let finished = try await runFlow(flow, refusal: { opened.refusal }) { step, input in
            let attempt: CountedAttempt
            switch step {
            case .enterCurrent: attempt = try self.openWithRecoveryKeyOrPasscode(.passcode(input))
            case .enterRecoveryKey: attempt = try self.openWithRecoveryKeyOrPasscode(.recoveryKey(input))
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
        let custody = custody(of: vault)
        do {
            try passcodes.replacePasscode(of: vault, with: newPasscode, sealer: custody.passcodeSealer)
        } catch let error where flow.kind == .reset && error.code == .sealerUnavailable {
            // The recovery key opens the vault anywhere: with fingerlockd gone (or its state lost),
            // a reset must not leave the vault unopenable by passcode. The custody says where it
            // falls back to (system mode: user mode's own sealer), said aloud.
            guard let fallback = custody.resetFallbackSealer else { throw Self.authError(error) }
            recordedHeader.withLock { $0 = nil }
            try Self.vaultCall {
                try passcodes.movePasscodeSlot(
                    of: vault, from: custody.passcodeSealer.mode, to: fallback, passcode: newPasscode)
            }
            interaction.notify(
                error.message + " The vault is back in user mode with the new passcode; run "
                    + "`fingerlock system enable` once fingerlockd runs.")
        } catch {
            throw Self.authError(error)
        }
        try cacheKey(of: vault)
    }

    /// Drives a passcode flow through the interaction. From a script there is no second chance:
    /// a mismatch or a wrong current passcode ends the command. `refusal` is what the last refused
    /// credential check learnt (fingerlockd's count), said instead of the flow's own notice.
    private func runFlow(
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
                if interaction.passcodeFromScript || wrongCredentials >= Self.passcodePromptsPerEvaluation {
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
}

/// Carries the vault opened inside the flow's synchronous check out to the caller.
private final class OpenedVault: @unchecked Sendable {
    // Invariant: only touched from the one task running the flow, sequentially.
    var vault: Vault?
    var refusal: CountedAttempt.Refusal?
}
