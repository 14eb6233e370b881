import Auth
import Fingerprint
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Passcodes from a script: one per line from stdin or a numbered descriptor, never from argv or
/// the environment. The reader is skipped for unlocking; notices go to stderr.
final class ScriptedPasscodeInteraction: AuthInteraction {
    private let fd: Int32
    private let console: Console
    /// With `--json`, stderr carries only the JSON error object.
    private let quiet: Bool
    private let lock = Mutex(())

    init(fd: Int32, console: Console, quiet: Bool) {
        self.fd = fd
        self.console = console
        self.quiet = quiet
    }

    var canAskPasscode: Bool { true }
    var passcodeFromScript: Bool { true }

    func notify(_ message: String) { if !quiet { console.err.write(message + "\n") } }

    func scan<Scanned: Sendable>(
        prompt: String, _ operation: @escaping @Sendable () async throws -> Scanned
    ) async throws -> ScanOutcome<Scanned> {
        .scanned(try await operation())
    }

    /// Reads one line byte by byte, so nothing after it is consumed (the rest of stdin, or later
    /// lines, stay for whoever reads next). A trailing LF or CRLF is removed.
    func askSecret(prompt: String, typedAhead: String) async throws -> String {
        try lock.withLock { _ in
            // A passcode typed into a terminal given as the source must not echo.
            var saved = termios()
            let isTerminal = isatty(fd) == 1 && tcgetattr(fd, &saved) == 0
            if isTerminal {
                var quiet = saved
                quiet.c_lflag &= ~tcflag_t(ECHO)
                tcsetattr(fd, TCSANOW, &quiet)
            }
            defer { if isTerminal { tcsetattr(fd, TCSANOW, &saved) } }
            var bytes: [UInt8] = []
            while true {
                var byte: UInt8 = 0
                let count = read(fd, &byte, 1)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw AuthError(.passcodeRequired, "Could not read the passcode from descriptor \(fd): \(String(cString: strerror(errno))).")
                }
                if count == 0 {
                    guard !bytes.isEmpty else {
                        throw AuthError(.passcodeRequired, "The passcode source ended before the \(Self.describe(prompt)) was given.")
                    }
                    break
                }
                if byte == UInt8(ascii: "\n") { break }
                bytes.append(byte)
            }
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw AuthError(.invalidInput, "The passcode given is not valid UTF-8.")
            }
            return text
        }
    }

    /// On stdout, delivered: a key that did not arrive stops the change it belongs to.
    func presentRecoveryKey(_ text: String) async throws {
        try console.out.deliverOnce(RecoveryKeyText.line(text))
    }

    private static func describe(_ prompt: String) -> String {
        let trimmed = prompt.split(separator: "(").first.map(String.init) ?? prompt
        return trimmed.trimmingCharacters(in: [" ", ":"]).lowercased()
    }
}

/// No terminal and no passcode source: the reader alone; where the passcode is needed → exit 8.
final class NonInteractive: AuthInteraction {
    private let console: Console
    /// With `--json`, stderr carries only the JSON error object.
    private let quiet: Bool
    init(console: Console, quiet: Bool) {
        self.console = console
        self.quiet = quiet
    }

    var canAskPasscode: Bool { false }
    var passcodeFromScript: Bool { false }
    func notify(_ message: String) { if !quiet { console.err.write(message + "\n") } }
    func scan<Scanned: Sendable>(
        prompt: String, _ operation: @escaping @Sendable () async throws -> Scanned
    ) async throws -> ScanOutcome<Scanned> {
        .scanned(try await operation())
    }
    func askSecret(prompt: String, typedAhead: String) async throws -> String {
        throw AuthError(.passcodeRequired, "The passcode is required. There is no terminal to ask for it: use --passcode-stdin or --passcode-fd N.")
    }
    /// Printed once on stdout (no confirmation is possible without a terminal), delivered.
    func presentRecoveryKey(_ text: String) async throws {
        try console.out.deliverOnce(RecoveryKeyText.line(text))
    }
}

/// How a recovery key is printed where there is no terminal to show it on.
enum RecoveryKeyText {
    static func line(_ key: String) -> String { "Recovery key (shown once, keep it safe): \(key)\n" }
}
