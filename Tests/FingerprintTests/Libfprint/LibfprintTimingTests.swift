import Fingerprint
import FingerprintTestSupport
import Foundation
import Testing

extension LibfprintTests {
    /// Measures enumerate / open / enroll / verify per driver and prints the medians (run with
    /// `swift test --filter LibfprintTests.Timings` to read them). The bounds are loose sanity limits.
    @Suite struct Timings {
        @Test(.timeLimit(.minutes(1)), arguments: VirtualDriver.allCases)
        func measure(_ driver: VirtualDriver) async throws {
            let clock = ContinuousClock()
            var enumerate: [Duration] = []
            var open: [Duration] = []
            var enroll: [Duration] = []
            var verify: [Duration] = []
            for _ in 0..<5 {
                let (context, paths) = VirtualDriver.environment(for: [driver])
                defer { unlink(paths[driver]!) }
                var started = clock.now
                let reader = try await context.reader(matching: driver.rawValue)
                enumerate.append(clock.now - started)

                started = clock.now
                try await reader.checkAccess()
                open.append(clock.now - started)

                let script: any ReaderDriver =
                    driver == .image
                    ? try VirtualImageDriver(
                        reader: reader, context: context, feeder: VirtualImageFeeder(path: paths[driver]!))
                    : VirtualDeviceDriver(
                        reader: reader, context: context, socket: VirtualDeviceSocket(path: paths[driver]!))
                started = clock.now
                let (print, _) = try await ReaderConformance.enroll(script, .rightIndex)
                enroll.append(clock.now - started)

                started = clock.now
                #expect(try await ReaderConformance.verify(script, print, touching: .rightIndex) == .match(print))
                verify.append(clock.now - started)
            }
            func median(_ values: [Duration]) -> String {
                let sorted = values.sorted()
                let middle = sorted[sorted.count / 2]
                return String(format: "%.1f ms", middle.seconds * 1000)
            }
            Swift.print(
                "timing \(driver.rawValue): enumerate \(median(enumerate)), open+close \(median(open)), "
                    + "enroll (5 stages, with feeding) \(median(enroll)), verify (with feeding) \(median(verify))")
            #expect(enumerate.sorted()[2] < .seconds(1))
            #expect(verify.sorted()[2] < .seconds(5))
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
