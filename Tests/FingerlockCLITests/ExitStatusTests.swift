import Auth
import FingerlockTestSupport
import Testing
import Vault

@testable import FingerlockCLI

/// The exit codes the README's contract gives the layers' errors.
@Suite(.timed) struct ExitStatusTests {
    /// Losing to a concurrent `rekey` or `restore` is a conflict to retry (6), never the code a script
    /// reads as a wrong passcode or finger (1).
    @Test func aVaultRekeyedByAnotherProcessIsADataErrorToRetry() {
        let lost = VaultError(.wrongKey, "The vault was rekeyed or restored by another fingerlock process meanwhile.")
        #expect(CLIError.from(lost).status == .dataError)
        #expect(CLIError.from(VaultError(.wrongPasscode, "Wrong passcode.")).status == .authFailed)
        #expect(CLIError.from(VaultError(.wrongRecoveryKey, "Wrong recovery key.")).status == .authFailed)
    }
}
