import Synchronization

/// Work run at most once, in a task of its own, started by whoever first needs its result or
/// knows it soon will: the reader lookup (`ReaderLookup`) and the remote-session check
/// (`RemoteSessionCheck`) start early and are awaited where their answer is first needed.
final class OnceTask<Value: Sendable>: Sendable {
    private let work: @Sendable () async -> Value
    private let task = Mutex<Task<Value, Never>?>(nil)

    init(_ work: @escaping @Sendable () async -> Value) { self.work = work }

    var isStarted: Bool { task.withLock { $0 != nil } }

    /// Starts the work without waiting for it (nothing, once started).
    func start() { _ = started() }

    /// The result, waiting for the work under way (starting it first if nobody has).
    var value: Value {
        get async { await started().value }
    }

    private func started() -> Task<Value, Never> {
        task.withLock { task in
            if let task { return task }
            let made = Task { [work] in await work() }
            task = made
            return made
        }
    }
}
