import AuthCore
import FingerlockTestSupport
import Foundation
import Testing

@Suite(.timed) struct PasscodeDelayTests {
    @Test(arguments: [
        (0, 0), (1, 0), (4, 0), (5, 60), (6, 300), (7, 900), (8, 900), (9, 3600), (10, 3600), (50, 3600),
    ])
    func delaysEscalateAsDesigned(failures: Int, seconds: Int64) {
        #expect(PasscodeDelays.delay(afterFailures: failures) == .seconds(seconds))
    }

    @Test func remainingTimeCountsFromTheLastFailure() {
        let last = Date(timeIntervalSince1970: 1_000_000)
        let state = AttemptState(failedPasscodes: 6, lastPasscodeFailure: last)
        #expect(PasscodeDelays.remaining(in: state, now: last.addingTimeInterval(10)) == .seconds(290))
        #expect(PasscodeDelays.remaining(in: state, now: last.addingTimeInterval(300)) == nil)
        #expect(PasscodeDelays.remaining(in: AttemptState(failedPasscodes: 4, lastPasscodeFailure: last), now: last) == nil)
    }

    @Test(arguments: [(0, "0 s"), (59, "59 s"), (60, "1 min"), (290, "4 min 50 s"), (3600, "1 h"), (3725, "1 h 2 min 5 s")])
    func durationsReadNaturally(seconds: Int64, text: String) {
        #expect(PasscodeDelays.describe(.seconds(seconds)) == text)
    }
}

