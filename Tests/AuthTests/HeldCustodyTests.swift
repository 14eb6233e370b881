import AuthCore
import FingerlockTestSupport
import Fingerprint
import Foundation
import Synchronization
import Testing
import Vault

@testable import Auth

/// The custody is chosen once per command, from the recorded mode, and held by the environment;
/// what `lock` does when fingerlockd cannot be reached follows from where the key is kept.
@Suite(.timed, .timeLimit(.minutes(1))) struct HeldCustodyTests {
    let install = Installation()

    func environment(mode: VaultMode, service: any SystemService = NoSystemService()) -> AuthEnvironment {
        AuthEnvironment(
            .init(
                passcodes: SystemModeRepository(base: install.passcodes, mode: mode), readerLookup: .found(nil),
                keyCache: install.cache, reuseMarkers: install.markers, attempts: install.attempts,
                interaction: ScriptedInteraction(secrets: []), remoteSession: { nil }, now: install.clock.now,
                systemService: service))
    }

    @Test(arguments: [VaultMode.user, .system])
    func anEnvironmentLetGoIsFreedWithTheCustodyItHeld(_ mode: VaultMode) async throws {
        try await install.setUp(fingers: [])
        weak var letGo: AuthEnvironment?
        do {
            let held = environment(mode: mode)
            _ = try VaultStatusReport(held).status()
            #expect(held.heldCustody.mode == mode)
            letGo = held
        }
        #expect(letGo == nil)
    }

    @Test func theCustodyIsChosenOnceFromTheHeaderAndLetGoWhenAVaultMoves() async throws {
        try await install.setUp(fingers: [])
        let passcodes = SystemModeRepository(base: install.passcodes, mode: .user)
        let environment = AuthEnvironment(
            .init(
                passcodes: passcodes, readerLookup: .found(nil), keyCache: install.cache, reuseMarkers: install.markers,
                attempts: install.attempts, interaction: ScriptedInteraction(secrets: []), remoteSession: { nil },
                now: install.clock.now))
        #expect(environment.heldCustody.mode == .user)
        // Another process moves the vault: this command keeps the custody its header chose…
        passcodes.recorded.withLock { $0 = .system }
        #expect(environment.heldCustody.mode == .user)
        #expect(environment.custody is LocalCustody)
        // …until an operation that moves a vault lets the header go.
        environment.forgetRecordedHeader()
        #expect(environment.heldCustody.mode == .system)
        #expect(environment.custody is ServiceCustody)
    }

    @Test func lockOfASystemModeVaultSaysWhenFingerlockdCannotBeReached() async throws {
        try await install.setUp(fingers: [])
        let error = #expect(throws: AuthError.self) { try Locking(environment(mode: .system)).lock() }
        #expect(error?.code == .serviceUnavailable)
        #expect(error?.message.contains("fingerlockd is not configured") == true)
    }

    @Test func lockOfAUserModeVaultIgnoresAnUnreachableServiceButNotAFailingOne() async throws {
        try await install.setUp(fingers: [])
        #expect(try Locking(environment(mode: .user)).lock().forgotten == 1)
        let failing = FakeSystemFingers(
            key: try install.masterKey(), touches: [], lockFailure: SystemServiceError(.failure("the service refused")))
        #expect(throws: AuthError.self) { try Locking(environment(mode: .user, service: failing)).lock() }
    }
}
