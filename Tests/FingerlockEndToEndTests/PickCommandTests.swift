import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing
import Vault

@testable import FingerlockCLI

/// `fingerlock pick`: one touch, `ID<TAB>TITLE` lines to a picker, the chosen note's first line to
/// the clipboard (or printed). The picker is a fake `rofi` on PATH that keeps what it was given and
/// answers with a line chosen by the test.
@Suite(.timed, .timeLimit(.minutes(3))) struct PickCommandTests {
    /// One touch per run: a second one would find the script used up and time out.
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]

    struct Fixture {
        let runner: BinaryRunner
        let ids: [String: String]
        /// Holds the fake `rofi` (and a `fingerlock` link for the contrib script).
        let bin: String
        var seen: String { bin + "/seen" }

        /// PATH with the fake picker first; `answer` is a shell command run on the picker's input.
        func environment(answer: String, extra: [String: String] = [:]) throws -> [String: String] {
            let script = "#!/bin/sh\ncat > \"$(dirname \"$0\")/seen\"\n\(answer)\n"
            _ = FileManager.default.createFile(atPath: bin + "/rofi", contents: Data(script.utf8), attributes: [.posixPermissions: 0o755])
            return ["PATH": "\(bin):/usr/bin:/bin", "FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"].merging(extra) { $1 }
        }
    }

    func fixture() async throws -> Fixture {
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        var ids: [String: String] = [:]
        for (title, body) in [("bank", "1234\nuser: me\n"), ("mail", "hunter2\nuser: you\n"), ("wifi", "open sesame\n")] {
            let added = try await runner.run(["notes", "add", "--title", title], environment: touch, stdin: body)
            try #require(added.status == 0, "\(added.stderr)")
            ids[title] = String(added.stdout.split(separator: " ")[1].dropLast())
        }
        let bin = runner.home + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/fingerlock", withDestinationPath: BinaryRunner.binaryPath)
        return Fixture(runner: runner, ids: ids, bin: bin)
    }

    @Test func theSecondLineIsPickedAndItsFirstLineCopiedWithOneTouch() async throws {
        let x = try await XvfbServer()
        let fixture = try await fixture()
        let environment = try fixture.environment(answer: "sed -n 2p \"$(dirname \"$0\")/seen\"", extra: ["DISPLAY": x.display])
        let picked = try await fixture.runner.run(["pick"], environment: environment)
        #expect(picked.status == 0, "\(picked.stderr)")
        #expect(picked.stdout.hasPrefix("Line 1 of \"mail\" is on the clipboard; it is cleared in 45s."))
        #expect(!picked.stdout.contains("hunter2"))
        #expect(try x.clipboard() == "hunter2")
        // Newest first, id and title with a tab between.
        let seen = try String(contentsOfFile: fixture.seen, encoding: .utf8)
        let expected = ["wifi", "mail", "bank"].map { "\(fixture.ids[$0] ?? "?")\t\($0)\n" }.joined()
        #expect(seen == expected)
    }

    @Test func printAllAndLineNPrintTheChosenNote() async throws {
        let fixture = try await fixture()
        let environment = try fixture.environment(answer: "sed -n 3p \"$(dirname \"$0\")/seen\"")
        for (arguments, expected) in [
            (["--print"], "1234\n"), (["--print", "--all"], "1234\nuser: me\n"), (["--print", "--line", "2"], "user: me\n"),
        ] {
            let picked = try await fixture.runner.run(["pick"] + arguments, environment: environment)
            #expect(picked.status == 0, "\(arguments): \(picked.stderr)")
            #expect(picked.stdout == expected, "\(arguments)")
        }
        let beyond = try await fixture.runner.run(["pick", "--print", "--line", "3"], environment: environment)
        #expect(beyond.status == 64)
        #expect(beyond.stderr == "fingerlock: --line 3: the body has 2 lines; nothing was printed.\n")
    }

    @Test func aLineWithoutATabIsANamePickedByTitle() async throws {
        let fixture = try await fixture()
        let environment = try fixture.environment(answer: "echo WIF")
        let picked = try await fixture.runner.run(["pick", "--print"], environment: environment)
        #expect(picked.status == 0, "\(picked.stderr)")
        #expect(picked.stdout == "open sesame\n")
    }

    @Test func givenPickerOverridesTheFakeOne() async throws {
        let fixture = try await fixture()
        let environment = try fixture.environment(answer: "exit 7")
        let picked = try await fixture.runner.run(["pick", "--print", "--picker", "head -n 1"], environment: environment)
        #expect(picked.status == 0, "\(picked.stderr)")
        #expect(picked.stdout == "open sesame\n")
    }

    @Test func leavingThePickerCancelsAndAFailingPickerIsAnError() async throws {
        let fixture = try await fixture()
        for (answer, status, message) in [
            ("exit 130", Int32(2), "fingerlock: Nothing was picked.\n"), ("exit 1", 2, "fingerlock: Nothing was picked.\n"),
            ("exit 0", 2, "fingerlock: Nothing was picked.\n"),
            ("exit 3", 6, "fingerlock: The picker (rofi -dmenu -i -p note) failed with exit status 3.\n"),
            ("printf 'ffffffff\\tforged\\n'", 5, "fingerlock: The picker chose \"ffffffff\", which is not a note it was given.\n"),
        ] {
            let picked = try await fixture.runner.run(["pick", "--print"], environment: try fixture.environment(answer: answer))
            #expect(picked.status == status, "\(answer): \(picked.stderr)")
            #expect(picked.stdout.isEmpty)
            #expect(picked.stderr == message, "\(answer)")
        }
    }

    @Test func withoutPickerOrClipboardNothingIsAskedFor() async throws {
        let fixture = try await fixture()
        // No touch scripted: reaching the reader would time out, not exit 6 or 64.
        let noPicker = try await fixture.runner.run(["pick", "--print"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(noPicker.status == 6)
        #expect(noPicker.stderr == "fingerlock: No picker: install fzf, rofi or dmenu, or name one with --picker CMD.\n")
        // fzf alone, and no terminal (this runner has none): said as such.
        let bin = fixture.runner.home + "/fzf-only"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: bin + "/fzf", contents: Data("#!/bin/sh\nexit 2\n".utf8), attributes: [.posixPermissions: 0o755])
        let fzfOnly = try await fixture.runner.run(["pick", "--print"], environment: ["PATH": "\(bin):/usr/bin:/bin"])
        #expect(fzfOnly.status == 6)
        #expect(fzfOnly.stderr.contains("fzf needs a terminal, and there is none here"), "\(fzfOnly.stderr)")
        let noClipboard = try await fixture.runner.run(["pick", "--picker", "head -n 1"])
        #expect(noClipboard.status == 6)
        #expect(noClipboard.stderr.contains("No clipboard"))
        for arguments in [["--clip", "--print"], ["--all", "--line", "2"], ["--line", "0"], ["--picker", " "]] {
            #expect(try await fixture.runner.run(["pick"] + arguments).status == 64, "\(arguments)")
        }
    }

    @Test func theContribScriptRunsPickThroughThePickerItFinds() async throws {
        let fixture = try await fixture()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("contrib/fingerlock-pick").path
        let environment = try fixture.environment(answer: "sed -n 2p \"$(dirname \"$0\")/seen\"")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", "/bin/sh", script, "--print"]
        process.environment = fixture.runner.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: printed, as: UTF8.self) == "hunter2\n")
    }

    @Test func theMenuGivesWholeIdsWhenShortOnesCollide() throws {
        let date = Date(timeIntervalSince1970: 0)
        let a = try #require(UUID(uuidString: "3f2a1b2c-0000-0000-0000-000000000001"))
        let b = try #require(UUID(uuidString: "3f2a1b2c-9000-0000-0000-000000000002"))
        let menu = PickMenu([
            .init(id: a, title: "one\ttab", tags: [], created: date, modified: date),
            .init(id: b, title: "", tags: [], created: date, modified: date),
        ])
        let text = String(decoding: menu.text, as: UTF8.self)
        #expect(text.split(separator: "\n").count == 2)
        #expect(text.hasPrefix("3f2a1b2c-0000-0000-0000-000000000001\tone"))
        #expect(text.hasSuffix("3f2a1b2c-9000-0000-0000-000000000002\t(untitled)\n"))
        #expect(try menu.id(for: "3f2a1b2c-9000-0000-0000-000000000002\t(untitled)") == b)
        #expect(try menu.id(for: "no tab here") == nil)
    }
}
