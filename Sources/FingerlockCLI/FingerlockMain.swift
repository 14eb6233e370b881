import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// A command that runs with injected dependencies instead of ArgumentParser's own `run()`.
protocol FingerlockCommand: ParsableCommand {
    /// Whether errors are reported as JSON objects.
    var jsonOutput: Bool { get }
    func run(with dependencies: CLIDependencies) async throws
}

extension FingerlockCommand {
    var jsonOutput: Bool { false }
}

/// The entry point the executable calls with the real dependencies.
public enum FingerlockMain {
    /// Parses `arguments` (without the program name), runs the command and returns the exit status.
    public static func run(arguments: [String], dependencies: CLIDependencies) async -> Int32 {
        let console = dependencies.console
        let hoisted = splittingAttachedCounts(hoistingGlobalOptions(arguments))
        // The bare `--version` and `--help` skip `parseAsRoot`: its completion-script check and parse
        // reflect every root option and look up their types (protocol conformance scans), more than
        // the whole rest of the run after process start-up. Same text as ArgumentParser's answer.
        if hoisted == ["--version"] {
            console.print(FingerlockVersion.line)
            return 0
        }
        if hoisted == ["--help"] || hoisted == ["-h"] {
            console.print(Fingerlock.helpMessage())
            return 0
        }
        // TAB after `notes show|edit|rm`: titles, only from a key already cached (see `NoteCompletion`).
        if let completion = NoteCompletion(hoisted, environment: dependencies.environment) {
            for line in await completion.lines(dependencies: dependencies) { console.print(line) }
            return 0
        }
        // The completion scripts, made safe for titles and other words that are data (see `CompletionScript`).
        if hoisted.count == 2, hoisted[0] == "--generate-completion-script" {
            do {
                console.out.write(try CompletionScript.generate(for: hoisted[1]))
                return 0
            } catch {
                console.report(error, json: false)
                return ExitStatus.usage.rawValue
            }
        }
        // The hot path for scripts: the usual `verify` command lines skip ArgumentParser (see `VerifyRequest`).
        if let verify = VerifyRequest(fastParsing: hoisted) {
            return await execute(json: false, console: console) { try await verify.run(with: dependencies) }
        }
        // And the usual `notes list` command lines (see `ListRequest`).
        if let list = ListRequest(fastParsing: hoisted) {
            return await execute(json: list.json, console: console) { try await list.run(with: dependencies) }
        }
        // `help WRONG` names no command: an error, not the top-level help (ArgumentParser's answer).
        if hoisted.first == "help", hoisted.count > 1, let message = UnknownCommand.message(for: Array(hoisted.dropFirst())) {
            console.report(CLIError(.usage, message), json: arguments.contains("--json"))
            return ExitStatus.usage.rawValue
        }
        let command: any ParsableCommand
        do {
            command = try Fingerlock.parseAsRoot(hoisted)
        } catch {
            let code = Fingerlock.exitCode(for: error)
            if code == .success {
                console.print(Fingerlock.fullMessage(for: error))
                return 0
            }
            // One line, as every error: the usage text is one `--help` away.
            let message = UnknownCommand.message(for: hoisted) ?? usageLine(Fingerlock.message(for: error), arguments: hoisted)
            console.report(CLIError(.usage, message), json: arguments.contains("--json"))
            return ExitStatus.usage.rawValue
        }
        guard let runnable = command as? any FingerlockCommand else {
            return help(for: command, console: console)
        }
        let status = await execute(json: runnable.jsonOutput, console: console) { try await runnable.run(with: dependencies) }
        if status == 0, let changing = runnable as? any ChangesNotes, changing.changesNotes {
            await AutomaticSync.afterChange(changing.global, dependencies)
        }
        return status
    }

    /// ArgumentParser's message on one line, pointing to the help unless it already suggests
    /// what was meant ("did you mean …?").
    private static func usageLine(_ message: String, arguments: [String]) -> String {
        let line = message.split(separator: "\n").joined(separator: " ")
        return line.hasSuffix("?") ? line : line + " (see `\(helpCommand(for: arguments))`)"
    }

