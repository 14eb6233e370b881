import Auth
import AuthCore
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Synchronization
import Testing

@testable import FingerlockService

/// The order in which the service's reader serves scans: each user's own in arrival order, the
/// users in turn; and a touch's place in the failed-touch count.
@Suite(.timed, .timeLimit(.minutes(1)))
struct ScanQueueTests {
    /// Scans on one queue: the first holds the reader until `open()`; each records its name when it runs.
    final class Line: Sendable {
        let queue = ScanQueue()
        private let ran = Mutex<[String]>([])
        private let gate = Mutex(false)

        var order: [String] { ran.withLock { $0 } }
        func open() { gate.withLock { $0 = true } }

        func scan(_ name: String, uid: UInt32, holding: Bool = false) async throws {
            try await queue.run(for: uid, waitingAtMost: .seconds(30)) {
                ran.withLock { $0.append(name) }
                while holding && !gate.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
    }

    @Test func usersTakeTurnsAndEachUsersScansKeepTheirOrder() async throws {
        let line = Line()
        let (alice, bob, carol): (UInt32, UInt32, UInt32) = (1001, 1002, 1003)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await line.scan("b0", uid: bob, holding: true) }
            #expect(await InProcessServer.eventually { line.order == ["b0"] })
            // Arrivals in this order: Bob's flood, Carol's two, Alice's one.
            for (index, (name, uid)) in [("b1", bob), ("b2", bob), ("b3", bob), ("c1", carol), ("c2", carol), ("a1", alice)]
                .enumerated()
            {
                group.addTask { try await line.scan(name, uid: uid) }
                #expect(await InProcessServer.eventually { line.queue.waiting == index + 1 })
            }
            line.open()
            try await group.waitForAll()
        }
        // After Bob's running scan: the others in order of arrival, Bob's second behind the first user waiting.
        #expect(line.order == ["b0", "c1", "b1", "a1", "c2", "b2", "b3"])
        #expect(line.queue.waiting == 0)
    }

    @Test func aWaiterThatLeavesGivesUpItsTurnOnly() async throws {
        let line = Line()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await line.scan("b0", uid: 2, holding: true) }
            #expect(await InProcessServer.eventually { line.order == ["b0"] })
            let leaving = Task { try await line.scan("a1", uid: 1) }
            #expect(await InProcessServer.eventually { line.queue.waiting == 1 })
            group.addTask { try await line.scan("b1", uid: 2) }
            group.addTask { try await line.scan("c1", uid: 3) }
            #expect(await InProcessServer.eventually { line.queue.waiting == 3 })
            leaving.cancel()
            await #expect(throws: CancellationError.self) { try await leaving.value }
            #expect(line.queue.waiting == 2)
            line.open()
            try await group.waitForAll()
        }
        #expect(line.order == ["b0", "c1", "b1"])
    }

    @Test func aTouchTakenBackLeavesTheCountAsItWas() throws {
        let attempts = MemoryAttempts()
        try attempts.update { $0.failedTouches = 2 }
        let retried = TouchCount(TouchLedger(attempts))
        retried.fingerRead()
        retried.fingerRead()
        #expect(retried.made == 3)
        #expect(try attempts.read().failedTouches == 3)
        try retried.undo()
        #expect(retried.made == nil)
        #expect(try attempts.read().failedTouches == 2)
        // A result without a finger reported first is counted when it is read.
        let unreported = TouchCount(TouchLedger(attempts))
        #expect(try unreported.failures() == 3)
        #expect(try unreported.failures() == 3)
    }

    @Test func aCountThatCannotBeWrittenFailsTheTouch() throws {
        let count = TouchCount(TouchLedger(BrokenAttempts()))
        count.fingerRead()
        #expect(count.made == nil)
        #expect(throws: BrokenAttempts.Failure.self) { try count.failures() }
        // Nothing was counted, so nothing is taken back.
        try count.undo()
    }
}

/// Attempt counters in memory.
final class MemoryAttempts: AttemptStore {
    private let state = Mutex(AttemptState())
    func read() throws -> AttemptState { state.withLock { $0 } }
    func update<T>(_ body: (inout AttemptState) throws -> T) throws -> T { try state.withLock { try body(&$0) } }
}

/// Attempt counters on a disk that fails.
struct BrokenAttempts: AttemptStore {
    struct Failure: Error {}
    func read() throws -> AttemptState { throw Failure() }
    func update<T>(_ body: (inout AttemptState) throws -> T) throws -> T { throw Failure() }
}
