import FingerlockTestSupport
import Foundation
import SafeFiles
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

func makeTemporaryDirectory() -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("fl-\(UUID().uuidString)").path
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    chmod(path, 0o700)
    return path
}

func mode(of path: String) -> mode_t {
    var info = stat()
    stat(path, &info)
    return info.st_mode & 0o777
}

@Suite(.timed) struct PrivateDirectoryTests {
    @Test func createsMissingDirectoriesWithMode0700() throws {
        let root = makeTemporaryDirectory()
        let directory = try PrivateDirectory(creating: root + "/a/b/")
        #expect(directory.path == root + "/a/b")
        #expect(mode(of: root + "/a") == 0o700)
        #expect(mode(of: root + "/a/b") == 0o700)
    }

    @Test func refusesADirectoryOthersCanRead() throws {
        let root = makeTemporaryDirectory()
        chmod(root, 0o755)
        let error = #expect(throws: SafeFilesError.self) { try PrivateDirectory(creating: root) }
        #expect(error?.code == .tooOpen)
        #expect(error?.message.contains("chmod 700") == true)
    }

    @Test func refusesAFileOthersCanRead() throws {
        let root = makeTemporaryDirectory()
        try AtomicFile.write(Array("x".utf8), to: root + "/f")
        try PrivateDirectory.checkFile(root + "/f")
        chmod(root + "/f", 0o644)
        let error = #expect(throws: SafeFilesError.self) { try PrivateDirectory.checkFile(root + "/f") }
        #expect(error?.code == .tooOpen)
    }

    @Test func aFileThatComesAndGoesIsCheckedOnlyWhenThere() throws {
        let root = makeTemporaryDirectory()
        try PrivateDirectory.checkFileIfPresent(root + "/absent")
        try AtomicFile.write(Array("x".utf8), to: root + "/f")
        try PrivateDirectory.checkFileIfPresent(root + "/f")
        chmod(root + "/f", 0o644)
        let error = #expect(throws: SafeFilesError.self) { try PrivateDirectory.checkFileIfPresent(root + "/f") }
        #expect(error?.code == .tooOpen)
    }

    @Test func refusesAPlainFileWhereADirectoryBelongs() throws {
        let root = makeTemporaryDirectory()
        try AtomicFile.write([1], to: root + "/file")
        let error = #expect(throws: SafeFilesError.self) { try PrivateDirectory(creating: root + "/file") }
        #expect(error?.code == .notADirectory)
    }
}

@Suite(.timed) struct AtomicFileTests {
    @Test func readsOnlyRegularFilesAndFollowsLinksOnlyWhenAsked() throws {
        let root = makeTemporaryDirectory()
        try AtomicFile.write(Array("data".utf8), to: root + "/file")
        #expect(symlink(root + "/file", root + "/link") == 0)
        #expect(mkfifo(root + "/fifo", 0o600) == 0)
        #expect(try AtomicFile.read(root + "/link", followingSymlinks: true) == Array("data".utf8))
        #expect(throws: SafeFilesError.self) { try AtomicFile.read(root + "/link") }
        // Neither blocks: a FIFO with no writer, a device that never ends.
        for special in [root + "/fifo", "/dev/zero"] {
            let error = #expect(throws: SafeFilesError.self) { try AtomicFile.read(special, followingSymlinks: true) }
            #expect(error?.code == .notARegularFile)
        }
    }

    @Test func writesPrivatelyAndReplacesWholeContent() throws {
        let root = makeTemporaryDirectory()
        let path = root + "/data"
        try AtomicFile.write(Array(repeating: 7, count: 100_000), to: path)
        #expect(mode(of: path) == 0o600)
        try AtomicFile.write([1, 2, 3], to: path)
        #expect(try AtomicFile.read(path) == [1, 2, 3])
        #expect(mode(of: path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["data"])
    }

    @Test func aNonDurableWriteStillReplacesPrivatelyAndLeavesNoTempFile() throws {
        let root = makeTemporaryDirectory()
        let path = root + "/counters"
        try AtomicFile.write([1, 2, 3], to: path)
        try AtomicFile.write([4, 5], to: path, durable: false)
        #expect(try AtomicFile.read(path) == [4, 5])
        #expect(mode(of: path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["counters"])
    }

