/// Why the system bus, or a service on it, could not be asked.
public enum SystemBusError: Error, Sendable, Equatable {
    /// GIO cannot be loaded or no system bus can be reached.
    case absent(String)
    /// The bus is there but the question failed.
    case failed(String)
}

/// A call that failed: `name` is the D-Bus error's name (empty when the failure was not the peer's:
/// a timeout, a closed connection, a reply of another type).
public struct BusCallError: Error, Sendable, Equatable {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// The name is not on the bus and nothing can start it: the service is not installed (or not
    /// running where it is not activatable).
    public var serviceMissing: Bool {
        ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner"].contains(name)
    }
}
