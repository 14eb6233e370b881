import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// `--osc52` (and `FINGERLOCK_CLIPBOARD=osc52`): the copy goes through the terminal's own clipboard
/// as the OSC 52 sequence, over ssh or in a console where no clipboard tool can run; the terminal is
/// a real pseudo-terminal here, and tmux a real tmux with a client attached to it.
@Suite(.timed, .timeLimit(.minutes(3))) struct TerminalClipboardTests {
    let touch = ["FINGERLOCK_SIMULATED_TOUCHES": "right-thumb"]
    /// What the terminal receives: `hunter2` in base64, then the empty sequence that clears.
    let copied = "\u{1B}]52;c;aHVudGVyMg==\u{07}"
    let cleared = "\u{1B}]52;c;\u{07}"

    /// A vault with a note whose first line is `hunter2` and an HOTP line, clip-clear at 2 s.
    func vault() async throws -> BinaryRunner {
        let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])
        try await runner.setPasscode()
        #expect(try await runner.enroll("right-thumb", touches: "right-thumb*5").status == 0)
        let set = try await runner.run(["config", "set", "clip-clear", "2s", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n")
        #expect(set.status == 0, "\(set.stderr)")
        let body = "hunter2\notpauth://hotp/Bank?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=0\n"
        let added = try await runner.run(["notes", "add", "--title", "web/github"], environment: touch, stdin: body)
        #expect(added.status == 0, "\(added.stderr)")
        return runner
    }

    /// A shell at a new pseudo-terminal running `script`, with the binary on PATH.
    func terminal(_ runner: BinaryRunner, _ script: String, environment: [String: String] = [:]) throws -> PseudoTerminalSession {
        let binDirectory = (BinaryRunner.binaryPath as NSString).deletingLastPathComponent
        let base = runner.environment.merging(touch) { $1 }.merging(["TERM": "xterm-256color", "PATH": "\(binDirectory):/usr/bin:/bin"]) { $1 }
        return try PseudoTerminalSession(program: "/bin/bash", arguments: ["--norc", "-c", script], environment: base.merging(environment) { $1 })
    }

    @Test func theLineReachesTheTerminalAndIsClearedAfterClipClear() async throws {
        let runner = try await vault()
        let session = try terminal(runner, "fingerlock show github -c --osc52; echo \"status $?\"; sleep 6")
        await session.expect("is on the terminal's clipboard; it is cleared in 2s.")
        let shown = ContinuousClock.now
        #expect(session.output.contains(copied), "\(session.output.debugDescription)")
        #expect(!session.output.contains("hunter2"))
        await session.expect("status 0")
        await session.expect(cleared, timeout: .seconds(10))
        #expect(ContinuousClock.now - shown >= .milliseconds(1500))
        _ = await session.waitForExit()
    }

    /// A code copied after a password postpones the clearing: the password's clearer is ended,
    /// and the clipboard empties once, the delay after the last copy.
    @Test func aLaterCopyPostponesTheClearing() async throws {
        let runner = try await vault()
        let session = try terminal(
            runner, "fingerlock show github -c; sleep 1; fingerlock otp github -c; echo copied-twice; sleep 5",
            environment: ["FINGERLOCK_CLIPBOARD": "osc52"])
        await session.expect("copied-twice")
        let second = ContinuousClock.now
        // RFC 4226's first code, "755224", in base64.
        #expect(session.output.contains("\u{1B}]52;c;NzU1MjI0\u{07}"), "\(session.output.debugDescription)")
        #expect(session.output.contains("The code of \"web/github\" is on the terminal's clipboard"))
        #expect(await session.waitForExit() == 0)
        #expect(ContinuousClock.now - second >= .seconds(4))
        #expect(session.output.components(separatedBy: cleared).count - 1 == 1, "\(session.output.debugDescription)")
    }

    /// Inside tmux (its default set-clipboard, external) the sequence goes to the terminal tmux is
    /// shown in, and no tmux paste buffer keeps the password.
    @Test func insideTmuxTheCopyReachesTheOuterTerminal() async throws {
        let runner = try await vault()
        // tmux's socket in the test's own home, removed with it.
        let sockets = runner.home
        let tmux = "tmux -L fingerlock-osc52 -f /dev/null"
        let session = try terminal(
            runner,
            "\(tmux) new-session -x 100 -y 12 'fingerlock show github -c --osc52; \(tmux) show-buffer; echo \"buffers $?\"; sleep 4'",
            environment: ["TMUX_TMPDIR": sockets])
        defer { _ = try? Process.run(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "TMUX_TMPDIR=\(sockets) \(tmux) kill-server"]) }
        await session.expect(copied)
        await session.expect("buffers 1")
        await session.expect(cleared, timeout: .seconds(10))
        #expect(session.output.contains("no buffers"))
    }

    @Test func whereTheSequenceWouldGoNowhereItSaysSoBeforeTheTouch() async throws {
        let runner = try await vault()
        let console = try terminal(runner, "fingerlock show github -c --osc52; echo \"status $?\"", environment: ["TERM": "linux"])
        await console.expect("The Linux console has no clipboard that programs can set (OSC 52)")
        await console.expect("status 6")
        let screen = try terminal(runner, "fingerlock show github -c --osc52; echo \"status $?\"", environment: ["STY": "1234.pts-0.host"])
        await screen.expect("GNU screen does not pass the terminal's clipboard (OSC 52) on")
        await screen.expect("status 6")
        let detached = try terminal(
            runner, "fingerlock show github -c --osc52; echo \"status $?\"", environment: ["TMUX": "/nonexistent/tmux-socket,1,0"])
        await detached.expect("tmux did not name the terminal it is shown in")
        for session in [console, screen, detached] {
            #expect(!session.output.contains("Touch"), "\(session.output.debugDescription)")
            #expect(!session.output.contains("\u{1B}]52"))
        }

        // No terminal at all (a script, cron).
        let script = try await runner.run(["show", "github", "-c", "--osc52"], environment: touch)
        #expect(script.status == 6)
        #expect(script.stderr == "fingerlock: --osc52 copies through the terminal, and there is none here.\n")
    }
}

/// The OSC 52 route's refusals that need no terminal, in process.
@Suite(.timed, .timeLimit(.minutes(1))) struct ClipboardChoiceTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    @Test func osc52WithoutACopyAndAnUnknownRouteAreUsageErrors() async throws {
        for arguments in [["show", "x", "--osc52"], ["otp", "x", "--osc52"], ["generate", "x", "--osc52"], ["pick", "--print", "--osc52"]] {
            let result = try await runner.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--osc52"), "\(arguments): \(result.stderr)")
        }
        let unknown = try await runner.run(["show", "x", "-c"], environment: ["FINGERLOCK_CLIPBOARD": "tmux"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr == "fingerlock: FINGERLOCK_CLIPBOARD=tmux: it is osc52 or auto.\n")
    }
}