    /// `fingerlock notes show --help` for `notes show zz`: the help of the deepest command named.
    /// Option values are skipped; the walk ends at a command without subcommands.
    static func helpCommand(for arguments: [String]) -> String {
        var command: any ParsableCommand.Type = Fingerlock.self
        var path = ["fingerlock"]
        for argument in arguments where !argument.hasPrefix("-") {
            let subcommands = command.configuration.subcommands
            if subcommands.isEmpty { break }
            guard
                let next = subcommands.first(where: {
                    $0.configuration.commandName == argument || $0.configuration.aliases.contains(argument)
                })
            else { continue }
            command = next
            path.append(next.configuration.commandName ?? argument)
        }
        return (path + ["--help"]).joined(separator: " ")
    }

    /// A parsed command that is not one of ours: ArgumentParser's `help` (also what `--help` and
    /// `-h` parse to), which prints the help of the command it names; or a group named without a
    /// subcommand, which is a usage error as in git (`git worktree`): its own help on stderr, exit 64.
    /// A leaf command that is not a `FingerlockCommand` is a bug the command-tree test catches; it
    /// gets the same usage answer rather than a silent success.
    private static func help(for command: any ParsableCommand, console: Console) -> Int32 {
        let type = type(of: command)
        // ArgumentParser's own `help` command (no command of ours is called that: the tree test checks).
        if type.configuration.commandName == "help" {
            var request = command
            do {
                try request.run()
            } catch {
                let code = Fingerlock.exitCode(for: error)
                if code == .success {
                    console.print(Fingerlock.fullMessage(for: error))
                    return 0
                }
            }
        }
        console.err.write(Fingerlock.helpMessage(for: type) + "\n")
        return ExitStatus.usage.rawValue
    }

    /// Runs a parsed command and turns how it ended into the exit status, reporting an error once.
    private static func execute(json: Bool, console: Console, _ body: () async throws -> Void) async -> Int32 {
        do {
            try await body()
            if let failure = console.out.failure {
                // Output that did not arrive is a failure, whatever the command did.
                throw CLIError(.dataError, "Cannot write the output: \(failure).")
            }
            return 0
        } catch let problems as DoctorFoundProblems {
            if let failure = console.out.failure {
                console.report(CLIError(.dataError, "Cannot write the output: \(failure)."), json: json)
                return ExitStatus.dataError.rawValue
            }
            return problems.status
        } catch let quiet as QuietExit {
            if let failure = console.out.failure {
                console.report(CLIError(.dataError, "Cannot write the output: \(failure)."), json: json)
                return ExitStatus.dataError.rawValue
            }
            return quiet.status.rawValue
        } catch let terminated as TerminatedBySignal {
            // Cleanup is done; die of the signal as the sender meant.
            signal(terminated.signal, SIG_DFL)
            raise(terminated.signal)
            return 128 + terminated.signal
        } catch {
            let failure = CLIError.from(error)
            console.report(failure, json: json)
            return failure.status.rawValue
        }
    }

    /// `-n1` is `-n 1`, as `git log -n1` and `head -n1` take it (ArgumentParser would read it as
    /// short flags `-n` and `-1`). Only before `--`: after it every word is an operand.
    static func splittingAttachedCounts(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var operands = false
        for argument in arguments {
            if argument == "--" { operands = true }
            if !operands, argument.count > 2, argument.hasPrefix("-n"), argument.dropFirst(2).allSatisfy({ $0.isASCII && $0.isNumber }) {
                result += ["-n", String(argument.dropFirst(2))]
            } else {
                result.append(argument)
            }
        }
        return result
    }

    /// `--reader`, `--data-dir` and `--socket` are global: accept them before the subcommand too, by moving
    /// them after the command path (ahead of any `--`), where each subcommand declares them.
    static func hoistingGlobalOptions(_ arguments: [String]) -> [String] {
        var hoisted: [String] = []
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("--") {
            let name = first.split(separator: "=", maxSplits: 1).first.map(String.init) ?? first
            guard ["--reader", "--data-dir", "--socket"].contains(name) else { break }
            hoisted.append(rest.removeFirst())
            if !first.contains("="), let value = rest.first {
                hoisted.append(value)
                rest.removeFirst()
            }
        }
        guard !hoisted.isEmpty else { return arguments }
        var result = Array(rest)
        let insertAt = result.firstIndex(of: "--") ?? result.endIndex
        result.insert(contentsOf: hoisted, at: insertAt)
        return result
    }
}
