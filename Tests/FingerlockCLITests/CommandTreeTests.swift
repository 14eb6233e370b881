import ArgumentParser
import FingerlockTestSupport
import Testing

@testable import FingerlockCLI

/// The shape of the command tree, read from ArgumentParser's configuration in process (each
/// command's help through the binary: `CommandTreeHelpTests`).
@Suite(.timed) struct CommandTreeTests {
    @Test("every leaf command runs as a FingerlockCommand (never falls back to printing help)")
    func leavesAreFingerlockCommands() {
        func check(_ command: any ParsableCommand.Type, _ words: [String]) {
            let name = command.configuration.commandName ?? ""
            // ArgumentParser's `help` is recognised by this name: none of ours may take it.
            #expect(name != "help", "\(words) is named help")
            if command.configuration.subcommands.isEmpty {
                #expect(command is any FingerlockCommand.Type, "`fingerlock \(words.joined(separator: " "))` cannot run")
            }
            for sub in command.configuration.subcommands { check(sub, words + [sub.configuration.commandName ?? ""]) }
        }
        check(Fingerlock.self, [])
    }
}
