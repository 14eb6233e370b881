/// The passcode-prompt loop, written once for every use case and both custodies: up to
/// ``PasscodeUnlock/promptsPerCommand`` prompts at a terminal, one from a script; after a refusal the
/// next prompt is preceded by its notice, and the last refusal ends the command.
struct PasscodePrompts {
    let interaction: any AuthInteraction

    /// What one secret came to.
    enum Answer<Accepted> {
        case accepted(Accepted)
        /// Refused: `notice` before the next prompt, `final` as the command's error when none is left.
        case refused(notice: String, final: String)
    }

    var prompts: Int { interaction.passcodeFromScript ? 1 : PasscodeUnlock.promptsPerCommand }

    /// Asks with `prompt` until `attempt` accepts a secret or the prompts run out.
    /// - Parameters:
    ///   - typedAhead: typed during a scan before the passcode was chosen: the first prompt starts with it.
    ///   - beforeEach: runs before each prompt (a delay or a TPM that would refuse stops it there).
    func ask<Accepted>(
        prompt: String, typedAhead: String = "", beforeEach: () throws -> Void = {},
        _ attempt: (String) async throws -> Answer<Accepted>
    ) async throws -> Accepted {
        var typed = typedAhead
        var final = "Wrong passcode."
        for number in 1...prompts {
            try beforeEach()
            let secret = try await interaction.askSecret(prompt: prompt, typedAhead: typed)
            typed = ""
            switch try await attempt(secret) {
            case .accepted(let accepted):
                return accepted
            case .refused(let notice, let last):
                final = last
                if number < prompts { interaction.notify(notice) }
            }
        }
        throw AuthError(.authenticationFailed, final)
    }
}
