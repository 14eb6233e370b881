import FingerlockTestSupport
import Foundation
import Synchronization
import Testing

@testable import Fingerprint

/// Touches pushed by a test while the simulated reader waits, with a real wait and timeout — the
/// simulated reader behaving in time as a real one does, so the shared conformance cases apply.
final class PushedTouchSource: SimulatedTouchSource {
    private let queue = Mutex<[SimulatedTouch]>([])

    func push(_ touch: SimulatedTouch) { queue.withLock { $0.append(touch) } }
    func clear() { queue.withLock { $0.removeAll() } }

    func nextTouch(for purpose: SimulatedScanPurpose, timeout: Duration) async throws -> SimulatedTouch {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let touch = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return touch }
            if ContinuousClock.now >= deadline { return .timeout }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// The ``ReaderDriver`` for the simulated reader: stimuli become pushed touches.
struct SimulatedDriver: ReaderDriver {
    let source = PushedTouchSource()
    let reader: any FingerprintReader
    var abilities: DriverAbilities { DriverAbilities(retryDuringEnroll: true, retryDuringScan: true, unplug: true, failures: [.busy, .deviceError]) }
    var fingers: [Finger] { [.rightIndex, .leftIndex, .rightMiddle] }
    var stranger: Finger { .leftLittle }

    init(stages: Int = 5) {
        reader = SimulatedReader(touches: source, enrollStages: stages, now: Date.init)
    }

    func touch(_ finger: Finger) async throws { source.push(.finger(finger)) }
    func retry(_ reason: RetryReason) async throws { source.push(.retry(reason)) }
    func fail(_ code: FingerprintError.Code) async throws { source.push(code == .busy ? .busy : .error) }
    func unplug() async throws { source.push(.unplug) }
    func allowStorageOperation() async throws {}
    func operationEnded() async { source.clear() }
}

/// The reader conformance cases, run against the simulated reader (the same cases run against
/// libfprint's virtual drivers in `LibfprintTests`).
@Suite(.timed, .timeLimit(.minutes(1))) struct SimulatedConformanceTests {
    @Test func describesItself() { ReaderConformance.describesItself(SimulatedDriver()) }
    @Test func enrollReportsEveryStage() async throws { try await ReaderConformance.enrollReportsEveryStage(SimulatedDriver()) }
    @Test(arguments: RetryReason.allCases)
    func retryMidEnroll(reason: RetryReason) async throws { try await ReaderConformance.retryMidEnroll(SimulatedDriver(), reason: reason) }
    @Test func verifyMatchesOnlyTheEnrolledFinger() async throws {
        try await ReaderConformance.verifyMatchesOnlyTheEnrolledFinger(SimulatedDriver())
    }
    @Test(arguments: RetryReason.allCases)
    func verifyRetry(reason: RetryReason) async throws { try await ReaderConformance.verifyRetry(SimulatedDriver(), reason: reason) }
    @Test func identifyAmongSeveral() async throws { try await ReaderConformance.identifyAmongSeveral(SimulatedDriver()) }
    @Test func cancelMidScan() async throws { try await ReaderConformance.cancelMidScan(SimulatedDriver()) }
    @Test func cancelMidEnroll() async throws { try await ReaderConformance.cancelMidEnroll(SimulatedDriver()) }
    @Test func timesOut() async throws { try await ReaderConformance.timesOut(SimulatedDriver()) }
    @Test func enrollTimesOut() async throws { try await ReaderConformance.enrollTimesOut(SimulatedDriver()) }
    @Test func enrollTimeoutIsPerTouch() async throws { try await ReaderConformance.enrollTimeoutIsPerTouch(SimulatedDriver()) }
    @Test func unplugMidVerify() async throws { try await ReaderConformance.unplugMidVerify(SimulatedDriver()) }
    @Test(arguments: [FingerprintError.Code.busy, .deviceError])
    func deviceFailure(code: FingerprintError.Code) async throws { try await ReaderConformance.deviceFailure(SimulatedDriver(), code) }
    @Test func storageNotSupported() async throws { try await ReaderConformance.storageNotSupported(SimulatedDriver()) }
}
