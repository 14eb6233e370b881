/// Feeds images and control messages to libfprint's `virtual_image` driver (path in `FP_VIRTUAL_IMAGE`).
///
/// Unlike the command socket of `virtual_device`, this is **one persistent connection** per opened
/// device: each message is a native-endian int32 width, an int32 height and width × height grey bytes;
/// a negative width is a control message. libfprint listens only while the device is open, so call
/// ``disconnect()`` when an operation has ended; the next send connects again (waiting for the open).
/// Send the next image only after the reader reported progress for the previous one.
public actor VirtualImageFeeder {
    public let path: String
    public let timeout: Duration
    private var connection: UnixSocket?

    public init(path: String, timeout: Duration = .seconds(20)) {
        self.path = path
        self.timeout = timeout
    }

    /// Presents `image` as a finger scan.
    public func send(_ image: GreyImage) async throws {
        try await write(image.wireBytes)
    }

    /// A retry condition `code` (0 general, 1 too short, 2 center finger, 3 remove finger).
    /// Only during verify or identify: libfprint 1.94.5's enroll hangs on it.
    public func retry(_ code: Int32) async throws { try await control(-1, code) }

    /// The running operation fails with `FpDeviceError` `code`.
    public func error(_ code: Int32) async throws { try await control(-2, code) }

    /// Turns automatic finger-present reports around each image on or off.
    public func automaticFingerReports(_ enabled: Bool) async throws { try await control(-3, enabled ? 1 : 0) }

    /// Reports the finger as present or gone.
    public func finger(present: Bool) async throws { try await control(-4, present ? 1 : 0) }

    /// The device disappears, as if unplugged.
    public func unplug() async throws { try await control(-5, 0) }

    /// Drops the connection (the device was closed, or is about to be).
    public func disconnect() {
        connection?.close()
        connection = nil
    }

    private func control(_ kind: Int32, _ value: Int32) async throws {
        try await write(Self.header(kind, value))
    }

    private func write(_ bytes: [UInt8]) async throws {
        let socket: UnixSocket
        if let connection {
            socket = connection
        } else {
            socket = try await UnixSocket.connect(to: path, timeout: timeout)
            connection = socket
        }
        do {
            try await socket.write(bytes, timeout: timeout)
        } catch {
            disconnect()
            throw error
        }
    }

    static func header(_ first: Int32, _ second: Int32) -> [UInt8] {
        withUnsafeBytes(of: first) { Array($0) } + withUnsafeBytes(of: second) { Array($0) }
    }
}
