public import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Each test's own duration, for the suite's "slowest tests" list (`scripts/slowest-tests.py`).
///
/// Swift Testing's own times (`--xunit-output`, the event stream) count from when the run schedules
/// a test; with a parallelization width most tests are scheduled at once and then wait for a slot,
/// so those times say when a test ended, not how long it took. This scope runs inside the slot,
/// around the test's body: when `FINGERLOCK_TEST_TIMINGS` names a file, each test case appends one
/// line to it, `<seconds>\t<test id>`. Every top-level suite carries `.timed` (it applies to the
/// suites and tests inside); the script names the tests that ran without it.
public struct TimedTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Appends with one `write` of `O_APPEND` per line, so the lines of tests that end together,
    /// also in the two processes `scripts/test.sh` runs, never interleave.
    private static let descriptor: Int32? = {
        guard let path = getenv("FINGERLOCK_TEST_TIMINGS").map({ String(cString: $0) }), !path.isEmpty else { return nil }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        return descriptor >= 0 ? descriptor : nil
    }()

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil, let descriptor = Self.descriptor else { return try await function() }
        let start = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let line = Array("\(seconds)\t\(test.id)\n".utf8)
            _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
        try await function()
    }
}

extension Trait where Self == TimedTrait {
    /// Records each test's own duration (see ``TimedTrait``).
    public static var timed: Self { TimedTrait() }
}
