import Foundation

/// Where `notes search` takes its text from: the command line, or stdin with `--query-stdin`, so a
/// secret searched for never shows up in `ps`, `/proc/PID/cmdline` or shell history.
enum SearchQuery {
    /// What is wrong with this combination of sources, or nil.
    static func problem(positional: Bool, fromStdin: Bool, passcodeOnStdin: Bool) -> String? {
        switch (positional, fromStdin) {
        case (true, true): "Give the text either on the command line or with --query-stdin, not both."
        case (false, false): "Give the text to look for, or --query-stdin to read it from stdin."
        case (false, true) where passcodeOnStdin:
            "The passcode cannot share stdin with the query: use --passcode-fd N with another descriptor."
        default: nil
        }
    }

    /// One line from stdin, its line ending (LF or CRLF) removed.
    static func read(from input: any InputSource) throws -> String {
        guard !input.isTerminal else {
            throw CLIError(
                .usage, "--query-stdin reads the text from a pipe or a file, and stdin is a terminal: type the text as an argument instead.")
        }
        guard let text = String(data: try input.readAll(), encoding: .utf8) else {
            throw CLIError(.usage, "The query on stdin is not UTF-8 text.")
        }
        var line = Substring(text)
        // "\r\n" is one Character in Swift.
        if line.last == "\n" || line.last == "\r\n" { line.removeLast() }
        guard !line.contains(where: \.isNewline) else {
            throw CLIError(.usage, "--query-stdin reads one line; stdin holds several.")
        }
        guard !line.isEmpty else { throw CLIError(.usage, "The query on stdin is empty.") }
        return String(line)
    }
}
