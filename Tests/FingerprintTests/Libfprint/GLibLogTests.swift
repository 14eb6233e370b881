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
            try await context.logCriticalForTesting()
            let seen = lines.withLock { $0 }
            let critical = try #require(seen.first { $0.level == .critical }, "\(seen)")
            #expect(critical.domain == "GLib")
            #expect(critical.message.contains("Source ID"), "\(critical)")
        }
    }
}
