import ArgumentParser
import Auth
import Fingerprint
import Vault

/// `system enable | disable | status`: move this vault into system mode (fingerlockd) and back.
struct SystemCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "system",
        abstract: "Move this vault into system mode (fingerlockd) or back to user mode.",
        discussion: """
            In system mode the passcode slot also needs a secret that only fingerlockd holds, and the \
            service counts the wrong passcodes: a copy of the vault cannot be guessed offline, and \
            deleting files does not reset the counters. The recovery key still opens the vault \
            without the service. In system mode fingerlockd owns the reader: fingers are enrolled \
            through it (`fingerlock enroll` again after enabling), and a touch opens the vault only \
            after the passcode was entered once since fingerlockd started. The service is found at --socket (FINGERLOCK_SOCKET; \
            default /run/fingerlock/socket).
            """,
        subcommands: [Enable.self, Disable.self, Status.self])

    struct Enable: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "enable",
            abstract: "Move this vault into system mode (asks the passcode).",
            discussion: """
                The old passcode slot is destroyed; backups made before still open with the old \
                passcode. `fingerlock rekey` (before or after) gives the vault a new key that nothing \
                in them opens.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(
                global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
            let userModeFingers = try await session.context.enableSystemMode()
            dependencies.console.print(
                "System mode: the passcode now opens this vault only through fingerlockd.")
            if !userModeFingers.isEmpty {
                let names = userModeFingers.map(\.rawValue).joined(separator: ", ")
                dependencies.console.print(
                    "Fingers enrolled in user mode (\(names)) do not move to fingerlockd: enroll them again with "
                        + "`fingerlock enroll FINGER` (they stay in the vault for user mode).")
            }
        }
    }

    struct Disable: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "disable", abstract: "Move this vault back to user mode (asks the passcode).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(
                global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
            if let warning = try await session.context.disableSystemMode() {
                dependencies.console.warn(warning)
            }
            dependencies.console.print("User mode: the passcode opens this vault without fingerlockd.")
            dependencies.console.print(
                "Fingers enrolled through fingerlockd were forgotten with it; those enrolled in user mode before "
                    + "unlock again (`fingerlock fingers` lists them).")
        }
    }

    struct Status: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Say whether this vault is in user or system mode.")

        @OptionGroup var global: GlobalOptions

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(
                global: global, passcode: nil, dependencies: dependencies, needsReader: false)
            dependencies.console.print("mode: \(session.context.vaultMode.rawValue)")
        }
    }
}
