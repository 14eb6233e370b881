import FingerlockServiceClient
import FingerlockProtocol
import Foundation
import Testing

@testable import FingerlockService

#if canImport(Glibc)
    import Glibc
#endif

/// The typed client the CLI will use, against the in-process server.
@Suite(.timeLimit(.minutes(1)))
struct ServiceClientTests {
    @Test func theTypedClientDrivesEveryMethod() async throws {
        let service = try InProcessServer()
        let client = try ServiceClient(socketPath: service.socketPath, expectedServiceUID: getuid())
        let vault = ClientVault()
        #expect(try client.info().interfaces.contains(ServiceInterface.name))
        #expect(try client.registerVault(vault.id).created)
        let slot = try client.sealPasscodeSlot(
            .init(
                vault: vault.id, stretched: vault.stretched.base64EncodedString(), key: vault.key.base64EncodedString(),
                associatedData: vault.associatedData.base64EncodedString())
        ).sealedSlot
        let unlock = VarlinkParameters.UnlockWithPasscode(
            vault: vault.id, stretched: ClientVault.wrong.base64EncodedString(), sealedSlot: slot,
            associatedData: vault.associatedData.base64EncodedString(), cacheSeconds: 60)
        #expect(
            throws: ServiceClientError.service(
                VarlinkError(.wrongPasscode, ["failedPasscodes": .int(1), "delaySeconds": .int(0)]))
        ) {
            try client.unlockWithPasscode(unlock)
        }
        var right = unlock
        right.stretched = vault.stretched.base64EncodedString()
        #expect(try client.unlockWithPasscode(right).key == vault.key.base64EncodedString())
        #expect(try client.status(vault.id).unlocked)
        #expect(try client.lock(vault.id).wasUnlocked)
        try client.forgetVault(right.proof)
        #expect(try !client.status(vault.id).registered)
        await service.stop()
    }

    @Test func aSocketServedByAnotherUserOrNobodyIsRefused() async throws {
        let service = try InProcessServer()
        #expect(throws: ServiceClientError.self) {
            _ = try ServiceClient(socketPath: service.socketPath, expectedServiceUID: getuid() &+ 1)
        }
        await service.stop()
        #expect(throws: ServiceClientError.self) { _ = try ServiceClient(socketPath: service.socketPath) }
    }

    @Test func aSilentServiceTimesOut() throws {
        // A listening socket nobody accepts on: the call must give up at its deadline.
        let directory = try TemporaryDirectory.make()
        let listener = try ListeningSocket.bind(path: directory + "/socket")
        defer { listener.stopListening() }
        let client = try ServiceClient(socketPath: directory + "/socket", timeout: .milliseconds(300))
        #expect(throws: ServiceClientError.timedOut) { _ = try client.status(UUID().uuidString) }
    }
}
