internal import CGio

/// A private connection to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket),
/// closed and released in `deinit`. Private, not GIO's shared one: that one ends the process when
/// the bus goes away, and a new connection per question follows a restarted bus. Every call
/// blocks: use it off Swift's cooperative pool, from one thread at a time.
final class SystemBusConnection {
    private let gio: FLGioFunctions
    private let raw: OpaquePointer
    /// How long one call waits for its answer.
    static let callTimeoutMilliseconds: Int32 = 3000

    init(gio loaded: Result<GioLibrary, LoginQueryError>) throws(LoginQueryError) {
        let gio = try GioLibrary.require(loaded)
        self.gio = gio
        var error: UnsafeMutablePointer<GError>?
        guard let address = gio.g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, nil, &error) else {
            throw .absent("no system bus: " + Self.take(error, gio))
        }
        defer { gio.g_free(address) }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = gio.g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw .absent("no system bus at \(String(cString: address)): " + Self.take(error, gio))
        }
        raw = connection
    }

    deinit {
        _ = gio.g_dbus_connection_close_sync(raw, nil, nil)
        gio.g_object_unref(UnsafeMutableRawPointer(raw))
    }

    /// Calls `method` with string and uint32 arguments; the reply, checked to be of `replyType`.
    func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [Argument],
        replyType: String
    ) throws(BusCallError) -> BusVariant {
        let children: [OpaquePointer?] = arguments.map { argument in
            switch argument {
            case .string(let text): gio.g_variant_new_string(text)
            case .uint32(let value): gio.g_variant_new_uint32(value)
            }
        }
        // Floating: the call consumes it.
        let parameters = children.withUnsafeBufferPointer { gio.g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        var error: UnsafeMutablePointer<GError>?
        // The type string must outlive the call: never a pointer to a temporary C string.
        let answer = replyType.withCString { type in
            gio.g_dbus_connection_call_sync(
                raw, destination, path, interface, method, parameters, fl_variant_type(type), G_DBUS_CALL_FLAGS_NONE,
                Self.callTimeoutMilliseconds, nil, &error)
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

    enum Argument {
        case string(String)
        case uint32(UInt32)
    }

    /// The error's message, the error freed.
    private static func take(_ error: UnsafeMutablePointer<GError>?, _ gio: FLGioFunctions) -> String {
        guard let error else { return "unknown error" }
        defer { gio.g_error_free(error) }
        return fl_error_message(error).map { String(cString: $0) } ?? "unknown error"
    }
}

/// A call that failed: `name` is the D-Bus error's name (empty when the failure was not the peer's:
/// a timeout, a closed connection, a reply of another type).
struct BusCallError: Error {
    var name: String
    var message: String

    /// As the seat rule sees it: a bus without logind is `absent`, anything else `failed`.
    var query: LoginQueryError {
        switch name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return .absent("no logind on the system bus: \(message)")
        default:
            return .failed(name.isEmpty ? message : "\(name): \(message)")
        }
    }
}
