import Synchronization
import SystemBus

/// The client's one bus connection, shared by the client's threads one call at a time, and the
/// inbox its signals go to while a verify waits.
final class LockedBus: @unchecked Sendable {
    // @unchecked: `connection` is used only under `lock`; `inbox` is Sendable.
    private let connection: SystemBusConnection
    private let lock = Mutex(())
    /// Where the connection's signal filter puts fprintd's signals. Its own object, so the filter
    /// (which the connection keeps) holds the inbox and never this bus: a bus it held would hold
    /// its connection in turn, and neither would ever be closed.
    private let inbox = Inbox()

    /// The open inbox, and the one sender whose device signals go into it.
    final class Inbox: Sendable {
        let open = Mutex<(continuation: AsyncStream<BusSignal>.Continuation, fprintd: String)?>(nil)

        func take(_ signal: BusSignal) {
            open.withLock { open in
                guard let open, LockedBus.isFrom(signal, fprintd: open.fprintd) else { return }
                open.continuation.yield(signal)
            }
        }
    }

    init(_ connection: SystemBusConnection) { self.connection = connection }

    func call(
        _ path: String, _ method: String, _ arguments: [SystemBusConnection.Argument], replyType: String,
        interface: String = FprintdClient.deviceInterface, interactive: Bool = false, timeout: Duration? = nil,
        destination: String = FprintdClient.service
    ) throws -> BusVariant {
        try lock.withLock { _ in
            try connection.call(
                destination, path, interface, method, arguments, replyType: replyType, interactive: interactive,
                timeout: timeout)
        }
    }

    /// A call whose answer changes nothing, not waited for (see `SystemBusConnection.send`).
    func send(_ path: String, _ method: String) {
        lock.withLock { _ in
            connection.send(FprintdClient.service, path, FprintdClient.deviceInterface, method, [])
        }
    }

    /// fprintd's device signals, and fprintd leaving the bus (or restarting).
    func watch() {
        lock.withLock { _ in
            connection.watchSignals([
                "type='signal',sender='\(FprintdClient.service)',interface='\(FprintdClient.deviceInterface)'",
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(FprintdClient.service)'",
            ]) { [inbox] signal in inbox.take(signal) }
        }
    }

    /// Whether `signal` is fprintd's or the bus's own. The match rules only ask the bus for these;
    /// they keep nothing else out: any client may send a signal to this connection by its unique
    /// name, saying anything ("verify-match" included). So the sender is checked here: fprintd's
    /// unique name (as the bus gave it, `GetNameOwner`) for the device's signals, the bus itself for
    /// NameOwnerChanged.
    static func isFrom(_ signal: BusSignal, fprintd: String) -> Bool {
        if signal.interface == "org.freedesktop.DBus" { return signal.sender == "org.freedesktop.DBus" }
        return signal.sender == fprintd
    }

    /// A fresh inbox for one verify or enrollment, taking device signals from `fprintd` (its unique
    /// name) only: signals from before it (a cancelled verify's last status) are not in it.
    func openInbox(from fprintd: String) -> AsyncStream<BusSignal> {
        let (stream, continuation) = AsyncStream.makeStream(of: BusSignal.self)
        inbox.open.withLock {
            $0?.continuation.finish()
            $0 = (continuation, fprintd)
        }
        return stream
    }

    func closeInbox() {
        inbox.open.withLock {
            $0?.continuation.finish()
            $0 = nil
        }
    }
}
