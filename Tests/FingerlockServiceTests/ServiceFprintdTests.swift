import AuthCore
import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Fingerprint
import FingerprintTestSupport
import Foundation
import Fprintd
import Testing

@testable import FingerlockService

/// System mode with fprintd's fingers: the service's policy in process, asking the real fprintd
/// (Debian's, on a private bus, libfprint's virtual_device behind it, dbusmock's polkit) about the
/// vault owner's fingers by name, as fingerlockd does. Alice is `daemon` to fprintd, Bob `bin`:
/// neither is the test's own user, so every question needs polkit's `setusername`.
@Suite(.timed, .timeLimit(.minutes(2)))
struct ServiceFprintdTests {
    let alice = ServiceHarness.alice
    let bob = ServiceHarness.bob

    /// The service core with Alice's registered vault, and fprintd as the service would ask it.
    struct Fixture {
        let rig: FprintdRig
        let harness: ServiceHarness
        let vault = ClientVault()
        let slot: String
        var core: ServiceCore { harness.core }
        var socket: VirtualDeviceSocket { VirtualDeviceSocket(path: rig.virtualDevice) }

        init(seat: any SeatAccess = AnyCallerMayScan()) async throws {
            rig = try await FprintdRig(allowed: [FprintdRig.verify, FprintdRig.enroll, FprintdRig.setUsername])
            let fprintd = FprintdClient(busAddress: rig.address)
            let names: [UInt32: String] = [ServiceHarness.alice.uid: "daemon", ServiceHarness.bob.uid: "bin"]
            harness = try ServiceHarness(seat: seat, fprintd: { uid in names[uid].map { fprintd.asking(for: $0) } })
            _ = try harness.core.registerVault(.init(vault: vault.id), peer: ServiceHarness.alice)
            slot = try vault.seal(harness.core, as: ServiceHarness.alice)
        }

        func use(_ use: Bool = true, as peer: PeerCredentials = ServiceHarness.alice, stretched: Data? = nil) async throws
            -> VarlinkParameters.UseFprintdFingersReply
        {
            try await core.useFprintdFingers(.init(proof: vault.proof(slot: slot, stretched: stretched), use: use), peer: peer)
        }

        func unlockWithPasscode() throws -> VarlinkParameters.UnlockWithPasscodeReply {
            try vault.unlock(core, slot: slot, as: ServiceHarness.alice, cacheSeconds: 600)
        }

        /// One touch unlock of Alice's vault (of `finger` only, when named), the virtual device
        /// reading `id` (nil: nothing is fed).
        func touch(_ id: String?, finger: Finger? = nil) async throws -> VarlinkParameters.UnlockWithTouchReply {
            async let reply = core.unlockWithTouch(
                .init(vault: vault.id, finger: finger?.rawValue, timeoutSeconds: 20), peer: ServiceHarness.alice)
            if let id { try await socket.touch(id) }
            return try await reply
        }

        var counts: AttemptState {
            get throws { try harness.dependencies.attempts(VaultOwner(uid: ServiceHarness.alice.uid, vault: vault.id)).read() }
        }

        func stop() { rig.stop() }
    }

