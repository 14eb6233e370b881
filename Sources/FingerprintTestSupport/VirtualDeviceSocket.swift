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

    /// A scan id in fprintd's user-id format, `FP1-<yyyymmdd>-<finger, hex>-<8 hex>-<user>`.
    ///
    /// Any id works for `virtual_device` (a verify matches when it scans the id the print was enrolled
    /// with); with this format `virtual_device_storage` also reports which finger a stored print is.
    /// `finger` is libfprint's number: 1 = left thumb … 10 = right little finger.
    public static func scanID(finger: Int, user: String = "tester") -> String {
        precondition((1...10).contains(finger), "libfprint fingers are numbered 1…10")
        let hex = String(finger, radix: 16, uppercase: true)
        return "FP1-20260101-\(hex)-0000000\(finger % 10)-\(user)"
    }

    /// The ids kept by the storage driver's in-process store.
    public func storedIDs() async throws -> [String] {
        try await send(.list).split(separator: "\n").map(String.init)
    }
}
