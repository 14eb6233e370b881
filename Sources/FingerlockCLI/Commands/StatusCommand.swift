import ArgumentParser
import Auth
import Foundation

/// `fingerlock status [--json]`: locked or unlocked and for how long, the counters, and what is
/// enrolled — without a touch or the passcode, and revealing no secret.
struct StatusCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show whether the vault is locked, for how long it stays unlocked, lockout and passcode delays, fingers and mode.",
        discussion: """
            Needs no touch and no passcode and reveals no secret. The enrolled fingers and the vault's \
            kind are sealed in the vault, so they are shown only while it is unlocked (a key is cached). \
            Times come from the kernel keyring, which rounds them down to its unit. In system mode it also \
            asks fingerlockd what it knows (the passcode counters are the service's); a service that cannot \
            be reached is reported, with the fix, and status still exits 0.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(
        name: .long,
        help: """
            Print a JSON object {setUp, unlocked, keyExpiresInSeconds, reuseWindowSecondsLeft, failedTouches, lockedOut, \
            failedPasscodes, passcodeDelaySecondsLeft, fingers, kind, mode, keyCacheUnavailable, version, service, tpm}; \
            service is null in user mode, else {socket, reachable, problem, registered, unlocked, unlockedSecondsLeft, \
            failedPasscodes, delaySecondsLeft}; tpm is {bound, pcr7, location, reachable, problem, failedTries, \
            maximumTries, intervalSeconds, inLockout, lockoutPasswordSet} (see `fingerlock tpm status`).
            """)
    var json = false

    var jsonOutput: Bool { json }

    func run(with dependencies: CLIDependencies) async throws {
        let session = try await AuthSession(global: global, passcode: nil, dependencies: dependencies, needsReader: false, json: json)
        let status = try VaultStatusReport(session.environment).status()
        let tpm = TPMBindingManagement(session.environment).report()
        let socket = global.settings.socketPath(dependencies.environment)
        if json {
            try dependencies.console.printJSON(StatusJSON(status, socket: socket, tpm: tpm))
        } else {
            var lines = StatusText.lines(status, socket: socket)
            if status.setUp { lines += TPMStatusJSON.lines(tpm) }
            for line in lines { dependencies.console.print(line) }
        }
    }
}
