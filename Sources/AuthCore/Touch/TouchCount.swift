import Synchronization

/// One touch's place in its vault's failed-touch count (`TouchLedger`): added when the reader
/// reports a finger (on the reader's thread, mid-scan, before the result is out), then read, or
/// taken back when the touch turns out not to count. A match resets the whole count, elsewhere.
///
/// This is *when a touch counts*, in both modes: a scan that only waited, or timed out or was
/// cancelled before a finger was read, is no touch; one whose finger was read counts before anyone
/// learns its result, so a process killed at a no-match cannot skip it.
public final class TouchCount: Sendable {
    private let ledger: TouchLedger
    /// nil until the touch is counted; then the count it made, or why it could not be made.
    private let counted = Mutex<Result<Int, any Error>?>(nil)

    public init(_ ledger: TouchLedger) {
        self.ledger = ledger
    }

    /// The reader has a finger: the touch counts as failed until its result says otherwise.
    public func fingerRead() {
        counted.withLock { counted in
            if counted == nil { counted = Result { try ledger.count() } }
        }
    }

    /// The count this touch made, if it was made.
    public var made: Int? { counted.withLock { try? $0?.get() } }

    /// The failed-touch count with this touch in it; counted now if the reader decided without
    /// reporting the finger first. Throws when the count could not be written.
    public func failures() throws -> Int {
        try counted.withLock { counted in
            let result = counted ?? Result { try ledger.count() }
            counted = result
            return try result.get()
        }
    }

    /// Takes the touch back out (the reader asked for another touch after all).
    public func undo() throws {
        try counted.withLock { counted in
            guard case .success = counted else { return }
            try ledger.undo()
            counted = nil
        }
    }
}
