import ArgumentParser
import Auth
import AuthCore
import Fingerprint
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

struct EnrollCommand: FingerlockCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Enroll a finger, with stage-by-stage progress (needs the passcode; Ctrl-C saves nothing).",
        discussion: """
            With --reader fprintd and no finger, the vault takes the fingers fprintd already has for you (the ones \
            your desktop's settings enrolled): a touch then verifies through fprintd. With a finger, fprintd \
            enrolls it first, as your desktop's settings would (fprintd asks your login password, at a terminal \
            through polkit's text agent), and the vault then takes fprintd's fingers.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var passcode: PasscodeOptions
    @Argument(
        help: ArgumentHelp("The finger to enroll (default right-index-finger).", valueName: "finger"),
        completion: .list(FingerArgument.names()))
    var finger: String?
    @Flag(name: .long, help: "Replace the finger if it is already enrolled on this reader, without asking (scripts).")
    var replace = false

    func validate() throws {
        if let finger { try FingerArgument.validate(finger) }
    }

    func run(with dependencies: CLIDependencies) async throws {
        let console = dependencies.console
        let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies)
        if session.resolver.choice == .fprintd {
            try await acceptFprintd(session, console: console, dependencies: dependencies)
            return
        }
        let finger = self.finger.flatMap(Finger.init(name:)) ?? .rightIndex
        let text = Mutex(EnrollProgressText(finger: finger))
        let print = try await withInterruptCancellation {
            try await Enrollment(session.environment).enroll(
                finger, username: dependencies.username,
                confirmReplacing: { [replace] old in
                    if replace { return true }
                    let since = old.enrolled.map { " (since \(UTCDay.string($0)))" } ?? ""
                    let enrolled = "\(old.finger) is already enrolled on \(old.reader)\(since)"
                    guard let terminal = dependencies.openTerminal() else {
                        throw CLIError(.usage, enrolled + "; --replace replaces it, or name another finger. Nothing was changed.")
                    }
                    return try await Confirmation.ask(enrolled + ". Replace it?", terminal: terminal, unlessFlag: "--replace")
                }
            ) { update in
                for line in text.withLock({ $0.lines(for: update) }) { console.print(line) }
            }
        }
        console.print(console.green("Enrolled \(print.finger) on \(print.reader)."))
    }

    /// `--reader fprintd`: with a finger, fprintd enrolls it (polkit asks the login password, at a
    /// terminal through polkit's text agent); then, or with no finger at once, the vault accepts
    /// what fprintd has.
    private func acceptFprintd(_ session: AuthSession, console: Console, dependencies: CLIDependencies) async throws {
        let accepted: AcceptedFingers
        if let finger = self.finger.flatMap(Finger.init(name:)) {
            // The login password is asked at this terminal, by polkit's text agent.
            let agent = dependencies.openTerminal() == nil ? nil : dependencies.childProcesses.startPolkitAgent(environment: dependencies.environment)
            // While it runs, SIGTERM or SIGHUP must not leave it reading the terminal (the next lines
            // typed would go to it, then to the shell): the agent is stopped first, the enrollment
            // cancelled (as by Ctrl-C), and the process then dies of the signal.
            let restoreSignals = agent == nil ? {} : latchTerminationSignals()
            let watcher = agent.map { agent in
                Task {
                    while !Task.isCancelled {
                        if pendingTerminationSignal != nil {
                            agent.stop()
                            kill(getpid(), SIGINT)
                            return
                        }
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
            }
            defer {
                watcher?.cancel()
                agent?.stop()
                restoreSignals()
            }
            do {
                accepted = try await enrollWithFprintd(finger, session: session, console: console, dependencies: dependencies)
            } catch {
                try checkTerminationSignal()
                throw error
            }
            console.print(console.green("Enrolled \(finger) with fprintd."))
        } else {
            accepted = try await withInterruptCancellation { try await Enrollment(session.environment).acceptFprintdFingers() }
        }
        let fingers = accepted.fingers.map(\.rawValue).joined(separator: ", ")
        console.print(console.green("This vault now takes fprintd's fingers: \(fingers) on \(accepted.device)."))
        console.print("A touch verifies through fprintd; when its fingers change, the passcode accepts the new set.")
    }

    private func enrollWithFprintd(
        _ finger: Finger, session: AuthSession, console: Console, dependencies: CLIDependencies
    ) async throws -> AcceptedFingers {
        let text = Mutex(EnrollProgressText(finger: finger))
        return try await withInterruptCancellation {
            try await Enrollment(session.environment).enrollWithFprintd(
                finger,
                confirmReplacing: { [replace] finger in
                    if replace { return true }
                    let enrolled =
                        "\(finger) is enrolled with fprintd (your desktop's login may use it); enrolling it again deletes"
                        + " it first, and if the new enrollment does not finish, fprintd no longer has it"
                    guard let terminal = dependencies.openTerminal() else {
                        throw CLIError(.usage, enrolled + ". --replace replaces it, or name another finger. Nothing was changed.")
                    }
                    return try await Confirmation.ask(enrolled + ". Replace it?", terminal: terminal, unlessFlag: "--replace")
                }
            ) { update in
                for line in text.withLock({ $0.lines(for: update) }) { console.print(line) }
            }
        }
    }
}
