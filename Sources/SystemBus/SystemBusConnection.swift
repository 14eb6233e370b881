internal import CGio

/// A private connection to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket),
/// closed and released in `deinit`. Private, not GIO's shared one: that one ends the process when
/// the bus goes away, and a new connection follows a restarted bus. Every call blocks (at most
/// `callTimeout`): use it off Swift's cooperative pool, from one thread at a time. Signals reach
/// ``watchSignals(_:_:)``'s handler on GDBus's own thread.
public final class SystemBusConnection {
    private let gio: FLGioFunctions
    private let raw: OpaquePointer
    private var filters: [UInt32] = []
    /// How long one call waits for its answer.
    public let callTimeout: Duration

    /// - Parameter address: a bus of its own (tests); nil for the system bus.
    public init(
        gio loaded: Result<GioLibrary, SystemBusError>, address given: String? = nil, callTimeout: Duration = .seconds(3)
    ) throws(SystemBusError) {
        let gio = try GioLibrary.require(loaded)
        self.gio = gio
        self.callTimeout = callTimeout
        var error: UnsafeMutablePointer<GError>?
        let found = given == nil ? gio.g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, nil, &error) : nil
        if given == nil && found == nil { throw .absent("no system bus: " + Self.take(error, gio)) }
        defer { if let found { gio.g_free(found) } }
        guard let address = given ?? found.map({ String(cString: $0) }) else { throw .absent("no system bus") }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = gio.g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw .absent("no system bus at \(address): " + Self.take(error, gio))
        }
        raw = connection
    }

    deinit {
        for filter in filters { gio.g_dbus_connection_remove_filter(raw, filter) }
        _ = gio.g_dbus_connection_close_sync(raw, nil, nil)
        gio.g_object_unref(UnsafeMutableRawPointer(raw))
    }

    /// Calls `method` with string and uint32 arguments; the reply, checked to be of `replyType`.
    /// `interactive`: the callee may ask the user to authorize it (polkit's agent), so the call
    /// waits as long as that takes (up to `timeout`).
    public func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [Argument],
        replyType: String, interactive: Bool = false, timeout: Duration? = nil
    ) throws(BusCallError) -> BusVariant {
        // Floating: the call consumes it.
        let parameters = tuple(arguments)
        var error: UnsafeMutablePointer<GError>?
        let flags = interactive ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION : G_DBUS_CALL_FLAGS_NONE
        let wait = timeout ?? callTimeout
        let milliseconds = Int32(clamping: wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
        // The type string must outlive the call: never a pointer to a temporary C string.
        let answer = replyType.withCString { type in
            gio.g_dbus_connection_call_sync(
                raw, destination, path, interface, method, parameters, fl_variant_type(type), flags, milliseconds, nil, &error)
        }
        guard let reply = answer else {
            let remote = error.flatMap { gio.g_dbus_error_get_remote_error($0) }
            let name = remote.map { String(cString: $0) } ?? ""
            if let remote { gio.g_free(remote) }
            let message = Self.take(error, gio)
            throw BusCallError(name: name, message: "\(method): \(message)")
        }
        return BusVariant(takingOwnershipOf: reply, gio)
    }

    /// Sends `method` without waiting for, or asking for, an answer (D-Bus's no-reply flag): for
    /// calls whose answer changes nothing. The bus keeps the order of one connection's messages, so
    /// a call made after this one reaches its destination after it.
    public func send(_ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [Argument]) {
        let parameters = tuple(arguments)
        gio.g_dbus_connection_call(
            raw, destination, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, -1, nil, nil, nil)
    }

    /// `arguments` as a floating tuple (the call consumes it).
    private func tuple(_ arguments: [Argument]) -> OpaquePointer? {
        let children: [OpaquePointer?] = arguments.map { argument in
            switch argument {
            case .string(let text): gio.g_variant_new_string(text)
            case .uint32(let value): gio.g_variant_new_uint32(value)
            }
        }
        return children.withUnsafeBufferPointer { gio.g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }

    public enum Argument: Sendable {
        case string(String)
        case uint32(UInt32)
    }

    /// Asks the bus for the signals `rules` match (D-Bus match rules), and hands every signal that
    /// arrives on this connection to `receive`, on GDBus's worker thread, as long as the connection
    /// lives. `receive` must not block and must not call this connection.
    public func watchSignals(_ rules: [String], _ receive: @escaping @Sendable (BusSignal) -> Void) {
        let box = Unmanaged.passRetained(SignalFilter(gio: gio, receive: receive)).toOpaque()
        let filter = gio.g_dbus_connection_add_filter(
            raw,
            { _, message, incoming, userData in
                guard let message, let userData else { return message }
                if incoming != 0 { Unmanaged<SignalFilter>.fromOpaque(userData).takeUnretainedValue().deliver(message) }
                // A passive filter hands the message on (its reference goes with it).
                return message
            }, box,
            { userData in
                if let userData { Unmanaged<SignalFilter>.fromOpaque(userData).release() }
            })
        filters.append(filter)
        // Not waited for: the bus applies a connection's AddMatch before anything it sends later (a
        // call that starts what the signals report), and a rule it refused would only mean a
        // signal never comes, which every wait here bounds. Two round trips fewer per command.
        for rule in rules {
            send("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", [.string(rule)])
        }
    }

    /// The error's message, the error freed.
    static func take(_ error: UnsafeMutablePointer<GError>?, _ gio: FLGioFunctions) -> String {
        guard let error else { return "unknown error" }
        defer { gio.g_error_free(error) }
        return fl_error_message(error).map { String(cString: $0) } ?? "unknown error"
    }
}

/// A signal as it arrived: who sent it (a unique name), where from, and its string and boolean
/// arguments (others are left out as nil).
public struct BusSignal: Sendable, Equatable {
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [Value]

    public enum Value: Sendable, Equatable {
        case string(String)
        case bool(Bool)
        case other
    }

    public func string(_ index: Int) -> String? {
        guard index < arguments.count, case .string(let text) = arguments[index] else { return nil }
        return text
    }

    public func bool(_ index: Int) -> Bool? {
        guard index < arguments.count, case .bool(let value) = arguments[index] else { return nil }
        return value
    }
}

/// What a connection's message filter calls back into: reads a signal while GDBus still holds the
/// message, and hands a copy on.
private final class SignalFilter: @unchecked Sendable {
    // @unchecked: immutable after init (a table of C function addresses and a Sendable closure).
    let gio: FLGioFunctions
    let receive: @Sendable (BusSignal) -> Void

    init(gio: FLGioFunctions, receive: @escaping @Sendable (BusSignal) -> Void) {
        self.gio = gio
        self.receive = receive
    }

    func deliver(_ message: OpaquePointer) {
        guard gio.g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_SIGNAL else { return }
        func text(_ pointer: UnsafePointer<gchar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        var arguments: [BusSignal.Value] = []
        if let body = gio.g_dbus_message_get_body(message), let reference = gio.g_variant_ref(body) {
            // The message keeps its body: this is a reference of our own, taken for the read.
            let variant = BusVariant(takingOwnershipOf: reference, gio)
            for index in 0..<variant.count {
                guard let child = variant.child(index) else { continue }
                if let string = child.string {
                    arguments.append(.string(string))
                } else if let bool = child.bool {
                    arguments.append(.bool(bool))
                } else {
                    arguments.append(.other)
                }
            }
        }
        receive(
            BusSignal(
                sender: text(gio.g_dbus_message_get_sender(message)), path: text(gio.g_dbus_message_get_path(message)),
                interface: text(gio.g_dbus_message_get_interface(message)), member: text(gio.g_dbus_message_get_member(message)),
                arguments: arguments))
    }
}
