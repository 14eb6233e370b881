import Crypto
public import FoundationEssentials
import Synchronization

/// A fingerprint reader without hardware, for tests, demos and scripted CI runs.
///
/// Matching is real: a template records (salted and hashed) which finger was enrolled, and a touch
/// matches only a template made from the same finger. Templates are opaque bytes, stored and checked
/// exactly like a real reader's.
public struct SimulatedReader: FingerprintReader {
    public let info: ReaderInfo
    private let touches: any SimulatedTouchSource
    private let now: @Sendable () -> Date

    static let templateMagic = Array("FLSIM1".utf8)
    static let saltLength = 16
    static let digestLength = 32

    /// - Parameters:
    ///   - touches: where each scan's touch comes from.
    ///   - enrollStages: touches needed to enroll a finger (at least 1).
    ///   - now: the clock that dates enrolled prints.
    public init(touches: any SimulatedTouchSource, enrollStages: Int = 5, now: @escaping @Sendable () -> Date) {
        self.touches = touches
        self.now = now
        self.info = ReaderInfo(
            name: "Simulated fingerprint reader", driver: SimulatedReaderIdentity.driver,
            deviceID: SimulatedReaderIdentity.deviceID, scanType: .press, enrollStages: max(1, enrollStages),
            features: [.verify, .identify])
    }

    /// Pull-driven: each event is made only when the consumer asks for the next one, so whatever
    /// it printed for the last event is on the screen before the next touch is asked for (the
    /// interactive reader's prompt would otherwise overtake "stage 1/5").
    public func enroll(_ finger: Finger, username: String, timeout: Duration) -> AsyncThrowingStream<EnrollEvent, any Error> {
        let total = info.enrollStages
        let progress = EnrollmentProgress(total: total)
        return AsyncThrowingStream { [self] in
            switch progress.step() {
            case .open:
                return .opened(stages: total)
            case .finished:
                return nil
            case .finish:
                return .enrolled(EnrolledPrint(finger: finger, reader: identity, template: Self.makeTemplate(for: finger), enrolled: now()))
            case .touch(let stage):
                let touch = try await touches.nextTouch(for: .enroll(finger, stage: stage, of: total), timeout: timeout)
                switch touch {
                case .finger(let touched) where touched == finger:
                    return .stage(completed: progress.complete(), total: total)
                case .finger, .unknown:
                    // Another finger mid-enrollment does not count, as on a real reader.
                    return .retry(.general)
                case .retry(let reason):
                    return .retry(reason)
                default:
                    throw try failure(for: touch, timeout: timeout)
                }
            }
        }
    }

    public func verify(_ print: EnrolledPrint, timeout: Duration, fingerRead: @escaping @Sendable () -> Void)
        async throws -> ScanResult
    {
        try checkCompatible(print)
        let touch = try await touches.nextTouch(for: .verify(print.finger), timeout: timeout)
        return try await result(of: touch, against: [print], timeout: timeout, fingerRead: fingerRead)
    }

    public func identify(_ prints: [EnrolledPrint], timeout: Duration, fingerRead: @escaping @Sendable () -> Void)
        async throws -> ScanResult
    {
        for print in prints { try checkCompatible(print) }
        let touch = try await touches.nextTouch(for: .identify(prints.map(\.finger)), timeout: timeout)
        return try await result(of: touch, against: prints, timeout: timeout, fingerRead: fingerRead)
    }

    public func storedPrints(known: [EnrolledPrint]) async throws -> [StoredPrint] {
        throw notSupported("list stored prints")
    }
    public func deleteStoredPrint(_ print: StoredPrint) async throws { throw notSupported("delete a stored print") }
    public func clearStorage() async throws { throw notSupported("clear its storage") }

