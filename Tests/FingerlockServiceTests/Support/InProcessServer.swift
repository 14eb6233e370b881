import FingerlockServiceTestSupport
import Foundation
import Logging

@testable import FingerlockService

/// A `VarlinkServer` on a socket in a temporary directory, running in the test process.
struct InProcessServer: Sendable {
    let harness: ServiceHarness
    let server: VarlinkServer
    let socketPath: String

    /// - Parameters:
    ///   - logger: the server's logger (default: only critical lines, to nowhere in particular).
    ///   - now: the server's monotonic clock.
    init(
        limits: ServiceLimits = ServiceLimits(), readers: ServiceReaders = .none, logger: Logger? = nil,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) throws {
        harness = try ServiceHarness(readers: readers)
        socketPath = harness.directory + "/socket"
        var quiet = Logger(label: "fingerlockd-test")
        quiet.logLevel = .critical
        server = try VarlinkServer(
            listener: try ListeningSocket.bind(path: socketPath), core: harness.core, limits: limits, logger: logger ?? quiet, now: now)
        server.start()
    }

    func client() throws -> VarlinkTestClient { try VarlinkTestClient(path: socketPath) }

    func stop() async { await server.stop() }

    /// Polls until `condition` holds or 5 s pass.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