    @Test func aVaultTakesItsOwnersFingersFromFprintdAndATouchThereReleasesTheKey() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        try await fixture.rig.enroll("right-index-finger", scanning: "alice-right", for: "daemon")
        let used = try await fixture.use()
        #expect(used == .init(used: true, device: "Virtual device for debugging", fingers: ["right-index-finger"]))
        _ = try fixture.unlockWithPasscode()
        let reply = try await fixture.touch("alice-right")
        #expect(reply.key == fixture.vault.key.base64EncodedString())
        #expect(reply.finger == "right-index-finger")
        #expect(reply.reader == "fprintd:Virtual device for debugging")
        // Someone else's finger on the reader: a failed touch, counted by the service.
        await #expect(throws: VarlinkError.self) { _ = try await fixture.touch("someone-else") }
        #expect(try fixture.counts.failedTouches == 1)
    }

    @Test func aFingerAddedWithFprintdNeedsThePasscodeWhichAcceptsIt() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        try await fixture.rig.enroll("right-index-finger", scanning: "alice-right", for: "daemon")
        _ = try await fixture.use()
        _ = try fixture.unlockWithPasscode()
        // Added in the desktop's settings with the login password alone.
        try await fixture.rig.enroll("left-thumb", scanning: "alice-thumb", for: "daemon")
        let changed = await #expect(throws: VarlinkError.self) { _ = try await fixture.touch(nil) }
        #expect(changed?.name == "io.fingerlock.Service.PasscodeRequired")
        #expect(changed?.parameters["reason"] == .string("fingersChanged"))
        #expect(changed?.string("message")?.contains("added left-thumb") == true)
        // Nothing was scanned, so nothing was counted.
        #expect(try fixture.counts.failedTouches == 0)
        let unlocked = try fixture.unlockWithPasscode()
        #expect(unlocked.fprintdChange == "added left-thumb")
        // virtual_device cannot identify: fprintd's `any` would try only its first finger.
        let touched = try await fixture.touch("alice-right", finger: .rightIndex)
        #expect(touched.key == fixture.vault.key.base64EncodedString() && touched.finger == "right-index-finger")
        // Accepted once: the next passcode unlock has nothing to say.
        #expect(try fixture.unlockWithPasscode().fprintdChange == nil)
    }

    @Test func aFingerRemovedAtFprintdAlsoNeedsThePasscode() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        try await fixture.rig.enroll("right-index-finger", scanning: "alice-right", for: "daemon")
        try await fixture.rig.enroll("left-thumb", scanning: "alice-thumb", for: "daemon")
        _ = try await fixture.use()
        _ = try fixture.unlockWithPasscode()
        #expect(try fixture.rig.run("/usr/bin/fprintd-delete", ["daemon", "-f", "left-thumb"]) == 0)
        let changed = await #expect(throws: VarlinkError.self) { _ = try await fixture.touch(nil) }
        #expect(changed?.parameters["reason"] == .string("fingersChanged"))
        #expect(changed?.string("message")?.contains("removed left-thumb") == true)
        #expect(try fixture.unlockWithPasscode().fprintdChange == "removed left-thumb")
    }

    @Test func aWrongPasscodeTakesNoFingersFromFprintdAndIsCounted() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        try await fixture.rig.enroll("right-index-finger", scanning: "alice-right", for: "daemon")
        let refused = await #expect(throws: VarlinkError.self) { _ = try await fixture.use(stretched: Data(repeating: 7, count: 32)) }
        #expect(refused?.name == "io.fingerlock.Service.WrongPasscode")
        #expect(try fixture.counts.failedPasscodes == 1)
        // Nothing was accepted: the vault still has no fingers, and a touch has nothing to check.
        #expect(try fixture.core.listFingers(.init(vault: fixture.vault.id), peer: alice).fingers.isEmpty)
    }

    @Test func withNoFingerAtFprintdNothingIsAcceptedAndNoPasscodeCounted() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        // Alice's fingers are at fprintd; Bob's vault asks for Bob's, of which there are none.
        try await fixture.rig.enroll("right-index-finger", scanning: "alice-right", for: "daemon")
        _ = try fixture.core.registerVault(.init(vault: fixture.vault.id), peer: bob)
        let bobsSlot = try fixture.vault.seal(fixture.core, as: bob)
        let refused = await #expect(throws: VarlinkError.self) {
            _ = try await fixture.core.useFprintdFingers(
                .init(proof: fixture.vault.proof(slot: bobsSlot, stretched: Data(repeating: 7, count: 32)), use: true), peer: bob)
        }
        #expect(refused?.name == "io.fingerlock.Service.NoFingerEnrolled")
        #expect(refused?.string("reader") == "fprintd:Virtual device for debugging")
        // A wrong passcode was sent, and not counted: fprintd was asked first.
        let bobs = try fixture.harness.dependencies.attempts(VaultOwner(uid: bob.uid, vault: fixture.vault.id)).read()
        #expect(bobs.failedPasscodes == 0)
    }

    @Test func fprintdRefusedByPolkitIsAReaderProblemAndCountsNothing() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        try await fixture.rig.enroll("right-index-finger", scanning: "alice-right", for: "daemon")
        // Without the rule that grants the service user `setusername`, fprintd refuses to name Alice.
        try fixture.rig.allow([FprintdRig.verify])
        let refused = await #expect(throws: VarlinkError.self) { _ = try await fixture.use() }
        #expect(refused?.name == "io.fingerlock.Service.ReaderUnavailable")
        #expect(refused?.string("problem") == "noPermission")
        #expect(try fixture.counts.failedPasscodes == 0)
    }

    @Test func aCallerNotAtTheSeatIsRefusedBeforeFprintdScans() async throws {
        let fixture = try await Fixture(seat: RefusingSeat())
        defer { fixture.stop() }
        try await fixture.rig.enroll("right-index-finger", scanning: "alice-right", for: "daemon")
        _ = try await fixture.use()
        _ = try fixture.unlockWithPasscode()
        let refused = await #expect(throws: VarlinkError.self) { _ = try await fixture.touch(nil) }
        #expect(refused?.name == "io.fingerlock.Service.NotAtSeat")
        #expect(try fixture.counts.failedTouches == 0)
    }

    @Test func withoutFprintdsFingersTheVaultsOwnTemplatesApplyAgain() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        try await fixture.rig.enroll("right-index-finger", scanning: "alice-right", for: "daemon")
        _ = try await fixture.use()
        let stopped = try await fixture.use(false)
        #expect(stopped == .init(used: true, device: "Virtual device for debugging", fingers: ["right-index-finger"]))
        #expect(try await fixture.use(false).used == false)
        _ = try fixture.unlockWithPasscode()
        // The service's own reader (none here) is asked again, never fprintd.
        let error = await #expect(throws: VarlinkError.self) { _ = try await fixture.touch(nil) }
        #expect(error?.name == "io.fingerlock.Service.ReaderUnavailable")
        #expect(error?.string("problem") == "noReader")
    }
}

/// logind saying the caller's session is a remote one.
private struct RefusingSeat: SeatAccess {
    func mayScan(uid: UInt32, pid: Int32) async -> SeatVerdict {
        .refused(SeatRefusal(.remote, "logind session 4 is a remote login"))
    }
}
