public import Foundation

extension Process {
    /// Waits until the process has exited, sleeping between looks: Swift Testing runs tests on the
    /// cooperative pool, which has only as many threads as cores, and `waitUntilExit()` holds one of
    /// them for as long as the process runs, stalling the other tests.
    public func waitForExit(polling interval: Duration = .milliseconds(5)) async throws {
        while isRunning { try await Task.sleep(for: interval) }
    }
}
