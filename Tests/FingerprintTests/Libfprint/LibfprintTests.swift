import FingerlockTestSupport
import Fingerprint
import FingerprintTestSupport
import Foundation
import Testing

/// Every test that touches libfprint, under one serialized parent: the `FP_VIRTUAL_*` variables are
/// process-wide, libfprint reads them when a context enumerates, and all libfprint calls share the
/// default GLib main context. Each test builds its own context (so each gets fresh virtual devices).
/// The policy's tests on a shared chip (AuthTests' `SharedChipPolicyTests`) take turns with these.
@Suite(.timed, .serialized, .exclusive(to: .processSettings), .timeLimit(.minutes(1)))
struct LibfprintTests {}

extension LibfprintTests {
    /// The shared ``ReaderConformance`` cases, each run on the drivers that can stage it.
    @Suite struct Conformance {
        @Test(arguments: VirtualDriver.allCases)
        func describesItself(_ driver: VirtualDriver) async throws {
            try await driver.withDriver { script, _ in ReaderConformance.describesItself(script) }
        }

        @Test(.timeLimit(.minutes(1)), arguments: VirtualDriver.allCases)
        func enrollReportsEveryStage(_ driver: VirtualDriver) async throws {
            try await driver.withDriver { script, _ in try await ReaderConformance.enrollReportsEveryStage(script) }
        }

        @Test(
            .timeLimit(.minutes(1)),
            arguments: [VirtualDriver.device, .storage], [RetryReason.general, .tooShort, .centerFinger, .removeFinger])
        func retryMidEnroll(_ driver: VirtualDriver, reason: RetryReason) async throws {
            try await driver.withDriver { script, _ in
                try await ReaderConformance.retryMidEnroll(script, reason: reason)
            }
        }

        @Test(.timeLimit(.minutes(1)), arguments: VirtualDriver.allCases)
        func verifyMatchesOnlyTheEnrolledFinger(_ driver: VirtualDriver) async throws {
            try await driver.withDriver { script, _ in
                try await ReaderConformance.verifyMatchesOnlyTheEnrolledFinger(script)
            }
        }

        @Test(.timeLimit(.minutes(1)), arguments: VirtualDriver.allCases, [RetryReason.tooShort, .removeFinger])
        func verifyRetry(_ driver: VirtualDriver, reason: RetryReason) async throws {
            try await driver.withDriver { script, _ in try await ReaderConformance.verifyRetry(script, reason: reason) }
        }

        @Test(.timeLimit(.minutes(1)), arguments: [VirtualDriver.storage, .image])
        func identifyAmongSeveral(_ driver: VirtualDriver) async throws {
            try await driver.withDriver { script, _ in
                #expect(script.reader.info.canIdentify)
                try await ReaderConformance.identifyAmongSeveral(script)
            }
        }

        @Test(.timeLimit(.minutes(1)), arguments: VirtualDriver.allCases)
        func cancelMidScan(_ driver: VirtualDriver) async throws {
            try await driver.withDriver { script, _ in try await ReaderConformance.cancelMidScan(script) }
        }

        @Test(.timeLimit(.minutes(1)), arguments: VirtualDriver.allCases)
        func cancelMidEnroll(_ driver: VirtualDriver) async throws {
            try await driver.withDriver { script, _ in try await ReaderConformance.cancelMidEnroll(script) }
        }

        @Test(.timeLimit(.minutes(1)), arguments: VirtualDriver.allCases)
        func timesOut(_ driver: VirtualDriver) async throws {
            try await driver.withDriver { script, _ in try await ReaderConformance.timesOut(script) }
        }

        @Test(.timeLimit(.minutes(1)), arguments: VirtualDriver.allCases)
        func enrollTimesOut(_ driver: VirtualDriver) async throws {
            try await driver.withDriver { script, _ in try await ReaderConformance.enrollTimesOut(script) }
        }

        @Test(.timeLimit(.minutes(1)), arguments: VirtualDriver.allCases)
        func enrollTimeoutIsPerTouch(_ driver: VirtualDriver) async throws {
            try await driver.withDriver { script, _ in try await ReaderConformance.enrollTimeoutIsPerTouch(script) }
        }

        @Test(.timeLimit(.minutes(1)), arguments: VirtualDriver.allCases)
        func unplugMidVerify(_ driver: VirtualDriver) async throws {
            try await driver.withDriver { script, _ in try await ReaderConformance.unplugMidVerify(script) }
        }

        @Test(
            .timeLimit(.minutes(1)),
            arguments: VirtualDriver.allCases, VirtualDeviceDriver.errorCodes.keys.sorted { $0.rawValue < $1.rawValue })
        func deviceFailure(_ driver: VirtualDriver, code: FingerprintError.Code) async throws {
            try await driver.withDriver { script, _ in try await ReaderConformance.deviceFailure(script, code) }
        }

        @Test(.timeLimit(.minutes(1)))
        func duplicateEnroll() async throws {
            try await VirtualDriver.storage.withDriver { script, _ in
                try await ReaderConformance.duplicateEnroll(script)
            }
        }

        @Test(.timeLimit(.minutes(1)))
        func listDeleteClear() async throws {
            try await VirtualDriver.storage.withDriver { script, _ in
                try await ReaderConformance.listDeleteClear(script)
            }
        }

        @Test(.timeLimit(.minutes(1)), arguments: [VirtualDriver.device, .image])
        func storageNotSupported(_ driver: VirtualDriver) async throws {
            try await driver.withDriver { script, _ in try await ReaderConformance.storageNotSupported(script) }
        }
    }
}
