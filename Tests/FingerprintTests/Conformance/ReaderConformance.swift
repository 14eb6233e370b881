import Fingerprint
import Foundation
import Synchronization
import Testing

/// Behaviour every ``FingerprintReader`` must show, written once and run against each implementation
/// through its ``ReaderDriver``. Each function is one case; call it from a `@Test` with a time limit.
enum ReaderConformance {
    static let scanTimeout: Duration = .seconds(20)
    static let username = "tester"

    // MARK: - Helpers

    /// Runs a scan operation and the stimulus that ends it concurrently, then tells the driver it ended.
    static func scan<T: Sendable>(
        _ driver: any ReaderDriver,
        _ operation: @escaping @Sendable () async throws -> T,
        stimulus: @escaping @Sendable () async throws -> Void
    ) async throws -> T {
        async let result = operation()
        do {
            try await stimulus()
        } catch {
            _ = try? await result
            await driver.operationEnded()
            throw error
        }
        do {
            let value = try await result
            await driver.operationEnded()
            return value
        } catch {
            await driver.operationEnded()
            throw error
        }
    }

    /// Enrolls `finger`, touching once per requested stage (and once more after each retry); with
    /// `retryAfterFirstStage`, the second touch is that retry condition instead.
    static func enroll(
        _ driver: any ReaderDriver, _ finger: Finger, retryAfterFirstStage retry: RetryReason? = nil,
        timeout: Duration = scanTimeout, pauseBeforeEachTouch pause: Duration = .zero
    ) async throws -> (print: EnrolledPrint, events: [EnrollEvent]) {
        let stream = driver.reader.enroll(finger, username: username, timeout: timeout)
        var events: [EnrollEvent] = []
        var retried = false
        do {
            try await driver.touch(finger)
            for try await event in stream {
                events.append(event)
                switch event {
                case .stage(let completed, let total) where completed < total:
                    try await Task.sleep(for: pause)
                    if let retry, !retried {
                        retried = true
                        try await driver.retry(retry)
                    } else {
                        try await driver.touch(finger)
                    }
                case .retry:
                    try await driver.touch(finger)
                case .enrolled(let print):
                    await driver.operationEnded()
                    return (print, events)
                case .stage, .opened, .waitingForOtherUser:
                    break
                }
            }
        } catch {
            await driver.operationEnded()
            throw error
        }
        await driver.operationEnded()
        Issue.record("the enroll stream ended without a print: \(events)")
        throw CancellationError()
    }

    /// Verifies `print` touching `finger`; the reader must report exactly one finger read.
    static func verify(_ driver: any ReaderDriver, _ print: EnrolledPrint, touching finger: Finger) async throws
        -> ScanResult
    {
        let reads = FingerReadCount()
        let result = try await scan(
            driver, { try await driver.reader.verify(print, timeout: scanTimeout, fingerRead: reads.add) }
        ) {
            try await driver.touch(finger)
        }
        #expect(reads.count == 1, "finger reads reported for \(result)")
        return result
    }

    /// Counts a reader's `fingerRead` reports.
    final class FingerReadCount: Sendable {
        private let reads = Mutex(0)
        var count: Int { reads.withLock { $0 } }
        @Sendable func add() { reads.withLock { $0 += 1 } }
    }

    // MARK: - Cases

    /// The reader describes itself sensibly.
    static func describesItself(_ driver: any ReaderDriver) {
        let info = driver.reader.info
        #expect(!info.name.isEmpty)
        #expect(!info.driver.isEmpty)
        #expect(!info.deviceID.isEmpty)
        #expect(info.enrollStages > 0)
        #expect(info.features.contains(.verify))
    }

    /// Enrolling reports every stage in order and ends with a print for this reader and finger.
    static func enrollReportsEveryStage(_ driver: any ReaderDriver, now: Date = Date()) async throws {
        let finger = driver.fingers[0]
        let (print, events) = try await enroll(driver, finger)
        let total = driver.reader.info.enrollStages
        // The count is announced once the reader is open, before the first stage.
        #expect(events.first == .opened(stages: total))
        let stages = events.compactMap { event -> Int? in
            if case .stage(let completed, let eventTotal) = event {
                #expect(eventTotal == total)
                return completed
            }
            return nil
        }
        #expect(stages == Array(1...total))
        #expect(print.finger == finger)
        #expect(print.reader == driver.reader.identity)
        #expect(!print.template.isEmpty)
        #expect(abs(print.enrolled.timeIntervalSince(now)) < 120)
    }

    /// A retry condition mid-enroll is reported as a hint and enrollment goes on to the end.
    static func retryMidEnroll(_ driver: any ReaderDriver, reason: RetryReason) async throws {
        let (print, events) = try await enroll(driver, driver.fingers[0], retryAfterFirstStage: reason)
        #expect(events.contains(.retry(reason)))
        let stages = events.filter { if case .stage = $0 { true } else { false } }
        #expect(stages.count == driver.reader.info.enrollStages)
        #expect(events.last == .enrolled(print))
    }

