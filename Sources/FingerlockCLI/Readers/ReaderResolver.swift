import Fingerprint
import Foundation

/// Turns `--reader` (or `FINGERLOCK_READER`) into a reader.
struct ReaderResolver {
    let choice: ReaderChoice
    let dependencies: CLIDependencies

    init(option: String?, dependencies: CLIDependencies) throws(CLIError) {
        self.choice = try ReaderChoice(parsing: option ?? dependencies.environment["FINGERLOCK_READER"] ?? "auto")
        self.dependencies = dependencies
    }

    /// Every reader `readers` lists: libfprint's, plus the simulated one when it was asked for.
    func listedReaders() async throws -> [any FingerprintReader] {
        switch choice {
        case .simulated:
            return try simulatedReader().map { [$0] } ?? []
        case .fprintd:
            // fprintd owns its reader: fingerlock lists it through fprintd (`readers`), never opens it.
            return []
        case .auto:
            return try await dependencies.hardwareReaders()
        case .driver, .exact:
            return try await dependencies.hardwareReaders().filter(matches)
        }
    }

    /// The reader to use; nil when none is connected (biometrics "not available").
    func reader() async throws -> (any FingerprintReader)? {
        switch choice {
        case .simulated: return try simulatedReader()
        case .fprintd: return nil
        default: return try await dependencies.hardwareReaders().first(where: matches)
        }
    }

    /// The reader, or a reader error naming what was looked for (and the connected reader it may
    /// have been a typo for).
    func requiredReader() async throws -> any FingerprintReader {
        guard choice != .simulated else {
            if let reader = try simulatedReader() { return reader }
            throw missingReaderError
        }
        guard choice != .fprintd else { throw missingReaderError }
        let connected = try await dependencies.hardwareReaders()
        if let reader = connected.first(where: matches) { return reader }
        throw missingReaderError(connected: connected.map(\.identity))
    }

    /// `missingReaderError`, with a near-miss among the connected readers suggested.
    private func missingReaderError(connected: [ReaderIdentity]) -> FingerprintError {
        let candidates: [String] =
            switch choice {
            case .driver: Array(Set(connected.map(\.driver))).sorted()
            case .exact: connected.map(\.description)
            case .auto, .simulated, .fprintd: []
            }
        guard let hint = Suggestion.didYouMean(choice.description, among: candidates) else { return missingReaderError }
        return FingerprintError.noReader("No fingerprint reader \(choice) was found; \(hint)")
    }

    /// Why `reader()` found nothing, in the words of the `--reader` choice.
    var missingReaderError: FingerprintError {
        switch choice {
        case .auto:
            FingerprintError.noReader()
        case .simulated:
            FingerprintError.noReader("The simulated reader is absent (FINGERLOCK_SIMULATED_TOUCHES starts with 'absent').")
        case .fprintd:
            FingerprintError.noReader("With --reader fprintd, fprintd scans: fingerlock opens no reader itself.")
        case .driver, .exact:
            FingerprintError.noReader("No fingerprint reader \(choice) was found; `fingerlock readers` lists the connected ones.")
        }
    }

    /// A reader to use: as `covers`, except that `auto` never picks the simulated one.
    private func matches(_ reader: any FingerprintReader) -> Bool { choice.picks(reader.identity) }

    private func simulatedReader() throws -> SimulatedReader? {
        do {
            return try SimulatedReader.fromEnvironment(
                dependencies.environment,
                unscripted: { () -> any SimulatedTouchSource in
                    // No script and nobody at a terminal: every scan times out, as an empty script does.
                    if let terminal = dependencies.openTerminal() { return TerminalTouchSource(terminal: terminal) }
                    return ScriptedTouchSource([])
                }, now: dependencies.now)
        } catch let error as SimulatedReader.EnvironmentError {
            throw CLIError(.usage, error.description)
        }
    }
}

extension ReaderResolver {
    /// Whether prints of `identity` fall under the `--reader` choice (`auto` covers every reader).
    func covers(_ identity: ReaderIdentity) -> Bool { choice.covers(identity) }
}
