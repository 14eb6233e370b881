public import Fingerprint

/// The reader an evaluation uses: known already, or still being found.
///
/// libfprint enumerates on its own thread, which takes a millisecond or two. A lookup still under way
/// is awaited only where the reader is first needed, so `verifyTouch` unlocks the vault with the cached
/// key meanwhile instead of waiting first.
public struct ReaderLookup: Sendable {
    /// The reader, or nil with the problem that explains its absence (nil when none is connected).
    public typealias Outcome = (reader: (any FingerprintReader)?, problem: FingerprintError?)

    private enum State: Sendable {
        case found((any FingerprintReader)?, FingerprintError?)
        case pending(Task<Outcome, Never>)
    }

    private let state: State

    /// A lookup that is already over.
    public static func found(_ reader: (any FingerprintReader)?, problem: FingerprintError? = nil) -> ReaderLookup {
        ReaderLookup(state: .found(reader, problem))
    }

    /// Starts `find` now, in a task of its own; its outcome is awaited where it is needed.
    public static func started(_ find: @escaping @Sendable () async -> Outcome) -> ReaderLookup {
        ReaderLookup(state: .pending(Task { await find() }))
    }

    private init(state: State) { self.state = state }

    /// The outcome, waiting for it if the lookup is still under way.
    public func outcome() async -> Outcome {
        switch state {
        case .found(let reader, let problem): (reader, problem)
        case .pending(let task): await task.value
        }
    }
}
