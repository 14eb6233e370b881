internal import CFprint

/// Passes libfprint's match report (`FpMatchCb`) on as "a finger was read". libfprint calls it on
/// its thread as soon as the driver has decided match or no-match, before the operation ends (a
/// driver may still wait for the finger to lift, or fail or be cancelled after it); a retry hint
/// comes with an error and is not a finger read. Lives for the `*_sync` call that is given it.
final class FingerReadReport {
    private let fingerRead: @Sendable () -> Void

    init(_ fingerRead: @escaping @Sendable () -> Void) {
        self.fingerRead = fingerRead
    }

    /// Valid while this object lives, which the caller guarantees for the whole `*_sync` call.
    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static let callback: FpMatchCb = { _, _, _, data, error in
        guard error == nil, let data else { return }
        Unmanaged<FingerReadReport>.fromOpaque(data).takeUnretainedValue().fingerRead()
    }
}
