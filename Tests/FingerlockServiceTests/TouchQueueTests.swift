import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Fingerprint
import Foundation
import Synchronization
import Testing

@testable import FingerlockService

/// Touches at the service's one reader, in process: only a touch the reader read a finger for is
/// counted (not one that waited in line or timed out), a client gone after that cannot take it
/// back, and a user who queues many scans does not keep another user's touch waiting behind them.
@Suite(.timed, .timeLimit(.minutes(1)))
struct TouchQueueTests {
    let alice = TouchFixture.alice
    let bob = TouchFixture.bob

    @Test func touchesWaitingInParallelAreNotCountedUnlessTheReaderReadAFinger() async throws {
        // Enrollment, then: a scan that holds the reader while five more wait; three of those time
        // out without a finger, one reads an unknown finger, the last the enrolled one.
        let fixture = try TouchFixture(
            script: [
                .finger(.rightIndex), .finger(.rightIndex), .hold, .timeout, .timeout, .timeout, .unknown,
                .finger(.rightIndex),
            ])
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        let outcomes = await withTaskGroup(of: String.self) { group in
            group.addTask { await fixture.touchOutcome(timeout: 3) }
            #expect(await InProcessServer.eventually { fixture.touches.remainingCount == 5 })
            for _ in 1...5 { group.addTask { await fixture.touchOutcome(timeout: 30) } }
            #expect(await InProcessServer.eventually { fixture.core.scans.waiting == 5 })
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.sorted() == ["NoMatch", "ScanTimedOut", "ScanTimedOut", "ScanTimedOut", "ScanTimedOut", "key"])
        #expect(try fixture.failedTouches == 0)
        #expect(try fixture.core.status(.init(vault: fixture.vault.id), peer: alice).status.unlocked)
    }

    @Test func aTouchCancelledAfterTheReaderReadTheFingerStaysCountedUpToTheLockout() async throws {
        let reads = FingerReads()
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex)]) {
            HookedReader.fingerThenHold($0, reads: reads)
        }
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        for attempt in 1...5 {
            // The client goes away once the reader has the finger, before the result is out.
            let touch = Task { try await fixture.touch(timeout: 30) }
            #expect(await InProcessServer.eventually { reads.count == attempt })
            touch.cancel()
            await #expect(throws: CancellationError.self) { try await touch.value }
            #expect(try fixture.failedTouches == attempt)
        }
        // The fifth was the last one allowed: the key is gone, the next touch is not even scanned.
        #expect(try !fixture.core.status(.init(vault: fixture.vault.id), peer: alice).status.unlocked)
        #expect(await fixture.touchOutcome() == "PasscodeRequired")
        #expect(reads.count == 5)
    }

    @Test func bobFloodingTheReaderHoldsAlicesTouchUpByTheOneScanHeHasRunning() async throws {
        // Alice's and Bob's enrollments, then Bob's first scan holds the reader; the enrolled finger
        // goes to whoever is served next, then three timeouts.
        let fixture = try TouchFixture(
            script: Array(repeating: .finger(.rightIndex), count: 4) + [
                .hold, .finger(.rightIndex), .timeout, .timeout, .timeout,
            ])
        _ = try await fixture.enroll(.rightIndex)
        try await fixture.bobsVault()
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        let outcomes = await withTaskGroup(of: (String, String).self) { group in
            group.addTask { ("bob", await fixture.touchOutcome(as: bob, timeout: 3)) }
            #expect(await InProcessServer.eventually { fixture.touches.remainingCount == 4 })
            for _ in 1...3 { group.addTask { ("bob", await fixture.touchOutcome(as: bob, timeout: 30)) } }
            #expect(await InProcessServer.eventually { fixture.core.scans.waiting == 3 })
            group.addTask { ("alice", await fixture.touchOutcome(timeout: 30)) }
            #expect(await InProcessServer.eventually { fixture.core.scans.waiting == 4 })
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0.0 == "alice" }.map(\.1) == ["key"])
        #expect(outcomes.filter { $0.0 == "bob" }.map(\.1) == Array(repeating: "ScanTimedOut", count: 4))
    }

    /// As with libfprint, whose one thread a running scan holds: looking the reader up waits for
    /// the scan. Requests still take their turn in the order they came, since they queue first.
    @Test func requestsQueueBeforeTheReaderLookupThatARunningScanHolds() async throws {
        let scanning = ScanningFlag()
        let fixture = try TouchFixture(
            script: Array(repeating: .finger(.rightIndex), count: 4) + [.hold, .finger(.rightIndex), .timeout, .timeout],
            reader: { HookedReader.marking($0, scanning: scanning) },
            readers: { reader in
                ServiceReaders {
                    while scanning.isSet { try await Task.sleep(for: .milliseconds(5)) }
                    return reader
                }
            })
        _ = try await fixture.enroll(.rightIndex)
        try await fixture.bobsVault()
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        let outcomes = await withTaskGroup(of: (String, String).self) { group in
            group.addTask { ("bob", await fixture.touchOutcome(as: bob, timeout: 3)) }
            #expect(await InProcessServer.eventually { scanning.isSet })
            for _ in 1...2 { group.addTask { ("bob", await fixture.touchOutcome(as: bob, timeout: 30)) } }
            #expect(await InProcessServer.eventually { fixture.core.scans.waiting == 2 })
            group.addTask { ("alice", await fixture.touchOutcome(timeout: 30)) }
            #expect(await InProcessServer.eventually { fixture.core.scans.waiting == 3 })
            return await group.reduce(into: []) { $0.append($1) }
        }
        // Alice was served right after Bob's running scan: the enrolled finger was hers.
        #expect(outcomes.filter { $0.0 == "alice" }.map(\.1) == ["key"])
        #expect(outcomes.filter { $0.0 == "bob" }.map(\.1) == Array(repeating: "ScanTimedOut", count: 3))
    }
}

