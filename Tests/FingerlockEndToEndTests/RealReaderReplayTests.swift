import AuthCore
import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// The built binary against real readers: libfprint's recordings of a goodixmoc and a synaptics reader
/// (``LibfprintRecording``), replayed by umockdev under the real libfprint, rewritten to carry the user
/// id fingerlock gives its prints. Never skipped: without the recordings (`shared/` beside the
/// checkout, or `FINGERLOCK_LIBFPRINT_RECORDINGS`) each test fails and says where they belong.
@Suite(.timed, .timeLimit(.minutes(3)))
final class RealReaderReplayTests: Sendable {
    /// Where the rewritten replays go.
    let folder: URL

    init() throws {
        try #require(
            LibfprintRecording.available(GoodixmocDriver.name, SynapticsDriver.name),
            "libfprint's recordings of goodixmoc and synaptics are not in \(LibfprintRecording.directory.path)")
        folder = URL(fileURLWithPath: "/tmp/fl-replay-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A runner for `user` with a vault, whose commands see only the recorded reader.
    func runner(user: String, recording: LibfprintRecording) async throws -> BinaryRunner {
        let runner = BinaryRunner(
            extraEnvironment: recording.environment.merging(["USER": user, "TZ": "UTC", "TERM": "dumb"]) { $1 })
        try await runner.setPasscode()
        return runner
    }

    /// libfprint's user id for fingerlock's print of the right index finger enrolled by `user` today
    /// (UTC, as the runner's TZ): `FP1-<date>-<finger>-<random, 0 when emulating>-<label>`.
    func userID(user: String, runner: BinaryRunner) throws -> [UInt8] {
        let label = PrintLabel.username(user: user, storeID: try Vault.storeID(in: runner.dataDirectory))
        var now = time(nil)
        var day = tm()
        gmtime_r(&now, &day)
        let date = [Int(day.tm_year) + 1900, Int(day.tm_mon) + 1, Int(day.tm_mday)]
            .map { $0 < 10 ? "0\($0)" : "\($0)" }.joined()
        return Array("FP1-\(date)-7-00000000-\(label)".utf8)
    }

    /// `fingerlock enroll right-index-finger` against the replay `enrollment` builds for the user id of
    /// the moment: tried again when the day turned meanwhile (the id carries the date).
    func enroll(
        user: String, runner: BinaryRunner, recording: LibfprintRecording,
        _ enrollment: ([UInt8]) throws -> USBCapture
    ) async throws -> (result: BinaryRunner.Result, userID: [UInt8]) {
        while true {
            let id = try userID(user: user, runner: runner)
            let launcher = try recording.launcher(replaying: try enrollment(id), in: folder, named: "enroll")
            let result = try await runner.run(
                ["enroll", "right-index-finger", "--passcode-stdin"], stdin: "\(BinaryRunner.passcode)\n", launcher: launcher)
            if try result.status == 0 || id == userID(user: user, runner: runner) { return (result, id) }
        }
    }

    /// goodixmoc reads back 56 bytes of a print's user id: with fingerlock's label for a user name of
    /// 21 characters or more, the enrolled print never matched again (and libfprint, failing to parse
    /// the chip's list on the next open, even wiped the chip). The label now fits.
    @Test func aLongUserNameOnGoodixmocStillMatches() async throws {
        let user = "a.rather.long.name.21"
        #expect(user.utf8.count == 21)
        let recording = try LibfprintRecording(GoodixmocDriver.name)
        let replay = try RecordedReaderReplay<GoodixmocDriver>(recording.capture)
        let runner = try await runner(user: user, recording: recording)

        let (enrolled, id) = try await enroll(user: user, runner: runner, recording: recording, replay.enrollment)
        #expect(enrolled.status == 0, "enroll: \(enrolled.stderr)")
        #expect(id.count <= 56)

        let launcher = try recording.launcher(replaying: try replay.verification(userID: id), in: folder, named: "verify")
        let verified = try await runner.run(["verify"], launcher: launcher)
        #expect(verified.status == 0, "verify: \(verified.stderr)")
        #expect(verified.stdout.contains("Match: right-index-finger"))
    }

    /// synaptics verifies against one named print and cannot list its storage: once the chip lost the
    /// print, it answers 504 (not in the database). That is no wrong finger: never counted, however
    /// often, and each touch says to enroll again; the print, back on the chip, still unlocks.
    @Test func aPrintTheSynapticsChipLostIsNoWrongFinger() async throws {
        let user = "alice"
        let recording = try LibfprintRecording(SynapticsDriver.name)
        let replay = try RecordedReaderReplay<SynapticsDriver>(recording.capture)
        let runner = try await runner(user: user, recording: recording)

        let (enrolled, id) = try await enroll(user: user, runner: runner, recording: recording, replay.enrollment)
        #expect(enrolled.status == 0, "enroll: \(enrolled.stderr)")

        let gone = try recording.launcher(
            replaying: try replay.verification(userID: id, printIsGone: true), in: folder, named: "verify-gone")
        for _ in 0...TouchLedger.lockoutThreshold {
            let result = try await runner.run(["verify"], launcher: gone)
            #expect(result.status == 4, "verify: \(result.stderr)")
            #expect(result.stderr.contains("The right-index-finger print is no longer stored on synaptics:"))
            #expect(result.stderr.contains("fingerlock enroll right-index-finger"))
        }

        let stored = try recording.launcher(
            replaying: try replay.verification(userID: id), in: folder, named: "verify")
        let verified = try await runner.run(["verify"], launcher: stored)
        #expect(verified.status == 0, "verify: \(verified.stderr)")
        #expect(verified.stdout.contains("Match: right-index-finger"))
    }
}