    @Test func failedWriteLeavesOldContentAndNoTemporaryFile() throws {
        let root = makeTemporaryDirectory()
        let path = root + "/data"
        try AtomicFile.write([1], to: path)
        // Renaming a file over a non-empty directory fails after the temp file was written.
        try FileManager.default.createDirectory(atPath: root + "/dir/sub", withIntermediateDirectories: true)
        #expect(throws: SafeFilesError.self) { try AtomicFile.write([2], to: root + "/dir") }
        #expect(try AtomicFile.read(path) == [1])
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).sorted() == ["data", "dir"])
    }

    @Test func removeReportsWhetherTheFileExisted() throws {
        let root = makeTemporaryDirectory()
        try AtomicFile.write([1], to: root + "/f")
        #expect(try AtomicFile.remove(root + "/f"))
        #expect(try !AtomicFile.remove(root + "/f"))
    }

    @Test func readOfAMissingFileNamesIt() {
        let error = #expect(throws: SafeFilesError.self) { try AtomicFile.read("/nonexistent/fingerlock-file") }
        #expect(error?.message.contains("/nonexistent/fingerlock-file") == true)
    }
}

@Suite(.timed) struct FileLockTests {
    @Test(.timeLimit(.minutes(1))) func secondHolderWaitsThenTimesOutWithAMessage() throws {
        let root = makeTemporaryDirectory()
        let first = try FileLock(path: root + "/lock")
        let started = ContinuousClock.now
        let error = #expect(throws: SafeFilesError.self) {
            try FileLock(path: root + "/lock", timeout: .milliseconds(200))
        }
        #expect(error?.code == .lockTimeout)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        _ = first
    }

    @Test(.timeLimit(.minutes(1))) func lockIsFreeAgainOnceReleased() throws {
        let root = makeTemporaryDirectory()
        do { _ = try FileLock(path: root + "/lock") }
        _ = try FileLock(path: root + "/lock", timeout: .milliseconds(100))
        #expect(mode(of: root + "/lock") == 0o600)
    }
}

/// `LockedBuffer`, fingerlockd's memory for cached keys: its pages are locked and left out of core
/// dumps while it lives, and zeroed before they go back to the kernel.
@Suite(.timed) struct LockedBufferTests {
    /// The VmFlags of the mapping of this process that holds `address`.
    static func flags(of address: UnsafeRawPointer) throws -> [Substring] {
        // Read to the end: the file's size is 0 and a single read returns only its first part.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        let smaps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let target = UInt(bitPattern: address)
        var inside = false
        for line in smaps.split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), let space = line.firstIndex(of: " "), dash < space,
                let start = UInt(line[..<dash], radix: 16), let end = UInt(line[line.index(after: dash)..<space], radix: 16)
            {
                inside = start <= target && target < end
            } else if inside, line.hasPrefix("VmFlags:") {
                return line.split(separator: " ")
            }
        }
        return []
    }

    @Test func itsPagesAreLockedUndumpedAndZeroedWhenReleased() throws {
        let released = Mutex<[UInt8]?>(nil)
        let memory = LockedMemory(
            warning: { Issue.record("unexpected warning: \($0)") },
            inspectRelease: { pages in released.withLock { $0 = [UInt8](pages) } })
        let secret: [UInt8] = (0..<32).map { UInt8($0 + 1) }
        var buffer = try #require(secret.withUnsafeBytes { memory.buffer(copying: $0) })
        // Tests run as root (CAP_IPC_LOCK): the lock is never refused here.
        #expect(buffer.isLocked)
        #expect(buffer.withUnsafeBytes { [UInt8]($0) } == secret)
        let flags = try Self.flags(of: buffer.withUnsafeBytes { $0.baseAddress! })
        #expect(flags.contains("lo") && flags.contains("dd"), "\(flags)")
        buffer = try #require([UInt8](repeating: 7, count: 1).withUnsafeBytes { memory.buffer(copying: $0) })
        let pages = try #require(released.withLock { $0 })
        #expect(pages.count >= 4096)
        #expect(pages.allSatisfy { $0 == 0 }, "the released pages still held the key")
        withExtendedLifetime(buffer) {}
    }
}

/// The umask is the process's: while this test has it at 0, a directory another test makes would be
/// writable by everyone (a data-directory test failed so in CI). It runs where tests take turns with
/// what they set for the whole process: `scripts/test.sh`'s second process.
@Suite(.timed, .exclusive(to: .processSettings)) struct PermissiveUmaskTests {
    @Test func keepsModePrivateEvenWithAPermissiveUmask() throws {
        let root = makeTemporaryDirectory()
        let old = umask(0)
        defer { umask(old) }
        try AtomicFile.write([9], to: root + "/f")
        #expect(mode(of: root + "/f") == 0o600)
    }
}
