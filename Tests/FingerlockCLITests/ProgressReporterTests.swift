import FingerlockTestSupport
import Foundation
import Synchronization
import Testing

@testable import FingerlockCLI

/// The progress bar is for people at a terminal: never on a pipe, never with --json, never for
/// small work; at a terminal it redraws only when the percentage moves and wipes itself at the end.
@Suite(.timed) struct ProgressReporterTests {
    final class Recorder: FingerlockCLI.OutputStream {
        let isTerminal: Bool
        let written = Mutex("")
        init(terminal: Bool) { isTerminal = terminal }
        func write(_ text: String) { written.withLock { $0 += text } }
        func write(_ utf8: [UInt8]) { write(String(decoding: utf8, as: UTF8.self)) }
        var text: String { written.withLock { $0 } }
        var failure: String? { nil }
        var regularFileOffset: Int64? { nil }
        func truncate(to offset: Int64) {}
    }

    func console(terminal: Bool) -> (Console, Recorder) {
        let err = Recorder(terminal: terminal)
        return (Console(out: Recorder(terminal: false), err: err, environment: [:]), err)
    }

    @Test("nothing is drawn on a pipe, with --json, or below the threshold")
    func hidden() {
        for (terminal, json, total) in [(false, false, 10_000), (true, true, 10_000), (true, false, 10)] {
            let (console, err) = console(terminal: terminal)
            let bar = ProgressReporter("Importing", total: total, console: console, json: json)
            #expect(!bar.isVisible)
            for done in 0...total { bar.update(done) }
            bar.finish()
            #expect(err.text.isEmpty)
        }
    }

    @Test("at a terminal: one redraw per percent (0 to 100), the count shown, the line wiped at the end")
    func drawn() {
        let (console, err) = console(terminal: true)
        let bar = ProgressReporter("Importing", total: 5_000, console: console)
        #expect(bar.isVisible)
        for done in 1...5_000 { bar.update(done) }
        bar.finish()
        #expect(err.text.components(separatedBy: "\r").filter { $0.hasPrefix("Importing [") }.count == 101)
        #expect(err.text.contains("Importing [" + String(repeating: "#", count: 30) + "] 5000/5000"))
        #expect(err.text.hasSuffix("\r\u{1B}[2K"))
        #expect(!err.text.contains("\n"))
    }

    @Test("the line clamps what it is told")
    func line() {
        #expect(
            ProgressReporter.line("X", done: 50, total: 100) == "X [" + String(repeating: "#", count: 15) + String(repeating: "-", count: 15)
                + "] 50/100")
        #expect(ProgressReporter.line("X", done: 500, total: 100).hasSuffix("] 100/100"))
        #expect(ProgressReporter.line("X", done: -1, total: 0) == "X [" + String(repeating: "#", count: 30) + "] 0/0")
    }
}
