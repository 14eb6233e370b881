import Vault

/// How one counted passcode (or recovery-key) attempt ended.
enum CountedAttempt {
    /// Why an attempt did not open the vault, as the user is told it: in system mode the service's
    /// own sentence (its count and delay), else the caller's. Told once, never echoed beside another.
    struct Refusal {
        var serviceSays: String?

        /// The line before the next prompt.
        func retryNotice(default text: String) -> String {
            guard let serviceSays else { return text }
            return serviceSays + " Try again."
        }

        /// The error the command ends with.
        func finalMessage(default text: String) -> String { serviceSays ?? text }
    }

    case opened(Vault, VaultCredential)
    case refused(Refusal)
}
