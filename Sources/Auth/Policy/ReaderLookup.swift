public import Fingerprint

/// The reader an evaluation uses: known already, or still being found.
///
/// libfprint enumerates on its own thread, which takes a few milliseconds (opening libfprint included).
/// A lookup still under way is awaited only where the reader is first needed, so `verifyTouch` unlocks
/// the vault with the cached key meanwhile instead of waiting first. A deferred lookup starts only when
/// the policy knows it will scan here (``start()``, or the first ``outcome()``): a system-mode vault's
/// touches go to fingerlockd, and its commands never load libfprint at all.
public struct ReaderLookup: Sendable {
    /// The reader, or nil with the problem that explains its absence (nil when none is connected).
    public typealias Outcome = (reader: (any FingerprintReader)?, problem: FingerprintError?)

    private enum State: Sendable {
        case found((any FingerprintReader)?, FingerprintError?)
        case deferred(OnceTask<Outcome>)
    }

    private let state: State

    /// A lookup that is already over.
    public static func found(_ reader: (any FingerprintReader)?, problem: FingerprintError? = nil) -> ReaderLookup {
        ReaderLookup(state: .found(reader, problem))
    }

    /// Starts `find` now, in a task of its own; its outcome is awaited where it is needed.
    public static func started(_ find: @escaping @Sendable () async -> Outcome) -> ReaderLookup {
        let lookup = deferred(find)
        lookup.start()
        return lookup
    }

    /// Runs `find` only once ``start()`` or ``outcome()`` is first called.
    public static func deferred(_ find: @escaping @Sendable () async -> Outcome) -> ReaderLookup {
        ReaderLookup(state: .deferred(OnceTask(find)))
    }

    private init(state: State) { self.state = state }

    /// Whether the lookup is under way or over: false only for a deferred one nothing started yet.
    public var isStarted: Bool {
        if case .deferred(let lookup) = state { return lookup.isStarted }
        return true
    }

    /// Starts a deferred lookup without waiting for it (nothing, for the other kinds).
    public func start() {
        if case .deferred(let lookup) = state { lookup.start() }
    }

    /// The outcome, waiting for it if the lookup is still under way.
    public func outcome() async -> Outcome {
        switch state {
        case .found(let reader, let problem): (reader, problem)
        case .deferred(let lookup): await lookup.value
        }
    }
}
