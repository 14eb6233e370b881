import Foundation
import SafeFiles

/// The counters as a 0600 JSON file beside the vault, changed under a `flock`.
///
/// Counters must be written before the passcode is known, so they cannot be sealed with the vault's
/// key; deleting the file resets them, which needs a shell as the user — outside what user mode
/// protects against (see the threat model).
public struct FileAttemptStore: AttemptStore {
    let dataDirectory: String
    let path: String
    let lockPath: String

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        path = dataDirectory + "/attempts.json"
        lockPath = dataDirectory + "/attempts.lock"
    }

    public func read() throws -> AttemptState {
        try withLock { try load() }
    }

    @discardableResult
    public func update<T>(_ body: (inout AttemptState) throws -> T) throws -> T {
        try withLock {
            var state = try load()
            let before = state
            let result = try body(&state)
            if state != before {
                // Only the passcode counters must survive an OS crash or power loss. The touch counter
                // guards a key that lives in the kernel keyring, which a crash or power loss empties
                // too: afterwards no touch can unlock anything until the passcode is entered (which
                // clears the counter). Written without fsync it still reaches the kernel before the
                // touch is checked, so killing the process cannot skip a failure; this saves two
                // fsync pairs (file and directory) on every touch.
                let passcodeCountersChanged =
                    state.failedPasscodes != before.failedPasscodes
                    || state.lastPasscodeFailure != before.lastPasscodeFailure
                try save(state, durable: passcodeCountersChanged)
            }
            return result
        }
    }

    private func withLock<T>(_ body: () throws -> T) throws -> T {
        _ = try PrivateDirectory(creating: dataDirectory)
        let lock = try FileLock(path: lockPath, timeout: .seconds(30))
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }

    private func load() throws -> AttemptState {
        guard FileManager.default.fileExists(atPath: path) else { return AttemptState() }
        try PrivateDirectory.checkFile(path)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let state = try? decoder.decode(AttemptState.self, from: Data(try AtomicFile.read(path))) else {
            throw AuthError(.dataError, "The attempt counters in \(path) are damaged; fingerlock will not guess them.")
        }
        return state
    }

    private func save(_ state: AttemptState, durable: Bool) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        try AtomicFile.write(Array(try encoder.encode(state)), to: path, durable: durable)
    }
}
