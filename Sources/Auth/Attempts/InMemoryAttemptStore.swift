import Synchronization

/// Counters in memory, for tests and for a system service that owns them.
public final class InMemoryAttemptStore: AttemptStore {
    private let state: Mutex<AttemptState>

    public init(_ initial: AttemptState = AttemptState()) {
        state = Mutex(initial)
    }

    public func read() throws -> AttemptState { state.withLock { $0 } }

    @discardableResult
    public func update<T>(_ body: (inout AttemptState) throws -> T) throws -> T {
        try state.withLock { try body(&$0) }
    }
}
