import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// Sync in system mode (issue 42): a system-mode vault syncs with a user-mode copy of it through a
/// bare repository, as the same login user; what needs a cached key says so. Needs root (runuser).
@Suite(.timed, .timeLimit(.minutes(6)))
struct SystemModeSyncTests {
    @Test func aSystemModeVaultSyncsWithAUserModeCopy() async throws {
        let alice = try await SystemModeCommandsTests.AliceVault()
        let user = alice.user
        let passcode = SystemModeCommandsTests.passcode
        let home = try alice.setup.home(user)
        let bare = home + "/notes.git"
        let (created, _) = try await runCommand("/usr/sbin/runuser", ["-u", user, "--", "/usr/bin/git", "init", "--quiet", "--bare", bare])
        try #require(created == 0)
        let initialized = try await alice.run(["sync", "init", bare, "--passcode-fd", "3"], [passcode])
        #expect(initialized.status == 0, "\(initialized)")
        #expect(initialized.stdout.contains("sent 1 change"), "\(initialized)")
        // No key stays cached in the process in system mode: a sync after each change could never run.
        let auto = try await alice.run(["sync", "auto", "on", "--passcode-fd", "3"], [passcode])
        #expect(auto.status == 64, "\(auto)")
        #expect(auto.stderr.contains("No key stays cached"), "\(auto)")
        // A user-mode copy joins with the recovery key and gets the note.
        let copy = home + "/copy"
        let joined = try await alice.setup.fingerlockSeparately(
            as: user, ["--reader", "simulated", "--data-dir", copy, "sync", "join", bare, "--passcode-fd", "3"],
            passcodes: [alice.recoveryKey, "copy passcode 9", "copy passcode 9"])
        #expect(joined.status == 0, "\(joined)")
        #expect(joined.stdout.contains("Joined: 1 note arrived"), "\(joined)")
        let added = try await alice.setup.fingerlockSeparately(
            as: user, ["--reader", "simulated", "--data-dir", copy, "notes", "add", "--title", "from the copy", "--passcode-fd", "3"],
            passcodes: ["copy passcode 9"], body: "written in user mode\n")
        #expect(added.status == 0, "\(added)")
        let sent = try await alice.setup.fingerlockSeparately(
            as: user, ["--reader", "simulated", "--data-dir", copy, "sync", "--passcode-fd", "3"], passcodes: ["copy passcode 9"])
        #expect(sent.status == 0, "\(sent)")
        let received = try await alice.run(["sync", "--passcode-fd", "3"], [passcode])
        #expect(received.status == 0, "\(received)")
        #expect(received.stdout.contains("1 new"), "\(received)")
        let listed = try await alice.run(["ls", "--passcode-fd", "3"], [passcode])
        #expect(listed.stdout.contains("from the copy") && listed.stdout.contains("kept"), "\(listed)")
    }
}
