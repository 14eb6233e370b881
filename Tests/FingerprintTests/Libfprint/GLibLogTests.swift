import Fingerprint
import Foundation
import Synchronization
import Testing

extension LibfprintTests {
    /// GLib's log (a critical as a cancelled operation may log) reaches the context's sink, not
    /// GLib's stderr writer.
    @Suite struct GLibLog {
        @Test func aCriticalGoesToTheContextsSink() async throws {
            let lines = Mutex<[LibfprintLogLine]>([])
            let (_, paths) = VirtualDriver.environment(for: [.device])
            defer { for path in paths.values { unlink(path) } }
            let context = LibfprintContext(log: { line in lines.withLock { $0.append(line) } })
            try await context.logCriticalsForTesting()
            let seen = lines.withLock { $0 }
            let critical = try #require(seen.first { $0.level == .critical }, "\(seen)")
            #expect(critical.domain == "GLib")
            #expect(critical.message.contains("Source ID"), "\(critical)")
        }

        /// fingerlockd logs for as long as it runs: each line must cost the same as the first and
        /// leave the sink as it was routed. (The sink was rewrapped at each line, so every touch
        /// cost the service more CPU than the one before; this many lines ran for minutes and
        /// then overflowed the stack.)
        @Test func aLongLivedContextLogsAnyNumberOfLinesToTheSameSink() async throws {
            let criticals = Mutex(0)
            let (_, paths) = VirtualDriver.environment(for: [.device])
            defer { for path in paths.values { unlink(path) } }
            let context = LibfprintContext(log: { line in
                if line.level == .critical { criticals.withLock { $0 += 1 } }
            })
            try await context.logCriticalsForTesting()
            let routed = try #require(LibfprintContext.routedLogSinkForTesting)
            try await context.logCriticalsForTesting(200_000)
            #expect(criticals.withLock { $0 } == 200_001)
            #expect(LibfprintContext.routedLogSinkForTesting == routed)
        }
    }
}
