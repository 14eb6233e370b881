import AuthCore
import Fingerprint
import Foundation
import Vault

/// Opening the vault with the passcode (or the recovery key): asked, counted and delayed the same
/// way for every use case and both custodies; the custody says who counts and where the key goes.
struct PasscodeUnlock: Sendable {
    /// Wrong passcodes accepted in one command at a terminal before giving up.
    static let promptsPerCommand = 3

    let environment: AuthEnvironment

    init(_ environment: AuthEnvironment) { self.environment = environment }

    private var passcodes: any PasscodeRepository { environment.passcodes }
    private var interaction: any AuthInteraction { environment.interaction }

    /// Always asks for the passcode (enrolling or forgetting a finger, a setting, `unlock`), then
    /// caches the key for fingerprint unlocks.
    func unlockWithPasscode(reason: String, typedAhead: String = "", why: AuthError? = nil) async throws -> Vault {
        guard passcodes.hasPasscode else { throw AuthError.passcodeNotSet }
        try requirePasscodeSource(why: why)
        let (vault, _) = try await promptForPasscode(reason: reason, typedAhead: typedAhead)
        do {
            try environment.cacheKey(of: vault)
        } catch {
            vault.close()
            throw error
        }
        environment.custody(of: vault).passcodeProven(vault)
        await environment.acceptFprintdChanges(vault)
        return vault
    }

    func requirePasscodeSource(why: AuthError? = nil) throws {
        guard interaction.canAskPasscode else {
            // A reason already says the passcode is needed: it is not said twice.
            let because = why.map { $0.message + " " } ?? "The passcode is required. "
            throw AuthError(.passcodeRequired, because + AuthError.noTerminal)
        }
    }

    /// Asks until the passcode opens the vault (three tries at a terminal, one from a script).
    /// Returns the passcode too, for work that re-derives with it (rekey, restore's comparison).
    func promptForPasscode(reason: String, typedAhead: String) async throws -> (Vault, String) {
        try await PasscodePrompts(interaction: interaction).ask(
            prompt: "Passcode (\(reason)): ", typedAhead: typedAhead,
            beforeEach: {
                try refuseDuringPasscodeDelay()
                try environment.custody.refuseWhileTheTPMWouldNotBeAsked()
            }
        ) { passcode in
            switch try countedAttempt(anyOf: [.passcode(passcode)]) {
            case .opened(let vault, _): .accepted((vault, passcode))
            case .refused(let why):
                .refused(notice: why.retryNotice(default: "Wrong passcode, try again."), final: why.finalMessage(default: "Wrong passcode."))
            }
        }
    }

    /// Opens with the recovery key (for `passcode reset`) or the current passcode, counted like a
    /// passcode attempt.
    func openWithRecoveryKeyOrPasscode(_ credential: VaultCredential) throws -> CountedAttempt {
        try refuseDuringPasscodeDelay()
        return try countedAttempt(anyOf: [credential])
    }

    /// Refuses at once while a delay runs (so nobody is asked for a passcode that would be refused).
    func refuseDuringPasscodeDelay() throws {
        try environment.custody.refuseDuringPasscodeDelay()
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
        let custody = environment.custody
        let ledger = custody.passcodeLedger(for: attempts)
        let interaction = interaction
        let counted = try ledger.map { ledger in
            try AuthError.mapped {
                try ledger.checkDelayAndCount { interaction.notify(PasscodesStillInFlight.waitingNotice($0)) }
            }
        }
        // In flight until judged: released early, a run beside this one would take it for wrong.
        defer { withExtendedLifetime(counted) {} }
        var serviceSays: String?
        var judgedWrong = false
        for credential in attempts {
            do {
                let vault = try passcodes.open(with: credential, sealers: environment.passcodeSealers)
                custody.opened(vault, with: credential)
                do {
                    try AuthError.mapped { try environment.passcodeLedger.succeeded() }
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
                throw AuthError.from(error)
            }
        }
        return .refused(.init(serviceSays: serviceSays))
    }
}
