/// Talks to libfprint's `virtual_device` or `virtual_device_storage` driver through its command socket
/// (the path in `FP_VIRTUAL_DEVICE` / `FP_VIRTUAL_DEVICE_STORAGE`).
///
/// The protocol, as libfprint 1.94 implements it: libfprint is the server and listens only while the
/// device is open; **one command per connection**: connect, write the command, then wait until
/// libfprint closes the connection, which is the acknowledgement. Commands are read only while
/// libfprint runs an operation, so sending waits (retrying the connection) until one starts.
public struct VirtualDeviceSocket: Sendable {
    public let path: String
    /// How long to wait for the device to be opened and for each acknowledgement.
    public let timeout: Duration

    public init(path: String, timeout: Duration = .seconds(20)) {
        self.path = path
        self.timeout = timeout
    }

    /// Sends one command and waits for libfprint to acknowledge it; returns the reply (only `LIST` has one).
    @discardableResult
    public func send(_ command: VirtualDeviceCommand) async throws -> String {
        let socket = try await UnixSocket.connect(to: path, timeout: timeout)
        defer { socket.close() }
        try await socket.write(Array(command.wireText.utf8), timeout: timeout)
        let reply = try await socket.readToEnd(timeout: timeout)
        return String(decoding: reply, as: UTF8.self)
    }

    /// A touch by a finger with identity `id` for the scan operation that is running or about to start.
    ///
    /// Sends `SLEEP 0` first: a command that lands while libfprint is still opening the device is
    /// consumed (or dropped) by the open, and the harmless sleep takes that place instead of the scan.
    public func touch(_ id: String) async throws {
        try await send(.sleep(milliseconds: 0))
        try await send(.scan(id))
    }

    /// Queues a command for an operation that is running or about to start, with the same `SLEEP 0` guard.
    public func queue(_ command: VirtualDeviceCommand) async throws {
        try await send(.sleep(milliseconds: 0))
        try await send(command)
    }

    /// The ids kept by the storage driver's in-process store.
    public func storedIDs() async throws -> [String] {
        try await send(.list).split(separator: "\n").map(String.init)
    }
}
