import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockService

#if canImport(Glibc)
    import Glibc
#endif

/// fingerlockd's words when it cannot bind its socket: the user it runs as and the fix, never errno.
@Suite(.timed)
struct ListeningSocketMessagesTests {
    @Test func aFolderItMayNotWriteNamesTheUserItRunsAsAndTheFix() {
        let name = ListeningSocket.effectiveUserName()
        let message = ListeningSocket.bindProblem(path: "/run/fl-test/socket", errno: EACCES)
        #expect(message.contains("fingerlockd runs as \(name) (uid \(geteuid()))"))
        #expect(message.contains("`sudo install -d -m 0755 -o \(name) /run/fl-test`"))
        #expect(!message.contains("errno"))
    }

    @Test func anyOtherFailureIsSaidInWords() {
        let message = ListeningSocket.bindProblem(path: "/run/fl-test/socket", errno: EADDRINUSE)
        #expect(message == "cannot bind /run/fl-test/socket: \(String(cString: strerror(EADDRINUSE))).")
    }
}
