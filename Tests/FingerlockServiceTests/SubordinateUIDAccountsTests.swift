import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Synchronization
import Testing

@testable import FingerlockService

#if canImport(Glibc)
    import Glibc
#endif

/// Whom a uid counts against: a subordinate uid its owner, from `/etc/subuid` as it is now.
@Suite(.timed, .timeLimit(.minutes(1)))
struct SubordinateUIDAccountsTests {
    /// alice 1001 and bob 1002 are known; 70000 is a directory user above UID_MAX. Names asked are counted.
    static func users(asked: Warnings = Warnings()) -> UserDatabase {
        UserDatabase(
            uidOfName: { name in
                asked.lines.withLock { $0.append(name) }
                return ["alice": 1001, "bob": 1002][name]
            }, hasUser: { [1001, 1002, 70000].contains($0) })
    }

    struct Files {
        let directory: String
        var subuid: String { directory + "/subuid" }
        let removal: DirectoryRemoval

        init(_ text: String) throws {
            directory = try TemporaryDirectory.make()
            removal = DirectoryRemoval(directory)
            try write(text)
        }

        func write(_ text: String) throws {
            // As useradd does: a new file renamed into place.
            try Data(text.utf8).write(to: URL(fileURLWithPath: subuid), options: .atomic)
        }

        func accounts(warnings: Warnings = Warnings(), asked: Warnings = Warnings()) -> SubordinateUIDAccounts {
            SubordinateUIDAccounts(
                path: subuid, highestLoginUID: 60000, users: SubordinateUIDAccountsTests.users(asked: asked),
                warning: { line in warnings.lines.withLock { $0.append(line) } })
        }
    }

    /// Lines told by the accounts (warnings, names looked up).
    final class Warnings: Sendable {
        let lines = Mutex<[String]>([])
        var count: Int { lines.withLock { $0.count } }
    }

    @Test func theLinesOfASubuidFileAreRangesAndTheRestIsSkipped() {
        let ranges = SubordinateRange.parse(
            "alice:100000:65536\n# a comment\nbroken\nbob:165536:65536\r\n1003:231072:10\nzero:1:0\n"
                + "big:4294967290:100\n")
        #expect(
            ranges == [
                SubordinateRange(owner: "alice", first: 100_000, count: 65536),
                SubordinateRange(owner: "bob", first: 165_536, count: 65536),
                SubordinateRange(owner: "1003", first: 231_072, count: 10),
                SubordinateRange(owner: "big", first: 4_294_967_290, count: 100),
            ])
        #expect(ranges[0].contains(100_000) && ranges[0].contains(165_535) && !ranges[0].contains(165_536))
        #expect(ranges[3].contains(UInt32.max))
    }

    @Test func aSubordinateUIDCountsAgainstItsOwnerAndAStrangerRangeIsUnclaimed() throws {
        let files = try Files("alice:100000:65536\nbob:165536:65536\n1003:231072:10\nghost:300000:10\n")
        let asked = Warnings()
        let accounts = files.accounts(asked: asked)
        #expect(accounts.account(of: 100_000) == .user(1001))
        #expect(accounts.account(of: 165_535) == .user(1001))
        #expect(accounts.account(of: 165_536) == .user(1002))
        // An owner named by digits (newuidmap accepts those too).
        #expect(accounts.account(of: 231_081) == .user(1003))
        // An owner the user database does not know answers for nothing.
        #expect(accounts.account(of: 300_005) == .unclaimed)
        // Each owner is looked up once while the file stays as it is, a known one or not.
        #expect(accounts.account(of: 300_006) == .unclaimed && accounts.account(of: 100_001) == .user(1001))
        #expect(asked.lines.withLock { $0 } == ["alice", "bob", "1003", "ghost"])
        // Up to UID_MAX a uid is its own, known or not; above, only a known one.
        for uid: UInt32 in [0, 999, 1001, 5000, 60000] { #expect(accounts.account(of: uid) == .user(uid)) }
        #expect(accounts.account(of: 70000) == .user(70000))
        for uid: UInt32 in [60001, 65536, 231_082, 524_288, UInt32.max] {
            #expect(accounts.account(of: uid) == .unclaimed)
        }
    }

    @Test func aRangeAddedWhileTheServiceRunsCountsAtOnce() throws {
        let files = try Files("alice:100000:65536\n")
        let accounts = files.accounts()
        #expect(accounts.account(of: 165_536) == .unclaimed)
        try files.write("alice:100000:65536\nbob:165536:65536\n")
        #expect(accounts.account(of: 165_536) == .user(1002))
        try files.write("bob:165536:65536\n")
        #expect(accounts.account(of: 100_000) == .unclaimed)
    }

    @Test func withoutASubuidFileNoUIDIsSubordinateAndAnUnreadableOneIsLoggedOnce() throws {
        let files = try Files("alice:100000:65536\n")
        unlink(files.subuid)
        let warnings = Warnings()
        let accounts = files.accounts(warnings: warnings)
        #expect(accounts.account(of: 100_000) == .unclaimed)
        #expect(warnings.count == 0)
        // A directory in its place: it exists but cannot be read as a file.
        mkdir(files.subuid, 0o700)
        #expect(accounts.account(of: 100_000) == .unclaimed)
        #expect(accounts.account(of: 1001) == .user(1001))
        #expect(warnings.count == 1)
        rmdir(files.subuid)
        try files.write("alice:100000:65536\n")
        #expect(accounts.account(of: 100_000) == .user(1001))
    }

    @Test func theHighestLoginUIDIsUIDMaxOfLoginDefs() {
        let debian = "# UID_MAX 5\nUID_MIN\t\t\t 1000\nUID_MAX\t\t\t60000\n"
        #expect(LoginDefinitions.highestLoginUID(parsing: debian) == 60000)
        #expect(LoginDefinitions.highestLoginUID(parsing: "UID_MAX 29999\n") == 29999)
        #expect(LoginDefinitions.highestLoginUID(parsing: "UID_MIN 1000\n") == 60000)
        #expect(LoginDefinitions.highestLoginUID(path: "/nonexistent/login.defs") == 60000)
    }
}
