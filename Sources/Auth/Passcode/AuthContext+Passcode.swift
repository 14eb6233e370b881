import Fingerprint
public import Vault

extension AuthContext {
    /// `passcode set`: creates the vault. The reader in effect fixes its kind for good — a test
    /// vault with the simulated reader or a libfprint `virtual_*` driver, else a hardware vault.
    public func setPasscode() async throws -> (vault: Vault, recoveryKey: RecoveryKey) {
        if passcodes.hasPasscode {
            throw AuthError(.invalidInput, "A passcode is already set: use `fingerlock passcode change` (or `passcode reset` with the recovery key).")
        }
        guard interaction.canAskPasscode else {
            throw AuthError(.passcodeRequired, "A new passcode is needed. " + Self.noTerminal)
        }
        let passcode = try await runFlow(PasscodeFlow(.set)).newPasscode!
        let isTest: Bool
        if let chosen = dependencies.testReaderChosen {
            isTest = chosen
        } else {
            isTest = await dependencies.readerLookup.outcome().reader?.identity.isTestReader == true
        }
        let kind: VaultKind = isTest ? .test : .hardware
        let created = try Self.vaultCall { try passcodes.create(passcode: passcode, kind: kind) }
        try dependencies.attempts.update { $0 = AttemptState() }
        try cacheKey(of: created.vault)
        return created
    }

    /// `passcode change`: current → new → confirm. Rewraps the passcode slot only.
    public func changePasscode() async throws -> Vault {
        try await replacePasscode(PasscodeFlow(.change))
    }

    /// `passcode reset`: recovery key → new → confirm, for a forgotten passcode.
    public func resetPasscode() async throws -> Vault {
        try await replacePasscode(PasscodeFlow(.reset))
    }

    private func replacePasscode(_ flow: PasscodeFlow) async throws -> Vault {
        guard passcodes.hasPasscode else {
            throw AuthError(.passcodeNotSet, "No passcode is set yet: run `fingerlock passcode set` to create the vault.")
        }
        guard interaction.canAskPasscode else {
            throw AuthError(.passcodeRequired, "The passcode is required. " + Self.noTerminal)
        }
        let opened = OpenedVault()
        let finished = try await runFlow(flow) { step, input in
            let vault: Vault?
            switch step {
            case .enterCurrent:
                vault = try self.openWithPasscodeCounted(input)
            case .enterRecoveryKey:
                vault = try self.openWithRecoveryKey(input)
            default:
                vault = nil
            }
            opened.vault = vault ?? opened.vault
            return vault != nil
        }
        guard let vault = opened.vault, let newPasscode = finished.newPasscode else {
            throw AuthError(.authenticationFailed, "The passcode was not changed.")
        }
        do {
            try passcodes.replacePasscode(of: vault, with: newPasscode)
        } catch {
            vault.close()
            throw Self.authError(error)
        }
        try cacheKey(of: vault)
        return vault
    }

    func openWithPasscodeCounted(_ passcode: String) throws -> Vault? {
        try openWithRecoveryKeyOrPasscode(.passcode(passcode))
    }

    /// Drives a passcode flow through the interaction. From a script there is no second chance:
    /// a mismatch or a wrong current passcode ends the command.
    private func runFlow(
        _ start: PasscodeFlow, check: (PasscodeFlow.Step, String) throws -> Bool = { _, _ in false }
    ) async throws -> PasscodeFlow {
        var flow = start
        var prompt = flow.prompt
        var wrongCredentials = 0
        while prompt.step != .finished {
            let input = try await interaction.askSecret(prompt: Self.text(for: prompt.step), typedAhead: "")
            let before = prompt.step
            prompt = try flow.submit(input, check: check)
            guard let notice = prompt.notice else { continue }
            let failed = prompt.step == before || (before == .confirmNew && prompt.step == .enterNew)
            if failed && (before == .enterCurrent || before == .enterRecoveryKey) {
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
}
