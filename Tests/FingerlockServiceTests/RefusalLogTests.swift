import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@testable import FingerlockService

/// A flood of refused connections or oversized messages writes a bounded number of lines to the
/// service's log, and a summary that counts every refusal (it was one line per refusal: 120k lines
/// in 3 s from one process). In process, with the server's logger captured and its clock moved by hand.
@Suite(.timed, .timeLimit(.minutes(1)))
struct RefusalLogTests {
    /// A monotonic clock the test moves by hand.
    final class HandClock: Sendable {
        private let start = ContinuousClock.now
        private let offset = Mutex<Duration>(.zero)

        var now: ContinuousClock.Instant { start + offset.withLock { $0 } }

        func advance(_ duration: Duration) { offset.withLock { $0 += duration } }
    }

    let log = CapturedLog()
    let clock = HandClock()

    func lines(_ message: String) -> [CapturedLog.Line] { log.lines.filter { $0.message == message } }

    func summaries(_ noun: String) -> [CapturedLog.Line] {
        log.lines.filter { $0.message.hasSuffix(" s") && $0.message.contains(" more \(noun) in the last ") }
    }

    @Test func aFloodOfRefusedConnectionsLogsAFewLinesAndASummaryCountingThemAll() async throws {
        var limits = ServiceLimits()
        limits.maximumConnectionsPerUser = 2
        let clock = clock
        let service = try InProcessServer(limits: limits, logger: log.logger, now: { clock.now })
        let idle = [try service.client(), try service.client()]
        #expect(await InProcessServer.eventually { service.server.openConnections == 2 })
        let flood = 300
        for _ in 0..<flood {
            let refused = try service.client()
            #expect(try refused.receive()?["error"] as? String == "io.fingerlock.Service.TooManyConnections")
        }
        // The first five of the window, no more; nothing summarised while the window lasts.
        #expect(lines("connection refused: too many").count == limits.refusalsLoggedPerWindow)
        #expect(lines("connection refused: too many").allSatisfy { $0.metadata["uid"] == "\(getuid())" && $0.metadata["limit"] == "2" })
        #expect(summaries("connections refused").isEmpty)

        // The window ends: the next refusal brings the summary of all the others, and is logged itself.
        clock.advance(.seconds(11))
        let late = try service.client()
        #expect(try late.receive()?["error"] as? String == "io.fingerlock.Service.TooManyConnections")
        let summary = summaries("connections refused")
        #expect(summary.map(\.message) == ["\(flood - limits.refusalsLoggedPerWindow) more connections refused in the last 11 s"])
        #expect(summary.first?.metadata["uids"] == "\(getuid())")
        #expect(summary.first?.level == .warning)
        #expect(lines("connection refused: too many").count == limits.refusalsLoggedPerWindow + 1)
        #expect(log.lines.count <= limits.refusalsLoggedPerWindow + 2)
        _ = idle
        await service.stop()
    }

    @Test func oversizedMessagesAreSummarisedAtShutdown() async throws {
        var limits = ServiceLimits()
        limits.maximumMessageSize = 64
        let clock = clock
        let service = try InProcessServer(limits: limits, logger: log.logger, now: { clock.now })
        let flood = 40
        for _ in 0..<flood {
            let client = try service.client()
            try client.send(String(repeating: "x", count: 100))
            #expect(try client.receive()?["error"] as? String == "io.fingerlock.Service.MessageTooLarge")
        }
        #expect(lines("message too large").count == limits.refusalsLoggedPerWindow)
        clock.advance(.seconds(3))
        await service.stop()
        // Stopping writes the summary of the window still open.
        #expect(
            summaries("messages refused as too large").map(\.message)
                == ["\(flood - limits.refusalsLoggedPerWindow) more messages refused as too large in the last 3 s"])
        // Refusal lines only: on a starved machine `stop` may also warn that it ran out of time.
        let refusals = log.lines.filter { $0.message == "message too large" || $0.message.contains(" more messages refused ") }
        #expect(refusals.count == log.lines.filter { $0.message != "connections still open at shutdown" }.count)
        #expect(refusals.count == limits.refusalsLoggedPerWindow + 1, "\(log.lines.map { "\($0.level) \($0.message) \($0.metadata)" })")
    }

    @Test func aLoneRefusalAfterAQuietSpellIsLoggedAtOnce() throws {
        let clock = clock
        let refusals = RefusalLog(
            logger: log.logger, level: .warning, message: "connection refused: too many", summaryNoun: "connections refused",
            window: .seconds(10), loggedPerWindow: 2, now: { clock.now })
        for uid: UInt32 in [1, 2, 3, 3, 4] { refusals.record(uid: uid, metadata: [:]) }
        #expect(lines("connection refused: too many").map { $0.metadata["uid"] } == ["1", "2"])
        #expect(refusals.summaryDue == clock.now + .seconds(10))
        clock.advance(.seconds(10))
        refusals.flush()
        #expect(summaries("connections refused").map(\.message) == ["3 more connections refused in the last 10 s"])
        #expect(summaries("connections refused").first?.metadata["uids"] == "3, 4")
        #expect(refusals.summaryDue == nil)
        clock.advance(.seconds(60))
        refusals.record(uid: 5, metadata: [:])
        #expect(lines("connection refused: too many").map { $0.metadata["uid"] } == ["1", "2", "5"])
        #expect(summaries("connections refused").count == 1)
    }
}
