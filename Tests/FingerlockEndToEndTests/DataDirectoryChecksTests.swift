import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The data directory and every directory above it, through the built binary: whoever can write a
/// parent could swap the vault for their own, and a symlinked data directory is refused however the
/// path names it.
@Suite(.timed, .timeLimit(.minutes(3))) struct DataDirectoryChecksTests {
    let base: String
    let runner = BinaryRunner(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    init() throws {
        base = runner.dataDirectory + "-tree"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func directory(_ name: String, mode: mode_t) throws -> String {
        let path = base + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, mode)
        return path
    }

    func setPasscode(dataDirectory: String) async throws -> BinaryRunner.Result {
        try await runner.run(
            ["passcode", "set", "--passcode-stdin", "--data-dir", dataDirectory], stdin: "\(BinaryRunner.passcode)\n\(BinaryRunner.passcode)\n")
    }

    @Test func aParentOthersCanWriteIsRefused() async throws {
        let open = try directory("open", mode: 0o777)
        let result = try await setPasscode(dataDirectory: open + "/data")
        #expect(result.status == 6)
        #expect(
            result.stderr == "fingerlock: \(open) is writable by other users (mode 777), who could replace \(open)/data; run: chmod go-w '\(open)'\n")
        #expect(!FileManager.default.fileExists(atPath: open + "/data"))
        let groupWritable = try directory("group/deeper", mode: 0o700)
        chmod(base + "/group", 0o770)
        #expect(try await setPasscode(dataDirectory: groupWritable + "/data").status == 6)
    }

    @Test func aStickyParentLikeTmpIsAccepted() async throws {
        let sticky = try directory("sticky", mode: 0o1777)
        let result = try await setPasscode(dataDirectory: sticky + "/data")
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a directory away"))
    func aParentOwnedByAnotherUserIsRefused() async throws {
        let theirs = try directory("theirs", mode: 0o755)
        chown(theirs, 65534, 65534)
        let result = try await setPasscode(dataDirectory: theirs + "/data")
        #expect(result.status == 6)
        #expect(result.stderr.contains("\(theirs) belongs to another user (uid 65534)"))
    }

    @Test func aSymlinkedDataDirectoryIsRefusedHoweverItIsNamed() async throws {
        let real = try directory("real", mode: 0o700)
        #expect(try await setPasscode(dataDirectory: real).status == 0)
        let link = base + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        for name in [link, link + "/", link + "/.", link + "/./.", "\(base)/./link/."] {
            let result = try await runner.run(["notes", "list", "--passcode-stdin", "--data-dir", name], stdin: "\(BinaryRunner.passcode)\n")
            #expect(result.status == 6, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("is a symbolic link"), "\(name): \(result.stderr)")
        }
        let direct = try await runner.run(["notes", "list", "--passcode-stdin", "--data-dir", real + "/."], stdin: "\(BinaryRunner.passcode)\n")
        #expect(direct.status == 0, "\(direct.stderr)")
    }

    @Test func aSymlinkAboveTheDataDirectoryIsFollowedAndItsTargetChecked() async throws {
        let target = try directory("target", mode: 0o700)
        let link = base + "/parent-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target")
        let created = try await setPasscode(dataDirectory: link + "/data")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(FileManager.default.fileExists(atPath: target + "/data/vault.sqlite"))
        // The link leads into a directory others can write: refused, naming the real directory.
        let open = try directory("open-target", mode: 0o777)
        let openLink = base + "/open-link"
        try FileManager.default.createSymbolicLink(atPath: openLink, withDestinationPath: open)
        let refused = try await setPasscode(dataDirectory: openLink + "/data")
        #expect(refused.status == 6)
        #expect(refused.stderr.contains("\(open) is writable by other users"))
    }
}
