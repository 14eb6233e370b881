import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Living with notes at a terminal: unlocking by touch, every way to the passcode, editing.
@Suite(.timeLimit(.minutes(3))) struct NotesTerminalTests {
    let runner: BinaryRunner
    let runtimeDirectory: String
    let passcode = BinaryRunner.passcode

    init() throws {
        runtimeDirectory = "/dev/shm/fl-runtime-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated", "XDG_RUNTIME_DIR": runtimeDirectory, "TERM": "dumb"])
        try runner.setPasscode()
        #expect(try runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let added = try runner.run(["notes", "add", "--title", "groceries"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"], stdin: "milk\n")
        #expect(added.status == 0)
    }

    func session(_ arguments: [String], environment: [String: String] = [:]) throws -> PseudoTerminalSession {
        try PseudoTerminalSession(arguments: arguments, environment: runner.environment.merging(environment) { $1 })
    }

    @Test func aTouchUnlocks() throws {
        let list = try session(["notes", "list"])
        list.expect("Enter for the passcode")
        list.send("right-thumb\n")
        #expect(list.waitForExit() == 0)
        #expect(list.output.contains("groceries"))
        #expect(!list.output.contains("Passcode"))
    }

    @Test func threeNoMatchesThenThePasscodeWithoutEcho() throws {
        let list = try session(["notes", "list"])
        for attempt in 1...3 {
            list.expect("Enter for the passcode", count: attempt)
            list.send("left-thumb\n")
        }
        list.expect("No match after 3 tries.")
        list.expect("Passcode (open your notes): ")
        list.send("\(passcode)\r")
        #expect(list.waitForExit() == 0)
        #expect(list.output.contains("groceries"))
        #expect(!list.output.contains(passcode))
    }

    @Test func enterDuringTheScanGoesToThePasscode() throws {
        let show = try session(["notes", "list"])
        show.expect("Enter for the passcode")
        show.send("\n")
        show.expect("Passcode (open your notes): ")
        show.send("\(passcode)\r")
        #expect(show.waitForExit() == 0)
        #expect(show.output.contains("groceries"))
        #expect(!show.output.contains(passcode))
    }

    @Test func ctrlCDuringTheScanGoesToThePasscode() throws {
        let list = try session(["notes", "list"])
        list.expect("Enter for the passcode")
        list.send("\u{03}")
        list.expect("Passcode (open your notes): ")
        list.send("\(passcode)\r")
        #expect(list.waitForExit() == 0)
        #expect(list.output.contains("groceries"))
    }

    @Test func noReaderGoesToThePasscodeSayingWhy() throws {
        let list = try session(["notes", "list"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "absent"])
        list.expect("The simulated reader is absent")
        list.expect("Passcode (open your notes): ")
        list.send("\(passcode)\r")
        #expect(list.waitForExit() == 0)
    }

    @Test func afterLockATouchIsNotEnough() throws {
        #expect(try runner.run(["lock"]).status == 0)
        let list = try session(["notes", "list"])
        list.expect("The passcode is needed first")
        list.expect("Passcode (open your notes): ")
        list.send("\(passcode)\r")
        #expect(list.waitForExit() == 0)
        // Unlocked again by the passcode: the next run takes a touch.
        let next = try session(["notes", "list"])
        next.expect("Enter for the passcode")
        next.send("right-thumb\n")
        #expect(next.waitForExit() == 0)
    }

    @Test func lockoutSendsEveryoneToThePasscode() throws {
        for _ in 0..<5 { _ = try runner.run(["verify"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "unknown"]) }
        let list = try session(["notes", "list"])
        list.expect("Too many failed touches")
        list.expect("Passcode (open your notes): ")
        list.send("\(passcode)\r")
        #expect(list.waitForExit() == 0)
    }

    @Test func exportAsksFirst() throws {
        let no = try session(["export"])
        no.expect("UNENCRYPTED")
        no.send("n\n")
        #expect(no.waitForExit() == 2)
        #expect(!no.output.contains("milk"))
        let yes = try session(["export"])
        yes.expect("UNENCRYPTED")
        yes.send("y\n")
        yes.expect("Enter for the passcode")
        yes.send("right-thumb\n")
        #expect(yes.waitForExit() == 0)
        #expect(yes.output.contains("milk"))
    }

    @Test func editingInterruptedByCtrlCLeavesNoPlaintextAnywhere() throws {
        let marker = "INTERRUPTED-\(UUID().uuidString)"
        let script = runtimeDirectory + "-slow-editor.sh"
        try """
            #!/bin/sh
            printf '# groceries\\n\\n\(marker)\\n' > "$1"
            echo editing
            sleep 30
            """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o700)
        let ids = try runner.run(["notes", "list", "--json"], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"])
        let id = String(ids.stdout.split(separator: "\"").first { $0.count == 36 } ?? "")
        let edit = try session(["notes", "edit", id], environment: ["EDITOR": script, "FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"])
        edit.expect("editing")
        edit.send("\u{03}")
        #expect(edit.waitForExit() == 2)
        #expect(edit.output.contains("nothing was saved"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtimeDirectory).isEmpty)
        for directory in [runtimeDirectory, runner.dataDirectory] {
            for name in (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? [] {
                let data = FileManager.default.contents(atPath: directory + "/" + name) ?? Data()
                #expect(!String(decoding: data, as: UTF8.self).contains(marker), "plaintext in \(name)")
            }
        }
        let show = try runner.run(["notes", "show", id], environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"])
        #expect(show.stdout.contains("milk"))
    }
}
