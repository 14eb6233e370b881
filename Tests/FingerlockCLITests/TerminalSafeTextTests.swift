import FingerlockTestSupport
import Testing

@testable import FingerlockCLI

@Suite(.timed) struct TerminalSafeTextTests {
    @Test func controlsInALineBecomeVisibleEscapes() {
        #expect(TerminalSafeText.line("plain title, ünïcode ✓") == "plain title, ünïcode ✓")
        #expect(TerminalSafeText.line("a\u{1B}[2Jb") == "a\\u{1B}[2Jb")
        #expect(TerminalSafeText.line("one\ntwo\r\tthree") == "one\\ntwo\\r\\tthree")
        #expect(TerminalSafeText.line("\u{0}\u{7F}\u{9B}31m") == "\\u{0}\\u{7F}\\u{9B}31m")
        #expect(TerminalSafeText.line("abc\u{202E}fed") == "abc\\u{202E}fed")
        #expect(TerminalSafeText.line("x\u{2028}y") == "x\\u{2028}y")
    }

    @Test func aBodyKeepsItsLinesAndTabsOnly() {
        #expect(TerminalSafeText.body("line\n\tindented\n") == "line\n\tindented\n")
        #expect(TerminalSafeText.body("a\u{1B}]52;c;ZXZpbA==\u{7}b\r\n") == "a\\u{1B}]52;c;ZXZpbA==\\u{7}b\\r\n")
        #expect(TerminalSafeText.body("עברית \u{202B}x") == "עברית \u{202B}x")
    }
}

/// Titles and tags with escape sequences and newlines, through the built binary: people see them
/// escaped, scripts (`--json`) get them exact.
