import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Fingerprint
import Foundation
import Synchronization
import Testing

@testable import FingerlockService

/// Issue 38 (H3), the seat rule over what logind says: only the user whose session is active and
/// local at the reader's seat may scan, and a process in a session must be in that one.
@Suite(.timed) struct SeatRuleTests {
    static let alice: UInt32 = 1001
    static let bob: UInt32 = 1002
    static let aliceAtSeat = LoginSession(
        id: "1", path: "/org/freedesktop/login1/session/_31", uid: alice, remote: false, active: true, state: "active")
    static let aliceOverSSH = LoginSession(
        id: "7", path: "/org/freedesktop/login1/session/_37", uid: alice, remote: true, active: false, state: "online")
    static let aliceOnATTY = LoginSession(
        id: "3", path: "/org/freedesktop/login1/session/_33", uid: alice, remote: false, active: false, state: "online")
    static let bobAtSeat = LoginSession(
        id: "2", path: "/org/freedesktop/login1/session/_32", uid: bob, remote: false, active: true, state: "active")

    /// What logind answers, as a test sets it.
    struct Logind: LoginSessions {
        var active: LoginSession?
        var own: LoginSession?
        var failure: LoginQueryError?
        func activeSession(seat: String) throws(LoginQueryError) -> LoginSession? {
            if let failure { throw failure }
            return active
        }
        func session(ofProcess pid: Int32) throws(LoginQueryError) -> LoginSession? {
            if let failure { throw failure }
            return own
        }
    }

    struct Situation: Sendable, CustomTestStringConvertible {
        var name: String
        var logind: Logind
        var pid: Int32 = 4242
        var allowWithoutLogind = false
        /// nil: allowed.
        var refused: ServiceInterface.SeatProblem?
        var testDescription: String { name }
    }

    static let situations: [Situation] = [
        Situation(name: "Alice at the seat, from her session", logind: Logind(active: aliceAtSeat, own: aliceAtSeat)),
        Situation(name: "Alice at the seat, from a process in no session", logind: Logind(active: aliceAtSeat)),
        Situation(name: "Alice over ssh", logind: Logind(active: bobAtSeat, own: aliceOverSSH), refused: .remote),
        Situation(
            name: "Alice over ssh while her own session is active", logind: Logind(active: aliceAtSeat, own: aliceOverSSH),
            refused: .remote),
        Situation(
            name: "Alice on a text console while her desktop is in front",
            logind: Logind(active: aliceAtSeat, own: aliceOnATTY), refused: .notActive),
        Situation(name: "Bob in front", logind: Logind(active: bobAtSeat), refused: .notActive),
        Situation(name: "nobody in front", logind: Logind(active: nil), refused: .notActive),
        Situation(
            name: "the active session is remote",
            logind: Logind(
                active: LoginSession(id: "9", path: "/s/9", uid: alice, remote: true, active: true, state: "active")),
            refused: .notActive),
        Situation(
            name: "the seat's session is closing",
            logind: Logind(
                active: LoginSession(id: "1", path: "/s/1", uid: alice, remote: false, active: true, state: "closing")),
            refused: .notActive),
        Situation(name: "a caller in another PID namespace", logind: Logind(active: aliceAtSeat), pid: 0, refused: .unknown),
        Situation(name: "no logind", logind: Logind(failure: .absent("no system bus")), refused: .unknown),
        Situation(
            name: "no logind, told to allow it", logind: Logind(failure: .absent("no system bus")),
            allowWithoutLogind: true),
        Situation(
            name: "logind failing, even when told to allow its absence", logind: Logind(failure: .failed("timed out")),
            allowWithoutLogind: true, refused: .unknown),
    ]

