import FingerlockTestSupport
import FingerprintTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The socket helpers speak the protocol exactly as libfprint expects it, checked against a local
/// server that records what arrives.
@Suite(.timed, .timeLimit(.minutes(1))) struct VirtualDeviceSocketTests {
    @Test(arguments: [
        (VirtualDeviceCommand.scan("right-index"), "SCAN right-index"),
        (.retry(2), "RETRY 2"), (.error(256), "ERROR 256"), (.finger(true), "FINGER 1"), (.finger(false), "FINGER 0"),
        (.sleep(milliseconds: 0), "SLEEP 0"), (.cont, "CONT "), (.insert("a"), "INSERT a"), (.remove("a"), "REMOVE a"),
        (.list, "LIST "), (.unplug, "UNPLUG "), (.setEnrollStages(3), "SET_ENROLL_STAGES 3"),
        (.setScanType("press"), "SET_SCAN_TYPE press"), (.setCancellationEnabled(false), "SET_CANCELLATION_ENABLED 0"),
        (.setKeepAlive(true), "SET_KEEP_ALIVE 1"),
    ])
    func wireText(_ command: VirtualDeviceCommand, text: String) {
        #expect(command.wireText == text)
        #expect(!command.wireText.hasSuffix("\n"))
    }

    @Test(.timeLimit(.minutes(1)))
    func oneCommandPerConnectionWaitingForEOF() async throws {
        let path = "/tmp/fl-fake-\(UUID().uuidString.prefix(8)).sock"
        defer { unlink(path) }
        let socket = VirtualDeviceSocket(path: path, timeout: .seconds(10))
        // The server appears only later: the client retries on ENOENT.
        let server = Task {
            try await FakeServer.onThread {
                usleep(150_000)
                return try FakeServer.serve(
                    path: path, connections: 3, holdOpen: .milliseconds(100), reply: "id-1\nid-2\n")
            }
        }
        let clock = ContinuousClock()
        let started = clock.now
        try await socket.touch("FP1-x")
        // Each command waited for the server to close the connection (≥ 100 ms each) before the next.
        #expect(clock.now - started >= .milliseconds(350))
        #expect(try await socket.storedIDs() == ["id-1", "id-2"])
        let received = try await server.value
        #expect(received == ["SLEEP 0", "SCAN FP1-x", "LIST "])
    }

    @Test(.timeLimit(.minutes(1)))
    func givesUpWhenNothingListens() async throws {
        let socket = VirtualDeviceSocket(
            path: "/tmp/fl-nobody-\(UUID().uuidString.prefix(8)).sock", timeout: .milliseconds(100))
        await #expect(throws: VirtualDeviceError.self) { try await socket.send(.cont) }
    }

    @Test(.timeLimit(.minutes(1)))
    func imageFeederUsesOnePersistentConnection() async throws {
        let path = "/tmp/fl-img-\(UUID().uuidString.prefix(8)).sock"
        defer { unlink(path) }
        let server = Task { try await FakeServer.onThread { try FakeServer.collect(path: path, bytes: 8 + 6 + 8 + 8) } }
        try await Task.sleep(for: .milliseconds(50))
        let feeder = VirtualImageFeeder(path: path, timeout: .seconds(10))
        try await feeder.send(GreyImage(width: 3, height: 2, pixels: [1, 2, 3, 4, 5, 6]))
        try await feeder.retry(1)
        try await feeder.unplug()
        let (connections, bytes) = try await server.value
        await feeder.disconnect()
        #expect(connections == 1)
        let ints = stride(from: 0, to: 8, by: 4).map { offset in
            bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
        }
        #expect(ints == [3, 2])
        #expect(Array(bytes[8..<14]) == [1, 2, 3, 4, 5, 6])
        let controls = stride(from: 14, to: 30, by: 4).map { offset in
            bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
        }
        #expect(controls == [-1, 1, -5, 0])
    }

    @Test func parsesBinaryPGM() throws {
        let pgm = Data("P5\n# comment\n3 2\n255\n".utf8) + Data([9, 8, 7, 6, 5, 4])
        let image = try GreyImage(pgm: pgm)
        #expect(image == GreyImage(width: 3, height: 2, pixels: [9, 8, 7, 6, 5, 4]))
        #expect(throws: VirtualDeviceError.self) { try GreyImage(pgm: Data("P2\n3 2\n255\n".utf8)) }
        #expect(throws: VirtualDeviceError.self) { try GreyImage(pgm: Data("P5\n3 2\n255\n".utf8) + Data([1])) }
        #expect(throws: VirtualDeviceError.self) { try GreyImage(pgm: Data("P5\n3 2\n65535\n".utf8)) }
    }

    @Test func loadsTheNISTImages() throws {
        for name in ["whorl", "arch", "loop-right", "tented_arch"] {
            let image = try GreyImage(contentsOfPGM: TestData.prints.appending(path: "\(name).pgm"))
            #expect(image.width > 100 && image.height > 100)
            #expect(image.pixels.count == image.width * image.height)
        }
    }
}

