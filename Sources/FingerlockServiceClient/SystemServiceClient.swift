public import Auth
import FingerlockProtocol
import Foundation
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// fingerlockd behind Auth's `SystemService` seam: one Varlink connection per call (the CLI makes a
/// few calls per run), every wait bounded, and the service's replies turned into
/// `SystemServiceError`s with the sentence the user needs. Who may answer: see `ServiceSocket`. A
/// scan runs on a thread of its own with a blocking call; cancelling the task shuts the connection,
/// which makes the service cancel the scan.
public struct SystemServiceClient: SystemService {
    public let socketPath: String
    /// Bounds every wait of a call that is not a scan.
    public let timeout: Duration
    /// Whether systemd runs this machine: how the fix says to start fingerlockd.
    let systemd: Bool

    /// `systemd`: whether systemd runs this machine (the fix says how to start fingerlockd there, or
    /// where the guide for a machine without it is).
    public init(socketPath: String, timeout: Duration = .seconds(10), systemd: Bool = true) {
        self.socketPath = socketPath
        self.timeout = timeout
        self.systemd = systemd
    }

    /// Whether systemd runs this machine (`/run/systemd/system` exists, as sd_booted asks).
    public static var systemdRuns: Bool { FileManager.default.fileExists(atPath: "/run/systemd/system") }

    /// The guide for starting fingerlockd without systemd, as the package installs it.
    public static let noSystemdGuide = "/usr/share/doc/fingerlock/system-mode-without-systemd.md"

    /// A scan may take its whole timeout, plus a wait for the reader and the service's own work.
    static func callTimeout(_ scan: Duration) -> Duration { scan * 2 + .seconds(5) }

    // MARK: - Connections

    /// The one-line fix printed whenever the service cannot be reached.
    var fix: String {
        let start =
            systemd
            ? "start it with `systemctl enable --now fingerlockd.socket`"
            : "this machine runs without systemd: start it as \(Self.noSystemdGuide) says"
        return start + ", or point --socket (FINGERLOCK_SOCKET) at it. The recovery key still opens this vault: `fingerlock passcode reset`."
    }

    func unreachable(_ why: String) -> SystemServiceError {
        SystemServiceError(.unreachable("fingerlockd is not reachable at \(socketPath) (\(why)): " + fix))
    }

    /// A connection to the service the socket rule accepts; `timeout` bounds every wait on it (a scan
    /// needs longer than a slot call).
    func connect(timeout: Duration? = nil) throws(SystemServiceError) -> ServiceClient {
        let uid: UInt32
        switch ServiceSocket(path: socketPath).expectedServiceUID() {
        case .success(let owner): uid = owner
        case .failure(let problem): throw unreachable(problem.reason)
        }
        do {
            return try ServiceClient(socketPath: socketPath, timeout: timeout ?? self.timeout, expectedServiceUID: uid)
        } catch {
            throw map(error)
        }
    }

    /// One call on a connection of its own, its failure mapped.
    func call<T>(timeout: Duration? = nil, _ body: (ServiceClient) throws(ServiceClientError) -> T)
        throws(SystemServiceError) -> T
    {
        let client = try connect(timeout: timeout)
        do {
            return try body(client)
        } catch {
            throw map(error)
        }
    }

    /// Runs a blocking call on its own thread (it may wait for a finger for long); task
    /// cancellation (Ctrl-C, the passcode chosen at the prompt) shuts the connection.
    func scanning<T: Sendable>(
        timeout: Duration, _ body: @escaping @Sendable (ServiceClient) throws(ServiceClientError) -> T
    ) async throws -> T {
        try await scanning(timeout: timeout) { _ throws(ServiceClientError) in
        } reply: { client, _ throws(ServiceClientError) in
            try body(client)
        }
    }

    /// The same, with the call's `request` written here first: the service starts on it while the
    /// thread that waits for the `reply` is being made (connect to request sent: 1.0 -> 0.44 ms).
    /// Runs on the task, so only for a call whose write cannot wait: not one that carries secrets,
    /// which asks GetInfo first (`ServiceClient.sendUnlockWithTouch`).
    func scanning<T: Sendable, Sent: Sendable>(
        timeout: Duration, request: (ServiceClient) throws(ServiceClientError) -> Sent,
        reply: @escaping @Sendable (ServiceClient, Sent) throws(ServiceClientError) -> T
    ) async throws -> T {
        let client = try connect(timeout: Self.callTimeout(timeout))
        // A task already cancelled sends nothing the service would start on.
        try Task.checkCancellation()
        let sent: Sent
        do {
            sent = try request(client)
        } catch {
            throw map(error)
        }
        let canceller = client.canceller
        let box = ClientBox(client)
        let outcome: Result<T, ServiceClientError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let result = Result(catching: { () throws(ServiceClientError) in try reply(box.client, sent) })
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            canceller.cancel()
        }
        try Task.checkCancellation()
        return try outcome.mapError(map).get()
    }

    // MARK: - Values

    static func id(_ vault: UUID) -> String { vault.uuidString.lowercased() }

    static func failure(_ why: String) -> SystemServiceError { SystemServiceError(.failure(why)) }
}

/// Hands the (non-Sendable) client to the one thread that uses it while the call runs.
private final class ClientBox: @unchecked Sendable {
    let client: ServiceClient
    init(_ client: ServiceClient) { self.client = client }
}
