import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// A `--reader` typo of a reader libfprint really enumerates (its `virtual_device`), through the
/// built binary: the in-process typo tests (FingerlockCLITests' `TypoSuggestionTests`) have no
/// libfprint reader.
@Suite(.timed, .timeLimit(.minutes(2))) struct ConnectedReaderTypoTests {
    @Test("a --reader driver or id that is a typo of a connected reader's (libfprint's virtual_device)")
    func connectedReaderTypo() async throws {
        let directory = "/tmp/fl-typo-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let virtual = BinaryRunner(extraEnvironment: [
            "FP_VIRTUAL_DEVICE": directory + "/sock", "FP_DRIVERS_WHITELIST": "virtual_device",
        ])
        try await virtual.setPasscode()
        let passcode = "\(BinaryRunner.passcode)\n"
        let driver = try await virtual.run(["enroll", "left-thumb", "--reader", "virtual_devce", "--passcode-stdin"], stdin: passcode)
        // A driver libfprint does not have is refused before any reader is looked for (a usage error).
        #expect(driver.status == 64)
        #expect(driver.stderr == "fingerlock: --reader virtual_devce: libfprint has no driver \"virtual_devce\"; did you mean `virtual_device`?\n")
        let id = try await virtual.run(["enroll", "left-thumb", "--reader", "virtual_device:1", "--passcode-stdin"], stdin: passcode)
        #expect(id.status == 4)
        #expect(id.stderr == "fingerlock: No fingerprint reader virtual_device:1 was found; did you mean `virtual_device:0`?\n")
        let far = try await virtual.run(["enroll", "left-thumb", "--reader", "synaptics", "--passcode-stdin"], stdin: passcode)
        #expect(far.status == 4)
        #expect(!far.stderr.contains("did you mean"))
    }
}
