import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Testing

/// What the built `fingerlockd` says when it cannot start where it was told to listen.
@Suite(.timed, .timeLimit(.minutes(1)))
struct DaemonStartupMessagesTests {
    @Test func aMissingSocketFolderIsNamedWithTheWayToCreateIt() async throws {
        let directory = try TemporaryDirectory.make()
        let folder = directory + "/not-there"
        let ran = try await runCommandSeparately(
            DaemonProcess.binaryPath, ["--socket", folder + "/socket", "--state-dir", directory + "/state"], timeout: 30)
        #expect(ran.status == 1)
        #expect(
            ran.stderr
                == "fingerlockd: cannot bind \(folder)/socket: the folder \(folder) does not exist; create it first (`sudo install -d -m 0755 \(folder)`) or let systemd start fingerlockd (its socket unit creates it).\n"
        )
        #expect(!ran.stderr.contains("errno"))
    }
}
