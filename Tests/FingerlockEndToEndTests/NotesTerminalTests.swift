import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Living with notes at a terminal: unlocking by touch, every way to the passcode, editing.
@Suite(.timed, .timeLimit(.minutes(3))) struct NotesTerminalTests {
    let runner: BinaryRunner
    let runtimeDirectory: String
    let passcode = BinaryRunner.passcode

    init() async throws {
        runtimeDirectory = "/dev/shm/fl-runtime-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "XDG_RUNTIME_DIR": runtimeDirectory, "TERM": "dumb"])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let added = try await runner.run(
            ["notes", "add", "--title", "groceries"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"], stdin: "milk\n")
        #expect(added.status == 0)
    }

    func session(_ arguments: [String], environment: [String: String] = [:]) throws -> PseudoTerminalSession {
        try PseudoTerminalSession(arguments: arguments, environment: runner.environment.merging(environment) { $1 })
    }

    @Test func aTouchUnlocks() async throws {
        let list = try session(["grep", "milk"])
        await list.expect("Enter for the passcode")
        list.send("right-thumb\n")
        #expect(await list.waitForExit() == 0)
        #expect(list.output.contains("groceries"))
        #expect(!list.output.contains("Passcode"))
    }

    @Test func threeNoMatchesThenThePasscodeWithoutEcho() async throws {
        let list = try session(["grep", "milk"])
        for attempt in 1...3 {
            await list.expect("Enter for the passcode", count: attempt)
            list.send("left-thumb\n")
        }
        await list.expect("No match after 3 tries.")
        await list.expect("Passcode (open your notes): ")
        list.send("\(passcode)\r")
        #expect(await list.waitForExit() == 0)
        #expect(list.output.contains("groceries"))
        #expect(!list.output.contains(passcode))
    }

    @Test func enterDuringTheScanGoesToThePasscode() async throws {
        let show = try session(["grep", "milk"])
        await show.expect("Enter for the passcode")
        show.send("\n")
        await show.expect("Passcode (open your notes): ")
        show.send("\(passcode)\r")
        #expect(await show.waitForExit() == 0)
        #expect(show.output.contains("groceries"))
        #expect(!show.output.contains(passcode))
    }

    @Test func ctrlCDuringTheScanGoesToThePasscode() async throws {
        let list = try session(["grep", "milk"])
        await list.expect("Enter for the passcode")
        list.send("\u{03}")
        await list.expect("Ctrl-C: the scan stopped; type the passcode, or press Ctrl-C again to quit.")
        await list.expect("Passcode (open your notes): ")
        list.send("\(passcode)\r")
        #expect(await list.waitForExit() == 0)
        #expect(list.output.contains("groceries"))
    }

    @Test func noReaderGoesToThePasscodeSayingWhy() async throws {
        let list = try session(["grep", "milk"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "absent"])
        await list.expect("The simulated reader is absent")
        await list.expect("Passcode (open your notes): ")
        list.send("\(passcode)\r")
        #expect(await list.waitForExit() == 0)
    }

    @Test func afterLockATouchIsNotEnough() async throws {
        #expect(try await runner.run(["lock"]).status == 0)
        let list = try session(["grep", "milk"])
        await list.expect("The passcode is needed first")
        await list.expect("Passcode (open your notes): ")
        list.send("\(passcode)\r")
        #expect(await list.waitForExit() == 0)
        // Unlocked again by the passcode: the next run takes a touch.
        let next = try session(["grep", "milk"])
        await next.expect("Enter for the passcode")
        next.send("right-thumb\n")
        #expect(await next.waitForExit() == 0)
    }

    @Test func lockoutSendsEveryoneToThePasscode() async throws {
        for _ in 0..<5 { _ = try await runner.run(["verify"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "unknown"]) }
        let list = try session(["grep", "milk"])
        await list.expect("Too many failed touches")
        await list.expect("Passcode (open your notes): ")
        list.send("\(passcode)\r")
        #expect(await list.waitForExit() == 0)
    }

    @Test func exportAsksFirst() async throws {
        let no = try session(["export"])
        await no.expect("UNENCRYPTED")
        no.send("n\n")
        #expect(await no.waitForExit() == 2)
        #expect(!no.output.contains("milk"))
        let yes = try session(["export"])
        await yes.expect("UNENCRYPTED")
        yes.send("y\n")
        await yes.expect("Enter for the passcode")
        yes.send("right-thumb\n")
        #expect(await yes.waitForExit() == 0)
        #expect(yes.output.contains("milk"))
    }

    @Test func editingInterruptedByCtrlCLeavesNoPlaintextAnywhere() async throws {
        let marker = "INTERRUPTED-\(UUID().uuidString)"
        // `exec`: a Ctrl-C that lands while a script shell forks `sleep` is taken by the shell,
        // which then waits for a child that never saw it; nothing is left to fork here.
        let script = runtimeDirectory + "-slow-editor.sh"
        try """
        #!/bin/sh
        printf '# groceries\\n\\n\(marker)\\n' > "$1"
        echo editing
        exec sleep 30
        """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o700)
        let ids = try await runner.run(["notes", "list", "--json"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"])
        let id = String(ids.stdout.split(separator: "\"").first { $0.count == 36 } ?? "")
        let edit = try session(["notes", "edit", id], environment: ["EDITOR": script, "FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"])
        await edit.expect("editing")
        edit.send("\u{03}")
        #expect(await edit.waitForExit() == 2)
        #expect(edit.output.contains("nothing was saved"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtimeDirectory).isEmpty)
        for directory in [runtimeDirectory, runner.dataDirectory] {
            for name in (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? [] {
                let data = FileManager.default.contents(atPath: directory + "/" + name) ?? Data()
                #expect(!String(decoding: data, as: UTF8.self).contains(marker), "plaintext in \(name)")
            }
        }
        let show = try await runner.run(["notes", "show", id], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"])
        #expect(show.stdout.contains("milk"))
    }
}
