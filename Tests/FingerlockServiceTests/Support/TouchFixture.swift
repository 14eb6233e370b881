import Auth
import AuthCore
import FingerlockProtocol
import FingerlockServiceTestSupport
import Fingerprint
import Foundation
import Synchronization
import Testing

@testable import FingerlockService

/// A service core with a simulated reader the test scripts, and one registered vault of Alice's.
struct TouchFixture {
    let harness: ServiceHarness
    let touches: ScriptedTouchSource
    let vault = ClientVault()
    let slot: String
    var core: ServiceCore { harness.core }
    static let alice = ServiceHarness.alice
    static let bob = ServiceHarness.bob

    /// `stages` touches enroll a finger; `script` is every touch the reader will see, in order;
    /// `reader` may wrap the simulated reader the service scans with, and `readers` say how the
    /// service looks it up.
    init(
        stages: Int = 2, script: [SimulatedTouch],
        reader wrap: (SimulatedReader) -> any FingerprintReader = { $0 },
        readers lookUp: (any FingerprintReader) -> ServiceReaders = { .fixed($0) },
        seat: any SeatAccess = AnyCallerMayScan()
    ) throws {
        let touches = ScriptedTouchSource(script)
        self.touches = touches
        let reader = SimulatedReader(touches: touches, enrollStages: stages, now: { Date() })
        harness = try ServiceHarness(readers: lookUp(wrap(reader)), seat: seat)
        _ = try harness.core.registerVault(.init(vault: vault.id), peer: Self.alice)
        slot = try vault.seal(harness.core, as: Self.alice)
    }

    func enroll(_ finger: Finger, as peer: PeerCredentials = alice, stretched: Data? = nil) async throws
        -> [VarlinkParameters.EnrollStage]
    {
        let stages = Mutex<[VarlinkParameters.EnrollStage]>([])
        let reply = try await core.enrollFinger(
            .init(proof: vault.proof(slot: slot, stretched: stretched), finger: finger.rawValue, timeoutSeconds: 5),
            peer: peer
        ) { stage in
            stages.withLock { $0.append(stage) }
            return true
        }
        #expect(reply.enrolled?.finger == finger.rawValue)
        return stages.withLock { $0 }
    }

    func touch(as peer: PeerCredentials = alice, finger: Finger? = nil, timeout: Int = 5) async throws
        -> VarlinkParameters.UnlockWithTouchReply
    {
        try await core.unlockWithTouch(.init(vault: vault.id, finger: finger?.rawValue, timeoutSeconds: timeout), peer: peer)
    }

    /// The Varlink error a touch fails with (nil when it unlocked).
    func touchError(as peer: PeerCredentials = alice, finger: Finger? = nil) async -> VarlinkError? {
        do {
            _ = try await touch(as: peer, finger: finger)
            return nil
        } catch {
            return error as? VarlinkError
        }
    }

    /// Bob's vault with the same id, his own passcode slot, unlocked for 10 minutes, and his right
    /// index finger enrolled (the next `stages` touches).
    func bobsVault() async throws {
        _ = try core.registerVault(.init(vault: vault.id), peer: Self.bob)
        let bobsSlot = try vault.seal(core, as: Self.bob)
        _ = try vault.unlock(core, slot: bobsSlot, as: Self.bob, cacheSeconds: 600)
        let reply = try await core.enrollFinger(
            .init(proof: vault.proof(slot: bobsSlot), finger: Finger.rightIndex.rawValue, timeoutSeconds: 5),
            peer: Self.bob
        ) { _ in true }
        #expect(reply.enrolled?.finger == Finger.rightIndex.rawValue)
    }

    /// The outcome of a touch: "key" when it unlocked, otherwise the error's name without its prefix.
    func touchOutcome(as peer: PeerCredentials = alice, timeout: Int = 5) async -> String {
        do {
            _ = try await touch(as: peer, timeout: timeout)
            return "key"
        } catch let error as VarlinkError {
            return String(error.name.split(separator: ".").last ?? "")
        } catch {
            return "\(error)"
        }
    }

    func unlockWithPasscode(cacheSeconds: Int) throws {
        _ = try vault.unlock(core, slot: slot, as: Self.alice, cacheSeconds: cacheSeconds)
    }

    var failedTouches: Int {
        get throws { try harness.dependencies.attempts(VaultOwner(uid: Self.alice.uid, vault: vault.id)).read().failedTouches }
    }
}