    private func result(
        of touch: SimulatedTouch, against prints: [EnrolledPrint], timeout: Duration,
        fingerRead: @Sendable () -> Void
    ) async throws -> ScanResult {
        switch touch {
        case .notStored:
            fingerRead()
            return .notInReaderStorage
        case .readThenHold:
            fingerRead()
            // Throws CancellationError at once when the scan is cancelled.
            try await Task.sleep(for: timeout)
            throw FingerprintError.timedOut(after: Double(timeout.components.seconds))
        case .finger(let finger):
            fingerRead()
            return prints.first { Self.template($0.template, matches: finger) }.map(ScanResult.match) ?? .noMatch
        case .unknown:
            fingerRead()
            return .noMatch
        case .retry(let reason):
            return .retry(reason)
        default:
            throw try failure(for: touch, timeout: timeout)
        }
    }

    private func failure(for touch: SimulatedTouch, timeout: Duration) throws -> FingerprintError {
        try Task.checkCancellation()
        switch touch {
        case .timeout, .hold: return .timedOut(after: Double(timeout.components.seconds))
        case .unplug: return FingerprintError(.unplugged, "The fingerprint reader was unplugged.")
        case .busy:
            return FingerprintError(.busy, "The fingerprint reader is busy: another program, such as fprintd, may be using it.")
        case .error: return FingerprintError(.deviceError, "The fingerprint reader reported a device error.")
        case .fallback: return .userFallback
        case .finger, .unknown, .retry, .notStored, .readThenHold:
            return FingerprintError(.deviceError, "Unexpected touch \(touch).")
        }
    }

    private func checkCompatible(_ print: EnrolledPrint) throws {
        guard print.reader == identity else { throw FingerprintError.incompatible(print, reader: identity) }
        guard Self.isWellFormed(print.template) else {
            throw FingerprintError(.invalidPrint, "The \(print.finger) template is not a simulated reader's; enroll it again.")
        }
    }

    private func notSupported(_ action: String) -> FingerprintError {
        FingerprintError(.notSupported, "The \(info.name) (\(identity)) keeps no prints of its own, so it cannot \(action).")
    }

    // Template: magic, random salt, SHA-256(salt ‖ finger name). Opaque like a real template, and
    // two enrollments of the same finger give different bytes, as on real hardware.
    static func makeTemplate(for finger: Finger) -> Data {
        var salt = [UInt8](repeating: 0, count: saltLength)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        return Data(templateMagic + salt + digest(salt: salt, finger: finger))
    }

    static func isWellFormed(_ template: Data) -> Bool {
        template.count == templateMagic.count + saltLength + digestLength && template.starts(with: templateMagic)
    }

    static func template(_ template: Data, matches finger: Finger) -> Bool {
        guard isWellFormed(template) else { return false }
        let bytes = [UInt8](template)
        let salt = Array(bytes[templateMagic.count..<(templateMagic.count + saltLength)])
        let stored = bytes[(templateMagic.count + saltLength)...]
        let touched = digest(salt: salt, finger: finger)
        // Constant time, as for any secret-derived comparison.
        return zip(stored, touched).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func digest(salt: [UInt8], finger: Finger) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: salt)
        hasher.update(data: Array("fingerlock-simulated-finger:\(finger.rawValue)".utf8))
        return Array(hasher.finalize())
    }
}

/// Where a simulated enrollment stands between two pulls of its event stream. Only the consumer's
/// task pulls, one pull at a time; the lock makes that safe to share anyway. A pull that throws
/// ends the stream by itself (an unfolding stream is never pulled again), so failure needs no state.
private final class EnrollmentProgress: Sendable {
    enum Step {
        case open
        case touch(stage: Int)
        case finish
        case finished
    }

    private struct State {
        var opened = false
        var completed = 0
        var done = false
    }

    private let total: Int
    private let state = Mutex(State())

    init(total: Int) { self.total = total }

    /// What the next pull does.
    func step() -> Step {
        state.withLock { state in
            if state.done { return .finished }
            if !state.opened {
                state.opened = true
                return .open
            }
            if state.completed >= total {
                state.done = true
                return .finish
            }
            return .touch(stage: state.completed + 1)
        }
    }

    /// One more stage done; returns how many are.
    func complete() -> Int {
        state.withLock { state in
            state.completed += 1
            return state.completed
        }
    }
}