/// Whether a scan runs now.
final class ScanningFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set(_ running: Bool) { value.withLock { $0 = running } }
}

/// How many fingers a ``HookedReader/fingerThenHold(_:reads:)`` reader has read.
final class FingerReads: Sendable {
    private let reads = Mutex(0)
    var count: Int { reads.withLock { $0 } }
    func add() { reads.withLock { $0 += 1 } }
}

/// The simulated reader with its scans (verify and identify) replaced by `scan`.
struct HookedReader: FingerprintReader {
    typealias Scan =
        @Sendable (_ prints: [EnrolledPrint], _ timeout: Duration, _ fingerRead: @escaping @Sendable () -> Void)
        async throws -> ScanResult
    let inner: SimulatedReader
    let scan: Scan
    var info: ReaderInfo { inner.info }

    /// Every scan reads a finger (and says so), then holds until it is cancelled or times out: the
    /// moment between the reader having the finger and the result.
    static func fingerThenHold(_ inner: SimulatedReader, reads: FingerReads) -> HookedReader {
        HookedReader(inner: inner) { _, timeout, fingerRead in
            fingerRead()
            reads.add()
            try await Task.sleep(for: timeout)
            return .noMatch
        }
    }

    /// Scans as the simulated reader does, marking the time each runs (as libfprint's busy thread
    /// would show it).
    static func marking(_ inner: SimulatedReader, scanning: ScanningFlag) -> HookedReader {
        HookedReader(inner: inner) { prints, timeout, fingerRead in
            scanning.set(true)
            defer { scanning.set(false) }
            return try await inner.identify(prints, timeout: timeout, fingerRead: fingerRead)
        }
    }

    func enroll(_ finger: Finger, username: String, timeout: Duration) -> AsyncThrowingStream<EnrollEvent, any Error> {
        inner.enroll(finger, username: username, timeout: timeout)
    }

    func verify(_ print: EnrolledPrint, timeout: Duration, fingerRead: @escaping @Sendable () -> Void) async throws
        -> ScanResult
    {
        try await scan([print], timeout, fingerRead)
    }

    func identify(_ prints: [EnrolledPrint], timeout: Duration, fingerRead: @escaping @Sendable () -> Void)
        async throws -> ScanResult
    {
        try await scan(prints, timeout, fingerRead)
    }

    func storedPrints(known: [EnrolledPrint]) async throws -> [StoredPrint] { try await inner.storedPrints(known: known) }
    func deleteStoredPrint(_ print: StoredPrint) async throws { try await inner.deleteStoredPrint(print) }
    func clearStorage() async throws { try await inner.clearStorage() }
}