    @Test(arguments: situations)
    func onlyTheUserActiveAndLocalAtTheSeatMayScan(_ situation: Situation) {
        let rule = SeatRule(seat: "seat0", allowWithoutLogind: situation.allowWithoutLogind)
        let verdict = rule.verdict(uid: Self.alice, pid: situation.pid, sessions: situation.logind)
        switch (verdict, situation.refused) {
        case (.allowed, nil): break
        case (.refused(let refusal), let problem?): #expect(refusal.problem == problem, "\(refusal)")
        default: Issue.record("\(situation.name): \(verdict)")
        }
    }

    @Test func aSeatNameIsEscapedAsLogindNamesItsObjectPath() {
        #expect(LogindSessions.escaped("seat0") == "seat0")
        #expect(LogindSessions.escaped("seat-1.x") == "seat_2d1_2ex")
    }
}

/// The seat as a test sets it: only `active`'s uid may scan.
final class TestSeat: SeatAccess {
    private let active: Mutex<UInt32?>
    init(active: UInt32?) { self.active = Mutex(active) }
    func activate(_ uid: UInt32?) { active.withLock { $0 = uid } }
    func mayScan(uid: UInt32, pid: Int32) async -> SeatVerdict {
        active.withLock { $0 } == uid ? .allowed : .refused(SeatRefusal(.notActive, "test: another user is at the seat"))
    }
}

/// The service's side of the seat rule, in process: asked before a scan waits, again when its turn
/// comes and while it runs; an enrollment that waits is told whose request holds the reader.
@Suite(.timed, .timeLimit(.minutes(1)))
struct ServiceSeatTests {
    let alice = TouchFixture.alice
    let bob = TouchFixture.bob