    /// The enrolled finger matches; another enrolled finger and a stranger do not.
    static func verifyMatchesOnlyTheEnrolledFinger(_ driver: any ReaderDriver) async throws {
        let (print, _) = try await enroll(driver, driver.fingers[0])
        #expect(try await verify(driver, print, touching: driver.fingers[0]) == .match(print))
        #expect(try await verify(driver, print, touching: driver.stranger) == .noMatch)
    }

    /// A retry condition during verify is a retry result, not a failure.
    static func verifyRetry(_ driver: any ReaderDriver, reason: RetryReason) async throws {
        let (print, _) = try await enroll(driver, driver.fingers[0])
        // A retry hint is no finger read: it must not count as a touch.
        let reads = FingerReadCount()
        let result = try await scan(
            driver, { try await driver.reader.verify(print, timeout: scanTimeout, fingerRead: reads.add) }
        ) {
            try await driver.retry(reason)
        }
        #expect(result == .retry(reason))
        #expect(reads.count == 0)
    }

    /// Identify finds which of several prints was touched, and no print for a stranger.
    static func identifyAmongSeveral(_ driver: any ReaderDriver) async throws {
        var prints: [EnrolledPrint] = []
        for finger in driver.fingers.prefix(3) {
            prints.append(try await enroll(driver, finger).print)
        }
        let gallery = prints
        for (index, finger) in driver.fingers.prefix(3).enumerated().reversed() {
            let result = try await scan(driver, { try await driver.reader.identify(gallery, timeout: scanTimeout) }) {
                try await driver.touch(finger)
            }
            #expect(result == .match(prints[index]), "touching \(finger)")
        }
        let reads = FingerReadCount()
        let stranger = try await scan(
            driver, { try await driver.reader.identify(gallery, timeout: scanTimeout, fingerRead: reads.add) }
        ) {
            try await driver.touch(driver.stranger)
        }
        #expect(stranger == .noMatch)
        #expect(reads.count == 1)
    }

    /// Cancelling the task mid-scan ends the operation with `CancellationError` within a second.
    static func cancelMidScan(_ driver: any ReaderDriver) async throws {
        let (print, _) = try await enroll(driver, driver.fingers[0])
        let reader = driver.reader
        let scan = Task { try await reader.verify(print, timeout: scanTimeout) }
        try await Task.sleep(for: .milliseconds(400))
        let clock = ContinuousClock()
        let started = clock.now
        scan.cancel()
        let result = await scan.result
        let elapsed = clock.now - started
        await driver.operationEnded()
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(elapsed < .seconds(1), "cancellation took \(elapsed)")
        // The device was closed: the next operation works.
        #expect(try await verify(driver, print, touching: driver.fingers[0]) == .match(print))
    }

