import FingerlockTestSupport
import Foundation
import SafeFiles
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `PrivateDirectory.resolve`: the directories leading to a data directory, and the links on the way.
@Suite(.timed) struct DataDirectoryResolveTests {
    @Test func aSafePathResolvesToItselfAndAMissingTailIsKept() throws {
        let root = makeTemporaryDirectory()
        #expect(try PrivateDirectory.resolve(root) == root)
        #expect(try PrivateDirectory.resolve(root + "/missing/deeper/") == root + "/missing/deeper")
        #expect(try PrivateDirectory.resolve(root + "/./a/../b") == root + "/b")
        #expect(try PrivateDirectory.resolve("/") == "/")
    }

    @Test func writableAncestorsAreRefusedUnlessSticky() throws {
        let root = makeTemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root + "/open/inner", withIntermediateDirectories: true)
        chmod(root + "/open", 0o757)
        let error = #expect(throws: SafeFilesError.self) { try PrivateDirectory.resolve(root + "/open/inner/data") }
        #expect(error?.code == .tooOpen)
        #expect(error?.path == root + "/open")
        chmod(root + "/open", 0o1777)
        #expect(try PrivateDirectory.resolve(root + "/open/inner/data") == root + "/open/inner/data")
    }

    @Test func linksAreFollowedThroughRelativeAndAbsoluteTargetsButNotAsTheDirectoryItself() throws {
        let root = makeTemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root + "/real/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/relative", withDestinationPath: "real")
        try FileManager.default.createSymbolicLink(atPath: root + "/absolute", withDestinationPath: root + "/relative/sub")
        #expect(try PrivateDirectory.resolve(root + "/absolute/data") == root + "/real/sub/data")
        #expect(try PrivateDirectory.resolve(root + "/absolute/..") == root + "/real")
        for name in ["/absolute", "/absolute/", "/absolute/.", "/relative/../absolute/."] {
            let error = #expect(throws: SafeFilesError.self, "\(name)") { try PrivateDirectory.resolve(root + name) }
            #expect(error?.code == .notADirectory)
        }
    }

    @Test func aLinkLoopEnds() throws {
        let root = makeTemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: root + "/a", withDestinationPath: "b")
        try FileManager.default.createSymbolicLink(atPath: root + "/b", withDestinationPath: "a")
        #expect(throws: SafeFilesError.self) { try PrivateDirectory.resolve(root + "/a/data") }
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a link away"))
    func aLinkOwnedByAnotherUserIsNotFollowed() throws {
        let root = makeTemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root + "/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/theirs", withDestinationPath: "real")
        lchown(root + "/theirs", 65534, 65534)
        let error = #expect(throws: SafeFilesError.self) { try PrivateDirectory.resolve(root + "/theirs/data") }
        #expect(error?.code == .notOwned)
    }
}
