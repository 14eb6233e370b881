import Synchronization
public import Testing

/// Something a whole test process shares (an environment variable a library reads, a device): the
/// tests that use it, in whichever suites and targets they are, take turns (`.exclusive(to:)`).
public struct ProcessWideResource: Sendable, Hashable {
    public let name: String
    public init(_ name: String) { self.name = name }

    /// What a test sets for every thread of its process: libfprint's `FP_VIRTUAL_*` and
    /// `FP_DRIVERS_WHITELIST` variables (read when a context enumerates) with the default GLib main
    /// context all libfprint calls share, and the umask. `scripts/test.sh` runs the tests that set
    /// them in a second process, where they take turns.
    public static let processSettings = ProcessWideResource("process settings")
}

/// Runs each test case it covers while holding its resource, waiting its turn (first come, first
/// served) without holding a thread: `.serialized` orders the tests of one suite, this also orders
/// them against the tests of other suites and targets that use the same resource.
public struct ExclusiveTrait: SuiteTrait, TestTrait, TestScoping {
    public let resource: ProcessWideResource
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        let turn = TurnTaking.of(resource)
        await turn.enter(exclusive: true)
        defer { turn.leave(exclusive: true) }
        try await function()
    }
}

extension Trait where Self == ExclusiveTrait {
    /// The tests covered take turns with every other test that uses `resource`.
    public static func exclusive(to resource: ProcessWideResource) -> Self { ExclusiveTrait(resource: resource) }
}

extension TurnTaking {
    /// The turns of each resource in this process (a process-wide resource has process-wide turns).
    private static let all = Mutex<[ProcessWideResource: TurnTaking]>([:])

    static func of(_ resource: ProcessWideResource) -> TurnTaking {
        all.withLock { all in
            if let existing = all[resource] { return existing }
            let created = TurnTaking()
            all[resource] = created
            return created
        }
    }
}
