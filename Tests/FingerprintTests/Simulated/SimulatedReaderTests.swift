import FingerlockTestSupport
import Foundation
import Testing

@testable import Fingerprint

/// A touch source that never delivers a touch, to test cancellation.
struct SilentTouchSource: SimulatedTouchSource {
    func nextTouch(for purpose: SimulatedScanPurpose, timeout: Duration) async throws -> SimulatedTouch {
        try await Task.sleep(for: timeout)
        return .timeout
    }
}

func simulatedReader(_ touches: [SimulatedTouch], stages: Int = 5) -> SimulatedReader {
    SimulatedReader(touches: ScriptedTouchSource(touches), enrollStages: stages, now: { Date(timeIntervalSince1970: 1_800_000_000) })
}

func collectEnrollment(_ reader: SimulatedReader, _ finger: Finger) async throws -> [EnrollEvent] {
    var events: [EnrollEvent] = []
    for try await event in reader.enroll(finger, username: "tester", timeout: .seconds(5)) { events.append(event) }
    return events
}

@Suite(.timed, .timeLimit(.minutes(1))) struct SimulatedReaderTests {
    @Test func describesItselfAsATestReaderThatIdentifies() {
        let info = simulatedReader([]).info
        #expect(info.identity == ReaderIdentity(driver: "simulated", deviceID: "0"))
        #expect(info.identity.isTestReader)
        #expect(info.enrollStages == 5)
        #expect(info.canIdentify)
        #expect(!info.hasStorage)
    }

    @Test func enrollReportsEachStageAndRetriesForOtherFingers() async throws {
        let reader = simulatedReader(
            [.finger(.rightIndex), .finger(.leftThumb), .retry(.centerFinger), .unknown, .finger(.rightIndex), .finger(.rightIndex)],
            stages: 3)
        let events = try await collectEnrollment(reader, .rightIndex)
        #expect(events.count == 8)
        #expect(
            Array(events.prefix(7)) == [
                .opened(stages: 3), .stage(completed: 1, total: 3), .retry(.general), .retry(.centerFinger), .retry(.general),
                .stage(completed: 2, total: 3), .stage(completed: 3, total: 3),
            ])
        guard case .enrolled(let print) = events.last else {
            Issue.record("no print at the end")
            return
        }
        #expect(print.finger == .rightIndex)
        #expect(print.reader == reader.identity)
        #expect(print.enrolled == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(!String(decoding: print.template, as: UTF8.self).contains("right-index"))
    }

    @Test func theSameFingerEnrolledTwiceGivesDifferentTemplates() async throws {
        let reader = simulatedReader(Array(repeating: .finger(.rightIndex), count: 2), stages: 1)
        let first = try await reader.enroll(.rightIndex, username: "t", timeout: .seconds(1)) { _ in }
        let second = try await reader.enroll(.rightIndex, username: "t", timeout: .seconds(1)) { _ in }
        #expect(first.template != second.template)
    }

    @Test func onlyTheEnrolledFingerMatches() async throws {
        let enrolling = simulatedReader([.finger(.leftMiddle)], stages: 1)
        let print = try await enrolling.enroll(.leftMiddle, username: "t", timeout: .seconds(1)) { _ in }
        let reader = simulatedReader([.finger(.leftMiddle), .finger(.rightMiddle), .unknown, .retry(.tooShort)])
        #expect(try await reader.verify(print, timeout: .seconds(1)) == .match(print))
        #expect(try await reader.verify(print, timeout: .seconds(1)) == .noMatch)
        #expect(try await reader.verify(print, timeout: .seconds(1)) == .noMatch)
        #expect(try await reader.verify(print, timeout: .seconds(1)) == .retry(.tooShort))
    }

    @Test func identifyFindsWhichFingerTouched() async throws {
        let enrolling = simulatedReader([.finger(.leftThumb), .finger(.rightThumb)], stages: 1)
        let left = try await enrolling.enroll(.leftThumb, username: "t", timeout: .seconds(1)) { _ in }
        let right = try await enrolling.enroll(.rightThumb, username: "t", timeout: .seconds(1)) { _ in }
        let reader = simulatedReader([.finger(.rightThumb), .finger(.leftThumb), .finger(.rightIndex)])
        #expect(try await reader.identify([left, right], timeout: .seconds(1)) == .match(right))
        #expect(try await reader.identify([left, right], timeout: .seconds(1)) == .match(left))
        #expect(try await reader.identify([left, right], timeout: .seconds(1)) == .noMatch)
    }

    @Test(arguments: [
        (SimulatedTouch.timeout, FingerprintError.Code.timedOut),
        (.unplug, .unplugged),
        (.busy, .busy),
        (.error, .deviceError),
        (.fallback, .userFallback),
    ])
    func failuresEndVerifyAndEnrollWithTheirError(touch: SimulatedTouch, code: FingerprintError.Code) async throws {
        let enrolling = simulatedReader([.finger(.leftThumb)], stages: 1)
        let print = try await enrolling.enroll(.leftThumb, username: "t", timeout: .seconds(1)) { _ in }
        let reader = simulatedReader([touch, .finger(.leftThumb), touch])
        let verifyError = await #expect(throws: FingerprintError.self) { try await reader.verify(print, timeout: .seconds(1)) }
        #expect(verifyError?.code == code)
        let enrollError = await #expect(throws: FingerprintError.self) { _ = try await collectEnrollment(reader, .leftThumb) }
        #expect(enrollError?.code == code)
    }

    @Test func cancellationEndsAWaitingScanPromptly() async throws {
        let reader = SimulatedReader(touches: SilentTouchSource(), now: Date.init)
        let print = EnrolledPrint(
            finger: .leftThumb, reader: reader.identity, template: SimulatedReader.makeTemplate(for: .leftThumb), enrolled: Date())
        let task = Task { try await reader.verify(print, timeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test func printsOfOtherReadersAreRefused() async throws {
        let reader = simulatedReader([.finger(.leftThumb)])
        let foreign = EnrolledPrint(
            finger: .leftThumb, reader: ReaderIdentity(driver: "goodixmoc", deviceID: "1"), template: Data([1, 2]), enrolled: Date())
        let error = await #expect(throws: FingerprintError.self) { try await reader.verify(foreign, timeout: .seconds(1)) }
        #expect(error?.code == .incompatiblePrint)
        let forged = EnrolledPrint(finger: .leftThumb, reader: reader.identity, template: Data("left-thumb".utf8), enrolled: Date())
        let forgedError = await #expect(throws: FingerprintError.self) { try await reader.verify(forged, timeout: .seconds(1)) }
        #expect(forgedError?.code == .invalidPrint)
    }

    @Test func storageOperationsAreNotSupported() async {
        let reader = simulatedReader([])
        await #expect(throws: FingerprintError.self) { try await reader.storedPrints(known: []) }
        await #expect(throws: FingerprintError.self) { try await reader.clearStorage() }
    }
}
