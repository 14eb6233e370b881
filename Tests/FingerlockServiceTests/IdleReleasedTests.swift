import FingerlockServiceTestSupport
import FingerlockTestSupport
import Synchronization
import Testing

@testable import FingerlockService

/// The service's hold on libfprint's context: kept while used, let go once idle, and never a second
/// one beside one that is still in use.
@Suite(.timed, .timeLimit(.minutes(1)))
struct IdleReleasedTests {
    final class Context: Sendable {}

    @Test func keptWhileUsedLetGoOnceIdleAndNeverMadeTwiceAtOnce() async throws {
        let made = Mutex(0)
        let contexts = IdleReleased(keep: .milliseconds(100)) {
            made.withLock { $0 += 1 }
            return Context()
        }
        var first: Context? = contexts.current()
        #expect(contexts.current() === first)
        #expect(contexts.isKept)
        // Let go after a quiet `keep`; still in use elsewhere (a scan), it is handed out again.
        #expect(await InProcessServer.eventually { !contexts.isKept })
        #expect(contexts.current() === first)
        #expect(made.withLock { $0 } == 1)
        // Once nobody holds it, it is gone, and the next use makes a new one.
        weak let old = first
        first = nil
        #expect(await InProcessServer.eventually { !contexts.isKept })
        #expect(old == nil)
        let second = contexts.current()
        #expect(made.withLock { $0 } == 2)
        #expect(contexts.current() === second)
    }

    @Test func usedAgainBeforeTheQuietTimeEndsItIsKept() async throws {
        let contexts = IdleReleased(keep: .milliseconds(300)) { Context() }
        let first = ObjectIdentifier(contexts.current())
        for _ in 0..<8 {
            try await Task.sleep(for: .milliseconds(100))
            #expect(ObjectIdentifier(contexts.current()) == first)
        }
        #expect(contexts.isKept)
    }
}
