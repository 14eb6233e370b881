import Foundation
import SafeFiles
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where human and machine output goes. Injected so tests can capture it.
///
/// No write is silently lost: a failed write (a full disk, a closed descriptor) is remembered, the
/// command ends with an error saying so (`FingerlockMain`), and `writeChecked` reports it at once
/// where output that cannot be repeated (a recovery key) must be known to have arrived.
public protocol OutputStream: Sendable {
    func write(_ text: String)
    /// Writes UTF-8 bytes as they are (listings make their lines as bytes).
    func write(_ utf8: [UInt8])
    /// Whether this stream is a terminal (colour and live progress are only for terminals).
    var isTerminal: Bool { get }
    /// Why a write failed (the first failure), or nil when every write so far succeeded.
    var failure: String? { get }
    /// The offset of a regular file the output goes to (for undoing a partial write), else nil.
    var regularFileOffset: Int64? { get }
    /// Cuts a regular file back to `offset`, so a write that failed halfway leaves no partial output.
    func truncate(to offset: Int64)
    /// Why text written here would be lost although the write succeeds (/dev/null, a pipe nobody
    /// reads), or nil. Checked before asking for anything that output of this kind depends on.
    var losesOutput: String? { get }
    /// Writes text that exists nowhere else (a new recovery key) and returns only once it has
    /// arrived: throws when it was lost instead, so the change it belongs to is not made.
    func deliverOnce(_ text: String) throws(CLIError)
}

extension OutputStream {
    public func write(_ utf8: [UInt8]) { write(String(decoding: utf8, as: UTF8.self)) }
    public var losesOutput: String? { nil }
    public func deliverOnce(_ text: String) throws(CLIError) { try writeChecked(text) }

    /// Writes `text` and throws if it, or an earlier write, did not arrive whole.
    public func writeChecked(_ text: String) throws(CLIError) {
        write(text)
        if let failure { throw CLIError(.dataError, "Cannot write the output: \(failure).") }
    }
}

/// A file descriptor, usually stdout or stderr.
public struct FileDescriptorOutput: OutputStream {
    let fd: Int32
    private let firstFailure = FailureRecord()

    public init(fd: Int32) { self.fd = fd }
    public static var standardOutput: FileDescriptorOutput { FileDescriptorOutput(fd: STDOUT_FILENO) }
    public static var standardError: FileDescriptorOutput { FileDescriptorOutput(fd: STDERR_FILENO) }

    public func write(_ text: String) { write(Array(text.utf8)) }

    public func write(_ utf8: [UInt8]) {
        if let error = FileDescriptorIO.writeAll(fd, utf8) {
            firstFailure.record(String(cString: strerror(error)))
        }
    }

    public var isTerminal: Bool { isatty(fd) == 1 }
    public var failure: String? { firstFailure.value }

    /// Where the next write lands in a regular file the output goes to (for undoing a partial
    /// write), else nil: its end when opened for appending (`>>`), whose offset still reads 0.
    public var regularFileOffset: Int64? {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { return nil }
        if flags & O_APPEND != 0 { return Int64(info.st_size) }
        let offset = lseek(fd, 0, SEEK_CUR)
        return offset >= 0 ? Int64(offset) : nil
    }

    /// Cuts a regular file back to `offset`, so a write that failed halfway leaves no partial output.
    public func truncate(to offset: Int64) {
        _ = ftruncate(fd, off_t(offset))
        _ = lseek(fd, off_t(offset), SEEK_SET)
    }
}

/// The first failure of a stream, shared by copies of it.
final class FailureRecord: Sendable {
    private let first = Mutex<String?>(nil)
    func record(_ failure: String) { first.withLock { if $0 == nil { $0 = failure } } }
    var value: String? { first.withLock { $0 } }
}

/// Human text on stdout, errors on stderr, colour only on a terminal and never with `NO_COLOR`.
public struct Console: Sendable {
    public let out: any OutputStream
    public let err: any OutputStream
    public let useColor: Bool

    public init(out: any OutputStream, err: any OutputStream, environment: [String: String]) {
        self.out = out
        self.err = err
        self.useColor = out.isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    public func print(_ line: String = "") { out.write(line + "\n") }

    /// One line on stderr that is not an error of the command (it still succeeded).
    public func warn(_ line: String) {
        err.write("fingerlock: \(TerminalSafeText.line(line.replacingOccurrences(of: "\n", with: " ")))\n")
    }

    public func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        out.write(Self.closingEmptyContainers(String(decoding: data, as: UTF8.self)) + "\n")
    }

    /// `[]` and `{}` for empty arrays and objects, which the pretty printer spreads over lines
    /// (`[` and `]` with an empty line between). A raw newline is only ever formatting: inside a JSON
    /// string it is escaped.
    static func closingEmptyContainers(_ json: String) -> String {
        json.replacing(/\[\n\s*\n\s*\]/, with: "[]").replacing(/\{\n\s*\n\s*\}/, with: "{}")
    }

    /// One line on stderr; a JSON object with `--json`.
    public func report(_ error: CLIError, json: Bool) {
        if json {
            // The version too: a JSON error pasted into a bug report says which fingerlock made it.
            let object = ["error": error.status.name, "message": error.message, "version": FingerlockVersion.current]
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            err.write(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            // One line, and no escape sequence from an argument echoed in the message reaches the terminal.
            let flattened = TerminalSafeText.line(error.message.replacingOccurrences(of: "\n", with: " "))
            err.write("fingerlock: \(flattened)\n")
        }
    }

    public func bold(_ text: String) -> String { styled(text, "1") }
    public func green(_ text: String) -> String { styled(text, "32") }
    public func red(_ text: String) -> String { styled(text, "31") }
    public func dim(_ text: String) -> String { styled(text, "2") }
    /// A search match, bold red as grep marks it.
    public func match(_ text: String) -> String { styled(text, "1;31") }

    private func styled(_ text: String, _ code: String) -> String {
        useColor ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
