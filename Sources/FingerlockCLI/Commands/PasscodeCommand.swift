import ArgumentParser
import Auth
import TrustedPlatform
import Vault

struct PasscodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passcode",
        abstract: "Set, change or reset the app passcode.",
        subcommands: [Set.self, Change.self, Reset.self])

    struct Set: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Create the vault with a new passcode and show the recovery key once.",
            discussion: """
                The reader in effect now fixes the vault's kind for good: with the simulated reader or a \
                libfprint virtual_* driver it is a test vault that accepts only test readers; otherwise a \
                hardware vault that refuses them. From a script (--passcode-stdin/--passcode-fd) it reads \
                the new passcode and its confirmation; without a terminal the recovery key is printed once \
                on stdout, and refused up front where it would be lost (/dev/null, a closed stdout, a pipe \
                nobody reads): use --recovery-key-file FILE then.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @OptionGroup var recoveryKey: RecoveryKeyOptions
        @Flag(name: .long, help: "Bind the passcode to this machine's TPM from the start (see `fingerlock tpm`).")
        var tpm = false
        @Flag(name: .long, help: "With --tpm: also bind to PCR 7 (the Secure Boot state).")
        var pcr7 = false

        func validate() throws {
            if pcr7 && !tpm { throw ValidationError("--pcr7 goes with --tpm.") }
        }

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, recoveryKey: recoveryKey)
            let vault = try await PasscodeManagement(session.environment).setPasscode(tpm: tpm ? TPMBinding(pcr7: pcr7) : nil)
            defer { vault.close() }
            let kind = try vault.kind
            dependencies.console.print(
                "Passcode set; the vault is ready (\(kind == .test ? "a test vault: simulated and virtual readers only" : "for real readers")).")
        }
    }

    struct Change: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "change", abstract: "Change the passcode: current, new, confirm.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
            try await PasscodeManagement(session.environment).changePasscode()
            dependencies.console.print("Passcode changed.")
        }
    }

    struct Reset: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset", abstract: "Replace a forgotten passcode with the recovery key: recovery key, new, confirm.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
            try await PasscodeManagement(session.environment).resetPasscode()
            dependencies.console.print("Passcode reset.")
        }
    }
}
