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
            without the service. In system mode fingerlockd owns the reader and the enrolled fingers \
            (`system enable` moves them to it, `system disable` back; one its reader cannot use is \
            named, to enroll again), and a touch opens the vault only after the passcode was entered \
            once since fingerlockd started. The service is found at --socket (FINGERLOCK_SOCKET; \
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
            let fingers = try await ModeMigration(session.environment).enableSystemMode()
            dependencies.console.print(
                "System mode: the passcode now opens this vault only through fingerlockd.")
            if !fingers.moved.isEmpty {
                let names = fingers.moved.map(\.rawValue).joined(separator: ", ")
                dependencies.console.print("Fingers moved to fingerlockd: \(names).")
            }
            for left in fingers.notMoved {
                guard let finger = left.finger else {
                    dependencies.console.warn("The fingers enrolled in user mode did not move: \(left.reason)")
                    continue
                }
                dependencies.console.warn(
                    "\(finger) did not move to fingerlockd (\(left.reason)); enroll it again with "
                        + "`fingerlock enroll \(finger.rawValue)`.")
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
            let fingers = try await ModeMigration(session.environment).disableSystemMode()
            if let warning = fingers.warning {
                dependencies.console.warn(warning)
            }
            dependencies.console.print("User mode: the passcode opens this vault without fingerlockd.")
            if !fingers.moved.isEmpty {
                let names = fingers.moved.map(\.rawValue).joined(separator: ", ")
                dependencies.console.print("Fingers moved back into the vault: \(names).")
            }
        }
    }

    struct Status: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Say whether this vault is in user or system mode.")

        @OptionGroup var global: GlobalOptions

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(
                global: global, passcode: nil, dependencies: dependencies, needsReader: false)
            dependencies.console.print("mode: \(ModeMigration(session.environment).currentMode.rawValue)")
        }
    }
}
