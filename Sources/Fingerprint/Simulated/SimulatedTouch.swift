/// One scan's worth of what happens at the simulated reader.
public enum SimulatedTouch: Sendable, Hashable, CustomStringConvertible {
    /// This finger touches the sensor.
    case finger(Finger)
    /// A finger that was never enrolled touches the sensor.
    case unknown
    /// The scan could not be read; the reader asks for another touch.
    case retry(RetryReason)
    /// No finger arrives before the scan timeout (reported at once, no real wait).
    case timeout
    /// No finger arrives, and the scan really waits for its whole timeout (or until it is
    /// cancelled): for tests of what happens during a scan.
    case hold
    /// The reader is unplugged during the scan.
    case unplug
    /// Another program holds the reader.
    case busy
    /// The device reports an error.
    case error
    /// The user chose the passcode instead (Enter at the interactive prompt).
    case fallback
    /// A finger is read, and the reader answers that the print is not in its own storage (a chip that
    /// lost it: wiped by another program, a firmware update, a storage clear).
    case notStored
    /// A finger is read, and the reader keeps deciding until the scan times out or is cancelled: for
    /// tests of a scan that ends after the finger was read.
    case readThenHold

    public var description: String {
        switch self {
        case .finger(let finger): finger.rawValue
        case .unknown: "unknown"
        case .retry(let reason): "retry:\(reason.rawValue)"
        case .timeout: "timeout"
        case .hold: "hold"
        case .unplug: "unplug"
        case .busy: "busy"
        case .error: "error"
        case .fallback: "fallback"
        case .notStored: "not-stored"
        case .readThenHold: "read-hold"
        }
    }
}

/// What the reader is doing when it asks for a touch, so an interactive source can say so.
public enum SimulatedScanPurpose: Sendable, Equatable {
    case enroll(Finger, stage: Int, of: Int)
    case verify(Finger)
    case identify([Finger])
}

/// Where the simulated reader's touches come from: a script, or a person at a terminal.
public protocol SimulatedTouchSource: Sendable {
    /// The next touch. Waits at most `timeout` (a person-driven source returns `.timeout` then)
    /// and throws `CancellationError` promptly when the task is cancelled.
    func nextTouch(for purpose: SimulatedScanPurpose, timeout: Duration) async throws -> SimulatedTouch
}