    /// No finger within the timeout is a `timedOut` error, promptly.
    static func timesOut(_ driver: any ReaderDriver) async throws {
        let (print, _) = try await enroll(driver, driver.fingers[0])
        let clock = ContinuousClock()
        let started = clock.now
        let reads = FingerReadCount()
        let error = await #expect(throws: FingerprintError.self) {
            try await driver.reader.verify(print, timeout: .milliseconds(500), fingerRead: reads.add)
        }
        await driver.operationEnded()
        #expect(error?.code == .timedOut)
        #expect(reads.count == 0)
        #expect(error?.message.isEmpty == false)
        #expect(clock.now - started < .seconds(2))
        #expect(try await verify(driver, print, touching: driver.fingers[0]) == .match(print))
    }

    /// An enroll nobody touches times out too.
    static func enrollTimesOut(_ driver: any ReaderDriver) async throws {
        let error = await #expect(throws: FingerprintError.self) {
            try await driver.reader.enroll(driver.fingers[0], username: username, timeout: .milliseconds(500)) { _ in }
        }
        await driver.operationEnded()
        #expect(error?.code == .timedOut)
    }

    /// The enroll timeout bounds each touch, not the whole enrollment.
    static func enrollTimeoutIsPerTouch(_ driver: any ReaderDriver) async throws {
        let stages = driver.reader.info.enrollStages
        let clock = ContinuousClock()
        let started = clock.now
        // Each touch comes well within the timeout, while the whole enrollment takes longer than one
        // timeout: only a per-touch timeout lets it finish. The pauses add up to a quarter more than
        // the timeout whatever the stage count (5 on libfprint's virtual devices, more on the
        // simulated reader), which leaves each touch seconds of room: a touch pushed late by a busy
        // machine would look like a missing finger.
        let timeout = Duration.seconds(4)
        let pause = max(timeout * 1.25 / max(stages - 1, 1), .milliseconds(300))
        let (print, _) = try await enroll(driver, driver.fingers[0], timeout: timeout, pauseBeforeEachTouch: pause)
        #expect(clock.now - started > pause * (stages - 1))
        #expect(pause * (stages - 1) > timeout)
        #expect(print.finger == driver.fingers[0])
    }

    /// Unplugging the reader mid-verify is an `unplugged` error.
    static func unplugMidVerify(_ driver: any ReaderDriver) async throws {
        let (print, _) = try await enroll(driver, driver.fingers[0])
        let error = await #expect(throws: FingerprintError.self) {
            try await scan(driver, { try await driver.reader.verify(print, timeout: scanTimeout) }) {
                try await driver.unplug()
            }
        }
        #expect(error?.code == .unplugged)
    }

    /// A device failure during verify is reported with its code and a sentence.
    static func deviceFailure(_ driver: any ReaderDriver, _ code: FingerprintError.Code) async throws {
        let (print, _) = try await enroll(driver, driver.fingers[0])
        let error = await #expect(throws: FingerprintError.self) {
            try await scan(driver, { try await driver.reader.verify(print, timeout: scanTimeout) }) {
                try await driver.fail(code)
            }
        }
        #expect(error?.code == code)
        #expect(error?.message.hasSuffix(".") == true)
    }

    // MARK: - Readers with their own storage

    /// Enrolling a finger that is already stored fails as a duplicate.
    static func duplicateEnroll(_ driver: any ReaderDriver) async throws {
        _ = try await enroll(driver, driver.fingers[0])
        let error = await #expect(throws: FingerprintError.self) {
            try await enroll(driver, driver.fingers[0])
        }
        #expect(error?.code == .duplicate)
    }

    /// Stored prints can be listed, deleted one by one, and cleared.
    static func listDeleteClear(_ driver: any ReaderDriver) async throws {
        let reader = driver.reader
        let fingers = Array(driver.fingers.prefix(3))
        var enrolled: [EnrolledPrint] = []
        for finger in fingers { enrolled.append(try await enroll(driver, finger).print) }
        let prints = enrolled

        let listed = try await storageOperation(driver) { try await reader.storedPrints(known: prints) }
        #expect(listed.compactMap(\.finger).sorted() == fingers.sorted())
        #expect(listed.allSatisfy { $0.reader == reader.identity && !$0.template.isEmpty })
        // Each stored print is recognised as the enrolled print it is.
        #expect(listed.allSatisfy { $0.known?.finger == $0.finger })
        #expect(Set(listed.map(\.id)).count == listed.count)

        let doomed = try #require(listed.first { $0.finger == fingers[0] })
        try await storageOperation(driver) { try await reader.deleteStoredPrint(doomed) }
        let afterDelete = try await storageOperation(driver) { try await reader.storedPrints(known: prints) }
        #expect(afterDelete.compactMap(\.finger).sorted() == fingers.dropFirst().sorted())
        // The same stored print lists under the same id every time.
        #expect(Set(afterDelete.map(\.id)).isSubset(of: Set(listed.map(\.id))))
        // A deleted finger no longer matches.
        #expect(try await verify(driver, prints[0], touching: fingers[0]) == .noMatch)

        try await storageOperation(driver) { try await reader.clearStorage() }
        let afterClear = try await storageOperation(driver) { try await reader.storedPrints(known: prints) }
        #expect(afterClear.isEmpty)
    }

    /// Readers without storage say so in a sentence.
    static func storageNotSupported(_ driver: any ReaderDriver) async throws {
        let reader = driver.reader
        for operation in [
            { _ = try await reader.storedPrints(known: []) },
            { try await reader.clearStorage() },
        ] as [@Sendable () async throws -> Void] {
            let error = await #expect(throws: FingerprintError.self) { try await operation() }
            #expect(error?.code == .notSupported)
            #expect(error?.message.contains("keeps no prints") == true)
        }
    }

    static func storageOperation<T: Sendable>(
        _ driver: any ReaderDriver, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await scan(driver, operation) { try await driver.allowStorageOperation() }
    }
}

extension ReaderConformance {
    /// Stopping an enrollment mid-way ends it promptly with `CancellationError`, and the reader still works.
    static func cancelMidEnroll(_ driver: any ReaderDriver) async throws {
        let reader = driver.reader
        let finger = driver.fingers[0]
        let firstStage = AsyncStream.makeStream(of: Void.self)
        let enrollment = Task {
            try await reader.enroll(finger, username: username, timeout: scanTimeout) { event in
                if case .stage = event { firstStage.continuation.yield() }
            }
        }
        try await driver.touch(finger)
        for await _ in firstStage.stream { break }
        try await Task.sleep(for: .milliseconds(200))
        let clock = ContinuousClock()
        let started = clock.now
        enrollment.cancel()
        let result = await enrollment.result
        let elapsed = clock.now - started
        await driver.operationEnded()
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(elapsed < .seconds(1), "cancellation took \(elapsed)")
        _ = try await enroll(driver, finger)
    }
}
