/// What an evaluation may use, as LocalAuthentication's policies.
public enum AuthPolicy: String, Sendable, CaseIterable {
    /// Fingerprint only; failures come back as errors.
    case biometrics
    /// Fingerprint first, then the app passcode (the default).
    case biometricsOrPasscode = "biometrics-or-passcode"
}
