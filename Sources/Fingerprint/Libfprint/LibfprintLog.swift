internal import CFprint
import Synchronization

/// One line libfprint or GLib logged (`g_warning`, `g_critical`, `g_debug`, …).
public struct LibfprintLogLine: Sendable, Equatable {
    public enum Level: String, Sendable {
        case error, critical, warning, message, info, debug
    }

    public var level: Level
    /// The log domain: `libfprint-device`, `GLib`, `GLib-GObject`, …
    public var domain: String
    public var message: String
}

/// Where libfprint's and GLib's log goes: GLib's default writer prints it raw on stderr (a
/// `GLib-CRITICAL` from a scan cancelled with Ctrl-C landed in the middle of the prompt). The
/// writer is GLib's process-wide setting and may be set only once, so it is installed once, when the
/// first context is created, and sends each line to the sink of the context created last (there is
/// one per process; tests make one after another).
enum LibfprintLog {
    /// The destination, in a class of its own: a bare closure in the generic `Mutex` was rewrapped
    /// at every read (`withLock`'s `inout` converts a function value to the closure's abstraction and
    /// writes it back converted again), so each line logged added two thunks in front of the
    /// destination and every later line ran through all of them. In fingerlockd, which logs for as
    /// long as it runs, each touch cost more CPU than the one before (3.3 ms, then 7.5 ms after 160
    /// touches), and the chain would finally overflow the stack. A reference is never converted.
    final class Sink: Sendable {
        let deliver: @Sendable (LibfprintLogLine) -> Void
        init(_ deliver: @escaping @Sendable (LibfprintLogLine) -> Void) { self.deliver = deliver }
    }

    private static let sink = Mutex<Sink?>(nil)
    private static let installed = Atomic<Bool>(false)

    /// The sink lines go to now.
    static var currentSink: Sink? { sink.withLock { $0 } }

    /// Sends GLib's log to `destination` from now on. Runs on the libfprint thread, after the
    /// library is open.
    static func route(to destination: @escaping @Sendable (LibfprintLogLine) -> Void) {
        let routed = Sink(destination)
        sink.withLock { $0 = routed }
        guard installed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        libfprint.g_log_set_writer_func(
            { level, fields, count, _ in
                LibfprintLog.write(level: level, fields: fields, count: Int(count))
                return G_LOG_WRITER_HANDLED
            }, nil, nil)
    }

    private static func write(level: GLogLevelFlags, fields: UnsafePointer<GLogField>?, count: Int) {
        guard let fields, let destination = sink.withLock({ $0 }) else { return }
        var domain = ""
        var message = ""
        for field in UnsafeBufferPointer(start: fields, count: count) {
            guard let key = field.key, let value = field.value else { continue }
            let name = String(cString: key)
            guard name == "MESSAGE" || name == "GLIB_DOMAIN" else { continue }
            let text: String
            if field.length < 0 {
                text = String(cString: value.assumingMemoryBound(to: CChar.self))
            } else {
                text = String(decoding: UnsafeRawBufferPointer(start: value, count: Int(field.length)), as: UTF8.self)
            }
            if name == "MESSAGE" { message = text } else { domain = text }
        }
        destination.deliver(LibfprintLogLine(level: Self.level(level), domain: domain, message: message))
    }

    private static func level(_ flags: GLogLevelFlags) -> LibfprintLogLine.Level {
        func has(_ level: GLogLevelFlags) -> Bool { flags.rawValue & level.rawValue != 0 }
        if has(G_LOG_LEVEL_ERROR) { return .error }
        if has(G_LOG_LEVEL_CRITICAL) { return .critical }
        if has(G_LOG_LEVEL_WARNING) { return .warning }
        if has(G_LOG_LEVEL_MESSAGE) { return .message }
        if has(G_LOG_LEVEL_INFO) { return .info }
        return .debug
    }
}
