import AuthCore
import Fingerprint
import Vault

/// fprintd as the vault's keeper of fingers (``FprintdFingerSource``), for the use cases of this
/// environment.
extension AuthEnvironment {
    /// The reader in effect, except where fprintd was chosen (`--reader fprintd`): fprintd owns the
    /// reader then, and this process never opens it.
    func requireReaderUnlessFprintdChosen() async throws -> (any FingerprintReader)? {
        if dependencies.fprintdChosen { return nil }
        return try await requireReader()
    }

    /// fprintd's fingers, with the set the vault accepted (nil: none yet).
    func fprintdSource(accepted: AcceptedFingers?) async throws -> FprintdFingerSource {
        guard let fprintd = dependencies.fprintd else {
            throw AuthError(
                .biometryNotAvailable, "This vault's fingers are fprintd's, and fprintd cannot be asked here.",
                unavailability: .noReader)
        }
        do {
            return try await FprintdFingerSource.open(fprintd, accepted: accepted)
        } catch {
            throw AuthError.from(error)
        }
    }

    /// After the passcode opened `vault`: a vault that takes fprintd's fingers accepts fprintd's
    /// set as it is now (the passcode proves the user agrees), and says which fingers changed. A
    /// failure to ask fprintd is said, never fatal: the passcode unlock stands.
    func acceptFprintdChanges(_ vault: Vault) async {
        guard let accepted = try? FprintdAcceptance.read(vault) else { return }
        let now: AcceptedFingers?
        do {
            now = try await fprintdSource(accepted: accepted).currentSet()
        } catch {
            now = nil
            interaction.notify("fprintd's fingers could not be checked: \(AuthError.from(error).message)")
        }
        guard case .accept(let set, let change) = FprintdConsent.afterPasscode(accepted: accepted, now: now) else { return }
        do {
            try FprintdAcceptance.write(set, to: vault)
            interaction.notify(FprintdConsent.told(change.summary))
        } catch {
            interaction.notify("fprintd's fingers could not be accepted: \(AuthError.from(error).message)")
        }
    }
}
