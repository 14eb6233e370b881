import FingerprintTestSupport
import Foundation
import Synchronization
import Testing

@testable import Fingerprint

extension LibfprintTests {
    /// What is specific to libfprint: enumeration, real error codes, NIST images, templates across processes.
    @Suite struct Reader {
        static let expectedFeatures: [(VirtualDriver, ReaderFeatures)] = [
            (.device, .verify),
            (.storage, [.identify, .verify, .storage, .storageList, .storageDelete, .storageClear, .duplicatesCheck]),
            (.image, [.capture, .identify, .verify]),
        ]

        @Test(arguments: expectedFeatures)
        func enumeratesWhatLibfprintReports(_ driver: VirtualDriver, features: ReaderFeatures) async throws {
            try await driver.withDriver { script, _ in
                let info = script.reader.info
                #expect(info.driver == driver.rawValue)
                #expect(info.deviceID == "0")
                #expect(info.enrollStages == 5)
                #expect(info.scanType == .swipe)
                #expect(info.features == features)
                #expect(info.name.localizedCaseInsensitiveContains("virtual"))
            }
        }

        @Test func findsReadersByDriverOrIdentity() async throws {
            let (context, paths) = VirtualDriver.environment(for: VirtualDriver.allCases)
            defer { for path in paths.values { unlink(path) } }
            let all = try await context.readers()
            #expect(Set(all.map(\.info.driver)) == Set(VirtualDriver.allCases.map(\.rawValue)))
            #expect(try await context.reader(matching: "virtual_image").info.driver == "virtual_image")
            #expect(try await context.reader(matching: "virtual_device:0").info.driver == "virtual_device")
            let error = await #expect(throws: FingerprintError.self) {
                try await context.reader(matching: "virtual_device:7")
            }
            #expect(error?.code == .noReader)
            #expect(error?.message.contains("virtual_device_storage:0") == true)
        }

        @Test func noReaderWhenNothingIsConnected() async throws {
            let (context, _) = VirtualDriver.environment(for: [])
            #expect(try await context.readers().isEmpty)
            let error = await #expect(throws: FingerprintError.self) { try await context.reader(matching: "synaptics") }
            #expect(error?.code == .noReader)
            #expect(error?.message.contains("none is connected") == true)
        }

        /// Every `FpDeviceError` code sent with `ERROR n` arrives mapped exactly as the mapping table says.
        @Test(.timeLimit(.minutes(1)), arguments: DeviceErrorCode.allCases)
        func deviceErrorCodes(_ code: DeviceErrorCode) async throws {
            try await VirtualDriver.device.withDriver { script, _ in
                let driver = try #require(script as? VirtualDeviceDriver)
                let (print, _) = try await ReaderConformance.enroll(driver, .rightIndex)
                let outcome: Result<ScanResult, any Error>
                do {
                    outcome = .success(
                        try await ReaderConformance.scan(
                            driver, { try await driver.reader.verify(print, timeout: .seconds(20)) }
                        ) {
                            try await driver.socket.queue(.error(code.rawValue))
                        })
                } catch {
                    outcome = .failure(error)
                }
                if code == .dataNotFound {
                    // An answer about the reader's storage, which the policy checks against its list.
                    #expect(try outcome.get() == .notInReaderStorage)
                } else {
                    let expected = LibfprintErrorMapping.map(
                        GLibError(domain: .device, code: code.rawValue, message: ""))
                    #expect(throws: (expected as? FingerprintError)!) { try outcome.get() }
                }
            }
        }