/// A blocking unix-socket server for the tests above.
enum FakeServer {
    struct Failure: Error { let call: String }

    /// Runs blocking `body` on its own thread, off the cooperative pool.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    static func listen(path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, 1) == 0 else { throw Failure(call: "bind/listen") }
        return fd
    }

    /// Accepts a client whose descriptor no child process inherits: other tests in this process start
    /// daemons, and one that inherited the connection would keep it open past our `close`, so the
    /// client would never see the end of file it waits for (a CI failure). Swift's Glibc module has no
    /// `accept4`; the moment before `fcntl` is the only window.
    static func acceptClosingOnExec(_ listener: Int32) -> Int32 {
        let fd = accept(listener, nil, nil)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fd
    }

    /// Accepts `connections` clients one after another; reads each one's command, keeps the connection
    /// open for `holdOpen`, answers `reply` to `LIST`, then closes it. Returns the commands received.
    static func serve(path: String, connections: Int, holdOpen: Duration, reply: String) throws -> [String] {
        let listener = try listen(path: path)
        defer { close(listener) }
        var commands: [String] = []
        for _ in 0..<connections {
            let client = acceptClosingOnExec(listener)
            guard client >= 0 else { throw Failure(call: "accept") }
            var buffer = [UInt8](repeating: 0, count: 1024)
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            let command = String(decoding: buffer[..<max(count, 0)], as: UTF8.self)
            commands.append(command)
            let (seconds, attoseconds) = holdOpen.components
            usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
            if command.hasPrefix("LIST") { _ = reply.withCString { send(client, $0, strlen($0), 0) } }
            close(client)
        }
        return commands
    }

    /// Accepts clients until `bytes` bytes have arrived; returns how many connections it took and the bytes.
    static func collect(path: String, bytes wanted: Int) throws -> (Int, [UInt8]) {
        let listener = try listen(path: path)
        defer { close(listener) }
        var received: [UInt8] = []
        var connections = 0
        while received.count < wanted {
            let client = acceptClosingOnExec(listener)
            guard client >= 0 else { throw Failure(call: "accept") }
            connections += 1
            var buffer = [UInt8](repeating: 0, count: 1024)
            while received.count < wanted {
                let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                received += buffer[..<count]
            }
            close(client)
        }
        return (connections, received)
    }
}

extension VirtualDeviceSocketTests {
    @Test func scanIDsFollowFprintdsUserIDFormat() {
        #expect(VirtualDeviceSocket.scanID(finger: 7) == "FP1-20260101-7-00000007-tester")
        #expect(VirtualDeviceSocket.scanID(finger: 10, user: "ann") == "FP1-20260101-A-00000000-ann")
        // libfprint parses the finger at index 13 and needs dashes at 12, 14 and 23.
        let id = Array(VirtualDeviceSocket.scanID(finger: 3))
        #expect(id[12] == "-" && id[14] == "-" && id[23] == "-" && id[13] == "3")
    }
}
