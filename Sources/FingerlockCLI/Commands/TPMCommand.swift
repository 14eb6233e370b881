import ArgumentParser
import Auth
import TrustedPlatform

/// `tpm enable | disable | status`: bind the passcode to the TPM and back.
struct TPMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tpm",
        abstract: "Bind the passcode to this machine's TPM, so a stolen disk cannot be guessed offline.",
        discussion: """
            Bound, the passcode opens the vault only together with a secret this machine's TPM keeps: a \
            copy of the vault offers nothing to guess against, and the TPM counts every wrong passcode \
            (its dictionary-attack lockout, shared by everything on the machine). fingerlock never risks \
            the TPM's last allowed failure. The recovery key never depends on the TPM: it opens the vault \
            on any machine. User mode asks the TPM at FINGERLOCK_TPM_TCTI (default device:/dev/tpmrm0, \
            open to group tss); in system mode fingerlockd does.
            """,
        subcommands: [Enable.self, Disable.self, Status.self])

    struct Enable: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "enable",
            abstract: "Bind the passcode to the TPM (asks the passcode).",
            discussion: """
                With --pcr7 the TPM also requires PCR 7 (the Secure Boot state) to be what it is now: \
                a firmware, Secure Boot or bootloader update then stops the passcode until the recovery \
                key (`fingerlock passcode reset`) sets it again. Off by default.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Flag(name: .long, help: "Also bind to PCR 7 (the Secure Boot state).")
        var pcr7 = false

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
            let change = try await TPMBindingManagement(session.environment).enable(pcr7: pcr7)
            let what = pcr7 ? "the TPM and PCR 7" : "the TPM"
            guard change.changed else {
                dependencies.console.print("The passcode was already bound to \(what); nothing changed.")
                return
            }
            let dropped = change.before?.pcr7 == true && !pcr7 ? " (no longer to PCR 7)" : ""
            dependencies.console.print(
                "The passcode is now bound to \(what)\(dropped); the recovery key still opens the vault anywhere.")
            if change.before == nil {
                // The vault key is the same: a copy from before opens with the passcode alone.
                dependencies.console.warn(
                    "Backups and copies of the vault made before still open with the passcode alone, offline; "
                        + "`fingerlock rekey` gives the vault a new key that nothing in them opens.")
            }
        }
    }

    struct Disable: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "disable", abstract: "Unbind the passcode from the TPM (asks the passcode).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
            let change = try await TPMBindingManagement(session.environment).disable()
            dependencies.console.print(
                change.changed ? "The passcode is no longer bound to the TPM." : "The passcode was not bound to a TPM; nothing changed.")
        }
    }

    struct Status: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Say whether the passcode is bound to the TPM, and the TPM's lockout state.")

        @OptionGroup var global: GlobalOptions
        @Flag(
            name: .long,
            help: """
                Print a JSON object {bound, pcr7, location, reachable, problem, failedTries, maximumTries, \
                intervalSeconds, inLockout, lockoutPasswordSet}.
                """)
        var json = false

        var jsonOutput: Bool { json }

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(global: global, passcode: nil, dependencies: dependencies, needsReader: false, json: json)
            let report = TPMBindingManagement(session.environment).report(askTPM: true)
            if json {
                try dependencies.console.printJSON(TPMStatusJSON(report))
            } else {
                var lines = TPMStatusJSON.lines(report)
                if report.binding == nil, !report.heldByService {
                    if let problem = report.problem {
                        lines.append("tpm state: not reachable: \(problem)")
                    } else if let state = report.lockout {
                        lines.append(TPMStatusJSON.stateLine(state))
                    }
                }
                for line in lines { dependencies.console.print(line) }
            }
        }
    }
}
