import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built `fingerlockd` with its simulated reader scripted by its own environment: enrollment
/// and a touch over the socket, and a service killed or stopped in the middle of a scan. The waits
/// sleep, and the socket reads that wait for a scan run off the cooperative pool, which the
/// in-process servers of other suites need.
@Suite(.timed, .serialized, .timeLimit(.minutes(2)))
struct DaemonTouchTests {
    struct Running {
        let daemon: DaemonProcess
        let socket: String
        let vault = ClientVault()
        let client: VarlinkTestClient

        init(touches: String, state: String? = nil) async throws {
            let directory = try TemporaryDirectory.make()
            socket = directory + "/socket"
            daemon = try await DaemonProcess(
                socket: socket, stateDirectory: state ?? directory + "/state", extraArguments: ["--reader", "simulated"],
                environment: ["FINGERLOCK_SIMULATED_TOUCHES": touches, "FINGERLOCK_SIMULATED_STAGES": "1"])
            client = try VarlinkTestClient(path: socket)
        }

        var proof: [String: Any] {
            get throws {
                _ = try client.call("io.fingerlock.Service.RegisterVault", ["vault": vault.id])
                let slot =
                    try client.call(
                        "io.fingerlock.Service.SealPasscodeSlot",
                        [
                            "vault": vault.id, "stretched": vault.stretched.base64EncodedString(),
                            "key": vault.key.base64EncodedString(),
                            "associatedData": vault.associatedData.base64EncodedString(),
                        ]
                    ).parameters["sealedSlot"] as? String
                return [
                    "vault": vault.id, "stretched": vault.stretched.base64EncodedString(), "sealedSlot": slot ?? "",
                    "associatedData": vault.associatedData.base64EncodedString(),
                ]
            }
        }

        /// Enrolls the right index finger and caches the key for 10 minutes.
        func enrollAndUnlock() throws {
            let proof = try proof
            let enrolled = try client.callMore(
                "io.fingerlock.Service.EnrollFinger",
                proof.merging(["finger": "right-index", "timeoutSeconds": 5]) { $1 })
            #expect(enrolled.last?.errorName == nil, "\(enrolled) \(daemon.log)")
            let unlocked = try client.call(
                "io.fingerlock.Service.UnlockWithPasscode", proof.merging(["cacheSeconds": 600]) { $1 })
            #expect(unlocked.errorName == nil)
        }

        func touch(_ client: VarlinkTestClient) throws {
            try client.start("io.fingerlock.Service.UnlockWithTouch", ["vault": vault.id, "timeoutSeconds": 30])
        }
    }

    @Test func aTouchScriptedInTheServicesEnvironmentReleasesTheCachedKey() async throws {
        let running = try await Running(touches: "right-index,unknown,right-index")
        defer { running.daemon.terminateBlocking() }
        try running.enrollAndUnlock()
        let touch = ["vault": running.vault.id, "timeoutSeconds": 5] as [String: Any]
        #expect(try running.client.call("io.fingerlock.Service.UnlockWithTouch", touch).errorName == "io.fingerlock.Service.NoMatch")
        let matched = try running.client.call("io.fingerlock.Service.UnlockWithTouch", touch)
        #expect(matched.parameters["key"] as? String == running.vault.key.base64EncodedString())
        // The log names calls, never the key or a template.
        #expect(!running.daemon.log.contains(running.vault.key.base64EncodedString()))
        #expect(running.daemon.log.contains("unlocked with a touch"))
    }

    /// Six touch commands at once (the old count, made before queueing, locked the vault out at
    /// the sixth): one holds the reader, three time out without a finger, one reads an unknown
    /// finger, the last the enrolled one.
    @Test func parallelTouchesThatOnlyWaitOrTimeOutDoNotLockTheVaultOut() async throws {
        let running = try await Running(touches: "right-index,hold,timeout,timeout,timeout,unknown,right-index")
        defer { running.daemon.terminateBlocking() }
        try running.enrollAndUnlock()
        let holder = try VarlinkTestClient(path: running.socket)
        try holder.start("io.fingerlock.Service.UnlockWithTouch", ["vault": running.vault.id, "timeoutSeconds": 3])
        try await Task.sleep(for: .milliseconds(300))
        let waiting = try (1...5).map { _ in
            let client = try VarlinkTestClient(path: running.socket)
            try running.touch(client)
            return client
        }
        // The replies come as the scans end, seconds apart: read on a thread of their own.
        let received = try await offPool {
            try ([holder] + waiting).map { client -> String? in
                try client.receive(timeout: 30).map { $0.errorName ?? ($0.parameters["key"] != nil ? "key" : "?") }
            }
        }
        let outcomes = try received.map { try #require($0) }
        #expect(
            outcomes.sorted() == [
                "io.fingerlock.Service.NoMatch", "io.fingerlock.Service.ScanTimedOut",
                "io.fingerlock.Service.ScanTimedOut", "io.fingerlock.Service.ScanTimedOut",
                "io.fingerlock.Service.ScanTimedOut", "key",
            ], "\(outcomes) \(running.daemon.log)")
        let status = try running.client.call("io.fingerlock.Service.Status", ["vault": running.vault.id])
        let state = status.parameters["status"] as? [String: Any]
        #expect(state?["unlocked"] as? Bool == true)
        #expect(state?["failedTouches"] as? Int == 0)
    }

    @Test func killingTheServiceMidScanClosesTheClientAndARestartServesAgain() async throws {
        let directory = try TemporaryDirectory.make()
        let state = directory + "/state"
        let running = try await Running(touches: "right-index,hold", state: state)
        try running.enrollAndUnlock()
        let scanning = try VarlinkTestClient(path: running.socket)
        try running.touch(scanning)
        try await Task.sleep(for: .milliseconds(300))
        await running.daemon.kill9()
        #expect(try await offPool { scanning.closedByServer(timeout: 2) })
        // A restarted service holds no key: a touch asks for the passcode and scans nothing.
        let restarted = try await DaemonProcess(
            socket: running.socket, stateDirectory: state, extraArguments: ["--reader", "simulated"],
            environment: ["FINGERLOCK_SIMULATED_TOUCHES": "right-index"])
        defer { restarted.terminateBlocking() }
        let reply = try VarlinkTestClient(path: running.socket).call(
            "io.fingerlock.Service.UnlockWithTouch", ["vault": running.vault.id, "timeoutSeconds": 5])
        #expect(reply.errorName == "io.fingerlock.Service.PasscodeRequired")
        let listed = try VarlinkTestClient(path: running.socket).call(
            "io.fingerlock.Service.ListFingers", ["vault": running.vault.id])
        #expect((listed.parameters["fingers"] as? [[String: Any]])?.count == 1)
    }

    @Test func sigtermMidScanCancelsItAndStopsPromptly() async throws {
        let running = try await Running(touches: "right-index,hold")
        try running.enrollAndUnlock()
        let scanning = try VarlinkTestClient(path: running.socket)
        try running.touch(scanning)
        try await Task.sleep(for: .milliseconds(300))
        let started = Date()
        #expect(await running.daemon.terminate() == 0, "\(running.daemon.log)")
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(try await offPool { scanning.closedByServer(timeout: 2) })
        #expect(running.daemon.log.contains("call cancelled"))
    }
}