@Suite(.timed) struct FileAttemptStoreTests {
    let directory: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fl-attempts-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }()

    @Test func countersPersistAcrossStoreInstances() throws {
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        try FileAttemptStore(dataDirectory: directory).update {
            $0.failedPasscodes = 3
            $0.failedTouches = 2
            $0.lastPasscodeFailure = when
        }
        let state = try FileAttemptStore(dataDirectory: directory).read()
        #expect(state == AttemptState(failedTouches: 2, failedPasscodes: 3, lastPasscodeFailure: when))
        var info = stat()
        stat(directory + "/attempts", &info)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test(.timeLimit(.minutes(1))) func concurrentIncrementsAreNeverLost() async throws {
        let store = FileAttemptStore(dataDirectory: directory)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<25 { try? store.update { $0.failedTouches += 1 } }
                }
            }
        }
        #expect(try store.read().failedTouches == 100)
    }

    @Test(arguments: [
        "", "fingerlock-att", " ", "\n", "garbage", "fingerlock-attempts 2 touches=1 passcodes=0 last-passcode-failure=-",
        "fingerlock-attempts 1 touches=-1 passcodes=0 last-passcode-failure=-",
        "fingerlock-attempts 1 touches=1 passcodes=0", "fingerlock-attempts 1 touches=1 passcodes=0 last-passcode-failure=x",
        "fingerlock-attempts 1 touches=1 passcodes=0 last-passcode-failure=- extra",
    ])
    func aDamagedFileIsAnErrorNotAReset(content: String) throws {
        let store = FileAttemptStore(dataDirectory: directory)
        try store.update { $0.failedPasscodes = 7 }
        try Data(content.utf8).write(to: URL(fileURLWithPath: directory + "/attempts"))
        let error = #expect(throws: AttemptStoreError.self) { try store.read() }
        #expect(error?.message.contains("damaged") == true)
        #expect(throws: AttemptStoreError.self) { try store.update { $0.failedTouches += 1 } }
    }

    @Test func onlyAMissingFileIsAFreshStart() throws {
        let store = FileAttemptStore(dataDirectory: directory)
        try store.update { $0.failedTouches = 5 }
        #expect(unlink(directory + "/attempts") == 0)
        #expect(try store.read() == AttemptState())
        // The new record exists whole at once: never an empty file another process could misread.
        var info = stat()
        #expect(stat(directory + "/attempts", &info) == 0)
        #expect(Int(info.st_size) == FileAttemptStoreSize.record)
    }

    @Test func theRecordIsRewrittenInPlaceAtAFixedSize() throws {
        let store = FileAttemptStore(dataDirectory: directory)
        try store.update { $0.failedTouches = 1 }
        var first = stat()
        #expect(stat(directory + "/attempts", &first) == 0)
        try store.update {
            $0.failedTouches = 12_345
            $0.failedPasscodes = 99
            $0.lastPasscodeFailure = Date(timeIntervalSince1970: 4_102_444_800.123)
        }
        var second = stat()
        #expect(stat(directory + "/attempts", &second) == 0)
        #expect(second.st_ino == first.st_ino)
        #expect(second.st_size == first.st_size)
        let text = try String(contentsOfFile: directory + "/attempts", encoding: .utf8)
        #expect(text.hasPrefix("fingerlock-attempts 1 touches=12345 passcodes=99 last-passcode-failure=4102444800123 "))
        #expect(try store.read().lastPasscodeFailure == Date(timeIntervalSince1970: 4_102_444_800.123))
        // A clock set before 1970 still reads back.
        try store.update { $0.lastPasscodeFailure = Date(timeIntervalSince1970: -1.5) }
        #expect(try store.read().lastPasscodeFailure == Date(timeIntervalSince1970: -1.5))
    }

    @Test func aRecordWithMoreAfterItIsDamaged() throws {
        let store = FileAttemptStore(dataDirectory: directory)
        try store.update { $0.failedTouches = 2 }
        let handle = try #require(FileHandle(forWritingAtPath: directory + "/attempts"))
        handle.seekToEndOfFile()
        handle.write(Data(repeating: UInt8(ascii: " "), count: 200))
        handle.closeFile()
        let error = #expect(throws: AttemptStoreError.self) { try store.read() }
        #expect(error?.message.contains("Deleting the file resets them") == true)
    }

    @Test func somethingOtherThanAFileIsRefused() throws {
        #expect(mkfifo(directory + "/attempts", 0o600) == 0)
        #expect(throws: (any Error).self) { try FileAttemptStore(dataDirectory: directory).read() }
    }

    @Test func countersFromAnEarlierVersionAreKept() throws {
        let legacy = #"{"failedPasscodes":6,"failedTouches":2,"lastPasscodeFailure":"2026-11-22T05:00:00Z"}"#
        #expect(
            FileManager.default.createFile(
                atPath: directory + "/attempts.json", contents: Data(legacy.utf8), attributes: [.posixPermissions: 0o600]))
        #expect(
            FileManager.default.createFile(
                atPath: directory + "/attempts.lock", contents: Data(), attributes: [.posixPermissions: 0o600]))
        let store = FileAttemptStore(dataDirectory: directory)
        let expected = AttemptState(
            failedTouches: 2, failedPasscodes: 6, lastPasscodeFailure: Date(timeIntervalSince1970: 1_795_323_600))
        #expect(try store.read() == expected)
        #expect(!FileManager.default.fileExists(atPath: directory + "/attempts.json"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/attempts.lock"))
        #expect(try FileAttemptStore(dataDirectory: directory).read() == expected)
    }

    @Test func anEarlierFileBesideARecordIsIgnored() throws {
        let store = FileAttemptStore(dataDirectory: directory)
        try store.update { $0.failedTouches = 1 }
        #expect(
            FileManager.default.createFile(
                atPath: directory + "/attempts.json", contents: Data(#"{"failedPasscodes":9,"failedTouches":4}"#.utf8),
                attributes: [.posixPermissions: 0o600]))
        #expect(try store.read() == AttemptState(failedTouches: 1))
    }

    @Test func aDamagedEarlierFileIsAnErrorToo() throws {
        #expect(
            FileManager.default.createFile(
                atPath: directory + "/attempts.json", contents: Data("{".utf8), attributes: [.posixPermissions: 0o600]))
        let error = #expect(throws: AttemptStoreError.self) { try FileAttemptStore(dataDirectory: directory).read() }
        #expect(error?.message.contains("attempts.json") == true)
        #expect(FileManager.default.fileExists(atPath: directory + "/attempts.json"))
    }
}

enum FileAttemptStoreSize {
    static let record = 96
}
