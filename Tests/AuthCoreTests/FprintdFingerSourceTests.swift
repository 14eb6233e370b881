import AuthCore
import FingerlockTestSupport
import Fingerprint
import Foundation
import Synchronization
import Testing

/// fprintd's fingers behind the finger seam: what is checked before any scan (the accepted set, a
/// finger named that fprintd does not have), and how fprintd's answers read. fprintd itself is
/// stood in for by a scripted keeper here; the real one is tested on a private bus.
@Suite(.timed, .timeLimit(.minutes(1))) struct FprintdFingerSourceTests {
    /// Answers as fprintd would, from a script; counts the verifies started.
    final class ScriptedFprintd: FprintdFingers {
        let fingers: [Finger]
        let answers: Mutex<[FprintdVerifyResult]>
        let verifies = Mutex(0)

        init(fingers: [Finger], answers: [FprintdVerifyResult] = []) {
            self.fingers = fingers
            self.answers = Mutex(answers)
        }

        func device() async throws -> FprintdDevice { FprintdDevice(name: "Goodix MOC", scanType: .press, enrollStages: 10) }
        func enrolledFingers() async throws -> [Finger] { fingers }
        func fingersNow() throws -> AcceptedFingers { AcceptedFingers(device: "Goodix MOC", fingers: fingers) }
        func verify(_ finger: Finger?, timeout: Duration, fingerRead: @escaping @Sendable () -> Void) async throws
            -> FprintdVerifyResult
        {
            verifies.withLock { $0 += 1 }
            let answer = answers.withLock { $0.removeFirst() }
            if answer != .retry(.general) { fingerRead() }
            return answer
        }
        func enroll(_ finger: Finger, timeout: Duration, progress: @escaping @Sendable (EnrollEvent) -> Void) async throws {
            throw FingerprintError(.notSupported, "not used here")
        }
    }

    @Test func aMatchNamesTheFingerFprintdSelectedOrTheOneAskedFor() async throws {
        let fprintd = ScriptedFprintd(
            fingers: [.rightIndex, .leftThumb], answers: [.match(selected: nil), .match(selected: .leftThumb), .noMatch(checked: .rightIndex)])
        let source = try await FprintdFingerSource.open(fprintd, accepted: AcceptedFingers(device: "Goodix MOC", fingers: [.leftThumb, .rightIndex]))
        #expect(source.reader.identity == ReaderIdentity(driver: "fprintd", deviceID: "Goodix MOC"))
        #expect(try await source.enrolledFingers().map(\.finger) == [.leftThumb, .rightIndex])
        #expect(try await source.match(nil, timeout: .seconds(1)) {} == .match(nil))
        #expect(try await source.match(nil, timeout: .seconds(1)) {} == .match(.leftThumb))
        #expect(try await source.match(.rightIndex, timeout: .seconds(1)) {} == .noMatch(note: nil))
    }

    @Test func anyOnAReaderThatCannotIdentifySaysWhichOneFingerWasChecked() async throws {
        let fprintd = ScriptedFprintd(
            fingers: [.rightIndex, .leftThumb], answers: [.noMatch(checked: .leftThumb), .noMatch(checked: nil), .noMatch(checked: .leftThumb)])
        let source = try await FprintdFingerSource.open(fprintd, accepted: AcceptedFingers(device: "Goodix MOC", fingers: [.leftThumb, .rightIndex]))
        let first = try await source.match(nil, timeout: .seconds(1)) {}
        guard case .noMatch(let note?) = first else {
            Issue.record("no note: \(first)")
            return
        }
        #expect(note.hasPrefix("fprintd checked only left-thumb: this reader cannot identify among fingers"), "\(note)")
        // Identified among all (nothing selected), or the finger was named: nothing to add.
        #expect(try await source.match(nil, timeout: .seconds(1)) {} == .noMatch(note: nil))
        #expect(try await source.match(.leftThumb, timeout: .seconds(1)) {} == .noMatch(note: nil))
    }

    @Test func aChangedSetIsRefusedBeforeAnyScanAndSaysWhatChanged() async throws {
        let fprintd = ScriptedFprintd(fingers: [.rightIndex, .rightMiddle], answers: [.match(selected: nil)])
        let source = try await FprintdFingerSource.open(fprintd, accepted: AcceptedFingers(device: "Goodix MOC", fingers: [.rightIndex]))
        let error = await #expect(throws: FprintdFingerSource.FingersChanged.self) {
            _ = try await source.match(nil, timeout: .seconds(1)) {}
        }
        #expect(error?.change.added == [.rightMiddle])
        #expect(error?.message.contains("added right-middle-finger") == true)
        #expect(error?.current == AcceptedFingers(device: "Goodix MOC", fingers: [.rightIndex, .rightMiddle]))
        #expect(fprintd.verifies.withLock { $0 } == 0)
    }

    @Test func noFingersOrAFingerFprintdDoesNotHaveIsNothingToCheck() async throws {
        let identity = ReaderIdentity(driver: "fprintd", deviceID: "Goodix MOC")
        let none = try await FprintdFingerSource.open(ScriptedFprintd(fingers: []), accepted: nil)
        await #expect(throws: MatchCandidates.Problem.noneEnrolled(identity)) { _ = try await none.candidates(nil) }
        let one = try await FprintdFingerSource.open(ScriptedFprintd(fingers: [.leftThumb]), accepted: nil)
        await #expect(throws: MatchCandidates.Problem.fingerNotEnrolled(.rightIndex, identity)) {
            _ = try await one.candidates(.rightIndex)
        }
    }
}

/// The choice of a vault's fingers, written once for both modes (``VaultFingers``).
@Suite(.timed) struct VaultFingersTests {
    let fprintd = FprintdFingerSourceTests.ScriptedFprintd(fingers: [.rightIndex])
    let accepted = AcceptedFingers(device: "Goodix MOC", fingers: [.rightIndex])

    static func reader() -> SimulatedReader { SimulatedReader(touches: ScriptedTouchSource([]), now: { .now }) }

    @Test func aVaultThatTookFprintdsFingersIsCheckedByFprintdAndNoReaderIsLookedUp() async throws {
        let source = try await VaultFingers.source(
            kind: .hardware, accepted: accepted, fprintd: { try await FprintdFingerSource.open(fprintd, accepted: $0) },
            templates: {
                Issue.record("the templates' reader was looked up")
                return TemplateFingerSource([], reader: Self.reader())
            })
        #expect(source.reader.identity == FprintdDevice.identity(named: "Goodix MOC"))
    }

    @Test func aReaderOfAnotherKindIsRefusedWhicheverKeepsTheFingers() async throws {
        await #expect(throws: VaultFingers.WrongKind(reader: Self.reader().info.identity, kind: .hardware)) {
            _ = try await VaultFingers.source(
                kind: .hardware, accepted: nil, fprintd: { try await FprintdFingerSource.open(fprintd, accepted: $0) },
                templates: { TemplateFingerSource([], reader: Self.reader()) })
        }
        // fprintd's readers are hardware: a test vault never takes them.
        await #expect(throws: VaultFingers.WrongKind.self) {
            _ = try await VaultFingers.source(
                kind: .test, accepted: accepted, fprintd: { try await FprintdFingerSource.open(fprintd, accepted: $0) },
                templates: { TemplateFingerSource([], reader: Self.reader()) })
        }
        let test = try await VaultFingers.source(
            kind: .test, accepted: nil, fprintd: { try await FprintdFingerSource.open(fprintd, accepted: $0) },
            templates: { TemplateFingerSource([], reader: Self.reader()) })
        #expect(test.reader.identity.isTestReader)
    }
}