    /// The Varlink error `body` fails with (nil: none).
    func failure(_ body: () async throws -> Void) async -> VarlinkError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? VarlinkError
        }
    }

    @Test func aCallerNotAtTheSeatNeitherEnrollsNorTouchesAndTheReaderSeesNothing() async throws {
        let seat = TestSeat(active: TouchFixture.alice.uid)
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex)], seat: seat)
        _ = try fixture.core.registerVault(.init(vault: fixture.vault.id), peer: bob)
        let bobsSlot = try fixture.vault.seal(fixture.core, as: bob)
        _ = try fixture.vault.unlock(fixture.core, slot: bobsSlot, as: bob, cacheSeconds: 600)
        let enroll = await failure {
            _ = try await fixture.core.enrollFinger(
                .init(proof: fixture.vault.proof(slot: bobsSlot), finger: Finger.rightIndex.rawValue, timeoutSeconds: 5),
                peer: bob
            ) { _ in true }
        }
        #expect(enroll?.name == "io.fingerlock.Service.NotAtSeat", "\(String(describing: enroll))")
        #expect(enroll?.parameters["problem"] == .string("notActive"))
        let touch = await failure { _ = try await fixture.touch(as: bob) }
        #expect(touch?.name == "io.fingerlock.Service.NotAtSeat", "\(String(describing: touch))")
        #expect(fixture.touches.remainingCount == 2)
        // The touches are Alice's, at the seat.
        _ = try await fixture.enroll(.rightIndex)
        #expect(fixture.touches.remainingCount == 0)
    }

    @Test func aRequestThatWaitedScansNothingWhenTheSeatChangedHandsMeanwhile() async throws {
        let seat = TestSeat(active: TouchFixture.alice.uid)
        // Alice enrolls, then her first touch holds the reader while her second waits.
        let fixture = try TouchFixture(
            script: [.finger(.rightIndex), .finger(.rightIndex), .hold, .finger(.rightIndex)], seat: seat)
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        async let holding = fixture.touchOutcome(timeout: 2)
        #expect(await InProcessServer.eventually { fixture.touches.remainingCount == 1 })
        async let waiting = fixture.touchOutcome(timeout: 30)
        #expect(await InProcessServer.eventually { fixture.core.scans.waiting == 1 })
        // Bob sits down (a user switch): Alice's waiting request reaches the reader and scans nothing.
        seat.activate(bob.uid)
        #expect(await holding == "ScanTimedOut")
        #expect(await waiting == "NotAtSeat")
        #expect(fixture.touches.remainingCount == 1)
    }

    @Test func aRunningScanEndsWhenTheSeatChangesHands() async throws {
        let seat = TestSeat(active: TouchFixture.alice.uid)
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex), .hold], seat: seat)
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        async let touch = failure {
            _ = try await fixture.core.whileAtSeat(alice, for: "UnlockWithTouch") {
                try await fixture.touch(timeout: 30)
            }
        }
        #expect(await InProcessServer.eventually { fixture.touches.remainingCount == 0 })
        // Timed from the change of hands (before, the setup's time on a busy machine counted too).
        let changed = ContinuousClock.now
        seat.activate(bob.uid)
        #expect(await touch?.name == "io.fingerlock.Service.NotAtSeat")
        // Within a recheck or two, not at the scan's 30 s timeout.
        #expect(ContinuousClock.now - changed < .seconds(10))
    }

    @Test(arguments: [ServiceInterface.ReaderHolder.scan, .enrollment])
    func aWaitingEnrollmentIsToldThatAnotherUsersRequestHoldsTheReader(_ holder: ServiceInterface.ReaderHolder)
        async throws
    {
        // Alice enrolls; then her request (a touch, or a second enrollment) holds the reader for 2 s
        // while Bob's enrollment waits; Bob's two touches come after.
        let fixture = try TouchFixture(
            script: [.finger(.rightIndex), .finger(.rightIndex), .hold, .finger(.leftThumb), .finger(.leftThumb)])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        _ = try fixture.core.registerVault(.init(vault: fixture.vault.id), peer: bob)
        let bobsSlot = try fixture.vault.seal(fixture.core, as: bob)
        async let alices: VarlinkError? = failure {
            switch holder {
            case .scan: _ = try await fixture.touch(timeout: 2)
            case .enrollment:
                _ = try await fixture.core.enrollFinger(
                    .init(proof: fixture.vault.proof(slot: fixture.slot), finger: "left-index-finger", timeoutSeconds: 2),
                    peer: alice
                ) { _ in true }
            }
        }
        #expect(await InProcessServer.eventually { fixture.touches.remainingCount == 2 })
        let stages = Mutex<[VarlinkParameters.EnrollStage]>([])
        let bobs = try await fixture.core.enrollFinger(
            .init(proof: fixture.vault.proof(slot: bobsSlot), finger: Finger.leftThumb.rawValue, timeoutSeconds: 10),
            peer: bob
        ) { stage in
            stages.withLock { $0.append(stage) }
            return true
        }
        #expect(await alices?.name == "io.fingerlock.Service.ScanTimedOut")
        #expect(bobs.enrolled?.finger == Finger.leftThumb.rawValue)
        let first = stages.withLock { $0.first }
        #expect(first == .init(event: .waiting, completed: 0, total: 0, retry: "", busyWith: holder))
    }

    @Test func aWaitingTouchIsToldThatAnotherUsersScanHoldsTheReader() async throws {
        // Alice's and Bob's enrollments; Alice's touch holds the reader for 2 s; Bob's touch after.
        let fixture = try TouchFixture(
            script: Array(repeating: .finger(.rightIndex), count: 4) + [.hold, .finger(.rightIndex)])
        _ = try await fixture.enroll(.rightIndex)
        try await fixture.bobsVault()
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        async let alices = fixture.touchOutcome(timeout: 2)
        #expect(await InProcessServer.eventually { fixture.touches.remainingCount == 1 })
        let told = Mutex<[ServiceInterface.ReaderHolder]>([])
        let bobs = try await fixture.core.unlockWithTouch(
            .init(vault: fixture.vault.id, finger: nil, timeoutSeconds: 10), peer: bob
        ) { holder in told.withLock { $0.append(holder) } }
        #expect(await alices == "ScanTimedOut")
        #expect(bobs.finger == Finger.rightIndex.rawValue)
        #expect(told.withLock { $0 } == [.scan])
    }
}
