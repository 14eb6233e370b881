#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SafeFiles

/// Where human and machine output goes. Injected so tests can capture it.
public protocol OutputStream: Sendable {
    func write(_ text: String)
    /// Whether this stream is a terminal (colour and live progress are only for terminals).
    var isTerminal: Bool { get }
}

/// A file descriptor, usually stdout or stderr.
public struct FileDescriptorOutput: OutputStream {
    let fd: Int32
    public init(fd: Int32) { self.fd = fd }
    public static var standardOutput: FileDescriptorOutput { FileDescriptorOutput(fd: STDOUT_FILENO) }
    public static var standardError: FileDescriptorOutput { FileDescriptorOutput(fd: STDERR_FILENO) }

    public func write(_ text: String) {
        FileDescriptorIO.writeAll(fd, Array(text.utf8))
    }

    public var isTerminal: Bool { isatty(fd) == 1 }
}

/// Human text on stdout, errors on stderr, colour only on a terminal and never with `NO_COLOR`.
public struct Console: Sendable {
    public let out: any OutputStream
    public let err: any OutputStream
    public let useColor: Bool

    public init(out: any OutputStream, err: any OutputStream, environment: [String: String]) {
        self.out = out
        self.err = err
        self.useColor = out.isTerminal && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }

    public func print(_ line: String = "") { out.write(line + "\n") }

    public func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        out.write(String(decoding: data, as: UTF8.self) + "\n")
    }

    /// One line on stderr; a JSON object with `--json`.
    public func report(_ error: CLIError, json: Bool) {
        if json {
            let object = ["error": error.status.name, "message": error.message]
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            err.write(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            let flattened = error.message.replacingOccurrences(of: "\n", with: " ")
            err.write("fingerlock: \(flattened)\n")
        }
    }

    public func bold(_ text: String) -> String { styled(text, "1") }
    public func green(_ text: String) -> String { styled(text, "32") }
    public func red(_ text: String) -> String { styled(text, "31") }
    public func dim(_ text: String) -> String { styled(text, "2") }

    private func styled(_ text: String, _ code: String) -> String {
        useColor ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
