import AuthCore
import Crypto
import FingerlockTestSupport
import Fingerprint
import Foundation
import Synchronization
import Testing
import Vault

@testable import Auth

/// What the client tells fingerlockd about a system-mode vault (its sealed settings, its kind, the
/// user-mode counts at `system enable`) and what it takes from it (tries, scan timeout); what a
/// scan left without a passcode says.
@Suite(.timed, .timeLimit(.minutes(1))) struct SystemPolicyTests {
    let install = Installation()

    func context(_ passcodes: any PasscodeRepository, _ fingers: FakeSystemFingers, _ interaction: ScriptedInteraction)
        -> AuthContext
    {
        AuthContext(
            AuthEnvironment(
                .init(
                    passcodes: passcodes, readerLookup: .found(nil), keyCache: install.cache, reuseMarkers: install.markers,
                    attempts: install.attempts,
                    interaction: interaction, remoteSession: { nil }, now: install.clock.now, systemService: fingers)))
    }

    func systemContext(_ fingers: FakeSystemFingers, _ interaction: ScriptedInteraction) -> AuthContext {
        context(SystemModeRepository(base: install.passcodes), fingers, interaction)
    }

    @Test func theServicesPolicyGivesTheTriesAndTheScanTimeout() async throws {
        try await install.setUp(fingers: [])
        let told = SystemVaultPolicy(
            cacheExpiry: .seconds(600), reuseWindow: .zero, maxTries: 1, scanTimeout: .seconds(7), kind: .test)
        let fingers = FakeSystemFingers(
            key: try install.masterKey(), touches: [.fail(.noMatch(failedTouches: 1, touchesLeft: 4))], policy: told)
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        let vault = try await systemContext(fingers, interaction).openNotes()
        vault.close()
        // One try (the vault's max-tries), with its scan timeout; then the passcode, which tells
        // the service the vault's settings again.
        #expect(fingers.calls.withLock { $0 } == ["touch 7s reuse", "policy"])
        #expect(interaction.prompts.count == 1)
    }

    @Test func changingASettingTellsTheServiceTheVaultsSettingsAndKind() async throws {
        try await install.setUp(fingers: [])
        let fingers = FakeSystemFingers(key: try install.masterKey(), touches: [])
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        _ = try await SettingsEditor(systemContext(fingers, interaction).environment).changeSetting(.scanTimeout, to: "45s")
        let last = try #require(fingers.told.withLock { $0.last })
        #expect(last.policy.scanTimeout == .seconds(45))
        #expect(last.policy.cacheExpiry == SecuritySettings().cacheExpiry)
        #expect(last.policy.kind == .test)
        #expect(last.counts == nil)
    }

    @Test func enablingCarriesTheUserModeCountsToTheService() async throws {
        try await install.setUp(fingers: [])
        let attempts = install.attempts
        // Failures a parallel run counts in user mode after the passcode opened the vault.
        let passcodes = SystemModeRepository(base: install.passcodes, mode: .user) {
            try? attempts.update {
                $0.failedTouches = 3
                $0.failedPasscodes = 2
            }
        }
        let fingers = FakeSystemFingers(key: try install.masterKey(), touches: [])
        try await ModeMigration(context(passcodes, fingers, ScriptedInteraction(secrets: [Installation.passcode])).environment).enableSystemMode()
        let told = try #require(fingers.told.withLock { $0.last })
        #expect(told.counts?.failedTouches == 3)
        #expect(told.counts?.failedPasscodes == 2)
        #expect(told.policy.kind == .test)
    }

    @Test func enablingSaysWhichOfFprintdsFingersMovedAndWhatThePasscodeAcceptedSince() async throws {
        try await install.setUp(fingers: [])
        let vault = try install.passcodes.open(with: .passcode(Installation.passcode))
        try FprintdAcceptance.write(AcceptedFingers(device: "Desk reader", fingers: [.rightIndex]), to: vault)
        vault.close()
        // A thumb added in the desktop's settings since the vault accepted the set.
        let fingers = FakeSystemFingers(
            key: try install.masterKey(), touches: [],
            fprintdSet: AcceptedFingers(device: "Desk reader", fingers: [.rightIndex, .leftThumb]))
        let interaction = ScriptedInteraction(secrets: [Installation.passcode])
        let passcodes = SystemModeRepository(base: install.passcodes, mode: .user)
        let moved = try await ModeMigration(context(passcodes, fingers, interaction).environment).enableSystemMode()
        #expect(moved.moved == [.rightIndex], "\(moved)")
        #expect(fingers.calls.withLock { $0 }.contains("use fprintd"))
        #expect(interaction.notices.contains { $0.contains("fprintd's fingers as they are (added left-thumb)") }, "\(interaction.notices)")
    }

    @Test func leavingAVerifyScanCancelsItInSystemMode() async throws {
        try await install.setUp(fingers: [])
        let fingers = FakeSystemFingers(key: try install.masterKey(), touches: [.match(.rightIndex)])
        let interaction = ScriptedInteraction(secrets: [], scanActions: [.askPasscode(typed: "")])
        do {
            _ = try await TouchVerification(systemContext(fingers, interaction).environment).verifyTouch(finger: nil)
            Issue.record("a cancelled verify matched")
        } catch let error as AuthError {
            #expect(error.code == .userCancel)
            #expect(error.message == "Cancelled; no finger was checked.")
        }
    }

    @Test func leavingAVerifyScanCancelsItInUserModeUncounted() async throws {
        try await install.setUp(fingers: [.rightIndex])
        let interaction = ScriptedInteraction(secrets: [], scanActions: [.askPasscode(typed: "")])
        let context = install.context(reader: Installation.reader([.finger(.rightIndex)]), interaction: interaction)
        do {
            _ = try await TouchVerification(context.environment).verifyTouch(finger: nil)
            Issue.record("a cancelled verify matched")
        } catch let error as AuthError {
            #expect(error.code == .userCancel)
            #expect(error.message == "Cancelled; no finger was checked.")
        }
        #expect(try install.attempts.read().failedTouches == 0)
    }

    @Test func theServicesWrongReaderKindReadsAsUserModesOwn() {
        let hardware = AuthError.from(
            systemService: SystemServiceError(.wrongReaderKind(reader: "simulated:0", kind: .hardware)))
        #expect(hardware.code == .biometryNotAvailable && hardware.unavailability == .wrongReaderKind)
        #expect(hardware.message == "This vault was set up with real hardware; it does not accept the test reader simulated:0.")
        let test = AuthError.from(systemService: SystemServiceError(.wrongReaderKind(reader: "goodix:1", kind: .test)))
        #expect(
            test.message
                == "This is a test vault (set up with a simulated or virtual reader); it does not accept goodix:1. To use it, export the notes (`fingerlock export --output FILE`), set up a new vault with this reader in a new data directory (`fingerlock --data-dir DIR passcode set`) and import them there (`fingerlock --data-dir DIR notes import FILE`)."
        )
    }
}
