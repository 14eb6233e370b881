import FingerlockProtocol
import FingerlockServiceClient
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built `fingerlockd` binary: an independent Varlink client, and SIGTERM.
@Suite(.timed, .serialized, .timeLimit(.minutes(2)))
struct DaemonProcessTests {
    @Test func theVarlinkPythonPackageTalksToTheService() async throws {
        let directory = try TemporaryDirectory.make()
        let daemon = try await DaemonProcess(socket: directory + "/socket", stateDirectory: directory + "/state")
        defer { daemon.terminateBlocking() }
        let (status, output) = try await runCommand(
            "/usr/bin/env", ["python3", fixtures + "/varlink_client.py", directory + "/socket"])
        try #require(
            status == 0,
            "the varlink client failed (is the `varlink` package installed? .ci/install-deps does it): \(output) \(daemon.log)"
        )
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(seen["interfaces"] as? [String] == ["org.varlink.service", "io.fingerlock.Service"])
        #expect(seen["product"] as? String == "fingerlockd")
        #expect(seen["created"] as? Bool == true)
        #expect(seen["createdAgain"] as? Bool == false)
        #expect(seen["wrong"] as? String == "io.fingerlock.Service.WrongPasscode")
        #expect((seen["wrongParameters"] as? [String: Any])?["failedPasscodes"] as? Int == 1)
        #expect(seen["keyMatches"] as? Bool == true)
        #expect((seen["status"] as? [String: Any])?["unlocked"] as? Bool == true)
        #expect(seen["locked"] as? Bool == true)
        #expect(seen["badVault"] as? String == "org.varlink.service.InvalidParameter")
        #expect((seen["badVaultParameters"] as? [String: Any])?["parameter"] as? String == "vault")
        #expect(seen["forgotten"] as? Bool == true)
        // Nothing secret reaches the log.
        #expect(!daemon.log.contains("stretched") && !daemon.log.contains("sealedSlot"))
    }

    @Test func sigtermStopsCleanlyAndARestartedServiceHasNoCachedKey() async throws {
        let directory = try TemporaryDirectory.make()
        let socket = directory + "/socket"
        let state = directory + "/state"
        let vault = ClientVault()
        var daemon = try await DaemonProcess(socket: socket, stateDirectory: state)
        let client = try VarlinkTestClient(path: socket)
        _ = try client.call("io.fingerlock.Service.RegisterVault", ["vault": vault.id])
        let slot = try #require(
            try client.call(
                "io.fingerlock.Service.SealPasscodeSlot",
                [
                    "vault": vault.id, "stretched": vault.stretched.base64EncodedString(),
                    "key": vault.key.base64EncodedString(),
                    "associatedData": vault.associatedData.base64EncodedString(),
                ]
            ).parameters["sealedSlot"] as? String)
        var unlock: [String: Any] = [
            "vault": vault.id, "stretched": ClientVault.wrong.base64EncodedString(), "sealedSlot": slot,
            "associatedData": vault.associatedData.base64EncodedString(), "cacheSeconds": 3600,
        ]
        #expect(
            try client.call("io.fingerlock.Service.UnlockWithPasscode", unlock).errorName
                == "io.fingerlock.Service.WrongPasscode")
        unlock["stretched"] = vault.stretched.base64EncodedString()
        #expect(try client.call("io.fingerlock.Service.UnlockWithPasscode", unlock).errorName == nil)
        _ = try client.call(
            "io.fingerlock.Service.UnlockWithPasscode",
            unlock.merging(["stretched": ClientVault.wrong.base64EncodedString()]) { $1 })

        // SIGTERM with a client still connected: exit 0, socket removed, keys forgotten (logged).
        #expect(await daemon.terminate() == 0, "\(daemon.log)")
        #expect(client.closedByServer())
        #expect(!FileManager.default.fileExists(atPath: socket))
        #expect(daemon.log.contains("cached keys forgotten"))

        daemon = try await DaemonProcess(socket: socket, stateDirectory: state)
        defer { daemon.terminateBlocking() }
        let status = try VarlinkTestClient(path: socket).call("io.fingerlock.Service.Status", ["vault": vault.id])
        let fields = try #require(status.parameters["status"] as? [String: Any])
        #expect(fields["registered"] as? Bool == true)
        #expect(fields["unlocked"] as? Bool == false)
        // The failure after the unlock survived the restart.
        #expect(fields["failedPasscodes"] as? Int == 1)
    }

    @Test func aCountedAttemptSurvivesTheServiceBeingKilled() async throws {
        let directory = try TemporaryDirectory.make()
        let socket = directory + "/socket"
        let vault = ClientVault()
        var daemon = try await DaemonProcess(socket: socket, stateDirectory: directory + "/state")
        let client = try ServiceClient(socketPath: socket)
        _ = try client.registerVault(vault.id)
        let slot = try client.sealPasscodeSlot(
            .init(
                vault: vault.id, stretched: vault.stretched.base64EncodedString(), key: vault.key.base64EncodedString(),
                associatedData: vault.associatedData.base64EncodedString())
        ).sealedSlot
        for _ in 0..<3 {
            _ = try? client.unlockWithPasscode(
                .init(
                    vault: vault.id, stretched: ClientVault.wrong.base64EncodedString(), sealedSlot: slot,
                    associatedData: vault.associatedData.base64EncodedString(), cacheSeconds: 0))
        }
        await daemon.kill9()
        daemon = try await DaemonProcess(socket: socket, stateDirectory: directory + "/state")
        defer { daemon.terminateBlocking() }
        #expect(try ServiceClient(socketPath: socket).status(vault.id).failedPasscodes == 3)
    }

    @Test func aStaleSocketIsReplacedButALiveOneIsNot() async throws {
        let directory = try TemporaryDirectory.make()
        let socket = directory + "/socket"
        let first = try await DaemonProcess(socket: socket, stateDirectory: directory + "/state")
        // A second service on the same live socket refuses to start.
        let refused = try await runCommand(
            DaemonProcess.binaryPath, ["--socket", socket, "--state-dir", directory + "/state2"],
            mergingStandardError: true)
        #expect(refused.status == 1)
        #expect(refused.output.contains("already listening"))
        await first.kill9()
        #expect(FileManager.default.fileExists(atPath: socket))
        let second = try await DaemonProcess(socket: socket, stateDirectory: directory + "/state")
        #expect(try VarlinkTestClient(path: socket).call("org.varlink.service.GetInfo").errorName == nil)
        await second.terminate()
    }

    @Test func aStateDirectoryOthersCanEnterIsRefused() async throws {
        let directory = try TemporaryDirectory.make()
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: false)
        chmod(directory + "/state", 0o755)
        let refused = try await runCommand(
            DaemonProcess.binaryPath, ["--socket", directory + "/socket", "--state-dir", directory + "/state"],
            mergingStandardError: true)
        #expect(refused.status == 1)
        #expect(refused.output.contains("chmod 700"), "\(refused.output)")
    }
}
