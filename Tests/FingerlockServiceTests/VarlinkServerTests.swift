import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockService

#if canImport(Glibc)
    import Glibc
#endif

/// The socket server in process: the Varlink service interface, calls over a real socket, limits.
@Suite(.timed, .timeLimit(.minutes(1)))
struct VarlinkServerTests {
    @Test func getInfoAndTheInterfaceDescriptionAreServed() async throws {
        let service = try InProcessServer()
        let client = try service.client()
        let info = try client.call("org.varlink.service.GetInfo").parameters
        #expect(info["product"] as? String == "fingerlockd")
        #expect((info["version"] as? String)?.contains("protocol 1") == true)
        #expect(info["interfaces"] as? [String] == ["org.varlink.service", "io.fingerlock.Service"])
        let description =
            try client.call(
                "org.varlink.service.GetInterfaceDescription", ["interface": "io.fingerlock.Service"]
            ).parameters["description"] as? String
        #expect(description == ServiceInterface.description)
        let missing = try client.call("org.varlink.service.GetInterfaceDescription", ["interface": "com.example.Nope"])
        #expect(missing.errorName == "org.varlink.service.InterfaceNotFound")
        await service.stop()
    }

    @Test func theShippedInterfaceFileIsTheServedOne() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let shipped = try String(
            contentsOf: root.appendingPathComponent("varlink/io.fingerlock.Service.varlink"), encoding: .utf8)
        #expect(shipped == ServiceInterface.description)
    }

    @Test func aVaultRoundTripsOverTheSocketAsThePeerUid() async throws {
        let service = try InProcessServer()
        let client = try service.client()
        let vault = ClientVault()
        let registered = try client.call("io.fingerlock.Service.RegisterVault", ["vault": vault.id])
        #expect(registered.parameters["created"] as? Bool == true)
        let sealed =
            try client.call(
                "io.fingerlock.Service.SealPasscodeSlot",
                [
                    "vault": vault.id, "stretched": vault.stretched.base64EncodedString(),
                    "key": vault.key.base64EncodedString(),
                    "associatedData": vault.associatedData.base64EncodedString(),
                ]
            ).parameters["sealedSlot"] as? String
        let slot = try #require(sealed)
        let wrong = try client.call(
            "io.fingerlock.Service.UnlockWithPasscode",
            [
                "vault": vault.id, "stretched": ClientVault.wrong.base64EncodedString(), "sealedSlot": slot,
                "associatedData": vault.associatedData.base64EncodedString(), "cacheSeconds": 60,
            ])
        #expect(wrong.errorName == "io.fingerlock.Service.WrongPasscode")
        #expect(wrong.parameters["failedPasscodes"] as? Int == 1)
        let unlocked = try client.call(
            "io.fingerlock.Service.UnlockWithPasscode",
            [
                "vault": vault.id, "stretched": vault.stretched.base64EncodedString(), "sealedSlot": slot,
                "associatedData": vault.associatedData.base64EncodedString(), "cacheSeconds": 60,
            ])
        #expect(unlocked.parameters["key"] as? String == vault.key.base64EncodedString())
        // The records are the connecting process's uid's, whatever a message says.
        let owner = try VaultOwner(uid: getuid(), vault: vault.id)
        #expect(try service.harness.dependencies.secrets.contains(owner))
        let status =
            try client.call("io.fingerlock.Service.Status", ["vault": vault.id]).parameters["status"] as? [String: Any]
        #expect(status?["unlocked"] as? Bool == true)
        #expect(status?["failedPasscodes"] as? Int == 0)
        await service.stop()
    }

    /// Malformed, wrong-typed and unknown calls each get a Varlink error on a connection that stays usable.
    @Test(arguments: [
        ("not json", "org.varlink.service.InvalidParameter"),
        ("{\"method\": 5}", "org.varlink.service.InvalidParameter"),
        ("[1, 2, 3]", "org.varlink.service.InvalidParameter"),
        ("\"just a string\"", "org.varlink.service.InvalidParameter"),
        ("{}", "org.varlink.service.InvalidParameter"),
        ("{\"method\": \"io.fingerlock.Service.Status\"}", "org.varlink.service.InvalidParameter"),
        (
            "{\"method\": \"io.fingerlock.Service.Status\", \"parameters\": {\"vault\": 7}}",
            "org.varlink.service.InvalidParameter"
        ),
        (
            "{\"method\": \"io.fingerlock.Service.Status\", \"parameters\": [\"x\"]}",
            "org.varlink.service.InvalidParameter"
        ),
        (
            "{\"method\": \"io.fingerlock.Service.Status\", \"parameters\": {\"vault\": null}}",
            "org.varlink.service.InvalidParameter"
        ),
        (
            "{\"method\": \"io.fingerlock.Service.UnlockWithPasscode\", \"parameters\": {\"vault\": \"0F0E0D0C-0B0A-0908-0706-050403020100\", \"stretched\": \"\", \"sealedSlot\": \"\", \"associatedData\": \"\", \"cacheSeconds\": 1.5}}",
            "org.varlink.service.InvalidParameter"
        ),
        ("{\"method\": \"io.fingerlock.Service.Nope\"}", "org.varlink.service.MethodNotFound"),
        ("{\"method\": \"org.varlink.service.Nope\"}", "org.varlink.service.MethodNotFound"),
        ("{\"method\": \"com.example.Thing.Do\"}", "org.varlink.service.InterfaceNotFound"),
        (
            "{\"method\": \"io.fingerlock.Service.Status\", \"upgrade\": true, \"parameters\": {}}",
            "org.varlink.service.InvalidParameter"
        ),
        (
            String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000),
            "org.varlink.service.InvalidParameter"
        ),
        (
            "{\"method\": \"org.varlink.service.GetInfo\", \"parameters\": " + String(repeating: "{\"a\":", count: 100)
                + "1" + String(repeating: "}", count: 101), "org.varlink.service.InvalidParameter"
        ),
    ])
    func badMessagesGetAnErrorAndTheConnectionStaysUsable(message: String, error: String) async throws {
        let service = try InProcessServer()
        let client = try service.client()
        try client.send(message)
        #expect(try client.receive()?.errorName == error)
        #expect(try client.call("org.varlink.service.GetInfo").errorName == nil)
        await service.stop()
    }

    @Test func invalidUTF8AndRandomBytesNeverBreakTheService() async throws {
        let service = try InProcessServer()
        var generator = SeededGenerator(seed: 14)
        for round in 0..<200 {
            let client = try service.client()
            let length = Int.random(in: 1...2000, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if round % 2 == 0 {
                bytes = Array("{\"method\":\"io.fingerlock.Service.Status\",\"parameters\":{\"vault\":\"".utf8) + bytes
            }
            try? client.send(raw: bytes + [0])
            client.halfClose()
            // Every complete piece gets an answer or the connection closes; nothing hangs.
            while let reply = try client.receive() { #expect(reply.errorName != nil) }
        }
        #expect(try service.client().call("org.varlink.service.GetInfo").errorName == nil)
        await service.stop()
    }

    @Test func anOversizedMessageIsRefusedAndTheConnectionClosed() async throws {
        let service = try InProcessServer()
        let client = try service.client()
        try client.send(raw: [UInt8](repeating: UInt8(ascii: "a"), count: ServiceInterface.maximumMessageSize + 10))
        let reply = try client.receive()
        #expect(reply?.errorName == "io.fingerlock.Service.MessageTooLarge")
        #expect(reply?.parameters["limit"] as? Int == ServiceInterface.maximumMessageSize)
        #expect(client.closedByServer())
        // Also when the NUL comes within the same read.
        let second = try service.client()
        try second.send(String(repeating: " ", count: ServiceInterface.maximumMessageSize + 1) + "{}")
        #expect(try second.receive()?.errorName == "io.fingerlock.Service.MessageTooLarge")
        #expect(try service.client().call("org.varlink.service.GetInfo").errorName == nil)
        await service.stop()
    }

    @Test func truncatedAndHalfClosedConnectionsAreHandled() async throws {
        let service = try InProcessServer()
        // A message cut off by the client's close: nothing to answer, nothing breaks.
        let truncated = try service.client()
        try truncated.send(raw: Array("{\"method\":\"org.varlink.service.Get".utf8))
        truncated.halfClose()
        #expect(truncated.closedByServer())
        // A whole call then a half-close: answered, then closed.
        let halfClosed = try service.client()
        try halfClosed.send("{\"method\":\"org.varlink.service.GetInfo\"}")
        halfClosed.halfClose()
        #expect(try halfClosed.receive()?.errorName == nil)
        #expect(halfClosed.closedByServer())
        // Two calls in one write are answered in order; a oneway call gets no reply.
        let pipelined = try service.client()
        try pipelined.send(
            raw: Array(
                "{\"method\":\"org.varlink.service.GetInfo\",\"oneway\":true}\0{\"method\":\"nope.X\"}\0{\"method\":\"org.varlink.service.GetInfo\"}\0"
                    .utf8))
        #expect(try pipelined.receive()?.errorName == "org.varlink.service.InterfaceNotFound")
        #expect(try pipelined.receive()?.errorName == nil)
        #expect(await InProcessServer.eventually { service.server.openConnections == 1 })
        await service.stop()
    }

    @Test func slowAndIdleClientsAreCutOffAndNeverBlockOthers() async throws {
        var limits = ServiceLimits()
        limits.idleTimeout = .seconds(2)
        limits.messageTimeout = .seconds(2)
        let service = try InProcessServer(limits: limits)
        let started = Date()
        let idle = try service.client()
        let slow = try service.client()
        try slow.send(raw: Array("{\"method\":".utf8))
        // While both hold their connections, another client is served well before their deadlines.
        #expect(try service.client().call("org.varlink.service.GetInfo", timeout: 1).errorName == nil)
        // Trickling a byte now and then does not extend a message's deadline: it is cut off at about
        // 2 s from its first byte, however long it keeps trickling.
        var cutOff = false
        while !cutOff && Date().timeIntervalSince(started) < 8 {
            cutOff = (try? slow.send(raw: [UInt8(ascii: " ")])) == nil || slow.closedByServer(timeout: 0.3)
        }
        #expect(cutOff)
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(idle.closedByServer(timeout: 4))
        await service.stop()
    }

    @Test func tooManyConnectionsOfOneUserAreRefusedAndTheRestStillServed() async throws {
        var limits = ServiceLimits()
        limits.maximumConnectionsPerUser = 8
        let service = try InProcessServer(limits: limits)
        var idle: [VarlinkTestClient] = []
        for _ in 0..<8 { idle.append(try service.client()) }
        #expect(await InProcessServer.eventually { service.server.openConnections == 8 })
        let refused = try service.client()
        let reply = try refused.receive()
        #expect(reply?.errorName == "io.fingerlock.Service.TooManyConnections")
        #expect(refused.closedByServer())
        idle.removeAll()
        #expect(await InProcessServer.eventually { service.server.openConnections == 0 })
        #expect(try service.client().call("org.varlink.service.GetInfo").errorName == nil)
        await service.stop()
    }

    @Test func manyClientsAreServedConcurrently() async throws {
        let service = try InProcessServer()
        let path = service.socketPath
        let ok = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    guard let client = try? VarlinkTestClient(path: path) else { return false }
                    let vault = UUID().uuidString
                    for _ in 0..<10 {
                        guard
                            (try? client.call("io.fingerlock.Service.RegisterVault", ["vault": vault]))?.errorName
                                == nil
                        else { return false }
                    }
                    return true
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(ok)
        await service.stop()
    }

    @Test func stoppingClosesIdleConnectionsAndTheSocket() async throws {
        let service = try InProcessServer()
        let idle = try service.client()
        #expect(try idle.call("org.varlink.service.GetInfo").errorName == nil)
        #expect(await service.server.stop())
        #expect(idle.closedByServer())
        #expect(!FileManager.default.fileExists(atPath: service.socketPath))
    }
}

/// A small deterministic generator (SplitMix64), so a failing fuzz round can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
