/// Whether this is a remote session, asked once per command and possibly ahead of need.
///
/// The check reads a dozen small files under /proc and /run (about 1 ms of a system-mode `verify`).
/// A use case that knows it will touch (``TouchVerification``) starts it before it reads the vault
/// header, as a task of its own (on the concurrency pool's other thread, where there is one), so the
/// two overlap; the refusal itself still comes before any scan, where the verdict is first needed.
/// The verdict holds for the one command its environment serves.
final class RemoteSessionCheck: Sendable {
    private let verdict: OnceTask<String?>

    init(_ detect: @escaping @Sendable () -> String?) { verdict = OnceTask { detect() } }

    /// Starts the check without waiting for it (nothing, once started).
    func start() { verdict.start() }

    /// Why this is a remote session, or nil for a local one: waits for a check under way.
    func reason() async -> String? { await verdict.value }
}
