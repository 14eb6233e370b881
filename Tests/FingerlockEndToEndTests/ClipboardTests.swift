import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `notes show ID --clip` (the first line, as `pass -c`) and `--clip-all` (the body) with a real X
/// server and xclip: copied, never printed, and cleared after
/// the sealed clip-clear delay by a detached clearer, unless the clipboard changed meanwhile.
@Suite(.timed, .timeLimit(.minutes(3))) struct ClipboardTests {
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]
    let body = "first line\nsecret two\n"

    /// A vault with one note, unlocked by a touch, clip-clear set to `clear`; returns the note id.
    func vault(clear: String = "3s") async throws -> (BinaryRunner, String) {
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let set = try await runner.run(["config", "set", "clip-clear", clear, "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(set.status == 0, "\(set.stderr)")
        let added = try await runner.run(["notes", "add", "--title", "wifi"], environment: touch, stdin: body)
        #expect(added.status == 0, "\(added.stderr)")
        return (runner, String(added.stdout.split(separator: " ")[1].dropLast()))
    }

    /// Waits until the clipboard no longer holds `text` (or `limit` passes); returns what it holds.
    func clipboard(of x: XvfbServer, changingFrom text: String, within limit: Duration) async throws -> String? {
        let deadline = ContinuousClock.now.advanced(by: limit)
        var current = try x.clipboard()
        while current == text, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            current = try x.clipboard()
        }
        return current
    }

    /// The command lines and environments of the running clearers (`sh … fingerlock-clip-clear`).
    /// A clearer's shell forks to run `sleep` and its pipeline, and between fork and exec the child
    /// shows the same command line: a process whose parent is a clearer is that clearer's child, not
    /// another clearer.
    func clearers() -> [(arguments: String, environment: String)] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { Int($0) != nil } ?? []
        let found = pids.compactMap { pid -> (pid: String, parent: String, arguments: String, environment: String)? in
            guard let arguments = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                String(decoding: arguments, as: UTF8.self).contains("fingerlock-clip-clear")
            else { return nil }
            let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()
            // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after the last ')'.
            let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat").map { String(decoding: $0, as: UTF8.self) } ?? ""
            let afterName = stat.split(separator: ")").last?.split(separator: " ") ?? []
            let parent = afterName.count > 1 ? String(afterName[1]) : ""
            return (pid, parent, String(decoding: arguments, as: UTF8.self), String(decoding: environment, as: UTF8.self))
        }
        let clearerPIDs = Set(found.map(\.pid))
        return found.filter { !clearerPIDs.contains($0.parent) }.map { ($0.arguments, $0.environment) }
    }

    @Test func theBodyIsCopiedNotPrintedAndClearedAfterTheDelay() async throws {
        let x = try await XvfbServer()
        let (runner, id) = try await vault()
        let started = ContinuousClock.now
        let show = try await runner.run(["notes", "show", id, "--clip-all"], environment: touch.merging(["DISPLAY": x.display]) { $1 })
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout == "The body of \"wifi\" is on the clipboard; it is cleared in 3s.\n")
        #expect(!show.stdout.contains("secret") && !show.stderr.contains("secret"))
        // The body without its final newline, as a paste wants it.
        #expect(try x.clipboard() == "first line\nsecret two")

        // The clearer outlives the command, and holds the text neither in argv nor environment.
        let running = clearers().filter { $0.environment.contains("DISPLAY=\(x.display)\0") }
        #expect(running.count == 1)
        for clearer in running {
            #expect(!clearer.arguments.contains("secret") && !clearer.environment.contains("secret"))
            #expect(!clearer.environment.contains("FINGERLOCK"))
        }

        let after = try await clipboard(of: x, changingFrom: "first line\nsecret two", within: .seconds(20))
        #expect(after == "")
        #expect(ContinuousClock.now - started >= .seconds(3))
    }

    /// pass's everyday forms: `show NAME -c`, and the codes `otp -c` and `generate -c` copy.
    @Test func theShortFormsCopyAsPassDoes() async throws {
        let x = try await XvfbServer()
        let (runner, _) = try await vault()
        let display = touch.merging(["DISPLAY": x.display]) { $1 }
        let shown = try await runner.run(["show", "wifi", "-c"], environment: display)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.hasPrefix("Line 1 of \"wifi\" is on the clipboard"))
        #expect(try x.clipboard() == "first line")

        let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
        let added = try await runner.run(
            ["notes", "add", "--title", "bank"], environment: touch, stdin: "pin\notpauth://hotp/Bank?secret=\(secret)&counter=0\n")
        #expect(added.status == 0, "\(added.stderr)")
        let code = try await runner.run(["otp", "bank", "-c"], environment: display)
        #expect(code.status == 0, "\(code.stderr)")
        #expect(code.stdout.hasPrefix("The code of \"bank\" is on the clipboard"), "\(code.stdout)")
        // RFC 4226's first code; neither it nor the secret is printed.
        #expect(try x.clipboard() == "755224")
        #expect(!(code.stdout + code.stderr).contains("755224") && !(code.stdout + code.stderr).contains(secret))

        let generated = try await runner.run(["generate", "mail", "-c"], environment: display)
        #expect(generated.status == 0, "\(generated.stderr)")
        let password = try #require(try x.clipboard())
        #expect(password.count == 25)
        #expect(!generated.stdout.contains(password) && !generated.stderr.contains(password))
        #expect(try await runner.run(["show", "mail", "--body"], environment: touch).stdout == password + "\n")
    }

    @Test func oneLineIsCopiedAndAClipboardChangedMeanwhileIsLeftAlone() async throws {
        let x = try await XvfbServer()
        let (runner, id) = try await vault()
        let display = touch.merging(["DISPLAY": x.display]) { $1 }
        // --clip alone is pass -c: the first line.
        let first = try await runner.run(["notes", "show", id, "--clip"], environment: display)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("Line 1 of \"wifi\" is on the clipboard"))
        #expect(try x.clipboard() == "first line")
        let show = try await runner.run(["notes", "show", id, "--clip", "--line", "2"], environment: display)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.hasPrefix("Line 2 of \"wifi\" is on the clipboard"))
        #expect(try x.clipboard() == "secret two")
        try x.copy("something of mine")
        // Longer than the delay: the clearer has run and seen another text there.
        try await Task.sleep(for: .seconds(5))
        #expect(try x.clipboard() == "something of mine")
        #expect(clearers().filter { $0.environment.contains("DISPLAY=\(x.display)\0") }.isEmpty)
    }

    @Test func wrongUsesAreRefusedBeforeAnyTouch() async throws {
        let x = try await XvfbServer()
        let (runner, id) = try await vault(clear: "45s")
        // No touch scripted: each is refused before the reader or passcode is needed.
        #expect(try await runner.run(["notes", "show", id, "--clip", "--clip-all"]).status == 64)
        #expect(try await runner.run(["notes", "show", id, "--clip-all", "--line", "1"]).status == 64)
        #expect(try await runner.run(["notes", "show", id, "--clip", "--line", "0"]).status == 64)
        let noDisplay = try await runner.run(["notes", "show", id, "--clip"])
        #expect(noDisplay.status == 6)
        #expect(
            noDisplay.stderr
                == "fingerlock: No clipboard: neither WAYLAND_DISPLAY nor DISPLAY is set (over ssh or in a console, --osc52 copies through the terminal).\n"
        )
        let noTool = try await runner.run(["notes", "show", id, "--clip"], environment: ["DISPLAY": x.display, "PATH": "/nonexistent"])
        #expect(noTool.status == 6)
        #expect(noTool.stderr.contains("install xclip or xsel"))
        // A line the body does not have: after the unlock, nothing copied.
        let display = touch.merging(["DISPLAY": x.display]) { $1 }
        let beyond = try await runner.run(["notes", "show", id, "--clip", "--line", "3"], environment: display)
        #expect(beyond.status == 64)
        #expect(beyond.stderr.contains("the body has 2 lines"))
        #expect(try x.clipboard() == nil)
    }

    @Test func clipClearIsASealedSettingWithARange() async throws {
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        try await runner.setPasscode()
        #expect(try await runner.run(["config", "get", "clip-clear"]).stdout == "45s\n")
        for refused in ["1s", "11m", "45"] {
            let set = try await runner.run(["config", "set", "clip-clear", refused, "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
            #expect(set.status == 64, "\(refused)")
        }
        #expect(try await runner.run(["config", "set", "clip-clear", "2s"]).status == 8)
        let set = try await runner.run(["config", "set", "clip-clear", "10m", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(set.status == 0)
        #expect(try await runner.run(["config", "get", "clip-clear"]).stdout == "10m\n")
    }
}
