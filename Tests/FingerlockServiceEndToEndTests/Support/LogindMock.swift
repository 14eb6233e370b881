import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A private system bus (its own dbus-daemon, any user may connect) with python-dbusmock's logind
/// template on it, set up by `Fixtures/logind_seat.py`: the seat and sessions fingerlockd asks
/// about. A client process belongs to the session its `FLK_LOGIND_SESSION` names (the mock's
/// GetSessionByPID reads it; real logind reads the cgroup). Needs python3-dbusmock (.ci/install-deps).
final class LogindMock {
    let directory: String
    let address: String
    /// Its own bus, or nil when it joined another's (``init(onBusAt:directory:)``).
    private let bus: PrivateSystemBus?
    private let mock = Process()

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Starts both in `directory` (which the service user can traverse).
    convenience init(in directory: String) async throws {
        let bus = try await PrivateSystemBus(in: directory)
        try await self.init(bus: bus, address: bus.address, directory: directory)
    }

    /// The mock on a bus that runs already (an ``FprintdRig``'s: fingerlockd has one system bus,
    /// on which it asks logind and fprintd alike); the bus is its owner's to stop.
    convenience init(onBusAt address: String, directory: String) async throws {
        try await self.init(bus: nil, address: address, directory: directory)
    }

    private init(bus: PrivateSystemBus?, address: String, directory: String) async throws {
        self.directory = directory
        self.bus = bus
        self.address = address
        mock.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        mock.arguments = ["-m", "dbusmock", "--system", "--template", "logind"]
        mock.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": address]) { $1 }
        mock.standardOutput = FileHandle.nullDevice
        mock.standardError = FileHandle.nullDevice
        try mock.run()
        try await configure(["setup"])
    }

    /// Adds a session of `user` on `seat` (`remote`: a login from the network), which becomes the
    /// seat's active one.
    func addSession(_ id: String, seat: String = "seat0", user: String, remote: Bool = false) async throws {
        try await configure(["session", id, seat, "\(RealUsersTests.uid(user))", user, remote ? "remote" : "local"])
    }

    /// Makes session `id` the active one of `seat` (a user switch at the seat).
    func activate(_ id: String, seat: String = "seat0") async throws {
        try await configure(["activate", seat, id])
    }

    private func configure(_ arguments: [String]) async throws {
        let ran = try await runCommandSeparately(
            "/usr/bin/python3", [fixtures + "/logind_seat.py", address] + arguments, timeout: 30)
        guard ran.status == 0 else {
            throw Failure(description: "logind_seat.py \(arguments): \(ran.stdout) \(ran.stderr)")
        }
    }

    /// SIGKILL: both start with the test runner's signal mask, which blocks SIGTERM. For `defer`
    /// and `deinit`, which cannot await: a killed process is gone within milliseconds.
    func stop() {
        if mock.isRunning {
            kill(mock.processIdentifier, SIGKILL)
            while mock.isRunning { usleep(5_000) }
        }
        bus?.stop()
    }

    deinit { stop() }
}