        @Test(.timeLimit(.minutes(1)))
        func errorDuringEnroll() async throws {
            try await VirtualDriver.device.withDriver { script, _ in
                let driver = try #require(script as? VirtualDeviceDriver)
                let error = await #expect(throws: FingerprintError.self) {
                    try await ReaderConformance.scan(
                        driver,
                        {
                            try await driver.reader.enroll(.leftThumb, username: "tester", timeout: .seconds(20)) { _ in
                            }
                        }
                    ) {
                        try await driver.socket.queue(.error(DeviceErrorCode.dataFull.rawValue))
                    }
                }
                #expect(error?.code == .storageFull)
            }
        }

        @Test(.timeLimit(.minutes(1)))
        func enrollSetsFingerUsernameAndDateOnTheTemplate() async throws {
            try await VirtualDriver.storage.withDriver { script, _ in
                _ = try await ReaderConformance.enroll(script, .leftRing)
                let stored = try await ReaderConformance.storageOperation(script) {
                    try await script.reader.storedPrints(known: [])
                }
                // The storage driver lists prints from their fprintd-style ids; the finger comes from the print.
                #expect(stored.map(\.finger) == [.leftRing])
            }
            for driver in [VirtualDriver.device, .image] {
                try await driver.withDriver { script, context in
                    let (print, _) = try await ReaderConformance.enroll(script, .rightIndex)
                    #expect(print.template.starts(with: Array("FP3".utf8)))
                    let metadata = try await context.metadata(of: print)
                    #expect(metadata.finger == .rightIndex)
                    #expect(metadata.username == "tester")
                    #expect(metadata.driver == driver.rawValue)
                    #expect(metadata.deviceID == "0")
                    let today = Calendar.current.dateComponents([.year, .month, .day], from: print.enrolled)
                    #expect(metadata.enrollDay == EnrollDay(year: today.year!, month: today.month!, day: today.day!))
                    #expect(metadata.enrollDay == EnrollDay(localDayOf: print.enrolled))
                }
            }
        }

        /// A print the reader stored without saying which finger or user it is is still listed (it may be
        /// what fills the reader), with nothing made up about it; clearing the storage removes it too.
        @Test(.timeLimit(.minutes(1)))
        func storedPrintsWithoutMetadataAreListedToo() async throws {
            try await VirtualDriver.storage.withDriver { script, _ in
                let driver = try #require(script as? VirtualDeviceDriver)
                let (ours, _) = try await ReaderConformance.enroll(driver, .leftRing)
                let onDevice = Mutex<[String]>([])
                let listed = try await ReaderConformance.scan(driver, { try await driver.reader.storedPrints(known: [ours]) }) {
                    try await driver.socket.queue(.insert("no-finger-metadata"))
                    let ids = try await driver.socket.storedIDs()
                    onDevice.withLock { $0 = ids }
                    try await driver.socket.send(.cont)
                }
                #expect(
                    onDevice.withLock { $0 }.sorted()
                        == ["no-finger-metadata", VirtualDeviceDriver.scanID(.leftRing)].sorted())
                #expect(listed.count == 2)
                let anonymous = try #require(listed.first { $0.known == nil })
                #expect(anonymous.finger == nil && anonymous.username == nil && anonymous.enrolled == nil)
                #expect(listed.first { $0.known != nil }?.known == ours)
                try await ReaderConformance.storageOperation(driver) { try await driver.reader.clearStorage() }
                // The unnamed print is gone as well.
                let relisted = try await ReaderConformance.storageOperation(driver) {
                    try await driver.reader.storedPrints(known: [ours])
                }
                #expect(relisted.isEmpty)
            }
        }

        @Test(.timeLimit(.minutes(1)))
        func identifyIsNotSupportedOnVirtualDevice() async throws {
            try await VirtualDriver.device.withDriver { script, _ in
                let (print, _) = try await ReaderConformance.enroll(script, .rightIndex)
                let error = await #expect(throws: FingerprintError.self) {
                    try await script.reader.identify([print], timeout: .seconds(1))
                }
                #expect(error?.code == .notSupported)
                // `match` falls back to verify on such readers.
                let result = try await ReaderConformance.scan(
                    script,
                    {
                        try await script.reader.match([print, print], timeout: .seconds(20))
                    }
                ) { try await script.touch(.rightIndex) }
                #expect(result == .match(print))
            }
        }

        @Test(.timeLimit(.minutes(1)))
        func printOfAnotherReaderIsIncompatible() async throws {
            let (context, paths) = VirtualDriver.environment(for: [.device, .image])
            defer { for path in paths.values { unlink(path) } }
            let device = try await context.reader(matching: "virtual_device")
            let image = try await context.reader(matching: "virtual_image")
            let script = VirtualDeviceDriver(
                reader: device, context: context, socket: VirtualDeviceSocket(path: paths[.device]!))
            let (print, _) = try await ReaderConformance.enroll(script, .rightIndex)
            for operation in [
                { _ = try await image.verify(print, timeout: .seconds(1)) },
                { _ = try await image.identify([print], timeout: .seconds(1)) },
            ] as [@Sendable () async throws -> Void] {
                let error = await #expect(throws: FingerprintError.self) { try await operation() }
                #expect(error?.code == .incompatiblePrint)
                #expect(error?.message.contains("virtual_image:0") == true)
            }
        }

        @Test(.timeLimit(.minutes(1)))
        func corruptTemplateIsInvalid() async throws {
            try await VirtualDriver.device.withDriver { script, _ in
                let (print, _) = try await ReaderConformance.enroll(script, .rightIndex)
                var corrupt = print
                corrupt.template = Data("FP3 not really".utf8)
                let error = await #expect(throws: FingerprintError.self) {
                    try await script.reader.verify(corrupt, timeout: .seconds(1))
                }
                #expect(error?.code == .invalidPrint)
                #expect(error?.message.contains("enroll it again") == true)
            }
        }

        @Test(.timeLimit(.minutes(1)))
        func deletingOnAReaderWithoutStorageIsNotSupported() async throws {
            try await VirtualDriver.device.withDriver { script, _ in
                let (print, _) = try await ReaderConformance.enroll(script, .rightIndex)
                let error = await #expect(throws: FingerprintError.self) {
                    try await script.reader.deleteStoredPrint(print)
                }
                #expect(error?.code == .notSupported)
            }
        }

        @Test(.timeLimit(.minutes(1)))
        func checkAccessOpensAndClosesTheDevice() async throws {
            try await VirtualDriver.device.withDriver { script, context in
                let reader = try #require(script.reader as? LibfprintReader)
                try await reader.checkAccess()
                try await reader.checkAccess()
                // Still usable for a scan afterwards: nothing stayed claimed.
                _ = try await ReaderConformance.enroll(script, .rightIndex)
            }
        }
    }

    /// libfprint's image path with its real NIST minutiae matcher.
    @Suite struct NISTImages {
        @Test(.timeLimit(.minutes(1)))
        func whorlMatchesItself() async throws {
            try await VirtualDriver.image.withDriver { script, _ in
                let (print, events) = try await ReaderConformance.enroll(script, .rightIndex)  // whorl
                #expect(events.filter { if case .stage = $0 { true } else { false } }.count == 5)
                #expect(print.template.count > 1000)
                #expect(try await ReaderConformance.verify(script, print, touching: .rightIndex) == .match(print))
            }
        }

        @Test(.timeLimit(.minutes(1)), arguments: [Finger.leftIndex, .rightMiddle, .rightRing])
        func otherPatternsDoNotMatchWhorl(_ other: Finger) async throws {
            try await VirtualDriver.image.withDriver { script, _ in
                let (print, _) = try await ReaderConformance.enroll(script, .rightIndex)
                #expect(try await ReaderConformance.verify(script, print, touching: other) == .noMatch)
            }
        }
    }

    /// A print enrolled and serialized here verifies in a fresh process (host-stored prints).
    @Suite struct AcrossProcesses {
        @Test(
            .timeLimit(.minutes(1)), arguments: [(Finger.rightIndex, "match", Int32(0)), (.leftThumb, "no-match", 1)])
        func printVerifiesInAnotherProcess(touching finger: Finger, output: String, status: Int32) async throws {
            try await VirtualDriver.device.withDriver { script, _ in
                let (print, _) = try await ReaderConformance.enroll(script, .rightIndex)
                let directory = FileManager.default.temporaryDirectory.appending(path: "fl-probe-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let file = directory.appending(path: "print.json")
                try JSONEncoder().encode(print).write(to: file)

                let socketPath = "/tmp/fl-probe-\(UUID().uuidString.prefix(8)).sock"
                defer { unlink(socketPath) }
                let probe = try ChildProcess.start(
                    ChildProcess.sibling("fprint-probe"), ["verify", "virtual_device", file.path],
                    environment: [
                        "PATH": "/usr/bin:/bin", "FP_VIRTUAL_DEVICE": socketPath,
                        "FP_DRIVERS_WHITELIST": "virtual_device",
                    ])
                try await VirtualDeviceSocket(path: socketPath).touch(VirtualDeviceDriver.scanID(finger))
                let (exit, stdout) = try await probe.wait(timeout: .seconds(20))
                #expect(stdout.trimmingCharacters(in: .whitespacesAndNewlines) == output)
                #expect(exit == status)
            }
        }
    }
}
