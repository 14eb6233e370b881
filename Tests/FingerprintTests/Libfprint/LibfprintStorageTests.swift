import FingerprintTestSupport
import Foundation
import Testing

@testable import Fingerprint

extension LibfprintTests {
    /// Real readers, staged on the virtual drivers: a print gone from the chip, a device that stops
    /// answering, and stage counts the driver decides once the device is open.
    @Suite struct RealReaderBehaviour {
        /// DATA_NOT_FOUND is reported as the reader's answer, not turned into a no-match or an error; the
        /// reader's list then tells a lost print (gone from the chip) from a finger that is not stored.
        @Test(.timeLimit(.minutes(1)), arguments: [true, false])
        func dataNotFoundIsAnAnswerAndTheListTellsWhetherThePrintIsGone(removed: Bool) async throws {
            try await VirtualDriver.storage.withDriver { script, _ in
                let driver = try #require(script as? VirtualDeviceDriver)
                let (index, _) = try await ReaderConformance.enroll(driver, .rightIndex)
                let (thumb, _) = try await ReaderConformance.enroll(driver, .leftThumb)
                let result = try await ReaderConformance.scan(
                    driver, { try await driver.reader.identify([index, thumb], timeout: .seconds(20)) }
                ) {
                    if removed { try await driver.socket.queue(.remove(VirtualDeviceDriver.scanID(.leftThumb))) }
                    try await driver.socket.queue(.error(DeviceErrorCode.dataNotFound.rawValue))
                }
                #expect(result == .notInReaderStorage)
                let stored = try await ReaderConformance.storageOperation(driver) {
                    try await driver.reader.storedPrints(known: [index, thumb])
                }
                #expect(Set(stored.compactMap(\.known)) == (removed ? [index] : [index, thumb]))
            }
        }

        /// `clear_storage` without an answer fails with TIMED_OUT: the reader stopped answering, which
        /// is a device failure (exit 4), not "no finger within the scan timeout" (exit 1).
        @Test(.timeLimit(.minutes(1)))
        func aReaderThatStopsAnsweringIsADeviceFailure() async throws {
            try await VirtualDriver.storage.withDriver { script, _ in
                let error = await #expect(throws: FingerprintError.self) { try await script.reader.clearStorage() }
                #expect(error?.code == .deviceError)
                #expect(error?.message.contains("stopped answering") == true)
            }
        }

        /// The count shown is the one the open device reports, and progress follows the driver's count
        /// even when it changes mid-enrollment (virtual_device's SET_ENROLL_STAGES, as elanmoc sets it in open).
        @Test(.timeLimit(.minutes(1)))
        func stageCountComesFromTheOpenDevice() async throws {
            try await VirtualDriver.device.withDriver { script, _ in
                let driver = try #require(script as? VirtualDeviceDriver)
                #expect(driver.reader.info.enrollStages == 5)
                #expect(driver.reader.info.enrollStagesKnownAtOpen)
                let first = try await enroll(driver) { try await driver.socket.send(.setEnrollStages(3)) }
                #expect(first.first == .opened(stages: 5))
                #expect(first.stages == ["1/3", "2/3", "3/3"])
                // The next opening reports the driver's new count, which enumeration never saw.
                let second = try await enroll(driver) {}
                #expect(second.first == .opened(stages: 3))
                #expect(second.stages == ["1/3", "2/3", "3/3"])
                #expect(driver.reader.info.enrollStages == 5)
            }
        }

        /// Enrolls the right index finger, running `atOpen` once the reader is open, touching once per stage.
        private func enroll(
            _ driver: VirtualDeviceDriver, atOpen: @Sendable () async throws -> Void
        ) async throws -> (first: EnrollEvent?, stages: [String]) {
            var events: [EnrollEvent] = []
            for try await event in driver.reader.enroll(.rightIndex, username: "t", timeout: .seconds(20)) {
                events.append(event)
                switch event {
                case .opened:
                    try await atOpen()
                    try await driver.touch(.rightIndex)
                case .stage(let completed, let total) where completed < total:
                    try await driver.touch(.rightIndex)
                default:
                    break
                }
            }
            await driver.operationEnded()
            #expect(events.last.map { if case .enrolled = $0 { true } else { false } } == true)
            let stages = events.compactMap { event -> String? in
                if case .stage(let completed, let total) = event { "\(completed)/\(total)" } else { nil }
            }
            return (events.first, stages)
        }
    }
}
