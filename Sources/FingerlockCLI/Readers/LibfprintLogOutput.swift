public import Fingerprint

/// Where the CLI puts libfprint's and GLib's log: nowhere unless asked for with `G_MESSAGES_DEBUG`
/// (GLib's own switch), then one safe line each on stderr. Never raw on the terminal: a
/// `GLib-CRITICAL` from a scan cancelled with Ctrl-C used to land in the middle of the prompt.
public enum LibfprintLogOutput {
    public static func sink(environment: [String: String], err: any OutputStream) -> @Sendable (LibfprintLogLine) -> Void {
        guard environment["G_MESSAGES_DEBUG"] != nil else { return { _ in } }
        return { line in
            err.write(
                "fingerlock: libfprint \(line.level.rawValue) (\(TerminalSafeText.line(line.domain))): \(TerminalSafeText.line(line.message))\n")
        }
    }
}
